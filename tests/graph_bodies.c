/* SPDX-License-Identifier: Apache-2.0 */
/* graph_bodies: multifunction_node, async_node, split_node and
 * indexer_node do what the oneTBB spec says.
 *
 * Usage: graph_bodies SCENARIO (one ctest entry each; see main).
 *
 * multifunction: a body sends zero, one or several messages per input to
 * any of several ports; the concurrency limit holds; a serial node runs
 * in order; a rejecting node behind a queue turns the edge to pull and
 * loses nothing.  async: wf_graph_wait_for_all waits for work an outside
 * thread holds through the gateway; its results reach the successors; a
 * body's error fails the graph.  split / indexer: tuples made by a join
 * come apart at the split's ports, get tagged by an indexer, and arrive
 * with the right values and port indices. */
#include "graph_service.h"

static wf_pool *pool;

/* ---- a body that measures concurrency ------------------------------------ */

typedef struct {
    _Atomic int active, max_active, calls;
    long sleep_us;
    int order[1000];
} conc;

static void conc_enter(conc *c, int v)
{
    int a = atomic_fetch_add(&c->active, 1) + 1;
    int m = atomic_load(&c->max_active);
    while (a > m && !atomic_compare_exchange_weak(&c->max_active, &m, a))
        ;
    if (c->sleep_us)
        gt_sleep_us(c->sleep_us);
    int k = atomic_fetch_add(&c->calls, 1);
    if (k < 1000)
        c->order[k] = v;
}

static void conc_leave(conc *c)
{
    atomic_fetch_sub(&c->active, 1);
}

/* ---- multifunction_node -------------------------------------------------- */

typedef struct {
    conc c;
    _Atomic int taken[2], unconnected_put, bad_port, null_msg;
} multi_ctx;

/* Count what a successor took (1) or nobody did (0). */
static void multi_send(multi_ctx *m, wf_output_ports *ports, unsigned i,
                       const void *msg)
{
    int r = wf_output_put(ports, i, msg);
    CHECK(r == 0 || r == 1);
    atomic_fetch_add(&m->taken[i], r);
}

/* Even v: v to port 0.  v % 3 == 0: v / 3 as a double to port 1, twice.
 * v % 5 == 0: v to port 2, which has no successor (wf_output_put says 0).
 * So 1, 7, 11, ... send nothing at all. */
static int multi_body(const void *in, wf_output_ports *ports, void *ctx)
{
    multi_ctx *m = ctx;
    int v = *(const int *)in;
    conc_enter(&m->c, v);
    if (v % 2 == 0)
        multi_send(m, ports, 0, &v);
    if (v % 3 == 0) {
        double d = v / 3.0;
        for (int k = 0; k < 2; k++)
            multi_send(m, ports, 1, &d);
    }
    if (v % 5 == 0 && wf_output_put(ports, 2, &v) == 0)
        atomic_fetch_add(&m->unconnected_put, 1);
    if (wf_output_put(ports, 3, &v) == WF_ENOPORT)
        atomic_fetch_add(&m->bad_port, 1);
    if (wf_output_put(ports, 0, NULL) == WF_EINVAL &&
        wf_output_put(NULL, 0, &v) == WF_EINVAL)
        atomic_fetch_add(&m->null_msg, 1);
    conc_leave(&m->c);
    return 0;
}

static wf_node *gt_multi(wf_graph *g, unsigned conc_limit, wf_fn_policy pol,
                         multi_ctx *m)
{
    static const size_t sizes[3] = {sizeof(int), sizeof(double), sizeof(int)};
    wf_multifunction_config c = WF_MULTIFUNCTION_CONFIG_INIT;
    c.in_size = sizeof(int);
    c.out_ports = 3;
    c.out_sizes = sizes;
    c.concurrency = conc_limit;
    c.policy = pol;
    c.body = multi_body;
    c.ctx = m;
    wf_node *n = NULL;
    CHECK_OK(wf_multifunction_node_create(&n, g, &c));
    return n;
}

