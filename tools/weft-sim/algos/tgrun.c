/* SPDX-License-Identifier: Apache-2.0 */
/* A task graph's round, its error and its cancel (rule T3 of
 * docs/protocols.md, with the round's count, T2) on the library's own
 * code: src/internal/taskgraph/run_steps.h compiled unchanged with
 * -DWF_SIM, driven as src/taskgraph/run.c drives it (run_round, run_task,
 * exec, retire, round_done, wf_tg_cancel):
 *
 *   t3         owner runs one round of two sources: wf__tg_round_start,
 *              wf__tg_round_count (2), spawns both, runs one itself (the
 *              hint wf__tg_failed, a write of its datum, wf__tg_fail with
 *              its error, wf__tg_retire) and waits: wf__tg_round_over,
 *              then wf__tg_round_error, and reads the datum of the task
 *              whose error it returns.  T1 steals the other source and
 *              runs it the same way with an error of its own.
 *   t3-three   the same round, and T2 calls wf_tg_cancel
 *              (wf__tg_cancel_mark) meanwhile.
 *   t3-cancel  owner runs two rounds (wf_tg_run_n), each of one source
 *              that it runs itself and that succeeds; T1 calls
 *              wf_tg_cancel meanwhile.
 *
 * The spawn is the scenario's own: a release store of `spawned` by the
 * owner after the round's count, which the thief loads with acquire (D1:
 * the pool's deque hands a task over that way); a thief that finds
 * nothing spawned runs nothing.  The wait is one test of
 * wf__tg_round_over (wf__wait_helping calls it as round_done; P8's park,
 * which other protocols explore, is left out): a caller that finds the
 * round still in progress ends its part there, unchecked.  The run's
 * clear of `cancelled` (wf__tg_cancel_clear) is in the initial state: the
 * cancel is made during the run, after its start.
 *
 * The checks.  A caller that returns a round's error reads the datum of
 * the task that failed with it (a stale read under the hardware models,
 * a data race under c11: the failing task's writes happen before the
 * return, T2 and T3); a round whose tasks all failed and that ended
 * returns an error (none lost), and the first: the one `run_error` holds
 * at the end.  A cancel is never lost: a run returns WF_ECANCELED, or it
 * stops at another error, or the cancel's error is still in `run_error`
 * at the end (the cancel came after the last round's start, and that
 * round's end missed it): a round's start that clears the cancel's error
 * must see its flag, and the round must not run. */
#include <string.h>

#include "algos/evcount.h"
#include "core/access.h"
#include "core/threads.h"
#include "weft/common.h" /* WF_ECANCELED, WF_EUSER */

#include "internal/taskgraph/run_steps.h"

#define MAX_ROUNDS 2

/* As in wf_taskgraph: each on a line of its own. */
static _Alignas(64) _Atomic int run_error, cancelled;
static _Alignas(64) _Atomic long active;
static _Alignas(64) _Atomic int64_t spawned;  /* the scenario's spawn */
static _Alignas(64) _Atomic int64_t datum[2]; /* each task's write */

static int nrounds, nsources;
static bool canceller;    /* T2 (t3-three) or T1 (t3-cancel) cancels */
static int rounds_run;    /* rounds that started (round_start said go) */
static int ret;           /* what the run returned */
static bool returned;     /* the run returned (not left waiting) */
static bool ended;        /* ... after a round's end (round_error) */
static bool ran[2];       /* the task of owner, of T1, ran its work */
static bool skipped[2];   /* ... or skipped it (the hint) */
static bool stolen;       /* T1 found the second source */
static int64_t seen = -1; /* the datum the caller read */

static int task_error(int t)
{
    return WF_EUSER(1 + t);
}

/* A task's body as run_task runs it, then exec's retire: the hint, the
 * work (t3: a write of the datum and an error), the count. */
static void run_source(int t)
{
    if (wf__tg_failed(&run_error)) {
        skipped[t] = true;
    } else if (nsources == 2) {
        if (SIM_GRAPH_MODEL(S.model))
            sim_plain_store(&datum[t], 1);
        else
            wf_store_relaxed(&datum[t], 1);
        ran[t] = true;
        wf__tg_fail(&run_error, task_error(t));
    } else {
        ran[t] = true; /* t3-cancel: a task that succeeds */
    }
    (void)wf__tg_retire(&active, 1); /* the wake is P8's, left out */
}

/* The caller's read of the failing task's datum. */
static void read_datum(int t, int of)
{
    seen = SIM_GRAPH_MODEL(S.model) ? (int64_t)sim_plain_load(&datum[of])
                                    : wf_load_relaxed(&datum[of]);
    if (seen != 1)
        sim_failf("%s returned %s's error but reads its datum as not yet "
                  "written (stale): the failing task's writes do not "
                  "happen before the round's end",
                  sim_thread_name(t), sim_thread_name(of));
}

/* run_round, nrounds times (run_rounds), from the thread that called the
 * run. */
static void owner(int t)
{
    for (int r = 0; r < nrounds; r++) {
        if (wf__tg_round_start(&run_error, &cancelled)) {
            ret = WF_ECANCELED;
            returned = true;
            return;
        }
        rounds_run++;
        wf__tg_round_count(&active, nsources);
        if (nsources == 2)
            wf_store_release(&spawned, 1); /* D1: the second source */
        run_source(t);
        if (!wf__tg_round_over(&active))
            return; /* waits; unchecked */
        int err = wf__tg_round_error(&run_error);
        ended = true;
        if (err != 0) {
            ret = err;
            returned = true;
            if (err == task_error(1))
                read_datum(t, 1);
            else if (err == task_error(0) && !ran[0])
                sim_failf("%s returned its own task's error, which that "
                          "task never raised",
                          sim_thread_name(t));
            return;
        }
    }
    ret = 0;
    returned = true;
}

