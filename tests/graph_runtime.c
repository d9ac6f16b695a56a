/* SPDX-License-Identifier: Apache-2.0 */
/* graph_runtime: what the graph does around its bodies.  One scenario per
 * argument (ctest runs each as its own entry):
 *
 *   errors      the first failing body's code is what wait_for_all returns,
 *               wf_graph_failed_node names that node (NULL before and after
 *               a reset), no body starts after the failure; bad input.
 *   cancel      a failing body runs every node's cancel callback once, so a
 *               long body in flight stops early; wf_graph_cancel does too;
 *               a second cancel does not call them again; reset re-arms.
 *   cancel_publishes  a thread that learns of a cancel (is_cancelled, a
 *               put's WF_ECANCELED, wait_for_all) or of a failure
 *               (failed_node) sees what was written before it.
 *   reset [N]   one graph (queue, function, join, broadcast) run N times
 *               (default 1000) with resets between, results checked every round: leftovers
 *               in the join are gone, WF_RESET_BODIES calls the body-reset
 *               callback (WF_RESET_PROTOCOL does not), a failing round is
 *               cleared, the DOT counters start again from 0.
 *   reset_race  puts from one thread, resets (and cancels) from another:
 *               no body replays, nothing is left in the queue after a final
 *               reset, and the graph then delivers exactly (regression).
 *   clear_edges WF_RESET_CLEAR_EDGES removes every edge: puts stay in the
 *               queue, nothing runs, the same edges can be made again.
 *   priority    on one thread, ready bodies of higher-priority nodes run
 *               first: high, then mid, then low, although low's task was
 *               queued first.
 *   trace       wf_trace_start/stop write valid JSON with one span per body
 *               (named after the node), task spans, named threads, B/E
 *               balanced and flow arrows; start/stop errors.
 *   trace_env   the same file from WEFT_TRACE=path in a child process
 *               (this program again), written at its exit.
 *   trace_forkjoin  a fork-join program's trace: its wf_run on the calling
 *               thread and a task a worker stole, as spans.
 *   trace_restart   200 sessions started and stopped while a thread
 *               records. */
#include <pthread.h>
#include <sched.h>

#include "graph_test.h"

static int square(const void *in, void *out, void *ctx)
{
    (void)ctx;
    int v = *(const int *)in;
    if (v < 0)
        return -77;
    *(int *)out = v * v;
    return 0;
}

/* ---- errors -------------------------------------------------------------- */

typedef struct {
    _Atomic int ran, max_seen;
} fail_ctx;

static int fail_at_7(const void *in, void *out, void *ctx)
{
    (void)out;
    fail_ctx *c = ctx;
    int v = *(const int *)in;
    atomic_fetch_add(&c->ran, 1);
    if (v > atomic_load(&c->max_seen))
        atomic_store(&c->max_seen, v);
    return v == 7 ? -1000 : v == 9 ? -2000 : 0;
}

typedef struct {
    wf_graph *g;
    _Atomic int rc;
} reset_self_ctx;

static int reset_self(const void *in, void *out, void *ctx)
{
    (void)in, (void)out;
    reset_self_ctx *c = ctx;
    atomic_store(&c->rc, wf_graph_reset(c->g, WF_RESET_PROTOCOL));
    return 0;
}

