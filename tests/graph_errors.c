/* SPDX-License-Identifier: Apache-2.0 */
/* graph_errors: bad input gets a clear error code, never a crash or a
 * hang, and nothing a node had already accepted is lost.
 *
 * Proves: sizes above WF_MAX_MSG_SIZE (a message, a key, a tuple's part)
 * -> WF_ERANGE; NULL graph / node / out / msg / config -> WF_EINVAL (destroy of
 * NULL is 0); a port index out of range, or a multi-port node standing for
 * one port -> WF_ENOPORT; an input port used as a source -> WF_EINVAL;
 * message sizes that differ -> WF_ESIZE; the same edge twice -> WF_EEXIST;
 * removing a missing edge -> WF_ENOENT; nodes of two graphs, or an edge
 * from a node to itself -> WF_EINVAL;
 * try_put on a cancelled graph -> WF_ECANCELED, on a destroyed one ->
 * WF_EDESTROYED (the node can still be destroyed); a body's error is what
 * wait_for_all returns; wait_for_all / destroy from a body of the same
 * graph -> WF_EPERM, while wait_for_all from a worker outside its bodies
 * helps the pool and returns, even on a pool of one worker; a pool that a
 * graph still uses refuses wf_pool_destroy with WF_EBUSY.  After every
 * error the messages a queue held are all still there, in order. */
#include "graph_test.h"

static wf_pool *pool;

/* q holds 0..n-1, in order: drain, check, put them back. */
static void check_held(wf_node *q, int n)
{
    int got[64];
    CHECK_EQ(gt_drain(q, got, 64), n);
    for (int i = 0; i < n; i++)
        CHECK_EQ(got[i], i);
    for (int i = 0; i < n; i++)
        gt_put(q, i);
}

static void key_nop(const void *msg, void *key, void *ctx)
{
    (void)msg, (void)key, (void)ctx;
}

static void test_null_and_config(void)
{
    wf_graph *g = gt_graph(pool);
    wf_node *sentinel = (wf_node *)&sentinel, *n = sentinel;
    CHECK_ERR(wf_graph_create(NULL, pool), WF_EINVAL);
    CHECK_ERR(wf_queue_node_create(NULL, g, 4), WF_EINVAL);
    CHECK_ERR(wf_queue_node_create(&n, NULL, 4), WF_EINVAL);
    CHECK_ERR(wf_priority_queue_node_create(&n, g, 0, NULL, NULL),
              WF_EINVAL); /* WF_SIGNAL: nothing to order */
    CHECK_ERR(wf_function_node_create(&n, g, NULL), WF_EINVAL);
    wf_function_config fc = WF_FUNCTION_CONFIG_INIT;
    fc.in_size = 4;
    CHECK_ERR(wf_function_node_create(&n, g, &fc), WF_EINVAL); /* no body */
    fc.body = gt_nop_body;
    fc.policy = (wf_fn_policy)7;
    CHECK_ERR(wf_function_node_create(&n, g, &fc), WF_EINVAL);
    size_t sizes[3] = {4, 4, 0};
    wf_join_config jc = WF_JOIN_CONFIG_INIT;
    jc.ports = 1;
    jc.msg_sizes = sizes;
    CHECK_ERR(wf_join_node_create(&n, g, &jc), WF_EINVAL); /* one port */
    jc.ports = 3;
    CHECK_ERR(wf_join_node_create(&n, g, &jc), WF_EINVAL); /* size 0 */
    jc.ports = 2;
    jc.policy = WF_JOIN_KEY_MATCHING; /* no key functions */
    CHECK_ERR(wf_join_node_create(&n, g, &jc), WF_EINVAL);
    jc.policy = WF_JOIN_TAG_MATCHING;
    CHECK_ERR(wf_join_node_create(&n, g, &jc), WF_EINVAL);
    /* Impossible sizes: WF_ERANGE before any size arithmetic wraps. */
    fc = (wf_function_config)WF_FUNCTION_CONFIG_INIT;
    fc.body = gt_nop_body;
    fc.in_size = (size_t)1 << 60;
    CHECK_ERR(wf_function_node_create(&n, g, &fc), WF_ERANGE);
    fc.in_size = 4;
    fc.out_size = SIZE_MAX;
    CHECK_ERR(wf_function_node_create(&n, g, &fc), WF_ERANGE);
    CHECK_ERR(wf_broadcast_node_create(&n, g, SIZE_MAX), WF_ERANGE);
    CHECK_ERR(wf_queue_node_create(&n, g, WF_MAX_MSG_SIZE + 1), WF_ERANGE);
    size_t huge[2] = {SIZE_MAX, SIZE_MAX}, one_huge[2] = {4, SIZE_MAX};
    CHECK_ERR(wf_split_node_create(&n, g, 2, huge), WF_ERANGE);
    CHECK_ERR(wf_indexer_node_create(&n, g, 2, one_huge), WF_ERANGE);
    CHECK_EQ(wf_tuple_layout(2, huge, NULL), 0);
    CHECK_EQ(wf_tuple_layout(2, one_huge, NULL), 0);
    jc.policy = WF_JOIN_QUEUEING;
    jc.msg_sizes = one_huge;
    CHECK_ERR(wf_join_node_create(&n, g, &jc), WF_ERANGE);
    static const wf_key_fn keys[2] = {key_nop, key_nop};
    jc.msg_sizes = sizes;
    jc.policy = WF_JOIN_KEY_MATCHING;
    jc.key_fns = keys;
    jc.key_size = SIZE_MAX;
    CHECK_ERR(wf_join_node_create(&n, g, &jc), WF_ERANGE);
    CHECK(n == sentinel); /* *out untouched on every error */
    int v = 1;
    CHECK_ERR(wf_try_put(NULL, &v), WF_EINVAL);
    CHECK_ERR(wf_try_get(NULL, &v), WF_EINVAL);
    CHECK_ERR(wf_make_edge(NULL, NULL), WF_EINVAL);
    CHECK_ERR(wf_node_set_name(NULL, "x"), WF_EINVAL);
    CHECK_ERR(wf_graph_wait_for_all(NULL), WF_EINVAL);
    CHECK_ERR(wf_graph_cancel(NULL), WF_EINVAL);
    CHECK_ERR(wf_graph_reset(NULL, WF_RESET_PROTOCOL), WF_EINVAL);
    CHECK_ERR(wf_graph_write_dot(NULL, stdout), WF_EINVAL);
    CHECK(!wf_graph_is_cancelled(NULL));
    CHECK_OK(wf_node_destroy(NULL));
    CHECK_OK(wf_graph_destroy(NULL));
    CHECK(wf_port_msg_size(wf_input_port(NULL, 0)) == 0);
    CHECK(wf_tuple_get(&v, NULL, 0) == NULL);
    CHECK(strcmp(wf_node_kind(NULL), "") == 0);
    CHECK_OK(wf_graph_destroy(g));
}

