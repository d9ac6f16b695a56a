/* SPDX-License-Identifier: Apache-2.0 */
/* graph_control: continue, input, limiter and sequencer nodes do what the
 * oneTBB spec pages say (continue_node_cls, input_node_cls,
 * limiter_node_cls, sequencer_node_cls).  One scenario per node kind, run
 * by name (argv[1]) so ctest lists each.
 *
 * continue: the threshold is the in-edges (make_edge raises it,
 * remove_edge lowers it) plus cfg->predecessors; the body runs once per
 * completed round, on a worker, and counting starts again; 0 predecessors
 * fire on every signal; outputs (data or signals) are broadcast; chains of
 * signals work; WF_NO_OUTPUT and errors; reset forgets a partial round;
 * signals from several threads at once are all counted; a wavefront of
 * continue nodes runs every cell once per sweep, after both of its
 * predecessors, counted (DOT) or not.
 * signals: size-0 ports exist where a signal makes sense (continue
 * ports, broadcast_node, queues and buffers of signals, which keep a
 * count) and are refused where they do not (joins, a priority queue);
 * try_put(port, NULL) is a signal there and WF_EINVAL on a data port. */
#include <limits.h>
#include <pthread.h>
#include <sched.h>

#include "graph_test.h"

static wf_pool *pool;

/* ---- continue_node ------------------------------------------------------- */

typedef struct {
    _Atomic int calls;
    _Atomic int off_worker; /* bodies that ran off the pool's workers */
    int rc;                 /* what the body returns */
} cont_stats;

/* Writes its call number (1, 2, ...) when it has an output. */
static int count_body(void *out, void *ctx)
{
    cont_stats *s = ctx;
    int k = atomic_fetch_add(&s->calls, 1) + 1;
    if (wf_worker_index() < 0)
        atomic_fetch_add(&s->off_worker, 1);
    if (out)
        *(int *)out = k;
    return s->rc;
}

static wf_node *gt_continue(wf_graph *g, size_t out_size, unsigned preds,
                            cont_stats *s)
{
    wf_continue_config c = WF_CONTINUE_CONFIG_INIT;
    c.out_size = out_size;
    c.predecessors = preds;
    c.body = count_body;
    c.ctx = s;
    wf_node *n = NULL;
    CHECK_OK(wf_continue_node_create(&n, g, &c));
    return n;
}

static void signal_(wf_node *n)
{
    CHECK_EQ(wf_try_put(n, NULL), 1);
}

/* Signals the continue node c from `count` of the broadcast nodes b and
 * checks how many bodies have run once the graph is idle. */
static void signal_from(wf_graph *g, wf_node **b, int count, cont_stats *s,
                        int expect)
{
    for (int i = 0; i < count; i++)
        signal_(b[i]);
    CHECK_OK(wf_graph_wait_for_all(g));
    CHECK_EQ(atomic_load(&s->calls), expect);
}

static void test_continue_threshold(void)
{
    wf_graph *g = gt_graph(pool);
    cont_stats s = {0};
    wf_node *c = gt_continue(g, sizeof(int), 0, &s);
    wf_node *q = gt_queue(g, sizeof(int)), *b[3];
    CHECK_OK(wf_make_edge(c, q));
    for (int i = 0; i < 3; i++) {
        b[i] = gt_broadcast(g, WF_SIGNAL);
        CHECK_OK(wf_make_edge(b[i], c)); /* each raises the threshold */
    }
    signal_from(g, b, 2, &s, 0);     /* 2 of 3: nothing yet */
    signal_from(g, b + 2, 1, &s, 1); /* the third completes the round */
    signal_from(g, b, 2, &s, 1);     /* counting started again from 0 */
    signal_from(g, b + 2, 1, &s, 2);
    CHECK_EQ(atomic_load(&s.off_worker), 0);
    int got[4];
    CHECK_EQ(gt_drain(q, got, 4), 2); /* outputs broadcast, in order */
    CHECK_EQ(got[0], 1);
    CHECK_EQ(got[1], 2);
    /* remove_edge lowers it: two predecessors left */
    CHECK_OK(wf_remove_edge(b[2], c));
    signal_from(g, b, 1, &s, 2);
    signal_from(g, b + 1, 1, &s, 3);
    /* A count already at the lowered threshold waits for the next signal
     * (oneTBB's remove_predecessor does not fire either). */
    signal_from(g, b, 1, &s, 3);
    CHECK_OK(wf_remove_edge(b[1], c)); /* threshold 1, count 1 */
    CHECK_EQ(atomic_load(&s.calls), 3);
    signal_from(g, b, 1, &s, 4);
    signal_from(g, b, 1, &s, 5); /* threshold 1: every signal */
    /* reset forgets a partial round */
    CHECK_OK(wf_make_edge(b[1], c));
    signal_from(g, b, 1, &s, 5);
    CHECK_OK(wf_graph_reset(g, WF_RESET_PROTOCOL));
    signal_from(g, b, 1, &s, 5);
    signal_from(g, b + 1, 1, &s, 6);
    GT_DESTROY(g, c, q, b[0], b[1], b[2]);
}

static void test_continue_predecessors(void)
{
    wf_graph *g = gt_graph(pool);
    cont_stats s = {0}, s0 = {0}, e = {.rc = WF_NO_OUTPUT};
    wf_node *c = gt_continue(g, WF_SIGNAL, 2, &s); /* two, without edges */
    signal_(c);
    CHECK_OK(wf_graph_wait_for_all(g));
    CHECK_EQ(atomic_load(&s.calls), 0);
    signal_(c);
    CHECK_OK(wf_graph_wait_for_all(g));
    CHECK_EQ(atomic_load(&s.calls), 1);
    /* cfg->predecessors adds to the edges: 2 + 1 */
    wf_node *b = gt_broadcast(g, WF_SIGNAL);
    CHECK_OK(wf_make_edge(b, c));
    signal_(b);
    signal_(c);
    CHECK_OK(wf_graph_wait_for_all(g));
    CHECK_EQ(atomic_load(&s.calls), 1);
    signal_(c);
    CHECK_OK(wf_graph_wait_for_all(g));
    CHECK_EQ(atomic_load(&s.calls), 2);
    /* 0 predecessors: every signal is a round; its output signal starts
     * the next node of a chain; WF_NO_OUTPUT sends nothing */
    wf_node *c0 = gt_continue(g, WF_SIGNAL, 0, &s0);
    wf_node *ce = gt_continue(g, WF_SIGNAL, 0, &e);
    CHECK_OK(wf_make_edge(c0, ce));
    wf_node *after = gt_continue(g, WF_SIGNAL, 0, &s);
    CHECK_OK(wf_make_edge(ce, after));
    for (int i = 0; i < 5; i++)
        signal_(c0);
    CHECK_OK(wf_graph_wait_for_all(g));
    CHECK_EQ(atomic_load(&s0.calls), 5);
    CHECK_EQ(atomic_load(&e.calls), 5);
    CHECK_EQ(atomic_load(&s.calls), 2); /* ce sent nothing */
    /* a negative result fails the graph */
    e.rc = -77;
    signal_(ce);
    CHECK_ERR(wf_graph_wait_for_all(g), -77);
    CHECK(wf_graph_is_cancelled(g));
    CHECK_OK(wf_graph_reset(g, WF_RESET_PROTOCOL));
    GT_DESTROY(g, c, b, c0, ce, after);
}

