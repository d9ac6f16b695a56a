/* SPDX-License-Identifier: Apache-2.0 */
/* The pool's spare workers (rule P12 of docs/protocols.md) on the
 * library's own code: src/internal/pool/spares.h compiled unchanged with
 * -DWF_SIM, driven as src/pool/blocking.c (wf_blocking_begin,
 * start_spare, wf_blocking_end) and src/pool/worker.c (an idle spare's
 * wf__spare_should_retire) drive it:
 *
 *   p12      the owner, a worker, blocks (wf__spares_block and, if a
 *            spare is needed, start_spare) while T1, a spare left
 *            surplus by an earlier block that has ended (spares_running
 *            1, blocked 0), is idle and tries to retire once
 *            (wf__spares_retire).
 *   p12-end  the owner blocks, then ends its block (wf__spares_unblock);
 *            T1, another worker, blocks; T2, a surplus spare as in p12,
 *            tries to retire twice (an idle spare that stayed goes round
 *            its loop and looks again).
 *   p12-two  two spares run for one worker blocked outside the scenario
 *            (spares_running 2, blocked 1): the owner and T1 each try to
 *            retire once, while T2, another worker, blocks.
 *
 * start_spare is its test under spare_lock (wf__spares_excess, relaxed)
 * and the count's increment; the lock itself is left out: it only keeps
 * two blockers from both starting a spare (one too many, which retires
 * when idle), and without it the explorer sees every interleaving it
 * allows and more.  A spare started here is a thread that runs until the
 * end.
 *
 * At the end, each blocked worker must have a spare: the spares running
 * (those that did not retire, and those started) are at least the
 * workers still blocked.  Otherwise fewer threads than the pool's size
 * run, for good: nothing is left to start one (the next
 * wf_blocking_begin would, but with every worker blocked on a task that
 * none runs, none comes).  That covers two spares that both retire when
 * one is needed.  The counts must also end exact: spares_running is the
 * spares running, blocked the workers blocked. */
#include <string.h>

#include "algos/evcount.h"
#include "core/access.h"
#include "core/threads.h"

#include "internal/pool/spares.h"

#define MAX_T 3

static _Alignas(64) _Atomic int blocked;        /* wf_pool's, as named */
static _Alignas(64) _Atomic int spares_running; /* on lines of their own */
static int blocked0, spares0; /* blocked and spares before the scenario */
static int tries[MAX_T];      /* a spare's retire attempts (0: a worker) */
static bool ends[MAX_T];      /* a worker ends its block */
static bool retired[MAX_T];   /* a spare that retired */
static bool stays_blocked[MAX_T];
static int started[MAX_T]; /* spares a worker started */

/* start_spare: its test under spare_lock, then the count (the slot and
 * the thread always come). */
static void start_spare(int t)
{
    if (wf__spares_excess(&blocked, &spares_running) < 0) {
        wf__spares_add(&spares_running, 1);
        started[t]++;
    }
}

/* wf_blocking_begin, then wf_blocking_end if the scenario says so. */
static void worker(int t)
{
    if (wf__spares_block(&blocked, &spares_running))
        start_spare(t);
    stays_blocked[t] = true;
    if (ends[t]) {
        wf__spares_unblock(&blocked, &spares_running); /* then a wake-up */
        stays_blocked[t] = false;
    }
}

/* An idle spare: wf__spare_should_retire at each idle point of its loop
 * (it parks in between: nothing here). */
static void spare(int t)
{
    for (int i = 0; i < tries[t]; i++)
        if (wf__spares_retire(&blocked, &spares_running)) {
            retired[t] = true;
            return;
        }
}

static void reset(int blocked_, int spares_)
{
    blocked0 = blocked_;
    spares0 = spares_;
    wf_store_relaxed(&blocked, blocked_);
    wf_store_relaxed(&spares_running, spares_);
    memset(tries, 0, sizeof tries);
    memset(ends, 0, sizeof ends);
    memset(retired, 0, sizeof retired);
    memset(stays_blocked, 0, sizeof stays_blocked);
    memset(started, 0, sizeof started);
    sim_register_name(&blocked, "blocked");
    sim_register_name(&spares_running, "spares_running");
}

static void add(int t, void (*fn)(int))
{
    sim_add_op(t, (sim_op){.kind = OP_CALL, .call = fn});
}

static void setup_p12(const explore_job *job)
{
    (void)job;
    reset(0, 1);
    add(0, worker);
    tries[1] = 1;
    add(1, spare);
}

static void setup_p12_end(const explore_job *job)
{
    (void)job;
    reset(0, 1);
    ends[0] = true;
    add(0, worker);
    add(1, worker);
    tries[2] = 2;
    add(2, spare);
}

static void setup_p12_two(const explore_job *job)
{
    (void)job;
    reset(1, 2);
    tries[0] = tries[1] = 1;
    add(0, spare);
    add(1, spare);
    add(2, worker);
}

/* Spares running and workers blocked at the end, by the threads' own
 * account. */
static void tally(int *running, int *blocked_now)
{
    *running = spares0;
    *blocked_now = blocked0;
    for (int t = 0; t < MAX_T; t++) {
        *running += started[t] - (retired[t] ? 1 : 0);
        *blocked_now += stays_blocked[t] ? 1 : 0;
    }
}

static void final(void)
{
    if (S.fail[0])
        return;
    int running, blocked_now;
    tally(&running, &blocked_now);
    if (running < blocked_now) {
        sim_failf("%d worker(s) blocked and %d spare(s) running: fewer "
                  "threads than the pool's size run, and none is left to "
                  "start a spare (a retire raced with a block)",
                  blocked_now, running);
        return;
    }
    int s = wf_load_relaxed(&spares_running), b = wf_load_relaxed(&blocked);
    if (s != running || b != blocked_now)
        sim_failf("the counts end wrong: spares_running %d for %d "
                  "spare(s) running, blocked %d for %d worker(s) blocked",
                  s, running, b, blocked_now);
}

static void outcome(char *buf, size_t n)
{
    int running, blocked_now;
    tally(&running, &blocked_now);
    size_t k = (size_t)snprintf(
        buf, n, "blocked %d, spares %d | retired:", blocked_now, running);
    bool any = false;
    for (int t = 0; t < MAX_T && k < n; t++)
        if (retired[t]) {
            k += (size_t)snprintf(buf + k, n - k, " %s", sim_thread_name(t));
            any = true;
        }
    if (!any && k < n)
        k += (size_t)snprintf(buf + k, n - k, " none");
    for (int t = 0; t < MAX_T && k < n; t++)
        if (started[t])
            k += (size_t)snprintf(buf + k, n - k, ", %s started a spare",
                                  sim_thread_name(t));
}

#define CORRECT                                                                \
    "every blocked worker has a spare at the end (no retire left fewer "       \
    "threads than the pool's size running) and the counts are exact"

const sim_protocol sim_proto_p12 = {
    "p12",
    "a worker blocks (wf_blocking_begin, start_spare) while a surplus "
    "spare, idle, tries to retire (wf__spare_should_retire)",
    2,
    setup_p12,
    final,
    outcome,
    CORRECT};
const sim_protocol sim_proto_p12_end = {
    "p12-end",
    "a worker blocks and ends its block while another blocks and a "
    "surplus spare tries twice to retire",
    3,
    setup_p12_end,
    final,
    outcome,
    CORRECT};
const sim_protocol sim_proto_p12_two = {
    "p12-two",
    "two spares run for one blocked worker and both try to retire while "
    "another worker blocks",
    3,
    setup_p12_two,
    final,
    outcome,
    CORRECT};
