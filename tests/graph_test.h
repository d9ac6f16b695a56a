/* SPDX-License-Identifier: Apache-2.0 */
/* Helpers shared by the flow graph tests: pools, nodes of ints, counters.
 * Every helper CHECKs its calls, so a test reads as the topology it
 * builds. */
#ifndef WEFT_TEST_GRAPH_H
#define WEFT_TEST_GRAPH_H

#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "check.h"

static inline wf_pool *gt_pool(unsigned threads)
{
    return check_pool(threads);
}

static inline wf_graph *gt_graph(wf_pool *pool)
{
    wf_graph *g = NULL;
    CHECK_OK(wf_graph_create(&g, pool));
    return g;
}

static inline wf_node *gt_queue(wf_graph *g, size_t size)
{
    wf_node *n = NULL;
    CHECK_OK(wf_queue_node_create(&n, g, size));
    return n;
}

static inline wf_node *gt_buffer(wf_graph *g, size_t size)
{
    wf_node *n = NULL;
    CHECK_OK(wf_buffer_node_create(&n, g, size));
    return n;
}

static inline wf_node *gt_broadcast(wf_graph *g, size_t size)
{
    wf_node *n = NULL;
    CHECK_OK(wf_broadcast_node_create(&n, g, size));
    return n;
}

/* A function node's body that does nothing and succeeds (its output,
 * if any, is left as it is). */
static inline int gt_nop_body(const void *in, void *out, void *ctx)
{
    (void)in, (void)out, (void)ctx;
    return 0;
}

/* A continue node's body: counts its rounds in *ctx (an _Atomic int). */
static inline int gt_count_round(void *out, void *ctx)
{
    CHECK(out == NULL); /* a signal: no output */
    atomic_fetch_add((_Atomic int *)ctx, 1);
    return 0;
}

/* A continue node that counts its rounds in *runs; its threshold is its
 * in-edges alone, so with none every signal is a round. */
static inline wf_node *gt_continue_counter(wf_graph *g, _Atomic int *runs)
{
    wf_continue_config c = WF_CONTINUE_CONFIG_INIT;
    c.body = gt_count_round;
    c.ctx = (void *)runs;
    wf_node *n = NULL;
    CHECK_OK(wf_continue_node_create(&n, g, &c));
    return n;
}

static inline wf_node *gt_function(wf_graph *g, size_t in, size_t out,
                                   unsigned conc, wf_fn_policy pol,
                                   wf_body_fn body, void *ctx)
{
    wf_function_config c = WF_FUNCTION_CONFIG_INIT;
    c.in_size = in;
    c.out_size = out;
    c.concurrency = conc;
    c.policy = pol;
    c.body = body;
    c.ctx = ctx;
    wf_node *n = NULL;
    CHECK_OK(wf_function_node_create(&n, g, &c));
    return n;
}

static inline wf_node *gt_join(wf_graph *g, unsigned ports, const size_t *sizes,
                               wf_join_policy pol)
{
    wf_join_config c = WF_JOIN_CONFIG_INIT;
    c.ports = ports;
    c.msg_sizes = sizes;
    c.policy = pol;
    wf_node *n = NULL;
    CHECK_OK(wf_join_node_create(&n, g, &c));
    return n;
}

/* Put the int v into x (a node or a port); it must be accepted. */
#define gt_put(x, v)                                                           \
    do {                                                                       \
        int gt_v_ = (v);                                                       \
        CHECK_EQ(wf_try_put((x), &gt_v_), 1);                                  \
    } while (0)

/* Everything left in an int buffer, in order; returns how many. */
static inline int gt_drain(wf_node *n, int *out, int max)
{
    int k = 0, v;
    while (wf_try_get(n, &v) == 1) {
        CHECK(k < max);
        out[k++] = v;
    }
    return k;
}

static inline void gt_sleep_us(long us)
{
    struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
    nanosleep(&ts, NULL);
}

static inline void gt_destroy(wf_graph *g, wf_node **nodes, size_t n)
{
    for (size_t i = 0; i < n; i++)
        CHECK_OK(wf_node_destroy(nodes[i]));
    CHECK_OK(wf_graph_destroy(g));
}

#define GT_DESTROY(g, ...)                                                     \
    do {                                                                       \
        wf_node *gt_nodes_[] = {__VA_ARGS__};                                  \
        gt_destroy((g), gt_nodes_, sizeof gt_nodes_ / sizeof gt_nodes_[0]);    \
    } while (0)

#endif /* WEFT_TEST_GRAPH_H */
