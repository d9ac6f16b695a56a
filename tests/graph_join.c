/* SPDX-License-Identifier: Apache-2.0 */
/* graph_join: the four join_node policies.
 *
 * Proves: a queueing join pairs heads in arrival order per port even when
 * one port receives everything first, and lays out elements of different
 * sizes each aligned; key_matching pairs messages whose keys arrive in
 * different orders on the ports, pairs duplicates of a key in arrival
 * order, and matches multi-byte keys bytewise; tag_matching does the same
 * with uint64_t tags; a reserving join fed by queue_nodes under four
 * concurrent producers consumes every message exactly once; a reserving
 * port fed only by a broadcast_node never fires and the buffers on the
 * other port keep their messages; a reserving join behind a slow rejecting
 * function_node (which must pull from the join) loses nothing; try_get on
 * a queueing join returns the tuples nobody took; with one producer per
 * port in front of a serial rejecting node, a queueing join delivers each
 * pair once and in order, whether the put that formed it offered it or it
 * waited in the join; a reserving join that lends itself the next
 * messages as it consumes delivers pairs once and in order, and leaves
 * what it could not pair in its buffers, in order, also when the graph
 * is cancelled while it fires. */
#include <pthread.h>
#include <stdalign.h>

#include "graph_test.h"

static wf_pool *pool;

typedef struct {
    char c[3];
} three; /* size 3, alignment 1 */

static void test_queueing_unequal(void)
{
    wf_graph *g = gt_graph(pool);
    size_t sizes[3] = {sizeof(three), sizeof(double), sizeof(int)};
    wf_node *j = gt_join(g, 3, sizes, WF_JOIN_QUEUEING);
    size_t tsize = wf_port_msg_size(wf_output_port(j, 0));
    CHECK(tsize >= sizeof(three) + sizeof(double) + sizeof(int));
    wf_node *out = gt_queue(g, tsize);
    CHECK_OK(wf_make_edge(j, out));
    for (int i = 0; i < 10; i++) { /* port 0 gets everything first */
        three t = {{(char)i, 'x', 'y'}};
        CHECK_EQ(wf_try_put(wf_input_port(j, 0), &t), 1);
    }
    for (int i = 0; i < 10; i++) {
        double d = i * 1.5;
        CHECK_EQ(wf_try_put(wf_input_port(j, 1), &d), 1);
    }
    CHECK_OK(wf_graph_wait_for_all(g));
    int v;
    CHECK_EQ(wf_try_get(out, &v), 0); /* port 2 still empty */
    for (int i = 9; i >= 0; i--)
        gt_put(wf_input_port(j, 2), 100 + (9 - i));
    CHECK_OK(wf_graph_wait_for_all(g));
    alignas(16) unsigned char msg[64];
    for (int i = 0; i < 10; i++) {
        CHECK_EQ(wf_try_get(out, msg), 1);
        three *t = wf_tuple_get(msg, j, 0);
        double *d = wf_tuple_get(msg, j, 1);
        int *k = wf_tuple_get(msg, j, 2);
        CHECK((uintptr_t)d % alignof(double) == 0);
        CHECK((uintptr_t)k % alignof(int) == 0);
        CHECK_EQ(t->c[0], i);
        CHECK_EQ(t->c[2], 'y');
        CHECK(*d == i * 1.5);
        CHECK_EQ(*k, 100 + i);
    }
    CHECK(wf_tuple_get(msg, j, 3) == NULL);
    CHECK(wf_tuple_get(msg, out, 0) == NULL);
    GT_DESTROY(g, j, out);
}

/* ---- key and tag matching ------------------------------------------------ */

typedef struct {
    char key[8]; /* multi-byte key, compared bytewise */
    int val;
} keyed;

static void key_of(const void *msg, void *key, void *ctx)
{
    (void)ctx;
    memcpy(key, ((const keyed *)msg)->key, 8);
}