/* Several threads signal one node at once: every signal counts. */
enum { SIG_THREADS = 4, SIG_EACH = 5000 };

static void *signal_thread(void *arg)
{
    for (int i = 0; i < SIG_EACH; i++)
        CHECK_EQ(wf_try_put((wf_node *)arg, NULL), 1);
    return NULL;
}

static void test_continue_concurrent(void)
{
    wf_graph *g = gt_graph(pool);
    cont_stats s = {0}, every = {0};
    wf_node *c = gt_continue(g, WF_SIGNAL, SIG_THREADS, &s);
    wf_node *c0 = gt_continue(g, WF_SIGNAL, 0, &every);
    wf_node *b = gt_broadcast(g, WF_SIGNAL);
    CHECK_OK(wf_make_edge(b, c)); /* threshold SIG_THREADS + 1 */
    CHECK_OK(wf_make_edge(b, c0));
    pthread_t t[SIG_THREADS];
    for (int i = 0; i < SIG_THREADS; i++)
        CHECK(pthread_create(&t[i], NULL, signal_thread, b) == 0);
    for (int i = 0; i < SIG_THREADS; i++)
        pthread_join(t[i], NULL);
    CHECK_OK(wf_graph_wait_for_all(g));
    CHECK_EQ(atomic_load(&every.calls), SIG_THREADS * SIG_EACH);
    CHECK_EQ(atomic_load(&s.calls), SIG_THREADS * SIG_EACH / (SIG_THREADS + 1));
    GT_DESTROY(g, c, c0, b);
}

/* A function node whose input is a signal (oneTBB's
 * function_node<continue_msg, int>): out = how many times it ran. */
static int signal_body(const void *in, void *out, void *ctx)
{
    (void)in;
    *(int *)out = atomic_fetch_add((_Atomic int *)ctx, 1) + 1;
    return 0;
}

/* A multifunction node on signals, with a signal output port: each input
 * sends one signal on. */
static int signal_multi(const void *in, wf_output_ports *ports, void *ctx)
{
    (void)in, (void)ctx;
    return wf_output_put(ports, 0, NULL) == 1 ? 0 : -1;
}

static void test_signal_ports(void)
{
    wf_graph *g = gt_graph(pool);
    cont_stats s = {0};
    wf_node *n = NULL;
    wf_continue_config cc = WF_CONTINUE_CONFIG_INIT;
    CHECK_ERR(wf_continue_node_create(&n, g, &cc), WF_EINVAL); /* no body */
    cc.body = count_body;
    CHECK_ERR(wf_continue_node_create(NULL, g, &cc), WF_EINVAL);
    CHECK_ERR(wf_continue_node_create(&n, NULL, &cc), WF_EINVAL);
    CHECK_ERR(wf_continue_node_create(&n, g, NULL), WF_EINVAL);
    cc.predecessors = (unsigned)INT_MAX + 1; /* a round counts in 32 bits */
    CHECK_ERR(wf_continue_node_create(&n, g, &cc), WF_ERANGE);
    cc.predecessors = 0;
    CHECK(n == NULL);
    /* size 0 where a signal makes no sense */
    CHECK_ERR(wf_priority_queue_node_create(&n, g, WF_SIGNAL, NULL, NULL),
              WF_EINVAL);
    size_t sizes[2] = {WF_SIGNAL, 4};
    wf_join_config jc = WF_JOIN_CONFIG_INIT;
    jc.ports = 2;
    jc.msg_sizes = sizes;
    CHECK_ERR(wf_join_node_create(&n, g, &jc), WF_EINVAL);
    CHECK(n == NULL);
    /* and where it does */
    wf_node *c = gt_continue(g, sizeof(int), 0, &s);
    wf_node *b = gt_broadcast(g, WF_SIGNAL), *bi = gt_broadcast(g, sizeof(int));
    wf_node *q = gt_queue(g, sizeof(int));
    CHECK_EQ(wf_port_msg_size(wf_input_port(c, 0)), WF_SIGNAL);
    CHECK_EQ(wf_port_msg_size(wf_output_port(c, 0)), sizeof(int));
    CHECK_ERR(wf_make_edge(bi, c), WF_ESIZE); /* data into a signal port */
    CHECK_ERR(wf_make_edge(b, q), WF_ESIZE);
    CHECK_OK(wf_make_edge(b, c));
    CHECK_EQ(wf_try_put(b, NULL), 1);
    int dummy = 5;
    CHECK_EQ(wf_try_put(c, &dummy), 1);        /* a signal ignores its bytes */
    CHECK_ERR(wf_try_put(q, NULL), WF_EINVAL); /* NULL data message */
    CHECK_ERR(wf_try_put(bi, NULL), WF_EINVAL);
    CHECK_OK(wf_graph_wait_for_all(g));
    CHECK_EQ(atomic_load(&s.calls), 2); /* threshold 1: two rounds */
    CHECK_EQ(wf_try_get(c, &dummy), 0); /* continue keeps nothing */
    CHECK_EQ(wf_try_get(b, NULL), 0);   /* nor does a broadcast */
    CHECK_ERR(wf_try_get(q, NULL), WF_EINVAL);
    CHECK(strcmp(wf_node_kind(c), "continue_node") == 0);

    /* Signals into function nodes: continue -> multifunction (signal in,
     * signal out) -> function (signal in, int out) -> queue. */
    _Atomic int runs = 0;
    wf_multifunction_config mc = WF_MULTIFUNCTION_CONFIG_INIT;
    size_t signal_out = WF_SIGNAL;
    mc.in_size = WF_SIGNAL;
    mc.out_ports = 1;
    mc.out_sizes = &signal_out;
    mc.body = signal_multi;
    wf_node *m = NULL;
    CHECK_OK(wf_multifunction_node_create(&m, g, &mc));
    wf_node *f = gt_function(g, WF_SIGNAL, sizeof(int), WF_SERIAL, WF_QUEUEING,
                             signal_body, (void *)&runs);
    wf_node *c0 = gt_continue(g, WF_SIGNAL, 0, &s);
    CHECK_OK(wf_make_edge(b, c0));
    CHECK_OK(wf_make_edge(c0, m));
    CHECK_OK(wf_make_edge(m, f));
    CHECK_OK(wf_make_edge(f, q));
    enum { SIGNALS = 100 };
    for (int i = 0; i < SIGNALS; i++)
        CHECK_EQ(wf_try_put(b, NULL), 1);
    CHECK_OK(wf_graph_wait_for_all(g));
    CHECK_EQ(atomic_load(&runs), SIGNALS);
    for (int i = 1; i <= SIGNALS; i++) { /* serial: 1, 2, ... in order */
        int v = 0;
        CHECK_EQ(wf_try_get(q, &v), 1);
        CHECK_EQ(v, i);
    }
    GT_DESTROY(g, c, b, bi, q, m, f, c0);
}

