/* SPDX-License-Identifier: Apache-2.0 */
/* histogram: 256 bins of the low byte of 2^25 hashed keys, the per-thread
 * accumulation that oneTBB users write with combinable and OpenMP users
 * with an array reduction: each thread counts into a histogram of its
 * own, and the histograms are summed once at the end.  Driven from the
 * runner's main thread (bench_workload.from_main):
 *
 *   seq    one loop into one histogram
 *   weft   wf_parallel_for whose pieces count into wf_per_thread_local,
 *          then wf_per_thread_each sums the values
 *   tbb    tbb::parallel_for with a tbb::combinable<histogram>, then
 *          combine_each
 *   omp    `omp parallel for reduction(+ : bins[:256])` */
#include <string.h>

#include "kernel.h"
#include "system.h"

#define HIST_BINS 256

typedef struct {
    size_t n;
    const uint32_t *keys;
    uint64_t bins[HIST_BINS];
    uint64_t expected[HIST_BINS];
} hist_state;

typedef struct {
    uint64_t bins[HIST_BINS];
} histogram;

#ifndef WEFT_BENCH_OMP /* OpenMP's loop is its reduction's */
static inline void hist_count(const uint32_t *keys, size_t b, size_t e,
                              uint64_t *bins)
{
    for (size_t i = b; i < e; i++)
        bins[keys[i] & (HIST_BINS - 1)]++;
}
#endif

#if defined(WEFT_BENCH_SEQ)

BENCH_KERNEL(hist_kernel)
{
    hist_state *s = (hist_state *)arg;
    hist_count(s->keys, 0, s->n, s->bins);
}

#elif defined(WEFT_BENCH_OMP)

BENCH_KERNEL(hist_kernel)
{
    hist_state *s = (hist_state *)arg;
    uint64_t *bins = s->bins;
    const uint32_t *keys = s->keys;
    size_t n = s->n;
    /* omp_set_num_threads(T) was called by bench_system_run_graph. */
#pragma omp parallel for reduction(+ : bins[:HIST_BINS])
    for (size_t i = 0; i < n; i++)
        bins[keys[i] & (HIST_BINS - 1)]++;
}

#elif defined(WEFT_BENCH_TBB)

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/combinable.h>
#include <oneapi/tbb/parallel_for.h>

BENCH_KERNEL(hist_kernel)
{
    hist_state *s = (hist_state *)arg;
    tbb::combinable<histogram> local([] { return histogram{}; });
    tbb::parallel_for(tbb::blocked_range<size_t>(0, s->n),
                      [&](const tbb::blocked_range<size_t> &r) {
                          hist_count(s->keys, r.begin(), r.end(),
                                     local.local().bins);
                      });
    local.combine_each([s](const histogram &h) {
        for (int k = 0; k < HIST_BINS; k++)
            s->bins[k] += h.bins[k];
    });
}

#else /* weft */

typedef struct {
    const uint32_t *keys;
    wf_per_thread *local;
} hist_loop;

static void hist_piece(size_t b, size_t e, void *ctx)
{
    hist_loop *l = (hist_loop *)ctx;
    histogram *h = (histogram *)wf_per_thread_local(l->local);
    hist_count(l->keys, b, e, h->bins);
}

static void hist_add(void *value, void *ctx)
{
    const histogram *h = (const histogram *)value;
    for (int k = 0; k < HIST_BINS; k++)
        ((hist_state *)ctx)->bins[k] += h->bins[k];
}

BENCH_KERNEL(hist_kernel)
{
    hist_state *s = (hist_state *)arg;
    wf_pool *pool = bench_weft_pool();
    hist_loop l = {s->keys, NULL};
    if (wf_per_thread_create(&l.local, pool, sizeof(histogram), NULL) != 0 ||
        wf_parallel_for(pool, 0, s->n, 0, hist_piece, &l) != 0 ||
        wf_per_thread_each(l.local, hist_add, s) != 0)
        s->bins[0] = UINT64_MAX; /* the check reports it */
    wf_per_thread_destroy(l.local);
}

#endif

/* ---- untimed parts (compiled once) ------------------------------------ */
#ifdef BENCH_HARNESS
#include <stdio.h>
#include <stdlib.h>

static void hist_free(void *state)
{
    hist_state *s = (hist_state *)state;
    free((void *)s->keys);
    free(s);
}

static void *hist_setup(bool quick)
{
    hist_state *s = (hist_state *)calloc(1, sizeof *s);
    if (s == NULL)
        return NULL;
    s->n = quick ? (size_t)1 << 20 : (size_t)1 << 25;
    uint32_t *keys = (uint32_t *)malloc(s->n * sizeof *keys);
    if (keys == NULL) {
        free(s);
        return NULL;
    }
    for (size_t i = 0; i < s->n; i++)
        keys[i] = (uint32_t)bench_mix64(i);
    s->keys = keys;
    hist_count(s->keys, 0, s->n, s->expected);
    return s;
}

static void hist_prepare(void *state)
{
    hist_state *s = (hist_state *)state;
    memset(s->bins, 0, sizeof s->bins);
}

static int hist_check(void *state, bool seq, char *why, size_t n)
{
    (void)seq;
    const hist_state *s = (const hist_state *)state;
    for (int k = 0; k < HIST_BINS; k++)
        if (s->bins[k] != s->expected[k]) {
            snprintf(why, n, "histogram: bin %d holds %llu, expected %llu", k,
                     (unsigned long long)s->bins[k],
                     (unsigned long long)s->expected[k]);
            return -1;
        }
    return 0;
}

static const char *hist_describe(const void *state)
{
    static char buf[48];
    snprintf(buf, sizeof buf, "%zu keys, %d bins",
             ((const hist_state *)state)->n, HIST_BINS);
    return buf;
}

const bench_workload bench_histogram = {
    .name = "histogram",
    .setup = hist_setup,
    .prepare = hist_prepare,
    .run_seq = hist_kernel_seq,
    .run_par = hist_kernel_par,
    .check = hist_check,
    .describe = hist_describe,
    .teardown = hist_free,
    .from_main = true,
};
#endif
