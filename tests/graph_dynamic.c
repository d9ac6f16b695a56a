/* SPDX-License-Identifier: Apache-2.0 */
/* graph_dynamic: edges made and removed, and the graph drawn, while
 * messages flow; nothing is lost or doubled.
 *
 * Usage: graph_dynamic [messages]
 *
 * Proves: with two producer threads putting into a queue_node and the main
 * thread switching the queue's successor between two consumers (a queue
 * and a rejecting serial function node) and writing the DOT picture all
 * the while, every message ends up exactly once in one of the consumers or
 * still in the source queue; after the last edge is made, the source
 * drains.  Then a function node's bodies broadcast while edges to five
 * receivers are made and removed under them: each value passes once and
 * reaches a receiver at most once; and a continue node's bodies signal
 * continue nodes under the same edits.  Also key matching under concurrent
 * puts on both ports: every key pairs exactly once. */
#include <pthread.h>

#include "graph_test.h"

static long n_msgs;

typedef struct {
    wf_node *src;
    int id;
} prod_arg;

static void *producer(void *p)
{
    prod_arg *a = p;
    for (long v = a->id; v < n_msgs; v += 2)
        gt_put(a->src, (int)v);
    return NULL;
}

typedef struct {
    _Atomic unsigned char *seen;
} counter;

static int count_body(const void *in, void *out, void *ctx)
{
    (void)out;
    counter *c = ctx;
    atomic_fetch_add(&c->seen[*(const int *)in], 1);
    return 0;
}

static void test_edges_while_flowing(wf_pool *pool)
{
    wf_graph *g = gt_graph(pool);
    counter c = {calloc((size_t)n_msgs, 1)};
    wf_node *src = gt_queue(g, sizeof(int)), *a = gt_queue(g, sizeof(int));
    wf_node *f =
        gt_function(g, sizeof(int), 0, WF_SERIAL, WF_REJECTING, count_body, &c);
    pthread_t th[2];
    prod_arg args[2] = {{src, 0}, {src, 1}};
    for (int i = 0; i < 2; i++)
        CHECK(pthread_create(&th[i], NULL, producer, &args[i]) == 0);
    FILE *null = fopen("/dev/null", "w");
    CHECK(null != NULL);
    for (int round = 0; round < 200; round++) {
        wf_node *to = round & 1 ? f : a;
        CHECK_OK(wf_make_edge(src, to));
        CHECK_OK(wf_graph_write_dot(g, null));
        CHECK_OK(wf_remove_edge(src, to));
    }
    for (int i = 0; i < 2; i++)
        pthread_join(th[i], NULL);
    CHECK_OK(wf_make_edge(src, f)); /* the rest drains into f */
    CHECK_OK(wf_graph_wait_for_all(g));
    fclose(null);
    int v;
    CHECK_EQ(wf_try_get(src, &v), 0);
    while (wf_try_get(a, &v) == 1)
        atomic_fetch_add(&c.seen[v], 1);
    for (long i = 0; i < n_msgs; i++)
        CHECK_MSG(atomic_load(&c.seen[i]) == 1, "value %ld seen %d times", i,
                  atomic_load(&c.seen[i]));
    free((void *)c.seen);
    GT_DESTROY(g, src, a, f);
}

/* ---- edges edited while a body broadcasts -------------------------------- */

#define FANOUT 5

/* 200 rounds of making from's edges to the FANOUT receivers and removing
 * them in a rotating order, so that its list outgrows its first block,
 * and slots are cleared in every position. */
static void churn_edges(wf_node *from, wf_node *const *to)
{
    for (int round = 0; round < 200; round++) {
        for (int i = 0; i < FANOUT; i++)
            CHECK_OK(wf_make_edge(from, to[i]));
        for (int i = 0; i < FANOUT; i++)
            CHECK_OK(wf_remove_edge(from, to[(i + round) % FANOUT]));
    }
}

