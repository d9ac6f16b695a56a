/* SPDX-License-Identifier: Apache-2.0 */
/* wf_parallel_sort and WF_SORT_DEFINE's driver: a parallel merge sort.
 *
 * The halves of a range are sorted as tasks (the upper half spawned, as
 * the loops do), then merged, and a large merge is itself split in two
 * independent merges around the median of the longer input, found in the
 * shorter one by binary search (Cormen, Leiserson, Rivest, Stein,
 * "Introduction to Algorithms", 3rd ed., 27.3, "Multithreaded merge
 * sort"; the same scheme as Cilk-5's cilksort).  Levels alternate between
 * the array and one scratch array of the same size, so every element
 * moves once per level and never back.  A range below the grain is
 * sorted by the same recursion without spawns, down to runs of
 * WF__SORT_RUN elements sorted by insertion.
 *
 * Every leaf merge takes the left input's element on equal keys, and the
 * parallel merge keeps that rule at its split (lower bound in the right
 * input for a pivot from the left, upper bound in the left for a pivot
 * from the right), so the sort is stable whatever the grain.
 *
 * The element type is known to the leaves only (wf__sort_ops): the
 * generic ones here call the user's comparison, WF_SORT_DEFINE's are
 * compiled with it inlined (weft/detail/sort.h). */
#include <stdint.h>
#include <string.h>

#include "internal/base/alloc.h"
#include "internal/pool_hooks.h"

/* Leaves per thread: enough for stealing to even out the sorts' times
 * when a thread is slowed down; each leaf and each merge piece is long
 * enough that a spawn is nothing beside it. */
#define LEAVES_PER_THREAD 16
#define MIN_GRAIN 4096

typedef struct {
    const wf__sort_ops *ops;
    size_t size;
    size_t grain;       /* ranges up to this many elements: no spawns */
    size_t merge_grain; /* merges up to this many outputs: one leaf   */
} sort_spec;

/* Spawn, and publish at once in the top levels of the tree, as the loops
 * do (src/algo/loops.c, spawn_top_piece): a task is private until a
 * thief asks, and an owner that the OS has descheduled answers nobody. */
static void spawn_piece(wf_task *t, wf_task_fn fn, int depth)
{
    wf_spawn(t, fn);
    if (depth > 0)
        wf__publish_all(wf__current()); /* inside wf_run: a worker */
}

/* ---- merging ------------------------------------------------------------ */

/* First index of r[0..n) whose element does not sort before *key
 * (upper: first whose element sorts after *key). */
static size_t bound(const sort_spec *s, const char *r, size_t n,
                    const void *key, int upper)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const char *e = r + mid * s->size;
        int before = upper ? !s->ops->less(key, e, s->ops)
                           : s->ops->less(e, key, s->ops);
        if (before)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

typedef struct {
    wf_task task;
    const sort_spec *spec;
    const char *l, *r;
    size_t nl, nr;
    char *out;
    int depth;
} merge_frame;

static void merge_range(const sort_spec *s, const char *l, size_t nl,
                        const char *r, size_t nr, char *out, int depth);

static void merge_task(wf_task *t)
{
    merge_frame *f = (merge_frame *)t;
    merge_range(f->spec, f->l, f->nl, f->r, f->nr, f->out, f->depth);
}

/* out = l merged with r.  Above the grain: split both inputs where the
 * pivot, the middle of the longer one, falls; each side then merges on
 * its own (stability: see the top of the file). */
static void merge_range(const sort_spec *s, const char *l, size_t nl,
                        const char *r, size_t nr, char *out, int depth)
{
    if (nl + nr <= s->merge_grain || nl + nr < 4) {
        s->ops->merge(l, nl, r, nr, out, s->ops);
        return;
    }
    size_t i, j;
    if (nl >= nr) {
        i = nl / 2;
        j = bound(s, r, nr, l + i * s->size, 0);
    } else {
        j = nr / 2;
        i = bound(s, l, nl, r + j * s->size, 1);
    }
    merge_frame upper = {.spec = s,
                         .l = l + i * s->size,
                         .r = r + j * s->size,
                         .nl = nl - i,
                         .nr = nr - j,
                         .out = out + (i + j) * s->size,
                         .depth = depth - 1};
    spawn_piece(&upper.task, merge_task, depth);
    merge_range(s, l, i, r, j, out, depth - 1);
    wf_join_fn(&upper.task, merge_task);
}

/* ---- sorting ------------------------------------------------------------ */

/* Sort a[0..n), leaving the result in a, or in t (into_t), t being
 * scratch of the same length.  The halves go to the other array of the
 * two, so the merge writes where the result belongs. */
static void sort_seq(const sort_spec *s, char *a, char *t, size_t n,
                     bool into_t)
{
    const wf__sort_ops *ops = s->ops;
    if (n <= WF__SORT_RUN) {
        if (!into_t) /* the run leaf sorts from one array to the other */
            memcpy(t, a, n * s->size);
        ops->run(into_t ? a : t, into_t ? t : a, n, ops);
        return;
    }
    size_t h = n / 2, off = h * s->size;
    sort_seq(s, a, t, h, !into_t);
    sort_seq(s, a + off, t + off, n - h, !into_t);
    const char *src = into_t ? a : t;
    char *dst = into_t ? t : a;
    if (ops->less(src + off, src + off - s->size, ops))
        ops->merge(src, h, src + off, n - h, dst, ops);
    else /* already in order (sorted input): a copy does */
        memcpy(dst, src, n * s->size);
}