/* A worker that steals the second source (t3, t3-three). */
static void thief(int t)
{
    if (wf_load_acquire(&spawned) == 0)
        return; /* nothing to steal yet */
    stolen = true;
    run_source(t);
}

/* wf_tg_cancel. */
static void cancel(int t)
{
    (void)t;
    wf__tg_cancel_mark(&cancelled, &run_error, WF_ECANCELED);
}

static void reset(int rounds, int sources, bool cancels)
{
    nrounds = rounds;
    nsources = sources;
    canceller = cancels;
    wf_store_relaxed(&run_error, 0);
    wf_store_relaxed(&cancelled, 0); /* the run's clear, before the cancel */
    wf_store_relaxed(&active, 0);
    wf_store_relaxed(&spawned, 0);
    wf_store_relaxed(&datum[0], 0);
    wf_store_relaxed(&datum[1], 0);
    rounds_run = 0;
    ret = 0;
    returned = ended = stolen = false;
    memset(ran, 0, sizeof ran);
    memset(skipped, 0, sizeof skipped);
    seen = -1;
    sim_register_name(&run_error, "run_error");
    sim_register_name(&cancelled, "cancelled");
    sim_register_name(&active, "active");
    sim_register_name(&spawned, "spawned(D1)");
    sim_register_name(&datum[0], "datum(owner)");
    sim_register_name(&datum[1], "datum(T1)");
    sim_add_op(0, (sim_op){.kind = OP_CALL, .call = owner});
}

static void setup_t3(const explore_job *job)
{
    (void)job;
    reset(1, 2, false);
    sim_add_op(1, (sim_op){.kind = OP_CALL, .call = thief});
}

static void setup_t3_three(const explore_job *job)
{
    (void)job;
    reset(1, 2, true);
    sim_add_op(1, (sim_op){.kind = OP_CALL, .call = thief});
    sim_add_op(2, (sim_op){.kind = OP_CALL, .call = cancel});
}

static void setup_t3_cancel(const explore_job *job)
{
    (void)job;
    reset(MAX_ROUNDS, 1, true);
    sim_add_op(1, (sim_op){.kind = OP_CALL, .call = cancel});
}

static void final(void)
{
    if (S.fail[0] || !returned)
        return;
    int left = wf_load_relaxed(&run_error);
    if (nsources == 2) {
        /* The round ended: both tasks ran or skipped; each that ran
         * failed. */
        if (!ended)
            return; /* the round did not start (a cancel) */
        if (ret == 0 && (ran[0] || ran[1]))
            sim_failf("lost error: the round ended and returned 0 after a "
                      "task failed");
        else if (ret != 0 && ret != left)
            sim_failf("the round returned %d but the first error, the one "
                      "run_error holds, is %d",
                      ret, left);
        return;
    }
    if (canceller && ret != WF_ECANCELED && left != WF_ECANCELED)
        sim_failf("lost cancel: the run returned %d after %d round(s) and "
                  "run_error holds %d: a round's start cleared the cancel's "
                  "error without seeing its flag",
                  ret, rounds_run, left);
}

static void outcome(char *buf, size_t n)
{
    size_t k = (size_t)snprintf(buf, n, "rounds run %d, ", rounds_run);
    if (returned)
        k += (size_t)snprintf(buf + k, n - k, "returned %d", ret);
    else
        k += (size_t)snprintf(buf + k, n - k, "waiting");
    if (nsources == 2 && k < n)
        k += (size_t)snprintf(buf + k, n - k, " | owner's task %s, T1 %s",
                              ran[0]       ? "failed"
                              : skipped[0] ? "skipped"
                                           : "-",
                              !stolen  ? "stole nothing"
                              : ran[1] ? "failed"
                                       : "skipped");
    if (seen >= 0 && k < n)
        snprintf(buf + k, n - k, ", datum read %lld", (long long)seen);
}

#define CORRECT_ERROR                                                          \
    "a round whose tasks failed returns the first error and its caller "       \
    "sees the failing task's writes"

const sim_protocol sim_proto_t3 = {
    "t3",
    "one round of a task graph: the caller runs one source, T1 steals the "
    "other; each writes a datum and fails: the round returns the first "
    "error, and its caller reads the datum of the task that raised it",
    2,
    setup_t3,
    final,
    outcome,
    CORRECT_ERROR};
const sim_protocol sim_proto_t3_three = {
    "t3-three",
    "the round of t3 while T2 calls wf_tg_cancel: the first of the three "
    "errors is returned, and the failing task's datum is seen",
    3,
    setup_t3_three,
    final,
    outcome,
    CORRECT_ERROR};
const sim_protocol sim_proto_t3_cancel = {
    "t3-cancel",
    "wf_tg_run_n of two rounds while T1 calls wf_tg_cancel: a round's start "
    "that clears the cancel's error sees its flag and does not run",
    2,
    setup_t3_cancel,
    final,
    outcome,
    "no cancel lost: the run returns WF_ECANCELED, or the cancel came after "
    "its last round started and its error is left in run_error"};
