/* SPDX-License-Identifier: Apache-2.0 */
/* The flow-graph workloads on weft (topologies in graph_bench.h).  Each
 * graph is built once per pool by gb_X_build, on the runner's main thread
 * (bench_system_build).  Each kernel is a user's main(): the runner's main
 * thread calls it outside wf_run (bench_system_run_graph), it puts, then waits
 * in wf_graph_wait_for_all, where it runs the graph's tasks in a caller slot,
 * as oneTBB's main thread does in the arena.  weft-inpool calls the same kernel
 * inside wf_run (bench_system_run), where its puts and waits are a pool
 * member's, as these benchmarks used to. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, in graph_bench.h */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <weft.h>

#include "graph_bench.h"
#include "system.h"

#define GW_MAX_NODES 16

typedef struct gw_cell {
    gb_state *s;
    int i, j;
} gw_cell;

typedef struct gw_graph {
    wf_graph *g;
    wf_node *node[GW_MAX_NODES]; /* node[0]: where messages go in */
    wf_node *in2, *join;         /* joins: the second input, the join */
    wf_node **grid;              /* wavefront: rows x cols */
    gw_cell *cells;
    size_t n_grid;
    void *ctx; /* joins: the function node's context */
} gw_graph;

static void gw_fail(const char *what, int err)
{
    fprintf(stderr, "graph_weft: %s: %s\n", what, wf_strerror(err));
    abort(); /* the runner reports the crash as a failed run */
}

