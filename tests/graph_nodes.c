/* SPDX-License-Identifier: Apache-2.0 */
/* graph_nodes: broadcast, buffer, queue and function nodes do what the
 * oneTBB spec says they do.
 *
 * Proves: a queue_node is FIFO and answers try_get / reserve / release /
 * consume (a reserved head blocks get and a second reserve); a
 * broadcast_node gives every successor every message; a buffer_node gives
 * each message to exactly one successor; a serial function_node runs its
 * bodies in arrival order, never on the putting thread; a limit N is never
 * exceeded and unlimited runs bodies in parallel; outputs are broadcast; a
 * rejecting function_node behind a broadcast_node drops what it cannot
 * take and behind a queue_node loses nothing; remove_edge stops the flow;
 * reset empties buffers and turns edges back to push; a body returning
 * WF_NO_OUTPUT sends nothing; destroying a node in the middle of a chain
 * removes its edges and the rest keeps working. */
#include <pthread.h>

#include "graph_test.h"

static wf_pool *pool;

static void test_queue_protocol(void)
{
    wf_graph *g = gt_graph(pool);
    wf_node *q = gt_queue(g, sizeof(int));
    for (int i = 0; i < 100; i++)
        gt_put(q, i);
    int v = -1, w = -1;
    CHECK_EQ(wf_try_reserve(q, &v), 1);
    CHECK_EQ(v, 0);
    CHECK_EQ(wf_try_get(q, &w), 0);     /* the head is reserved */
    CHECK_EQ(wf_try_reserve(q, &w), 0); /* one reservation at a time */
    CHECK_EQ(wf_try_release(q), 1);
    CHECK_ERR(wf_try_release(q), WF_ENOENT);
    CHECK_EQ(wf_try_reserve(q, &v), 1);
    CHECK_EQ(v, 0); /* released: still the head */
    CHECK_EQ(wf_try_consume(q), 1);
    CHECK_ERR(wf_try_consume(q), WF_ENOENT);
    int got[100];
    CHECK_EQ(gt_drain(q, got, 100), 99);
    for (int i = 0; i < 99; i++)
        CHECK_EQ(got[i], i + 1);
    CHECK_EQ(wf_try_reserve(q, &v), 0);
    GT_DESTROY(g, q);
}

static void test_broadcast_and_single_push(void)
{
    wf_graph *g = gt_graph(pool);
    wf_node *bn = gt_broadcast(g, sizeof(int));
    wf_node *buf = gt_buffer(g, sizeof(int));
    wf_node *q[3], *r[2];
    for (int i = 0; i < 3; i++) {
        q[i] = gt_queue(g, sizeof(int));
        CHECK_OK(wf_make_edge(bn, q[i]));
    }
    for (int i = 0; i < 2; i++) {
        r[i] = gt_queue(g, sizeof(int));
        CHECK_OK(wf_make_edge(buf, r[i]));
    }
    for (int i = 0; i < 50; i++) {
        gt_put(bn, i);
        gt_put(buf, i);
    }
    CHECK_OK(wf_graph_wait_for_all(g));
    int got[200];
    for (int i = 0; i < 3; i++) { /* every successor, every message */
        CHECK_EQ(gt_drain(q[i], got, 200), 50);
        for (int k = 0; k < 50; k++)
            CHECK_EQ(got[k], k);
    }
    int seen[50] = {0}, total = 0;
    for (int i = 0; i < 2; i++) { /* each message to one successor */
        int k = gt_drain(r[i], got, 200);
        for (int j = 0; j < k; j++)
            seen[got[j]]++;
        total += k;
    }
    CHECK_EQ(total, 50);
    for (int i = 0; i < 50; i++)
        CHECK_EQ(seen[i], 1);
    CHECK_EQ(wf_try_get(bn, &total), 0); /* keeps nothing */
    GT_DESTROY(g, bn, buf, q[0], q[1], q[2], r[0], r[1]);
}

/* ---- function nodes ------------------------------------------------------ */

typedef struct {
    _Atomic int active, max_active, calls;
    _Atomic long sum;
    /* Bodies that ran inside a put on the putting thread, or outside the
     * pool.  (Main runs bodies while it waits for the graph: that is
     * taking part, not a put that ran its body.) */
    _Atomic int on_main;
    _Atomic int putting; /* main is inside its puts */
    pthread_t main;
    int order[2000];
    long sleep_us;
} body_stats;

