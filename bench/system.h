/* SPDX-License-Identifier: Apache-2.0 */
/* What a system's runner (bench/server.c) needs from its runtime: one
 * driver per system (driver_seq.c, driver_weft.c, driver_omp.c,
 * driver_tbb.cpp). */
#ifndef WEFT_BENCH_SYSTEM_H
#define WEFT_BENCH_SYSTEM_H

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/* "seq", "weft", "weft-typed", "omp-gcc", "omp-clang", "tbb". */
extern const char bench_system_name[];
/* True for the sequential runner: it runs run_seq, and only that. */
extern const bool bench_system_is_seq;

/* Threads.  `threads` = T is what each runtime is asked for, and each
 * counts the calling thread: OpenMP's num_threads, oneTBB's
 * max_allowed_parallelism and weft's wf_pool_config.threads all start
 * T - 1 threads of their own, and the thread that waits is the T-th
 * (bench/README.md). */

/* Run fn(state) inside the runtime with `threads` threads and wait for it:
 * wf_run, an omp parallel region whose one thread runs fn, a task_arena's
 * execute.  For the fork-join kernels (and weft-inpool's graph kernels).
 * Returns 0, or -1 with a reason in why[0..n-1]. */
int bench_system_run(void (*fn)(void *), void *state, unsigned threads,
                     char *why, unsigned long n);

/* Run fn(state) directly on the calling thread (the runner's main thread),
 * as a program's main() drives a flow graph: the runtime of `threads`
 * threads made and current, but fn not inside it (no wf_run, no
 * task_arena::execute), so fn's puts and wait_for_all are the caller's
 * own and the caller is one of the T threads while it waits.  For the
 * flow-graph kernels (bench_workload.from_main).  Returns 0, or -1 with a
 * reason in why[0..n-1]. */
int bench_system_run_graph(void (*fn)(void *), void *state, unsigned threads,
                           char *why, unsigned long n);

/* Run build(state) on the calling thread (the runner's main thread),
 * untimed, with the runtime that a run with `threads` threads uses made
 * and current, so that what run_par keeps (a flow graph) is built where a
 * program builds it, before it runs it.  Where it is built matters: glibc
 * gives each thread its own malloc arena, and a 100 x 100 wavefront built
 * by a pool worker ran 30% slower than one built by the main thread, from
 * where its edge lists fell (bench/README.md).  Returns 0, or -1 with a
 * reason in why[0..n-1]. */
int bench_system_build(void (*build)(void *), void *state, unsigned threads,
                       char *why, unsigned long n);

/* weft's runner only (driver_weft.c): the pool of the build or run in
 * progress, NULL outside one. */
struct wf_pool *bench_weft_pool(void);

/* weft-typed's runner only (driver_weft.c built with WEFT_BENCH_TYPED):
 * a typed kernel's entry reports what its WF_RUN returned (kernel.h's
 * BENCH_TYPED_RUN); bench_system_run returns -1 with it if not 0. */
void bench_weft_typed_done(int err);

/* oneTBB's runner only (driver_tbb.cpp): T of the graph build or run in
 * progress, 0 outside one: a graph is built and kept per T, as weft's is
 * per pool. */
unsigned bench_tbb_threads(void);

#ifdef __cplusplus
}
#endif
#endif /* WEFT_BENCH_SYSTEM_H */