/* ---- input_node ---------------------------------------------------------- */

typedef struct {
    int next, end; /* makes next, next+1, ..., end-1, then done */
    int rc;        /* returned instead of a message, when not 0 */
    _Atomic int calls, active, overlap, off_worker;
} counter;

static int count_up(void *out, void *ctx)
{
    counter *c = ctx;
    atomic_fetch_add(&c->calls, 1);
    if (atomic_fetch_add(&c->active, 1) != 0)
        atomic_fetch_add(&c->overlap, 1); /* never two at once */
    if (wf_worker_index() < 0)
        atomic_fetch_add(&c->off_worker, 1);
    int rc = c->rc ? c->rc : c->next < c->end ? 0 : WF_INPUT_DONE;
    if (rc == 0)
        *(int *)out = c->next++;
    atomic_fetch_sub(&c->active, 1);
    return rc;
}

static wf_node *gt_input(wf_graph *g, counter *c)
{
    wf_input_config ic = WF_INPUT_CONFIG_INIT;
    ic.out_size = sizeof(int);
    ic.body = count_up;
    ic.ctx = c;
    wf_node *n = NULL;
    CHECK_OK(wf_input_node_create(&n, g, &ic));
    return n;
}

static wf_node *gt_limiter(wf_graph *g, size_t threshold)
{
    wf_node *n = NULL;
    CHECK_OK(wf_limiter_node_create(&n, g, sizeof(int), threshold));
    return n;
}

#define DECREMENT(lim) CHECK_EQ(wf_try_put(wf_input_port((lim), 1), NULL), 1)

/* q holds exactly from, from+1, ..., to-1. */
static void expect_run(wf_node *q, int from, int to)
{
    int got[256];
    CHECK_EQ(gt_drain(q, got, 256), to - from);
    for (int i = from; i < to; i++)
        CHECK_EQ(got[i - from], i);
}

static void test_input_push_and_done(void)
{
    wf_graph *g = gt_graph(pool);
    counter c = {.end = 100};
    wf_node *in = gt_input(g, &c), *q = gt_queue(g, sizeof(int));
    CHECK_OK(wf_make_edge(in, q));
    int v;
    CHECK_EQ(wf_try_get(in, &v), 0); /* inactive: no body call */
    CHECK_OK(wf_graph_wait_for_all(g));
    CHECK_EQ(atomic_load(&c.calls), 0);
    CHECK_OK(wf_input_node_activate(in));
    CHECK_OK(wf_graph_wait_for_all(g));
    expect_run(q, 0, 100); /* every message broadcast, in order */
    CHECK_EQ(atomic_load(&c.calls), 101); /* then done: not called again */
    CHECK_EQ(wf_try_get(in, &v), 0);
    CHECK_OK(wf_input_node_activate(in));
    CHECK_OK(wf_graph_wait_for_all(g));
    CHECK_EQ(atomic_load(&c.calls), 101);
    CHECK_EQ(atomic_load(&c.off_worker), 0); /* bodies on the pool */
    /* broadcast: every successor gets every message */
    CHECK_OK(
        wf_graph_reset(g, WF_RESET_PROTOCOL)); /* inactive again, not done */
    c.next = 0;
    c.end = 20;
    wf_node *q2 = gt_queue(g, sizeof(int));
    CHECK_OK(wf_make_edge(in, q2));
    CHECK_OK(wf_graph_wait_for_all(g));
    CHECK_EQ(atomic_load(&c.calls), 101); /* reset made it inactive */
    CHECK_OK(wf_input_node_activate(in));
    CHECK_OK(wf_graph_wait_for_all(g));
    expect_run(q, 0, 20);
    expect_run(q2, 0, 20);
    CHECK_EQ(atomic_load(&c.overlap), 0);
    /* a body error fails the graph */
    CHECK_OK(wf_graph_reset(g, WF_RESET_PROTOCOL));
    c.rc = -9;
    CHECK_OK(wf_input_node_activate(in));
    CHECK_ERR(wf_graph_wait_for_all(g), -9);
    CHECK_EQ(wf_try_get(in, &v), 0); /* failed: no more calls */
    CHECK_OK(wf_graph_reset(g, WF_RESET_PROTOCOL));
    /* errors */
    wf_node *n = NULL;
    wf_input_config ic = WF_INPUT_CONFIG_INIT;
    ic.out_size = 4;
    CHECK_ERR(wf_input_node_create(&n, g, &ic), WF_EINVAL); /* no body */
    ic.body = count_up;
    ic.out_size = 0;
    CHECK_ERR(wf_input_node_create(&n, g, &ic), WF_EINVAL);
    ic.out_size = 4;
    CHECK_ERR(wf_input_node_create(NULL, g, &ic), WF_EINVAL);
    CHECK_ERR(wf_input_node_create(&n, NULL, &ic), WF_EINVAL);
    CHECK_ERR(wf_input_node_create(&n, g, NULL), WF_EINVAL);
    CHECK(n == NULL);
    CHECK_ERR(wf_input_node_activate(NULL), WF_EINVAL);
    CHECK_ERR(wf_input_node_activate(q), WF_EINVAL);
    CHECK_ERR(wf_try_put(wf_input_port(in, 0), &v), WF_ENOPORT); /* no input */
    CHECK(strcmp(wf_node_kind(in), "input_node") == 0);
    GT_DESTROY(g, in, q, q2);
}

/* Rejected by every successor, the message stays buffered: it is the one
 * try_get returns, and the body is called only when the buffer is empty;
 * it is reservable; a new successor is offered it first. */
