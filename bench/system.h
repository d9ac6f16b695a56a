/* What a system's runner (bench/server.c) needs from its runtime: one
 * driver per system (driver_seq.c, driver_weft.c, driver_omp.c,
 * driver_tbb.cpp). */
#ifndef WEFT_BENCH_SYSTEM_H
#define WEFT_BENCH_SYSTEM_H

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/* "seq", "weft", "omp-gcc", "omp-clang", "tbb". */
extern const char bench_system_name[];
/* True for the sequential runner: it runs run_seq, and only that. */
extern const bool bench_system_is_seq;

/* Run fn(state) inside the runtime with `workers` threads (the caller
 * counted as one where the runtime does so) and wait for it.  Returns 0,
 * or -1 with a reason in why[0..n-1]. */
int bench_system_run(void (*fn)(void *), void *state, unsigned workers,
                     char *why, unsigned long n);

/* Run build(state) on the calling thread (the runner's main thread),
 * untimed, with the runtime that a run with `workers` threads uses made
 * and current, so that what run_par keeps (a flow graph) is built where a
 * program builds it, before it runs it.  Where it is built matters: glibc
 * gives each thread its own malloc arena, and a 100 x 100 wavefront built
 * by a pool worker ran 30% slower than one built by the main thread, from
 * where its edge lists fell (bench/README.md).  Returns 0, or -1 with a reason in
 * why[0..n-1]. */
int bench_system_build(void (*build)(void *), void *state, unsigned workers,
                       char *why, unsigned long n);

/* weft's runner only (driver_weft.c): the pool that the build in progress
 * builds for, NULL outside bench_system_build. */
struct wf_pool *bench_weft_build_pool(void);

#ifdef __cplusplus
}
#endif
#endif /* WEFT_BENCH_SYSTEM_H */
