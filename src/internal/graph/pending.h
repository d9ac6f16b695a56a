/* SPDX-License-Identifier: Apache-2.0 */
/* The lock-free steps of a graph's count of work in flight (rule G5 of
 * docs/protocols.md): a release, the last release's decrement and the
 * waiters' test.  On atomic.h alone, as src/deque.c, so that weft-sim
 * compiles them unchanged (tools/weft-sim/algos/counts.c); runtime.c
 * puts idle_lock, the broadcast and the wake around them.  Static inline:
 * every body's end runs them.  Never installed. */
#ifndef WF_GRAPH_PENDING_H
#define WF_GRAPH_PENDING_H

#include <stdbool.h>

#include "internal/atomic.h"

/* One unit of work ends while others are in flight: true when it took
 * its 1 off; false when the count is 1 (or less), and the caller takes
 * the last step, wf__pending_drop_last, under idle_lock. */
static inline bool wf__pending_drop(_Atomic long *pending)
{
    long v = wf_load_relaxed(pending);
    while (v > 1) {
        /* Release pairs with the waiter's acquire load: the task's effects
         * (a body's writes) are visible once the waiter sees 0, through
         * the release sequence of these RMWs (G5). */
        if (wf_cas_acqrel(pending, &v, v - 1))
            return true;
    }
    return false;
}

/* The last step, under idle_lock: true when the count reached 0.  The
 * waiters' condition, made true by an RMW before the wake, whose fence
 * orders it (P8).  Release: it publishes the work's effects to a waiter
 * that reads 0 without the lock (wf_graph_is_idle); it reads nothing it
 * needs ordered, so no acquire (G5; weft-sim's g5, g5-poll). */
static inline bool wf__pending_drop_last(_Atomic long *pending)
{
    return wf_fetch_add_release(pending, -1) == 1;
}

/* Is no work in flight?  The waiter's load of G5 (wf_graph_is_idle, the
 * helping wait of wf_graph_wait_for_all): acquire pairs with the
 * releases' RMWs. */
static inline bool wf__pending_idle(_Atomic long *pending)
{
    return wf_load_acquire(pending) == 0;
}

#endif /* WF_GRAPH_PENDING_H */