static uint64_t tag_of(const void *msg, void *ctx)
{
    (void)ctx;
    return (uint64_t)((const keyed *)msg)->val / 10;
}

static keyed make(int k, int val)
{
    keyed m;
    memset(&m, 0, sizeof m);
    snprintf(m.key, sizeof m.key, "k%d", k);
    m.val = val;
    return m;
}

static wf_node *keyed_join(wf_graph *g, wf_join_policy pol)
{
    size_t sizes[2] = {sizeof(keyed), sizeof(keyed)};
    wf_key_fn kf[2] = {key_of, key_of};
    wf_tag_fn tf[2] = {tag_of, tag_of};
    wf_join_config c = WF_JOIN_CONFIG_INIT;
    c.ports = 2;
    c.msg_sizes = sizes;
    c.policy = pol;
    c.key_size = 8;
    c.key_fns = kf;
    c.tag_fns = tf;
    wf_node *j;
    CHECK_OK(wf_join_node_create(&j, g, &c));
    return j;
}

static void put_keyed(wf_node *j, unsigned port, keyed m)
{
    CHECK_EQ(wf_try_put(wf_input_port(j, port), &m), 1);
}

static void test_key_matching(void)
{
    wf_graph *g = gt_graph(pool);
    wf_node *j = keyed_join(g, WF_JOIN_KEY_MATCHING);
    for (int k = 0; k < 100; k++) /* port 0 ascending, port 1 descending */
        put_keyed(j, 0, make(k, k));
    for (int k = 99; k >= 0; k--)
        put_keyed(j, 1, make(k, 1000 + k));
    /* Duplicates: two k7s on each port pair up in arrival order. */
    put_keyed(j, 0, make(7, 1));
    put_keyed(j, 0, make(7, 2));
    put_keyed(j, 1, make(7, 3));
    put_keyed(j, 1, make(7, 4));
    put_keyed(j, 0, make(500, 5)); /* never matched */
    CHECK_OK(wf_graph_wait_for_all(g));
    unsigned char msg[64];
    int seen[100] = {0}, dups = 0;
    while (wf_try_get(j, msg) == 1) {
        keyed *a = wf_tuple_get(msg, j, 0), *b = wf_tuple_get(msg, j, 1);
        CHECK(memcmp(a->key, b->key, 8) == 0);
        if (a->val < 100 && b->val >= 1000) {
            CHECK_EQ(b->val, 1000 + a->val);
            seen[a->val]++;
        } else {
            CHECK_EQ(b->val, a->val + 2); /* (1,3) then (2,4) */
            CHECK_EQ(a->val, ++dups);
        }
    }
    CHECK_EQ(dups, 2);
    for (int k = 0; k < 100; k++)
        CHECK_EQ(seen[k], 1);
    GT_DESTROY(g, j);
}

/* Many int keys, three ports, each fed in its own scrambled order with
 * the puts interleaved, so keys come and go while the table grows (entry
 * reuse, deletions in the middle of probe runs); every 7th key comes
 * three times on every port.  Each key must pair with itself, its copies
 * in arrival order, and nothing may stay behind.  Keys are i * scale:
 * 64 repeats the low bits, 16 gives every key a group of its own, 1
 * fills whole index buckets (join_key.c puts 16 consecutive keys in the
 * lanes of one bucket). */
typedef struct {
    int32_t key, val;
} kv;

static void kv_key(const void *msg, void *key, void *ctx)
{
    (void)ctx;
    memcpy(key, &((const kv *)msg)->key, sizeof(int32_t));
}

/* join_key.c's limit on the entries a narrow (4-byte slot) index names,
 * 2^24 - 1; a test lowers it so that a table crosses to wide slots. */
extern uint32_t wf__join_key_narrow_ents;

