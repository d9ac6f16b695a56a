/* SPDX-License-Identifier: Apache-2.0 */
/* fjp: the seed's WorkQueue, exactly as the seed writes it, for reference.
 *
 * Java accesses become the simulator's atomics as the seed's section 5
 * table maps them: QA.setRelease / TOP.setRelease -> release store,
 * TOP.setOpaque -> relaxed store, QA.getAcquire -> acquire load,
 * QA.compareAndSet and QA.getAndSet -> seq_cst RMW, a read of the volatile
 * field base -> seq_cst load, a plain field read -> relaxed load.
 *
 * Thieves arbitrate by a CAS on the *slot* (t -> null) and only then write
 * base = b + 1.  In Java a task reference cannot come back while a thief
 * holds it; in C a reused stack frame does (--reuse), and then the slot CAS
 * can succeed on the wrong occurrence (ABA).  The seed does not show
 * growArray; grow() below follows OpenJDK 17 (move the tasks from the old
 * ring with getAndSet, newest first, stop at the first stolen slot, then
 * publish the new ring and issue a release fence). */
#include <stddef.h>

#include "algos/algos.h"
#include "core/sim_atomic.h"
#include "weft/deque.h"

typedef struct fjp_ring {
    int64_t length; /* a.length: immutable */
    _Atomic(void *) slot[];
} fjp_ring;

typedef struct fjp_queue {
    _Alignas(128) _Atomic int64_t base; /* volatile int base                */
    _Alignas(128) _Atomic int64_t top;  /* int top (written via TOP handle) */
    fjp_ring *_Atomic array;            /* ForkJoinTask<?>[] array          */
} fjp_queue;

static fjp_queue q;

static fjp_ring *ring_new(int64_t length)
{
    fjp_ring *a = sim_alloc(sizeof(fjp_ring) + (size_t)length * sizeof(void *));
    if (a) {
        a->length = length;
        sim_register_ring(a, a->slot, length);
    }
    return a;
}

static int fjp_init(int capacity)
{
    int64_t cap = 2;
    while (cap < capacity)
        cap <<= 1;
    fjp_ring *a = ring_new(cap);
    if (!a)
        return -1;
    wf_store_relaxed(&q.base, 0);
    wf_store_relaxed(&q.top, 0);
    wf_store_relaxed(&q.array, a);
    sim_register_deque(&q.base, &q.top, &q.array);
    return 0;
}

/* OpenJDK 17's growArray (not in the seed). */
static void grow(void)
{
    fjp_ring *old = wf_load_relaxed(&q.array);
    int64_t oldMask = old->length - 1;
    fjp_ring *na = ring_new(old->length << 1);
    if (!na)
        return;
    int64_t newMask = na->length - 1;
    int64_t s = wf_load_relaxed(&q.top) - 1;
    for (int64_t k = oldMask; k >= 0; --k) { /* poll old, push to new */
        void *x = (void *)wf_exchange_seqcst(&old->slot[s & oldMask], NULL);
        if (x == NULL)
            break; /* taken by a thief: so are all older ones */
        wf_store_relaxed(&na->slot[s-- & newMask], x);
    }
    wf_store_relaxed(&q.array, na); /* array = newA */
    wf_fence_release();             /* VarHandle.releaseFence() */
}

static int fjp_push(void *task)
{
    fjp_ring *a = wf_load_relaxed(&q.array); /* a = array     */
    int64_t s = wf_load_relaxed(&q.top);     /* s = top       */
    if (a != NULL) {
        int64_t m = a->length - 1;
        wf_store_release(&a->slot[m & s], task); /* QA.setRelease  */
        wf_store_release(&q.top, s + 1);         /* TOP.setRelease */
        int64_t d = s - wf_load_seqcst(&q.base); /* d = s - base   */
        if (d == a->length - 1)
            grow(); /* (d == 0 would signalWork: no pool here) */
    }
    return 0;
}

static void *pop_slow(int64_t s)
{
    fjp_ring *a = wf_load_relaxed(&q.array);
    if (a != NULL) {
        int64_t j = (a->length - 1) & s;
        void *t = wf_load_acquire(&a->slot[j]); /* QA.get (acquire) */
        if (t != NULL && wf_cas_seqcst(&a->slot[j], &t, NULL))
            return t;
    }
    wf_store_relaxed(&q.top, s + 1); /* TOP.setOpaque(this, s + 1) */
    return NULL;
}

static void *fjp_pop(void)
{
    fjp_ring *a = wf_load_relaxed(&q.array);
    int64_t b = wf_load_seqcst(&q.base), s = wf_load_relaxed(&q.top);
    if (a != NULL && b != s) {
        int64_t m = a->length - 1, ns = s - 1;
        wf_store_relaxed(&q.top, ns); /* TOP.setOpaque(this, ns) */
        int64_t j = m & ns;
        if (ns > b) { /* two or more: the owner's slot is its own */
            void *t = (void *)wf_exchange_seqcst(&a->slot[j], NULL);
            if (t != NULL)
                return t;
        }
        return pop_slow(ns);
    }
    return NULL;
}

static int fjp_poll(void **out)
{
    fjp_ring *a;
    int64_t b;
    int spins = 0;
    while ((a = wf_load_relaxed(&q.array)) != NULL &&
           (b = wf_load_seqcst(&q.base)) - wf_load_relaxed(&q.top) < 0) {
        if (!sim_spin_ok(&spins))
            break; /* the simulator bounds the retry loop */
        int64_t m = a->length - 1, j = m & b;
        void *t = wf_load_acquire(&a->slot[j]); /* QA.getAcquire */
        if (b == wf_load_seqcst(&q.base)) {
            if (t != NULL) {
                if (wf_cas_seqcst(&a->slot[j], &t,
                                  NULL)) {            /* QA.compareAndSet */
                    wf_store_release(&q.base, b + 1); /* BASE.setRelease */
                    *out = t;
                    return WF_POLL_TAKEN;
                }
            } else if (b + 1 - wf_load_relaxed(&q.top) == 0) {
                break;
            }
        }
    }
    return WF_POLL_EMPTY;
}

const sim_algo sim_algo_fjp = {
    .name = "fjp",
    .catch_model = "sc",
    .desc = "the seed's WorkQueue as written (slot CAS, then base = b+1); "
            "correct while values never recur, ABA with --reuse",
    .init = fjp_init,
    .push = fjp_push,
    .pop = fjp_pop,
    .poll = fjp_poll};
