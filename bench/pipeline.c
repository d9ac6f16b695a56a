/* SPDX-License-Identifier: Apache-2.0 */
/* pipeline: three stages, as oneTBB's parallel_pipeline runs them.
 *
 *   input   serial, in order: makes items 0 .. n-1 (a counter)
 *   work    parallel: `work` rounds of a 64-bit hash on the item
 *   output  serial, in order: folds each result into an order-dependent
 *           checksum (FNV-1a's step), so a result out of order shows
 *
 * At most 4 * T items in flight on T threads (oneTBB's guide uses a small
 * multiple of the thread count).  Items pass by value: a 64-bit integer,
 * which weft carries in its void * item.  Every system is driven from the
 * runner's main thread, as a program's main() calls the pipeline
 * (bench_workload.from_main):
 *
 *   seq    the three stages in one loop
 *   weft   wf_parallel_pipeline on the runner's pool of T threads; the
 *          main thread takes part in a caller slot
 *   tbb    tbb::parallel_pipeline with filter_mode::serial_in_order /
 *          parallel, under global_control max_allowed_parallelism = T
 *          (the main thread is one of the T)
 *   omp    the form an OpenMP program gives this loop: `omp for ordered
 *          schedule(dynamic, 1)` in a region of T threads, the work
 *          outside and the output inside the `ordered` block.  The loop
 *          counter is the input stage and the schedule hands out one
 *          iteration at a time, so at most T items are in flight; there
 *          is no stage call for the input.
 *
 * WEFT_BENCH_PIPELINE_WORK sets the rounds per item (default 100, about
 * a third of a microsecond here); read by the harness at setup. */
#include "kernel.h"
#include "system.h"

typedef struct {
    long n;        /* items */
    unsigned work; /* hash rounds per item in the parallel stage */
    long next;     /* the input stage's counter */
    uint64_t sum;  /* the output stage's checksum */
    uint64_t expected;
} pipe_state;

#define PIPE_FNV_OFFSET 0xcbf29ce484222325u
#define PIPE_FNV_PRIME 0x100000001b3u

static inline uint64_t pipe_work(uint64_t x, unsigned work)
{
    for (unsigned r = 0; r < work; r++)
        x = bench_mix64(x);
    return x;
}

static inline uint64_t pipe_fold(uint64_t h, uint64_t v)
{
    return (h ^ v) * PIPE_FNV_PRIME;
}

#if defined(WEFT_BENCH_SEQ)

BENCH_KERNEL(pipe_kernel)
{
    pipe_state *s = (pipe_state *)arg;
    while (s->next < s->n) {
        uint64_t item = (uint64_t)s->next++;
        s->sum = pipe_fold(s->sum, pipe_work(item, s->work));
    }
}

#elif defined(WEFT_BENCH_OMP)

#include <omp.h>

BENCH_KERNEL(pipe_kernel)
{
    pipe_state *s = (pipe_state *)arg;
    long n = s->n;
    unsigned work = s->work;
    /* omp_set_num_threads(T) was called by bench_system_run_graph. */
#pragma omp parallel
#pragma omp for ordered schedule(dynamic, 1)
    for (long i = 0; i < n; i++) {
        uint64_t v = pipe_work((uint64_t)i, work);
#pragma omp ordered
        s->sum = pipe_fold(s->sum, v);
    }
    s->next = n;
}

#elif defined(WEFT_BENCH_TBB)

#include <oneapi/tbb/parallel_pipeline.h>

BENCH_KERNEL(pipe_kernel)
{
    pipe_state *s = (pipe_state *)arg;
    size_t tokens = 4 * (size_t)bench_tbb_threads();
    tbb::parallel_pipeline(
        tokens,
        tbb::make_filter<void, uint64_t>(
            tbb::filter_mode::serial_in_order,
            [s](tbb::flow_control &fc) -> uint64_t {
                if (s->next == s->n) {
                    fc.stop();
                    return 0;
                }
                return (uint64_t)s->next++;
            }) &
            tbb::make_filter<uint64_t, uint64_t>(
                tbb::filter_mode::parallel,
                [s](uint64_t item) { return pipe_work(item, s->work); }) &
            tbb::make_filter<uint64_t, void>(
                tbb::filter_mode::serial_in_order,
                [s](uint64_t v) { s->sum = pipe_fold(s->sum, v); }));
}

