/* SPDX-License-Identifier: Apache-2.0 */
/* weft — the work-stealing fork-join pool.
 *
 * A pool of N threads runs N - 1 background workers, and a thread that
 * waits on it (wf_run, wf_join, wf_group_wait, wf_pool_wait_idle, a graph's
 * wait_for_all) is the N-th: it runs the pool's tasks until what it waits
 * for is done, in one of WF_CALLER_SLOTS slots kept for such callers.
 * Each worker keeps the tasks it spawns in a
 * private stack; when another worker asks for work (or one is parked) the
 * oldest half of that stack moves to the worker's public deque (wf_deque, the
 * ForkJoinPool WorkQueue), where thieves poll it.  Spawn and the common join
 * are therefore a few plain loads and stores, inlined below; no fence and no
 * atomic read-modify-write.  See docs/pool.md and docs/protocols.md.
 *
 * Tasks are intrusive and caller-allocated, usually on the stack:
 *
 *     typedef struct { wf_task task; int n; long out; } fib_frame;
 *     static void fib_body(wf_task *t) {
 *         fib_frame *f = (fib_frame *)t;      // task is the first member
 *         f->out = fib(f->n);
 *     }
 *     long fib(int n) {
 *         if (n < 2) return n;
 *         fib_frame a;                        // spawn sets the task
 *         a.n = n - 1;
 *         wf_spawn(&a.task, fib_body);
 *         long b = fib(n - 2);
 *         wf_join(&a.task);
 *         return a.out + b;
 *     }
 *
 * Rules: a task is spawned and joined by the same thread; every spawned task
 * is joined exactly once, and a task body joins everything it spawned before
 * it returns (fork-join).  Frames may be reused after their join.  A body
 * (a task's, wf_run's function, any function weft calls) leaves by
 * returning: a longjmp or a C++ exception out of it skips weft's frames,
 * and the thread stays marked as inside the pool (a later
 * wf_pool_destroy from it returns WF_EPERM), its task never completes and
 * its join waits for ever.  Catch inside the body and return an error
 * (docs/pool.md, "Leaving a body"). */
#ifndef WEFT_POOL_H
#define WEFT_POOL_H

#ifndef __cplusplus
#include <stdatomic.h>
#endif
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common.h"
#include "deque.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct wf_pool wf_pool;
typedef struct wf_task wf_task;
typedef void (*wf_task_fn)(wf_task *task);

/* A task.  Embed it in your frame; its fields are private to weft.
 * wf_spawn sets every field a join reads, so a frame that is spawned and
 * joined needs no initialisation.  Zero it for wf_submit, and for
 * wf_join's WF_ENOTSPAWNED check of a frame that was never spawned. */
struct wf_task {
    wf_task_fn fn;
    void *owner_; /* spawning thread's token, a mark, a typed frame's worker */
    WF__ATOMIC(void *) thief_;  /* worker that stole it (a hint)       */
    WF__ATOMIC(uint32_t) done_; /* 0, WF__DONE, WF__WAITING, WF__HELPING */
    uint32_t flags_;
};

/* Pool configuration.  Zero means "default" in every field. */
typedef struct wf_pool_config {
    unsigned threads;          /* threads - 1 background workers + a caller;
                               0 = WEFT_NUM_THREADS, else the CPUs this
                               process may use (affinity, cgroup quota), at
                               least 2 */
    size_t deque_capacity;     /* initial slots per worker (power of two) */
    unsigned spin;             /* steal rounds before an idle worker parks;
                               0 = WEFT_SPIN or 1024 */
    size_t stack_size;         /* worker thread stack, bytes; 0 = system's;
                               below the system's minimum: WF_ERANGE */
    const wf_allocator *alloc; /* memory for the pool, its deques and
                               the task records of graph rounds;
                               copied: it need not outlive the call */
    unsigned max_spares;       /* spare workers started for blocked ones;
                               0 = 256 (ForkJoinPool's maximumSpares) */
} wf_pool_config;

