/* SPDX-License-Identifier: Apache-2.0 */
/* Counts of work in flight that a thread waits for, on the library's own
 * code: src/internal/graph/pending.h (a flow graph's pending, rule G5 of
 * docs/protocols.md) and src/internal/pool/roots.h (the pool's roots,
 * P10), compiled unchanged with -DWF_SIM, with src/pool/evcount.c for the
 * waiters' sleep and wake (P8).  They are driven as src/graph/runtime.c
 * (release, wf__graph_quiesce, wf_graph_is_idle) and src/pool/submit.c,
 * entry.c (wf__root_done, wf_pool_wait_idle) drive them:
 *
 *   g5       two tasks of a graph in flight (pending 2) each write their
 *            effect and release (wf__pending_drop; the last one, under
 *            idle_lock, wf__pending_drop_last, then wf__ec_wake_waiters);
 *            T2, in wf_graph_wait_for_all, helps until idle (P8's park on
 *            waiter_epoch), takes and leaves idle_lock, then reads both
 *            effects.
 *   g5-poll  the same two tasks; T2 polls wf_graph_is_idle once and, if
 *            idle, reads both effects (no lock: the count's release
 *            sequence alone must carry them).
 *   g5-poll-three  three tasks (pending 3: two CASes, then the step to
 *            0) and T3 polling, as g5-poll.
 *   p10      two roots (roots 2) end as wf__root_done does; T2 runs
 *            wf_pool_wait_idle, as the g5 waiter.
 *
 * A waiter that returns must see every task's effect: a stale read under the
 * hardware models, a data race under c11 (the model reports it).  No
 * wake-up is lost: a waiter asleep for good at the end (evcount.c's futex
 * model) while the count is 0 fails.  The count ends at 0: never below,
 * no release lost.
 *
 * idle_lock is a pthread mutex in the library; here it is the simplest
 * futex mutex (a CAS that acquires, a store that releases, then a wake;
 * Drepper, "Futexes Are Tricky", mutex 1), since weft-sim runs no
 * pthreads.  The condition variable is left out: its wait runs only when
 * the helping wait returned false (a pool without threads), which these
 * scenarios never do. */
#include <string.h>

#include "algos/evcount.h"
#include "core/access.h"
#include "core/threads.h"
#include "internal/graph/pending.h"
#include "internal/pool/evcount.h"
#include "internal/pool/roots.h"

/* The library's steps on one count, as a protocol drives them. */
typedef struct count_steps {
    bool (*drop)(_Atomic long *);
    bool (*drop_last)(_Atomic long *);
    bool (*idle)(_Atomic long *);
    const char *name; /* the count's field */
} count_steps;

static const count_steps pending_steps = {
    wf__pending_drop, wf__pending_drop_last, wf__pending_idle, "pending"};
static const count_steps roots_steps = {wf__roots_drop, wf__roots_drop_last,
                                        wf__roots_none, "roots"};

static const count_steps *steps;
static _Alignas(64) _Atomic long count;
static _Alignas(64) wf__evcount ec;
static _Alignas(64) _Atomic uint32_t idle_lock; /* 0 free, 1 held */
#define MAX_TASKS 3
static int ntasks; /* threads 0 .. ntasks - 1; the waiter is thread ntasks */
static _Alignas(64) _Atomic int64_t effect[MAX_TASKS]; /* each task's write */
static int last = -1;         /* the task that took the count to 0 */
static int seen[MAX_TASKS];   /* the waiter's reads of the effects */
static bool returned, polled; /* the waiter returned; the poll saw idle */

/* idle_lock's futex mutex.  Two threads at most contend (the last task,
 * the waiter), so a second CAS after a wait that returned at once (the
 * lock was let go meanwhile) wins.  False: asleep in the wait, which ends
 * the thread's part (the end decides whether it was woken). */
