/* SPDX-License-Identifier: Apache-2.0 */
/* sort: 10^7 random 32-bit keys (WEFT_BENCH_SORT_N sets the count, e.g.
 * 100000000 for the 10^8 of oneTBB's parallel_sort claims), sorted in
 * ascending order from the runner's main thread (bench_workload.from_main):
 *
 *   seq         the merge sort of WF_SORT_DEFINE's leaves (insertion runs,
 *               branch-free merges, the comparison inlined) on one thread,
 *               as src/algo/sort.c runs it below its grain, scratch
 *               allocated per run as the parallel one does
 *   weft        a WF_SORT_DEFINE sort (wf_parallel_sort's skeleton)
 *   tbb         tbb::parallel_sort (parallel quicksort, operator<)
 *   sort_stdpar a second row, tbb's runner only: std::sort with
 *               std::execution::par (libstdc++'s parallel STL on oneTBB)
 *
 * OpenMP has no sort: n/a. */
#include <stdint.h>
#include <stdlib.h>

#include "kernel.h"
#include "system.h"

typedef struct {
    size_t n;
    uint32_t *input, *data, *ref;
} sort_state;

#if defined(WEFT_BENCH_SEQ) ||                                                 \
    !(defined(WEFT_BENCH_OMP) || defined(WEFT_BENCH_TBB))
#include <weft.h>
WF_SORT_DEFINE(bench_sort_u32, uint32_t, a < b)
#endif

#if defined(WEFT_BENCH_SEQ)

/* src/algo/sort.c's sort_seq on the typed leaves: the result in a, or in
 * t (into_t). */
static void seq_msort(uint32_t *a, uint32_t *t, size_t n, bool into_t)
{
    if (n <= WF__SORT_RUN) {
        if (!into_t)
            memcpy(t, a, n * sizeof *a);
        wf__run_bench_sort_u32(into_t ? a : t, into_t ? t : a, n, NULL);
        return;
    }
    size_t h = n / 2;
    seq_msort(a, t, h, !into_t);
    seq_msort(a + h, t + h, n - h, !into_t);
    const uint32_t *src = into_t ? a : t;
    uint32_t *dst = into_t ? t : a;
    if (src[h] < src[h - 1])
        wf__merge_bench_sort_u32(src, h, src + h, n - h, dst, NULL);
    else
        memcpy(dst, src, n * sizeof *src);
}

BENCH_KERNEL(sort_kernel)
{
    sort_state *s = (sort_state *)arg;
    uint32_t *tmp = (uint32_t *)malloc(s->n * sizeof *tmp);
    if (tmp == NULL) {
        s->data[0] = 1, s->data[1] = 0; /* the check reports it */
        return;
    }
    seq_msort(s->data, tmp, s->n, false);
    free(tmp);
}

BENCH_KERNEL(sort_stdpar_kernel)
{
    sort_kernel_seq(arg);
}

#elif defined(WEFT_BENCH_TBB)

#include <algorithm>
#include <execution>
#include <oneapi/tbb/parallel_sort.h>

BENCH_KERNEL(sort_kernel)
{
    sort_state *s = (sort_state *)arg;
    tbb::parallel_sort(s->data, s->data + s->n);
}

BENCH_KERNEL(sort_stdpar_kernel)
{
    sort_state *s = (sort_state *)arg;
    std::sort(std::execution::par, s->data, s->data + s->n);
}

#elif !defined(WEFT_BENCH_OMP) /* weft */

BENCH_KERNEL(sort_kernel)
{
    sort_state *s = (sort_state *)arg;
    if (bench_sort_u32(bench_weft_pool(), s->data, s->n) != 0)
        s->data[0] = 1, s->data[1] = 0; /* the check reports it */
}

#endif

/* ---- untimed parts (compiled once) ------------------------------------ */
#ifdef BENCH_HARNESS
#include <stdio.h>

static int qcmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static void sort_free(void *state)
{
    sort_state *s = (sort_state *)state;
    free(s->input);
    free(s->data);
    free(s->ref);
    free(s);
}

static void *sort_setup(bool quick)
{
    sort_state *s = (sort_state *)calloc(1, sizeof *s);
    if (s == NULL)
        return NULL;
    const char *env = getenv("WEFT_BENCH_SORT_N");
    s->n = quick ? 100000 : env ? (size_t)strtoull(env, NULL, 10) : 10000000;
    if (s->n < 2)
        s->n = 2;
    s->input = (uint32_t *)malloc(s->n * sizeof(uint32_t));
    s->data = (uint32_t *)malloc(s->n * sizeof(uint32_t));
    s->ref = (uint32_t *)malloc(s->n * sizeof(uint32_t));
    if (s->input == NULL || s->data == NULL || s->ref == NULL) {
        sort_free(s);
        return NULL;
    }
    for (size_t i = 0; i < s->n; i++)
        s->input[i] = s->ref[i] = (uint32_t)bench_mix64(i);
    qsort(s->ref, s->n, sizeof *s->ref, qcmp_u32); /* independent of all */
    return s;
}

static void sort_prepare(void *state)
{
    sort_state *s = (sort_state *)state;
    memcpy(s->data, s->input, s->n * sizeof *s->data);
}

static int sort_check(void *state, bool seq, char *why, size_t n)
{
    (void)seq;
    const sort_state *s = (const sort_state *)state;
    for (size_t i = 0; i < s->n; i++)
        if (s->data[i] != s->ref[i]) {
            snprintf(why, n, "sort: element %zu differs from qsort's", i);
            return -1;
        }
    return 0;
}

static const char *sort_describe(const void *state)
{
    static char buf[48];
    snprintf(buf, sizeof buf, "n=%.0e uint32",
             (double)((const sort_state *)state)->n);
    return buf;
}

const bench_workload bench_sort = {
    .name = "sort",
    .setup = sort_setup,
    .prepare = sort_prepare,
    .run_seq = sort_kernel_seq,
    .run_par = sort_kernel_par,
    .check = sort_check,
    .describe = sort_describe,
    .teardown = sort_free,
    .from_main = true,
};

const bench_workload bench_sort_stdpar = {
    .name = "sort_stdpar",
    .setup = sort_setup,
    .prepare = sort_prepare,
    .run_seq = sort_stdpar_kernel_seq,
    .run_par = sort_stdpar_kernel_par,
    .check = sort_check,
    .describe = sort_describe,
    .teardown = sort_free,
    .from_main = true,
};
#endif
