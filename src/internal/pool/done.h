/* SPDX-License-Identifier: Apache-2.0 */
/* The lock-free steps on a joinable task's done_ word (rules P5 and P9 of
 * docs/protocols.md): the completion's exchange, the joiner's test, and
 * the announcement of a joiner about to sleep on the word.  On atomic.h
 * and the public weft/pool.h (the word's values) alone, as src/deque.c
 * on weft/deque.h, so that weft-sim compiles them unchanged
 * (tools/weft-sim/algos/frames.c); notify.c, park.c and join.c put the
 * wakes, the waits and the helping around them.  Never installed. */
#ifndef WF_INTERNAL_POOL_DONE_H
#define WF_INTERNAL_POOL_DONE_H

#include <stdbool.h>
#include <stdint.h>

#include "internal/atomic.h"
#include "weft/pool.h" /* WF__DONE, WF__WAITING */

/* wf__task_complete's step: mark the task run.  The old value says whom
 * to wake (WAITING: a joiner asleep on the word; HELPING: one that may
 * have parked as a waiter, P8).  After it the task is not touched. */
static inline uint32_t wf__done_mark(_Atomic uint32_t *done)
{
    /* Release publishes the task's effects (a typed frame's value) to the
     * joiner's acquire, and orders the runner's reads of the task before
     * the joiner's reuse of it (P5, P9).  The acquire half is needed by
     * no model: nothing after it reads what the joiner wrote (P9). */
    return wf_exchange_acqrel(done, WF__DONE);
}

/* Has the task run?  The joiner's test of P5 (and a helping waiter's
 * condition, P8): acquire pairs with wf__done_mark's release. */
static inline bool wf__done_seen(_Atomic uint32_t *done)
{
    return wf_load_acquire(done) == WF__DONE;
}

/* wf__task_wait's announcement: WAITING, so that the completion wakes the
 * joiner, unless the task ran already (or the word says WAITING).  The
 * caller then waits until wf__done_seen holds, which is what acquires the
 * task's effects. */
static inline void wf__done_announce(_Atomic uint32_t *done)
{
    /* Relaxed, the CAS and the first load (which the CAS checks): the
     * return waits on the caller's acquire load of WF__DONE, not on this
     * CAS, and the completer only compares the WAITING it stores, which
     * the modification order of done_ alone decides (P5, P9). */
    uint32_t d = wf_load_relaxed(done);
    while (d != WF__DONE && d != WF__WAITING &&
           !wf_cas_relaxed(done, &d, WF__WAITING)) /* P5, P9 */
        ;
}

#endif /* WF_INTERNAL_POOL_DONE_H */