static void test_multi_ports(void)
{
    wf_graph *g = gt_graph(pool);
    multi_ctx m = {0};
    wf_node *mf = gt_multi(g, WF_SERIAL, WF_QUEUEING, &m);
    wf_node *evens = gt_queue(g, sizeof(int));
    wf_node *thirds = gt_queue(g, sizeof(double));
    CHECK_EQ(wf_port_msg_size(wf_output_port(mf, 1)), sizeof(double));
    CHECK_ERR(wf_make_edge(wf_output_port(mf, 0), thirds), WF_ESIZE);
    CHECK_ERR(wf_make_edge(wf_output_port(mf, 3), evens), WF_ENOPORT);
    CHECK_ERR(wf_make_edge(mf, evens), WF_ENOPORT); /* three outputs */
    CHECK_OK(wf_make_edge(wf_output_port(mf, 0), evens));
    CHECK_OK(wf_make_edge(wf_output_port(mf, 1), thirds));
    for (int i = 0; i < 300; i++)
        gt_put(mf, i);
    CHECK_OK(wf_graph_wait_for_all(g));
    CHECK_EQ(atomic_load(&m.c.calls), 300);
    CHECK_EQ(atomic_load(&m.taken[0]), 150);
    CHECK_EQ(atomic_load(&m.taken[1]), 200);
    CHECK_EQ(atomic_load(&m.unconnected_put), 60);
    CHECK_EQ(atomic_load(&m.bad_port), 300);
    CHECK_EQ(atomic_load(&m.null_msg), 300);
    int e[300];
    CHECK_EQ(gt_drain(evens, e, 300), 150);
    for (int i = 0; i < 150; i++)
        CHECK_EQ(e[i], 2 * i); /* serial: in order */
    double d;
    for (int i = 0; i < 100; i++)
        for (int k = 0; k < 2; k++) {
            CHECK_EQ(wf_try_get(thirds, &d), 1);
            CHECK(d == (double)i);
        }
    CHECK_EQ(wf_try_get(thirds, &d), 0);
    CHECK(strcmp(wf_node_kind(mf), "multifunction_node") == 0);
    GT_DESTROY(g, mf, evens, thirds);
}

static void check_multi_limit(unsigned limit, int expect_min)
{
    wf_graph *g = gt_graph(pool);
    multi_ctx m = {.c.sleep_us = 1000};
    wf_node *q = gt_queue(g, sizeof(int));
    wf_node *mf = gt_multi(g, limit, WF_QUEUEING, &m);
    CHECK_OK(wf_make_edge(q, mf));
    for (int i = 0; i < 40; i++)
        gt_put(q, i);
    CHECK_OK(wf_graph_wait_for_all(g));
    CHECK_EQ(atomic_load(&m.c.calls), 40);
    int max = atomic_load(&m.c.max_active);
    CHECK_MSG(max >= expect_min && (limit == 0 || max <= (int)limit),
              "limit %u: max %d", limit, max);
    if (limit == WF_SERIAL)
        for (int i = 0; i < 40; i++)
            CHECK_EQ(m.c.order[i], i);
    GT_DESTROY(g, q, mf);
}

static void test_multi_limit(void)
{
    check_multi_limit(WF_SERIAL, 1);
    check_multi_limit(2, 2);
    check_multi_limit(WF_UNLIMITED, 2); /* 4 workers, sleeping bodies */
}

/* Behind a queue, a rejecting serial node pulls everything, in order; behind
 * a broadcast node, what it rejected is gone; a direct put over the limit
 * is rejected (0), not an error. */
static void test_multi_rejecting(void)
{
    wf_graph *g = gt_graph(pool);
    multi_ctx m1 = {.c.sleep_us = 2000}, m2 = {.c.sleep_us = 200};
    wf_node *bn = gt_broadcast(g, sizeof(int));
    wf_node *q = gt_queue(g, sizeof(int));
    wf_node *mf1 = gt_multi(g, WF_SERIAL, WF_REJECTING, &m1);
    wf_node *mf2 = gt_multi(g, WF_SERIAL, WF_REJECTING, &m2);
    wf_node *out = gt_queue(g, sizeof(int));
    CHECK_OK(wf_make_edge(bn, mf1));
    CHECK_OK(wf_make_edge(q, mf2));
    CHECK_OK(wf_make_edge(wf_output_port(mf2, 0), out));
    for (int i = 0; i < 100; i++) {
        gt_put(bn, i);
        gt_put(q, i);
    }
    CHECK_OK(wf_graph_wait_for_all(g));
    int c1 = atomic_load(&m1.c.calls);
    CHECK_MSG(c1 >= 1 && c1 < 100, "behind broadcast: %d of 100", c1);
    CHECK_EQ(atomic_load(&m2.c.calls), 100);
    for (int i = 0; i < 100; i++)
        CHECK_EQ(m2.c.order[i], i);
    int v, e[100];
    CHECK_EQ(wf_try_get(q, &v), 0);
    CHECK_EQ(gt_drain(out, e, 100), 50);
    m1.c.sleep_us = 20000;
    gt_put(mf1, 1);
    CHECK_EQ(wf_try_put(mf1, &v), 0);
    CHECK_OK(wf_graph_wait_for_all(g));
    GT_DESTROY(g, bn, q, mf1, mf2, out);
}

