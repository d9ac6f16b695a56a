/* SPDX-License-Identifier: Apache-2.0 */
/* graph_lightweight: the lightweight policies of function, multifunction
 * and async nodes (oneTBB's lightweight, queueing_lightweight,
 * rejecting_lightweight).
 *
 * Proves: a put that finds a lightweight node idle runs the body before
 * it returns, on the putting thread and on the put's own message (the
 * body sees the caller's buffer, not a copy); a busy serial lightweight
 * node queues what comes meanwhile and still runs every message once, in
 * order per putter, never two at once, from many threads; a rejecting
 * lightweight node rejects while busy; a chain of 5000 lightweight nodes
 * fed from a thread with a 256 KiB stack, and a cycle of two that passes
 * a message 100000 times, both finish (the nesting on one thread is
 * bounded, the rest runs as tasks); a
 * lightweight body's error fails the graph as any body's does; a policy
 * out of range is WF_EINVAL for all three kinds. */
#include <pthread.h>

#include "graph_test.h"

static wf_pool *pool;

/* ---- runs on the putter, on its message ---------------------------------- */

typedef struct {
    const void *seen; /* the address the body was given */
    pthread_t thread;
    int calls;
} where_ctx;

static int where_body(const void *in, void *out, void *ctx)
{
    (void)out;
    where_ctx *w = ctx;
    w->seen = in;
    w->thread = pthread_self();
    w->calls++;
    return 0;
}

static void test_runs_on_putter(void)
{
    wf_graph *g = gt_graph(pool);
    where_ctx w = {0};
    wf_node *f = gt_function(g, sizeof(int), 0, WF_SERIAL, WF_LIGHTWEIGHT,
                             where_body, &w);
    for (int i = 0; i < 10; i++) {
        int v = i;
        CHECK_EQ(wf_try_put(f, &v), 1);
        /* Done before the put returned, here, on v itself. */
        CHECK_EQ(w.calls, i + 1);
        CHECK(w.seen == (const void *)&v);
        CHECK(pthread_equal(w.thread, pthread_self()));
    }
    CHECK_OK(wf_graph_wait_for_all(g));
    /* Without the policy the body gets a copy, on a worker. */
    where_ctx q = {0};
    wf_node *h =
        gt_function(g, sizeof(int), 0, WF_SERIAL, WF_QUEUEING, where_body, &q);
    int v = 7;
    CHECK_EQ(wf_try_put(h, &v), 1);
    CHECK_OK(wf_graph_wait_for_all(g));
    CHECK_EQ(q.calls, 1);
    CHECK(q.seen != (const void *)&v);
    GT_DESTROY(g, f, h);
}

/* ---- many putters, one serial lightweight node ---------------------------- */

#define PUTTERS 4
#define PER_PUTTER 20000

typedef struct {
    _Atomic int active, max_active;
    long next[PUTTERS]; /* per putter: the next sequence number */
    long bad, calls;    /* serial: only one body touches these at a time */
} order_ctx;

static int order_body(const void *in, void *out, void *ctx)
{
    (void)out;
    order_ctx *o = ctx;
    int a = atomic_fetch_add(&o->active, 1) + 1;
    int m = atomic_load(&o->max_active);
    while (a > m && !atomic_compare_exchange_weak(&o->max_active, &m, a))
        ;
    long msg[2];
    memcpy(msg, in, sizeof msg);
    o->bad += msg[1] != o->next[msg[0]];
    o->next[msg[0]] = msg[1] + 1;
    o->calls++;
    atomic_fetch_sub(&o->active, 1);
    return 0;
}

typedef struct {
    wf_node *f;
    long id;
} putter_arg;

static void *putter(void *p)
{
    putter_arg *a = p;
    for (long i = 0; i < PER_PUTTER; i++) {
        long msg[2] = {a->id, i};
        CHECK_EQ(wf_try_put(a->f, msg), 1);
    }
    return NULL;
}

