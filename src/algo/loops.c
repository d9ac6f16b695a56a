/* SPDX-License-Identifier: Apache-2.0 */
/* Loops on top of spawn/join: parallel_for (fixed or adaptive grain),
 * parallel_reduce (deterministic split tree), parallel_invoke.
 *
 * All three halve their range recursively: the upper half becomes a task,
 * the lower half runs on, so a thief always takes the largest piece left
 * (the oldest task).  Entry from outside the pool goes through wf_run. */
#include <string.h>

#include "internal/atomic.h"
#include "internal/base/alloc.h"
#include "internal/pool_hooks.h"
#include "internal/util.h"

/* Adaptive grain: pieces per worker to start with; each piece then runs in
 * AUTO_CHUNKS calls of the body and, between two, splits off the upper half
 * of what is left when a thief has asked for work (lazy splitting: pieces
 * get finer exactly where and when other workers are idle). */
#define AUTO_PIECES_PER_WORKER 8
#define AUTO_CHUNKS 32
#define AUTO_CHUNKS_LOG2 5
_Static_assert(AUTO_CHUNKS == 1 << AUTO_CHUNKS_LOG2, "AUTO_CHUNKS_LOG2");

/* Levels of halving that give about AUTO_PIECES_PER_WORKER pieces per
 * worker. */
static int auto_depth(const wf_pool *pool)
{
    size_t pieces = (size_t)AUTO_PIECES_PER_WORKER * wf_pool_threads(pool);
    int depth = 0;
    while (((size_t)1 << depth) < pieces)
        depth++;
    return depth;
}

/* Spawn a piece of the top of a split tree (the first auto_depth levels:
 * about AUTO_PIECES_PER_WORKER pieces per worker) and publish it at once.
 * A spawned task otherwise stays private until a thief asks and its owner
 * answers at its next spawn or join (P2); an owner that the OS has
 * descheduled answers nothing, and the other workers wait out its time
 * slice, idle, on a loaded machine.  A piece is many calls of the body,
 * so the publish (a deque push and a wake-up check) is small beside it,
 * and the few pieces below the top stay private and cheap. */
static void spawn_top_piece(wf_task *t, wf_task_fn fn, int depth)
{
    wf_spawn(t, fn);
    if (depth <= 0)
        return;
    struct wf__worker *w = wf__current(); /* loops run in wf_run: a worker */
    wf__publish_all(w);
}

/* ---- parallel_for ------------------------------------------------------ */

typedef struct {
    size_t grain; /* 0: adaptive */
    wf_range_fn body;
    void *ctx;
} for_spec;

typedef struct {
    wf_task task;
    const for_spec *spec;
    size_t begin, end;
    int depth;    /* halvings left before the piece runs (adaptive mode) */
    size_t chunk; /* body calls' length in the piece (adaptive mode) */
} for_frame;

static void for_range(const for_spec *s, size_t begin, size_t end, int depth,
                      size_t chunk);

static void for_task(wf_task *t)
{
    for_frame *f = (for_frame *)t;
    for_range(f->spec, f->begin, f->end, f->depth, f->chunk);
}

/* Has a thief asked this worker for work?  Relaxed: a hint (P2). */
static bool thief_waiting(void)
{
    return wf_load_relaxed(&wf__self->limit) == NULL;
}

/* Adaptive piece: the body in chunks; when a thief waits and more than a
 * chunk is left, the upper half of the rest becomes a task (its spawn
 * publishes it, P2) and this piece goes on with the lower half. */
static void for_piece(const for_spec *s, size_t begin, size_t end, size_t chunk)
{
    while (end - begin > chunk) {
        if (thief_waiting()) {
            size_t mid = begin + (end - begin) / 2;
            for_frame upper = {
                .spec = s, .begin = mid, .end = end, .chunk = chunk};
            wf_spawn(&upper.task, for_task);
            for_piece(s, begin, mid, chunk);
            wf_join_fn(&upper.task, for_task);
            return;
        }
        s->body(begin, begin + chunk, s->ctx);
        begin += chunk;
    }
    s->body(begin, end, s->ctx);
}