static void test_errors(void)
{
    wf_pool *pool = gt_pool(2);
    wf_graph *g = gt_graph(pool);
    fail_ctx c = {0};
    wf_node *f =
        gt_function(g, sizeof(int), 0, WF_SERIAL, WF_QUEUEING, fail_at_7, &c);
    CHECK(wf_graph_failed_node(g) == NULL);
    /* Unnamed: its kind and number, as DOT numbers it. */
    CHECK_MSG(strcmp(wf_node_name(f), "function_node#0") == 0, "name %s",
              wf_node_name(f));
    CHECK_OK(wf_node_set_name(f, "parser"));
    for (int i = 0; i < 20; i++) {
        int rc = wf_try_put(f, &i);
        CHECK_MSG(rc == 1 || (i > 7 && rc == WF_ECANCELED), "put %d: %d", i,
                  rc);
    }
    CHECK_ERR(wf_graph_wait_for_all(g), -1000); /* not -2000: 9 never ran */
    CHECK(wf_graph_failed_node(g) == f);
    CHECK(strcmp(wf_node_name(wf_graph_failed_node(g)), "parser") == 0);
    CHECK_EQ(atomic_load(&c.ran), 8); /* 0..7, nothing after the failure */
    CHECK_EQ(atomic_load(&c.max_seen), 7);
    CHECK_OK(wf_graph_reset(g, WF_RESET_PROTOCOL));
    CHECK(wf_graph_failed_node(g) == NULL);
    CHECK_OK(wf_graph_wait_for_all(g));
    /* Bad input. */
    CHECK(wf_graph_failed_node(NULL) == NULL);
    CHECK(strcmp(wf_node_name(NULL), "") == 0);
    CHECK_ERR(wf_graph_reset(NULL, WF_RESET_BODIES), WF_EINVAL);
    CHECK_ERR(wf_graph_reset(g, 4u), WF_EINVAL);
    CHECK_ERR(wf_node_set_priority(NULL, 1), WF_EINVAL);
    CHECK_ERR(wf_node_set_priority(f, -1), WF_EINVAL);
    CHECK_ERR(wf_node_set_cancel(NULL, NULL, NULL), WF_EINVAL);
    CHECK_ERR(wf_node_set_body_reset(NULL, NULL, NULL), WF_EINVAL);
    reset_self_ctx rs = {.g = g};
    wf_node *w =
        gt_function(g, sizeof(int), 0, WF_SERIAL, WF_QUEUEING, reset_self, &rs);
    gt_put(w, 1);
    CHECK_OK(wf_graph_wait_for_all(g));
    CHECK_EQ(atomic_load(&rs.rc), WF_EPERM);
    CHECK_OK(wf_graph_destroy(g));
    CHECK_ERR(wf_node_set_priority(f, 1), WF_EDESTROYED);
    CHECK_ERR(wf_node_set_cancel(f, NULL, NULL), WF_EDESTROYED);
    CHECK_ERR(wf_node_set_body_reset(f, NULL, NULL), WF_EDESTROYED);
    CHECK_OK(wf_node_destroy(f));
    CHECK_OK(wf_node_destroy(w));
    CHECK_OK(wf_pool_destroy(pool));
}

/* ---- cancel callbacks ---------------------------------------------------- */

typedef struct {
    _Atomic int stop, calls, started;
} long_ctx;

static void on_cancel(void *ctx)
{
    long_ctx *c = ctx;
    atomic_fetch_add(&c->calls, 1);
    atomic_store(&c->stop, 1);
}

/* Runs until its cancel callback fires (a 30 s limit fails the test). */
static int long_body(const void *in, void *out, void *ctx)
{
    (void)in, (void)out;
    long_ctx *c = ctx;
    atomic_store(&c->started, 1);
    for (int i = 0; i < 300000 && !atomic_load(&c->stop); i++)
        gt_sleep_us(100);
    CHECK_MSG(atomic_load(&c->stop), "the cancel callback never came");
    return 0;
}

static int fail_soon(const void *in, void *out, void *ctx)
{
    (void)in, (void)out;
    long_ctx *c = ctx;
    while (!atomic_load(&c->started)) /* the long body is in flight */
        gt_sleep_us(100);
    return -5;
}

static void test_cancel(void)
{
    wf_pool *pool = gt_pool(2);
    wf_graph *g = gt_graph(pool);
    long_ctx lc = {0}, fc = {0};
    wf_node *l =
        gt_function(g, sizeof(int), 0, WF_SERIAL, WF_QUEUEING, long_body, &lc);
    wf_node *f =
        gt_function(g, sizeof(int), 0, WF_SERIAL, WF_QUEUEING, fail_soon, &lc);
    CHECK_OK(wf_node_set_cancel(l, on_cancel, &lc));
    CHECK_OK(wf_node_set_cancel(f, on_cancel, &fc));
    gt_put(l, 1);
    gt_put(f, 1);
    CHECK_ERR(wf_graph_wait_for_all(g), -5);
    CHECK(wf_graph_failed_node(g) == f);
    CHECK_EQ(atomic_load(&lc.calls), 1);
    CHECK_EQ(atomic_load(&fc.calls), 1);
    CHECK_OK(wf_graph_cancel(g)); /* already cancelled: no second call */
    CHECK_EQ(atomic_load(&lc.calls), 1);
    CHECK_OK(wf_graph_reset(g, WF_RESET_PROTOCOL));
    atomic_store(&lc.stop, 0);
    atomic_store(&lc.started, 0);
    gt_put(l, 2);
    while (!atomic_load(&lc.started))
        gt_sleep_us(100);
    CHECK_OK(wf_graph_cancel(g)); /* re-armed by the reset */
    CHECK_ERR(wf_graph_wait_for_all(g), WF_ECANCELED);
    CHECK_EQ(atomic_load(&lc.calls), 2);
    CHECK_EQ(atomic_load(&fc.calls), 2);
    CHECK(wf_graph_failed_node(g) == NULL); /* a cancel is no failure */
    CHECK_OK(wf_node_set_cancel(l, NULL, NULL));
    CHECK_OK(wf_graph_reset(g, WF_RESET_PROTOCOL));
    CHECK_OK(wf_graph_cancel(g));
    CHECK_EQ(atomic_load(&lc.calls), 2); /* removed */
    GT_DESTROY(g, l, f);
    CHECK_OK(wf_pool_destroy(pool));
}