static int record_body(const void *in, void *out, void *ctx)
{
    body_stats *s = ctx;
    int v = *(const int *)in;
    int a = atomic_fetch_add(&s->active, 1) + 1;
    int m = atomic_load(&s->max_active);
    while (a > m && !atomic_compare_exchange_weak(&s->max_active, &m, a))
        ;
    if ((pthread_equal(pthread_self(), s->main) && atomic_load(&s->putting)) ||
        wf_worker_index() < 0)
        atomic_fetch_add(&s->on_main, 1);
    if (s->sleep_us)
        gt_sleep_us(s->sleep_us);
    int k = atomic_fetch_add(&s->calls, 1);
    if (k < 2000)
        s->order[k] = v;
    atomic_fetch_add(&s->sum, v);
    if (out)
        *(int *)out = 2 * v;
    atomic_fetch_sub(&s->active, 1);
    return 0;
}

static void test_serial_order(void)
{
    wf_graph *g = gt_graph(pool);
    body_stats s = {.main = pthread_self()};
    wf_node *f = gt_function(g, sizeof(int), sizeof(int), WF_SERIAL,
                             WF_QUEUEING, record_body, &s);
    wf_node *out = gt_queue(g, sizeof(int));
    CHECK_OK(wf_make_edge(f, out));
    atomic_store(&s.putting, 1);
    for (int i = 0; i < 1000; i++)
        gt_put(f, i);
    atomic_store(&s.putting, 0);
    CHECK_OK(wf_graph_wait_for_all(g));
    CHECK_EQ(atomic_load(&s.calls), 1000);
    CHECK_EQ(atomic_load(&s.max_active), 1);
    CHECK_EQ(atomic_load(&s.on_main), 0);
    int got[1000];
    CHECK_EQ(gt_drain(out, got, 1000), 1000);
    for (int i = 0; i < 1000; i++) {
        CHECK_EQ(s.order[i], i);
        CHECK_EQ(got[i], 2 * i); /* outputs leave in order too */
    }
    GT_DESTROY(g, f, out);
}

static void check_limit(unsigned limit, wf_fn_policy pol, int expect_min)
{
    wf_graph *g = gt_graph(pool);
    body_stats s = {.main = pthread_self(), .sleep_us = 1000};
    wf_node *q = gt_queue(g, sizeof(int));
    wf_node *f = gt_function(g, sizeof(int), 0, limit, pol, record_body, &s);
    CHECK_OK(wf_make_edge(q, f));
    for (int i = 0; i < 40; i++)
        gt_put(q, i);
    CHECK_OK(wf_graph_wait_for_all(g));
    CHECK_EQ(atomic_load(&s.calls), 40);
    CHECK_EQ(atomic_load(&s.sum), 40 * 39 / 2);
    if (limit)
        CHECK(atomic_load(&s.max_active) <= (int)limit);
    CHECK_MSG(atomic_load(&s.max_active) >= expect_min, "max %d",
              atomic_load(&s.max_active));
    GT_DESTROY(g, q, f);
}

/* The rejecting node can take one at a time and is slow: a broadcast_node
 * cannot keep what it rejects, a queue_node keeps all of it. */
static void test_rejecting(void)
{
    wf_graph *g = gt_graph(pool);
    body_stats s1 = {.main = pthread_self(), .sleep_us = 2000};
    body_stats s2 = {.main = pthread_self(), .sleep_us = 200};
    wf_node *bn = gt_broadcast(g, sizeof(int));
    wf_node *q = gt_queue(g, sizeof(int));
    wf_node *f1 = gt_function(g, sizeof(int), 0, WF_SERIAL, WF_REJECTING,
                              record_body, &s1);
    wf_node *f2 = gt_function(g, sizeof(int), 0, WF_SERIAL, WF_REJECTING,
                              record_body, &s2);
    CHECK_OK(wf_make_edge(bn, f1));
    CHECK_OK(wf_make_edge(q, f2));
    for (int i = 0; i < 100; i++) {
        gt_put(bn, i); /* always accepted by bn */
        gt_put(q, i);
    }
    CHECK_OK(wf_graph_wait_for_all(g));
    int c1 = atomic_load(&s1.calls);
    CHECK_MSG(c1 >= 1 && c1 < 100, "behind broadcast: %d of 100", c1);
    CHECK_EQ(atomic_load(&s2.calls), 100);
    CHECK_EQ(atomic_load(&s2.sum), 100 * 99 / 2);
    for (int i = 0; i < 100; i++) /* pulled in order */
        CHECK_EQ(s2.order[i], i);
    int v;
    CHECK_EQ(wf_try_get(q, &v), 0);
    /* A direct put over the limit is rejected, not an error. */
    s1.sleep_us = 20000;
    gt_put(f1, 1);
    CHECK_EQ(wf_try_put(f1, &v), 0);
    CHECK_OK(wf_graph_wait_for_all(g));
    GT_DESTROY(g, bn, q, f1, f2);
}