static void test_key_table(int scale)
{
    enum { N = 5000, PORTS = 3, DUP = 3 };
    wf_graph *g = gt_graph(pool);
    size_t sizes[PORTS] = {sizeof(kv), sizeof(kv), sizeof(kv)};
    wf_key_fn kf[PORTS] = {kv_key, kv_key, kv_key};
    wf_join_config c = WF_JOIN_CONFIG_INIT;
    c.ports = PORTS;
    c.msg_sizes = sizes;
    c.policy = WF_JOIN_KEY_MATCHING;
    c.key_size = sizeof(int32_t);
    c.key_fns = kf;
    wf_node *j;
    CHECK_OK(wf_join_node_create(&j, g, &c));
    static int order[PORTS][N * DUP];
    int len = 0;
    for (int i = 0; i < N; i++) /* the keys, scaled */
        for (int d = 0; d < (i % 7 == 0 ? DUP : 1); d++)
            order[0][len++] = i * scale;
    for (int p = 1; p < PORTS; p++) /* the same multiset, shuffled */
        for (int i = 0; i < len; i++)
            order[p][i] = order[0][((long)i * (p == 1 ? 7919 : 104729)) % len];
    /* 7919 and 104729 are primes that do not divide len: permutations. */
    int next_val[N] = {0};
    static int sent[PORTS][N];
    memset(sent, 0, sizeof sent);
    for (int i = 0; i < len; i++)
        for (int p = 0; p < PORTS; p++) {
            kv m = {order[p][i], 0};
            /* val: which copy of its key this port is sending */
            m.val = sent[p][m.key / scale]++;
            CHECK_EQ(wf_try_put(wf_input_port(j, p), &m), 1);
        }
    CHECK_OK(wf_graph_wait_for_all(g));
    unsigned char msg[64];
    int tuples = 0;
    while (wf_try_get(j, msg) == 1) {
        const kv *a = wf_tuple_get(msg, j, 0);
        for (int p = 1; p < PORTS; p++) {
            const kv *b = wf_tuple_get(msg, j, p);
            CHECK_EQ(b->key, a->key);
            CHECK_EQ(b->val, a->val); /* copies pair in arrival order */
        }
        CHECK_EQ(a->val, next_val[a->key / scale]++);
        tuples++;
    }
    CHECK_EQ(tuples, len);
    /* Leftovers, duplicates included, are freed by reset (ASan: leaks). */
    for (int d = 0; d < 3; d++) {
        kv m = {-scale, d};
        CHECK_EQ(wf_try_put(wf_input_port(j, 0), &m), 1);
    }
    CHECK_OK(wf_graph_reset(g, 0));
    kv m = {-scale, 9};
    for (int p = 0; p < PORTS; p++)
        CHECK_EQ(wf_try_put(wf_input_port(j, p), &m), 1);
    CHECK_OK(wf_graph_wait_for_all(g));
    CHECK_EQ(wf_try_get(j, msg), 1); /* only the one after the reset */
    CHECK_EQ(((const kv *)wf_tuple_get(msg, j, 0))->val, 9);
    CHECK_EQ(wf_try_get(j, msg), 0);
    GT_DESTROY(g, j);
}

static void test_tag_matching(void)
{
    wf_graph *g = gt_graph(pool);
    wf_node *j = keyed_join(g, WF_JOIN_TAG_MATCHING);
    wf_node *out = gt_queue(g, wf_port_msg_size(wf_output_port(j, 0)));
    CHECK_OK(wf_make_edge(j, out));
    for (int t = 0; t < 50; t++) /* tag = val / 10 */
        put_keyed(j, 1, make(0, t * 10 + 1));
    for (int t = 49; t >= 0; t--)
        put_keyed(j, 0, make(0, t * 10 + 2));
    CHECK_OK(wf_graph_wait_for_all(g));
    unsigned char msg[64];
    int n = 0;
    while (wf_try_get(out, msg) == 1) {
        keyed *a = wf_tuple_get(msg, j, 0), *b = wf_tuple_get(msg, j, 1);
        CHECK_EQ(a->val / 10, b->val / 10);
        CHECK_EQ(a->val % 10, 2);
        CHECK_EQ(b->val % 10, 1);
        CHECK_EQ(a->val / 10, 49 - n); /* formed as port 0's arrive */
        n++;
    }
    CHECK_EQ(n, 50);
    GT_DESTROY(g, j, out);
}