#define WF_POOL_CONFIG_INIT                                                    \
    {                                                                          \
        0, 0, 0, 0, NULL, 0                                                    \
    }

/* Largest accepted values; larger ones give WF_ERANGE. */
#define WF_MAX_THREADS 1024
#define WF_MAX_SPIN 1000000u
#define WF_MAX_SPARES 4096u

/* Create a pool and start its workers.  cfg may be NULL (all defaults).
 * Returns 0 and sets *out; WF_EINVAL (out NULL), WF_ERANGE (a field out of
 * range), WF_ENOMEM, or WF_EAGAIN when threads could not be started: then
 * nothing is leaked and *out is untouched.  Any thread. */
WF_API int wf_pool_create(wf_pool **out, const wf_pool_config *cfg);

/* Wait for every submitted task to finish, stop the workers and free the
 * pool.  NULL is accepted (returns 0).  Returns WF_EPERM, doing nothing, when
 * called from one of the pool's own workers, or on the default pool, and
 * WF_EBUSY while a graph made on the pool has not been destroyed. */
WF_API int wf_pool_destroy(wf_pool *pool);

/* The default pool, created on first use with the environment's settings
 * (like ForkJoinPool's common pool); never destroyed.  NULL if it could not
 * be created.  Any thread.  A child of fork() gets one of its own; pools
 * made before the fork answer WF_ESTATE there (docs/pool.md). */
WF_API wf_pool *wf_pool_default(void);

/* Slots a pool keeps for threads that are not its workers and wait on it.
 * More such callers at once than slots still wait correctly, asleep. */
#define WF_CALLER_SLOTS 4

/* The configured number of threads: the background workers, plus one. */
WF_API unsigned wf_pool_threads(const wf_pool *pool);

/* Pool of the calling worker thread, or of the caller slot it runs in (a
 * task or wf_run's fn run by a waiting caller); NULL outside any pool. */
WF_API wf_pool *wf_current_pool(void);

/* Index of the calling thread's slot in its pool, or -1 outside any pool:
 * 0 .. threads-2 for the background workers, threads-1 .. threads-2 +
 * WF_CALLER_SLOTS for callers that take part (the first caller gets
 * threads-1), and above that for spare workers (wf_blocking_begin). */
WF_API int wf_worker_index(void);

/* How many slots pool has room for: one more than the largest
 * wf_worker_index a thread running its work can get (workers, caller
 * slots, spare workers up to max_spares); 0 for NULL.  An array of this
 * many entries indexed by wf_worker_index is per-thread storage; no two
 * threads hold one index at once. */
WF_API unsigned wf_pool_slots(const wf_pool *pool);

/* ---- fork-join --------------------------------------------------------- */

/* Spawn t: fn(t) will run, on this worker or a thief, before wf_join(t)
 * returns.  From a worker the task goes on that worker's stack (no
 * allocation, no atomic RMW, no counter); from any other thread it goes to
 * the default pool's submission queue.  t need not be initialised; it must
 * not be spawned again before its join (the spawn would overwrite it).
 * Returns 0 or WF_EINVAL (t or fn NULL).  If memory for the task cannot
 * be found, fn runs at once, inline. */
static inline int wf_spawn(wf_task *t, wf_task_fn fn);

/* Wait until t has run.  If t was not stolen it runs here, now; if it was,
 * this worker helps (steals from the thief first) and parks only when there
 * is nothing to help with.  Returns 0, WF_EINVAL (NULL), WF_ENOTSPAWNED,
 * WF_EJOINED (joined twice), or WF_EPERM (t spawned by another thread). */
static inline int wf_join(wf_task *t);

/* wf_join for a caller that knows the body: fn must be the function given
 * to wf_spawn.  When t was not stolen, fn is called directly, so the
 * compiler can inline it; otherwise this is wf_join(t).  Same returns. */
static inline int wf_join_fn(wf_task *t, wf_task_fn fn);

/* ---- entry from outside ------------------------------------------------ */

