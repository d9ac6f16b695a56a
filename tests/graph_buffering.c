/* SPDX-License-Identifier: Apache-2.0 */
/* graph_buffering: priority_queue_node, overwrite_node, write_once_node and
 * composite_node do what the oneTBB spec says they do.
 *
 * Proves: a priority queue gives the greatest message first to try_get,
 * to reservations and to a successor that pulls, whatever order several
 * producers put them in; a reservation takes the greatest and keeps it
 * while a greater one arrives (consume removes the reserved one, release
 * puts it back below the greater one).  An overwrite_node is invalid at
 * first, broadcasts every put to every successor in order (with several
 * producers the last message a successor got is the value held), gives a
 * new successor its value, answers try_get without removing the value,
 * reserves without removing it, and a receiver that pulls takes its value
 * once, not for ever; clear and reset invalidate it.  A
 * write_once_node rejects puts while it holds a value, until clear or
 * reset; behind a reserving join it pairs its one value with every message
 * of the other port (the spec's example).  A composite_node's ports act as
 * the inner ports for edges in and out, try_put, try_get and reservations,
 * also when nested; destroying it leaves the inner nodes and their edges;
 * bad inner ports are refused with the documented codes; the DOT export
 * shows it as a note.  A queue_node that producers put into while its
 * serial successor is busy or idle passes each producer's messages once
 * and in order, whether a put offered its message itself (an empty queue)
 * or the message waited; so does a chain of queues deeper than a thread
 * offers directly. */
#include <pthread.h>

#include "graph_test.h"

static wf_pool *pool;

static int int_cmp(const void *a, const void *b, void *ctx)
{
    int x = *(const int *)a, y = *(const int *)b;
    int sign = ctx ? *(int *)ctx : 1; /* -1: the smallest first */
    return sign * ((x > y) - (x < y));
}

static wf_node *gt_pq(wf_graph *g, void *ctx)
{
    wf_node *n = NULL;
    CHECK_OK(wf_priority_queue_node_create(&n, g, sizeof(int), int_cmp, ctx));
    return n;
}

static wf_node *gt_overwrite(wf_graph *g, bool once)
{
    wf_node *n = NULL;
    CHECK_OK(once ? wf_write_once_node_create(&n, g, sizeof(int))
                  : wf_overwrite_node_create(&n, g, sizeof(int)));
    return n;
}

/* ---- priority_queue_node ------------------------------------------------- */

typedef struct {
    wf_node *to;
    int first, count, step;
} producer;

static void *produce(void *arg)
{
    producer *p = arg;
    for (int i = 0; i < p->count; i++)
        gt_put(p->to, p->first + i * p->step);
    return NULL;
}

/* Four producers put interleaved values; the node gives them back
 * greatest first, each once. */
static void test_pq_producers(void)
{
    enum { N = 4, PER = 2000 };
    wf_graph *g = gt_graph(pool);
    wf_node *pq = gt_pq(g, NULL);
    pthread_t t[N];
    producer p[N];
    for (int i = 0; i < N; i++) {
        p[i] = (producer){pq, i, PER, N}; /* values i, i+N, i+2N, ... */
        CHECK(pthread_create(&t[i], NULL, produce, &p[i]) == 0);
    }
    for (int i = 0; i < N; i++)
        pthread_join(t[i], NULL);
    static int got[N * PER];
    CHECK_EQ(gt_drain(pq, got, N * PER), N * PER);
    for (int i = 0; i < N * PER; i++)
        CHECK_EQ(got[i], N * PER - 1 - i);
    /* With a successor: every message passes through once, while the
     * producers race with the forwarder. */
    wf_node *out = gt_queue(g, sizeof(int));
    CHECK_OK(wf_make_edge(pq, out));
    for (int i = 0; i < N; i++)
        CHECK(pthread_create(&t[i], NULL, produce, &p[i]) == 0);
    for (int i = 0; i < N; i++)
        pthread_join(t[i], NULL);
    CHECK_OK(wf_graph_wait_for_all(g));
    static char seen[N * PER];
    memset(seen, 0, sizeof seen);
    CHECK_EQ(gt_drain(out, got, N * PER), N * PER);
    for (int i = 0; i < N * PER; i++) {
        CHECK(got[i] >= 0 && got[i] < N * PER && !seen[got[i]]);
        seen[got[i]] = 1;
    }
    CHECK_EQ(wf_try_get(pq, got), 0);
    /* The comparator's ctx is passed: reversed, the smallest first. */
    int reverse = -1;
    wf_node *low = gt_pq(g, &reverse);
    for (int v = 5; v > 0; v--)
        gt_put(low, v * 3 % 7);
    CHECK_EQ(gt_drain(low, got, 10), 5);
    int ascending[] = {1, 2, 3, 5, 6};
    for (int i = 0; i < 5; i++)
        CHECK_EQ(got[i], ascending[i]);
    GT_DESTROY(g, pq, low, out);
}

