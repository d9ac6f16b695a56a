/* SPDX-License-Identifier: Apache-2.0 */
/* The atomic steps of a task graph's round on its error and its cancel
 * (rule T3 of docs/protocols.md), the steps on the round's count (T2),
 * and a task's arrival at its successors' join counters (T1):
 * `run_error`, `cancelled`, `active` and `join`, the words of
 * wf_taskgraph and wf_tg_task (internal/taskgraph.h) that a round's
 * tasks, its caller and wf_tg_cancel share.  On atomic.h alone, as
 * internal/mpi/wake_steps.h, so that weft-sim compiles them unchanged
 * (its scenarios `t1`, `t1-spawn`, `t3`, `t3-three`, `t3-cancel`);
 * src/taskgraph/run.c calls them.  Static inline: every task runs some
 * of them.  Never installed.
 *
 * The orders, in short: the first error wins by the modification order
 * of `run_error` (a CAS from 0; no seq_cst); the caller reads the round's
 * error after the round's end, whose acquire (T2) orders the failing
 * task's CAS and writes before it; a cancel stores `cancelled`, then
 * CASes the error with release, and a round's start exchanges the error
 * with 0 with acquire, then loads `cancelled`: a start that clears a
 * cancel's error sees its flag, and the round does not run. */
#ifndef WF_INTERNAL_TASKGRAPH_RUN_STEPS_H
#define WF_INTERNAL_TASKGRAPH_RUN_STEPS_H

#include <stdbool.h>
#include <stdint.h>

#include "internal/atomic.h"

/* A task, or a cancel, fails the round with err (non-zero): the first
 * error wins, the others are dropped. */
static inline void wf__tg_fail(_Atomic int *run_error, int err)
{
    int none = 0;
    /* T3: the modification order of `run_error` picks the first error;
     * nothing needs seq_cst.  The release is needed by a cancel: a round's
     * start whose exchange reads this CAS sees the cancel's store to
     * `cancelled`, made before it (wf__tg_round_start).  The acquire half
     * orders nothing anybody reads (the CAS reads 0, from the exchange of
     * the round's start, which publishes nothing); atomic.h has no
     * release-only CAS. */
    wf_cas_acqrel(run_error, &none, err);
}

/* Has the round failed?  A hint, read by every task to skip its work. */
static inline bool wf__tg_failed(_Atomic int *run_error)
{
    /* T3: relaxed: a task that misses the error runs its work, which a
     * round that failed may do; nothing is read after it. */
    return wf_load_relaxed(run_error) != 0;
}

/* A round's start, by the thread that runs the rounds: clear the last
 * round's error.  True: a cancel came; the round must not run. */
static inline bool wf__tg_round_start(_Atomic int *run_error,
                                      _Atomic int *cancelled)
{
    /* T3: acquire.  A cancel's CAS of the error comes after this
     * exchange in the modification order of `run_error` (the round's
     * tasks and its end may see it), or before it: then the first
     * exchange after it reads it (only an exchange writes 0, and a CAS
     * from 0 fails until one does).  If that is this one, its acquire,
     * from the CAS's release, makes the cancel's store to `cancelled`
     * happen before the load below, which reads it unless the run's clear
     * of the flag came after it (a cancel made before the run started);
     * if an earlier one, that round saw the flag and was the last.  The
     * release half publishes nothing (the CASes that read this 0 need
     * nothing of this thread); atomic.h has no acquire-only exchange. */
    wf_exchange_acqrel(run_error, 0);
    /* T3: relaxed: the exchange above orders it after a cancel whose CAS
     * it read, and the flag publishes nothing else. */
    return wf_load_relaxed(cancelled) != 0;
}

/* The round's error, once the round is over (wf__tg_round_over). */
static inline int wf__tg_round_error(_Atomic int *run_error)
{
    /* T3: relaxed: a failing task retires after its CAS, and the acquire
     * of the round's end (T2) makes that CAS happen before this load,
     * which therefore reads it or a later write (coherence): no error of
     * the round's tasks is lost, and their writes are seen. */
    return wf_load_relaxed(run_error);
}

