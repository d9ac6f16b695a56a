/* SPDX-License-Identifier: Apache-2.0 */
/* The WorkQueue: owner LIFO at top, thieves FIFO at base.
 *
 * Orders follow OpenJDK's ForkJoinPool.WorkQueue (push: release slot,
 * release top; poll: acquire slot; arbitration: seq_cst CAS).  Three
 * changes for C, argued in docs/protocols.md:
 *   - thieves and the owner arbitrate with a CAS on the 64-bit `base` index
 *     (Chase-Lev), not on the slot: pointer values recur in C (a stack frame
 *     is pushed again) and a slot CAS would then take the wrong task (ABA);
 *   - pop fences between writing top and reading base (StoreLoad), which TSO
 *     would otherwise reorder;
 *   - every store of top is a release store (D1); pop's CAS is acq_rel (D4).
 * Every shared access goes through atomic.h, and this file depends on
 * nothing else, so weft-sim compiles it unchanged.  Rule numbers (D1...)
 * refer to docs/protocols.md. */
#include <stdlib.h>

#include "internal/atomic.h"
#include "weft/deque.h"

struct wf__ring {
    int64_t mask;          /* capacity - 1; immutable once published      */
    struct wf__ring *prev; /* retired smaller ring, freed at destroy (D5) */
    _Atomic(void *) slot[];
};

#define WF_DEQUE_DEFAULT_CAPACITY 64
#define WF_DEQUE_MAX_CAPACITY ((size_t)1 << 30)

static size_t ring_bytes(int64_t capacity)
{
    return sizeof(struct wf__ring) + (size_t)capacity * sizeof(void *);
}

static struct wf__ring *ring_new(wf_deque *dq, int64_t capacity)
{
    size_t bytes = ring_bytes(capacity);
    struct wf__ring *r =
        dq->alloc.alloc ? dq->alloc.alloc(bytes, dq->alloc.ctx) : malloc(bytes);
    if (r) {
        r->mask = capacity - 1;
        r->prev = NULL;
    }
    return r;
}

static void ring_free(wf_deque *dq, struct wf__ring *r)
{
    if (dq->alloc.free)
        dq->alloc.free(r, ring_bytes(r->mask + 1), dq->alloc.ctx);
    else
        free(r);
}

int wf_deque_init(wf_deque *dq, size_t capacity, const wf_allocator *alloc)
{
    if (dq == NULL || capacity > WF_DEQUE_MAX_CAPACITY)
        return WF_EINVAL;
    size_t cap = 2;
    if (capacity == 0)
        capacity = WF_DEQUE_DEFAULT_CAPACITY;
    while (cap < capacity)
        cap <<= 1;
    if (alloc && (!alloc->alloc || !alloc->free))
        return WF_EINVAL; /* both or neither, as for the pool */
    dq->alloc = alloc ? *alloc : (wf_allocator){0};
    struct wf__ring *r = ring_new(dq, (int64_t)cap);
    if (r == NULL)
        return WF_ENOMEM;
    /* No other thread may see dq before init returns: relaxed. */
    wf_store_relaxed(&dq->base, 0);
    wf_store_relaxed(&dq->top, 0);
    wf_store_relaxed(&dq->array, r);
    dq->base_seen = 0;
    return 0;
}

void wf_deque_destroy(wf_deque *dq)
{
    if (dq == NULL)
        return;
    /* Quiescent by contract: relaxed. */
    struct wf__ring *r = wf_load_relaxed(&dq->array);
    while (r) {
        struct wf__ring *prev = r->prev;
        ring_free(dq, r);
        r = prev;
    }
    /* As zeroed: pop and poll find it empty, push refuses (no ring). */
    wf_store_relaxed(&dq->array, NULL);
    wf_store_relaxed(&dq->base, 0);
    wf_store_relaxed(&dq->top, 0);
    dq->base_seen = 0;
}

/* Owner: replace the ring by one twice as large holding [b, t).  The old
 * ring stays readable: a thief that loaded it before the switch may still
 * read a slot there (D5). */
static struct wf__ring *grow(wf_deque *dq, struct wf__ring *old, int64_t b,
                             int64_t t, int64_t need)
{
    int64_t cap = old->mask + 1;
    while (cap < need)
        cap <<= 1;
    if ((size_t)cap > WF_DEQUE_MAX_CAPACITY)
        return NULL;
    struct wf__ring *r = ring_new(dq, cap);
    if (r == NULL)
        return NULL;
    for (int64_t i = b; i < t; i++) /* only the owner writes slots: relaxed */
        wf_store_relaxed(&r->slot[i & r->mask],
                         wf_load_relaxed(&old->slot[i & old->mask]));
    r->prev = old;
    /* D5: pairs with the acquire load of array in poll; a thief that sees
     * a top covering slots written into r also sees r. */
    wf_store_release(&dq->array, r);
    return r;
}