/* A serial rejecting node pulls from the queue when its body ends: it
 * must get the greatest message the queue holds then. */
typedef struct {
    _Atomic int gate;
    _Atomic int calls;
    int order[16];
} gated;

static int gated_body(const void *in, void *out, void *ctx)
{
    (void)out;
    gated *s = ctx;
    unsigned round = 0;
    while (!atomic_load(&s->gate))
        gt_sleep_us(round++ < 100 ? 10 : 1000);
    int k = atomic_fetch_add(&s->calls, 1);
    if (k < 16)
        s->order[k] = *(const int *)in;
    return 0;
}

static void test_pq_successor_pulls_greatest(void)
{
    wf_graph *g = gt_graph(pool);
    wf_node *pq = gt_pq(g, NULL);
    gated s = {0};
    wf_node *f =
        gt_function(g, sizeof(int), 0, WF_SERIAL, WF_REJECTING, gated_body, &s);
    CHECK_OK(wf_make_edge(pq, f));
    gt_put(pq, 0); /* taken by f, whose body waits for the gate */
    int later[] = {5, 3, 9, 1, 7};
    for (int i = 0; i < 5; i++)
        gt_put(pq, later[i]); /* f is busy: rejected, kept */
    atomic_store(&s.gate, 1);
    CHECK_OK(wf_graph_wait_for_all(g));
    CHECK_EQ(atomic_load(&s.calls), 6);
    int want[] = {0, 9, 7, 5, 3, 1};
    for (int i = 0; i < 6; i++)
        CHECK_EQ(s.order[i], want[i]);
    GT_DESTROY(g, pq, f);
}

static void test_pq_reservation(void)
{
    wf_graph *g = gt_graph(pool);
    wf_node *pq = gt_pq(g, NULL);
    gt_put(pq, 3);
    gt_put(pq, 7);
    gt_put(pq, 5);
    int v = -1;
    CHECK_EQ(wf_try_reserve(pq, &v), 1);
    CHECK_EQ(v, 7);
    CHECK_EQ(wf_try_get(pq, &v), 0);     /* reserved */
    CHECK_EQ(wf_try_reserve(pq, &v), 0); /* one at a time */
    gt_put(pq, 10);                      /* greater than the reserved one */
    CHECK_EQ(wf_try_consume(pq), 1);     /* removes 7, not 10 */
    CHECK_ERR(wf_try_consume(pq), WF_ENOENT);
    CHECK_EQ(wf_try_reserve(pq, &v), 1);
    CHECK_EQ(v, 10);
    gt_put(pq, 12);
    gt_put(pq, 4);
    CHECK_EQ(wf_try_release(pq), 1); /* 10 goes back below 12 */
    CHECK_ERR(wf_try_release(pq), WF_ENOENT);
    int got[8];
    CHECK_EQ(gt_drain(pq, got, 8), 5);
    int want[] = {12, 10, 5, 4, 3};
    for (int i = 0; i < 5; i++)
        CHECK_EQ(got[i], want[i]);
    /* Reset empties it. */
    gt_put(pq, 1);
    CHECK_OK(wf_graph_reset(g, WF_RESET_PROTOCOL));
    CHECK_EQ(wf_try_get(pq, &v), 0);
    /* Errors. */
    wf_node *n = NULL;
    CHECK_ERR(wf_priority_queue_node_create(&n, g, sizeof(int), NULL, NULL),
              WF_EINVAL);
    CHECK_ERR(wf_priority_queue_node_create(&n, g, 0, int_cmp, NULL),
              WF_EINVAL);
    CHECK_ERR(wf_priority_queue_node_create(NULL, g, 4, int_cmp, NULL),
              WF_EINVAL);
    CHECK_ERR(wf_priority_queue_node_create(&n, NULL, 4, int_cmp, NULL),
              WF_EINVAL);
    CHECK(n == NULL);
    CHECK(strcmp(wf_node_kind(pq), "priority_queue_node") == 0);
    GT_DESTROY(g, pq);
}

/* ---- overwrite_node and write_once_node ---------------------------------- */