/* Run fn(arg) in `pool` and wait for it (and everything it spawned) to
 * finish.  fn runs on the calling thread: a worker of the pool runs it
 * inline, any other thread in a caller slot, where what fn spawns is
 * stolen by the workers (with every slot taken, fn goes to a worker and
 * the caller sleeps).  Returns 0, or WF_EINVAL (pool or fn NULL).  Never
 * allocates. */
WF_API int wf_run(wf_pool *pool, void (*fn)(void *arg), void *arg);

/* Fire and forget: fn(t) runs later on some worker (in a pool of 1 thread,
 * which has no background worker, when a thread waits on the pool, as in
 * wf_pool_wait_idle or wf_pool_destroy).  t must stay valid until
 * fn starts; fn may free it.  Do not join t.  Any thread: from one of the
 * pool's workers t goes on that worker's own stack, as a spawn does (no
 * lock), from elsewhere to the pool's submission queue.  t must be
 * zero-initialised, or a frame whose earlier fn has started.
 * Returns 0, WF_EINVAL, or WF_EBUSY (t is submitted and has not started
 * yet; nothing is done).  Never allocates: t itself is queued. */
WF_API int wf_submit(wf_pool *pool, wf_task *t, wf_task_fn fn);

/* Wait until every task submitted with wf_submit/wf_run has finished,
 * running the pool's tasks meanwhile (in a caller slot).  Returns 0,
 * WF_EINVAL, or WF_EPERM from one of the pool's workers. */
WF_API int wf_pool_wait_idle(wf_pool *pool);

/* Wait until done(arg) returns true, running the pool's tasks on the
 * calling thread meanwhile: as the worker it is, or, from any other
 * thread, in a caller slot (with every slot taken it sleeps while the
 * workers run them).  So a task may wait for work it started without
 * tying up its worker.  done is called on the calling thread only, again
 * after each wake-up: cheap, and with no side effect.  The thread that
 * makes the condition true writes it with a release store (or stronger)
 * that done reads with an acquire load, then calls wf_pool_notify(pool)
 * (the waiter may return, and free the condition's memory, as soon as
 * the store is made: read the pool before it).  A waiter that found
 * nothing to run sleeps until the notify.  Returns 0,
 * WF_EINVAL (pool or done NULL), or WF_ESTATE (a pool from before a fork,
 * whose threads are gone, unless done is already true). */
WF_API int wf_pool_wait_until(wf_pool *pool, bool (*done)(const void *arg),
                              const void *arg);
/* Wake pool's threads that sleep in wf_pool_wait_until (and its other
 * waits), after making a condition true: each tests its condition again.
 * Cheap when none sleeps (a fence and a load).  Any thread. */
WF_API void wf_pool_notify(wf_pool *pool);

/* ---- loops -------------------------------------------------------------- */
/* All loop functions may be called from any thread.  From a worker of
 * `pool` they run on the calling worker directly; from elsewhere they run
 * on the pool as by wf_run.  They return when every call has returned. */

typedef void (*wf_range_fn)(size_t begin, size_t end, void *ctx);

/* Call body on disjoint subranges covering [begin, end), in parallel.
 * grain > 0: pieces are halved until at most `grain` long.  grain 0: the
 * split adapts, as oneTBB's auto_partitioner: about 8 pieces per worker,
 * each run as 32 calls of body, and between two calls a piece gives the
 * upper half of what it has left to a new task when an idle worker asks
 * for work (lazy splitting).  Returns 0, or WF_EINVAL (pool or body NULL,
 * end < begin). */
WF_API int wf_parallel_for(wf_pool *pool, size_t begin, size_t end,
                           size_t grain, wf_range_fn body, void *ctx);

/* A box of indices: [begin[d], end[d]) in each of three dimensions, the
 * last one contiguous in memory (row-major).  A 2-D box has dimension 2
 * [0, 1): WF_BOX_2D(r0, r1, c0, c1) is rows [r0, r1) by columns [c0, c1),
 * WF_BOX_3D(a0, a1, b0, b1, c0, c1) the same with a third dimension. */
