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
 * signals from several threads at once are all counted.
 * signals: size-0 ports exist where a signal makes sense (continue
 * ports, broadcast_node) and are refused where they do not; try_put(port,
 * NULL) is a signal there and WF_EINVAL on a data port. */
#include <pthread.h>

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
    signal_from(g, b, 2, &s, 0); /* 2 of 3: nothing yet */
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
    CHECK_OK(wf_graph_reset(g));
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
    CHECK_OK(wf_graph_reset(g));
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

static int nop_body(const void *in, void *out, void *ctx)
{
    (void)in, (void)out, (void)ctx;
    return 0;
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
    CHECK(n == NULL);
    /* size 0 where a signal makes no sense */
    CHECK_ERR(wf_queue_node_create(&n, g, WF_SIGNAL), WF_EINVAL);
    CHECK_ERR(wf_buffer_node_create(&n, g, WF_SIGNAL), WF_EINVAL);
    wf_function_config fc = WF_FUNCTION_CONFIG_INIT;
    fc.body = nop_body;
    CHECK_ERR(wf_function_node_create(&n, g, &fc), WF_EINVAL); /* in 0 */
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
    CHECK_EQ(wf_try_put(c, &dummy), 1); /* a signal ignores its bytes */
    CHECK_ERR(wf_try_put(q, NULL), WF_EINVAL); /* NULL data message */
    CHECK_ERR(wf_try_put(bi, NULL), WF_EINVAL);
    CHECK_OK(wf_graph_wait_for_all(g));
    CHECK_EQ(atomic_load(&s.calls), 2); /* threshold 1: two rounds */
    CHECK_EQ(wf_try_get(c, &dummy), 0);   /* continue keeps nothing */
    CHECK_EQ(wf_try_get(b, NULL), 0);     /* nor does a broadcast */
    CHECK_ERR(wf_try_get(q, NULL), WF_EINVAL);
    CHECK(strcmp(wf_node_kind(c), "continue_node") == 0);
    GT_DESTROY(g, c, b, bi, q);
}

static void test_continue(void)
{
    test_continue_threshold();
    test_continue_predecessors();
    test_continue_concurrent();
    test_signal_ports();
}

int main(int argc, char **argv)
{
    static const check_scenario sc[] = {
        {"continue", test_continue},
    };
    pool = gt_pool(2);
    int rc = CHECK_RUN_SCENARIOS("graph_control", argc, argv, sc);
    CHECK_OK(wf_pool_destroy(pool));
    return rc;
}
