/* SPDX-License-Identifier: Apache-2.0 */
/* The inline fast paths of weft/pool.h: spawn and join on the worker's
 * private stack, and what they read of the worker.
 *
 * Not API: the names here may change in any release.  Included by
 * weft/pool.h, at its end; never include it directly. */
#ifndef WEFT_DETAIL_POOL_H
#define WEFT_DETAIL_POOL_H

#ifdef __cplusplus
extern "C" {
#endif

#define WF__DONE 1u    /* done_: the task has run                      */
#define WF__WAITING 2u /* done_: not yet run, and its joiner sleeps     */
#define WF__HELPING 3u /* done_: not yet run, its joiner helps the pool */
#define WF__JOINED ((void *)1) /* owner_ of a task that has been joined */

struct wf__held;

/* The part of a worker that spawn and join touch.  Owner-private but for
 * `limit` and `tlimit` (thieves store NULL there to ask for work). */
struct wf__fast {
    wf_task **sp;  /* next free slot of the private stack  */
    wf_task **end; /* one past the last slot               */
    wf_task **bp;  /* oldest entry not yet published       */
    /* Ready tasks that the task in progress keeps off the stack for this
     * thread to run after it (a task graph's, src/taskgraph/run.c), or
     * NULL: the pool has them spawned before this thread waits, helps or
     * publishes all, as if they were on the stack (rule P7). */
    struct wf__held *held;
    /* Spawn's one test: sp below limit.  limit is `end`, or NULL once a
     * thief asks for work, so a full stack and a request both send the
     * spawn to its slow path (rule P2).  tlimit is the same for a typed
     * spawn's frame: its segment's end (in debug mode the first frame of
     * all, so that every spawn takes the slow path), or NULL on a
     * request (P9). */
    WF__ALIGNAS(WF_CACHE_LINE) WF__ATOMIC(wf_task **) limit;
    WF__ATOMIC(struct wf__tslot *) tlimit;
};

/* Relaxed accesses to the atomic fields above: C11's atomics in C, and in
 * C++, where the fields are plain (weft/common.h), the __atomic builtins
 * that C11's are made of. */
#ifdef __cplusplus
#define WF__THREAD_LOCAL __thread
#define WF__LOAD_RELAXED(p) __atomic_load_n((p), __ATOMIC_RELAXED)
#define WF__STORE_RELAXED(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)
#else
#define WF__THREAD_LOCAL _Thread_local
#define WF__LOAD_RELAXED(p) atomic_load_explicit((p), memory_order_relaxed)
#define WF__STORE_RELAXED(p, v)                                                \
    atomic_store_explicit((p), (v), memory_order_relaxed)
#endif

WF_API extern WF__THREAD_LOCAL struct wf__fast *wf__self
    __attribute__((tls_model("initial-exec")));

/* The calling thread's wf__self.  On x86-64 this is the initial-exec
 * sequence written out (the offset from the GOT, then %fs-relative), so
 * the compiler cannot keep the offset in a callee-saved register across
 * the calls between a spawn and its join: with the plain variable gcc
 * does, and every frame then pays a push and a pop, leaves included.  The
 * linker relaxes the GOT load
 * to an immediate in an executable.  Not volatile, no memory operand:
 * only a worker thread's entry and exit write wf__self, so the value is
 * constant while any task or caller of this runs. */
static inline struct wf__fast *wf__self_get(void)
{
#if defined(__x86_64__) && !defined(__ILP32__)
    struct wf__fast *w;
    __asm__("movq wf__self@gottpoff(%%rip), %0\n\t"
            "movq %%fs:(%0), %0"
            : "=r"(w));
    return w;
#else
    return wf__self;
#endif
}

/* cold: the compiler lays the fast paths out straight and keeps the calls
 * of the slow paths out of the way. */
WF_API __attribute__((cold)) int wf__spawn_slow(wf_task *t, wf_task_fn fn);
WF_API __attribute__((cold)) int wf__join_slow(wf_task *t);

/* sp at or past limit, or limit NULL (a thief's request): the spawn's and
 * the join's tests of w's limit, a relaxed load (P2).  On x86-64 the
 * compare reads limit from memory: an aligned 8-byte load is single-copy
 * atomic there, and gcc does not fold an atomic load into a compare.  The
 * asm is volatile, so that, like the atomic load, it is never hoisted out
 * of a loop or merged with another (a join in a loop must see a request).
 * Under ThreadSanitizer, which must see the load, the atomic one. */
#if defined(__x86_64__) && !defined(__ILP32__) && !defined(WF__TSAN)
#define WF__SPAWN_FULL(w, sp)                                                  \
    __extension__({                                                            \
        int full_;                                                             \
        __asm__ volatile("cmpq %2, %1"                                         \
                         : "=@ccae"(full_)                                     \
                         : "r"(sp), "m"((w)->limit));                          \
        full_;                                                                 \
    })
#define WF__ASKED(w)                                                           \
    __extension__({                                                            \
        int asked_;                                                            \
        __asm__ volatile("cmpq $0, %1" : "=@cce"(asked_) : "m"((w)->limit));   \
        asked_;                                                                \
    })
#else
#define WF__SPAWN_FULL(w, sp)                                                  \
    ((uintptr_t)(sp) >= (uintptr_t)WF__LOAD_RELAXED(&(w)->limit))
#define WF__ASKED(w) (WF__LOAD_RELAXED(&(w)->limit) == NULL)
#endif

static inline int wf_spawn(wf_task *t, wf_task_fn fn)
{
    struct wf__fast *w = wf__self_get();
    /* Every field a join reads of a task that stays private is written
     * here, so a frame needs no zeroing; thief_ and flags_ are written when
     * the task is published or run by a slow path (P2).  No count: spawns
     * are counted when they are published.  A thief's request is a hint;
     * answering it (publishing) has its own release and wake-up protocol
     * (P2, P3). */
    wf_task **sp = w->sp; /* read before t's stores, which may alias it */
    if (__builtin_expect(t == NULL || fn == NULL || WF__SPAWN_FULL(w, sp), 0))
        return wf__spawn_slow(t, fn); /* not a worker, full, asked, bad */
    t->fn = fn;
    t->owner_ = w;
    WF__STORE_RELAXED(&t->done_, 0u); /* private: nobody else reads it */
    *sp = t;
    w->sp = sp + 1;
    return 0;
}

static inline int wf_join_fn(wf_task *t, wf_task_fn fn)
{
    struct wf__fast *w = wf__self_get();
    /* sp[-1] is always readable: the slot below the stack is a NULL
     * sentinel and published slots are cleared (rule P1).  A match means t
     * is ours and nobody else can see it.  A thief's request (limit NULL)
     * is answered here too (P2), so a worker that spawns rarely (long
     * leaves between spawns) still gives work away at its joins. */
    if (__builtin_expect(w->sp[-1] == t && t != NULL && !WF__ASKED(w), 1)) {
        w->sp--;
        t->owner_ = WF__JOINED;
        fn(t);
        return 0;
    }
    return wf__join_slow(t);
}

static inline int wf_join(wf_task *t)
{
    return wf_join_fn(t, t ? t->fn : NULL);
}

#ifdef __cplusplus
}
#endif
#endif /* WEFT_DETAIL_POOL_H */