/* Counts each value it passes on. */
static int pass_body(const void *in, void *out, void *ctx)
{
    counter *c = ctx;
    int v = *(const int *)in;
    atomic_fetch_add(&c->seen[v], 1);
    *(int *)out = v;
    return 0;
}

/* A function node's bodies offer their outputs along its out-edges outside
 * its aggregator, walking its edge list lock-free (G7 in
 * docs/protocols.md), while the main thread makes and removes edges to
 * FANOUT receivers, so that the list outgrows its first block and new
 * edge records appear under the walk: every value goes through the body
 * once and reaches each receiver at most once.  Under ThreadSanitizer, a
 * list or an edge read without the release and acquire that publish it
 * is a data race. */
static void test_edits_under_broadcast(wf_pool *pool)
{
    wf_graph *g = gt_graph(pool);
    counter passed = {calloc((size_t)n_msgs, 1)}, got[FANOUT];
    wf_node *f = gt_function(g, sizeof(int), sizeof(int), WF_UNLIMITED,
                             WF_QUEUEING, pass_body, &passed);
    wf_node *to[FANOUT];
    for (int i = 0; i < FANOUT; i++) {
        got[i].seen = calloc((size_t)n_msgs, 1);
        CHECK(got[i].seen != NULL);
        to[i] = gt_function(g, sizeof(int), 0, WF_UNLIMITED, WF_QUEUEING,
                            count_body, &got[i]);
    }
    pthread_t th[2];
    prod_arg args[2] = {{f, 0}, {f, 1}};
    for (int i = 0; i < 2; i++)
        CHECK(pthread_create(&th[i], NULL, producer, &args[i]) == 0);
    churn_edges(f, to);
    for (int i = 0; i < 2; i++)
        pthread_join(th[i], NULL);
    CHECK_OK(wf_graph_wait_for_all(g));
    for (long v = 0; v < n_msgs; v++) {
        CHECK_MSG(atomic_load(&passed.seen[v]) == 1,
                  "value %ld passed %d times", v, atomic_load(&passed.seen[v]));
        for (int i = 0; i < FANOUT; i++)
            CHECK_MSG(atomic_load(&got[i].seen[v]) <= 1,
                      "receiver %d got value %ld %d times", i, v,
                      atomic_load(&got[i].seen[v]));
    }
    free((void *)passed.seen);
    for (int i = 0; i < FANOUT; i++)
        free((void *)got[i].seen);
    GT_DESTROY(g, f, to[0], to[1], to[2], to[3], to[4]);
}

/* ---- edges edited while a continue node signals -------------------------- */

typedef struct {
    wf_node *to;
    long n;
} signaller;

static void *signal_n(void *p)
{
    signaller *a = p;
    for (long i = 0; i < a->n; i++)
        CHECK_EQ(wf_try_put(a->to, NULL), 1);
    return NULL;
}

/* The same with a continue node, whose bodies signal their successors by
 * a walk of their own (continue.c's broadcast), and continue nodes as
 * receivers (no threshold: every signal is a round): each body runs once
 * per signal, and no receiver runs more often than the sender. */
static void test_edits_under_signals(wf_pool *pool)
{
    wf_graph *g = gt_graph(pool);
    _Atomic int sent = 0, got[FANOUT] = {0};
    wf_node *c = gt_continue_counter(g, &sent), *to[FANOUT];
    for (int i = 0; i < FANOUT; i++)
        to[i] = gt_continue_counter(g, &got[i]);
    pthread_t th[2];
    signaller args[2] = {{c, n_msgs / 2}, {c, n_msgs - n_msgs / 2}};
    for (int i = 0; i < 2; i++)
        CHECK(pthread_create(&th[i], NULL, signal_n, &args[i]) == 0);
    churn_edges(c, to);
    for (int i = 0; i < 2; i++)
        pthread_join(th[i], NULL);
    CHECK_OK(wf_graph_wait_for_all(g));
    CHECK_EQ(atomic_load(&sent), n_msgs);
    for (int i = 0; i < FANOUT; i++)
        CHECK(atomic_load(&got[i]) <= n_msgs);
    GT_DESTROY(g, c, to[0], to[1], to[2], to[3], to[4]);
}