static int failing_multi(const void *in, wf_output_ports *ports, void *ctx)
{
    (void)ctx;
    int v = *(const int *)in;
    wf_output_put(ports, 0, &v);
    return v == 3 ? -1000 : 0;
}

/* Puts 0..n-1; those after a failing body may find the graph cancelled. */
static void put_until_cancelled(wf_node *n, int count)
{
    for (int i = 0; i < count; i++) {
        int r = wf_try_put(n, &i);
        CHECK_MSG(r == 1 || r == WF_ECANCELED, "put %d: %d", i, r);
    }
}

static void test_multi_errors(void)
{
    wf_graph *g = gt_graph(pool);
    size_t sizes[2] = {sizeof(int), 0};
    wf_multifunction_config c = WF_MULTIFUNCTION_CONFIG_INIT;
    wf_node *n = NULL;
    CHECK_ERR(wf_multifunction_node_create(&n, g, NULL), WF_EINVAL);
    CHECK_ERR(wf_multifunction_node_create(&n, g, &c), WF_EINVAL); /* body */
    c.body = failing_multi;
    c.out_sizes = sizes; /* the second is a signal port, which is allowed */
    c.in_size = sizeof(int);
    c.out_ports = 0;
    CHECK_ERR(wf_multifunction_node_create(&n, g, &c), WF_EINVAL);
    c.out_ports = 1;
    c.policy = (wf_fn_policy)7;
    CHECK_ERR(wf_multifunction_node_create(&n, g, &c), WF_EINVAL);
    c.policy = WF_QUEUEING;
    CHECK_ERR(wf_multifunction_node_create(NULL, g, &c), WF_EINVAL);
    CHECK_ERR(wf_multifunction_node_create(&n, NULL, &c), WF_EINVAL);
    CHECK(n == NULL);
    /* A body's error fails the graph; what it sent first stays sent. */
    c.concurrency = WF_SERIAL;
    CHECK_OK(wf_multifunction_node_create(&n, g, &c));
    wf_node *out = gt_queue(g, sizeof(int));
    CHECK_OK(wf_make_edge(n, out));
    put_until_cancelled(n, 10);
    CHECK_ERR(wf_graph_wait_for_all(g), -1000);
    int got[10];
    CHECK_EQ(gt_drain(out, got, 10), 4); /* 0..3, then cancelled */
    CHECK_OK(wf_graph_reset(g, WF_RESET_PROTOCOL));
    gt_put(n, 5);
    CHECK_OK(wf_graph_wait_for_all(g));
    CHECK_EQ(gt_drain(out, got, 10), 1);
    CHECK_EQ(got[0], 5);
    GT_DESTROY(g, n, out);
}

/* ---- async_node ---------------------------------------------------------- */

typedef struct {
    service *svc;
    conc c;
    wf_gateway *_Atomic seen_gw;
    int fail_at; /* input whose body returns an error; -1: none */
} async_ctx;

static int async_body(const void *in, wf_gateway *gw, void *ctx)
{
    async_ctx *a = ctx;
    int v = *(const int *)in;
    conc_enter(&a->c, v);
    atomic_store(&a->seen_gw, gw);
    if (v == a->fail_at) {
        conc_leave(&a->c);
        return -1000;
    }
    service_submit(a->svc, v, gw);
    conc_leave(&a->c);
    return 0;
}

static wf_node *gt_async(wf_graph *g, unsigned limit, wf_fn_policy pol,
                         async_ctx *a)
{
    wf_async_config c = WF_ASYNC_CONFIG_INIT;
    c.in_size = sizeof(int);
    c.out_size = sizeof(long);
    c.concurrency = limit;
    c.policy = pol;
    c.body = async_body;
    c.ctx = a;
    wf_node *n = NULL;
    CHECK_OK(wf_async_node_create(&n, g, &c));
    return n;
}