static void test_overwrite(void)
{
    wf_graph *g = gt_graph(pool);
    wf_node *ow = gt_overwrite(g, false);
    wf_node *q1 = gt_queue(g, sizeof(int)), *q2 = gt_queue(g, sizeof(int));
    int v = -1, got[8];
    CHECK_EQ(wf_overwrite_node_is_valid(ow), 0); /* invalid at first */
    CHECK_EQ(wf_try_get(ow, &v), 0);
    CHECK_EQ(wf_try_reserve(ow, &v), 0);
    CHECK_OK(wf_make_edge(ow, q1)); /* nothing to give it yet */
    CHECK_OK(wf_make_edge(ow, q2));
    for (int i = 1; i <= 3; i++)
        gt_put(ow, i); /* always accepted, each to every successor */
    CHECK_OK(wf_graph_wait_for_all(g));
    for (int k = 0; k < 2; k++) {
        CHECK_EQ(gt_drain(k ? q2 : q1, got, 8), 3);
        for (int i = 0; i < 3; i++)
            CHECK_EQ(got[i], i + 1);
    }
    CHECK_EQ(wf_overwrite_node_is_valid(ow), 1);
    CHECK_EQ(wf_try_get(ow, &v), 1); /* gets do not remove it */
    CHECK_EQ(v, 3);
    CHECK_EQ(wf_try_get(ow, &v), 1);
    CHECK_EQ(v, 3);
    /* A new successor gets the value when the edge is made. */
    wf_node *q3 = gt_queue(g, sizeof(int));
    CHECK_OK(wf_make_edge(ow, q3));
    CHECK_OK(wf_graph_wait_for_all(g));
    CHECK_EQ(gt_drain(q3, got, 8), 1);
    CHECK_EQ(got[0], 3);
    CHECK_EQ(gt_drain(q1, got, 8), 0); /* the others did not get it again */
    /* Reservation: a copy; the value stays for everyone. */
    CHECK_EQ(wf_try_reserve(ow, &v), 1);
    CHECK_EQ(v, 3);
    CHECK_EQ(wf_try_reserve(ow, &v), 1); /* not exclusive */
    CHECK_EQ(wf_try_get(ow, &v), 1);
    CHECK_EQ(wf_try_consume(ow), 1);
    CHECK_EQ(wf_try_release(ow), 1);
    CHECK_ERR(wf_try_release(ow), WF_ENOENT);
    CHECK_ERR(wf_try_consume(ow), WF_ENOENT);
    CHECK_EQ(wf_try_get(ow, &v), 1); /* consumed, still there */
    CHECK_EQ(v, 3);
    /* clear invalidates; a new edge then gets nothing. */
    CHECK_OK(wf_overwrite_node_clear(ow));
    CHECK_EQ(wf_overwrite_node_is_valid(ow), 0);
    CHECK_EQ(wf_try_get(ow, &v), 0);
    CHECK_OK(wf_remove_edge(ow, q3));
    CHECK_OK(wf_make_edge(ow, q3));
    CHECK_OK(wf_graph_wait_for_all(g));
    CHECK_EQ(gt_drain(q3, got, 8), 0);
    /* reset invalidates too. */
    gt_put(ow, 9);
    CHECK_OK(wf_graph_reset(g, WF_RESET_PROTOCOL));
    CHECK_EQ(wf_overwrite_node_is_valid(ow), 0);
    CHECK_EQ(gt_drain(q1, got, 8), 0); /* reset emptied the queues */
    CHECK(strcmp(wf_node_kind(ow), "overwrite_node") == 0);
    GT_DESTROY(g, ow, q1, q2, q3);
}

static void test_write_once(void)
{
    wf_graph *g = gt_graph(pool);
    wf_node *wo = gt_overwrite(g, true);
    wf_node *q = gt_queue(g, sizeof(int));
    CHECK_OK(wf_make_edge(wo, q));
    int v = -1, got[8];
    CHECK_EQ(wf_overwrite_node_is_valid(wo), 0);
    gt_put(wo, 1);
    v = 2;
    CHECK_EQ(wf_try_put(wo, &v), 0); /* holds one: rejected */
    CHECK_EQ(wf_try_get(wo, &v), 1);
    CHECK_EQ(v, 1);
    /* A queue before it keeps what it rejects. */
    wf_node *src = gt_queue(g, sizeof(int));
    CHECK_OK(wf_make_edge(src, wo));
    gt_put(src, 5);
    CHECK_OK(wf_graph_wait_for_all(g));
    CHECK_EQ(gt_drain(src, got, 8), 1);
    CHECK_EQ(got[0], 5);
    CHECK_EQ(gt_drain(q, got, 8), 1); /* only the first value went on */
    CHECK_EQ(got[0], 1);
    /* A new successor gets the held value. */
    wf_node *q2 = gt_queue(g, sizeof(int));
    CHECK_OK(wf_make_edge(wo, q2));
    CHECK_OK(wf_graph_wait_for_all(g));
    CHECK_EQ(gt_drain(q2, got, 8), 1);
    CHECK_EQ(got[0], 1);
    /* After clear it takes the next put, once. */
    CHECK_OK(wf_overwrite_node_clear(wo));
    gt_put(wo, 3);
    v = 4;
    CHECK_EQ(wf_try_put(wo, &v), 0);
    CHECK_OK(wf_graph_wait_for_all(g));
    CHECK_EQ(wf_try_get(wo, &v), 1);
    CHECK_EQ(v, 3);
    CHECK_EQ(gt_drain(q, got, 8), 1);
    CHECK_EQ(got[0], 3);
    /* After reset too. */
    CHECK_OK(wf_graph_reset(g, WF_RESET_PROTOCOL));
    CHECK_EQ(wf_overwrite_node_is_valid(wo), 0);
    gt_put(wo, 6);
    CHECK_EQ(wf_try_get(wo, &v), 1);
    CHECK_EQ(v, 6);
    CHECK(strcmp(wf_node_kind(wo), "write_once_node") == 0);
    GT_DESTROY(g, wo, q, src, q2);
}