/* ---- what a cancel or a failure publishes ------------------------------- */

enum { BY_IS_CANCELLED, BY_TRY_PUT, BY_WAIT, BY_FAILED_NODE, BY_COUNT };

typedef struct {
    wf_graph *g;
    wf_node *n;
    int by;     /* how the watcher learns of it (BY_...) */
    int reason; /* plain: written before the cancel or by the failing body */
    int seen;
} watcher;

static int fail_with_reason(const void *in, void *out, void *ctx)
{
    (void)out;
    watcher *w = ctx;
    w->reason = *(const int *)in;
    return -7;
}

/* Until it learns, by w->by, that the graph was cancelled or failed;
 * then it reads the reason the canceller or the failing body wrote. */
static void *watch(void *p)
{
    watcher *w = p;
    for (bool known = false; !known; sched_yield()) {
        int v = 0;
        switch (w->by) {
        case BY_IS_CANCELLED: known = wf_graph_is_cancelled(w->g); break;
        case BY_TRY_PUT: known = wf_try_put(w->n, &v) == WF_ECANCELED; break;
        case BY_WAIT:
            known = wf_graph_wait_for_all(w->g) == WF_ECANCELED;
            break;
        default: known = wf_graph_failed_node(w->g) != NULL;
        }
    }
    w->seen = w->reason;
    return NULL;
}

/* A thread that learns of a cancel from wf_graph_is_cancelled, a put's
 * WF_ECANCELED or wait_for_all's sees what the canceller wrote before
 * wf_graph_cancel; one that learns of a failure from
 * wf_graph_failed_node sees what the failing body wrote (G8 in
 * docs/protocols.md).  Under ThreadSanitizer, a missing release or
 * acquire on the way is a data race on the reason. */
static void test_cancel_publishes(void)
{
    wf_pool *pool = gt_pool(2);
    wf_graph *g = gt_graph(pool);
    watcher w = {.g = g};
    wf_node *sink = gt_function(g, sizeof(int), 0, WF_UNLIMITED, WF_QUEUEING,
                                gt_nop_body, NULL);
    wf_node *bad = gt_function(g, sizeof(int), 0, WF_SERIAL, WF_QUEUEING,
                               fail_with_reason, &w);
    w.n = sink;
    for (int round = 0; round < 20; round++) {
        w.by = round % BY_COUNT;
        w.seen = 0;
        pthread_t th;
        CHECK(pthread_create(&th, NULL, watch, &w) == 0);
        gt_sleep_us(round % 3 * 100);
        if (w.by == BY_FAILED_NODE) {
            gt_put(bad, 40 + round);
        } else {
            w.reason = 40 + round;
            CHECK_OK(wf_graph_cancel(g));
        }
        CHECK(pthread_join(th, NULL) == 0);
        CHECK_EQ(w.seen, 40 + round);
        wf_graph_wait_for_all(g); /* WF_ECANCELED or the body's -7 */
        CHECK_OK(wf_graph_reset(g, WF_RESET_PROTOCOL));
    }
    GT_DESTROY(g, sink, bad);
    CHECK_OK(wf_pool_destroy(pool));
}

/* ---- reset, N rounds ----------------------------------------------------- */

typedef struct {
    long sum;
    int count;
    int resets;
} sink_state; /* the serial sink's body state: one body at a time */

static int sink_body(const void *in, void *out, void *ctx)
{
    (void)out;
    const int *pair = in; /* two ints: the join's output */
    sink_state *s = ctx;
    s->sum += pair[0] + pair[1];
    s->count++;
    return 0;
}

static void sink_reset(void *ctx)
{
    sink_state *s = ctx;
    s->sum = 0;
    s->count = 0;
    s->resets++;
}

static int count_of(const char *text, const char *needle)
{
    int n = 0;
    for (const char *p = text; (p = strstr(p, needle)) != NULL; p++)
        n++;
    return n;
}

static char *dot_text(wf_graph *g)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    CHECK(f != NULL);
    CHECK_OK(wf_graph_write_dot(g, f));
    fclose(f);
    return text;
}

