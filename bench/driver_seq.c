/* SPDX-License-Identifier: Apache-2.0 */
/* The sequential runner: the kernels' WEFT_BENCH_SEQ build on the calling
 * thread, no runtime at all. */
#include "system.h"

const char bench_system_name[] = "seq";
const bool bench_system_is_seq = true;

int bench_system_run(void (*fn)(void *), void *state, unsigned threads,
                     char *why, unsigned long n)
{
    (void)threads;
    (void)why;
    (void)n;
    fn(state);
    return 0;
}

/* No runtime: the kernel on this thread, as always. */
int bench_system_run_graph(void (*fn)(void *), void *state, unsigned threads,
                           char *why, unsigned long n)
{
    return bench_system_run(fn, state, threads, why, n);
}

int bench_system_build(void (*build)(void *), void *state, unsigned threads,
                       char *why, unsigned long n)
{
    return bench_system_run(build, state, threads, why, n);
}
