/* SPDX-License-Identifier: Apache-2.0 */
/* A workload as a system's runner sees it.
 *
 * A workload file holds a kernel, compiled once per system (see kernel.h),
 * and, in its sequential build only (BENCH_HARNESS), the untimed parts:
 * input, checking, description.  Every system's runner links the
 * sequential build and one parallel build; it times nothing but the
 * kernel.  Flow-graph workloads (graph_harness.c) have no sequential
 * kernel and a parallel one for weft and oneTBB only. */
#ifndef WEFT_BENCH_H
#define WEFT_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bench_workload {
    const char *name;
    /* Build the input (small with quick).  NULL on failure. */
    void *(*setup)(bool quick);
    /* Before every run, untimed: reset outputs (may be NULL). */
    void (*prepare)(void *state);
    /* The kernel: run_seq on the calling thread; run_par inside the
     * system's runtime (bench_system_run: wf_run, an omp parallel region,
     * a task_arena), or with from_main on the runner's main thread
     * (bench_system_run_graph).  Either is NULL where the runner has no
     * such build. */
    void (*run_seq)(void *state);
    void (*run_par)(void *state);
    /* NULL, or what run_par builds once and keeps (a flow graph), built
     * before the first run by bench_system_build on the runner's main
     * thread, untimed; run_par builds it on a miss. */
    void (*build)(void *state);
    /* Check the last run's result.  0 if right; otherwise writes what was
     * wrong into why[0..n-1] and returns -1.  `seq` says which build ran. */
    int (*check)(void *state, bool seq, char *why, size_t n);
    /* The input size, for the table, e.g. "n=37". */
    const char *(*describe)(const void *state);
    void (*teardown)(void *state);
    /* Flow graphs: messages per run (0: a fork-join workload, reported in
     * seconds). */
    double (*messages)(const void *state);
    /* run_par is a user's main(): it puts and waits on its own thread, so
     * runners call it with bench_system_run_graph (the flow graphs). */
    bool from_main;
    /* NULL, or a latency workload: after a checked run, the mean, p50 and
     * p99 of its round trips in microseconds into us[0..2]. */
    void (*round_trips)(void *state, double us[3]);
} bench_workload;

extern const bench_workload bench_fib, bench_nqueens, bench_queens, bench_uts,
    bench_matmul, bench_sum, bench_pfor, bench_reduce, bench_cilksort;
extern const bench_workload bench_pipeline, bench_blur, bench_histogram;
extern const bench_workload bench_sort, bench_sort_stdpar, bench_scan;
extern const bench_workload bench_g_chain, bench_g_broadcast,
    bench_g_join_queueing, bench_g_join_reserving, bench_g_join_key,
    bench_g_wavefront, bench_g_latency;
extern const bench_workload bench_tg_wavefront, bench_tg_chain, bench_tg_tree,
    bench_tg_level, bench_tg_rerun;

/* splitmix64's finaliser: a cheap, well-mixed hash; uts, matmul and sum
 * draw their "random" data from it, so every run sees the same input. */
static inline uint64_t bench_mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15u;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9u;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebu;
    return x ^ (x >> 31);
}

#ifdef __cplusplus
}
#endif
#endif /* WEFT_BENCH_H */