#define GW_CHECK(call)                                                         \
    do {                                                                       \
        int gw_err_ = (call);                                                  \
        if (gw_err_ < 0)                                                       \
            gw_fail(#call, gw_err_);                                           \
    } while (0)

static void gw_free(void *cache)
{
    gw_graph *gg = (gw_graph *)cache;
    wf_graph_destroy(gg->g);
    for (int k = 0; k < GW_MAX_NODES; k++)
        wf_node_destroy(gg->node[k]);
    wf_node_destroy(gg->in2);
    wf_node_destroy(gg->join);
    for (size_t k = 0; k < gg->n_grid; k++)
        wf_node_destroy(gg->grid[k]);
    free(gg->grid);
    free(gg->cells);
    free(gg->ctx);
    free(gg);
}

/* The pool the graph is for: the driver's, for the build or run in
 * progress; the kernel may run on no worker of it (from main). */
static wf_pool *gw_pool(void)
{
    wf_pool *p = bench_weft_pool();
    if (p == NULL)
        gw_fail("no pool", WF_EINVAL);
    return p;
}

/* The cached graph for this pool, or NULL: build it. */
static gw_graph *gw_cached(gb_state *s)
{
    gb_cache_check(s, (long)(intptr_t)gw_pool());
    return (gw_graph *)s->cache;
}

static gw_graph *gw_new(gb_state *s)
{
    gw_graph *gg = (gw_graph *)calloc(1, sizeof *gg);
    if (gg == NULL)
        gw_fail("calloc", WF_ENOMEM);
    GW_CHECK(wf_graph_create(&gg->g, gw_pool()));
    s->cache = gg;
    s->cache_free = gw_free;
    return gg;
}

static wf_node *gw_function(gw_graph *gg, size_t in_size, unsigned conc,
                            wf_body_fn body, void *ctx)
{
    wf_function_config cfg = WF_FUNCTION_CONFIG_INIT;
    cfg.in_size = in_size;
    cfg.out_size = sizeof(int);
    cfg.concurrency = conc;
    cfg.body = body;
    cfg.ctx = ctx;
    wf_node *n;
    GW_CHECK(wf_function_node_create(&n, gg->g, &cfg));
    return n;
}

/* ---- chain and latency --------------------------------------------------- */

static int gw_inc(const void *in, void *out, void *ctx)
{
    (void)ctx;
    *(int *)out = *(const int *)in + 1;
    return 0;
}

static int gw_inc_sum(const void *in, void *out, void *ctx)
{
    int v = *(const int *)in + 1;
    gb_add(&((gb_state *)ctx)->sum, (uint64_t)v);
    *(int *)out = v;
    return 0;
}

static gw_graph *gw_chain(gb_state *s)
{
    gw_graph *gg = gw_cached(s);
    if (gg)
        return gg;
    gg = gw_new(s);
    for (int k = 0; k < GB_CHAIN; k++) {
        gg->node[k] = gw_function(gg, sizeof(int), WF_SERIAL,
                                  k == GB_CHAIN - 1 ? gw_inc_sum : gw_inc, s);
        if (k > 0)
            GW_CHECK(wf_make_edge(gg->node[k - 1], gg->node[k]));
    }
    return gg;
}

void gb_chain_build(void *arg);
void gb_chain_build(void *arg)
{
    gw_chain((gb_state *)arg);
}

void gb_latency_build(void *arg);
void gb_latency_build(void *arg)
{
    gw_chain((gb_state *)arg);
}

void gb_chain_par(void *arg);
void gb_chain_par(void *arg)
{
    gb_state *s = (gb_state *)arg;
    gw_graph *gg = gw_chain(s);
    for (int i = 0; i < (int)s->n; i++)
        GW_CHECK(wf_try_put(gg->node[0], &i));
    GW_CHECK(wf_graph_wait_for_all(gg->g));
}

void gb_latency_par(void *arg);
void gb_latency_par(void *arg)
{
    gb_state *s = (gb_state *)arg;
    gw_graph *gg = gw_chain(s);
    for (int i = 0; i < (int)s->n; i++) {
        uint64_t t0 = gb_now_ns();
        GW_CHECK(wf_try_put(gg->node[0], &i));
        GW_CHECK(wf_graph_wait_for_all(gg->g));
        s->rtt_ns[i] = gb_now_ns() - t0;
    }
}

/* ---- broadcast ----------------------------------------------------------- */

static int gw_branch(const void *in, void *out, void *ctx)
{
    int v = *(const int *)in;
    gb_add((uint64_t *)ctx, (uint64_t)v);
    *(int *)out = v;
    return 0;
}

static gw_graph *gw_broadcast(gb_state *s)
{
    gw_graph *gg = gw_cached(s);
    if (gg)
        return gg;
    gg = gw_new(s);
    GW_CHECK(wf_broadcast_node_create(&gg->node[0], gg->g, sizeof(int)));
    for (int k = 0; k < GB_FANOUT; k++) {
        gg->node[1 + k] =
            gw_function(gg, sizeof(int), WF_UNLIMITED, gw_branch, &s->sums[k]);
        GW_CHECK(wf_make_edge(gg->node[0], gg->node[1 + k]));
    }
    return gg;
}

void gb_broadcast_build(void *arg);
void gb_broadcast_build(void *arg)
{
    gw_broadcast((gb_state *)arg);
}

void gb_broadcast_par(void *arg);
void gb_broadcast_par(void *arg)
{
    gb_state *s = (gb_state *)arg;
    gw_graph *gg = gw_broadcast(s);
    for (int i = 0; i < (int)s->n; i++)
        GW_CHECK(wf_try_put(gg->node[0], &i));
    GW_CHECK(wf_graph_wait_for_all(gg->g));
}

/* ---- joins --------------------------------------------------------------- */

typedef struct {
    gb_state *s;
    wf_node *join;
} gw_join_ctx;

static int gw_pair(const void *in, void *out, void *ctx)
{
    gw_join_ctx *c = (gw_join_ctx *)ctx;
    int a = *(const int *)wf_tuple_get(in, c->join, 0);
    int b = *(const int *)wf_tuple_get(in, c->join, 1);
    gb_add(&c->s->sum, (uint64_t)(a + b));
    gb_add(&c->s->count, 1);
    *(int *)out = a + b;
    return 0;
}

static int gw_kv_pair(const void *in, void *out, void *ctx)
{
    gw_join_ctx *c = (gw_join_ctx *)ctx;
    const gb_kv *a = (const gb_kv *)wf_tuple_get(in, c->join, 0);
    const gb_kv *b = (const gb_kv *)wf_tuple_get(in, c->join, 1);
    gb_add(&c->s->sum, (uint64_t)(a->val + b->val));
    gb_add(&c->s->count, 1);
    if (a->key != b->key)
        gb_add(&c->s->mismatches, 1);
    *(int *)out = a->val + b->val;
    return 0;
}

static void gw_key(const void *msg, void *key, void *ctx)
{
    (void)ctx;
    memcpy(key, &((const gb_kv *)msg)->key, sizeof(int32_t));
}

/* Two source nodes (queue or buffer) into a join of `policy` into an
 * unlimited function node. */
static gw_graph *gw_join_graph(gb_state *s, wf_join_policy policy, bool buffers,
                               size_t msg)
{
    gw_graph *gg = gw_cached(s);
    if (gg)
        return gg;
    gg = gw_new(s);
    gw_join_ctx *c = (gw_join_ctx *)calloc(1, sizeof *c);
    if (c == NULL)
        gw_fail("calloc", WF_ENOMEM);
    gg->ctx = c;
    int (*make)(wf_node **, wf_graph *, size_t) =
        buffers ? wf_buffer_node_create : wf_queue_node_create;
    GW_CHECK(make(&gg->node[0], gg->g, msg));
    GW_CHECK(make(&gg->in2, gg->g, msg));
    size_t sizes[2] = {msg, msg};
    wf_key_fn keys[2] = {gw_key, gw_key};
    wf_join_config jc = WF_JOIN_CONFIG_INIT;
    jc.ports = 2;
    jc.msg_sizes = sizes;
    jc.policy = policy;
    if (policy == WF_JOIN_KEY_MATCHING) {
        jc.key_size = sizeof(int32_t);
        jc.key_fns = keys;
    }
    GW_CHECK(wf_join_node_create(&gg->join, gg->g, &jc));
    c->s = s;
    c->join = gg->join;
    gg->node[1] = gw_function(
        gg, wf_port_msg_size(wf_output_port(gg->join, 0)), WF_UNLIMITED,
        policy == WF_JOIN_KEY_MATCHING ? gw_kv_pair : gw_pair, c);
    GW_CHECK(wf_make_edge(gg->node[0], wf_input_port(gg->join, 0)));
    GW_CHECK(wf_make_edge(gg->in2, wf_input_port(gg->join, 1)));
    GW_CHECK(wf_make_edge(gg->join, gg->node[1]));
    return gg;
}

static void gw_join_run(gb_state *s, wf_join_policy policy, bool buffers)
{
    gw_graph *gg = gw_join_graph(s, policy, buffers, sizeof(int));
    for (int i = 0; i < (int)s->n; i++) {
        int twice = 2 * i;
        GW_CHECK(wf_try_put(gg->node[0], &i));
        GW_CHECK(wf_try_put(gg->in2, &twice));
    }
    GW_CHECK(wf_graph_wait_for_all(gg->g));
}

void gb_join_queueing_build(void *arg);
void gb_join_queueing_build(void *arg)
{
    gw_join_graph((gb_state *)arg, WF_JOIN_QUEUEING, false, sizeof(int));
}

void gb_join_reserving_build(void *arg);
void gb_join_reserving_build(void *arg)
{
    gw_join_graph((gb_state *)arg, WF_JOIN_RESERVING, true, sizeof(int));
}

void gb_join_key_build(void *arg);
void gb_join_key_build(void *arg)
{
    gw_join_graph((gb_state *)arg, WF_JOIN_KEY_MATCHING, false, sizeof(gb_kv));
}

void gb_join_queueing_par(void *arg);
void gb_join_queueing_par(void *arg)
{
    gw_join_run((gb_state *)arg, WF_JOIN_QUEUEING, false);
}

void gb_join_reserving_par(void *arg);
void gb_join_reserving_par(void *arg)
{
    gw_join_run((gb_state *)arg, WF_JOIN_RESERVING, true);
}

void gb_join_key_par(void *arg);
void gb_join_key_par(void *arg)
{
    gb_state *s = (gb_state *)arg;
    gw_graph *gg = gw_join_graph(s, WF_JOIN_KEY_MATCHING, false, sizeof(gb_kv));
    for (int i = 0; i < (int)s->n; i++) {
        int back = (int)s->n - 1 - i;
        gb_kv a = {i, i}, b = {back, 2 * back};
        GW_CHECK(wf_try_put(gg->node[0], &a));
        GW_CHECK(wf_try_put(gg->in2, &b));
    }
    GW_CHECK(wf_graph_wait_for_all(gg->g));
}

/* ---- wavefront ----------------------------------------------------------- */

static int gw_cell_body(void *out, void *ctx)
{
    (void)out;
    gw_cell *c = (gw_cell *)ctx;
    gb_stamp(c->s, c->i, c->j);
    return 0;
}

static gw_graph *gw_wavefront(gb_state *s)
{
    gw_graph *gg = gw_cached(s);
    if (gg)
        return gg;
    gg = gw_new(s);
    size_t cells = (size_t)s->rows * (size_t)s->cols;
    gg->grid = (wf_node **)calloc(cells, sizeof *gg->grid);
    gg->cells = (gw_cell *)calloc(cells, sizeof *gg->cells);
    if (!gg->grid || !gg->cells)
        gw_fail("calloc", WF_ENOMEM);
    for (int i = 0; i < s->rows; i++)
        for (int j = 0; j < s->cols; j++) {
            size_t k = (size_t)i * (size_t)s->cols + (size_t)j;
            gg->cells[k] = (gw_cell){s, i, j};
            wf_continue_config cfg = WF_CONTINUE_CONFIG_INIT;
            cfg.body = gw_cell_body;
            cfg.ctx = &gg->cells[k];
            GW_CHECK(wf_continue_node_create(&gg->grid[k], gg->g, &cfg));
            gg->n_grid = k + 1;
            if (i > 0)
                GW_CHECK(
                    wf_make_edge(gg->grid[k - (size_t)s->cols], gg->grid[k]));
            if (j > 0)
                GW_CHECK(wf_make_edge(gg->grid[k - 1], gg->grid[k]));
        }
    return gg;
}

void gb_wavefront_build(void *arg);
void gb_wavefront_build(void *arg)
{
    gw_wavefront((gb_state *)arg);
}

void gb_wavefront_par(void *arg);
void gb_wavefront_par(void *arg)
{
    gb_state *s = (gb_state *)arg;
    gw_graph *gg = gw_wavefront(s);
    for (long r = 0; r < s->n; r++) {
        GW_CHECK(wf_try_put(gg->grid[0], NULL));
        GW_CHECK(wf_graph_wait_for_all(gg->g));
    }
}