/* Several producers: every put reaches the successor once, each
 * producer's in its order, and the last one the successor got is the
 * value the node holds (puts leave in the order the node took them). */
static void test_overwrite_producers(void)
{
    enum { N = 4, PER = 3000 };
    wf_graph *g = gt_graph(pool);
    wf_node *ow = gt_overwrite(g, false), *q = gt_queue(g, sizeof(int));
    CHECK_OK(wf_make_edge(ow, q));
    pthread_t t[N];
    producer p[N];
    for (int i = 0; i < N; i++) {
        p[i] = (producer){ow, i * PER, PER, 1};
        CHECK(pthread_create(&t[i], NULL, produce, &p[i]) == 0);
    }
    for (int i = 0; i < N; i++)
        pthread_join(t[i], NULL);
    CHECK_OK(wf_graph_wait_for_all(g));
    static int got[N * PER + 1];
    CHECK_EQ(gt_drain(q, got, N * PER + 1), N * PER);
    int next[N] = {0};
    for (int i = 0; i < N * PER; i++) {
        int who = got[i] / PER;
        CHECK_EQ(got[i], who * PER + next[who]);
        next[who]++;
    }
    int v;
    CHECK_EQ(wf_try_get(ow, &v), 1);
    CHECK_EQ(v, got[N * PER - 1]);
    GT_DESTROY(g, ow, q);
}

/* The spec's write_once example: one computed value, reused with every
 * message of a buffer through a reserving join. */
static int times_ten(const void *in, void *out, void *ctx)
{
    (void)ctx;
    *(int *)out = *(const int *)in * 10;
    return 0;
}

static void test_write_once_reserving_join(void)
{
    wf_graph *g = gt_graph(pool);
    wf_node *f = gt_function(g, sizeof(int), sizeof(int), WF_SERIAL,
                             WF_QUEUEING, times_ten, NULL);
    wf_node *wo = gt_overwrite(g, true), *buf = gt_buffer(g, sizeof(int));
    size_t sizes[2] = {sizeof(int), sizeof(int)};
    wf_node *j = gt_join(g, 2, sizes, WF_JOIN_RESERVING);
    wf_node *out = gt_queue(g, wf_port_msg_size(wf_output_port(j, 0)));
    CHECK_OK(wf_make_edge(f, wo));
    CHECK_OK(wf_make_edge(wo, wf_input_port(j, 0)));
    CHECK_OK(wf_make_edge(buf, wf_input_port(j, 1)));
    CHECK_OK(wf_make_edge(j, out));
    gt_put(f, 4);
    CHECK_OK(wf_graph_wait_for_all(g));
    for (int i = 0; i < 100; i++)
        gt_put(buf, i);
    CHECK_OK(wf_graph_wait_for_all(g));
    unsigned char t[2 * sizeof(int)];
    int n = 0, sum = 0;
    while (wf_try_get(out, t) == 1) {
        CHECK_EQ(*(int *)wf_tuple_get(t, j, 0), 40);
        sum += *(int *)wf_tuple_get(t, j, 1);
        n++;
    }
    CHECK_EQ(n, 100);
    CHECK_EQ(sum, 99 * 100 / 2);
    int v;
    CHECK_EQ(wf_try_get(wo, &v), 1); /* consumed 100 times, still there */
    CHECK_EQ(v, 40);
    CHECK_EQ(wf_try_get(buf, &v), 0);
    GT_DESTROY(g, f, wo, buf, j, out);
}