/* Before a run's first round, by its thread: a cancel made before the run
 * started does not reach it. */
static inline void wf__tg_cancel_clear(_Atomic int *cancelled)
{
    /* T3: relaxed: the run's own thread loads the flag (a cancel's store
     * that this store misses is one made before the run started). */
    wf_store_relaxed(cancelled, 0);
}

/* wf_tg_cancel's steps, from any thread: raise the flag that stops the
 * rounds still to come, then fail the round in progress with err. */
static inline void wf__tg_cancel_mark(_Atomic int *cancelled,
                                      _Atomic int *run_error, int err)
{
    /* T3: relaxed: the CAS's release, after it, publishes it to the
     * round's start that reads the CAS. */
    wf_store_relaxed(cancelled, 1);
    wf__tg_fail(run_error, err);
}

/* The round's count: its n sources counted before they are spawned, by
 * the thread that then waits for the round. */
static inline void wf__tg_round_count(_Atomic long *active, long n)
{
    /* T2: relaxed: before any task of the round can retire (the spawns
     * that follow hand the tasks over, D1); this thread reads it. */
    wf_store_relaxed(active, n);
}

/* n of the round's tasks are done.  True: the round ended with them
 * (the caller then wakes the waiters). */
static inline bool wf__tg_retire(_Atomic long *active, long n)
{
    /* T2: acq_rel: the release publishes the tasks' writes (and a failing
     * task's CAS of the error, T3) to the thread that waits, through the
     * release sequence of these RMWs; the waiter's condition is made true
     * by an RMW before wf__wake_waiters' fence, which is all P8 needs of
     * it. */
    return wf_fetch_add_acqrel(active, -n) == n;
}

/* Is the round over?  The waiter's test. */
static inline bool wf__tg_round_over(const _Atomic long *active)
{
    /* T2: acquire: pairs with the release of wf__tg_retire. */
    return wf_load_acquire(active) == 0;
}

/* n more of the round's tasks, counted by the task that spawns them,
 * before it spawns them. */
static inline void wf__tg_count_spawned(_Atomic long *active, long n)
{
    /* T2: relaxed: each spawned task's decrement happens after this
     * increment (the spawn hands the task over, D1), so coherence orders
     * them in the count's modification order; nothing is published
     * through it. */
    wf_fetch_add_relaxed(active, n);
}

/* At the start of a task the pool runs: is it the round's only one?  No
 * other task of the round is ready or running, and none can be until
 * this thread spawns one (T1's alone arrivals). */
static inline bool wf__tg_alone(const _Atomic long *active)
{
    /* T1: acquire: pairs with the release of every retire (T2) that the
     * count's value follows, so the arrivals of the tasks that ended
     * happen before this thread's plain ones. */
    return wf_load_acquire(active) == 1;
}

/* One more of a task's `strong` strong predecessors is done (its join
 * counter `join`): is the task ready?  `alone`: wf__tg_alone said so at
 * the start of the calling task, and it has spawned nothing since. */
static inline bool wf__tg_arrive(_Atomic uint32_t *join, uint32_t strong,
                                 bool alone)
{
    if (strong <= 1)
        return true; /* ready when its one predecessor is done: no count */
    if (alone) {
        /* T1: relaxed and no RMW: no other thread accesses the counter
         * until this one spawns, which publishes these stores (D1), and
         * the last other access happens before (wf__tg_alone). */
        uint32_t left = wf_load_relaxed(join);
        if (left != 1)
            wf_store_relaxed(join, left - 1);
        return left == 1;
    }
    /* T1: an acquire load that reads 1 is the last arrival: only the
     * next-to-last's decrement writes 1 (a reset writes 2 at least), and
     * the load synchronises with it and, through its release sequence,
     * with every earlier one; the last arrival then writes nothing.
     * Else an acq_rel decrement: the last sees the others' writes, and
     * the task's run sees its own. */
    return wf_load_acquire(join) == 1 ||
           wf_fetch_add_acqrel(join, (uint32_t)-1) == 1;
}

#endif /* WF_INTERNAL_TASKGRAPH_RUN_STEPS_H */
