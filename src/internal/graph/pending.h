/* SPDX-License-Identifier: Apache-2.0 */
/* The lock-free steps of a graph's count of work in flight (rule G5 of
 * docs/protocols.md): a hold, a release, the last release's decrement and
 * the waiters' test; a reset's close and reopen; a gateway's reservation
 * and its release (async.c).  On atomic.h alone, as src/deque.c, so that
 * weft-sim compiles them unchanged (tools/weft-sim/algos/counts.c);
 * runtime.c puts idle_lock, the broadcast, the wake and the backoff
 * around them.  Static inline: every body's start and end runs them.
 * Never installed. */
#ifndef WF_GRAPH_PENDING_H
#define WF_GRAPH_PENDING_H

#include <limits.h>
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

/* pending while wf_graph_reset empties the nodes: far below 0, so that a
 * hold sees it and waits, and wait_for_all does not see 0. */
#define WF__PENDING_RESETTING (LONG_MIN / 2)

/* One try to count a unit of work (runtime.c's hold): true when counted;
 * false when a reset has closed the count, and the caller backs off and
 * tries again.  An RMW: in pending's one modification order a waiter's
 * load that reads 0 comes before it, or after the release of the work it
 * counts; a reset's close comes before it (it reads RESETTING) or fails.
 * Acquire: a hold that reads the reopen's RMW (or a later one of its
 * release sequence) sees the reset's work, the cleared flags of G8 among
 * it (weft-sim's g5-reset-flag); release: nothing, but atomic.h has no
 * acquire RMW (G5). */
static inline bool wf__pending_hold(_Atomic long *pending)
{
    if (__builtin_expect(wf_fetch_add_acqrel(pending, 1) >= 0, 1))
        return true;
    /* A reset is emptying the nodes (no task runs then: it began at 0):
     * take the count back.  Relaxed: it undoes this thread's own +1, and
     * publishes nothing. */
    wf_fetch_add_relaxed(pending, -1);
    return false;
}

/* A reset's close, once its wait saw no work in flight: 0 -> RESETTING,
 * false when a hold slipped in since (the caller waits again).  Either the
 * close comes first and that hold reads RESETTING, or the hold's +1 makes
 * it fail: pending's one modification order, for RMWs of any order, so no
 * seq_cst (no store-buffering shape involves it).  Acquire: a put that
 * started and ended between the wait and the close is seen through the
 * release of its step to 0, which the close reads (weft-sim's g5-reset).
 * Release: nothing (a hold or a waiter that reads RESETTING only waits),
 * but atomic.h has no acquire CAS (G5). */
static inline bool wf__pending_close(_Atomic long *pending)
{
    long idle = 0;
    return wf_cas_acqrel(pending, &idle, WF__PENDING_RESETTING);
}

/* A reset's reopen, under idle_lock as every step to 0: adds RESETTING
 * back, counting the holds that came meanwhile.  Release: a hold that
 * reads it sees the reset's work, the cleared `cancelled` among it
 * (weft-sim's g5-reset, g5-reset-flag).  No acquire: the reset reads
 * nothing the holds wrote (each only added and took back its 1), and an
 * RMW before wf__wake_waiters' fence is all P8 needs, as for
 * wf__pending_drop_last.  No seq_cst: no store-buffering shape involves
 * it (G5). */
static inline void wf__pending_reopen(_Atomic long *pending)
{
    wf_fetch_add_release(pending, -WF__PENDING_RESETTING);
}

/* A gateway's reservation (wf_gateway_reserve_wait), after its hold of
 * the graph: one more in `waits`.  Release pairs with the acquire of
 * wf__gateway_take: a thread that takes this reservation has the hold
 * happen before it, so its release of the graph comes after the hold in
 * pending's order and the count never drops below the work in flight.
 * Without the pair, the release could come first only if the hold read
 * it (pending's writes are all RMWs): a po | rf cycle, load buffering,
 * which RC11 and ARMv8 (the taker branches on its CAS) rule out and C11
 * itself allows; so C11 needs it, and no weft-sim model shows it
 * (g5-gateway; G5). */
static inline void wf__gateway_reserve(_Atomic long *waits)
{
    wf_fetch_add_release(waits, 1);
}

/* wf_gateway_release_wait's take of one reservation: false when there is
 * none.  Relaxed first read: the CAS checks it.  Acquire pairs with the
 * release of wf__gateway_reserve (through its release sequence when the
 * CAS reads another take, an RMW), so the caller's release of the graph
 * comes after the reservation's hold (see wf__gateway_reserve).  Release:
 * nothing (no reservation acquires a take), but atomic.h has no acquire
 * CAS (G5). */
static inline bool wf__gateway_take(_Atomic long *waits)
{
    long v = wf_load_relaxed(waits);
    do {
        if (v <= 0)
            return false;
    } while (!wf_cas_acqrel(waits, &v, v - 1));
    return true;
}

#endif /* WF_GRAPH_PENDING_H */