static void test_input_buffer_and_pull(void)
{
    wf_graph *g = gt_graph(pool);
    counter c = {.end = 1000};
    wf_node *in = gt_input(g, &c), *lim = gt_limiter(g, 2);
    wf_node *q = gt_queue(g, sizeof(int));
    CHECK_OK(wf_make_edge(in, wf_input_port(lim, 0)));
    CHECK_OK(wf_make_edge(lim, q));
    CHECK_OK(wf_input_node_activate(in));
    CHECK_OK(wf_graph_wait_for_all(g));
    expect_run(q, 0, 2);                /* the limiter took two */
    CHECK_EQ(atomic_load(&c.calls), 3); /* 2 was made and rejected */
    int v = -1;
    CHECK_EQ(wf_try_reserve(in, &v), 1);
    CHECK_EQ(v, 2);
    CHECK_EQ(wf_try_get(in, &v), 0); /* reserved */
    CHECK_EQ(wf_try_reserve(in, &v), 0);
    CHECK_EQ(wf_try_release(in), 1);
    CHECK_ERR(wf_try_release(in), WF_ENOENT);
    CHECK_ERR(wf_try_consume(in), WF_ENOENT);
    CHECK_EQ(wf_try_get(in, &v), 1);
    CHECK_EQ(v, 2); /* the buffered one, not a new */
    CHECK_EQ(atomic_load(&c.calls), 3);
    CHECK_EQ(wf_try_get(in, &v), 1); /* empty: the body makes one */
    CHECK_EQ(v, 3);
    CHECK_EQ(atomic_load(&c.calls), 4);
    CHECK_EQ(wf_try_reserve(in, &v), 1); /* made for a reservation */
    CHECK_EQ(v, 4);
    CHECK_EQ(wf_try_consume(in), 1);
    CHECK_OK(wf_graph_wait_for_all(g));
    CHECK_EQ(wf_port_msg_size(wf_output_port(in, 0)), sizeof(int));
    /* the limiter pulls when decremented: 5 passes */
    DECREMENT(lim);
    CHECK_OK(wf_graph_wait_for_all(g));
    expect_run(q, 5, 6);
    /* a new successor is offered the buffered message first, then more */
    CHECK_EQ(wf_try_reserve(in, &v), 1); /* 6 made and buffered ... */
    CHECK_EQ(v, 6);
    CHECK_EQ(wf_try_release(in), 1); /* ... no successor in push state */
    CHECK_OK(wf_graph_wait_for_all(g));
    CHECK_EQ(atomic_load(&c.calls), 7); /* 0-2, 3, 4, 5, 6 */
    c.end = 20;
    wf_node *q2 = gt_queue(g, sizeof(int));
    CHECK_OK(wf_make_edge(in, q2));
    CHECK_OK(wf_graph_wait_for_all(g));
    int got[64];
    int k = gt_drain(q2, got, 64);
    CHECK(k >= 1);
    for (int i = 0; i < k; i++)
        CHECK_EQ(got[i], 6 + i); /* nothing lost, nothing twice */
    CHECK_EQ(6 + k, 20);
    CHECK_EQ(atomic_load(&c.overlap), 0);
    GT_DESTROY(g, in, lim, q, q2);
}

static void test_input(void)
{
    test_input_push_and_done();
    test_input_buffer_and_pull();
}

/* ---- limiter_node -------------------------------------------------------- */

static void test_limiter_counts(void)
{
    wf_graph *g = gt_graph(pool);
    wf_node *lim = gt_limiter(g, 3), *q = gt_queue(g, sizeof(int));
    /* no successor took it: not broadcast, not counted */
    int v = 7;
    CHECK_EQ(wf_try_put(wf_input_port(lim, 0), &v), 0);
    CHECK_OK(wf_make_edge(lim, q));
    for (int i = 0; i < 5; i++) /* at most threshold pass */
        CHECK_EQ(wf_try_put(wf_input_port(lim, 0), &i), i < 3);
    expect_run(q, 0, 3);
    DECREMENT(lim); /* one more may pass */
    v = 3;
    CHECK_EQ(wf_try_put(wf_input_port(lim, 0), &v), 1);
    CHECK_EQ(wf_try_put(wf_input_port(lim, 0), &v), 0);
    expect_run(q, 3, 4);
    /* the count is truncated to [0, threshold]: signals beyond the
     * messages passed are not saved up */
    for (int i = 0; i < 10; i++)
        DECREMENT(lim);
    for (int i = 0; i < 6; i++)
        CHECK_EQ(wf_try_put(wf_input_port(lim, 0), &i), i < 3);
    expect_run(q, 0, 3);
    CHECK_EQ(wf_try_get(lim, &v), 0); /* it keeps nothing */
    /* reset: the count starts from 0 */
    CHECK_OK(wf_graph_reset(g, WF_RESET_PROTOCOL));
    for (int i = 0; i < 4; i++)
        CHECK_EQ(wf_try_put(wf_input_port(lim, 0), &i), i < 3);
    expect_run(q, 0, 3);
    /* threshold 0 passes nothing */
    wf_node *none = gt_limiter(g, 0);
    CHECK_OK(wf_make_edge(none, q));
    DECREMENT(none);
    CHECK_EQ(wf_try_put(wf_input_port(none, 0), &v), 0);
    /* errors */
    wf_node *n = NULL, *bi = gt_broadcast(g, sizeof(int));
    CHECK_ERR(wf_limiter_node_create(&n, g, 0, 3), WF_EINVAL);
    CHECK_ERR(wf_limiter_node_create(NULL, g, 4, 3), WF_EINVAL);
    CHECK_ERR(wf_limiter_node_create(&n, NULL, 4, 3), WF_EINVAL);
    CHECK(n == NULL);
    CHECK_ERR(wf_try_put(lim, &v), WF_ENOPORT); /* two inputs: name one */
    CHECK_ERR(wf_try_put(wf_input_port(lim, 2), &v), WF_ENOPORT);
    CHECK_ERR(wf_try_put(wf_input_port(lim, 0), NULL), WF_EINVAL);
    CHECK_ERR(wf_make_edge(bi, wf_input_port(lim, 1)), WF_ESIZE);
    CHECK_EQ(wf_port_msg_size(wf_input_port(lim, 1)), WF_SIGNAL);
    CHECK(strcmp(wf_node_kind(lim), "limiter_node") == 0);
    GT_DESTROY(g, lim, q, none, bi);
}

/* Behind a queue: the rejected messages wait there and are pulled, in
 * order, one per decrement; signals can come from a continue_node. */
static void test_limiter_pulls(void)
{
    wf_graph *g = gt_graph(pool);
    wf_node *src = gt_queue(g, sizeof(int)), *lim = gt_limiter(g, 3);
    wf_node *q = gt_queue(g, sizeof(int));
    cont_stats s = {0};
    wf_node *dec = gt_continue(g, WF_SIGNAL, 0, &s);
    CHECK_OK(wf_make_edge(src, wf_input_port(lim, 0)));
    CHECK_OK(wf_make_edge(lim, q));
    CHECK_OK(wf_make_edge(dec, wf_input_port(lim, 1)));
    for (int i = 0; i < 10; i++)
        gt_put(src, i);
    CHECK_OK(wf_graph_wait_for_all(g));
    expect_run(q, 0, 3);
    DECREMENT(lim);
    DECREMENT(lim);
    CHECK_OK(wf_graph_wait_for_all(g));
    expect_run(q, 3, 5);
    for (int i = 0; i < 3; i++)
        signal_(dec);
    CHECK_OK(wf_graph_wait_for_all(g));
    expect_run(q, 5, 8);
    int v;
    CHECK_EQ(wf_try_get(src, &v), 1); /* the rest waited in src */
    CHECK_EQ(v, 8);
    GT_DESTROY(g, src, lim, q, dec);
}

/* Decrements racing with offers (regression): queue -> limiter(2) ->
 * serial rejecting function, whose body decrements the limiter, while
 * another thread sends spare decrements.  A decrement that lowered the
 * count of a message still being offered, which then did not pass, made
 * the count wrap and the limiter refuse every later message: the
 * pipeline stalled with messages left in the queue.  Every message must
 * get through, in every round. */
