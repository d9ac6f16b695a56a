/* SPDX-License-Identifier: Apache-2.0 */
/* graph_function_signal: a function node whose out_size is WF_SIGNAL has
 * an output port of signals (oneTBB's function_node<T, continue_msg>),
 * which continue nodes count.
 *
 * Proves, for every policy: the port exists (wf_port_msg_size 0, an edge
 * to a continue node or a signal broadcast is made, one to an int port is
 * WF_ESIZE); a body that returns 0 sends exactly one signal, one that
 * returns WF_NO_OUTPUT none (1000 ints, the even ones signal: the
 * continue node after it runs 500 times, at 1 and 4 threads); a signal
 * function node (function_node<continue_msg, continue_msg>) in a diamond
 * b -> {f1, f2} -> c runs c once per signal put into b, 200 rounds. */
#include "graph_test.h"

static int even_signals(const void *in, void *out, void *ctx)
{
    CHECK(out == NULL); /* a signal has no data */
    atomic_fetch_add((_Atomic int *)ctx, 1);
    return *(const int *)in % 2 == 0 ? 0 : WF_NO_OUTPUT;
}

static int relay(const void *in, void *out, void *ctx)
{
    (void)in; /* a signal: it points to no data */
    CHECK(out == NULL);
    atomic_fetch_add((_Atomic int *)ctx, 1);
    return 0;
}

static const wf_fn_policy policies[4] = {
    WF_QUEUEING, WF_REJECTING, WF_LIGHTWEIGHT, WF_REJECTING_LIGHTWEIGHT};

static void test_int_to_signal(wf_pool *pool, wf_fn_policy policy)
{
    wf_graph *g = gt_graph(pool);
    _Atomic int bodies = 0, rounds = 0;
    /* Rejecting: behind a queue, so that nothing is dropped. */
    wf_node *q = gt_queue(g, sizeof(int));
    wf_node *f = gt_function(g, sizeof(int), WF_SIGNAL, WF_UNLIMITED, policy,
                             even_signals, (void *)&bodies);
    wf_node *c = gt_continue_counter(g, &rounds);
    wf_node *ints = gt_queue(g, sizeof(int));
    wf_node *sig = gt_broadcast(g, WF_SIGNAL);
    CHECK_EQ(wf_port_msg_size(wf_output_port(f, 0)), 0);
    CHECK_ERR(wf_make_edge(f, ints), WF_ESIZE);
    CHECK_OK(wf_make_edge(q, f));
    CHECK_OK(wf_make_edge(f, c));
    CHECK_OK(wf_make_edge(f, sig));
    for (int i = 0; i < 1000; i++)
        gt_put(q, i);
    CHECK_OK(wf_graph_wait_for_all(g));
    CHECK_EQ(atomic_load(&bodies), 1000);
    CHECK_EQ(atomic_load(&rounds), 500);
    GT_DESTROY(g, q, f, c, ints, sig);
}

static void test_signal_diamond(wf_pool *pool, wf_fn_policy policy)
{
    wf_graph *g = gt_graph(pool);
    _Atomic int relayed = 0, rounds = 0;
    wf_node *b = gt_broadcast(g, WF_SIGNAL);
    wf_node *f1 = gt_function(g, WF_SIGNAL, WF_SIGNAL, WF_UNLIMITED, policy,
                              relay, (void *)&relayed);
    wf_node *f2 = gt_function(g, WF_SIGNAL, WF_SIGNAL, WF_UNLIMITED, policy,
                              relay, (void *)&relayed);
    wf_node *c = gt_continue_counter(g, &rounds);
    CHECK_OK(wf_make_edge(b, f1));
    CHECK_OK(wf_make_edge(b, f2));
    CHECK_OK(wf_make_edge(f1, c));
    CHECK_OK(wf_make_edge(f2, c));
    for (int i = 0; i < 200; i++) {
        CHECK_EQ(wf_try_put(b, NULL), 1);
        CHECK_OK(wf_graph_wait_for_all(g)); /* rounds must not overlap */
        CHECK_EQ(atomic_load(&rounds), i + 1);
    }
    CHECK_EQ(atomic_load(&relayed), 400);
    GT_DESTROY(g, b, f1, f2, c);
}

int main(void)
{
    const unsigned threads[2] = {1, 4};
    for (int t = 0; t < 2; t++) {
        wf_pool *pool = gt_pool(threads[t]);
        for (int p = 0; p < 4; p++) {
            test_int_to_signal(pool, policies[p]);
            test_signal_diamond(pool, policies[p]);
        }
        CHECK_OK(wf_pool_destroy(pool));
    }
    CHECK_DONE("graph_function_signal");
}