static void test_overwrite_errors(void)
{
    wf_graph *g = gt_graph(pool);
    wf_node *q = gt_queue(g, sizeof(int)), *n = NULL;
    CHECK_ERR(wf_overwrite_node_create(&n, g, 0), WF_EINVAL);
    CHECK_ERR(wf_write_once_node_create(NULL, g, 4), WF_EINVAL);
    CHECK_ERR(wf_overwrite_node_create(&n, NULL, 4), WF_EINVAL);
    CHECK(n == NULL);
    CHECK_ERR(wf_overwrite_node_is_valid(NULL), WF_EINVAL);
    CHECK_ERR(wf_overwrite_node_clear(NULL), WF_EINVAL);
    CHECK_ERR(wf_overwrite_node_is_valid(q), WF_EINVAL); /* another kind */
    CHECK_ERR(wf_overwrite_node_clear(q), WF_EINVAL);
    wf_node *ow = gt_overwrite(g, false);
    CHECK_OK(wf_node_destroy(q));
    CHECK_OK(wf_graph_destroy(g));
    CHECK_ERR(wf_overwrite_node_is_valid(ow), WF_EDESTROYED);
    CHECK_ERR(wf_overwrite_node_clear(ow), WF_EDESTROYED);
    CHECK_OK(wf_node_destroy(ow));
}

/* ---- composite_node ------------------------------------------------------ */

static wf_node *gt_composite(wf_graph *g, unsigned n_in, const wf_port *in,
                             unsigned n_out, const wf_port *out)
{
    wf_node *n = NULL;
    CHECK_OK(wf_composite_node_create(&n, g, n_in, in, n_out, out));
    return n;
}

static int plus_one(const void *in, void *out, void *ctx)
{
    (void)ctx;
    *(int *)out = *(const int *)in + 1;
    return 0;
}

/* inner: f (+1) -> q; the composite's input is f's, its output q's. */
static wf_node *plus_one_box(wf_graph *g, wf_node **f, wf_node **q)
{
    *f = gt_function(g, sizeof(int), sizeof(int), WF_SERIAL, WF_QUEUEING,
                     plus_one, NULL);
    *q = gt_queue(g, sizeof(int));
    CHECK_OK(wf_make_edge(*f, *q));
    wf_port in = wf_input_port(*f, 0), out = wf_output_port(*q, 0);
    return gt_composite(g, 1, &in, 1, &out);
}

static void test_composite_edges(void)
{
    wf_graph *g = gt_graph(pool);
    wf_node *f, *q;
    wf_node *c = plus_one_box(g, &f, &q);
    wf_node *src = gt_queue(g, sizeof(int)), *sink = gt_queue(g, sizeof(int));
    CHECK_EQ(wf_port_msg_size(wf_input_port(c, 0)), sizeof(int));
    CHECK_EQ(wf_port_msg_size(wf_output_port(c, 0)), sizeof(int));
    /* Direct puts and gets act on the inner ports. */
    gt_put(c, 1);
    CHECK_OK(wf_graph_wait_for_all(g));
    int v = -1, got[8];
    CHECK_EQ(wf_try_reserve(c, &v), 1);
    CHECK_EQ(v, 2);
    CHECK_EQ(wf_try_get(q, &v), 0); /* the inner queue is reserved */
    CHECK_EQ(wf_try_release(c), 1);
    CHECK_EQ(wf_try_reserve(c, &v), 1);
    CHECK_EQ(wf_try_consume(c), 1);
    CHECK_ERR(wf_try_consume(c), WF_ENOENT);
    CHECK_EQ(wf_try_get(c, &v), 0);
    /* Edges in and out. */
    CHECK_OK(wf_make_edge(src, c));
    CHECK_OK(wf_make_edge(c, sink));
    CHECK_ERR(wf_make_edge(c, sink), WF_EEXIST);
    CHECK_ERR(wf_make_edge(q, sink), WF_EEXIST); /* it is q's edge */
    for (int i = 0; i < 5; i++)
        gt_put(src, 10 * i);
    CHECK_OK(wf_graph_wait_for_all(g));
    CHECK_EQ(gt_drain(sink, got, 8), 5);
    for (int i = 0; i < 5; i++)
        CHECK_EQ(got[i], 10 * i + 1);
    CHECK_OK(wf_remove_edge(c, sink));
    CHECK_ERR(wf_remove_edge(c, sink), WF_ENOENT);
    CHECK_OK(wf_remove_edge(src, c));
    CHECK_ERR(wf_remove_edge(src, f), WF_ENOENT); /* the same edge */
    gt_put(c, 7);
    CHECK_OK(wf_graph_wait_for_all(g));
    CHECK_EQ(gt_drain(sink, got, 8), 0);
    CHECK_EQ(gt_drain(q, got, 8), 1);
    CHECK_EQ(got[0], 8);
    /* Destroying the composite leaves the inner nodes and their edges. */
    CHECK_OK(wf_make_edge(c, sink));
    CHECK_OK(wf_node_destroy(c));
    gt_put(f, 20);
    CHECK_OK(wf_graph_wait_for_all(g));
    CHECK_EQ(gt_drain(sink, got, 8), 1);
    CHECK_EQ(got[0], 21);
    GT_DESTROY(g, f, q, src, sink);
}