typedef struct wf_box {
    size_t begin[3], end[3];
} wf_box;
#define WF_BOX_2D(r0, r1, c0, c1)                                              \
    {                                                                          \
        {(r0), (c0), 0},                                                       \
        {                                                                      \
            (r1), (c1), 1                                                      \
        }                                                                      \
    }
#define WF_BOX_3D(a0, a1, b0, b1, c0, c1)                                      \
    {                                                                          \
        {(a0), (b0), (c0)},                                                    \
        {                                                                      \
            (a1), (b1), (c1)                                                   \
        }                                                                      \
    }

typedef void (*wf_box_fn)(const wf_box *piece, void *ctx);

/* Call body on disjoint boxes covering *box, in parallel: OpenMP's
 * collapse(2)/collapse(3), oneTBB's blocked_range2d/3d.  grain NULL: the
 * split adapts as wf_parallel_for's grain 0 does, cutting the outer
 * dimensions first and keeping the contiguous one whole while there are
 * enough pieces, so a piece is usually a band of whole rows.  Else each
 * piece is at most grain[d] long in dimension d (0: not cut).  Returns
 * 0 (at once for an empty box), or WF_EINVAL (pool, box or body NULL, an
 * end below its begin, or more tiles than a size_t counts). */
WF_API int wf_parallel_for_box(wf_pool *pool, const wf_box *box,
                               const size_t grain[3], wf_box_fn body,
                               void *ctx);

/* Accumulate [begin, end) into `acc` (size bytes, already holding the
 * identity): acc = acc (+) body's contribution. */
typedef void (*wf_reduce_fn)(size_t begin, size_t end, void *acc, void *ctx);
/* left = left (+) right.  Must be associative; need not be commutative. */
typedef void (*wf_combine_fn)(void *left, const void *right, void *ctx);

/* Parallel reduction of [begin, end) into *result (size bytes).  Every
 * piece starts from a copy of *identity; pieces are combined left to
 * right along a split tree that depends only on the range, the grain and
 * the pool's size, never on who stole what, so the result is the same
 * bit for bit on every run (floating-point sums included).  grain 0:
 * about 256 pieces per worker (as many body calls as wf_parallel_for's
 * adaptive grain makes; the tree cannot adapt to stealing without losing
 * determinism).  The accumulator may be of any size: up to 256 bytes it
 * lives in the tasks' frames, above that in a block per split from the
 * pool's allocator.  Returns 0,
 * WF_EINVAL (NULL argument, end < begin, size 0) or WF_ENOMEM (no block
 * for a large accumulator; *result is then unchanged). */
WF_API int wf_parallel_reduce(wf_pool *pool, size_t begin, size_t end,
                              size_t grain, void *result, size_t size,
                              const void *identity, wf_reduce_fn body,
                              wf_combine_fn combine, void *ctx);

typedef void (*wf_invoke_fn)(void *ctx);

/* Call fns[i](ctxs[i]) for i < n in parallel (ctxs may be NULL: every ctx
 * is NULL).  Returns 0, or WF_EINVAL (pool or fns NULL, a NULL function). */
WF_API int wf_parallel_invoke(wf_pool *pool, size_t n, const wf_invoke_fn *fns,
                              void *const *ctxs);

/* ---- sorting and scans --------------------------------------------------- */

/* Order of two elements: negative, 0 or positive as *a sorts before, with
 * or after *b (qsort's contract), with a context pointer (qsort_r's). */
typedef int (*wf_cmp_fn)(const void *a, const void *b, void *ctx);

/* wf_parallel_sort's flags.  WF_SORT_STABLE: equal elements keep their
 * input order.  Without it their order is unspecified. */
#define WF_SORT_STABLE 1u