typedef struct {
    wf_node *lim;
    _Atomic int done, stop;
} race_ctx;

static int race_body(const void *in, void *out, void *ctx)
{
    (void)in, (void)out;
    race_ctx *c = ctx;
    atomic_fetch_add(&c->done, 1);
    DECREMENT(c->lim);
    return 0;
}

static void *spare_decrements(void *arg)
{
    race_ctx *c = arg;
    while (!atomic_load(&c->stop)) {
        DECREMENT(c->lim);
        sched_yield();
    }
    return NULL;
}

static void test_limiter_race(void)
{
#ifdef WF_TEST_SANITIZED
    enum { ROUNDS = 20, N = 100 };
#else
    enum { ROUNDS = 200, N = 200 };
#endif
    wf_pool *p4 = gt_pool(4);
    for (int round = 0; round < ROUNDS; round++) {
        wf_graph *g = gt_graph(p4);
        race_ctx c = {.lim = gt_limiter(g, 2)};
        wf_node *src = gt_queue(g, sizeof(int));
        wf_node *f = gt_function(g, sizeof(int), 0, WF_SERIAL, WF_REJECTING,
                                 race_body, &c);
        CHECK_OK(wf_make_edge(src, wf_input_port(c.lim, 0)));
        CHECK_OK(wf_make_edge(c.lim, f));
        pthread_t th;
        CHECK(pthread_create(&th, NULL, spare_decrements, &c) == 0);
        for (int i = 0; i < N; i++)
            gt_put(src, i);
        /* Until the queue is empty: a message a spare decrement let in
         * late may still be on its way when a wait returns. */
        int v;
        for (int k = 0; k < 1000 && atomic_load(&c.done) < N; k++) {
            CHECK_OK(wf_graph_wait_for_all(g));
            DECREMENT(c.lim);
        }
        atomic_store(&c.stop, 1);
        CHECK(pthread_join(th, NULL) == 0);
        CHECK_OK(wf_graph_wait_for_all(g));
        CHECK_MSG(atomic_load(&c.done) == N,
                  "round %d: %d of %d messages got through the limiter", round,
                  atomic_load(&c.done), N);
        CHECK_EQ(wf_try_get(src, &v), 0);
        GT_DESTROY(g, src, c.lim, f);
    }
    CHECK_OK(wf_pool_destroy(p4));
}

/* The integral decrement (oneTBB's limiter_node<T, int>): positive
 * amounts lower the count by that much, negative ones raise it, and the
 * count stays inside [0, threshold]. */
static void decrement_by(wf_node *lim, int64_t k)
{
    CHECK_EQ(wf_try_put(wf_input_port(lim, 1), &k), 1);
}

static int drain_count(wf_node *q)
{
    int v, n = 0;
    while (wf_try_get(q, &v) == 1)
        n++;
    return n;
}

static void test_limiter_counted(void)
{
    wf_graph *g = gt_graph(pool);
    wf_node *src = gt_queue(g, sizeof(int)), *lim = NULL;
    CHECK_OK(wf_limiter_node_create_counted(&lim, g, sizeof(int), 5));
    wf_node *q = gt_queue(g, sizeof(int));
    CHECK_OK(wf_make_edge(src, wf_input_port(lim, 0)));
    CHECK_OK(wf_make_edge(lim, q));
    CHECK_EQ(wf_port_msg_size(wf_input_port(lim, 1)), sizeof(int64_t));
    CHECK_ERR(wf_try_put(wf_input_port(lim, 1), NULL), WF_EINVAL);
    for (int i = 0; i < 12; i++)
        gt_put(src, i);
    CHECK_OK(wf_graph_wait_for_all(g));
    CHECK_EQ(drain_count(q), 5); /* the threshold */
    decrement_by(lim, 2);
    CHECK_OK(wf_graph_wait_for_all(g));
    CHECK_EQ(drain_count(q), 2);
    decrement_by(lim, 100); /* truncated at 0: 5 more, not 100 */
    CHECK_OK(wf_graph_wait_for_all(g));
    CHECK_EQ(drain_count(q), 5); /* 12 passed; the queue is empty */
    decrement_by(lim, 2);        /* count 3 */
    decrement_by(lim, -1000);    /* raised, truncated at the threshold */
    gt_put(src, 12);
    CHECK_OK(wf_graph_wait_for_all(g));
    CHECK_EQ(drain_count(q), 0); /* at the threshold: 12 waits in src */
    decrement_by(lim, 1);
    CHECK_OK(wf_graph_wait_for_all(g));
    CHECK_EQ(drain_count(q), 1);
    decrement_by(lim, 0);         /* nothing changes */
    decrement_by(lim, INT64_MIN); /* no overflow: the threshold again */
    GT_DESTROY(g, src, lim, q);
}

/* Queues and buffers of signals (oneTBB's queue_node<continue_msg>) keep
 * a count: try_get / reserve take one at a time, and behind a continue
 * node each held signal fires it once. */
static void test_signal_buffers(void)
{
    wf_graph *g = gt_graph(pool);
    wf_node *q = gt_queue(g, WF_SIGNAL), *b = gt_buffer(g, WF_SIGNAL);
    CHECK_EQ(wf_port_msg_size(wf_output_port(q, 0)), WF_SIGNAL);
    CHECK_ERR(wf_try_put(q, &(int){1}), 1); /* a signal ignores its bytes */
    for (int i = 0; i < 4; i++)
        CHECK_EQ(wf_try_put(q, NULL), 1);
    int n = 0;
    while (wf_try_get(q, NULL) == 1)
        n++;
    CHECK_EQ(n, 5);
    CHECK_EQ(wf_try_put(b, NULL), 1);
    CHECK_EQ(wf_try_reserve(b, NULL), 1);
    CHECK_EQ(wf_try_reserve(b, NULL), 0); /* the one signal is lent */
    CHECK_EQ(wf_try_release(b), 1);
    CHECK_EQ(wf_try_reserve(b, NULL), 1);
    CHECK_EQ(wf_try_consume(b), 1);
    CHECK_EQ(wf_try_get(b, NULL), 0);
    cont_stats s = {0};
    wf_node *c = gt_continue(g, WF_SIGNAL, 0, &s);
    for (int i = 0; i < 7; i++)
        CHECK_EQ(wf_try_put(q, NULL), 1);
    CHECK_OK(wf_make_edge(q, c)); /* the held signals go out */
    CHECK_OK(wf_graph_wait_for_all(g));
    CHECK_EQ(atomic_load(&s.calls), 7);
    CHECK_EQ(wf_try_get(q, NULL), 0);
    GT_DESTROY(g, q, b, c);
}

static void test_limiter(void)
{
    test_limiter_counts();
    test_limiter_pulls();
    test_limiter_race();
    test_limiter_counted();
}

