/* SPDX-License-Identifier: Apache-2.0 */
/* reduce: a parallel sum with wf_parallel_reduce.
 *
 * A reduction needs three things: an identity (here 0), a body that adds
 * one subrange into an accumulator that starts as a copy of the identity,
 * and a combine that merges two accumulators.  weft splits the range, runs
 * the pieces on its workers and combines them left to right along a tree
 * that depends only on the range, the grain and the pool size: the result
 * is the same on every run, even for floating-point sums.
 *
 * Build: cc -O2 reduce.c $(pkg-config --cflags --libs weft)
 * Run:   ./reduce    prints  sum of squares below 1000000 = ... (ok) */
#include <stdint.h>
#include <stdio.h>
#include <weft.h>

#define N 1000000u

/* acc += i*i for every i in [begin, end).  acc holds the identity when a
 * piece starts, so the body never needs to know where it is. */
static void add_squares(size_t begin, size_t end, void *acc, void *ctx)
{
    (void)ctx;
    uint64_t sum = 0;
    for (size_t i = begin; i < end; i++)
        sum += (uint64_t)i * i;
    *(uint64_t *)acc += sum;
}

/* left = left + right.  Only associativity is required: weft keeps the
 * left-to-right order, so a non-commutative combine works too. */
static void add(void *left, const void *right, void *ctx)
{
    (void)ctx;
    *(uint64_t *)left += *(const uint64_t *)right;
}

int main(void)
{
    wf_pool *pool = wf_pool_default(); /* one worker per CPU */
    if (pool == NULL) {
        fprintf(stderr, "no default pool\n");
        return 1;
    }
    const uint64_t zero = 0;
    uint64_t total;
    /* Grain 0: a few pieces per worker.  The accumulator may be any
     * plain-data type, of any size. */
    int err = wf_parallel_reduce(pool, 0, N, 0, &total, sizeof total, &zero,
                                 add_squares, add, NULL);
    if (err) {
        fprintf(stderr, "wf_parallel_reduce: %s\n", wf_strerror(err));
        return 1;
    }
    /* 0^2 + 1^2 + ... + (N-1)^2 = (N-1) N (2N-1) / 6 */
    uint64_t n = N, expected = (n - 1) * n * (2 * n - 1) / 6;
    printf("sum of squares below %u = %llu (%s)\n", N,
           (unsigned long long)total, total == expected ? "ok" : "WRONG");
    return total == expected ? 0 : 1;
}
