/* SPDX-License-Identifier: Apache-2.0 */
#define _POSIX_C_SOURCE 200809L
/* grain_study: the adaptive grain (0) of wf_parallel_for against every
 * fixed grain, on a loop of 10^8 cheap iterations and on a loop of 100
 * heavy ones (~1 ms each, of unequal cost), median of interleaved runs.
 * Prints, per loop, each grain's time and auto / best-fixed. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <weft.h>

#include "bench.h"

#define MAX_GRAINS 16

typedef struct {
    const char *name;
    size_t n;
    void (*body)(size_t, size_t, void *);
    size_t grains[MAX_GRAINS]; /* 0 first: the adaptive grain */
    int ngrains;
} loop_case;

static _Atomic uint64_t sink;

static void cheap_body(size_t begin, size_t end, void *ctx)
{
    (void)ctx;
    uint64_t acc = 0;
    for (size_t i = begin; i < end; i++)
        acc += bench_mix64(i) >> 8;
    atomic_fetch_add_explicit(&sink, acc, memory_order_relaxed);
}

/* Iteration i costs between 0.5 and 1.5 units of ~1 ms: unequal on
 * purpose, as real heavy loops are. */
static void heavy_body(size_t begin, size_t end, void *ctx)
{
    (void)ctx;
    uint64_t acc = 0;
    for (size_t i = begin; i < end; i++) {
        uint64_t steps = 200000 + bench_mix64(i) % 400000;
        uint64_t h = i;
        for (uint64_t k = 0; k < steps; k++)
            h = bench_mix64(h);
        acc += h;
    }
    atomic_fetch_add_explicit(&sink, acc, memory_order_relaxed);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void study(wf_pool *pool, const loop_case *c, int reps)
{
    double t[MAX_GRAINS][32];
    for (int r = 0; r < reps; r++) /* interleaved: noise hits all alike */
        for (int g = 0; g < c->ngrains; g++) {
            double t0 = now();
            if (wf_parallel_for(pool, 0, c->n, c->grains[g], c->body, NULL)) {
                fprintf(stderr, "grain_study: wf_parallel_for failed\n");
                exit(1);
            }
            t[g][r] = now() - t0;
        }
    double med[MAX_GRAINS], best = 1e30;
    size_t best_grain = 0;
    printf("%s (n=%zu, %u workers):\n", c->name, c->n, wf_pool_threads(pool));
    for (int g = 0; g < c->ngrains; g++) {
        qsort(t[g], (size_t)reps, sizeof(double), cmp_double);
        med[g] = t[g][reps / 2];
        if (g > 0 && med[g] < best) {
            best = med[g];
            best_grain = c->grains[g];
        }
        if (g == 0)
            printf("  grain auto   %.4f s\n", med[g]);
        else
            printf("  grain %-7zu %.4f s\n", c->grains[g], med[g]);
    }
    printf("  auto / best fixed (grain %zu) = %.2f\n\n", best_grain,
           med[0] / best);
}

int main(int argc, char **argv)
{
    int reps = argc > 1 ? atoi(argv[1]) : 5;
    unsigned threads = argc > 2 ? (unsigned)atoi(argv[2]) : 2;
    if (reps < 1 || reps > 32)
        reps = 5;
    wf_pool *pool;
    wf_pool_config cfg = WF_POOL_CONFIG_INIT;
    cfg.threads = threads;
    if (wf_pool_create(&pool, &cfg) != 0)
        return 1;
    loop_case cheap = {"cheap loop",
                       100000000,
                       cheap_body,
                       {0, 1000, 10000, 100000, 1000000, 6250000, 25000000},
                       7};
    loop_case heavy = {
        "heavy loop", 100, heavy_body, {0, 1, 2, 4, 8, 16, 50}, 7};
    study(pool, &cheap, reps);
    study(pool, &heavy, reps);
    wf_pool_destroy(pool);
    return 0;
}
