/* SPDX-License-Identifier: Apache-2.0 */
/* A task graph's join counter (rule T1 of docs/protocols.md, with the
 * round's count, T2) on the library's own code:
 * src/internal/taskgraph/run_steps.h compiled unchanged with -DWF_SIM,
 * driven as src/taskgraph/run.c drives it (exec, successors, spawn_all,
 * retire).  A task S has three strong predecessors; each writes a datum,
 * then arrives (wf__tg_arrive), and the arrival that finds S ready runs
 * it: S reads the three data.
 *
 *   t1        two tasks of the round are counted (active 2).  The owner
 *             runs one of them: it asks wf__tg_alone, then runs two of
 *             S's predecessors in a row (a task and one it made ready)
 *             and retires.  T1 runs the other, the third predecessor,
 *             the same way.  A task that starts after the other retired
 *             is alone and arrives with plain loads and stores.
 *   t1-spawn  one task counted (active 1): the owner, alone, runs a
 *             predecessor, then spawns the task that runs another
 *             (wf__tg_count_spawned, then the hand-over: the alone
 *             arrivals end before it), runs the third predecessor and
 *             retires.  T1 steals the spawned task and runs it, alone if
 *             the owner retired first.
 *
 * The hand-over is the scenario's own: a release store of `spawned`,
 * which the thief loads with acquire (D1: the pool's deque hands a task
 * over that way); a thief that finds nothing runs nothing, and then S
 * is left with one arrival to come.
 *
 * The checks.  S runs once, when all three have arrived (no arrival
 * lost, none counted twice), and reads every predecessor's datum as
 * written (a stale read under the hardware models, a data race under
 * c11). */
#include <stdint.h>

#include "algos/evcount.h"
#include "algos/plain.h"
#include "core/access.h"
#include "core/threads.h"

#include "internal/taskgraph/run_steps.h"

#define PREDS 3

/* As in wf_taskgraph and wf_tg_task: each on a line of its own. */
static _Alignas(64) _Atomic long active;
static _Alignas(64) _Atomic uint32_t join;
static _Alignas(64) _Atomic int64_t spawned;      /* the scenario's spawn */
static _Alignas(64) _Atomic int64_t datum[PREDS]; /* each predecessor's */

static bool spawn_case; /* t1-spawn */
static int arrivals;    /* made so far */
static int runs;        /* arrivals that found S ready */
static bool stolen;     /* T1 found the spawned task */

/* S's run: it reads each predecessor's datum. */
static void run_s(int t)
{
    runs++;
    for (int k = 0; k < PREDS; k++)
        if (plain_read(&datum[k]) != 1)
            sim_failf("%s runs S but reads predecessor %d's datum as not "
                      "yet written (stale): the arrivals do not order the "
                      "predecessors' writes before S's run",
                      sim_thread_name(t), k);
}

/* Predecessor k of S ran on thread t: its datum, then its arrival. */
static void predecessor(int t, int k, bool alone)
{
    plain_write(&datum[k], 1);
    arrivals++;
    if (wf__tg_arrive(&join, PREDS, alone))
        run_s(t);
}

static void owner(int t)
{
    bool alone = wf__tg_alone(&active); /* exec's start */
    predecessor(t, 0, alone);
    if (spawn_case) {
        alone = false; /* before the spawn, as successors() does */
        wf__tg_count_spawned(&active, 1);
        wf_store_release(&spawned, 1); /* D1 */
    }
    predecessor(t, 1, alone);
    (void)wf__tg_retire(&active, 1); /* the wake is P8's, left out */
}

/* T1: the other task of the round (t1), or the spawned one (t1-spawn). */
static void other(int t)
{
    if (spawn_case) {
        if (wf_load_acquire(&spawned) == 0)
            return; /* nothing to steal yet */
        stolen = true;
    }
    bool alone = wf__tg_alone(&active);
    predecessor(t, 2, alone);
    (void)wf__tg_retire(&active, 1);
}

static void reset(bool spawns)
{
    spawn_case = spawns;
    wf_store_relaxed(&active, spawns ? 1 : 2);
    wf_store_relaxed(&join, PREDS); /* at S's strong in-degree */
    wf_store_relaxed(&spawned, 0);
    for (int k = 0; k < PREDS; k++)
        wf_store_relaxed(&datum[k], 0);
    arrivals = runs = 0;
    stolen = false;
    sim_register_name(&active, "active");
    sim_register_name(&join, "join");
    sim_register_name(&spawned, "spawned(D1)");
    sim_register_name(&datum[0], "datum0");
    sim_register_name(&datum[1], "datum1");
    sim_register_name(&datum[2], "datum2");
    sim_add_op(0, (sim_op){.kind = OP_CALL, .call = owner});
    sim_add_op(1, (sim_op){.kind = OP_CALL, .call = other});
}

static void setup_t1(const explore_job *job)
{
    (void)job;
    reset(false);
}

static void setup_t1_spawn(const explore_job *job)
{
    (void)job;
    reset(true);
}

static void final(void)
{
    if (S.fail[0])
        return;
    if (arrivals == PREDS && runs != 1)
        sim_failf("all %d predecessors arrived and S ran %d times: %s", PREDS,
                  runs,
                  runs == 0 ? "an arrival was lost" : "one counted twice");
    if (arrivals < PREDS && runs != 0)
        sim_failf("S ran after %d of its %d predecessors", arrivals, PREDS);
}

static void outcome(char *buf, size_t n)
{
    snprintf(buf, n, "%d arrivals, S ran %d time(s)%s", arrivals, runs,
             spawn_case && !stolen ? ", nothing stolen" : "");
}

#define CORRECT_JOIN                                                           \
    "S runs once, after its three predecessors, and sees their writes"

const sim_protocol sim_proto_t1 = {
    "t1",
    "a task's three predecessors run by two tasks of a round, each alone "
    "(plain arrivals) if it starts after the other retired: S runs once, "
    "and sees the three data",
    2,
    setup_t1,
    final,
    outcome,
    CORRECT_JOIN};
const sim_protocol sim_proto_t1_spawn = {
    "t1-spawn",
    "a task alone arrives, spawns a task, then arrives with RMWs; the "
    "stolen task arrives too: S runs once, and sees the three data",
    2,
    setup_t1_spawn,
    final,
    outcome,
    CORRECT_JOIN};
