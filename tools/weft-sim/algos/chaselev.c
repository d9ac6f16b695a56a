/* SPDX-License-Identifier: Apache-2.0 */
/* chase-lev: the C11 deque of Lê, Pop, Cohen and Zappa Nardelli ("Correct
 * and efficient work-stealing for weak memory models", PPoPP 2013), for
 * comparison with weft.  Their `top` (thieves' end) is called base here
 * and their `bottom` (owner's end) top, so that the picture and the log
 * use one vocabulary.  consume is taken as acquire.  Their resize is not
 * spelled out in the paper: it copies [base, top) and publishes the new
 * array with a release store. */
#include "algos/algos.h"
#include "core/sim_atomic.h"
#include "weft/deque.h"

typedef struct cl_array {
    int64_t size;
    _Atomic(void *) buffer[];
} cl_array;

typedef struct cl_deque {
    _Alignas(128) _Atomic int64_t base; /* their top    */
    _Alignas(128) _Atomic int64_t top;  /* their bottom */
    cl_array *_Atomic array;
} cl_deque;

static cl_deque q;

static cl_array *array_new(int64_t size)
{
    cl_array *a = sim_alloc(sizeof(cl_array) + (size_t)size * sizeof(void *));
    if (a) {
        a->size = size;
        sim_register_ring(a, a->buffer, size);
    }
    return a;
}

static int cl_init(int capacity)
{
    int64_t cap = 2;
    while (cap < capacity)
        cap <<= 1;
    cl_array *a = array_new(cap);
    if (!a)
        return -1;
    wf_store_relaxed(&q.base, 0);
    wf_store_relaxed(&q.top, 0);
    wf_store_relaxed(&q.array, a);
    sim_register_deque(&q.base, &q.top, &q.array);
    return 0;
}

static cl_array *resize(cl_array *a, int64_t t, int64_t b)
{
    cl_array *na = array_new(a->size * 2);
    if (!na)
        return NULL;
    for (int64_t i = t; i < b; i++)
        wf_store_relaxed(&na->buffer[i & (na->size - 1)],
                         wf_load_relaxed(&a->buffer[i & (a->size - 1)]));
    wf_store_release(&q.array, na);
    return na;
}

static int cl_push(void *x)
{
    int64_t b = wf_load_relaxed(&q.top);
    int64_t t = wf_load_acquire(&q.base);
    cl_array *a = wf_load_relaxed(&q.array);
    if (b - t > a->size - 1 && (a = resize(a, t, b)) == NULL)
        return WF_ENOMEM;
    wf_store_relaxed(&a->buffer[b & (a->size - 1)], x);
    wf_fence_release();
    wf_store_relaxed(&q.top, b + 1);
    return 0;
}

static void *cl_take(void)
{
    int64_t b = wf_load_relaxed(&q.top) - 1;
    cl_array *a = wf_load_relaxed(&q.array);
    wf_store_relaxed(&q.top, b);
    wf_fence_seqcst();
    int64_t t = wf_load_relaxed(&q.base);
    void *x = NULL;
    if (t <= b) {
        x = wf_load_relaxed(&a->buffer[b & (a->size - 1)]);
        if (t == b) { /* the last element */
            if (!wf_cas_seqcst(&q.base, &t, t + 1))
                x = NULL; /* lost the race */
            wf_store_relaxed(&q.top, b + 1);
        }
    } else { /* empty */
        wf_store_relaxed(&q.top, b + 1);
    }
    return x;
}

static int cl_steal(void **out)
{
    int64_t t = wf_load_acquire(&q.base);
    wf_fence_seqcst();
    int64_t b = wf_load_acquire(&q.top);
    if (t >= b)
        return WF_POLL_EMPTY;
    cl_array *a = wf_load_acquire(&q.array); /* consume */
    void *x = wf_load_relaxed(&a->buffer[t & (a->size - 1)]);
    if (!wf_cas_seqcst(&q.base, &t, t + 1))
        return WF_POLL_RETRY; /* ABORT */
    *out = x;
    return WF_POLL_TAKEN;
}

const sim_algo sim_algo_chaselev = {
    .name = "chase-lev",
    .catch_model = "-",
    .desc = "the C11 deque of Le, Pop, Cohen, Zappa Nardelli (PPoPP 2013): "
            "relaxed slots, release fence in push",
    .init = cl_init,
    .push = cl_push,
    .pop = cl_take,
    .poll = cl_steal};