static void test_serial_from_many_threads(void)
{
    wf_graph *g = gt_graph(pool);
    static order_ctx o;
    memset(&o, 0, sizeof o);
    wf_node *f = gt_function(g, 2 * sizeof(long), 0, WF_SERIAL, WF_LIGHTWEIGHT,
                             order_body, &o);
    pthread_t t[PUTTERS];
    putter_arg a[PUTTERS];
    for (long i = 0; i < PUTTERS; i++) {
        a[i] = (putter_arg){f, i};
        CHECK_EQ(pthread_create(&t[i], NULL, putter, &a[i]), 0);
    }
    for (int i = 0; i < PUTTERS; i++)
        CHECK_EQ(pthread_join(t[i], NULL), 0);
    CHECK_OK(wf_graph_wait_for_all(g));
    CHECK_EQ(o.calls, (long)PUTTERS * PER_PUTTER);
    CHECK_EQ(o.bad, 0);
    CHECK_EQ(atomic_load(&o.max_active), 1);
    for (int i = 0; i < PUTTERS; i++)
        CHECK_EQ(o.next[i], PER_PUTTER);
    GT_DESTROY(g, f);
}

/* ---- rejecting lightweight ------------------------------------------------ */

typedef struct {
    wf_node *self;
    int inner, calls;
} reject_ctx;

/* Puts to its own node while it runs: the node is busy, so that put is
 * rejected (and does not recurse). */
static int reject_body(const void *in, void *out, void *ctx)
{
    (void)out;
    reject_ctx *r = ctx;
    r->calls++;
    if (*(const int *)in == 0) {
        int v = 1;
        r->inner = wf_try_put(r->self, &v);
    }
    return 0;
}

static void test_rejecting(void)
{
    wf_graph *g = gt_graph(pool);
    reject_ctx r = {0};
    wf_node *f = gt_function(g, sizeof(int), 0, WF_SERIAL,
                             WF_REJECTING_LIGHTWEIGHT, reject_body, &r);
    r.self = f;
    int v = 0;
    CHECK_EQ(wf_try_put(f, &v), 1);
    CHECK_EQ(r.inner, 0); /* rejected while busy */
    CHECK_EQ(r.calls, 1);
    CHECK_EQ(wf_try_put(f, &v), 1); /* idle again */
    CHECK_EQ(r.calls, 2);
    CHECK_OK(wf_graph_wait_for_all(g));
    GT_DESTROY(g, f);
}

/* ---- deep chains and cycles ----------------------------------------------- */

#define CHAIN 5000
#define SMALL_STACK (256 * 1024)

static int plus_one(const void *in, void *out, void *ctx)
{
    (void)ctx;
    *(int *)out = *(const int *)in + 1;
    return 0;
}

static void *chain_putter(void *first)
{
    for (int i = 0; i < 10; i++)
        gt_put((wf_node *)first, i);
    return NULL;
}

static void test_chain(void)
{
    wf_graph *g = gt_graph(pool);
    static wf_node *n[CHAIN];
    for (int i = 0; i < CHAIN; i++) {
        n[i] = gt_function(g, sizeof(int), sizeof(int), WF_UNLIMITED,
                           WF_LIGHTWEIGHT, plus_one, NULL);
        if (i > 0)
            CHECK_OK(wf_make_edge(n[i - 1], n[i]));
    }
    wf_node *out = gt_queue(g, sizeof(int));
    CHECK_OK(wf_make_edge(n[CHAIN - 1], out));
    /* Put from a thread whose stack could not hold the chain's nesting. */
    pthread_attr_t attr;
    pthread_t t;
    CHECK_EQ(pthread_attr_init(&attr), 0);
    CHECK_EQ(pthread_attr_setstacksize(&attr, SMALL_STACK), 0);
    CHECK_EQ(pthread_create(&t, &attr, chain_putter, n[0]), 0);
    CHECK_EQ(pthread_join(t, NULL), 0);
    pthread_attr_destroy(&attr);
    CHECK_OK(wf_graph_wait_for_all(g));
    int got[10];
    CHECK_EQ(gt_drain(out, got, 10), 10);
    long sum = 0;
    for (int i = 0; i < 10; i++)
        sum += got[i];
    CHECK_EQ(sum, 10 * 9 / 2 + 10L * CHAIN);
    for (int i = 0; i < CHAIN; i++)
        wf_node_destroy(n[i]);
    GT_DESTROY(g, out);
}