static void test_reset(void)
{
    long rounds = check_arg_long(0, 1000);
    enum { N = 20, EXTRA = 3 };
    wf_pool *pool = gt_pool(2);
    wf_graph *g = gt_graph(pool);
    CHECK_OK(wf_graph_set_counting(g, true)); /* reset zeroes the counts */
    size_t sizes[2] = {sizeof(int), sizeof(int)};
    sink_state st = {0};
    wf_node *q = gt_queue(g, sizeof(int));
    wf_node *sq = gt_function(g, sizeof(int), sizeof(int), WF_UNLIMITED,
                              WF_QUEUEING, square, NULL);
    wf_node *b = gt_broadcast(g, sizeof(int));
    wf_node *j = gt_join(g, 2, sizes, WF_JOIN_QUEUEING);
    wf_node *sink = gt_function(g, 2 * sizeof(int), 0, WF_SERIAL, WF_QUEUEING,
                                sink_body, &st);
    CHECK_OK(wf_node_set_body_reset(sink, sink_reset, &st));
    CHECK_OK(wf_make_edge(q, sq));
    CHECK_OK(wf_make_edge(sq, wf_input_port(j, 0)));
    CHECK_OK(wf_make_edge(b, wf_input_port(j, 1)));
    CHECK_OK(wf_make_edge(j, sink));
    long round_sum = 0;
    for (int i = 0; i < N; i++)
        round_sum += (long)i * i + i;
    long expect_sum = 0;
    int expect_count = 0, expect_resets = 0;
    for (int r = 0; r < rounds; r++) {
        bool failing = r % 10 == 9;
        /* EXTRA more than port 0 will get: they wait in the join. */
        for (int i = 0; i < N + EXTRA; i++)
            gt_put(b, i);
        for (int i = 0; i < N; i++)
            gt_put(q, i);
        if (failing) /* last: square fails (-77) and cancels the graph */
            gt_put(q, -1);
        int rc = wf_graph_wait_for_all(g);
        if (failing) {
            CHECK_MSG(rc == -77, "round %d: %d", r, rc);
            CHECK(wf_graph_failed_node(g) == sq);
        } else {
            CHECK_MSG(rc == 0, "round %d: %d", r, rc);
            expect_sum += round_sum;
            expect_count += N;
            CHECK_MSG(st.sum == expect_sum && st.count == expect_count,
                      "round %d: sum %ld count %d, expected %ld %d", r, st.sum,
                      st.count, expect_sum, expect_count);
        }
        /* Bodies are reset every other round, and after a failure (the
         * sink saw part of a round). */
        unsigned flags =
            (r % 2 == 0 || failing) ? WF_RESET_BODIES : WF_RESET_PROTOCOL;
        CHECK_OK(wf_graph_reset(g, flags));
        if (flags & WF_RESET_BODIES) {
            expect_sum = expect_count = 0;
            expect_resets++;
        }
        CHECK_EQ(st.resets, expect_resets);
        CHECK(!wf_graph_is_cancelled(g));
        if (r == 0) {
            char *dot = dot_text(g);
            CHECK_EQ(
                count_of(dot, "put 0: accepted 0, rejected 0\\nforwarded 0"),
                5);
            CHECK_EQ(count_of(dot, " -> "), 4); /* protocol keeps edges */
            free(dot);
        }
    }
    GT_DESTROY(g, q, sq, b, j, sink);
    CHECK_OK(wf_pool_destroy(pool));
}

/* ---- clear edges -------------------------------------------------------- */

static int count_body(const void *in, void *out, void *ctx)
{
    (void)in, (void)out;
    atomic_fetch_add((_Atomic int *)ctx, 1);
    return 0;
}

static void test_clear_edges(void)
{
    wf_pool *pool = gt_pool(2);
    wf_graph *g = gt_graph(pool);
    _Atomic int runs = 0;
    wf_node *q = gt_queue(g, sizeof(int));
    wf_node *f = gt_function(g, sizeof(int), 0, WF_UNLIMITED, WF_QUEUEING,
                             count_body, &runs);
    CHECK_OK(wf_make_edge(q, f));
    gt_put(q, 1);
    CHECK_OK(wf_graph_wait_for_all(g));
    CHECK_EQ(atomic_load(&runs), 1);
    CHECK_OK(wf_graph_reset(g, WF_RESET_CLEAR_EDGES | WF_RESET_BODIES));
    char *dot = dot_text(g);
    CHECK_EQ(count_of(dot, " -> "), 0);
    free(dot);
    gt_put(q, 2);
    CHECK_OK(wf_graph_wait_for_all(g));
    CHECK_EQ(atomic_load(&runs), 1); /* no edge: it stays in q */
    CHECK_ERR(wf_remove_edge(q, f), WF_ENOENT);
    CHECK_OK(wf_make_edge(q, f)); /* offers what q holds */
    CHECK_OK(wf_graph_wait_for_all(g));
    CHECK_EQ(atomic_load(&runs), 2);
    GT_DESTROY(g, q, f);
    CHECK_OK(wf_pool_destroy(pool));
}

