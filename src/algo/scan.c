/* SPDX-License-Identifier: Apache-2.0 */
/* wf_parallel_scan: a prefix scan whose second pass runs only where a
 * thread took part.
 *
 * A scan has a sequential dependency from each element to the next; the
 * usual way round it (Blelloch, "Prefix sums and their applications",
 * 1990; OpenMP 5.0's `scan` directive) reduces blocks first, scans the
 * few block sums, then scans every block again from its prefix, reading
 * the input twice.  oneTBB's parallel_scan ("Parallel Scan" in its
 * developer guide) reads it twice only where a range was stolen: a range
 * whose prefix is known when it starts runs its final pass at once.
 * Here the range is cut into fixed blocks, run by a split tree, lowest
 * first on each thread; a frontier names the lowest block whose prefix
 * is known and not yet used.  The block at the frontier runs its final
 * pass and moves the frontier on, so blocks that one thread runs in
 * order (all of them, on one thread or when no thief comes) are read
 * once.  A block that starts before its prefix is known only folds its
 * sum (the first pass); when the frontier reaches a block already
 * folded, its sum moves the frontier on, so the blocks after it can
 * still run their final pass at once.  When every block has run, the
 * remaining sums are combined left to right, and every folded block runs
 * its final pass, in parallel. */
#include <stdalign.h>
#include <stdint.h>
#include <string.h>

#include "internal/algo/scan_front.h"
#include "internal/base/alloc.h"
#include "internal/pool_hooks.h"

#define BLOCKS_PER_THREAD 32
/* Accumulators up to this many bytes live on the caller's stack. */
#define STACK_ACCS 4096

typedef struct {
    size_t begin, end;
    size_t blk, nblocks; /* blocks blk long, the last shorter */
    size_t size;
    const void *identity;
    wf_scan_fn body;
    wf_combine_fn combine;
    void *ctx;
    /* pre[k]: the combination of everything before block k, valid for
     * k <= the frontier; pre[nblocks] ends as the total.  sums[k]: block
     * k's own sum, folded by a block that started past the frontier. */
    char *pre, *sums;
    wf__scan_front front; /* its rules: internal/algo/scan_front.h */
    bool fixup;           /* second pass: folded blocks run final from pre[k] */
    int depth; /* levels of the block tree whose tasks are published */
} scan_spec;

static char *acc_at(char *base, const scan_spec *s, size_t k)
{
    return base + k * s->size;
}

/* pre[k + 1] = pre[k] (+) sums[k]: the frontier moves past block k. */
static void step(size_t k, void *arg)
{
    scan_spec *s = arg;
    char *next = acc_at(s->pre, s, k + 1);
    memcpy(next, acc_at(s->pre, s, k), s->size);
    s->combine(next, acc_at(s->sums, s, k), s->ctx);
}

static void block_run(scan_spec *s, size_t k)
{
    size_t b = s->begin + k * s->blk;
    size_t e = k + 1 == s->nblocks ? s->end : b + s->blk;
    char *acc = acc_at(s->pre, s, k + 1), *sum = acc_at(s->sums, s, k);
    if (s->fixup) {
        if (wf__scan_front_was_folded(&s->front, k)) {
            memcpy(sum, acc_at(s->pre, s, k), s->size);
            s->body(b, e, sum, true, s->ctx);
        }
    } else if (wf__scan_front_at(&s->front, k)) {
        memcpy(acc, acc_at(s->pre, s, k), s->size);
        s->body(b, e, acc, true, s->ctx);
        wf__scan_front_pass(&s->front, k);
        wf__scan_front_advance(&s->front, step, s);
    } else {
        memcpy(sum, s->identity, s->size);
        s->body(b, e, sum, false, s->ctx);
        wf__scan_front_folded(&s->front, k);
        wf__scan_front_advance(&s->front, step, s);
    }
}

typedef struct {
    wf_task task;
    scan_spec *spec;
    size_t lo, hi;
    int depth;
} blocks_frame;

static void blocks_range(scan_spec *s, size_t lo, size_t hi, int depth);

static void blocks_task(wf_task *t)
{
    blocks_frame *f = (blocks_frame *)t;
    blocks_range(f->spec, f->lo, f->hi, f->depth);
}

/* Blocks [lo, hi): halve, the upper half a task, the lower half first
 * here, so a thread meets its blocks in order.  The top levels' tasks
 * are published at once (as src/algo/loops.c's spawn_top_piece does,
 * for the same reason: a task is private until a thief asks). */
static void blocks_range(scan_spec *s, size_t lo, size_t hi, int depth)
{
    if (hi - lo == 1) {
        block_run(s, lo);
        return;
    }
    size_t mid = lo + (hi - lo) / 2;
    blocks_frame upper = {.spec = s, .lo = mid, .hi = hi, .depth = depth - 1};
    wf_spawn(&upper.task, blocks_task);
    if (depth > 0)
        wf__publish_all(wf__current()); /* inside wf_run: a worker */
    blocks_range(s, lo, mid, depth - 1);
    wf_join_fn(&upper.task, blocks_task);
}

