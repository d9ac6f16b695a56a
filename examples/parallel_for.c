/* SPDX-License-Identifier: Apache-2.0 */
/* parallel_for: the two loops most programs need, on a pool of their own.
 *
 *   1. an element-wise loop: every index is independent, any split works;
 *   2. a reduction: each block of the range adds into its own slot, and the
 *      slots are added at the end.  No shared counter, no atomics, and the
 *      same answer whoever ran which block.
 *
 * Build: cc -O2 parallel_for.c $(pkg-config --cflags --libs weft)
 * Run:   ./parallel_for     prints  sum of squares below 1000000 = ... (ok) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <weft.h>

#define N 1000000u
#define BLOCK 16384u /* elements per partial sum */

typedef struct {
    uint64_t *square;  /* N entries */
    uint64_t *partial; /* one per block */
} data;

/* Loop 1.  weft calls this on disjoint subranges [begin, end) covering
 * [0, N), on several workers at once. */
static void fill(size_t begin, size_t end, void *ctx)
{
    data *d = ctx;
    for (size_t i = begin; i < end; i++)
        d->square[i] = (uint64_t)i * i;
}

/* Loop 2 runs over block numbers, not elements: the subranges weft picks
 * need not line up with blocks, but a block number always names one slot. */
static void add_blocks(size_t begin, size_t end, void *ctx)
{
    data *d = ctx;
    for (size_t b = begin; b < end; b++) {
        size_t lo = b * BLOCK, hi = lo + BLOCK < N ? lo + BLOCK : N;
        uint64_t sum = 0;
        for (size_t i = lo; i < hi; i++)
            sum += d->square[i];
        d->partial[b] = sum;
    }
}

int main(void)
{
    /* A pool of our own: 0 threads means one per CPU this process may use.
     * Set cfg.threads to pin the size. */
    wf_pool_config cfg = WF_POOL_CONFIG_INIT;
    wf_pool *pool;
    int err = wf_pool_create(&pool, &cfg);
    if (err) {
        fprintf(stderr, "wf_pool_create: %s\n", wf_strerror(err));
        return 1;
    }

    size_t blocks = (N + BLOCK - 1) / BLOCK;
    data d = {malloc(N * sizeof(uint64_t)), calloc(blocks, sizeof(uint64_t))};
    if (d.square == NULL || d.partial == NULL) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }

    /* Grain 0: weft picks the piece size (a few pieces per worker). */
    err = wf_parallel_for(pool, 0, N, 0, fill, &d);
    /* Grain 1: one task per block; a block is already 16 Ki elements. */
    if (!err)
        err = wf_parallel_for(pool, 0, blocks, 1, add_blocks, &d);
    if (err) {
        fprintf(stderr, "wf_parallel_for: %s\n", wf_strerror(err));
        return 1;
    }

    uint64_t total = 0;
    for (size_t b = 0; b < blocks; b++)
        total += d.partial[b];

    /* 0^2 + 1^2 + ... + (N-1)^2 = (N-1) N (2N-1) / 6 */
    uint64_t n = N, expected = (n - 1) * n * (2 * n - 1) / 6;
    printf("sum of squares below %u = %llu (%s)\n", N,
           (unsigned long long)total, total == expected ? "ok" : "WRONG");

    free(d.square);
    free(d.partial);
    wf_pool_destroy(pool); /* waits for the workers, then frees the pool */
    return total == expected ? 0 : 1;
}