int wf_deque_push_n(wf_deque *dq, void *const *xs, size_t n)
{
    if (dq == NULL || (xs == NULL && n > 0))
        return WF_EINVAL;
    for (size_t i = 0; i < n; i++)
        if (xs[i] == NULL)
            return WF_EINVAL;
    /* Owner is top's only writer: its own relaxed load is exact. */
    int64_t t = wf_load_relaxed(&dq->top);
    struct wf__ring *a = wf_load_relaxed(&dq->array); /* owner wrote it */
    if (a == NULL)
        return WF_ESTATE; /* zeroed, or destroyed: no ring */
    /* D6: base only grows, so a stale base_seen can only make the ring look
     * fuller than it is.  Refresh it before deciding to grow. */
    if (t + (int64_t)n - dq->base_seen > a->mask + 1) {
        dq->base_seen = wf_load_relaxed(&dq->base);
        int64_t need = t + (int64_t)n - dq->base_seen;
        if (need > a->mask + 1 &&
            (a = grow(dq, a, dq->base_seen, t, need)) == NULL)
            return WF_ENOMEM;
    }
    for (size_t i = 0; i < n; i++)
        /* D1 (WorkQueue's setRelease), with poll's acquire of the slot:
         * top's release carries the slot too, except in a load-buffering
         * cycle (a thief reads this write, then CASes base, which the
         * owner read before it) that only RC11's no-thin-air axiom bans. */
        wf_store_release(&a->slot[(t + (int64_t)i) & a->mask], xs[i]);
    /* D1 (WorkQueue's setRelease of top): pairs with the acquire load of
     * top in poll; a thief that sees the new top sees the slots. */
    wf_store_release(&dq->top, t + (int64_t)n);
    return 0;
}

int wf_deque_push(wf_deque *dq, void *x)
{
    return wf_deque_push_n(dq, &x, 1);
}

void *wf_deque_pop(wf_deque *dq)
{
    if (dq == NULL)
        return NULL;
    int64_t t = wf_load_relaxed(&dq->top) - 1; /* owner's own field */
    /* D6: base >= base_seen, so top <= base_seen means empty, and the pop
     * of an empty deque (a worker looking for its own tasks) skips the
     * fence. */
    if (t < dq->base_seen)
        return NULL;
    struct wf__ring *a = wf_load_relaxed(&dq->array);
    /* D3: claim slot t, then read base.  D1: release, so that a thief that
     * reads this top synchronises with the pushes before it: C11's release
     * sequence of a push's store does not pass a relaxed store by another
     * owner (a caller slot changes hands), C++20's passes no plain store. */
    wf_store_release(&dq->top, t);
    /* D3: StoreLoad.  Pairs with the fence in poll: either this read of
     * base sees a thief's increment, or that thief sees the new top. */
    wf_fence_seqcst();
    int64_t b = wf_load_relaxed(&dq->base);
    dq->base_seen = b;
    if (b > t) { /* was empty: undo the claim (D1: release, as the claim) */
        wf_store_release(&dq->top, t + 1);
        return NULL;
    }
    void *x = wf_load_relaxed(&a->slot[t & a->mask]); /* owner wrote it */
    if (b == t) {
        /* D4: the last element; whoever moves base from t wins (no ABA).
         * Relaxed: D3 needs a thief's CAS in the seq_cst order S (see
         * poll), not this one; the owner pushed x itself, a thief that
         * wins hands nothing over here (its task's joiner acquires done_),
         * and the slot's release and acquire (D1) order the thief's read
         * of the slot before the owner's next write of it. */
        if (!wf_cas_relaxed(&dq->base, &b, b + 1))
            x = NULL;
        dq->base_seen = t + 1;
        /* Deque is empty either way; top = base.  D1: release, as the
         * claim; thieves that read it see base == t + 1 and back off. */
        wf_store_release(&dq->top, t + 1);
    }
    return x;
}

int wf_deque_poll(wf_deque *dq, void **out)
{
    if (dq == NULL || out == NULL)
        return WF_EINVAL;
    /* D2: relaxed.  The seq_cst fence below is an acquire fence: with this
     * load before it, it synchronises with the CAS that wrote b (C11
     * 7.17.4), as an acquire load would, and orders the load on hardware. */
    int64_t b = wf_load_relaxed(&dq->base);
    /* D3: pairs with the fence in pop (see there). */
    wf_fence_seqcst();
    /* D1: pairs with the release store of top in push. */
    int64_t t = wf_load_acquire(&dq->top);
    if (b >= t)
        return WF_POLL_EMPTY;
    /* D5: pairs with the release store of array in grow. */
    struct wf__ring *a = wf_load_acquire(&dq->array);
    /* D1 (WorkQueue's getAcquire of the slot), with push's release: no
     * slot written after the owner read this thief's CAS is read here
     * (coherence; no load buffering).  Used only if the CAS below wins. */
    void *x = wf_load_acquire(&a->slot[b & a->mask]);
    /* D4: arbitration on the index.  A failed CAS means the owner or
     * another thief took index b first.  seq_cst, not acq_rel: under C11's
     * fence rules (7.17.3) pop's read of base sees this write only so. */
    if (!wf_cas_seqcst(&dq->base, &b, b + 1))
        return WF_POLL_RETRY;
    *out = x;
    return WF_POLL_TAKEN;
}

size_t wf_deque_size(const wf_deque *dq)
{
    if (dq == NULL)
        return 0;
    /* A snapshot: relaxed loads of both ends. */
    int64_t b = wf_load_relaxed(&((wf_deque *)dq)->base);
    int64_t t = wf_load_relaxed(&((wf_deque *)dq)->top);
    return t > b ? (size_t)(t - b) : 0;
}

size_t wf_deque_capacity(const wf_deque *dq)
{
    if (dq == NULL)
        return 0;
    struct wf__ring *a = wf_load_relaxed(&((wf_deque *)dq)->array);
    return a ? (size_t)(a->mask + 1) : 0;
}