/* ---- reset racing puts --------------------------------------------------- */

/* One thread puts into queue -> function while another resets the graph
 * (and cancels it now and then).  A reset that emptied the queue while a
 * forwarder ran made its count wrap: bodies replayed for ever, or
 * messages were lost.  Now a reset waits until nothing is in flight and
 * holds new puts off meanwhile: bodies never outnumber the messages
 * accepted, the queue is empty after a final reset, and the graph then
 * delivers exactly. */
typedef struct {
    wf_graph *g;
    wf_node *q;
    _Atomic long accepted, stop;
    int resets; /* written by the resetter before it stops the putters */
} reset_race_ctx;

static void *race_putter(void *arg)
{
    reset_race_ctx *c = arg;
    for (int i = 0; !atomic_load(&c->stop); i++) {
        int r = wf_try_put(c->q, &i);
        CHECK_MSG(r == 1 || r == WF_ECANCELED, "put: %s", wf_err_name(r));
        if (r == 1)
            atomic_fetch_add(&c->accepted, 1);
    }
    return NULL;
}

/* 2000 resets, or as many as 5 s allow: natively they take well under a
 * second, under an emulator with the putters spinning beside them their
 * time varies fivefold, past any fixed time-out. */
static void *race_resetter(void *arg)
{
    reset_race_ctx *c = arg;
    double end = check_now() + 5.0;
    int i = 0;
    for (; i < 2000 && (i < 20 || check_now() < end); i++) {
        if (i % 3 == 0)
            CHECK_OK(wf_graph_cancel(c->g));
        CHECK_OK(wf_graph_reset(c->g, WF_RESET_PROTOCOL));
    }
    c->resets = i;
    atomic_store(&c->stop, 1);
    return NULL;
}

static void test_reset_race(void)
{
    wf_pool *pool = gt_pool(4);
    wf_graph *g = gt_graph(pool);
    _Atomic int runs = 0;
    wf_node *q = gt_queue(g, sizeof(int));
    /* Serial: the messages wait in f's own queue too, which the reset
     * empties while f's runner takes from it. */
    wf_node *f = gt_function(g, sizeof(int), 0, WF_SERIAL, WF_QUEUEING,
                             count_body, &runs);
    CHECK_OK(wf_make_edge(q, f));
    reset_race_ctx c = {.g = g, .q = q};
    pthread_t put_th[2], reset_th;
    for (int i = 0; i < 2; i++)
        CHECK_EQ(pthread_create(&put_th[i], NULL, race_putter, &c), 0);
    CHECK_EQ(pthread_create(&reset_th, NULL, race_resetter, &c), 0);
    CHECK_EQ(pthread_join(reset_th, NULL), 0);
    for (int i = 0; i < 2; i++)
        CHECK_EQ(pthread_join(put_th[i], NULL), 0);
    CHECK_OK(wf_graph_reset(g, WF_RESET_PROTOCOL));
    long acc = atomic_load(&c.accepted);
    int ran = atomic_load(&runs);
    printf("reset_race: %d resets, %ld puts accepted, %d bodies ran\n",
           c.resets, acc, ran);
    CHECK_MSG(ran <= acc, "%d bodies for %ld messages: some ran twice", ran,
              acc);
    int v;
    CHECK_EQ(wf_try_get(q, &v), 0); /* emptied, and its count with it */
    for (int i = 0; i < 100; i++)
        gt_put(q, i);
    CHECK_OK(wf_graph_wait_for_all(g));
    CHECK_EQ(atomic_load(&runs), ran + 100);
    GT_DESTROY(g, q, f);
    CHECK_OK(wf_pool_destroy(pool));
}

/* ---- priorities --------------------------------------------------------- */

typedef struct {
    _Atomic int entered, open;
    _Atomic int next;
    _Atomic char log[64];
} prio_log;

typedef struct {
    prio_log *log;
    char tag;
} prio_ctx;

static int gate_body(const void *in, void *out, void *ctx)
{
    (void)in, (void)out;
    prio_log *l = ctx;
    atomic_store(&l->entered, 1);
    while (!atomic_load(&l->open))
        gt_sleep_us(100);
    return 0;
}