/* A composite of composites: two +1 boxes in a row, exported as one. */
static void test_composite_nested(void)
{
    wf_graph *g = gt_graph(pool);
    wf_node *f1, *q1, *f2, *q2;
    wf_node *a = plus_one_box(g, &f1, &q1), *b = plus_one_box(g, &f2, &q2);
    CHECK_OK(wf_make_edge(a, b));
    wf_port in = wf_input_port(a, 0), out = wf_output_port(b, 0);
    wf_node *outer = gt_composite(g, 1, &in, 1, &out);
    wf_port in2 = wf_input_port(outer, 0), out2 = wf_output_port(outer, 0);
    wf_node *outer2 = gt_composite(g, 1, &in2, 1, &out2); /* three deep */
    wf_node *src = gt_queue(g, sizeof(int)), *sink = gt_queue(g, sizeof(int));
    CHECK_OK(wf_make_edge(src, outer2));
    CHECK_OK(wf_make_edge(outer2, sink));
    for (int i = 0; i < 10; i++)
        gt_put(src, i);
    gt_put(outer, 100); /* the middle level's port is f1's too */
    CHECK_OK(wf_graph_wait_for_all(g));
    int got[16];
    CHECK_EQ(gt_drain(sink, got, 16), 11);
    for (int i = 0; i < 10; i++)
        CHECK_EQ(got[i], i + 2);
    CHECK_EQ(got[10], 102);
    /* Multi-port: a join's two inputs and its output. */
    size_t sizes[2] = {sizeof(int), sizeof(int)};
    wf_node *j = gt_join(g, 2, sizes, WF_JOIN_QUEUEING);
    wf_port jin[2] = {wf_input_port(j, 0), wf_input_port(j, 1)};
    wf_port jout = wf_output_port(j, 0);
    wf_node *cj = gt_composite(g, 2, jin, 1, &jout);
    int v = 1;
    CHECK_ERR(wf_try_put(cj, &v), WF_ENOPORT); /* two inputs: name one */
    CHECK_ERR(wf_try_put(wf_input_port(cj, 2), &v), WF_ENOPORT);
    CHECK_EQ(wf_try_put(wf_input_port(cj, 0), &v), 1);
    v = 2;
    CHECK_EQ(wf_try_put(wf_input_port(cj, 1), &v), 1);
    unsigned char t[2 * sizeof(int)];
    CHECK_EQ(wf_try_get(cj, t), 1);
    CHECK_EQ(*(int *)wf_tuple_get(t, j, 0), 1);
    CHECK_EQ(*(int *)wf_tuple_get(t, j, 1), 2);
    /* Input-only: no output port to get from. */
    wf_node *sinkbox = gt_composite(g, 1, &jin[0], 0, NULL);
    CHECK_ERR(wf_try_get(sinkbox, &v), WF_ENOPORT);
    CHECK_EQ(wf_port_msg_size(wf_output_port(sinkbox, 0)), 0);
    GT_DESTROY(g, sinkbox, cj, j, outer2, outer, a, b, f1, q1, f2, q2, src,
               sink);
}