static bool lock_idle(int t)
{
    for (int round = 0; round < 2; round++) {
        uint32_t free_ = 0;
        if (wf_cas_acqrel(&idle_lock, &free_, 1))
            return true;
        wf__futex_wait(&idle_lock, 1);
        if (S.th[t].futex_slept)
            return false;
    }
    sim_failf("%s could not take idle_lock", sim_thread_name(t));
    return false;
}

static void unlock_idle(void)
{
    wf_store_release(&idle_lock, 0);
    wf__futex_wake(&idle_lock, 1);
}

/* A body's write, and the waiter's read of it: plain accesses under arm
 * and c11 (c11 reports an unordered read as a data race), relaxed ones
 * under sc, tso and pso, whose machines have no other kind. */
static void write_effect(int t)
{
    if (SIM_GRAPH_MODEL(S.model))
        sim_plain_store(&effect[t], 1);
    else
        wf_store_relaxed(&effect[t], 1);
}

static void read_effects(int t, const char *call)
{
    for (int i = 0; i < ntasks && !S.fail[0]; i++) {
        seen[i] = SIM_GRAPH_MODEL(S.model) ? (int)sim_plain_load(&effect[i])
                                           : (int)wf_load_relaxed(&effect[i]);
        if (seen[i] != 1)
            sim_failf("%s returned from %s but reads %s's effect as not "
                      "yet written (stale): the count's release sequence "
                      "did not carry it",
                      sim_thread_name(t), call, sim_thread_name(i));
    }
}

/* A task ends: runtime.c's release, submit.c's wf__root_done. */
static void task(int t)
{
    write_effect(t);
    if (steps->drop(&count))
        return;
    if (!lock_idle(t))
        return;
    if (steps->drop_last(&count)) {
        last = t;
        wf__ec_wake_waiters(&ec); /* after the broadcast, which no one needs */
    }
    unlock_idle();
}

/* wf__help_until with the count's test: P8's park (wf__wait_park) until
 * the test holds.  A wait that returns at once (the epoch moved) goes
 * round again; after two rounds the last wake has come, so the test must
 * hold.  False: asleep, woken or not (the end decides). */
static bool help_until_idle(int t)
{
    for (int round = 0; round < 2; round++) {
        if (steps->idle(&count))
            return true;
        uint32_t e = wf__ec_wait_begin(&ec);
        if (!steps->idle(&count)) {
            wf__futex_wait(&ec.waiter_epoch, e);
            if (S.th[t].futex_slept)
                return false;
        }
        wf__ec_wait_end(&ec);
    }
    if (steps->idle(&count))
        return true;
    sim_failf("%s was woken twice and still sees %s above 0",
              sim_thread_name(t), steps->name);
    return false;
}

/* wf__graph_quiesce (wf_graph_wait_for_all) and wf_pool_wait_idle: help,
 * then take and leave idle_lock (the last task has let go), return. */
static void waiter(int t)
{
    if (!help_until_idle(t) || !lock_idle(t))
        return;
    unlock_idle();
    returned = true;
    read_effects(t, steps == &roots_steps ? "wf_pool_wait_idle"
                                          : "wf_graph_wait_for_all");
}

/* wf_graph_is_idle, once. */
static void poller(int t)
{
    if (!steps->idle(&count))
        return;
    polled = true;
    read_effects(t, "wf_graph_is_idle");
}

static void reset(const count_steps *s, int tasks)
{
    steps = s;
    ntasks = tasks;
    wf_store_relaxed(&count, tasks); /* every task counted before it ran */
    wf_store_relaxed(&ec.sleepers, 0);
    wf_store_relaxed(&ec.epoch, 0);
    wf_store_relaxed(&ec.waiters, 0);
    wf_store_relaxed(&ec.waiter_epoch, 0);
    wf_store_relaxed(&idle_lock, 0);
    static const char *const names[MAX_TASKS] = {"effect(owner)", "effect(T1)",
                                                 "effect(T2)"};
    for (int i = 0; i < MAX_TASKS; i++) {
        wf_store_relaxed(&effect[i], 0);
        seen[i] = -1;
    }
    last = -1;
    returned = polled = false;
    sim_register_name(&count, s->name);
    sim_register_name(&ec.waiters, "waiters");
    sim_register_name(&ec.waiter_epoch, "waiter_epoch");
    sim_register_name(&idle_lock, "idle_lock");
    for (int i = 0; i < tasks; i++) {
        sim_register_name(&effect[i], names[i]);
        sim_add_op(i, (sim_op){.kind = OP_CALL, .call = task});
    }
}