static int tag_body(const void *in, void *out, void *ctx)
{
    (void)in, (void)out;
    prio_ctx *c = ctx;
    int i = atomic_fetch_add(&c->log->next, 1);
    CHECK(i < 63);
    atomic_store(&c->log->log[i], c->tag);
    return 0;
}

/* wait_for_all on its own thread: with a pool of 1 thread (no background
 * worker) it is the only thread that runs the graph's tasks. */
static void *wait_for_graph(void *g)
{
    CHECK_OK(wf_graph_wait_for_all(g));
    return NULL;
}

static void test_priority(void)
{
    enum { K = 5 };
    wf_pool *pool = gt_pool(1);
    wf_graph *g = gt_graph(pool);
    prio_log l = {0};
    prio_ctx lo = {&l, 'L'}, mid = {&l, 'M'}, hi = {&l, 'H'};
    wf_node *gate =
        gt_function(g, sizeof(int), 0, WF_SERIAL, WF_QUEUEING, gate_body, &l);
    wf_node *b = gt_broadcast(g, sizeof(int));
    /* Low is made (and so fed) first: its task is queued first. */
    wf_node *fl =
        gt_function(g, sizeof(int), 0, WF_SERIAL, WF_QUEUEING, tag_body, &lo);
    wf_node *fm =
        gt_function(g, sizeof(int), 0, WF_SERIAL, WF_QUEUEING, tag_body, &mid);
    wf_node *fh =
        gt_function(g, sizeof(int), 0, WF_SERIAL, WF_QUEUEING, tag_body, &hi);
    CHECK_OK(wf_node_set_priority(fm, 1));
    CHECK_OK(wf_node_set_priority(fh, 5));
    CHECK_OK(wf_make_edge(b, fl));
    CHECK_OK(wf_make_edge(b, fm));
    CHECK_OK(wf_make_edge(b, fh));
    gt_put(gate, 0);
    pthread_t waiter; /* runs the gate, and all the rest, alone */
    CHECK_EQ(pthread_create(&waiter, NULL, wait_for_graph, g), 0);
    while (!atomic_load(&l.entered))
        gt_sleep_us(100);
    for (int i = 0; i < K; i++)
        gt_put(b, i);
    atomic_store(&l.open, 1);
    CHECK_EQ(pthread_join(waiter, NULL), 0);
    CHECK_OK(wf_graph_wait_for_all(g));
    char got[3 * K + 1] = {0};
    CHECK_EQ(atomic_load(&l.next), 3 * K);
    for (int i = 0; i < 3 * K; i++)
        got[i] = atomic_load(&l.log[i]);
    CHECK_MSG(strcmp(got, "HHHHHMMMMMLLLLL") == 0, "order %s", got);
    GT_DESTROY(g, gate, b, fl, fm, fh);
    CHECK_OK(wf_pool_destroy(pool));
}

/* ---- tracing ------------------------------------------------------------- */

/* A JSON syntax check: value, then nothing but space.  Enough to know
 * that Perfetto's parser will not stop at a typo. */
static const char *json_value(const char *p);

static const char *json_space(const char *p)
{
    while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')
        p++;
    return p;
}

static const char *json_string(const char *p)
{
    if (*p++ != '"')
        return NULL;
    for (; *p != '"'; p++) {
        if (*p == '\0' || (unsigned char)*p < 0x20)
            return NULL;
        if (*p == '\\' && *++p == '\0')
            return NULL;
    }
    return p + 1;
}

static const char *json_list(const char *p, char close, bool object)
{
    p = json_space(p + 1);
    if (*p == close)
        return p + 1;
    for (;;) {
        if (object) {
            if ((p = json_string(json_space(p))) == NULL)
                return NULL;
            p = json_space(p);
            if (*p++ != ':')
                return NULL;
        }
        if ((p = json_value(p)) == NULL)
            return NULL;
        p = json_space(p);
        if (*p == close)
            return p + 1;
        if (*p++ != ',')
            return NULL;
    }
}

static const char *json_value(const char *p)
{
    p = json_space(p);
    if (*p == '{')
        return json_list(p, '}', true);
    if (*p == '[')
        return json_list(p, ']', false);
    if (*p == '"')
        return json_string(p);
    if (strncmp(p, "true", 4) == 0 || strncmp(p, "null", 4) == 0)
        return p + 4;
    if (strncmp(p, "false", 5) == 0)
        return p + 5;
    char *end;
    strtod(p, &end);
    return end == p ? NULL : end;
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "r");
    CHECK_MSG(f != NULL, "no trace file %s", path);
    char *text = NULL;
    size_t cap = 0;
    CHECK(getdelim(&text, &cap, '\0', f) > 0);
    fclose(f);
    return text;
}