/* ---- key matching with concurrent puts ----------------------------------- */

typedef struct {
    int key, port;
} kmsg;

static uint64_t tag_of(const void *msg, void *ctx)
{
    (void)ctx;
    return (uint64_t)((const kmsg *)msg)->key;
}

typedef struct {
    wf_node *join;
    int port;
} kprod_arg;

static void *key_producer(void *p)
{
    kprod_arg *a = p;
    for (long k = 0; k < n_msgs; k++) {
        /* port 1 walks the keys backwards */
        kmsg m = {(int)(a->port ? n_msgs - 1 - k : k), a->port};
        CHECK_EQ(wf_try_put(wf_input_port(a->join, (unsigned)a->port), &m), 1);
    }
    return NULL;
}

typedef struct {
    wf_node *join;
    _Atomic unsigned char *seen;
    _Atomic int bad;
} key_sink;

static int key_body(const void *in, void *out, void *ctx)
{
    (void)out;
    key_sink *s = ctx;
    const kmsg *m0 = wf_tuple_get(in, s->join, 0);
    const kmsg *m1 = wf_tuple_get(in, s->join, 1);
    if (m0->key != m1->key || m0->port != 0 || m1->port != 1)
        atomic_fetch_add(&s->bad, 1);
    atomic_fetch_add(&s->seen[m0->key], 1);
    return 0;
}

static void test_key_concurrent(wf_pool *pool)
{
    wf_graph *g = gt_graph(pool);
    size_t sizes[2] = {sizeof(kmsg), sizeof(kmsg)};
    wf_tag_fn tags[2] = {tag_of, tag_of};
    wf_join_config jc = WF_JOIN_CONFIG_INIT;
    jc.ports = 2;
    jc.msg_sizes = sizes;
    jc.policy = WF_JOIN_TAG_MATCHING;
    jc.tag_fns = tags;
    wf_node *j;
    CHECK_OK(wf_join_node_create(&j, g, &jc));
    key_sink s = {.join = j, .seen = calloc((size_t)n_msgs, 1)};
    wf_node *f = gt_function(g, wf_port_msg_size(wf_output_port(j, 0)), 0,
                             WF_UNLIMITED, WF_QUEUEING, key_body, &s);
    CHECK_OK(wf_make_edge(j, f));
    pthread_t th[2];
    kprod_arg args[2] = {{j, 0}, {j, 1}};
    for (int i = 0; i < 2; i++)
        CHECK(pthread_create(&th[i], NULL, key_producer, &args[i]) == 0);
    for (int i = 0; i < 2; i++)
        pthread_join(th[i], NULL);
    CHECK_OK(wf_graph_wait_for_all(g));
    CHECK_EQ(atomic_load(&s.bad), 0);
    for (long k = 0; k < n_msgs; k++)
        CHECK_EQ(atomic_load(&s.seen[k]), 1);
    unsigned char msg[64];
    CHECK_EQ(wf_try_get(j, msg), 0);
    free((void *)s.seen);
    GT_DESTROY(g, j, f);
}

int main(int argc, char **argv)
{
    n_msgs = argc > 1 ? atol(argv[1]) : 200000;
    CHECK(n_msgs > 0 && n_msgs < 100000000);
    wf_pool *pool = gt_pool(2);
    test_edges_while_flowing(pool);
    test_edits_under_broadcast(pool);
    test_edits_under_signals(pool);
    test_key_concurrent(pool);
    CHECK_OK(wf_pool_destroy(pool));
    CHECK_DONE("graph_dynamic");
}
