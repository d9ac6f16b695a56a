/* The sequential runner: the kernels' WEFT_BENCH_SEQ build on the calling
 * thread, no runtime at all. */
#include "system.h"

const char bench_system_name[] = "seq";
const bool bench_system_is_seq = true;

int bench_system_run(void (*fn)(void *), void *state, unsigned workers,
                     char *why, unsigned long n)
{
    (void)workers;
    (void)why;
    (void)n;
    fn(state);
    return 0;
}

int bench_system_build(void (*build)(void *), void *state, unsigned workers,
                       char *why, unsigned long n)
{
    return bench_system_run(build, state, workers, why, n);
}