/* ---- sequencer_node ------------------------------------------------------ */

typedef struct {
    size_t seq;
    long val;
} item;

static size_t item_seq(const void *msg, void *ctx)
{
    (void)ctx;
    return ((const item *)msg)->seq;
}

static wf_node *gt_sequencer(wf_graph *g)
{
    wf_node *n = NULL;
    CHECK_OK(wf_sequencer_node_create(&n, g, sizeof(item), item_seq, NULL));
    return n;
}

static int put_item(wf_node *n, size_t seq)
{
    item it = {seq, 10 * (long)seq};
    return wf_try_put(n, &it);
}

/* The next items in s are from..to-1 (by try_get). */
static void expect_items(wf_node *s, size_t from, size_t to)
{
    item it;
    for (size_t i = from; i < to; i++) {
        CHECK_EQ(wf_try_get(s, &it), 1);
        CHECK_EQ(it.seq, i);
        CHECK_EQ(it.val, 10 * (long)i);
    }
    CHECK_EQ(wf_try_get(s, &it), 0);
}

static void test_sequencer_order(void)
{
    wf_graph *g = gt_graph(pool);
    wf_node *s = gt_sequencer(g);
    item it;
    for (size_t i = 40; i-- > 1;) /* 39 .. 1: nothing can go yet */
        CHECK_EQ(put_item(s, i), 1);
    CHECK_EQ(wf_try_get(s, &it), 0);
    CHECK_EQ(wf_try_reserve(s, &it), 0);
    CHECK_EQ(put_item(s, 5), 0); /* a duplicate of a waiting number */
    CHECK_EQ(put_item(s, 0), 1);
    CHECK_EQ(wf_try_reserve(s, &it), 1); /* reservation, like a buffer */
    CHECK_EQ(it.seq, 0);
    CHECK_EQ(wf_try_get(s, &it), 0);
    CHECK_EQ(wf_try_release(s), 1);
    CHECK_ERR(wf_try_release(s), WF_ENOENT);
    CHECK_EQ(wf_try_reserve(s, &it), 1);
    CHECK_EQ(it.seq, 0);
    CHECK_EQ(wf_try_consume(s), 1);
    expect_items(s, 1, 40);
    CHECK_EQ(put_item(s, 7), 0);  /* already let out: rejected */
    CHECK_EQ(put_item(s, 41), 1); /* a gap at 40 holds it back */
    CHECK_EQ(wf_try_get(s, &it), 0);
    CHECK_EQ(put_item(s, 40), 1);
    expect_items(s, 40, 42);
    /* a number too far ahead to make room for */
    CHECK_ERR(put_item(s, SIZE_MAX), WF_ENOMEM);
    CHECK_EQ(put_item(s, 42), 1); /* and nothing else changed */
    expect_items(s, 42, 43);
    /* reset: numbering starts again from 0 */
    CHECK_EQ(put_item(s, 44), 1);
    CHECK_OK(wf_graph_reset(g, WF_RESET_PROTOCOL));
    CHECK_EQ(put_item(s, 1), 1);
    CHECK_EQ(put_item(s, 0), 1);
    expect_items(s, 0, 2);
    /* one successor at a time (single-push), in order */
    wf_node *q1 = gt_queue(g, sizeof(item)), *q2 = gt_queue(g, sizeof(item));
    CHECK_OK(wf_make_edge(s, q1));
    CHECK_OK(wf_make_edge(s, q2));
    for (size_t i = 12; i-- > 2;)
        CHECK_EQ(put_item(s, i), 1);
    CHECK_OK(wf_graph_wait_for_all(g));
    size_t n1 = 0, n2 = 0, last1 = 0, last2 = 0;
    while (wf_try_get(q1, &it) == 1) {
        CHECK(n1 == 0 || it.seq > last1);
        last1 = it.seq;
        n1++;
    }
    while (wf_try_get(q2, &it) == 1) {
        CHECK(n2 == 0 || it.seq > last2);
        last2 = it.seq;
        n2++;
    }
    CHECK_EQ(n1 + n2, 10);
    /* errors */
    wf_node *n = NULL;
    CHECK_ERR(wf_sequencer_node_create(&n, g, sizeof(item), NULL, NULL),
              WF_EINVAL);
    CHECK_ERR(wf_sequencer_node_create(&n, g, 0, item_seq, NULL), WF_EINVAL);
    CHECK_ERR(wf_sequencer_node_create(NULL, g, 4, item_seq, NULL), WF_EINVAL);
    CHECK_ERR(wf_sequencer_node_create(&n, NULL, 4, item_seq, NULL), WF_EINVAL);
    CHECK(n == NULL);
    CHECK(strcmp(wf_node_kind(s), "sequencer_node") == 0);
    GT_DESTROY(g, s, q1, q2);
}

/* Two threads put the numbers 0..N-1 in scrambled orders; the successor
 * gets them in order. */
enum { SEQ_N = 20000 };

static void *seq_putter(void *arg)
{
    wf_node **a = arg;
    size_t odd = a[1] != NULL;
    uint64_t r = 88172645463325252ull + odd;
    /* blocks of 64 in random order within the block */
    for (size_t b = 0; b < SEQ_N; b += 64) {
        size_t perm[64];
        for (size_t i = 0; i < 64; i++)
            perm[i] = i;
        for (size_t i = 63; i > 0; i--) {
            size_t j = check_rand(&r) % (i + 1), t = perm[i];
            perm[i] = perm[j];
            perm[j] = t;
        }
        for (size_t i = 0; i < 64; i++) {
            size_t k = b + perm[i];
            if (k < SEQ_N && k % 2 == odd)
                CHECK_EQ(put_item(a[0], k), 1);
        }
    }
    return NULL;
}

static void test_sequencer_threads(void)
{
    wf_graph *g = gt_graph(pool);
    wf_node *s = gt_sequencer(g), *q = gt_queue(g, sizeof(item));
    CHECK_OK(wf_make_edge(s, q));
    wf_node *args[2][2] = {{s, NULL}, {s, s}};
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        CHECK(pthread_create(&t[i], NULL, seq_putter, args[i]) == 0);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    CHECK_OK(wf_graph_wait_for_all(g));
    item it;
    for (size_t i = 0; i < SEQ_N; i++) {
        CHECK_EQ(wf_try_get(q, &it), 1);
        CHECK_EQ(it.seq, i);
    }
    CHECK_EQ(wf_try_get(q, &it), 0);
    GT_DESTROY(g, s, q);
}

static void test_sequencer(void)
{
    test_sequencer_order();
    test_sequencer_threads();
}

/* ---- the pipeline -------------------------------------------------------- */

/* input -> limiter -> function (serial, or unlimited) -> sequencer ->
 * consumer (serial function): the consumer sees 0, 1, 2, ... and each of
 * its bodies lets one more message into the limiter. */
typedef struct {
    size_t next, end;
    _Atomic int in_flight, max_in_flight;
    size_t expect; /* the consumer's next number */
    long sum;
    wf_node *limiter;
    int bad;
} pipe_state;