#define BOUNCES 100000

typedef struct {
    _Atomic long passes;
} bounce_ctx;

/* Passes the counter on until it reaches BOUNCES. */
static int bounce(const void *in, void *out, void *ctx)
{
    bounce_ctx *b = ctx;
    atomic_fetch_add(&b->passes, 1);
    int v = *(const int *)in;
    if (v >= BOUNCES)
        return WF_NO_OUTPUT;
    *(int *)out = v + 1;
    return 0;
}

static void test_cycle(void)
{
    wf_graph *g = gt_graph(pool);
    bounce_ctx b = {0};
    wf_node *x = gt_function(g, sizeof(int), sizeof(int), WF_SERIAL,
                             WF_LIGHTWEIGHT, bounce, &b);
    wf_node *y = gt_function(g, sizeof(int), sizeof(int), WF_SERIAL,
                             WF_LIGHTWEIGHT, bounce, &b);
    CHECK_OK(wf_make_edge(x, y));
    CHECK_OK(wf_make_edge(y, x));
    gt_put(x, 1);
    CHECK_OK(wf_graph_wait_for_all(g));
    CHECK_EQ(atomic_load(&b.passes), BOUNCES);
    GT_DESTROY(g, x, y);
}

/* ---- errors ---------------------------------------------------------------- */

static int fail_body(const void *in, void *out, void *ctx)
{
    (void)in;
    (void)out;
    (void)ctx;
    return WF_ERANGE;
}

static int multi_nop(const void *in, wf_output_ports *ports, void *ctx)
{
    (void)in;
    (void)ports;
    (void)ctx;
    return 0;
}

static int async_nop(const void *in, wf_gateway *gw, void *ctx)
{
    (void)in;
    (void)gw;
    (void)ctx;
    return 0;
}

static void test_errors(void)
{
    wf_graph *g = gt_graph(pool);
    wf_node *f = gt_function(g, sizeof(int), 0, WF_SERIAL, WF_LIGHTWEIGHT,
                             fail_body, NULL);
    int v = 1;
    CHECK_EQ(wf_try_put(f, &v), 1);
    CHECK_EQ(wf_graph_wait_for_all(g), WF_ERANGE);
    wf_node *n = NULL;
    wf_function_config fc = WF_FUNCTION_CONFIG_INIT;
    fc.in_size = sizeof(int);
    fc.body = fail_body;
    fc.policy = (wf_fn_policy)4;
    CHECK_EQ(wf_function_node_create(&n, g, &fc), WF_EINVAL);
    fc.policy = (wf_fn_policy)-1;
    CHECK_EQ(wf_function_node_create(&n, g, &fc), WF_EINVAL);
    wf_multifunction_config mc = WF_MULTIFUNCTION_CONFIG_INIT;
    size_t out_size = sizeof(int);
    mc.in_size = sizeof(int);
    mc.out_ports = 1;
    mc.out_sizes = &out_size;
    mc.body = multi_nop;
    mc.policy = (wf_fn_policy)4;
    CHECK_EQ(wf_multifunction_node_create(&n, g, &mc), WF_EINVAL);
    mc.policy = WF_REJECTING_LIGHTWEIGHT;
    CHECK_OK(wf_multifunction_node_create(&n, g, &mc));
    wf_node_destroy(n);
    wf_async_config ac = WF_ASYNC_CONFIG_INIT;
    ac.in_size = sizeof(int);
    ac.out_size = sizeof(int);
    ac.body = async_nop;
    ac.policy = (wf_fn_policy)4;
    CHECK_EQ(wf_async_node_create(&n, g, &ac), WF_EINVAL);
    ac.policy = WF_LIGHTWEIGHT;
    CHECK_OK(wf_async_node_create(&n, g, &ac));
    wf_node_destroy(n);
    GT_DESTROY(g, f);
}

int main(void)
{
    pool = gt_pool(4);
    test_runs_on_putter();
    test_serial_from_many_threads();
    test_rejecting();
    test_chain();
    test_cycle();
    test_errors();
    CHECK_OK(wf_pool_destroy(pool));
    CHECK_DONE("graph_lightweight");
}