static long sum_drain(wf_node *q, int *count)
{
    long v, sum = 0;
    *count = 0;
    while (wf_try_get(q, &v) == 1) {
        sum += v;
        ++*count;
    }
    return sum;
}

/* The bodies return at once; the answers come 2 ms apart from the outside
 * thread.  wait_for_all must still see every one of them. */
static void test_async_wait(void)
{
    service svc;
    service_start(&svc, 2000, 0);
    wf_graph *g = gt_graph(pool);
    async_ctx a = {.svc = &svc, .fail_at = -1};
    wf_node *an = gt_async(g, WF_UNLIMITED, WF_QUEUEING, &a);
    wf_node *out1 = gt_queue(g, sizeof(long)),
            *out2 = gt_queue(g, sizeof(long));
    CHECK_OK(wf_make_edge(an, out1));
    CHECK_OK(wf_make_edge(an, out2)); /* broadcast-push */
    for (int i = 0; i < 50; i++)
        gt_put(an, i);
    CHECK_OK(wf_graph_wait_for_all(g));
    CHECK_EQ(atomic_load(&svc.answered), 50);
    int n1, n2;
    CHECK_EQ(sum_drain(out1, &n1), 3 * 50 * 49 / 2);
    CHECK_EQ(sum_drain(out2, &n2), 3 * 50 * 49 / 2);
    CHECK_EQ(n1, 50);
    CHECK_EQ(n2, 50);
    CHECK_EQ(atomic_load(&svc.put_failed), 0);
    CHECK(atomic_load(&a.seen_gw) == wf_async_node_gateway(an));
    CHECK(strcmp(wf_node_kind(an), "async_node") == 0);
    /* Reserved by hand from this (non-pool) thread: the graph stays open
     * until the release, and try_put works from here too. */
    wf_gateway *gw = wf_async_node_gateway(an);
    CHECK_OK(wf_gateway_reserve_wait(gw));
    long x = 99;
    CHECK_EQ(wf_gateway_try_put(gw, &x), 1);
    CHECK_OK(wf_gateway_release_wait(gw));
    CHECK_OK(wf_graph_wait_for_all(g));
    CHECK_EQ(sum_drain(out1, &n1), 99);
    GT_DESTROY(g, an, out1, out2);
    service_stop(&svc);
}

static void test_async_limit(void)
{
    service svc;
    service_start(&svc, 0, 0);
    wf_graph *g = gt_graph(pool);
    async_ctx a = {.svc = &svc, .fail_at = -1, .c.sleep_us = 500};
    wf_node *q = gt_queue(g, sizeof(int));
    wf_node *an = gt_async(g, WF_SERIAL, WF_REJECTING, &a);
    wf_node *out = gt_queue(g, sizeof(long));
    CHECK_OK(wf_make_edge(q, an));
    CHECK_OK(wf_make_edge(an, out));
    for (int i = 0; i < 40; i++)
        gt_put(q, i);
    CHECK_OK(wf_graph_wait_for_all(g));
    CHECK_EQ(atomic_load(&a.c.calls), 40);
    CHECK_EQ(atomic_load(&a.c.max_active), 1);
    for (int i = 0; i < 40; i++)
        CHECK_EQ(a.c.order[i], i); /* pulled in order */
    int n;
    CHECK_EQ(sum_drain(out, &n), 3 * 40 * 39 / 2);
    CHECK_EQ(n, 40);
    GT_DESTROY(g, q, an, out);
    service_stop(&svc);
}