static int pipe_source(void *out, void *ctx)
{
    pipe_state *p = ctx;
    if (p->next == p->end)
        return WF_INPUT_DONE;
    item it = {p->next, (long)p->next};
    p->next++;
    memcpy(out, &it, sizeof it);
    return 0;
}

static int pipe_work(const void *in, void *out, void *ctx)
{
    pipe_state *p = ctx;
    /* past the limiter: in flight until the consumer has it */
    int f = atomic_fetch_add(&p->in_flight, 1) + 1;
    int m = atomic_load(&p->max_in_flight);
    while (f > m && !atomic_compare_exchange_weak(&p->max_in_flight, &m, f))
        ;
    item it;
    memcpy(&it, in, sizeof it);
    if (it.seq % 7 == 0) /* uneven work, so unlimited bodies overtake */
        gt_sleep_us(20);
    it.val = it.val * 3 + 1;
    memcpy(out, &it, sizeof it);
    return 0;
}

static int pipe_consume(const void *in, void *out, void *ctx)
{
    (void)out;
    pipe_state *p = ctx;
    item it;
    memcpy(&it, in, sizeof it);
    if (it.seq != p->expect || it.val != (long)it.seq * 3 + 1)
        p->bad++;
    p->expect++;
    p->sum += it.val;
    atomic_fetch_sub(&p->in_flight, 1);
    /* this message has left: let the next one in */
    return wf_try_put(wf_input_port(p->limiter, 1), NULL) == 1 ? 0 : -1;
}

static void run_pipeline(unsigned concurrency, size_t n, int limit)
{
    wf_graph *g = gt_graph(pool);
    pipe_state p = {.end = n};
    wf_input_config ic = WF_INPUT_CONFIG_INIT;
    ic.out_size = sizeof(item);
    ic.body = pipe_source;
    ic.ctx = &p;
    wf_node *in, *lim, *seq, *work, *cons;
    CHECK_OK(wf_input_node_create(&in, g, &ic));
    CHECK_OK(wf_limiter_node_create(&lim, g, sizeof(item), (size_t)limit));
    p.limiter = lim;
    work = gt_function(g, sizeof(item), sizeof(item), concurrency, WF_QUEUEING,
                       pipe_work, &p);
    seq = gt_sequencer(g);
    cons = gt_function(g, sizeof(item), 0, WF_SERIAL, WF_QUEUEING, pipe_consume,
                       &p);
    CHECK_OK(wf_make_edge(in, wf_input_port(lim, 0)));
    CHECK_OK(wf_make_edge(lim, work));
    CHECK_OK(wf_make_edge(work, seq));
    CHECK_OK(wf_make_edge(seq, cons));
    CHECK_OK(wf_input_node_activate(in));
    CHECK_OK(wf_graph_wait_for_all(g));
    CHECK_EQ(p.bad, 0);
    CHECK_EQ(p.expect, n); /* every message, once, in order */
    CHECK_EQ(p.sum, (long)(3 * (n * (n - 1) / 2) + n));
    CHECK(atomic_load(&p.max_in_flight) <= limit);
    GT_DESTROY(g, in, lim, work, seq, cons);
}

static void test_pipeline(void)
{
#ifdef WF_TEST_SANITIZED
    size_t n = 3000;
#else
    size_t n = 20000;
#endif
    run_pipeline(WF_SERIAL, n, 4);
    run_pipeline(WF_UNLIMITED, n, 8);
    run_pipeline(WF_UNLIMITED, n / 10, 1);
}

/* A wavefront: cell (i, j) after (i - 1, j) and (i, j - 1).  Each body
 * stamps the cell with a shared clock; signals between continue nodes take
 * their direct path (continue.c), or the counted one while the graph
 * counts. */
enum { WAVE_N = 12, WAVE_SWEEPS = 30 };

typedef struct {
    _Atomic long *clock;
    long stamp;
    int runs;
} wave_cell;

static int wave_body(void *out, void *ctx)
{
    (void)out;
    wave_cell *c = ctx;
    c->stamp = atomic_fetch_add(c->clock, 1) + 1;
    c->runs++;
    return 0;
}

/* Occurrences of what in text. */
static int occurrences(const char *text, const char *what)
{
    int n = 0;
    for (const char *p = text; (p = strstr(p, what)) != NULL; p++)
        n++;
    return n;
}

static void test_continue_wavefront(void)
{
    wf_graph *g = gt_graph(pool);
    _Atomic long clock = 0;
    static wave_cell cell[WAVE_N][WAVE_N];
    wf_node *node[WAVE_N][WAVE_N];
    for (int i = 0; i < WAVE_N; i++)
        for (int j = 0; j < WAVE_N; j++) {
            cell[i][j] = (wave_cell){.clock = &clock};
            wf_continue_config c = WF_CONTINUE_CONFIG_INIT;
            c.body = wave_body;
            c.ctx = &cell[i][j];
            CHECK_OK(wf_continue_node_create(&node[i][j], g, &c));
            if (i > 0)
                CHECK_OK(wf_make_edge(node[i - 1][j], node[i][j]));
            if (j > 0)
                CHECK_OK(wf_make_edge(node[i][j - 1], node[i][j]));
        }
    CHECK_OK(wf_graph_set_counting(g, true));
    for (int sweep = 1; sweep <= WAVE_SWEEPS; sweep++) {
        if (sweep == WAVE_SWEEPS / 2 + 1) /* the second half: uncounted */
            CHECK_OK(wf_graph_set_counting(g, false));
        signal_(node[0][0]);
        CHECK_OK(wf_graph_wait_for_all(g));
        for (int i = 0; i < WAVE_N; i++)
            for (int j = 0; j < WAVE_N; j++) {
                CHECK_EQ(cell[i][j].runs, sweep);
                if (i > 0)
                    CHECK(cell[i][j].stamp > cell[i - 1][j].stamp);
                if (j > 0)
                    CHECK(cell[i][j].stamp > cell[i][j - 1].stamp);
            }
        if (sweep != WAVE_SWEEPS / 2)
            continue;
        /* Counted so far: an inner cell took two signals a sweep and
         * passed two on. */
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        CHECK(f != NULL);
        CHECK_OK(wf_graph_write_dot(g, f));
        CHECK(fclose(f) == 0);
        char inner[96];
        snprintf(inner, sizeof inner,
                 "put %d: accepted %d, rejected 0\\nforwarded %d\"", 2 * sweep,
                 2 * sweep, 2 * sweep);
        CHECK_EQ(occurrences(text, inner), (WAVE_N - 2) * (WAVE_N - 2));
        free(text);
    }
    CHECK_EQ(atomic_load(&clock), (long)WAVE_N * WAVE_N * WAVE_SWEEPS);
    CHECK_OK(wf_graph_destroy(g));
    for (int i = 0; i < WAVE_N; i++)
        for (int j = 0; j < WAVE_N; j++)
            CHECK_OK(wf_node_destroy(node[i][j]));
}

