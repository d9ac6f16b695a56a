/* SPDX-License-Identifier: Apache-2.0 */
/* sum: wf_parallel_for over a flat range, the loop most users write first.
 *
 * The range [0, count) is cut into fixed chunks; each chunk's sum goes to
 * its own slot of `partial`, and the slots are added in order at the end.
 * No shared accumulator, no atomics, and a result that does not depend on
 * who ran which chunk.  f(i) is a hash, so the compiler cannot fold the
 * loop into a formula: this is a compute-bound, perfectly balanced loop. */
#include "kernel.h"

#define SUM_CHUNK 65536 /* elements per partial sum */

typedef struct {
    uint64_t count;    /* sum f(i) for i < count */
    uint64_t *partial; /* one per chunk */
    size_t chunks;
    uint64_t result;
    uint64_t expected;
} sum_state;

static uint64_t sum_f(uint64_t i)
{
    return bench_mix64(i) >> 8; /* mod 2^64, so any order gives one sum */
}

/* The loop body: chunks [begin, end). */
static void sum_chunks(size_t begin, size_t end, void *ctx)
{
    sum_state *s = (sum_state *)ctx;
    for (size_t c = begin; c < end; c++) {
        uint64_t lo = (uint64_t)c * SUM_CHUNK;
        uint64_t hi = lo + SUM_CHUNK < s->count ? lo + SUM_CHUNK : s->count;
        uint64_t acc = 0;
        for (uint64_t i = lo; i < hi; i++)
            acc += sum_f(i);
        s->partial[c] = acc;
    }
}

BENCH_KERNEL(sum_kernel)
{
    sum_state *s = (sum_state *)arg;
    /* Grain 1 chunk: a task per 64 Ki elements, about 1500 in all. */
    BENCH_PARALLEL_FOR(0, s->chunks, 1, sum_chunks, s);
    uint64_t total = 0;
    for (size_t c = 0; c < s->chunks; c++)
        total += s->partial[c];
    s->result = total;
}

/* ---- untimed parts (compiled once) ------------------------------------ */
#ifdef BENCH_HARNESS
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void sum_teardown(void *state)
{
    sum_state *s = state;
    if (s)
        free(s->partial);
    free(s);
}

static void *sum_setup(bool quick)
{
    sum_state *s = calloc(1, sizeof *s);
    if (s == NULL)
        return NULL;
    s->count = quick ? 1000000u : 100000000u;
    s->chunks = (size_t)((s->count + SUM_CHUNK - 1) / SUM_CHUNK);
    s->partial = calloc(s->chunks, sizeof *s->partial);
    if (s->partial == NULL) {
        sum_teardown(s);
        return NULL;
    }
    /* The reference: one plain loop, no chunks, no partials. */
    for (uint64_t i = 0; i < s->count; i++)
        s->expected += sum_f(i);
    return s;
}

static void sum_prepare(void *state)
{
    sum_state *s = state;
    memset(s->partial, 0xff, s->chunks * sizeof *s->partial);
    s->result = 0;
}

static int sum_check(void *state, bool seq, char *why, size_t n)
{
    (void)seq;
    const sum_state *s = state;
    if (s->result == s->expected)
        return 0;
    snprintf(why, n, "sum: %" PRIu64 ", expected %" PRIu64, s->result,
             s->expected);
    return -1;
}

static const char *sum_describe(const void *state)
{
    static char buf[32];
    const sum_state *s = state;
    snprintf(buf, sizeof buf, "n=%.0e", (double)s->count);
    return buf;
}

const bench_workload bench_sum = {
    .name = "sum",
    .setup = sum_setup,
    .prepare = sum_prepare,
    .run_seq = sum_kernel_seq,
    .run_par = sum_kernel_par,
    .check = sum_check,
    .describe = sum_describe,
    .teardown = sum_teardown,
};
#endif