/* ---- reserving ----------------------------------------------------------- */

#define PRODUCERS 4

typedef struct {
    wf_node *q[2];
    int per_thread;
    int id;
} producer_arg;

static void *producer(void *p)
{
    producer_arg *a = p;
    for (int i = 0; i < a->per_thread; i++) {
        int v = a->id * a->per_thread + i;
        gt_put(a->q[v & 1], v);
    }
    return NULL;
}

typedef struct {
    wf_node *join;
    _Atomic int *seen;
    _Atomic long sum;
    _Atomic int calls;
    long sleep_us;
} sink;

static int sink_body(const void *in, void *out, void *ctx)
{
    (void)out;
    sink *s = ctx;
    int a = *(int *)wf_tuple_get(in, s->join, 0);
    int b = *(int *)wf_tuple_get(in, s->join, 1);
    CHECK_EQ(a & 1, 0);
    CHECK_EQ(b & 1, 1);
    atomic_fetch_add(&s->seen[a], 1);
    atomic_fetch_add(&s->seen[b], 1);
    atomic_fetch_add(&s->sum, (long)a + b);
    atomic_fetch_add(&s->calls, 1);
    if (s->sleep_us)
        gt_sleep_us(s->sleep_us);
    return 0;
}

static void check_reserving_flow(int per_thread, unsigned conc,
                                 wf_fn_policy pol, long sleep_us)
{
    wf_graph *g = gt_graph(pool);
    size_t sizes[2] = {sizeof(int), sizeof(int)};
    wf_node *q0 = gt_queue(g, sizeof(int)), *q1 = gt_queue(g, sizeof(int));
    wf_node *j = gt_join(g, 2, sizes, WF_JOIN_RESERVING);
    int total = PRODUCERS * per_thread;
    sink s = {.join = j,
              .seen = calloc(total, sizeof(_Atomic int)),
              .sleep_us = sleep_us};
    wf_node *f = gt_function(g, wf_port_msg_size(wf_output_port(j, 0)), 0, conc,
                             pol, sink_body, &s);
    CHECK_OK(wf_make_edge(q0, wf_input_port(j, 0)));
    CHECK_OK(wf_make_edge(q1, wf_input_port(j, 1)));
    CHECK_OK(wf_make_edge(j, f));
    pthread_t th[PRODUCERS];
    producer_arg args[PRODUCERS];
    for (int i = 0; i < PRODUCERS; i++) {
        args[i] = (producer_arg){{q0, q1}, per_thread, i};
        CHECK(pthread_create(&th[i], NULL, producer, &args[i]) == 0);
    }
    for (int i = 0; i < PRODUCERS; i++)
        pthread_join(th[i], NULL);
    CHECK_OK(wf_graph_wait_for_all(g));
    CHECK_EQ(atomic_load(&s.calls), total / 2);
    CHECK_EQ(atomic_load(&s.sum), (long)total * (total - 1) / 2);
    for (int v = 0; v < total; v++)
        CHECK_EQ(atomic_load(&s.seen[v]), 1);
    int left;
    CHECK_EQ(wf_try_get(q0, &left), 0);
    CHECK_EQ(wf_try_get(q1, &left), 0);
    free(s.seen);
    GT_DESTROY(g, q0, q1, j, f);
}

