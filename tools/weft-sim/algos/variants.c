/* SPDX-License-Identifier: Apache-2.0 */
/* Variants of the shipped deque that need code of their own.
 *
 * Everything here is deliberately WRONG: a mutant that weft-sim must
 * catch.  It is kept apart from src/deque.c, which the simulator runs
 * unchanged, and from the adapters, so that nobody mistakes it for the
 * shipped code.  Each function is wf_deque_poll with one change, marked
 * MUTATION. */
#include "algos/variants.h"
#include "algos/weft_deque.h"
#include "core/sim_atomic.h"

/* Mutant weft-cas-before-read: base is advanced (the arbitration CAS) before
 * the slot is read.  The seed explains why its poll clears the slot before
 * it moves base: once base has moved, the owner sees a free slot and may
 * push into it, and the thief then reads the new task instead of the one
 * it won.  In weft the CAS on base *is* the arbitration, so the mutation is
 * to read the slot after it. */
int sim_weft_poll_cas_first(void **out)
{
    wf_deque *dq = &sim_weft_dq;
    int64_t b = wf_load_acquire(&dq->base);
    wf_fence_seqcst();
    int64_t t = wf_load_acquire(&dq->top);
    if (b >= t)
        return WF_POLL_EMPTY;
    struct wf__ring *a = wf_load_acquire(&dq->array);
    if (!wf_cas_seqcst(&dq->base, &b, b + 1))
        return WF_POLL_RETRY;
    /* MUTATION: the slot is read after base moved past it. */
    *out = wf_load_acquire(&a->slot[b & a->mask]);
    return WF_POLL_TAKEN;
}

/* Mutant weft-pop-oldest: the owner takes the oldest task, as a thief
 * does.  Nothing is lost or taken twice (poll is safe from any thread);
 * only the order is wrong, FIFO where the owner must be LIFO. */
void *sim_weft_pop_oldest(void)
{
    void *x = NULL;
    /* MUTATION: the owner polls at base instead of popping at top. */
    return wf_deque_poll(&sim_weft_dq, &x) == WF_POLL_TAKEN ? x : NULL;
}