/* Sort base[0..n), n elements of size bytes each, in parallel: a merge
 * sort whose halves are sorted as tasks and whose merges split in
 * parallel too (Cormen et al., "Introduction to Algorithms", 3rd ed.,
 * 27.3), sequential below a grain chosen from n and the pool's size.
 * The calling thread takes part, as in wf_parallel_for.  Scratch of
 * n * size bytes comes from the pool's allocator for the duration of the
 * call.  The comparison is a call through cmp for every step; for a
 * fixed element type WF_SORT_DEFINE makes a sort whose comparison
 * inlines.  Any thread.  Returns 0; WF_EINVAL (pool or cmp NULL, size 0,
 * base NULL with n > 0, a flag not defined above); WF_ENOMEM (no
 * scratch: base is untouched). */
WF_API int wf_parallel_sort(wf_pool *pool, void *base, size_t n, size_t size,
                            wf_cmp_fn cmp, void *ctx, unsigned flags);

/* Define `static int name(wf_pool *pool, type *base, size_t n)`, a stable
 * parallel sort of n elements of `type` on wf_parallel_sort's skeleton,
 * with less_expr, an expression in `a` and `b` (two values of `type`),
 * as the "a sorts before b" test, compiled inline where it is used (as
 * klib's ksort does), e.g.
 *
 *     WF_SORT_DEFINE(sort_u32, uint32_t, a < b)
 *     WF_SORT_DEFINE(sort_by_key, struct rec, a.key < b.key)
 *     int err = sort_u32(pool, keys, n);
 *
 * less_expr must be a strict weak order.  Same returns as
 * wf_parallel_sort.  Use at file scope, once per name. */
#define WF_SORT_DEFINE(name, type, less_expr)                                  \
    WF__SORT_DEFINE(name, type, less_expr)

/* Fold [begin, end) into acc (size bytes, holding on entry the
 * combination of everything before begin in a final pass, or the
 * identity in a first pass), and when final is true also write each
 * output: an inclusive scan writes out[i] after folding element i, an
 * exclusive one before (oneTBB's parallel_scan body, whose
 * is_final_scan() is `final`). */
typedef void (*wf_scan_fn)(size_t begin, size_t end, void *acc, bool final,
                           void *ctx);

/* Parallel prefix scan of [begin, end), as oneTBB's parallel_scan runs
 * one: the range is cut into blocks, and a block whose prefix is known
 * when it starts (the first, then each next one a thread reaches in
 * order) runs its final pass at once; a block that starts earlier, on
 * another thread, folds its sum from a copy of *identity first (a pass
 * with final false), and runs its final pass once the sums before it are
 * combined, left to right.  On one thread, or when no other thread takes
 * part, every element is read once.  combine(left, right) must be
 * associative; where it is not exact (floating point) results can differ
 * in rounding from run to run, as oneTBB's do.  grain > 0: blocks at most
 * grain long; 0: one block on a pool of one thread, else about 32 per
 * thread.  *result (NULL: not wanted) gets the combination of the whole
 * range.  The blocks' accumulators live on the caller's stack up to 4
 * KiB, above that in a block from the pool's allocator.  Any thread; the
 * caller takes part.  Returns 0, WF_EINVAL (pool, identity, body or
 * combine NULL, size 0, end < begin), or WF_ENOMEM (no memory for the
 * accumulators: body was not called). */
WF_API int wf_parallel_scan(wf_pool *pool, size_t begin, size_t end,
                            size_t grain, void *result, size_t size,
                            const void *identity, wf_scan_fn body,
                            wf_combine_fn combine, void *ctx);

/* wf_parallel_scan_array's flags: WF_SCAN_EXCLUSIVE writes the
 * combination of the elements before i, and out[0] = identity;
 * otherwise (inclusive) the combination up to and including i. */
#define WF_SCAN_EXCLUSIVE 1u

/* Scan the array in[0..n) of elements of size bytes into out[0..n) with
 * combine (called on every element: for speed on plain numbers write a
 * wf_scan_fn with an inlined loop).  out may be in (in place).  The
 * accumulator is at most 256 bytes.  Any thread.  Returns 0, WF_EINVAL
 * (NULL argument with n > 0, size 0 or over 256, an undefined flag) or
 * WF_ENOMEM. */