#else /* weft */

static void *pipe_input(void *item, void *ctx, wf_pipeline_ctl *ctl)
{
    (void)item;
    pipe_state *s = (pipe_state *)ctx;
    if (s->next == s->n) {
        wf_pipeline_stop(ctl);
        return NULL;
    }
    return (void *)(uintptr_t)s->next++;
}

static void *pipe_parallel(void *item, void *ctx, wf_pipeline_ctl *ctl)
{
    (void)ctl;
    pipe_state *s = (pipe_state *)ctx;
    return (void *)(uintptr_t)pipe_work((uintptr_t)item, s->work);
}

static void *pipe_output(void *item, void *ctx, wf_pipeline_ctl *ctl)
{
    (void)ctl;
    pipe_state *s = (pipe_state *)ctx;
    s->sum = pipe_fold(s->sum, (uintptr_t)item);
    return NULL;
}

BENCH_KERNEL(pipe_kernel)
{
    pipe_state *s = (pipe_state *)arg;
    wf_pool *pool = bench_weft_pool();
    const wf_stage stages[3] = {
        {WF_STAGE_SERIAL_IN_ORDER, pipe_input, s},
        {WF_STAGE_PARALLEL, pipe_parallel, s},
        {WF_STAGE_SERIAL_IN_ORDER, pipe_output, s},
    };
    int err = wf_parallel_pipeline(pool, 4 * (size_t)wf_pool_threads(pool),
                                   stages, 3);
    if (err != 0)
        s->sum = 0; /* the check reports it */
}

#endif

/* ---- untimed parts (compiled once) ------------------------------------ */
#ifdef BENCH_HARNESS
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

static void *pipe_setup(bool quick)
{
    pipe_state *s = (pipe_state *)calloc(1, sizeof *s);
    if (s == NULL)
        return NULL;
    s->n = quick ? 20000 : 1000000;
    const char *env = getenv("WEFT_BENCH_PIPELINE_WORK");
    s->work = env ? (unsigned)strtoul(env, NULL, 10) : 100;
    /* The reference: the stages in a plain loop. */
    s->expected = PIPE_FNV_OFFSET;
    for (long i = 0; i < s->n; i++)
        s->expected = pipe_fold(s->expected, pipe_work((uint64_t)i, s->work));
    return s;
}

static void pipe_prepare(void *state)
{
    pipe_state *s = (pipe_state *)state;
    s->next = 0;
    s->sum = PIPE_FNV_OFFSET;
}

static int pipe_check(void *state, bool seq, char *why, size_t n)
{
    (void)seq;
    const pipe_state *s = (const pipe_state *)state;
    if (s->sum == s->expected && s->next == s->n)
        return 0;
    snprintf(why, n,
             "pipeline: checksum %016" PRIx64 ", expected %016" PRIx64
             " (%ld of %ld items made)",
             s->sum, s->expected, s->next, s->n);
    return -1;
}

static const char *pipe_describe(const void *state)
{
    static char buf[48];
    const pipe_state *s = (const pipe_state *)state;
    snprintf(buf, sizeof buf, "%.0e items, %u rounds each", (double)s->n,
             s->work);
    return buf;
}

static double pipe_items(const void *state)
{
    return (double)((const pipe_state *)state)->n;
}

const bench_workload bench_pipeline = {
    .name = "pipeline",
    .setup = pipe_setup,
    .prepare = pipe_prepare,
    .run_seq = pipe_kernel_seq,
    .run_par = pipe_kernel_par,
    .check = pipe_check,
    .describe = pipe_describe,
    .teardown = free,
    .messages = pipe_items,
    .from_main = true,
};
#endif