static void setup_g5(const explore_job *job)
{
    (void)job;
    reset(&pending_steps, 2);
    sim_add_op(2, (sim_op){.kind = OP_CALL, .call = waiter});
}

static void setup_g5_poll(const explore_job *job)
{
    (void)job;
    reset(&pending_steps, 2);
    sim_add_op(2, (sim_op){.kind = OP_CALL, .call = poller});
}

static void setup_p10(const explore_job *job)
{
    (void)job;
    reset(&roots_steps, 2);
    sim_add_op(2, (sim_op){.kind = OP_CALL, .call = waiter});
}

static void setup_g5_poll_three(const explore_job *job)
{
    (void)job;
    reset(&pending_steps, 3);
    sim_add_op(3, (sim_op){.kind = OP_CALL, .call = poller});
}

/* The count at 0, and nobody asleep for good. */
static void final(void)
{
    long c = wf_load_relaxed(&count);
    if (c != 0) {
        sim_failf("%s ends at %ld, not 0: a release was lost or counted "
                  "twice",
                  steps->name, c);
        return;
    }
    for (int t = 0; t < S.nthreads && !S.fail[0]; t++)
        if (sim_futex_asleep(t))
            sim_failf("lost wake-up: %s sleeps on %s for good while %s is 0",
                      sim_thread_name(t),
                      S.th[t].futex_addr == (volatile void *)&idle_lock
                          ? "idle_lock"
                          : "waiter_epoch",
                      steps->name);
}

#define CORRECT                                                                \
    "the waiter that returns sees every task's effect, no wake-up is lost, "   \
    "the count ends at 0"

static void outcome(char *buf, size_t n)
{
    int t = ntasks;
    const char *w = !S.th[t].futex_slept  ? "awake"
                    : sim_futex_asleep(t) ? "asleep"
                                          : "slept, woken";
    size_t k = (size_t)snprintf(buf, n, "last: %s | %s: %s, %s, effects read",
                                last < 0 ? "none" : sim_thread_name(last),
                                sim_thread_name(t), w,
                                returned ? "returned"
                                : polled ? "saw idle"
                                         : "saw work in flight");
    for (int i = 0; i < ntasks && k < n; i++)
        k += (size_t)snprintf(buf + k, n - k, " %d", seen[i]);
}

const sim_protocol sim_proto_g5 = {
    "g5",
    "two tasks of a graph release pending (the last under idle_lock, then "
    "wake_waiters) while wf_graph_wait_for_all helps, parks, returns and "
    "reads their effects",
    3,
    setup_g5,
    final,
    outcome,
    CORRECT};
const sim_protocol sim_proto_g5_poll = {
    "g5-poll",
    "two tasks of a graph release pending while a thread polls "
    "wf_graph_is_idle and, idle, reads their effects",
    3,
    setup_g5_poll,
    final,
    outcome,
    CORRECT};
const sim_protocol sim_proto_g5_poll_three = {
    "g5-poll-three",
    "three tasks of a graph release pending (two CASes, then the step to 0) "
    "while a thread polls wf_graph_is_idle and, idle, reads their effects",
    4,
    setup_g5_poll_three,
    final,
    outcome,
    CORRECT};
const sim_protocol sim_proto_p10 = {
    "p10",
    "two roots end (wf__root_done) while wf_pool_wait_idle helps, parks, "
    "returns and reads their effects",
    3,
    setup_p10,
    final,
    outcome,
    CORRECT};
