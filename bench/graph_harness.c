/* SPDX-License-Identifier: Apache-2.0 */
/* The untimed parts of the flow-graph workloads: inputs, expected results,
 * checks (see graph_bench.h for what each one does).  There is no
 * sequential kernel: the tables compare weft with oneTBB's flow graph. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, in graph_bench.h */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph_bench.h"

/* Each system's kernel, and what it builds once and keeps, both on the
 * runner's main thread (graph_weft.c, graph_tbb.cpp). */
#define GB_KERNEL(name)                                                        \
    void name##_par(void *arg) __attribute__((weak));                          \
    void name##_build(void *arg) __attribute__((weak))
GB_KERNEL(gb_chain);
GB_KERNEL(gb_broadcast);
GB_KERNEL(gb_join_queueing);
GB_KERNEL(gb_join_reserving);
GB_KERNEL(gb_join_key);
GB_KERNEL(gb_wavefront);
GB_KERNEL(gb_latency);

static void gb_teardown(void *state)
{
    gb_state *s = (gb_state *)state;
    if (s == NULL)
        return;
    if (s->cache)
        s->cache_free(s->cache);
    free(s->stamp);
    free(s->visits);
    free(s->rtt_ns);
    free(s);
}

static gb_state *gb_new(const char *name, long n)
{
    gb_state *s = (gb_state *)calloc(1, sizeof *s);
    if (s) {
        s->name = name;
        s->n = n;
    }
    return s;
}

static void *gb_setup_chain(bool quick)
{
    return gb_new("chain", quick ? 2000 : 200000);
}
static void *gb_setup_broadcast(bool quick)
{
    return gb_new("broadcast", quick ? 2000 : 200000);
}
static void *gb_setup_join_q(bool quick)
{
    return gb_new("join_queueing", quick ? 2000 : 200000);
}
static void *gb_setup_join_r(bool quick)
{
    return gb_new("join_reserving", quick ? 2000 : 200000);
}
static void *gb_setup_join_key(bool quick)
{
    return gb_new("join_key", quick ? 2000 : 200000);
}
static void *gb_setup_latency(bool quick)
{
    gb_state *s = gb_new("latency", quick ? 200 : 20000);
    if (s == NULL)
        return NULL;
    s->rtt_ns = (uint64_t *)calloc((size_t)s->n, sizeof *s->rtt_ns);
    if (s->rtt_ns == NULL) {
        gb_teardown(s);
        return NULL;
    }
    return s;
}

static void *gb_setup_wavefront(bool quick)
{
    gb_state *s = gb_new("wavefront", quick ? 2 : 20);
    if (s == NULL)
        return NULL;
    s->rows = s->cols = quick ? 20 : 100;
    size_t cells = (size_t)s->rows * (size_t)s->cols;
    s->stamp = (uint64_t *)calloc(cells, sizeof *s->stamp);
    s->visits = (uint32_t *)calloc(cells, sizeof *s->visits);
    if (!s->stamp || !s->visits) {
        gb_teardown(s);
        return NULL;
    }
    return s;
}

static void gb_prepare(void *state)
{
    gb_state *s = (gb_state *)state;
    s->sum = s->count = s->mismatches = s->clock = 0;
    memset(s->sums, 0, sizeof s->sums);
    if (s->visits)
        memset(s->visits, 0,
               (size_t)s->rows * (size_t)s->cols * sizeof *s->visits);
}

/* sum of i for i < n */
static uint64_t gb_tri(long n)
{
    return (uint64_t)n * (uint64_t)(n - 1) / 2;
}

static int gb_expect(const char *what, uint64_t got, uint64_t want, char *why,
                     size_t len)
{
    if (got == want)
        return 0;
    snprintf(why, len, "%s = %" PRIu64 ", expected %" PRIu64, what, got, want);
    return -1;
}

static int gb_check_chain(void *state, bool seq, char *why, size_t len)
{
    (void)seq;
    gb_state *s = (gb_state *)state;
    return gb_expect("chain sum", s->sum,
                     gb_tri(s->n) + (uint64_t)s->n * GB_CHAIN, why, len);
}

static int gb_check_broadcast(void *state, bool seq, char *why, size_t len)
{
    (void)seq;
    gb_state *s = (gb_state *)state;
    for (int k = 0; k < GB_FANOUT; k++)
        if (gb_expect("broadcast branch sum", s->sums[k], gb_tri(s->n), why,
                      len))
            return -1;
    return 0;
}

