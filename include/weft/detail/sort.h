/* SPDX-License-Identifier: Apache-2.0 */
/* WF_SORT_DEFINE's machinery: the typed leaves it generates and the
 * parallel merge sort (src/algo/sort.c) that calls them.
 *
 * The parallel skeleton is the same for every element type and calls its
 * leaves through the function pointers of a wf__sort_ops; a leaf works
 * on a run or a whole merge, so the indirect call is paid once per run
 * of elements, while the comparison inside the leaf is inlined (klib's
 * ksort generates the whole sort per type; only the leaves need to be).
 *
 * Not API: the names here may change in any release.  Included by
 * weft/pool.h, at its end; never include it directly. */
#ifndef WEFT_DETAIL_SORT_H
#define WEFT_DETAIL_SORT_H

#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct wf__sort_ops wf__sort_ops;

/* What the skeleton needs of an element type.  Every leaf is stable. */
struct wf__sort_ops {
    size_t size; /* bytes per element */
    /* dst[0..n) = src[0..n) sorted; n <= WF__SORT_RUN; src != dst. */
    void (*run)(const void *src, void *dst, size_t n, const wf__sort_ops *ops);
    /* out[0..na+nb) = a[0..na) merged with b[0..nb); on equal keys a's
     * elements first.  out overlaps neither. */
    void (*merge)(const void *a, size_t na, const void *b, size_t nb, void *out,
                  const wf__sort_ops *ops);
    /* Does *a sort strictly before *b? */
    int (*less)(const void *a, const void *b, const wf__sort_ops *ops);
    wf_cmp_fn cmp; /* wf_parallel_sort's leaves only */
    void *ctx;
};

/* Elements per leaf run, sorted by insertion, before the merges. */
#define WF__SORT_RUN 16

/* Sort base[0..n) with ops (stable).  wf_parallel_sort's returns. */
WF_API int wf__sort_ops_run(wf_pool *pool, void *base, size_t n,
                            const wf__sort_ops *ops);

/* The leaves of a sort of `type`.  The merge's loop picks each output
 * element with a conditional move, not a branch: on random keys a branch
 * is mispredicted every other element.  It merges from both ends at once
 * (the smallest remaining to the front, the largest to the back, ties
 * going to a's side in front and b's at the back, so both follow the
 * stable order): two independent chains of loads and compares, where
 * one chain alone waits on each load (the "parity merge" of scandum's
 * quadsort, github.com/scandum/quadsort).  min(na, nb) steps from each
 * end can read neither input past its end: a chain that took all of one
 * input would have taken more steps than it has. */
#define WF__SORT_DEFINE(name, type, less_expr)                                 \
    static inline int wf__lt_##name(type a, type b)                            \
    {                                                                          \
        return (less_expr);                                                    \
    }                                                                          \
    static void wf__run_##name(const void *src, void *dst, size_t n,           \
                               const wf__sort_ops *ops)                        \
    {                                                                          \
        const type *s = (const type *)src;                                     \
        type *d = (type *)dst;                                                 \
        (void)ops;                                                             \
        for (size_t i = 0; i < n; i++) {                                       \
            type x = s[i];                                                     \
            size_t j = i;                                                      \
            for (; j > 0 && wf__lt_##name(x, d[j - 1]); j--)                   \
                d[j] = d[j - 1];                                               \
            d[j] = x;                                                          \
        }                                                                      \
    }                                                                          \
    static void wf__merge_##name(const void *a, size_t na, const void *b,      \
                                 size_t nb, void *out,                         \
                                 const wf__sort_ops *ops)                      \
    {                                                                          \
        const type *l = (const type *)a, *le = l + na;                         \
        const type *r = (const type *)b, *re = r + nb;                         \
        type *o = (type *)out, *oe = o + na + nb;                              \
        (void)ops;                                                             \
        for (size_t k = na < nb ? na : nb; k > 0; k--) {                       \
            type x = *l, y = *r, u = le[-1], v = re[-1];                       \
            int f = wf__lt_##name(y, x), g = wf__lt_##name(v, u);              \
            *o++ = f ? y : x;                                                  \
            *--oe = g ? u : v;                                                 \
            r += f, l += !f, le -= g, re -= !g;                                \
        }                                                                      \
        while (l < le && r < re) {                                             \
            int f = wf__lt_##name(*r, *l);                                     \
            *o++ = f ? *r : *l;                                                \
            r += f, l += !f;                                                   \
        }                                                                      \
        memcpy(o, l, (size_t)(le - l) * sizeof(type));                         \
        memcpy(o + (le - l), r, (size_t)(re - r) * sizeof(type));              \
    }                                                                          \
    static int wf__less_##name(const void *a, const void *b,                   \
                               const wf__sort_ops *ops)                        \
    {                                                                          \
        (void)ops;                                                             \
        return wf__lt_##name(*(const type *)a, *(const type *)b);              \
    }                                                                          \
    static __attribute__((unused)) int name(wf_pool *pool, type *base,         \
                                            size_t n)                          \
    {                                                                          \
        static const wf__sort_ops ops = {                                      \
            sizeof(type),    wf__run_##name, wf__merge_##name,                 \
            wf__less_##name, NULL,           NULL};                            \
        return wf__sort_ops_run(pool, base, n, &ops);                          \
    }

#ifdef __cplusplus
}
#endif
#endif /* WEFT_DETAIL_SORT_H */