static void test_async_errors(void)
{
    service svc;
    service_start(&svc, 1000, 0);
    wf_graph *g = gt_graph(pool);
    async_ctx a = {.svc = &svc, .fail_at = 5};
    wf_async_config c = WF_ASYNC_CONFIG_INIT;
    wf_node *n = NULL;
    CHECK_ERR(wf_async_node_create(&n, g, NULL), WF_EINVAL);
    c.in_size = sizeof(int);
    c.out_size = sizeof(long);
    CHECK_ERR(wf_async_node_create(&n, g, &c), WF_EINVAL); /* no body */
    c.body = async_body;
    c.out_size = 0;
    CHECK_ERR(wf_async_node_create(&n, g, &c), WF_EINVAL);
    c.out_size = sizeof(long);
    c.policy = (wf_fn_policy)-1;
    CHECK_ERR(wf_async_node_create(&n, g, &c), WF_EINVAL);
    CHECK(n == NULL);
    wf_node *an = gt_async(g, WF_SERIAL, WF_QUEUEING, &a);
    wf_node *out = gt_queue(g, sizeof(long));
    CHECK_OK(wf_make_edge(an, out));
    wf_gateway *gw = wf_async_node_gateway(an);
    CHECK(gw != NULL);
    CHECK(wf_async_node_gateway(out) == NULL);
    CHECK(wf_async_node_gateway(NULL) == NULL);
    CHECK_ERR(wf_gateway_release_wait(gw), WF_ENOENT); /* none reserved */
    CHECK_ERR(wf_gateway_release_wait(NULL), WF_EINVAL);
    CHECK_ERR(wf_gateway_reserve_wait(NULL), WF_EINVAL);
    long x = 1;
    CHECK_ERR(wf_gateway_try_put(NULL, &x), WF_EINVAL);
    CHECK_ERR(wf_gateway_try_put(gw, NULL), WF_EINVAL);
    /* Input 5's body fails: the graph is cancelled, the wait returns the
     * error once the outside work of 0..4 is released too. */
    put_until_cancelled(an, 10);
    CHECK_ERR(wf_graph_wait_for_all(g), -1000);
    CHECK_EQ(atomic_load(&svc.answered), 5);
    CHECK_EQ(atomic_load(&a.c.calls), 6); /* 6..9 never started */
    CHECK_ERR(wf_gateway_try_put(gw, &x), WF_ECANCELED);
    CHECK_OK(wf_graph_reset(g, WF_RESET_PROTOCOL));
    a.fail_at = -1;
    gt_put(an, 7);
    CHECK_OK(wf_graph_wait_for_all(g));
    int cnt; /* reset emptied out: only 7's answer is there */
    CHECK_EQ(sum_drain(out, &cnt), 21);
    CHECK_EQ(cnt, 1);
    GT_DESTROY(g, an, out);
    /* After the graph is gone the node refuses the gateway calls. */
    wf_graph *g2 = gt_graph(pool);
    wf_node *an2 = gt_async(g2, WF_SERIAL, WF_QUEUEING, &a);
    CHECK_OK(wf_graph_destroy(g2));
    gw = wf_async_node_gateway(an2);
    CHECK_ERR(wf_gateway_reserve_wait(gw), WF_EDESTROYED);
    CHECK_ERR(wf_gateway_try_put(gw, &x), WF_EDESTROYED);
    CHECK_OK(wf_node_destroy(an2));
    service_stop(&svc);
}

/* ---- split_node and indexer_node ----------------------------------------- */

typedef struct {
    char c;
    short s;
} small_pair; /* size 4, alignment 2 */

static const size_t tsizes[3] = {sizeof(int), sizeof(double),
                                 sizeof(small_pair)};

static void test_tuple_layout(void)
{
    size_t off[3];
    size_t size = wf_tuple_layout(3, tsizes, off);
    CHECK_EQ(off[0], 0);
    CHECK_EQ(off[1], 8);
    CHECK_EQ(off[2], 16);
    CHECK_EQ(size, 24);
    CHECK_EQ(wf_tuple_layout(3, tsizes, NULL), 24);
    size_t odd[2] = {1, 3};
    CHECK_EQ(wf_tuple_layout(2, odd, off), 4);
    CHECK_EQ(off[1], 1);
    size_t zero[2] = {4, 0};
    CHECK_EQ(wf_tuple_layout(2, zero, off), 0);
    CHECK_EQ(wf_tuple_layout(0, tsizes, off), 0);
    CHECK_EQ(wf_tuple_layout(1, NULL, off), 0);
}

/* join(int, double, pair) -> split -> three queues, plus a tuple built by
 * hand with wf_tuple_layout put into the split directly. */