WF_API int wf_parallel_scan_array(wf_pool *pool, const void *in, void *out,
                                  size_t n, size_t size, const void *identity,
                                  wf_combine_fn combine, void *ctx,
                                  unsigned flags);

/* ---- per-thread storage ------------------------------------------------ */
/* A value per thread that runs a pool's work (oneTBB's
 * enumerable_thread_specific and combinable, OpenMP's threadprivate and
 * reduction): a loop's bodies add into their thread's value with no
 * atomic and no false sharing, and the values are combined once the loop
 * is done. */

typedef struct wf_per_thread wf_per_thread;

/* Values of size bytes, one per slot of pool (wf_pool_slots), each on
 * cache lines of its own and first a copy of *init (zeroes when init is
 * NULL).  Returns 0, WF_EINVAL (out or pool NULL, size 0) or WF_ENOMEM;
 * the memory comes from the pool's allocator. */
WF_API int wf_per_thread_create(wf_per_thread **out, wf_pool *pool, size_t size,
                                const void *init);

/* The calling thread's value: from a task, a loop's body or any code
 * that runs on one of the pool's threads (a worker, a caller in its
 * slot, a spare); NULL from any other thread.  The value stays the
 * thread's while it runs the pool's work. */
WF_API void *wf_per_thread_local(wf_per_thread *pt);

/* Call fn(value, ctx) for each value a thread took with
 * wf_per_thread_local, in slot order; once the work that used them is
 * done (after the loop or wf_run returned).  Returns 0 or WF_EINVAL. */
WF_API int wf_per_thread_each(wf_per_thread *pt,
                              void (*fn)(void *value, void *ctx), void *ctx);

/* Free pt (NULL: nothing). */
WF_API void wf_per_thread_destroy(wf_per_thread *pt);

/* ---- task groups --------------------------------------------------------- */
/* A group runs any number of tasks and waits for them together.  A task
 * returns 0 or an error code; the first error cancels the group: tasks that
 * have not started do not start, running ones can poll
 * wf_group_is_cancelled(), and wf_group_wait() returns that error.  Groups
 * nest (a parent's cancellation reaches its children).  The thread that
 * initialised a group spawns into it and waits for it; tasks of the group
 * create child groups for their own subtasks.  Nothing is allocated. */

typedef struct wf_group wf_group;
typedef struct wf_group_task wf_group_task;
/* A group task's body: returns 0 (or any value >= 0) on success, or a
 * negative code (WF_E..., or its own), which cancels the group and is what
 * wf_group_wait returns if it is the first. */
typedef int (*wf_group_fn)(wf_group_task *t);

/* Embed in your frame like wf_task; zero-initialise.  Fields private. */
struct wf_group_task {
    wf_task task;
    wf_group *group_;
    wf_group_fn fn_;
    wf_group_task *next_;
};

struct wf_group {
    wf_pool *pool_;
    wf_group *parent_;
    wf_group_task *head_; /* spawned, newest first */
    void *owner_;
    WF__ATOMIC(int) error_;
    WF__ATOMIC(int) cancelled_;
    WF__ATOMIC(int) state_;
};

/* Initialise g.  pool: where tasks spawned from a non-worker thread run
 * (NULL: the default pool); parent: NULL or the enclosing group.
 * Returns 0 or WF_EINVAL. */
WF_API int wf_group_init(wf_group *g, wf_pool *pool, wf_group *parent);

/* Run fn(t) as a task of g.  Returns 0; WF_EINVAL (NULL); WF_EPERM (not
 * the thread that initialised g); WF_ESTATE (g was waited for already);
 * WF_ECANCELED (g is cancelled: t will not run); WF_EBUSY (t is in a group,
 * this one or another, that has not been waited for). */
WF_API int wf_group_spawn(wf_group *g, wf_group_task *t, wf_group_fn fn);

/* Wait for every task of g; help meanwhile.  Returns 0, the first error a
 * task returned, WF_ECANCELED if the group was cancelled without one,
 * WF_EINVAL, WF_EPERM (another thread) or WF_ESTATE (waited twice). */
