/* SPDX-License-Identifier: Apache-2.0 */
/* The lock-free steps of the pool's count of root tasks (rule P10 of
 * docs/protocols.md): a root's end, the last root's decrement and
 * wf_pool_wait_idle's test.  On atomic.h alone, as src/deque.c, so that
 * weft-sim compiles them unchanged (tools/weft-sim/algos/counts.c);
 * submit.c puts idle_lock, the broadcast and the wake around them.
 * Never installed. */
#ifndef WF_INTERNAL_POOL_ROOTS_H
#define WF_INTERNAL_POOL_ROOTS_H

#include <stdbool.h>

#include "internal/atomic.h"

/* A root ends while others are counted: true when it took its 1 off;
 * false when the count is 1, and the caller takes the last step,
 * wf__roots_drop_last, under idle_lock. */
static inline bool wf__roots_drop(_Atomic long *roots)
{
    long v = wf_load_relaxed(roots);
    while (v > 1)
        /* Release: a waiter that reads 0 sees every root's effects, through
         * the release sequence of these RMWs (P10). */
        if (wf_cas_acqrel(roots, &v, v - 1))
            return true;
    return false;
}

/* The last step, under idle_lock: true when the count reached 0: the
 * waiters' condition, made true by an RMW before the wake, whose fence
 * orders it (P8).  Relaxed: the waiter takes idle_lock after it sees 0,
 * which the last root let go after this step, and the other roots'
 * releases reach the last root through the acquire of wake's fence,
 * after this RMW that read their CAS (P10; weft-sim's p10). */
static inline bool wf__roots_drop_last(_Atomic long *roots)
{
    return wf_fetch_add_relaxed(roots, -1) == 1;
}

/* Are all roots done?  The waiter's load of P10.  Relaxed: idle_lock,
 * which the waiter then takes, orders the roots' effects (see
 * wf__roots_drop_last). */
static inline bool wf__roots_none(_Atomic long *roots)
{
    return wf_load_relaxed(roots) <= 0;
}

#endif /* WF_INTERNAL_POOL_ROOTS_H */
