/* SPDX-License-Identifier: Apache-2.0 */
/* The pool's shutdown path (rules P11 and P3 of docs/protocols.md) on the
 * library's own code: src/pool/evcount.c compiled unchanged with -DWF_SIM
 * (wf__ec_wake_all, wf__ec_sleep_begin, wf__ec_epoch and the futex
 * calls), driven as src/pool/pool.c (stop_workers), worker.c (the loop's
 * test of shutdown) and park.c (wf__park, wf__nap) drive it:
 *
 *   p11-park  owner, stop_workers: stores shutdown (release), then
 *             wf__wake_all (wf__ec_wake_all: the release increment of
 *             epoch, a FUTEX_WAKE of every sleeper).  T1, an idle worker:
 *             the loop tests shutdown (acquire, as worker.c), then
 *             wf__park: wf__ec_sleep_begin, its test of shutdown (relaxed,
 *             as park.c; no work is there to find), the futex wait on
 *             epoch, wf__ec_sleep_end.
 *   p11-nap   the same owner; T1 naps instead (wf__nap, worker.c after a
 *             crumb): wf__ec_epoch, its test of shutdown (relaxed, as
 *             park.c), a futex wait on epoch with a timeout.
 *   p11       both: T1 parks while T2 naps.
 *
 * A worker whose wait returns at once (the epoch moved) goes round its
 * loop again, once; after it, its loop's test must see shutdown.  A wait
 * that sleeps ends the thread's part, as in evcount.c; whether a wake
 * came after it is decided at the end (access.c's futex model).  A
 * parker asleep for good is a LOST WAKE-UP: wf_pool_destroy's join of it
 * never returns.  A napper whose wait no wake cuts short SLEEPS OUT its
 * timeout: the destroy waits for it, though the nap is there to be cut
 * short by a wake-up (P3).  The shutdown store publishes nothing else to
 * a worker: what it does after seeing the flag is leave its loop. */
#include <string.h>

#include "algos/evcount.h"
#include "core/access.h"
#include "core/threads.h"

#include "internal/pool/evcount.h"

#define NAP_NS 25000u /* worker.c's shortest nap; its length plays no part */

static _Alignas(64) wf__evcount ec;
static _Alignas(64) _Atomic int shutdown;
static int rounds[SIM_MAX_THREADS];   /* each worker's rounds (outcome) */
static bool stopped[SIM_MAX_THREADS]; /* its loop's test saw shutdown */

static void stop_workers(int t)
{
    (void)t;
    /* pool.c's order: release, before wf__wake_all (P11). */
    wf_store_release(&shutdown, 1);
    wf__ec_wake_all(&ec); /* wf__wake_all */
}

/* worker.c's `while (!wf_load_acquire(&p->shutdown))`. */
static bool loop_sees_shutdown(int t)
{
    stopped[t] = wf_load_acquire(&shutdown) != 0;
    return stopped[t];
}

/* wf__park's steps on an empty pool; true: asleep in the wait. */
static bool park(int t)
{
    uint32_t epoch = wf__ec_sleep_begin(&ec);
    if (!wf_load_relaxed(&shutdown)) { /* park.c's test and order */
        wf__futex_wait(&ec.epoch, epoch);
        if (S.th[t].futex_slept)
            return true;
    }
    wf__ec_sleep_end(&ec);
    return false;
}

/* wf__nap's steps; true: asleep in the wait. */
static bool nap(int t)
{
    uint32_t epoch = wf__ec_epoch(&ec);
    if (!wf_load_relaxed(&shutdown)) { /* park.c's test and order */
        wf__futex_wait_ns(&ec.epoch, epoch, NAP_NS);
        return S.th[t].futex_slept;
    }
    return false;
}