static void test_remove_edge_and_reset(void)
{
    wf_graph *g = gt_graph(pool);
    wf_node *q = gt_queue(g, sizeof(int)), *out = gt_queue(g, sizeof(int));
    CHECK_OK(wf_make_edge(q, out));
    for (int i = 0; i < 5; i++)
        gt_put(q, i);
    CHECK_OK(wf_remove_edge(q, out));
    CHECK_ERR(wf_remove_edge(q, out), WF_ENOENT);
    for (int i = 5; i < 10; i++)
        gt_put(q, i);
    CHECK_OK(wf_graph_wait_for_all(g));
    int got[10];
    CHECK_EQ(gt_drain(out, got, 10), 5);
    for (int i = 0; i < 5; i++)
        CHECK_EQ(got[i], i);
    /* q kept 5..9; reset empties it.  Then an edge made again carries
     * messages again. */
    CHECK_OK(wf_graph_reset(g, WF_RESET_PROTOCOL));
    CHECK_EQ(wf_try_get(q, got), 0);
    CHECK_OK(wf_make_edge(q, out));
    gt_put(q, 42);
    CHECK_OK(wf_graph_wait_for_all(g));
    CHECK_EQ(gt_drain(out, got, 10), 1);
    CHECK_EQ(got[0], 42);
    GT_DESTROY(g, q, out);
}

/* Reset also turns pulled edges back to push: a rejecting node that was
 * full gets messages pushed again afterwards. */
static void test_reset_protocol(void)
{
    wf_graph *g = gt_graph(pool);
    body_stats s = {.main = pthread_self(), .sleep_us = 5000};
    wf_node *q = gt_queue(g, sizeof(int));
    wf_node *f = gt_function(g, sizeof(int), 0, WF_SERIAL, WF_REJECTING,
                             record_body, &s);
    CHECK_OK(wf_make_edge(q, f));
    for (int i = 0; i < 5; i++)
        gt_put(q, i);
    CHECK_OK(wf_graph_cancel(g)); /* stop after the running body */
    CHECK_ERR(wf_graph_wait_for_all(g), WF_ECANCELED);
    int calls = atomic_load(&s.calls);
    CHECK(calls < 5);
    CHECK_OK(wf_graph_reset(g, WF_RESET_PROTOCOL));
    CHECK_OK(wf_graph_wait_for_all(g));
    CHECK(!wf_graph_is_cancelled(g));
    s.sleep_us = 0;
    gt_put(q, 7);
    CHECK_OK(wf_graph_wait_for_all(g));
    CHECK_EQ(atomic_load(&s.calls), calls + 1);
    GT_DESTROY(g, q, f);
}

static int evens_only(const void *in, void *out, void *ctx)
{
    (void)ctx;
    int v = *(const int *)in;
    *(int *)out = v;
    return v % 2 ? WF_NO_OUTPUT : 0;
}

static void test_no_output_and_destroy_middle(void)
{
    wf_graph *g = gt_graph(pool);
    wf_node *a = gt_queue(g, sizeof(int)), *c = gt_queue(g, sizeof(int));
    wf_node *b = gt_function(g, sizeof(int), sizeof(int), WF_SERIAL,
                             WF_QUEUEING, evens_only, NULL);
    CHECK_OK(wf_make_edge(a, b));
    CHECK_OK(wf_make_edge(b, c));
    for (int i = 0; i < 10; i++)
        gt_put(a, i);
    CHECK_OK(wf_graph_wait_for_all(g));
    int got[10];
    CHECK_EQ(gt_drain(c, got, 10), 5);
    for (int i = 0; i < 5; i++)
        CHECK_EQ(got[i], 2 * i);
    CHECK_OK(wf_node_destroy(b));
    gt_put(a, 42); /* a has no successor now: it keeps the message */
    CHECK_OK(wf_make_edge(a, c));
    CHECK_OK(wf_graph_wait_for_all(g));
    CHECK_EQ(gt_drain(c, got, 10), 1);
    CHECK_EQ(got[0], 42);
    GT_DESTROY(g, a, c);
}

int main(void)
{
    pool = gt_pool(4);
    test_queue_protocol();
    test_broadcast_and_single_push();
    test_serial_order();
    check_limit(2, WF_QUEUEING, 1);
    check_limit(3, WF_REJECTING, 1);
    check_limit(WF_UNLIMITED, WF_QUEUEING, 2);
    test_rejecting();
    test_remove_edge_and_reset();
    test_reset_protocol();
    test_no_output_and_destroy_middle();
    CHECK_OK(wf_pool_destroy(pool));
    CHECK_DONE("graph_nodes");
}
