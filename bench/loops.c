/* SPDX-License-Identifier: Apache-2.0 */
/* pfor and reduce: the loops of the higher-level API over 10^8 cheap
 * iterations, with the adaptive grain (grain 0).
 *
 * pfor: wf_parallel_for; each piece hashes its indices and adds its sum to
 *       one slot per piece start (no shared accumulator), added at the end.
 * reduce: wf_parallel_reduce of the same sum: the library does the
 *       combining. */
#include "kernel.h"

typedef struct {
    uint64_t count;
    uint64_t result, expected;
    uint64_t pieces_sum; /* pfor: one relaxed add per piece (atomic) */
} loop_state;

static uint64_t loop_f(uint64_t i)
{
    return bench_mix64(i) >> 8;
}

static void pfor_body(size_t begin, size_t end, void *ctx)
{
    loop_state *s = (loop_state *)ctx;
    uint64_t acc = 0;
    for (size_t i = begin; i < end; i++)
        acc += loop_f(i);
    /* One add per piece (a few dozen per run): the race is the point of
     * the sum, relaxed is enough as the kernel's return orders it. */
    __atomic_fetch_add(&s->pieces_sum, acc, __ATOMIC_RELAXED);
}

BENCH_KERNEL(pfor_kernel)
{
    loop_state *s = (loop_state *)arg;
    BENCH_PARALLEL_FOR(0, s->count, 0, pfor_body, s);
    s->result = __atomic_load_n(&s->pieces_sum, __ATOMIC_RELAXED);
}

static void reduce_body(size_t begin, size_t end, void *acc, void *ctx)
{
    (void)ctx;
    uint64_t a = 0;
    for (size_t i = begin; i < end; i++)
        a += loop_f(i);
    *(uint64_t *)acc += a;
}

static void reduce_combine(void *left, const void *right, void *ctx)
{
    (void)ctx;
    *(uint64_t *)left += *(const uint64_t *)right;
}

BENCH_KERNEL(reduce_kernel)
{
    loop_state *s = (loop_state *)arg;
    uint64_t zero = 0;
    BENCH_PARALLEL_REDUCE(0, s->count, 0, &s->result, sizeof s->result, &zero,
                          reduce_body, reduce_combine, NULL);
}

/* ---- untimed parts (compiled once) ------------------------------------ */
#ifdef BENCH_HARNESS
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

static void *loop_setup(bool quick)
{
    loop_state *s = calloc(1, sizeof *s);
    if (s == NULL)
        return NULL;
    s->count = quick ? 1000000u : 100000000u;
    for (uint64_t i = 0; i < s->count; i++)
        s->expected += loop_f(i);
    return s;
}

static void loop_prepare(void *state)
{
    loop_state *s = state;
    s->result = 0;
    s->pieces_sum = 0; /* untimed, before the run starts its threads */
}

static int loop_check(void *state, bool seq, char *why, size_t n)
{
    (void)seq;
    const loop_state *s = state;
    if (s->result == s->expected)
        return 0;
    snprintf(why, n, "sum %" PRIu64 ", expected %" PRIu64, s->result,
             s->expected);
    return -1;
}

static const char *loop_describe(const void *state)
{
    static char buf[32];
    snprintf(buf, sizeof buf, "n=%.0e grain=auto",
             (double)((const loop_state *)state)->count);
    return buf;
}

const bench_workload bench_pfor = {
    .name = "pfor",
    .setup = loop_setup,
    .prepare = loop_prepare,
    .run_seq = pfor_kernel_seq,
    .run_par = pfor_kernel_par,
    .check = loop_check,
    .describe = loop_describe,
    .teardown = free,
};

const bench_workload bench_reduce = {
    .name = "reduce",
    .setup = loop_setup,
    .prepare = loop_prepare,
    .run_seq = reduce_kernel_seq,
    .run_par = reduce_kernel_par,
    .check = loop_check,
    .describe = loop_describe,
    .teardown = free,
};
#endif