/* Both passes, inside wf_run.  After the first, the joins order every
 * block's writes before the reads here. */
static void scan_root_fn(void *arg)
{
    scan_spec *s = arg;
    blocks_range(s, 0, s->nblocks, s->depth);
    size_t f = wf__scan_front_end(&s->front), folded = 0;
    for (size_t k = f; k < s->nblocks; k++) /* all folded */
        step(k, s);
    for (size_t k = 0; k < s->nblocks; k++)
        folded += wf__scan_front_was_folded(&s->front, k);
    if (folded == 0)
        return;
    s->fixup = true; /* read by the tasks spawned below, after this */
    blocks_range(s, 0, s->nblocks, s->depth);
}

/* Cut [begin, end) into blocks: one on one thread, else about
 * BLOCKS_PER_THREAD per thread, or grain long. */
static void plan(scan_spec *s, size_t grain, unsigned threads)
{
    size_t n = s->end - s->begin;
    size_t blk = grain;
    if (blk == 0) {
        size_t want = threads > 1 ? (size_t)BLOCKS_PER_THREAD * threads : 1;
        blk = (n + want - 1) / want;
    }
    s->blk = blk < n ? blk : n;
    s->nblocks = (n + s->blk - 1) / s->blk;
    s->depth = 0;
    while (((size_t)1 << s->depth) < (size_t)threads * 8)
        s->depth++;
}

int wf_parallel_scan(wf_pool *pool, size_t begin, size_t end, size_t grain,
                     void *result, size_t size, const void *identity,
                     wf_scan_fn body, wf_combine_fn combine, void *ctx)
{
    if (pool == NULL || identity == NULL || body == NULL || combine == NULL ||
        size == 0 || end < begin)
        return WF_EINVAL;
    if (begin == end) {
        if (result)
            memmove(result, identity, size);
        return 0;
    }
    scan_spec s = {.begin = begin,
                   .end = end,
                   .size = size,
                   .identity = identity,
                   .body = body,
                   .combine = combine,
                   .ctx = ctx};
    plan(&s, grain, wf_pool_threads(pool));
    /* pre: nblocks + 1 accumulators; sums: nblocks; then the states. */
    if (s.nblocks > (SIZE_MAX / (size + 1) - 1) / 2)
        return WF_ENOMEM;
    size_t accs = (2 * s.nblocks + 1) * size, bytes = accs + s.nblocks;
    alignas(max_align_t) char stack[STACK_ACCS];
    const wf_allocator *mem = wf__pool_alloc(pool);
    s.pre = bytes <= sizeof stack ? stack : wf__alloc(mem, bytes);
    if (s.pre == NULL)
        return WF_ENOMEM;
    s.sums = s.pre + (s.nblocks + 1) * size;
    wf__scan_front_init(&s.front, (_Atomic unsigned char *)(s.pre + accs),
                        s.nblocks);
    memcpy(s.pre, identity, size);
    int err = wf_run(pool, scan_root_fn, &s);
    if (err == 0 && result)
        memcpy(result, acc_at(s.pre, &s, s.nblocks), size);
    if (s.pre != stack)
        wf__free(mem, s.pre, bytes);
    return err;
}

/* ---- arrays --------------------------------------------------------------- */

#define ARRAY_ACC_MAX 256

typedef struct {
    const char *in;
    char *out;
    size_t size;
    wf_combine_fn combine;
    void *ctx;
    bool exclusive;
} array_spec;

static void array_body(size_t begin, size_t end, void *acc, bool final,
                       void *ctx)
{
    const array_spec *a = ctx;
    size_t z = a->size;
    alignas(max_align_t) char x[ARRAY_ACC_MAX];
    for (size_t i = begin; i < end; i++) {
        const char *in = a->in + i * z;
        char *out = a->out + i * z;
        if (!final) {
            a->combine(acc, in, a->ctx);
        } else if (a->exclusive) { /* in may be out: read it first */
            memcpy(x, in, z);
            memcpy(out, acc, z);
            a->combine(acc, x, a->ctx);
        } else {
            a->combine(acc, in, a->ctx);
            memcpy(out, acc, z);
        }
    }
}

int wf_parallel_scan_array(wf_pool *pool, const void *in, void *out, size_t n,
                           size_t size, const void *identity,
                           wf_combine_fn combine, void *ctx, unsigned flags)
{
    if ((n > 0 && (in == NULL || out == NULL)) || size == 0 ||
        size > ARRAY_ACC_MAX || (flags & ~WF_SCAN_EXCLUSIVE))
        return WF_EINVAL;
    array_spec a = {in, out, size, combine, ctx, flags & WF_SCAN_EXCLUSIVE};
    return wf_parallel_scan(pool, 0, n, 0, NULL, size, identity, array_body,
                            combine, &a);
}
