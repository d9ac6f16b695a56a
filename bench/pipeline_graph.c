/* SPDX-License-Identifier: Apache-2.0 */
#define _POSIX_C_SOURCE 200809L
/* pipeline_graph: the `pipeline` workload (bench/pipeline.c) two ways on
 * weft, wf_parallel_pipeline and the flow graph that does the same:
 *
 *   input_node -> limiter_node(4T) -> function_node(unlimited)
 *              -> sequencer_node -> function_node(serial) --> limiter port 1
 *
 * the graph's messages carrying the item's number for the sequencer.
 * Both from the main thread, interleaved, median of the runs; prints ns
 * per item for each and graph / pipeline.  Checks each run's checksum.
 *
 *   pipeline_graph [THREADS [WORK [ITEMS [RUNS]]]]   (2, 100, 200000, 7) */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <weft.h>

#include "bench.h"

typedef struct {
    uint64_t seq, v;
} pg_item;

static unsigned work;
static long items, next_item;
static uint64_t sum;
static wf_node *limiter;

static uint64_t hash_rounds(uint64_t x)
{
    for (unsigned r = 0; r < work; r++)
        x = bench_mix64(x);
    return x;
}

static uint64_t fold(uint64_t h, uint64_t v)
{
    return (h ^ v) * 0x100000001b3u;
}

/* ---- wf_parallel_pipeline ---------------------------------------------- */

static void *pl_input(void *item, void *ctx, wf_pipeline_ctl *ctl)
{
    (void)item, (void)ctx;
    if (next_item == items) {
        wf_pipeline_stop(ctl);
        return NULL;
    }
    return (void *)(uintptr_t)next_item++;
}

static void *pl_work(void *item, void *ctx, wf_pipeline_ctl *ctl)
{
    (void)ctx, (void)ctl;
    return (void *)(uintptr_t)hash_rounds((uintptr_t)item);
}

static void *pl_output(void *item, void *ctx, wf_pipeline_ctl *ctl)
{
    (void)ctx, (void)ctl;
    sum = fold(sum, (uintptr_t)item);
    return NULL;
}

static int run_pipeline(wf_pool *pool, unsigned threads)
{
    wf_stage st[3] = {{WF_STAGE_SERIAL_IN_ORDER, pl_input, NULL},
                      {WF_STAGE_PARALLEL, pl_work, NULL},
                      {WF_STAGE_SERIAL_IN_ORDER, pl_output, NULL}};
    return wf_parallel_pipeline(pool, 4 * (size_t)threads, st, 3);
}

/* ---- the flow graph ----------------------------------------------------- */

static int g_input(void *out, void *ctx)
{
    (void)ctx;
    if (next_item == items)
        return WF_INPUT_DONE;
    pg_item it = {(uint64_t)next_item, (uint64_t)next_item};
    next_item++;
    memcpy(out, &it, sizeof it);
    return 0;
}

static int g_work(const void *in, void *out, void *ctx)
{
    (void)ctx;
    pg_item it;
    memcpy(&it, in, sizeof it);
    it.v = hash_rounds(it.v);
    memcpy(out, &it, sizeof it);
    return 0;
}

static size_t g_seq(const void *msg, void *ctx)
{
    (void)ctx;
    return (size_t)((const pg_item *)msg)->seq;
}

static int g_output(const void *in, void *out, void *ctx)
{
    (void)out, (void)ctx;
    pg_item it;
    memcpy(&it, in, sizeof it);
    sum = fold(sum, it.v);
    /* this item has left: let the next one past the limiter */
    return wf_try_put(wf_input_port(limiter, 1), NULL) == 1 ? 0 : -1;
}

static wf_node *function(wf_graph *g, size_t out, unsigned conc,
                         wf_body_fn body)
{
    wf_function_config c = WF_FUNCTION_CONFIG_INIT;
    c.in_size = sizeof(pg_item);
    c.out_size = out;
    c.concurrency = conc;
    c.body = body;
    wf_node *n = NULL;
    return wf_function_node_create(&n, g, &c) == 0 ? n : NULL;
}

static int run_graph(wf_pool *pool, unsigned threads)
{
    wf_graph *g;
    if (wf_graph_create(&g, pool) != 0)
        return -1;
    wf_input_config ic = WF_INPUT_CONFIG_INIT;
    ic.out_size = sizeof(pg_item);
    ic.body = g_input;
    wf_node *in = NULL, *seq = NULL;
    wf_input_node_create(&in, g, &ic);
    wf_limiter_node_create(&limiter, g, sizeof(pg_item), 4 * (size_t)threads);
    wf_node *w = function(g, sizeof(pg_item), WF_UNLIMITED, g_work);
    wf_sequencer_node_create(&seq, g, sizeof(pg_item), g_seq, NULL);
    wf_node *out = function(g, 0, WF_SERIAL, g_output);
    int err = !in || !limiter || !w || !seq || !out ? -1 : 0;
    if (err == 0) {
        wf_make_edge(in, wf_input_port(limiter, 0));
        wf_make_edge(limiter, w);
        wf_make_edge(w, seq);
        wf_make_edge(seq, out);
        wf_input_node_activate(in);
        err = wf_graph_wait_for_all(g);
    }
    wf_node *nodes[] = {out, seq, w, limiter, in};
    for (size_t i = 0; i < 5; i++)
        wf_node_destroy(nodes[i]);
    wf_graph_destroy(g);
    return err;
}

/* ---- driver -------------------------------------------------------------- */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* One timed run; exits on a wrong checksum. */
static double timed(int (*run)(wf_pool *, unsigned), wf_pool *pool,
                    unsigned threads, uint64_t expected, const char *what)
{
    next_item = 0;
    sum = 0xcbf29ce484222325u;
    double t0 = now_s();
    int err = run(pool, threads);
    double t = now_s() - t0;
    if (err != 0 || sum != expected) {
        fprintf(stderr,
                "pipeline_graph: %s: error %d, checksum %016" PRIx64
                ", expected %016" PRIx64 "\n",
                what, err, sum, expected);
        exit(1);
    }
    return t / (double)items * 1e9;
}

int main(int argc, char **argv)
{
    unsigned threads = argc > 1 ? (unsigned)atoi(argv[1]) : 2;
    work = argc > 2 ? (unsigned)atoi(argv[2]) : 100;
    items = argc > 3 ? atol(argv[3]) : 200000;
    int runs = argc > 4 ? atoi(argv[4]) : 7;
    if (threads < 1 || items < 1 || runs < 1 || runs > 99)
        return 2;
    wf_pool_config cfg = WF_POOL_CONFIG_INIT;
    cfg.threads = threads;
    wf_pool *pool;
    if (wf_pool_create(&pool, &cfg) != 0)
        return 2;
    uint64_t expected = 0xcbf29ce484222325u;
    for (long i = 0; i < items; i++)
        expected = fold(expected, hash_rounds((uint64_t)i));
    double pl[100], gr[100];
    for (int r = 0; r < runs; r++) {
        pl[r] = timed(run_pipeline, pool, threads, expected, "pipeline");
        gr[r] = timed(run_graph, pool, threads, expected, "graph");
    }
    qsort(pl, (size_t)runs, sizeof *pl, cmp_double);
    qsort(gr, (size_t)runs, sizeof *gr, cmp_double);
    printf("%u threads, %u rounds, %ld items: wf_parallel_pipeline %.1f ns "
           "per item, flow graph %.1f ns per item (graph / pipeline %.2fx)\n",
           threads, work, items, pl[runs / 2], gr[runs / 2],
           gr[runs / 2] / pl[runs / 2]);
    wf_pool_destroy(pool);
    return 0;
}