static void test_split_roundtrip(void)
{
    wf_graph *g = gt_graph(pool);
    wf_node *j = gt_join(g, 3, tsizes, WF_JOIN_QUEUEING);
    wf_node *sp = NULL;
    CHECK_OK(wf_split_node_create(&sp, g, 3, tsizes));
    CHECK_EQ(wf_port_msg_size(wf_input_port(sp, 0)),
             wf_port_msg_size(wf_output_port(j, 0)));
    CHECK_OK(wf_make_edge(j, sp));
    wf_node *q[3];
    for (int i = 0; i < 3; i++) {
        q[i] = gt_queue(g, tsizes[i]);
        CHECK_OK(wf_make_edge(wf_output_port(sp, (unsigned)i), q[i]));
    }
    for (int i = 0; i < 100; i++) {
        double d = i + 0.5;
        small_pair p = {(char)i, (short)(i * 7)};
        gt_put(wf_input_port(j, 0), i);
        CHECK_EQ(wf_try_put(wf_input_port(j, 1), &d), 1);
        CHECK_EQ(wf_try_put(wf_input_port(j, 2), &p), 1);
    }
    size_t off[3];
    union {
        max_align_t align;
        char bytes[64];
    } tuple;
    CHECK_EQ(wf_tuple_layout(3, tsizes, off), 24);
    CHECK_OK(wf_graph_wait_for_all(g)); /* the joined ones first */
    int i100 = 100;
    double d100 = 100.5;
    small_pair p100 = {100, 700};
    memcpy(tuple.bytes + off[0], &i100, sizeof i100);
    memcpy(tuple.bytes + off[1], &d100, sizeof d100);
    memcpy(tuple.bytes + off[2], &p100, sizeof p100);
    CHECK_EQ(wf_try_put(sp, tuple.bytes), 1);
    CHECK(wf_tuple_get(tuple.bytes, sp, 1) == tuple.bytes + 8);
    CHECK(wf_tuple_get(tuple.bytes, sp, 3) == NULL);
    CHECK(wf_tuple_get(tuple.bytes, q[0], 0) == NULL);
    CHECK_OK(wf_graph_wait_for_all(g));
    for (int i = 0; i <= 100; i++) {
        int v;
        double d;
        small_pair p;
        CHECK_EQ(wf_try_get(q[0], &v), 1);
        CHECK_EQ(wf_try_get(q[1], &d), 1);
        CHECK_EQ(wf_try_get(q[2], &p), 1);
        CHECK_EQ(v, i);
        CHECK(d == i + 0.5);
        CHECK_EQ(p.c, (char)i);
        CHECK_EQ(p.s, i * 7);
    }
    int v;
    CHECK_EQ(wf_try_get(q[0], &v), 0);
    CHECK(strcmp(wf_node_kind(sp), "split_node") == 0);
    GT_DESTROY(g, j, sp, q[0], q[1], q[2]);
}

/* join -> split -> indexer -> two queues: every element comes back once,
 * tagged with its port, in order per port, to both successors. */
static void test_indexer_roundtrip(void)
{
    wf_graph *g = gt_graph(pool);
    wf_node *j = gt_join(g, 3, tsizes, WF_JOIN_QUEUEING);
    wf_node *sp = NULL, *ix = NULL;
    CHECK_OK(wf_split_node_create(&sp, g, 3, tsizes));
    CHECK_OK(wf_indexer_node_create(&ix, g, 3, tsizes));
    size_t tsize = wf_port_msg_size(wf_output_port(ix, 0));
    CHECK_EQ(tsize, WF_TAGGED_MSG_SIZE(sizeof(double)));
    CHECK_EQ(tsize % _Alignof(max_align_t), 0);
    CHECK_EQ(offsetof(wf_tagged_msg, value) % _Alignof(max_align_t), 0);
    wf_node *out[2] = {gt_queue(g, tsize), gt_queue(g, tsize)};
    CHECK_OK(wf_make_edge(j, sp));
    for (unsigned i = 0; i < 3; i++)
        CHECK_OK(wf_make_edge(wf_output_port(sp, i), wf_input_port(ix, i)));
    CHECK_OK(wf_make_edge(ix, out[0]));
    CHECK_OK(wf_make_edge(ix, out[1]));
    CHECK_ERR(wf_make_edge(ix, j), WF_ENOPORT); /* j has three inputs */
    for (int i = 0; i < 50; i++) {
        double d = i * 2.0;
        small_pair p = {(char)i, (short)-i};
        gt_put(wf_input_port(j, 0), i);
        CHECK_EQ(wf_try_put(wf_input_port(j, 1), &d), 1);
        CHECK_EQ(wf_try_put(wf_input_port(j, 2), &p), 1);
    }
    CHECK_OK(wf_graph_wait_for_all(g));
    wf_tagged_msg *m = malloc(tsize);
    CHECK(m != NULL);
    for (int o = 0; o < 2; o++) {
        int next[3] = {0, 0, 0};
        while (wf_try_get(out[o], m) == 1) {
            CHECK(m->port < 3);
            int i = next[m->port]++;
            if (m->port == 0)
                CHECK_EQ(*(int *)m->value, i);
            else if (m->port == 1)
                CHECK(*(double *)m->value == i * 2.0);
            else
                CHECK(((small_pair *)m->value)->s == -i &&
                      ((small_pair *)m->value)->c == (char)i);
            if (m->port != 1) /* shorter than the largest: zero after */
                CHECK_EQ(((unsigned char *)m->value)[7], 0);
        }
        for (int p = 0; p < 3; p++)
            CHECK_EQ(next[p], 50);
    }
    free(m);
    CHECK(strcmp(wf_node_kind(ix), "indexer_node") == 0);
    GT_DESTROY(g, j, sp, ix, out[0], out[1]);
}