static void test_edges(void)
{
    wf_graph *g = gt_graph(pool), *other = gt_graph(pool);
    wf_node *q = gt_queue(g, sizeof(int)), *q2 = gt_queue(g, sizeof(int));
    wf_node *small = gt_queue(g, sizeof(short));
    wf_node *alien = gt_queue(other, sizeof(int));
    size_t sizes[2] = {sizeof(int), sizeof(int)};
    wf_node *j = gt_join(g, 2, sizes, WF_JOIN_QUEUEING);
    for (int i = 0; i < 5; i++)
        gt_put(q, i);
    CHECK_ERR(wf_make_edge(q, small), WF_ESIZE);
    CHECK_ERR(wf_make_edge(q, j), WF_ENOPORT); /* which input? */
    CHECK_ERR(wf_make_edge(q, wf_input_port(j, 2)), WF_ENOPORT);
    CHECK_ERR(wf_make_edge(wf_output_port(q, 1), q2), WF_ENOPORT);
    CHECK_ERR(wf_make_edge(wf_input_port(q, 0), q2), WF_EINVAL);
    CHECK_ERR(wf_make_edge(q, wf_output_port(q2, 0)), WF_EINVAL);
    CHECK_ERR(wf_make_edge(q, alien), WF_EINVAL);
    CHECK_ERR(wf_make_edge(q, q), WF_EINVAL); /* it would offer forever */
    CHECK_ERR(wf_remove_edge(q, q2), WF_ENOENT);
    CHECK_ERR(wf_try_put(wf_input_port(j, 5), &sizes), WF_ENOPORT);
    CHECK_ERR(wf_try_put(q, NULL), WF_EINVAL);
    check_held(q, 5);
    /* A real edge moves the messages; a second one is refused. */
    CHECK_OK(wf_make_edge(q, wf_input_port(j, 0)));
    CHECK_ERR(wf_make_edge(q, wf_input_port(j, 0)), WF_EEXIST);
    CHECK_OK(wf_graph_wait_for_all(g));
    CHECK_OK(wf_remove_edge(q, wf_input_port(j, 0)));
    for (int i = 0; i < 5; i++)
        gt_put(wf_input_port(j, 1), 10 + i);
    int pair[2];
    for (int i = 0; i < 5; i++) {
        CHECK_EQ(wf_try_get(j, pair), 1);
        CHECK_EQ(pair[0], i);
        CHECK_EQ(pair[1], 10 + i);
    }
    GT_DESTROY(g, q, q2, small, j);
    GT_DESTROY(other, alien);
}

