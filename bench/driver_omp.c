/* SPDX-License-Identifier: Apache-2.0 */
/* The OpenMP runner, compiled by gcc (libgomp) and by clang (libomp): a
 * parallel region of `threads` threads (the caller one of them) in which
 * one thread runs the kernel and the others take its tasks, the usual way
 * to run OpenMP tasks.  Also the loop helpers of kernel.h for this build:
 * taskloop. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel.h"
#include "system.h"

#ifdef __clang__
const char bench_system_name[] = "omp-clang";
#else
const char bench_system_name[] = "omp-gcc";
#endif
const bool bench_system_is_seq = false;

int bench_system_run(void (*fn)(void *), void *state, unsigned threads,
                     char *why, unsigned long n)
{
    (void)why;
    (void)n;
    omp_set_dynamic(0); /* exactly `threads` threads, this one among them */
#pragma omp parallel num_threads(threads)
#pragma omp single
    fn(state);
    return 0;
}

/* OpenMP has no flow graph (its runner answers "na" to them); for the
 * contract's sake, fn on this thread with `threads` for the regions it
 * opens. */
int bench_system_run_graph(void (*fn)(void *), void *state, unsigned threads,
                           char *why, unsigned long n)
{
    (void)why;
    (void)n;
    omp_set_dynamic(0);
    omp_set_num_threads((int)threads);
    fn(state);
    return 0;
}

/* No OpenMP workload keeps anything between runs: build runs as is. */
int bench_system_build(void (*build)(void *), void *state, unsigned threads,
                       char *why, unsigned long n)
{
    (void)threads;
    (void)why;
    (void)n;
    build(state);
    return 0;
}

/* Pieces of `grain` (grain 0: about 8 per thread, as weft's and TBB's
 * automatic grains aim at), one task each, by taskloop. */
static size_t omp_piece(size_t len, size_t grain)
{
    if (grain == 0) {
        size_t pieces = 8 * (size_t)omp_get_num_threads();
        grain = (len + pieces - 1) / pieces;
    }
    return grain ? grain : 1;
}

static size_t piece_end(size_t begin, size_t end, size_t g, size_t p)
{
    return end - begin - p * g > g ? begin + (p + 1) * g : end;
}

void bench_parallel_for(size_t begin, size_t end, size_t grain,
                        bench_range_fn body, void *ctx)
{
    size_t g = omp_piece(end - begin, grain);
    size_t pieces = (end - begin + g - 1) / g;
    /* Every shared value named in firstprivate: clang 14 crashes on a
     * taskloop body that captures them implicitly. */
#pragma omp taskloop grainsize(1) firstprivate(begin, end, g, body, ctx)
    for (size_t p = 0; p < pieces; p++)
        body(begin + p * g, piece_end(begin, end, g, p), ctx);
}

/* A partial per piece, combined left to right afterwards: the same
 * deterministic result as weft's and the sequential reduction. */
void bench_parallel_reduce(size_t begin, size_t end, size_t grain, void *result,
                           size_t size, const void *identity,
                           bench_reduce_fn body, bench_combine_fn combine,
                           void *ctx)
{
    size_t g = omp_piece(end - begin, grain);
    size_t pieces = (end - begin + g - 1) / g;
    unsigned char *part = (unsigned char *)malloc(pieces * size);
    if (part == NULL) {
        fprintf(stderr, "bench_parallel_reduce: out of memory\n");
        abort();
    }
#pragma omp taskloop grainsize(1)                                              \
    firstprivate(begin, end, g, body, ctx, part, size, identity)
    for (size_t p = 0; p < pieces; p++) {
        memcpy(part + p * size, identity, size);
        body(begin + p * g, piece_end(begin, end, g, p), part + p * size, ctx);
    }
    memcpy(result, identity, size);
    for (size_t p = 0; p < pieces; p++)
        combine(result, part + p * size, ctx);
    free(part);
}