/* A continue node's in-edges are kept without a list block (each edge
 * links the next): removing them, destroying either end first, with the
 * graph alive or gone, leaves the other end whole (ASan checks that no
 * freed edge is touched). */
static void test_continue_detach(void)
{
    wf_graph *g = gt_graph(pool);
    cont_stats s = {0}, s2 = {0};
    wf_node *b[3], *c = gt_continue(g, WF_SIGNAL, 0, &s);
    for (int i = 0; i < 3; i++) {
        b[i] = gt_broadcast(g, WF_SIGNAL);
        CHECK_OK(wf_make_edge(b[i], c));
    }
    CHECK_ERR(wf_make_edge(b[1], c), WF_EEXIST);
    CHECK_OK(wf_remove_edge(b[1], c)); /* the middle of the chain */
    CHECK_ERR(wf_remove_edge(b[1], c), WF_ENOENT);
    signal_from(g, b, 1, &s, 0);
    signal_from(g, b + 2, 1, &s, 1); /* threshold 2 */
    CHECK_OK(wf_node_destroy(b[0])); /* a sender first: threshold 1 */
    signal_from(g, b + 2, 1, &s, 2);
    CHECK_OK(wf_node_destroy(c));    /* the receiver first */
    signal_from(g, b + 1, 2, &s, 2); /* b[1], b[2] signal no one */
    wf_node *c2 = gt_continue(g, WF_SIGNAL, 0, &s2);
    CHECK_OK(wf_make_edge(b[1], c2));
    CHECK_OK(wf_make_edge(b[2], c2));
    signal_from(g, b + 1, 2, &s2, 1);
    CHECK_OK(wf_graph_destroy(g)); /* then the detached nodes, any order */
    CHECK_OK(wf_node_destroy(c2));
    CHECK_OK(wf_node_destroy(b[1]));
    CHECK_OK(wf_node_destroy(b[2]));
}

/* A round that a graph task's signal completes runs on that thread, from
 * its own record, kept for bypass (continue.c's run_own); given to the
 * pool instead, it becomes a runner's round or a due one (adopt_own).
 * A chain longer than a bypass row gives the kept round to the pool every
 * 64 hops; a function node whose bodies each signal a continue node gives
 * it at its next body; a body that waits for another graph keeps its
 * round across the wait, whose own rounds then take runners.  Every
 * round runs once, after the one before it in the chain. */
enum { OWN_CHAIN = 200, OWN_FIRES = 20, OWN_MSGS = 2000 };

static wf_graph *own_inner; /* the graph the waiting body waits for */
static wf_node *own_inner_head;

static int own_wait_body(const void *in, void *out, void *ctx)
{
    (void)in, (void)out;
    CHECK_EQ(wf_try_put((wf_node *)ctx, NULL), 1); /* kept: a graph task */
    CHECK_EQ(wf_try_put(own_inner_head, NULL), 1);
    return wf_graph_wait_for_all(own_inner);
}

static int own_signal_body(const void *in, void *out, void *ctx)
{
    (void)in, (void)out;
    return wf_try_put((wf_node *)ctx, NULL) == 1 ? 0 : -1;
}

static void test_continue_own(void)
{
    wf_graph *g = gt_graph(pool);
    _Atomic long clock = 0;
    static wave_cell cell[OWN_CHAIN];
    wf_node *chain[OWN_CHAIN];
    for (int i = 0; i < OWN_CHAIN; i++) {
        cell[i] = (wave_cell){.clock = &clock};
        wf_continue_config c = WF_CONTINUE_CONFIG_INIT;
        c.body = wave_body;
        c.ctx = &cell[i];
        CHECK_OK(wf_continue_node_create(&chain[i], g, &c));
        if (i > 0)
            CHECK_OK(wf_make_edge(chain[i - 1], chain[i]));
    }
    for (int fire = 1; fire <= OWN_FIRES; fire++) {
        signal_(chain[0]);
        CHECK_OK(wf_graph_wait_for_all(g));
        for (int i = 0; i < OWN_CHAIN; i++) {
            CHECK_EQ(cell[i].runs, fire);
            if (i > 0)
                CHECK(cell[i].stamp > cell[i - 1].stamp);
        }
    }

    /* Each body of f keeps a round of c; f's next body gives it away. */
    _Atomic int rounds = 0;
    wf_node *c = gt_continue_counter(g, &rounds);
    wf_node *f = gt_function(g, sizeof(int), WF_SIGNAL, WF_SERIAL, WF_QUEUEING,
                             own_signal_body, c);
    for (int i = 0; i < OWN_MSGS; i++)
        gt_put(f, i);
    CHECK_OK(wf_graph_wait_for_all(g));
    CHECK_EQ(atomic_load(&rounds), OWN_MSGS);

    /* A body keeps a round of c, then waits for another graph whose chain
     * of continue nodes runs meanwhile, on this thread too. */
    own_inner = gt_graph(pool);
    _Atomic int inner_rounds[3] = {0};
    wf_node *inner[3];
    for (int i = 0; i < 3; i++) {
        inner[i] = gt_continue_counter(own_inner, &inner_rounds[i]);
        if (i > 0)
            CHECK_OK(wf_make_edge(inner[i - 1], inner[i]));
    }
    own_inner_head = inner[0];
    wf_node *w = gt_function(g, sizeof(int), WF_SIGNAL, WF_SERIAL, WF_QUEUEING,
                             own_wait_body, c);
    for (int i = 0; i < 50; i++)
        gt_put(w, i);
    CHECK_OK(wf_graph_wait_for_all(g));
    CHECK_EQ(atomic_load(&rounds), OWN_MSGS + 50);
    for (int i = 0; i < 3; i++)
        CHECK_EQ(atomic_load(&inner_rounds[i]), 50);
    GT_DESTROY(own_inner, inner[0], inner[1], inner[2]);
    CHECK_OK(wf_graph_destroy(g));
    for (int i = 0; i < OWN_CHAIN; i++)
        CHECK_OK(wf_node_destroy(chain[i]));
    CHECK_OK(wf_node_destroy(c));
    CHECK_OK(wf_node_destroy(f));
    CHECK_OK(wf_node_destroy(w));
}

static void test_continue(void)
{
    test_continue_threshold();
    test_continue_detach();
    test_continue_predecessors();
    test_continue_concurrent();
    test_continue_wavefront();
    test_signal_ports();
    test_signal_buffers();
}

int main(int argc, char **argv)
{
    static const check_scenario sc[] = {
        {"continue", test_continue},   {"continue_own", test_continue_own},
        {"input", test_input},         {"limiter", test_limiter},
        {"sequencer", test_sequencer}, {"pipeline", test_pipeline},
    };
    pool = gt_pool(2);
    int rc = CHECK_RUN_SCENARIOS("graph_control", argc, argv, sc);
    CHECK_OK(wf_pool_destroy(pool));
    return rc;
}