static void test_reserving_broadcast_port(void)
{
    wf_graph *g = gt_graph(pool);
    size_t sizes[2] = {sizeof(int), sizeof(int)};
    wf_node *bn = gt_broadcast(g, sizeof(int)),
            *buf = gt_buffer(g, sizeof(int));
    wf_node *j = gt_join(g, 2, sizes, WF_JOIN_RESERVING);
    wf_node *out = gt_buffer(g, wf_port_msg_size(wf_output_port(j, 0)));
    CHECK_OK(wf_make_edge(bn, wf_input_port(j, 0)));
    CHECK_OK(wf_make_edge(buf, wf_input_port(j, 1)));
    CHECK_OK(wf_make_edge(j, out));
    for (int i = 0; i < 20; i++) {
        gt_put(buf, i);
        gt_put(bn, 100 + i);
        CHECK_OK(wf_graph_wait_for_all(g));
    }
    unsigned char msg[16];
    CHECK_EQ(wf_try_get(out, msg), 0); /* never fired */
    int got[20];
    CHECK_EQ(gt_drain(buf, got, 20), 20); /* nothing taken from buf */
    for (int i = 0; i < 20; i++)
        CHECK_EQ(got[i], i);
    /* The reserving port rejects a direct put. */
    CHECK_EQ(wf_try_put(wf_input_port(j, 0), &got[0]), 0);
    GT_DESTROY(g, bn, buf, j, out);
}

static void test_queueing_try_get(void)
{
    wf_graph *g = gt_graph(pool);
    size_t sizes[2] = {sizeof(int), sizeof(int)};
    wf_node *j = gt_join(g, 2, sizes, WF_JOIN_QUEUEING);
    for (int i = 0; i < 5; i++) {
        gt_put(wf_input_port(j, 1), 10 + i);
        gt_put(wf_input_port(j, 0), i);
    }
    int pair[2];
    for (int i = 0; i < 5; i++) {
        CHECK_EQ(wf_try_get(j, pair), 1);
        CHECK_EQ(pair[0], i);
        CHECK_EQ(pair[1], 10 + i);
    }
    CHECK_EQ(wf_try_get(j, pair), 0);
    GT_DESTROY(g, j);
}

/* ---- tuples offered by the put that formed them (store.c) ---------------- */

enum { DT_N = 3000 };

typedef struct {
    wf_node *join;
    int next; /* serial body: the next pair expected */
    _Atomic int wrong;
} dt_state;

static int dt_body(const void *in, void *out, void *ctx)
{
    (void)out;
    dt_state *s = ctx;
    int a = *(const int *)wf_tuple_get(in, s->join, 0);
    int b = *(const int *)wf_tuple_get(in, s->join, 1);
    if (a != s->next || b != 10 * a)
        atomic_fetch_add(&s->wrong, 1);
    s->next = a + 1;
    if (a % 64 == 0)
        gt_sleep_us(20); /* busy: later tuples are rejected and wait */
    return 0;
}

typedef struct {
    wf_port to;
    int mul;
} dt_producer;

static void *dt_produce(void *arg)
{
    dt_producer *p = arg;
    for (int i = 0; i < DT_N; i++)
        gt_put(p->to, i * p->mul);
    return NULL;
}

/* One producer per port of a queueing join in front of a serial rejecting
 * node: a tuple that finds the join's store empty is offered by the put
 * that formed it; a rejected one waits and is pulled.  Each pair comes
 * once, in order (pair i forms only after the put that formed pair i - 1
 * returned), and nothing stays in the join. */
static void test_queueing_direct_tuples(void)
{
    wf_graph *g = gt_graph(pool);
    size_t sizes[2] = {sizeof(int), sizeof(int)};
    wf_node *j = gt_join(g, 2, sizes, WF_JOIN_QUEUEING);
    dt_state s = {.join = j};
    wf_node *f = gt_function(g, 2 * sizeof(int), 0, WF_SERIAL, WF_REJECTING,
                             dt_body, &s);
    CHECK_OK(wf_make_edge(j, f));
    pthread_t t[2];
    dt_producer p[2] = {{wf_input_port(j, 0), 1}, {wf_input_port(j, 1), 10}};
    for (int i = 0; i < 2; i++)
        CHECK(pthread_create(&t[i], NULL, dt_produce, &p[i]) == 0);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    CHECK_OK(wf_graph_wait_for_all(g));
    CHECK_EQ(atomic_load(&s.wrong), 0);
    CHECK_EQ(s.next, DT_N);
    int pair[2];
    CHECK_EQ(wf_try_get(j, pair), 0);
    GT_DESTROY(g, j, f);
}