typedef struct {
    wf_task task;
    const sort_spec *spec;
    char *a, *t;
    size_t n;
    bool into_t;
    int depth;
} sort_frame;

static void sort_range(const sort_spec *s, char *a, char *t, size_t n,
                       bool into_t, int depth);

static void sort_task(wf_task *t)
{
    sort_frame *f = (sort_frame *)t;
    sort_range(f->spec, f->a, f->t, f->n, f->into_t, f->depth);
}

static void sort_range(const sort_spec *s, char *a, char *t, size_t n,
                       bool into_t, int depth)
{
    if (n <= s->grain) {
        sort_seq(s, a, t, n, into_t);
        return;
    }
    size_t h = n / 2, off = h * s->size;
    sort_frame upper = {.spec = s,
                        .a = a + off,
                        .t = t + off,
                        .n = n - h,
                        .into_t = !into_t,
                        .depth = depth - 1};
    spawn_piece(&upper.task, sort_task, depth);
    sort_range(s, a, t, h, !into_t, depth - 1);
    wf_join_fn(&upper.task, sort_task);
    const char *src = into_t ? a : t;
    char *dst = into_t ? t : a;
    merge_range(s, src, h, src + off, n - h, dst, depth);
}

typedef struct {
    sort_spec spec;
    char *base, *tmp;
    size_t n;
    int depth;
} sort_root;

static void sort_root_fn(void *arg)
{
    sort_root *r = arg;
    sort_range(&r->spec, r->base, r->tmp, r->n, false, r->depth);
}

int wf__sort_ops_run(wf_pool *pool, void *base, size_t n,
                     const wf__sort_ops *ops)
{
    if (pool == NULL || ops == NULL || ops->size == 0 || (base == NULL && n))
        return WF_EINVAL;
    if (n < 2)
        return 0;
    if (n > SIZE_MAX / ops->size)
        return WF_ENOMEM;
    const wf_allocator *mem = wf__pool_alloc(pool);
    char *tmp = wf__alloc(mem, n * ops->size);
    if (tmp == NULL)
        return WF_ENOMEM; /* before anything was moved */
    /* One thread: one leaf, no spawn at all.  Else LEAVES_PER_THREAD per
     * thread, the top levels published (spawn_piece). */
    unsigned threads = wf_pool_threads(pool);
    size_t leaves = threads > 1 ? (size_t)LEAVES_PER_THREAD * threads : 1;
    size_t grain = n / leaves + 1;
    int depth = 0;
    while (((size_t)1 << depth) < (size_t)threads * 8)
        depth++;
    sort_root root = {.spec = {ops, ops->size, grain, grain},
                      .base = base,
                      .tmp = tmp,
                      .n = n,
                      .depth = threads > 1 ? depth : 0};
    if (threads > 1 && root.spec.grain < MIN_GRAIN)
        root.spec.grain = root.spec.merge_grain = MIN_GRAIN;
    int err = wf_run(pool, sort_root_fn, &root);
    wf__free(mem, tmp, n * ops->size);
    return err;
}

/* ---- the generic leaves: the user's comparison, elements by memcpy ------ */

static int cmp_less(const void *a, const void *b, const wf__sort_ops *ops)
{
    return ops->cmp(a, b, ops->ctx) < 0;
}

/* Insertion from src into dst: dst[0..i) is sorted; find where src[i]
 * goes (after its equals: stable), open a hole, copy it in. */
static void cmp_run(const void *src, void *dst, size_t n,
                    const wf__sort_ops *ops)
{
    const char *s = src;
    char *d = dst;
    size_t z = ops->size;
    for (size_t i = 0; i < n; i++) {
        size_t j = i;
        while (j > 0 && ops->cmp(s + i * z, d + (j - 1) * z, ops->ctx) < 0)
            j--;
        memmove(d + (j + 1) * z, d + j * z, (i - j) * z);
        memcpy(d + j * z, s + i * z, z);
    }
}

static void cmp_merge(const void *a, size_t na, const void *b, size_t nb,
                      void *out, const wf__sort_ops *ops)
{
    const char *l = a, *r = b;
    const char *le = l + na * ops->size, *re = r + nb * ops->size;
    char *o = out;
    size_t z = ops->size;
    while (l < le && r < re) {
        bool right = ops->cmp(r, l, ops->ctx) < 0; /* equal: left first */
        memcpy(o, right ? r : l, z);
        o += z;
        if (right)
            r += z;
        else
            l += z;
    }
    memcpy(o, l, (size_t)(le - l));
    memcpy(o + (le - l), r, (size_t)(re - r));
}

int wf_parallel_sort(wf_pool *pool, void *base, size_t n, size_t size,
                     wf_cmp_fn cmp, void *ctx, unsigned flags)
{
    if (cmp == NULL || size == 0 || (flags & ~WF_SORT_STABLE))
        return WF_EINVAL;
    /* The merge sort is stable: both flags take the same path. */
    wf__sort_ops ops = {size, cmp_run, cmp_merge, cmp_less, cmp, ctx};
    return wf__sort_ops_run(pool, base, n, &ops);
}
