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

#ifdef __cplusplus
}
#endif
#endif /* WEFT_BENCH_SYSTEM_H */
