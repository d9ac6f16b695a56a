/* SPDX-License-Identifier: Apache-2.0 */
/* weft — the work-stealing deque (ForkJoinPool's WorkQueue, in C11).
 *
 * One owner thread pushes and pops at `top` (LIFO); any number of thieves
 * poll at `base` (FIFO).  The ring is a power of two and grows when full.
 * Elements are non-NULL `void *`.  The same pointer value may be pushed again
 * at any time (thieves arbitrate on the 64-bit index, not on the slot), and a
 * ring replaced by `grow` is kept until wf_deque_destroy(), because a thief may
 * still be reading it.  See docs/deque.md and docs/protocols.md.
 *
 * Who may call what:
 *   owner only:  wf_deque_push, wf_deque_push_n, wf_deque_pop
 *   any thread:  wf_deque_poll, wf_deque_size
 *   no other thread may use the deque during init/destroy. */
#ifndef WEFT_DEQUE_H
#define WEFT_DEQUE_H

#ifndef __cplusplus
#include <stdatomic.h>
#endif
#include <stdint.h>

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

struct wf__ring;

/* Caller-allocated; fields are private.  `base` is written by thieves, `top`
 * and `array` by the owner: they live on different cache lines (as
 * ForkJoinPool's @Contended fields do). */
typedef struct wf_deque {
    WF__ALIGNAS(WF_CACHE_LINE) WF__ATOMIC(int64_t) base; /* next to steal */
    WF__ALIGNAS(WF_CACHE_LINE) WF__ATOMIC(int64_t) top;  /* next to push  */
    WF__ATOMIC(struct wf__ring *) array;                 /* current ring  */
    int64_t base_seen; /* owner-private: a recent value of base            */
    wf_allocator alloc;
} wf_deque;

/* Results of wf_deque_poll(). */
enum wf_poll_result {
    WF_POLL_EMPTY = 0, /* nothing to steal: move on to another victim      */
    WF_POLL_TAKEN = 1, /* *out holds the stolen element                     */
    WF_POLL_RETRY = 2  /* lost a race with the owner or another thief       */
};

/* Initialise an empty deque whose ring holds `capacity` elements (rounded up
 * to a power of two, at least 2; 0 means 64).  `alloc` may be NULL; if not,
 * it must set both alloc and free.
 * Returns 0, WF_EINVAL (dq NULL, capacity above 2^30, half an allocator) or
 * WF_ENOMEM. */
WF_API int wf_deque_init(wf_deque *dq, size_t capacity,
                         const wf_allocator *alloc);

/* Free every ring the deque ever used.  Safe on a zeroed deque and twice.
 * Afterwards the deque reads as zeroed: empty, and push gives WF_ESTATE
 * until wf_deque_init. */
WF_API void wf_deque_destroy(wf_deque *dq);

/* Owner: push x (non-NULL) at top, visible to thieves at once.
 * Returns 0, WF_EINVAL (dq or x NULL), WF_ESTATE (a deque that is zeroed,
 * never initialised, or destroyed) or WF_ENOMEM when the ring was full and a
 * larger one could not be allocated; the deque is then unchanged and x was
 * not pushed, so the caller still owns it. */
WF_API int wf_deque_push(wf_deque *dq, void *x);

/* Owner: push n elements, xs[0] first (so xs[n-1] is the next to pop),
 * publishing them to thieves with a single release store of top.
 * Same returns as wf_deque_push; on error nothing was pushed. */
WF_API int wf_deque_push_n(wf_deque *dq, void *const *xs, size_t n);

/* Owner: pop the newest element, or NULL when the deque is empty (or a thief
 * took the last element first, or dq is NULL). */
WF_API void *wf_deque_pop(wf_deque *dq);

/* Any thread: take the oldest element into *out.  Returns WF_POLL_TAKEN,
 * WF_POLL_EMPTY, or WF_POLL_RETRY when it lost a race (the deque may still
 * hold elements: retry or try another victim); WF_EINVAL if dq or out is
 * NULL. */
WF_API int wf_deque_poll(wf_deque *dq, void **out);

/* Any thread: number of elements, exact only when no one else is using the
 * deque; a snapshot otherwise; 0 for NULL. */
WF_API size_t wf_deque_size(const wf_deque *dq);

/* Current ring capacity (owner, or when quiescent); 0 for NULL. */
WF_API size_t wf_deque_capacity(const wf_deque *dq);

#ifdef __cplusplus
}
#endif
#endif /* WEFT_DEQUE_H */