static void test_cancel_and_destroyed(void)
{
    wf_graph *g = gt_graph(pool);
    wf_node *q = gt_queue(g, sizeof(int));
    for (int i = 0; i < 5; i++)
        gt_put(q, i);
    CHECK_OK(wf_graph_cancel(g));
    CHECK(wf_graph_is_cancelled(g));
    int v = 9;
    CHECK_ERR(wf_try_put(q, &v), WF_ECANCELED);
    CHECK_ERR(wf_graph_wait_for_all(g), WF_ECANCELED);
    CHECK_EQ(wf_try_get(q, &v), 1); /* gets still work: nothing lost */
    CHECK_EQ(v, 0);
    CHECK_OK(wf_graph_reset(g, WF_RESET_PROTOCOL));
    CHECK_EQ(wf_try_get(q, &v), 0); /* reset emptied it */
    gt_put(q, 0);
    CHECK_OK(wf_graph_destroy(g));
    CHECK_ERR(wf_try_put(q, &v), WF_EDESTROYED);
    CHECK_ERR(wf_try_get(q, &v), WF_EDESTROYED);
    CHECK_ERR(wf_node_set_name(q, "late"), WF_EDESTROYED);
    CHECK_OK(wf_node_destroy(q)); /* frees the message it held */
}

/* ---- errors and waits from bodies --------------------------------------- */

static int failing_body(const void *in, void *out, void *ctx)
{
    (void)out, (void)ctx;
    return *(const int *)in == 10 ? -42 : 0;
}

typedef struct {
    wf_graph *g;
    _Atomic int wait_rc, destroy_rc;
} self_ctx;

static int self_wait_body(const void *in, void *out, void *ctx)
{
    (void)in, (void)out;
    self_ctx *s = ctx;
    atomic_store(&s->wait_rc, wf_graph_wait_for_all(s->g));
    atomic_store(&s->destroy_rc, wf_graph_destroy(s->g));
    return 0;
}

static void test_body_errors(void)
{
    wf_graph *g = gt_graph(pool);
    wf_node *f = gt_function(g, sizeof(int), 0, WF_SERIAL, WF_QUEUEING,
                             failing_body, NULL);
    /* Inputs up to 10 are accepted; 10 makes the body fail and cancel the
     * graph, so a later put may already find it cancelled. */
    for (int i = 0; i < 20; i++) {
        int rc = wf_try_put(f, &i);
        CHECK_MSG(rc == 1 || (i > 10 && rc == WF_ECANCELED),
                  "put %d returned %d", i, rc);
    }
    CHECK_ERR(wf_graph_wait_for_all(g), -42);
    CHECK(wf_graph_is_cancelled(g));
    CHECK_OK(wf_graph_reset(g, WF_RESET_PROTOCOL));
    CHECK_OK(wf_graph_wait_for_all(g));
    self_ctx s = {.g = g};
    wf_node *w = gt_function(g, sizeof(int), 0, WF_SERIAL, WF_QUEUEING,
                             self_wait_body, &s);
    gt_put(w, 1);
    CHECK_OK(wf_graph_wait_for_all(g));
    CHECK_EQ(atomic_load(&s.wait_rc), WF_EPERM);
    CHECK_EQ(atomic_load(&s.destroy_rc), WF_EPERM);
    GT_DESTROY(g, f, w);
}

/* wait_for_all from a worker of a one-worker pool: the body it waits for
 * is queued behind it, so it must help. */
static void wait_on_worker(void *arg)
{
    wf_graph *g = arg;
    wf_node *f = gt_function(g, sizeof(int), 0, WF_SERIAL, WF_QUEUEING,
                             gt_nop_body, NULL);
    gt_put(f, 1);
    CHECK_OK(wf_graph_wait_for_all(g));
    CHECK_OK(wf_node_destroy(f));
}

/* A pool with a graph on it refuses wf_pool_destroy (the graph's tasks
 * would outlive it); once the graph is destroyed, the pool may be. */
static void test_pool_outlives_graphs(void)
{
    wf_pool *p = gt_pool(2);
    wf_graph *g1 = gt_graph(p), *g2 = gt_graph(p);
    wf_node *q = gt_queue(g1, sizeof(int));
    gt_put(q, 1);
    CHECK_ERR(wf_pool_destroy(p), WF_EBUSY);
    CHECK_OK(wf_graph_destroy(g1));
    CHECK_ERR(wf_pool_destroy(p), WF_EBUSY); /* g2 still there */
    CHECK_OK(wf_graph_destroy(g2));
    CHECK_OK(wf_node_destroy(q)); /* a node outlives its graph */
    CHECK_OK(wf_pool_destroy(p));
}

static void test_wait_from_worker(void)
{
    wf_pool *one = gt_pool(1);
    wf_graph *g = gt_graph(one);
    CHECK_OK(wf_run(one, wait_on_worker, g));
    CHECK_OK(wf_graph_destroy(g));
    CHECK_OK(wf_pool_destroy(one));
}

int main(void)
{
    pool = gt_pool(2);
    test_null_and_config();
    test_edges();
    test_cancel_and_destroyed();
    test_body_errors();
    test_wait_from_worker();
    test_pool_outlives_graphs();
    CHECK_OK(wf_pool_destroy(pool));
    CHECK_DONE("graph_errors");
}