WF_API int wf_group_wait(wf_group *g);

/* Cancel g and its descendants: tasks not yet started will not start.
 * Any thread.  Returns 0, WF_EINVAL, or WF_ESTATE if g was already waited
 * for (finished). */
WF_API int wf_group_cancel(wf_group *g);

/* True if g or an enclosing group is cancelled.  Any thread. */
WF_API bool wf_group_is_cancelled(const wf_group *g);

/* ---- blocking inside a task ---------------------------------------------- */

/* Bracket a blocking call (I/O, a lock, a condition variable) made from a
 * task.  While a worker is blocked the pool may start a spare worker, so
 * the pool keeps `threads` threads running; spares retire when idle, and
 * there are at most `max_spares` of them.  Calls nest.  Outside a worker
 * they do nothing.  wf_blocking_begin returns 0, or WF_EAGAIN when a spare
 * was needed and no thread or memory for it could be had: the section is
 * entered all the same (call wf_blocking_end), and the pool runs on the
 * threads it has, trying again at the next begin.  At the max_spares bound
 * it returns 0.  wf_blocking_end returns 0. */
WF_API int wf_blocking_begin(void);
WF_API int wf_blocking_end(void);

/* ---- tracing and statistics ---------------------------------------------- */

/* Write a Chrome trace (JSON "traceEvents", opened by Perfetto,
 * chrome://tracing and tools/trace_view.html) to path: one track per
 * thread, with a span per stolen fork-join task, per park of a worker,
 * per wf_run on the calling thread, and per node body and graph task of
 * every graph (weft/graph.h), with arrows along the messages.  Events go
 * to per-thread buffers; the file is written by wf_trace_stop.
 * WEFT_TRACE=file.json in the environment, read when the first pool or
 * graph is created, starts it, and it stops at exit.  Any thread.
 * Returns 0; WF_EINVAL (path NULL or empty), WF_EBUSY (already tracing),
 * WF_ENOMEM. */
WF_API int wf_trace_start(const char *path);

/* Stop tracing and write the file.  Call it when no graph has work in
 * flight and no task runs (it waits for events being recorded, not for
 * work).  Returns 0; WF_ENOENT (not tracing), WF_EAGAIN (the file could
 * not be written; errno says why). */
WF_API int wf_trace_stop(void);

typedef struct wf_worker_stats {
    uint64_t spawns;        /* tasks that entered the pool here: spawns
                               (wf_spawn, WF_SPAWN) it published for
                               thieves (a spawn that its own join ran
                               before any thief asked is a call, and is
                               not counted), tasks it spawned that nobody
                               joins (wf_submit from a task, graph tasks,
                               pipeline tokens), and submissions from
                               outside it took from the queue            */
    uint64_t tasks_run;     /* tasks it ran: its spawns that no thief
                               took, and the tasks it stole; summed over
                               the slots of a quiet pool, equal to the
                               spawns                                      */
    uint64_t steals;        /* tasks it took from other workers' deques    */
    uint64_t failed_steals; /* polls that found nothing or lost a race     */
    uint64_t publishes;     /* times it moved private tasks to its deque   */
    uint64_t parks;         /* times it went to sleep                      */
    uint64_t wakes;         /* wake-ups it sent to sleeping workers        */
} wf_worker_stats;

/* Copy the statistics of up to n slots into out[0..n-1], in the order of
 * wf_worker_index (counters since the pool started; a snapshot while it
 * runs).  Returns the number of slots: threads - 1 + WF_CALLER_SLOTS +
 * the spares ever started; or WF_EINVAL.  out may be NULL when n is 0. */
WF_API int wf_pool_stats(wf_pool *pool, wf_worker_stats *out, size_t n);

#ifdef __cplusplus
}
#endif

#include "detail/pool.h" /* the inline fast paths */
#include "detail/sort.h" /* WF_SORT_DEFINE's machinery */

#endif /* WEFT_POOL_H */