static void for_range(const for_spec *s, size_t begin, size_t end, int depth,
                      size_t chunk)
{
    bool fits =
        s->grain ? end - begin <= s->grain : end - begin <= 1 || depth <= 0;
    if (fits) {
        if (s->grain)
            s->body(begin, end, s->ctx);
        else
            for_piece(s, begin, end, chunk);
        return;
    }
    size_t mid = begin + (end - begin) / 2;
    for_frame upper = {.spec = s,
                       .begin = mid,
                       .end = end,
                       .depth = depth - 1,
                       .chunk = chunk};
    spawn_top_piece(&upper.task, for_task, depth);
    for_range(s, begin, mid, depth - 1, chunk);
    wf_join_fn(&upper.task, for_task);
}

typedef struct {
    const for_spec *spec;
    size_t begin, end;
    int depth;
    size_t chunk;
} for_root;

static void for_root_fn(void *arg)
{
    for_root *r = arg;
    for_range(r->spec, r->begin, r->end, r->depth, r->chunk);
}

int wf_parallel_for(wf_pool *pool, size_t begin, size_t end, size_t grain,
                    wf_range_fn body, void *ctx)
{
    if (pool == NULL || body == NULL || end < begin)
        return WF_EINVAL;
    if (begin == end)
        return 0;
    for_spec spec = {.grain = grain, .body = body, .ctx = ctx};
    int depth = auto_depth(pool);
    size_t pieces = (size_t)1 << depth, n = end - begin;
    size_t chunk = n / pieces / AUTO_CHUNKS;
    for_root root = {&spec, begin, end, depth, chunk ? chunk : 1};
    return wf_run(pool, for_root_fn, &root);
}

/* ---- parallel_reduce --------------------------------------------------- */

/* Accumulators up to this size live in the task frames (on the stack);
 * larger ones, a histogram say, in a block per split from the pool's
 * allocator. */
#define ACC_INLINE 256

typedef struct {
    size_t grain, size;
    const void *identity;
    wf_reduce_fn body;
    wf_combine_fn combine;
    void *ctx;
    const wf_allocator *mem; /* the pool's: large accumulators */
    /* WF_ENOMEM once a large accumulator could not be had; the pieces
     * still to start then do nothing.  Relaxed: joins and the final
     * wf_run order every store before the root reads it. */
    _Atomic int err;
} reduce_spec;

typedef struct {
    wf_task task;
    const reduce_spec *spec;
    size_t begin, end;
    int depth; /* levels left in the top of the tree (spawn_top_piece) */
    void *acc; /* small, or a block of the spec's size */
    _Alignas(max_align_t) unsigned char small[ACC_INLINE];
} reduce_frame;

static void reduce_range(reduce_spec *s, size_t begin, size_t end, int depth,
                         void *acc);

static void reduce_task(wf_task *t)
{
    reduce_frame *f = (reduce_frame *)t;
    reduce_range((reduce_spec *)f->spec, f->begin, f->end, f->depth, f->acc);
}

/* An accumulator for f: its own room, or a block (NULL: none to be had,
 * and the reduction fails with WF_ENOMEM, rather than change its tree). */
static void *acc_for(reduce_frame *f, reduce_spec *s)
{
    f->acc = s->size <= ACC_INLINE ? f->small : wf__alloc(s->mem, s->size);
    if (f->acc == NULL)
        /* Relaxed: read after wf_run returns, which orders it. */
        wf_store_relaxed(&s->err, WF_ENOMEM);
    return f->acc;
}

static void acc_done(reduce_frame *f, const reduce_spec *s)
{
    if (f->acc != f->small)
        wf__free(s->mem, f->acc, s->size);
}

/* The split points depend on (begin, end, grain) only: the combination
 * tree, hence the result, is the same whoever runs which piece. */