static void test_composite_errors(void)
{
    wf_graph *g = gt_graph(pool), *g2 = gt_graph(pool);
    wf_node *q = gt_queue(g, sizeof(int)), *other = gt_queue(g2, sizeof(int));
    wf_node *n = NULL;
    wf_port in = wf_input_port(q, 0), out = wf_output_port(q, 0);
    wf_port null_in = wf_input_port(NULL, 0);
    wf_port far = wf_input_port(other, 0), bad = wf_input_port(q, 1);
    CHECK_ERR(wf_composite_node_create(NULL, g, 1, &in, 1, &out), WF_EINVAL);
    CHECK_ERR(wf_composite_node_create(&n, NULL, 1, &in, 1, &out), WF_EINVAL);
    CHECK_ERR(wf_composite_node_create(&n, g, 0, NULL, 0, NULL), WF_EINVAL);
    CHECK_ERR(wf_composite_node_create(&n, g, 1, NULL, 1, &out), WF_EINVAL);
    CHECK_ERR(wf_composite_node_create(&n, g, 1, &in, 1, NULL), WF_EINVAL);
    CHECK_ERR(wf_composite_node_create(&n, g, 1, &null_in, 1, &out), WF_EINVAL);
    CHECK_ERR(wf_composite_node_create(&n, g, 1, &out, 1, &out), WF_EINVAL);
    CHECK_ERR(wf_composite_node_create(&n, g, 1, &in, 1, &in), WF_EINVAL);
    CHECK_ERR(wf_composite_node_create(&n, g, 1, &far, 0, NULL), WF_EINVAL);
    CHECK_ERR(wf_composite_node_create(&n, g, 1, &bad, 0, NULL), WF_ENOPORT);
    CHECK(n == NULL);
    /* Ports of the composite: index and direction checked as anywhere. */
    wf_node *c = gt_composite(g, 1, &in, 1, &out);
    int v = 1;
    CHECK_ERR(wf_try_put(wf_input_port(c, 1), &v), WF_ENOPORT);
    CHECK_ERR(wf_try_get(wf_output_port(c, 1), &v), WF_ENOPORT);
    CHECK_ERR(wf_make_edge(c, other), WF_EINVAL); /* another graph */
    CHECK_ERR(wf_make_edge_ports(wf_input_port(c, 0), wf_input_port(q, 0)),
              WF_EINVAL);
    CHECK(strcmp(wf_node_kind(c), "composite_node") == 0);
    /* After the graph is gone. */
    CHECK_OK(wf_node_destroy(other));
    CHECK_OK(wf_graph_destroy(g2));
    CHECK_OK(wf_graph_destroy(g));
    CHECK_ERR(wf_try_put(c, &v), WF_EDESTROYED);
    CHECK_OK(wf_node_destroy(c));
    CHECK_OK(wf_node_destroy(q));
}