/* q -> square -> sink: N bodies of each, on two workers. */
static void run_traced_graph(int n)
{
    wf_pool *pool = gt_pool(2);
    wf_graph *g = gt_graph(pool);
    _Atomic int runs = 0;
    wf_node *q = gt_queue(g, sizeof(int));
    wf_node *sq = gt_function(g, sizeof(int), sizeof(int), WF_UNLIMITED,
                              WF_QUEUEING, square, NULL);
    wf_node *sink = gt_function(g, sizeof(int), 0, WF_SERIAL, WF_QUEUEING,
                                count_body, &runs);
    CHECK_OK(wf_node_set_name(sq, "square"));
    CHECK_OK(wf_node_set_name(sink, "sink \"x\""));
    CHECK_OK(wf_make_edge(q, sq));
    CHECK_OK(wf_make_edge(sq, sink));
    for (int i = 0; i < n; i++)
        gt_put(q, i);
    CHECK_OK(wf_graph_wait_for_all(g));
    CHECK_EQ(atomic_load(&runs), n);
    GT_DESTROY(g, q, sq, sink);
    CHECK_OK(wf_pool_destroy(pool));
}

static void check_trace(const char *path, int n)
{
    char *text = read_file(path);
    const char *end = json_value(text);
    CHECK_MSG(end != NULL && *json_space(end) == '\0', "invalid JSON in %s",
              path);
    CHECK(strncmp(text, "{\"traceEvents\":[", 16) == 0);
    CHECK_EQ(count_of(text, "\"cat\":\"body\",\"name\":\"square\""), n);
    CHECK_EQ(count_of(text, "\"cat\":\"body\",\"name\":\"sink \\\"x\\\"\""), n);
    CHECK(count_of(text, "\"name\":\"task square\"") >= 1);
    /* Spans as complete events ("X"); B/E only for spans still open. */
    CHECK(count_of(text, "\"ph\":\"X\"") >= 2 * n);
    CHECK_EQ(count_of(text, "\"ph\":\"B\""), count_of(text, "\"ph\":\"E\""));
    /* Every thread is named: a pool's own as "worker N", any other (main,
     * which takes part while it waits) as "thread N". */
    int named = count_of(text, "\"name\":\"thread_name\"");
    CHECK(named >= 1);
    CHECK_EQ(count_of(text, "\"args\":{\"name\":\"worker ") +
                 count_of(text, "\"args\":{\"name\":\"thread "),
             named);
    /* Message arrows: each start has its end, but for the odd one whose
     * body had not started yet or lost a race (trace.c). */
    int starts = count_of(text, "\"ph\":\"s\""),
        ends = count_of(text, "\"ph\":\"f\"");
    CHECK(ends >= 1 && ends <= starts);
    CHECK_MSG(starts - ends <= 2 + starts / 100, "%d arrows, %d unpaired",
              starts, starts - ends);
    free(text);
}

/* ---- a fork-join trace ------------------------------------------------- */

static _Atomic int stolen_ran;

static void stolen_body(wf_task *t)
{
    (void)t;
    atomic_store(&stolen_ran, 1);
}

static void nothing(wf_task *t)
{
    (void)t;
}

/* Spawn a task and keep spawning (each spawn answers a thief's request,
 * publishing the oldest, that task) until a worker has run it. */
static void steal_one(void *arg)
{
    (void)arg;
    wf_task first = {0}, more[64];
    int k = 0;
    CHECK_OK(wf_spawn(&first, stolen_body));
    for (int ms = 0; !atomic_load(&stolen_ran) && ms < 20000; ms++) {
        if (k < 64) {
            more[k] = (wf_task){0};
            CHECK_OK(wf_spawn(&more[k++], nothing));
        }
        gt_sleep_us(1000);
    }
    CHECK_MSG(atomic_load(&stolen_ran), "no worker took the task in 20 s");
    while (k > 0)
        CHECK_OK(wf_join(&more[--k]));
    CHECK_OK(wf_join(&first));
}

/* A file of the scenario's own in the working directory. */
static const char *trace_path(const char *scenario)
{
    static char path[256];
    snprintf(path, sizeof path, "graph_runtime_%s_%d.json", scenario,
             (int)getpid());
    return path;
}

