/* The runner's view of a workload.
 *
 * A workload file holds a kernel, compiled twice (see kernel.h), and, in
 * its weft build only, the untimed parts: input, checking, description.
 * The runner times nothing but run_seq / run_weft. */
#ifndef WEFT_BENCH_H
#define WEFT_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct bench_workload {
    const char *name;
    /* Build the input (small with quick).  NULL on failure. */
    void *(*setup)(bool quick);
    /* Before every run, untimed: reset outputs (may be NULL). */
    void (*prepare)(void *state);
    /* The kernel: run_seq on the calling thread, run_weft via wf_run. */
    void (*run_seq)(void *state);
    void (*run_weft)(void *state);
    /* Check the last run's result.  0 if right; otherwise writes what was
     * wrong into why[0..n-1] and returns -1.  `seq` says which build ran:
     * the sequential run is the reference where there is no other. */
    int (*check)(void *state, bool seq, char *why, size_t n);
    /* The input size, for the table, e.g. "n=37". */
    const char *(*describe)(const void *state);
    void (*teardown)(void *state);
} bench_workload;

extern const bench_workload bench_fib, bench_nqueens, bench_uts,
    bench_matmul, bench_sum, bench_pfor, bench_reduce;

/* splitmix64's finaliser: a cheap, well-mixed hash; uts, matmul and sum
 * draw their "random" data from it, so every run sees the same input. */
static inline uint64_t bench_mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15u;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9u;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebu;
    return x ^ (x >> 31);
}

#endif /* WEFT_BENCH_H */