static void test_composite_dot(void)
{
    wf_graph *g = gt_graph(pool);
    wf_node *f, *q;
    wf_node *c = plus_one_box(g, &f, &q); /* ids: f 0, q 1, c 2 */
    CHECK_OK(wf_node_set_name(c, "box"));
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    CHECK(mem != NULL);
    CHECK_OK(wf_graph_write_dot(g, mem));
    fclose(mem);
    const char *want[] = {
        "n2 [label=\"composite_node\\nbox\\nholds 0\"];",
        "n2 [shape=note];",
        "n2 -> n0 [style=dotted, arrowhead=none, constraint=false, "
        "label=\"in 0\"];",
        "n2 -> n1 [style=dotted, arrowhead=none, constraint=false, "
        "label=\"out 0\"];",
        "n0 -> n1 [label=\"push\"];",
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        CHECK_MSG(strstr(text, want[i]) != NULL, "missing [%s] in\n%s", want[i],
                  text);
    free(text);
    GT_DESTROY(g, c, f, q);
}

/* ---- queue_node: a put through an empty queue (G4's exception) ----------- */

/* Serial body: each producer's messages (value = producer * PER + i) must
 * come in the order it put them, each once. */
enum { DQ_N = 4, DQ_PER = 3000 };

typedef struct {
    int next[DQ_N];    /* the next i expected of each producer */
    _Atomic int wrong; /* out of order or repeated */
    _Atomic int calls;
} dq_order;

static int dq_body(const void *in, void *out, void *ctx)
{
    (void)out;
    dq_order *o = ctx;
    int v = *(const int *)in, p = v / DQ_PER, i = v % DQ_PER;
    if (p < 0 || p >= DQ_N || o->next[p] != i) /* serial: no race */
        atomic_fetch_add(&o->wrong, 1);
    else
        o->next[p] = i + 1;
    if (atomic_fetch_add(&o->calls, 1) % 64 == 0)
        gt_sleep_us(20); /* let the queue fill, and edges turn to pull */
    return 0;
}

/* Producers race into a queue in front of a serial node, rejecting (the
 * offers that find it busy turn the edge to pull and the message waits in
 * the queue) or queueing (always taken).  Each producer's messages reach
 * the body once each and in its order, whether they passed the queue
 * directly or waited in it; nothing stays behind.  Then a chain of 40
 * queues, deeper than a thread offers directly, passes 2000 messages to a
 * serial node in order. */
static void test_queue_direct(void)
{
    static const wf_fn_policy policies[] = {WF_REJECTING, WF_QUEUEING};
    for (int k = 0; k < 2; k++) {
        wf_graph *g = gt_graph(pool);
        wf_node *q = gt_queue(g, sizeof(int));
        dq_order o = {0};
        wf_node *f =
            gt_function(g, sizeof(int), 0, WF_SERIAL, policies[k], dq_body, &o);
        CHECK_OK(wf_make_edge(q, f));
        pthread_t t[DQ_N];
        producer p[DQ_N];
        for (int i = 0; i < DQ_N; i++) {
            p[i] = (producer){q, i * DQ_PER, DQ_PER, 1};
            CHECK(pthread_create(&t[i], NULL, produce, &p[i]) == 0);
        }
        for (int i = 0; i < DQ_N; i++)
            pthread_join(t[i], NULL);
        CHECK_OK(wf_graph_wait_for_all(g));
        CHECK_EQ(atomic_load(&o.wrong), 0);
        CHECK_EQ(atomic_load(&o.calls), DQ_N * DQ_PER);
        for (int i = 0; i < DQ_N; i++)
            CHECK_EQ(o.next[i], DQ_PER);
        int left;
        CHECK_EQ(wf_try_get(q, &left), 0);
        GT_DESTROY(g, q, f);
    }
    enum { CHAIN = 40, MSGS = 2000 };
    wf_graph *g = gt_graph(pool);
    wf_node *chain[CHAIN];
    for (int i = 0; i < CHAIN; i++) {
        chain[i] = gt_queue(g, sizeof(int));
        if (i > 0)
            CHECK_OK(wf_make_edge(chain[i - 1], chain[i]));
    }
    dq_order o = {0};
    wf_node *f =
        gt_function(g, sizeof(int), 0, WF_SERIAL, WF_QUEUEING, dq_body, &o);
    CHECK_OK(wf_make_edge(chain[CHAIN - 1], f));
    for (int i = 0; i < MSGS; i++)
        gt_put(chain[0], i);
    CHECK_OK(wf_graph_wait_for_all(g));
    CHECK_EQ(atomic_load(&o.wrong), 0);
    CHECK_EQ(o.next[0], MSGS);
    for (int i = 0; i < CHAIN; i++)
        CHECK_OK(wf_node_destroy(chain[i]));
    GT_DESTROY(g, f);
}

/* An overwrite_node before a rejecting function node: a put while the
 * function is busy is rejected and the edge turns to pull; the function
 * then pulls the value once.  It used to pull it again and again, for
 * ever, since a get leaves the value in the overwrite node (found by the
 * graph_ops fuzz target). */
typedef struct {
    _Atomic int runs, first_in;
} slow_first;

static int slow_first_body(const void *in, void *out, void *ctx)
{
    (void)in, (void)out;
    slow_first *c = ctx;
    if (atomic_fetch_add(&c->runs, 1) == 0) {
        atomic_store(&c->first_in, 1);
        gt_sleep_us(20000); /* the second put comes meanwhile */
    }
    return 0;
}

static void test_overwrite_pulled_once(void)
{
    wf_graph *g = gt_graph(pool);
    slow_first c = {0};
    wf_node *ow = gt_overwrite(g, false);
    wf_node *f = gt_function(g, sizeof(int), 0, WF_SERIAL, WF_REJECTING,
                             slow_first_body, &c);
    CHECK_OK(wf_make_edge(ow, f));
    gt_put(ow, 5); /* f takes it and is busy */
    while (!atomic_load(&c.first_in))
        gt_sleep_us(100);
    gt_put(ow, 6); /* f rejects: the edge turns to pull */
    CHECK_OK(wf_graph_wait_for_all(g));
    CHECK_EQ(atomic_load(&c.runs), 2); /* 5, then 6 pulled once */
    int v;
    CHECK_EQ(wf_try_get(ow, &v), 1); /* and the value is still there */
    CHECK_EQ(v, 6);
    GT_DESTROY(g, ow, f);
}

static const check_scenario scenarios[] = {
    {"overwrite_pulled_once", test_overwrite_pulled_once},
    {"queue_direct", test_queue_direct},
    {"pq_producers", test_pq_producers},
    {"pq_successor", test_pq_successor_pulls_greatest},
    {"pq_reservation", test_pq_reservation},
    {"overwrite", test_overwrite},
    {"write_once", test_write_once},
    {"overwrite_producers", test_overwrite_producers},
    {"write_once_join", test_write_once_reserving_join},
    {"overwrite_errors", test_overwrite_errors},
    {"composite_edges", test_composite_edges},
    {"composite_nested", test_composite_nested},
    {"composite_errors", test_composite_errors},
    {"composite_dot", test_composite_dot},
};

int main(int argc, char **argv)
{
    pool = gt_pool(4);
    int rc = CHECK_RUN_SCENARIOS("graph_buffering", argc, argv, scenarios);
    CHECK_OK(wf_pool_destroy(pool));
    return rc;
}