/* The loop, twice round at most; then its test must see shutdown. */
static void worker_loop(int t, bool (*idle)(int))
{
    for (int round = 0; round < 2; round++) {
        rounds[t]++;
        if (loop_sees_shutdown(t) || idle(t))
            return;
    }
    if (!loop_sees_shutdown(t))
        sim_failf("%s went round its loop twice, its waits returned at once, "
                  "and it still reads shutdown as 0",
                  sim_thread_name(t));
}

static void parker(int t)
{
    worker_loop(t, park);
}

static void napper(int t)
{
    worker_loop(t, nap);
}

static void reset(void)
{
    wf_store_relaxed(&ec.sleepers, 0);
    wf_store_relaxed(&ec.epoch, 0);
    wf_store_relaxed(&ec.waiters, 0);
    wf_store_relaxed(&ec.waiter_epoch, 0);
    wf_store_relaxed(&shutdown, 0);
    memset(rounds, 0, sizeof rounds);
    memset(stopped, 0, sizeof stopped);
    sim_register_name(&ec.sleepers, "sleepers");
    sim_register_name(&ec.epoch, "epoch");
    sim_register_name(&shutdown, "shutdown");
    sim_add_op(0, (sim_op){.kind = OP_CALL, .call = stop_workers});
}

static void setup_park(const explore_job *job)
{
    (void)job;
    reset();
    sim_add_op(1, (sim_op){.kind = OP_CALL, .call = parker});
}

static void setup_nap(const explore_job *job)
{
    (void)job;
    reset();
    sim_add_op(1, (sim_op){.kind = OP_CALL, .call = napper});
}

static void setup_both(const explore_job *job)
{
    setup_park(job);
    sim_add_op(2, (sim_op){.kind = OP_CALL, .call = napper});
}

/* No worker asleep for good, none sleeping out its nap. */
static void final(void)
{
    for (int t = 1; t < S.nthreads && !S.fail[0]; t++) {
        if (sim_futex_asleep(t))
            sim_failf("lost wake-up: %s sleeps on epoch for good after "
                      "shutdown (its test read 0, its futex wait the epoch "
                      "it read, and no wake came after it): "
                      "wf_pool_destroy never joins it",
                      sim_thread_name(t));
        else if (sim_futex_sleeps_out(t))
            sim_failf("%s naps through shutdown (its test read 0, its futex "
                      "wait the epoch it read, and no wake came after it): "
                      "wf_pool_destroy waits out its timeout",
                      sim_thread_name(t));
    }
}

static void outcome(char *buf, size_t n)
{
    size_t k = (size_t)snprintf(buf, n, "owner: stored shutdown, woke all");
    for (int t = 1; t < S.nthreads && k < n; t++)
        k += (size_t)snprintf(buf + k, n - k, " | %s: %s after %d round%s",
                              sim_thread_name(t),
                              stopped[t]                ? "saw shutdown"
                              : !S.th[t].futex_slept    ? "awake"
                              : sim_futex_asleep(t)     ? "asleep"
                              : sim_futex_sleeps_out(t) ? "napping out"
                                                        : "slept, woken",
                              rounds[t], rounds[t] == 1 ? "" : "s");
}

#define CORRECT                                                                \
    "every worker sees shutdown or is woken: none asleep for good, no nap "    \
    "sleeps through the wake"

const sim_protocol sim_proto_p11_park = {
    "p11-park",
    "stop_workers stores shutdown and calls wake_all while an idle worker "
    "parks (sleep_begin, test shutdown, futex wait on epoch)",
    2,
    setup_park,
    final,
    outcome,
    CORRECT};
const sim_protocol sim_proto_p11_nap = {
    "p11-nap",
    "stop_workers stores shutdown and calls wake_all while a worker naps "
    "(read epoch, test shutdown, timed futex wait on epoch)",
    2,
    setup_nap,
    final,
    outcome,
    CORRECT};
const sim_protocol sim_proto_p11 = {
    "p11",
    "stop_workers stores shutdown and calls wake_all while one worker parks "
    "and another naps",
    3,
    setup_both,
    final,
    outcome,
    CORRECT};