static void test_tuple_node_errors(void)
{
    wf_graph *g = gt_graph(pool);
    wf_node *n = NULL;
    size_t sizes[WF_JOIN_MAX_PORTS + 1];
    for (int i = 0; i <= WF_JOIN_MAX_PORTS; i++)
        sizes[i] = 4;
    CHECK_ERR(wf_split_node_create(&n, g, 0, sizes), WF_EINVAL);
    CHECK_ERR(wf_split_node_create(&n, g, WF_JOIN_MAX_PORTS + 1, sizes),
              WF_EINVAL);
    CHECK_ERR(wf_split_node_create(&n, g, 2, NULL), WF_EINVAL);
    CHECK_ERR(wf_split_node_create(NULL, g, 2, sizes), WF_EINVAL);
    CHECK_ERR(wf_split_node_create(&n, NULL, 2, sizes), WF_EINVAL);
    CHECK_ERR(wf_indexer_node_create(&n, g, 0, sizes), WF_EINVAL);
    CHECK_ERR(wf_indexer_node_create(&n, g, WF_JOIN_MAX_PORTS + 1, sizes),
              WF_EINVAL);
    CHECK_ERR(wf_indexer_node_create(&n, g, 2, NULL), WF_EINVAL);
    CHECK_ERR(wf_indexer_node_create(NULL, g, 2, sizes), WF_EINVAL);
    sizes[1] = 0;
    CHECK_ERR(wf_split_node_create(&n, g, 2, sizes), WF_EINVAL);
    CHECK_ERR(wf_indexer_node_create(&n, g, 2, sizes), WF_EINVAL);
    CHECK(n == NULL);
    /* Neither can be pulled from or reserved; puts are always taken. */
    sizes[1] = 4;
    wf_node *ix = NULL, *sp = NULL;
    CHECK_OK(wf_indexer_node_create(&ix, g, WF_JOIN_MAX_PORTS, sizes));
    CHECK_OK(wf_split_node_create(&sp, g, 1, sizes));
    char buf[64];
    gt_put(wf_input_port(ix, WF_JOIN_MAX_PORTS - 1), 1);
    gt_put(sp, 1);
    CHECK_EQ(wf_try_get(ix, buf), 0);
    CHECK_EQ(wf_try_reserve(ix, buf), 0);
    CHECK_EQ(wf_try_get(sp, buf), 0);
    CHECK_ERR(wf_try_put(wf_input_port(ix, WF_JOIN_MAX_PORTS), buf),
              WF_ENOPORT);
    CHECK_OK(wf_graph_cancel(g));
    CHECK_ERR(wf_try_put(sp, buf), WF_ECANCELED);
    GT_DESTROY(g, ix, sp);
}

int main(int argc, char **argv)
{
    static const check_scenario scenarios[] = {
        {"multi_ports", test_multi_ports},
        {"multi_limit", test_multi_limit},
        {"multi_rejecting", test_multi_rejecting},
        {"multi_errors", test_multi_errors},
        {"async_wait", test_async_wait},
        {"async_limit", test_async_limit},
        {"async_errors", test_async_errors},
        {"tuple_layout", test_tuple_layout},
        {"split_roundtrip", test_split_roundtrip},
        {"indexer_roundtrip", test_indexer_roundtrip},
        {"tuple_node_errors", test_tuple_node_errors},
    };
    pool = gt_pool(4);
    int rc = CHECK_RUN_SCENARIOS("graph_bodies", argc, argv, scenarios);
    CHECK_OK(wf_pool_destroy(pool));
    return rc;
}