static int gb_check_join(void *state, bool seq, char *why, size_t len)
{
    (void)seq;
    gb_state *s = (gb_state *)state;
    return gb_expect("join pairs", s->count, (uint64_t)s->n, why, len) ||
                   gb_expect("join sum a+b", s->sum, 3 * gb_tri(s->n), why,
                             len) ||
                   gb_expect("pairs with different keys", s->mismatches, 0, why,
                             len)
               ? -1
               : 0;
}

static int gb_check_wavefront(void *state, bool seq, char *why, size_t len)
{
    (void)seq;
    gb_state *s = (gb_state *)state;
    for (int i = 0; i < s->rows; i++)
        for (int j = 0; j < s->cols; j++) {
            size_t c = (size_t)i * (size_t)s->cols + (size_t)j;
            if (s->visits[c] != (uint32_t)s->n) {
                snprintf(why, len,
                         "wavefront cell (%d,%d) ran %u times, "
                         "expected %ld",
                         i, j, s->visits[c], s->n);
                return -1;
            }
            /* The last sweep: every cell after both its predecessors. */
            if ((i > 0 && s->stamp[c] <= s->stamp[c - (size_t)s->cols]) ||
                (j > 0 && s->stamp[c] <= s->stamp[c - 1])) {
                snprintf(why, len,
                         "wavefront cell (%d,%d) ran before a "
                         "predecessor",
                         i, j);
                return -1;
            }
        }
    return 0;
}

static int gb_cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The sample of nearest rank: the smallest that at least pct% of the n
 * sorted samples are at or under (index ceil(pct * n / 100) - 1). */
static uint64_t gb_rank(const uint64_t *sorted, size_t n, unsigned pct)
{
    size_t rank = (pct * n + 99) / 100;
    return sorted[rank ? rank - 1 : 0];
}

/* Mean, p50 and p99 of the last run's round trips, in microseconds.
 * Sorting in place is safe: the next run writes every sample again. */
static void gb_round_trips(void *state, double us[3])
{
    gb_state *s = (gb_state *)state;
    size_t n = (size_t)s->n;
    uint64_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += s->rtt_ns[i];
    qsort(s->rtt_ns, n, sizeof *s->rtt_ns, gb_cmp_u64);
    us[0] = (double)total / (double)n * 1e-3;
    us[1] = (double)gb_rank(s->rtt_ns, n, 50) * 1e-3;
    us[2] = (double)gb_rank(s->rtt_ns, n, 99) * 1e-3;
}

static const char *gb_describe(const void *state)
{
    static char buf[48];
    const gb_state *s = (const gb_state *)state;
    if (s->rows)
        snprintf(buf, sizeof buf, "%dx%d, %ld sweeps", s->rows, s->cols, s->n);
    else
        snprintf(buf, sizeof buf, "%ld msgs", s->n);
    return buf;
}

static double gb_messages(const void *state)
{
    const gb_state *s = (const gb_state *)state;
    return s->rows ? (double)s->n * s->rows * s->cols : (double)s->n;
}

#define GB_WORKLOAD(var, nm, setup_fn, kernel, check_fn, rtt)                  \
    const bench_workload var = {                                               \
        .name = nm,                                                            \
        .setup = setup_fn,                                                     \
        .prepare = gb_prepare,                                                 \
        .run_seq = NULL,                                                       \
        .run_par = kernel##_par,                                               \
        .build = kernel##_build,                                               \
        .check = check_fn,                                                     \
        .describe = gb_describe,                                               \
        .teardown = gb_teardown,                                               \
        .messages = gb_messages,                                               \
        .from_main = true,                                                     \
        .round_trips = rtt,                                                    \
    }

GB_WORKLOAD(bench_g_chain, "g_chain", gb_setup_chain, gb_chain, gb_check_chain,
            NULL);
GB_WORKLOAD(bench_g_broadcast, "g_broadcast", gb_setup_broadcast, gb_broadcast,
            gb_check_broadcast, NULL);
GB_WORKLOAD(bench_g_join_queueing, "g_join_queueing", gb_setup_join_q,
            gb_join_queueing, gb_check_join, NULL);
GB_WORKLOAD(bench_g_join_reserving, "g_join_reserving", gb_setup_join_r,
            gb_join_reserving, gb_check_join, NULL);
GB_WORKLOAD(bench_g_join_key, "g_join_key", gb_setup_join_key, gb_join_key,
            gb_check_join, NULL);
GB_WORKLOAD(bench_g_wavefront, "g_wavefront", gb_setup_wavefront, gb_wavefront,
            gb_check_wavefront, NULL);
GB_WORKLOAD(bench_g_latency, "g_latency", gb_setup_latency, gb_latency,
            gb_check_chain, gb_round_trips);