static void reduce_range(reduce_spec *s, size_t begin, size_t end, int depth,
                         void *acc)
{
    if (wf_load_relaxed(&s->err)) /* see reduce_spec */
        return;
    if (end - begin <= s->grain) {
        memcpy(acc, s->identity, s->size);
        s->body(begin, end, acc, s->ctx);
        return;
    }
    size_t mid = begin + (end - begin) / 2;
    reduce_frame upper;
    upper.task = (wf_task){0}; /* acc needs no zeroing: it is overwritten */
    upper.spec = s;
    upper.begin = mid;
    upper.end = end;
    upper.depth = depth - 1;
    if (acc_for(&upper, s) == NULL)
        return;
    spawn_top_piece(&upper.task, reduce_task, depth);
    reduce_range(s, begin, mid, depth - 1, acc);
    wf_join_fn(&upper.task, reduce_task);
    if (wf_load_relaxed(&s->err) == 0) /* see reduce_spec */
        s->combine(acc, upper.acc, s->ctx);
    acc_done(&upper, s);
}

typedef struct {
    reduce_spec *spec;
    size_t begin, end;
    int depth;
    void *result;
} reduce_root;

static void reduce_root_fn(void *arg)
{
    reduce_root *r = arg;
    reduce_frame top; /* only its accumulator */
    if (acc_for(&top, r->spec) == NULL)
        return;
    reduce_range(r->spec, r->begin, r->end, r->depth, top.acc);
    if (wf_load_relaxed(&r->spec->err) == 0) /* see reduce_spec */
        memcpy(r->result, top.acc, r->spec->size);
    acc_done(&top, r->spec);
}

int wf_parallel_reduce(wf_pool *pool, size_t begin, size_t end, size_t grain,
                       void *result, size_t size, const void *identity,
                       wf_reduce_fn body, wf_combine_fn combine, void *ctx)
{
    if (pool == NULL || result == NULL || identity == NULL || body == NULL ||
        combine == NULL || size == 0 || end < begin)
        return WF_EINVAL;
    if (begin == end) {
        memmove(result, identity, size);
        return 0;
    }
    /* grain 0: fixed, so the tree does not depend on stealing; as fine as
     * parallel_for's chunks (AUTO_CHUNKS per piece), since a piece cannot
     * split later when a worker is idle, and a worker preempted in a
     * coarse piece would leave the others idle for all of it. */
    if (grain == 0)
        grain = ((end - begin) >> (auto_depth(pool) + AUTO_CHUNKS_LOG2)) + 1;
    reduce_spec spec = {
        grain, size, identity, body, combine, ctx, wf__pool_alloc(pool), 0};
    reduce_root root = {&spec, begin, end, auto_depth(pool), result};
    int err = wf_run(pool, reduce_root_fn, &root);
    return err ? err : wf_load_relaxed(&spec.err); /* after wf_run */
}

/* ---- parallel_invoke --------------------------------------------------- */

typedef struct {
    const wf_invoke_fn *fns;
    void *const *ctxs;
} invoke_spec;

typedef struct {
    wf_task task;
    const invoke_spec *spec;
    size_t begin, end;
} invoke_frame;

static void invoke_range(const invoke_spec *s, size_t begin, size_t end);

static void invoke_task(wf_task *t)
{
    invoke_frame *f = (invoke_frame *)t;
    invoke_range(f->spec, f->begin, f->end);
}

static void invoke_range(const invoke_spec *s, size_t begin, size_t end)
{
    if (end - begin == 1) {
        s->fns[begin](s->ctxs ? s->ctxs[begin] : NULL);
        return;
    }
    size_t mid = begin + (end - begin) / 2;
    invoke_frame upper = {.spec = s, .begin = mid, .end = end};
    spawn_top_piece(&upper.task, invoke_task, 1); /* few, and coarse */
    invoke_range(s, begin, mid);
    wf_join_fn(&upper.task, invoke_task);
}

typedef struct {
    const invoke_spec *spec;
    size_t n;
} invoke_root;

static void invoke_root_fn(void *arg)
{
    invoke_root *r = arg;
    invoke_range(r->spec, 0, r->n);
}

int wf_parallel_invoke(wf_pool *pool, size_t n, const wf_invoke_fn *fns,
                       void *const *ctxs)
{
    if (pool == NULL || (fns == NULL && n > 0))
        return WF_EINVAL;
    for (size_t i = 0; i < n; i++)
        if (fns[i] == NULL)
            return WF_EINVAL;
    if (n == 0)
        return 0;
    invoke_spec spec = {fns, ctxs};
    invoke_root root = {&spec, n};
    return wf_run(pool, invoke_root_fn, &root);
}