/* ---- a reserving join that keeps the next messages lent (join.c) --------- */

static void put_range(wf_node *q, int from, int to, int mul)
{
    for (int i = from; i < to; i++)
        gt_put(q, i * mul);
}

/* Two producers into the buffers of a reserving join in front of a serial
 * node: the join consumes each pair and reserves the next in one step
 * (consume_next), and gives a message lent that way back when the other
 * port runs dry.  Pairs come once and in order, and the messages left
 * over stay in their buffer, oldest first: phase 2 leaves port 0's extra
 * messages (one of them lent, then released) for phase 3, which pairs
 * them; phase 3 leaves port 1's, lent while port 0 had none. */
static void test_reserving_keeps_order(void)
{
    wf_graph *g = gt_graph(pool);
    size_t sizes[2] = {sizeof(int), sizeof(int)};
    wf_node *q0 = gt_buffer(g, sizeof(int)), *q1 = gt_queue(g, sizeof(int));
    wf_node *j = gt_join(g, 2, sizes, WF_JOIN_RESERVING);
    dt_state s = {.join = j};
    wf_node *f =
        gt_function(g, 2 * sizeof(int), 0, WF_SERIAL, WF_QUEUEING, dt_body, &s);
    CHECK_OK(wf_make_edge(q0, wf_input_port(j, 0)));
    CHECK_OK(wf_make_edge(q1, wf_input_port(j, 1)));
    CHECK_OK(wf_make_edge(j, f));
    pthread_t t[2];
    dt_producer p[2] = {{wf_input_port(q0, 0), 1}, {wf_input_port(q1, 0), 10}};
    for (int i = 0; i < 2; i++)
        CHECK(pthread_create(&t[i], NULL, dt_produce, &p[i]) == 0);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    CHECK_OK(wf_graph_wait_for_all(g));
    CHECK_EQ(s.next, DT_N);
    put_range(q0, DT_N, DT_N + 10, 1); /* phase 2 */
    put_range(q1, DT_N, DT_N + 5, 10);
    CHECK_OK(wf_graph_wait_for_all(g));
    CHECK_EQ(s.next, DT_N + 5);
    put_range(q1, DT_N + 5, DT_N + 15, 10); /* phase 3 */
    CHECK_OK(wf_graph_wait_for_all(g));
    CHECK_EQ(s.next, DT_N + 10);
    CHECK_EQ(atomic_load(&s.wrong), 0);
    int left[8];
    CHECK_EQ(gt_drain(q0, left, 8), 0);
    CHECK_EQ(gt_drain(q1, left, 8), 5);
    for (int i = 0; i < 5; i++)
        CHECK_EQ(left[i], 10 * (DT_N + 10 + i));
    GT_DESTROY(g, q0, q1, j, f);
}

enum { CK_N = 500, CK_AT = 200 };

typedef struct {
    wf_graph *g;
    wf_node *rj; /* the reserving join, whose tuples port 0 gets */
} ck_state;

/* Port 0's key function cancels the graph when pair CK_AT arrives: on
 * the thread that fires the reserving join, between two of its tuples. */
static void ck_cancel_key(const void *msg, void *key, void *ctx)
{
    ck_state *c = ctx;
    int a = *(const int *)wf_tuple_get(msg, c->rj, 0);
    if (a == CK_AT)
        CHECK_OK(wf_graph_cancel(c->g));
    memcpy(key, &a, sizeof a);
}

static void ck_int_key(const void *msg, void *key, void *ctx)
{
    (void)ctx;
    memcpy(key, msg, sizeof(int));
}