static void test_trace_forkjoin(void)
{
    const char *path = trace_path("trace_forkjoin");
    wf_pool *pool = gt_pool(2);
    CHECK_OK(wf_trace_start(path));
    CHECK_OK(wf_run(pool, steal_one, NULL));
    CHECK_OK(wf_trace_stop());
    CHECK_OK(wf_pool_destroy(pool));
    char *text = read_file(path);
    const char *end = json_value(text);
    CHECK_MSG(end != NULL && *json_space(end) == '\0', "invalid JSON");
    CHECK_EQ(count_of(text, "\"cat\":\"run\",\"name\":\"wf_run\""), 1);
    CHECK(count_of(text, "\"cat\":\"steal\",\"name\":\"stolen task\"") >= 1);
    free(text);
    remove(path);
}

/* ---- sessions that start and stop while threads record ------------------ */

typedef struct {
    wf_pool *pool;
    _Atomic int stop;
    long runs;
} restart_recorder;

static void run_nothing(void *arg)
{
    (void)arg;
}

/* Records a "run" span per wf_run (the pool's entry traces it), as fast as
 * it can, until told to stop. */
static void *record_runs(void *arg)
{
    restart_recorder *r = arg;
    while (!atomic_load(&r->stop)) {
        CHECK_OK(wf_run(r->pool, run_nothing, NULL));
        r->runs++;
    }
    return NULL;
}

/* Each stop empties the buffers that the recorder then fills in the next
 * session: under ThreadSanitizer, a start whose switch does not publish
 * the last stop's work to the recorder (B2 in docs/protocols.md), or a
 * recording that stop does not wait for (B1), is a data race on the
 * buffer's chunks. */
static void test_trace_restart(void)
{
    const char *path = trace_path("trace_restart");
    restart_recorder r = {.pool = gt_pool(2)};
    pthread_t th;
    CHECK(pthread_create(&th, NULL, record_runs, &r) == 0);
    for (int i = 0; i < 200; i++) {
        CHECK_OK(wf_trace_start(path));
        gt_sleep_us(i % 4 == 0 ? 0 : 200);
        CHECK_OK(wf_trace_stop());
    }
    atomic_store(&r.stop, 1);
    CHECK(pthread_join(th, NULL) == 0);
    CHECK(r.runs > 0);
    char *text = read_file(path); /* the last session's */
    const char *end = json_value(text);
    CHECK_MSG(end != NULL && *json_space(end) == '\0', "invalid JSON");
    free(text);
    remove(path);
    CHECK_OK(wf_pool_destroy(r.pool));
}

static void test_trace(void)
{
    const char *path = trace_path("trace");
    CHECK_ERR(wf_trace_start(NULL), WF_EINVAL);
    CHECK_ERR(wf_trace_start(""), WF_EINVAL);
    CHECK_ERR(wf_trace_stop(), WF_ENOENT);
    CHECK_OK(wf_trace_start(path));
    CHECK_ERR(wf_trace_start(path), WF_EBUSY);
    run_traced_graph(100);
    CHECK_OK(wf_trace_stop());
    CHECK_ERR(wf_trace_stop(), WF_ENOENT);
    check_trace(path, 100);
    /* A second session writes only its own events. */
    CHECK_OK(wf_trace_start(path));
    run_traced_graph(10);
    CHECK_OK(wf_trace_stop());
    check_trace(path, 10);
    /* Nothing is recorded when off. */
    run_traced_graph(10);
    CHECK_OK(wf_trace_start("/nonexistent-dir/trace.json"));
    CHECK_ERR(wf_trace_stop(), WF_EAGAIN);
    remove(path);
}

/* The child runs the graph with WEFT_TRACE set, which writes the trace
 * when it exits; the parent checks the file. */
static void test_trace_env(void)
{
    if (check_is_child()) {
        run_traced_graph(50);
        return;
    }
    const char *path = trace_path("trace_env");
    char env[4096];
    snprintf(env, sizeof env, "WEFT_TRACE=%s", path);
    char *add[] = {env, NULL};
    remove(path);
    check_spawn_self("trace_env", add);
    check_trace(path, 50);
    remove(path);
}

int main(int argc, char **argv)
{
    static const check_scenario scenarios[] = {
        {"errors", test_errors},
        {"cancel", test_cancel},
        {"cancel_publishes", test_cancel_publishes},
        {"reset", test_reset},
        {"clear_edges", test_clear_edges},
        {"reset_race", test_reset_race},
        {"priority", test_priority},
        {"trace", test_trace},
        {"trace_env", test_trace_env},
        {"trace_forkjoin", test_trace_forkjoin},
        {"trace_restart", test_trace_restart},
    };
    return CHECK_RUN_SCENARIOS("graph_runtime", argc, argv, scenarios);
}
