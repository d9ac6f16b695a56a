/* SPDX-License-Identifier: Apache-2.0 */
/* per_thread: a histogram filled in parallel, a private copy per thread.
 *
 * Each piece of the loop counts into its own thread's histogram
 * (wf_per_thread_local): no atomic, no lock, no false sharing.  Once the
 * loop is done, the histograms threads used are added up.
 *
 * Build: cc -O2 per_thread.c $(pkg-config --cflags --libs weft)
 * Run:   ./per_thread    prints  histogram of 10000000 values: ... (ok) */
#include <stdint.h>
#include <stdio.h>
#include <weft.h>

#define N 10000000u
#define BINS 16

typedef struct {
    uint64_t count[BINS];
} histogram;

static unsigned bin_of(size_t i)
{
    return (unsigned)((i * 2654435761u) >> 7) % BINS;
}

static void count(size_t begin, size_t end, void *ctx)
{
    histogram *h = wf_per_thread_local(ctx); /* this thread's */
    for (size_t i = begin; i < end; i++)
        h->count[bin_of(i)]++;
}

static void add(void *value, void *ctx)
{
    const histogram *h = value;
    histogram *total = ctx;
    for (int b = 0; b < BINS; b++)
        total->count[b] += h->count[b];
}

int main(void)
{
    wf_pool *pool = wf_pool_default();
    wf_per_thread *parts;
    int err = wf_per_thread_create(&parts, pool, sizeof(histogram), NULL);
    if (err == 0)
        err = wf_parallel_for(pool, 0, N, 0, count, parts);
    if (err) {
        fprintf(stderr, "per_thread: %s\n", wf_strerror(err));
        return 1;
    }
    histogram total = {{0}};
    wf_per_thread_each(parts, add, &total);
    wf_per_thread_destroy(parts);

    histogram check = {{0}};
    for (size_t i = 0; i < N; i++)
        check.count[bin_of(i)]++;
    uint64_t sum = 0;
    int same = 1;
    for (int b = 0; b < BINS; b++) {
        sum += total.count[b];
        same &= total.count[b] == check.count[b];
    }
    printf(
        "histogram of %llu values: %d bins, every count as sequential (%s)\n",
        (unsigned long long)sum, BINS, same ? "ok" : "WRONG");
    return !same;
}