/* Cancel while the reserving join fires and holds the next messages lent:
 * it gives them back as it stops, so both buffers still hand out every
 * message after pair CK_AT, in order (nothing accepted is lost). */
static void test_reserving_cancel_releases(void)
{
    wf_graph *g = gt_graph(pool);
    size_t sizes[2] = {sizeof(int), sizeof(int)};
    wf_node *q0 = gt_buffer(g, sizeof(int)), *q1 = gt_queue(g, sizeof(int));
    wf_node *rj = gt_join(g, 2, sizes, WF_JOIN_RESERVING);
    ck_state c = {g, rj};
    size_t ksizes[2] = {wf_port_msg_size(wf_output_port(rj, 0)), sizeof(int)};
    wf_key_fn kf[2] = {ck_cancel_key, ck_int_key};
    wf_join_config kc = WF_JOIN_CONFIG_INIT;
    kc.ports = 2;
    kc.msg_sizes = ksizes;
    kc.policy = WF_JOIN_KEY_MATCHING;
    kc.key_size = sizeof(int);
    kc.key_fns = kf;
    kc.ctx = &c;
    wf_node *kj;
    CHECK_OK(wf_join_node_create(&kj, g, &kc));
    CHECK_OK(wf_make_edge(q0, wf_input_port(rj, 0)));
    CHECK_OK(wf_make_edge(q1, wf_input_port(rj, 1)));
    CHECK_OK(wf_make_edge(rj, wf_input_port(kj, 0)));
    put_range(q0, 0, CK_N, 1);
    int put1 = 0; /* the cancel may stop the puts into q1 */
    for (int r = 1; put1 < CK_N; put1++) {
        int v = 10 * put1;
        if ((r = wf_try_put(q1, &v)) == WF_ECANCELED)
            break;
        CHECK_EQ(r, 1);
    }
    CHECK_EQ(wf_graph_wait_for_all(g), WF_ECANCELED);
    CHECK(put1 > CK_AT);
    int left[CK_N];
    CHECK_EQ(gt_drain(q0, left, CK_N), CK_N - CK_AT - 1);
    for (int i = CK_AT + 1; i < CK_N; i++)
        CHECK_EQ(left[i - CK_AT - 1], i);
    CHECK_EQ(gt_drain(q1, left, CK_N), put1 - CK_AT - 1);
    for (int i = CK_AT + 1; i < put1; i++)
        CHECK_EQ(left[i - CK_AT - 1], 10 * i);
    GT_DESTROY(g, q0, q1, rj, kj);
}

int main(void)
{
    pool = gt_pool(2);
    test_queueing_unequal();
    test_key_matching();
    test_key_table(64); /* low bits repeat */
    test_key_table(16); /* a group each: lanes from the group's hash */
    test_key_table(1);  /* consecutive keys: dense index groups */
    /* Past 1000 entries ever used the index turns from narrow to wide
     * slots, with about a thousand keys waiting: each must be found in
     * the new index, with its home, tag and entry. */
    uint32_t narrow = wf__join_key_narrow_ents;
    wf__join_key_narrow_ents = 1000;
    test_key_table(1);
    test_key_table(64);
    wf__join_key_narrow_ents = narrow;
    test_tag_matching();
#ifdef WF_TEST_SANITIZED
    check_reserving_flow(2000, WF_UNLIMITED, WF_QUEUEING, 0);
#else
    check_reserving_flow(20000, WF_UNLIMITED, WF_QUEUEING, 0);
#endif
    /* Slow rejecting consumer: the join's output edge turns to pull. */
    check_reserving_flow(50, WF_SERIAL, WF_REJECTING, 200);
    test_reserving_broadcast_port();
    test_queueing_try_get();
    test_queueing_direct_tuples();
    test_reserving_keeps_order();
    test_reserving_cancel_releases();
    CHECK_OK(wf_pool_destroy(pool));
    CHECK_DONE("graph_join");
}
