/* SPDX-License-Identifier: Apache-2.0 */
/* graph_fault: a graph program whose allocations fail, one at a time and
 * then all from some point on, swept over every allocation it makes.
 *
 * The program builds a graph of most node kinds through a counting,
 * failing allocator (wf_graph_config.alloc), puts numbered messages along
 * several paths, waits, then clears the edges and destroys everything.
 * Run k fails the k-th allocation (TA_ONE) or every allocation from the
 * k-th on (TA_FROM); the sweep ends with the first run that no failure
 * reached.  Every run checks:
 *   - each call returns success or WF_ENOMEM (puts: 1, 0, WF_ENOMEM, or
 *     WF_ECANCELED once the graph failed); nothing crashes or hangs;
 *   - messages are conserved: with wait_for_all returning 0, every
 *     message a path accepted was delivered once or is still held in a
 *     buffer of the path; with WF_ENOMEM, none was delivered twice;
 *   - removing edges and destroying nodes and the graph need no memory
 *     (with TA_FROM they run with every allocation failing);
 *   - nothing leaks, and every free gets the size that was allocated.
 *
 * Usage: test_graph_fault [THREADS] [MESSAGES] */
#include <stdatomic.h>
#include <stdlib.h>

#include "graph_test.h"
#include "test_alloc.h"

enum { MAX_MSGS = 256, MAX_NODES = 32 };

/* The paths, each ending in a serial sink that tallies what arrives. */
enum { P_QUEUE, P_CHAIN, P_SEQ, P_JOIN, P_KEY, P_BCAST_A, P_BCAST_B, PATHS };
enum { P_HELD = PATHS }; /* what the broadcast's priority queue holds */

static test_alloc ta;
static const char *run_name; /* "allocation k fails" or "... on fail" */
static int msgs = 64;
static _Atomic int seen[PATHS][MAX_MSGS]; /* deliveries per id */
static int acc[PATHS + 1][2][MAX_MSGS];   /* accepted puts per id (port) */

typedef struct {
    int path;
    wf_node *join; /* a join's sink reads element 0 of the tuple */
} sink_ctx;

static sink_ctx sinks[PATHS];

static int sink(const void *in, void *out, void *ctx)
{
    (void)out;
    const sink_ctx *c = ctx;
    const int *id = c->join ? wf_tuple_get(in, c->join, 0) : in;
    CHECK(*id >= 0 && *id < msgs);
    atomic_fetch_add(&seen[c->path][*id], 1);
    return 0;
}

static int pass_on(const void *in, void *out, void *ctx)
{
    (void)ctx;
    *(int *)out = *(const int *)in;
    return 0;
}

static size_t seq_of(const void *msg, void *ctx)
{
    (void)ctx;
    return (size_t) * (const int *)msg;
}

static int cmp_int(const void *a, const void *b, void *ctx)
{
    (void)ctx;
    return *(const int *)a - *(const int *)b;
}

static int cont_body(void *out, void *ctx)
{
    (void)out, (void)ctx;
    return 0;
}

static void key_of(const void *msg, void *key, void *ctx)
{
    (void)ctx;
    *(int *)key = *(const int *)msg;
}

/* The nodes made so far, to destroy at the end. */
typedef struct {
    wf_graph *g;
    wf_node *nodes[MAX_NODES];
    int n;
} prog;

/* n made, or NULL when the constructor ran out of memory. */
static wf_node *made(prog *p, int err, wf_node **np)
{
    wf_node *n = *np; /* read after the constructor ran */
    CHECK_MSG(err == 0 || err == WF_ENOMEM, "create: %s", wf_err_name(err));
    if (err)
        return NULL;
    CHECK(p->n < MAX_NODES);
    return p->nodes[p->n++] = n;
}

static wf_node *sink_node(prog *p, int path, wf_node *join)
{
    sinks[path] = (sink_ctx){.path = path, .join = join};
    wf_function_config c = WF_FUNCTION_CONFIG_INIT;
    c.in_size = join ? wf_port_msg_size(wf_output_port(join, 0)) : sizeof(int);
    c.concurrency = WF_SERIAL;
    c.body = sink;
    c.ctx = &sinks[path];
    wf_node *n = NULL;
    return made(p, wf_function_node_create(&n, p->g, &c), &n);
}

/* An edge from port a to port b, if both nodes exist: true if made. */
static bool connect(wf_port a, wf_port b)
{
    if (a.node == NULL || b.node == NULL)
        return false;
    int err = wf_make_edge(a, b);
    CHECK_MSG(err == 0 || err == WF_ENOMEM, "edge %s -> %s: %s",
              wf_node_kind(a.node), wf_node_kind(b.node), wf_err_name(err));
    return err == 0;
}

/* from -> a new sink of path (reading element 0 of join's tuples). */
static bool to_sink(prog *p, wf_node *from, int path, wf_node *join)
{
    return connect(wf_output_port(from, 0),
                   wf_input_port(sink_node(p, path, join), 0));
}

/* Put id into port `to` of a path; counts it when accepted. */
static void put(int path, int port, wf_port to, int id)
{
    if (to.node == NULL)
        return;
    int r = wf_try_put(to, &id);
    CHECK_MSG(r == 1 || r == 0 || r == WF_ENOMEM || r == WF_ECANCELED,
              "put: %s", wf_err_name(r));
    acc[path][port][id] += r == 1;
}

/* What a path holds still: drained from its buffer n (int messages). */
static int drain(wf_node *n, int path, int port)
{
    int id, k = 0;
    while (n && wf_try_get(n, &id) == 1) {
        CHECK(id >= 0 && id < msgs);
        CHECK_MSG(acc[path][port][id] > 0, "path %d: %d taken twice", path, id);
        acc[path][port][id]--; /* held, not to be delivered */
        k++;
    }
    return k;
}

/* Deliveries of path against its accepted messages: equal when the graph
 * did not fail, never more in any case.  want(id) is what may arrive. */
static void check_path(int path, int err, int (*want)(int path, int id))
{
    for (int id = 0; id < msgs; id++) {
        int got = atomic_load(&seen[path][id]), w = want(path, id);
        CHECK_MSG(got <= w,
                  "path %d: message %d delivered %d times, %d "
                  "accepted",
                  path, id, got, w);
        CHECK_MSG(err != 0 || got == w,
                  "path %d: message %d accepted %d "
                  "times, delivered %d, and wait_for_all returned 0 (%s %ld)",
                  path, id, w, got, run_name, atomic_load(&ta.fail_at));
    }
}

static int want_port0(int path, int id)
{
    return acc[path][0][id];
}

static int want_pair(int path, int id)
{
    int a = acc[path][0][id], b = acc[path][1][id];
    return a < b ? a : b;
}

/* A sequencer lets out 0, 1, 2, ... up to the first number it refused. */
static int prefix;
static int want_prefix(int path, int id)
{
    return id < prefix ? acc[path][0][id] : 0;
}

/* Kinds that carry no tallied messages: their constructors, edges and
 * destructors are swept too. */
static void extra_kinds(prog *p, wf_node *bcast)
{
    wf_node *n = NULL;
    size_t two[2] = {sizeof(int), sizeof(int)};
    wf_node *ow = made(p, wf_overwrite_node_create(&n, p->g, sizeof(int)), &n);
    connect(wf_output_port(bcast, 0), wf_input_port(ow, 0));
    wf_node *lim =
        made(p, wf_limiter_node_create(&n, p->g, sizeof(int), 4), &n);
    connect(wf_output_port(bcast, 0), wf_input_port(lim, 0));
    made(p, wf_write_once_node_create(&n, p->g, sizeof(int)), &n);
    made(p, wf_buffer_node_create(&n, p->g, sizeof(int)), &n);
    made(p, wf_split_node_create(&n, p->g, 2, two), &n);
    wf_node *ix = made(p, wf_indexer_node_create(&n, p->g, 2, two), &n);
    connect(wf_output_port(bcast, 0), wf_input_port(ix, 1));
    made(p,
         wf_continue_node_create(&n, p->g,
                                 &(wf_continue_config){.body = cont_body}),
         &n);
}

static wf_node *key_join(prog *p)
{
    size_t sizes[2] = {sizeof(int), sizeof(int)};
    wf_key_fn keys[2] = {key_of, key_of};
    wf_join_config c = WF_JOIN_CONFIG_INIT;
    c.ports = 2;
    c.msg_sizes = sizes;
    c.policy = WF_JOIN_KEY_MATCHING;
    c.key_size = sizeof(int);
    c.key_fns = keys;
    wf_node *n = NULL;
    return made(p, wf_join_node_create(&n, p->g, &c), &n);
}

/* One run of the program; true if an injected failure was reached. */
static bool run_program(wf_pool *pool, int mode, long k)
{
    memset(acc, 0, sizeof acc);
    for (int i = 0; i < PATHS; i++)
        for (int id = 0; id < MAX_MSGS; id++)
            atomic_store(&seen[i][id], 0);
    ta_init(&ta, mode, k);
    run_name = mode == TA_ONE ? "only allocation" : "every allocation from";
    wf_graph_config cfg = WF_GRAPH_CONFIG_INIT;
    cfg.pool = pool;
    cfg.alloc = &ta.iface;
    prog p = {0};
    int err = wf_graph_create_with(&p.g, &cfg);
    CHECK_MSG(err == 0 || err == WF_ENOMEM, "graph: %s", wf_err_name(err));
    if (err) {
        ta_check_no_leak(&ta, "graph_create failed");
        return true;
    }
    wf_node *n = NULL;
    size_t two[2] = {sizeof(int), sizeof(int)};
    wf_function_config fc = WF_FUNCTION_CONFIG_INIT;
    fc.in_size = fc.out_size = sizeof(int);
    fc.body = pass_on;
    /* The paths: queue -> sink; function -> sink; sequencer -> sink;
     * two queues -> queueing join -> sink; key join -> sink;
     * broadcast -> sink, sink, priority queue (and the extra kinds). */
    wf_node *q = made(&p, wf_queue_node_create(&n, p.g, sizeof(int)), &n);
    wf_node *fn = made(&p, wf_function_node_create(&n, p.g, &fc), &n);
    wf_node *seq = made(
        &p, wf_sequencer_node_create(&n, p.g, sizeof(int), seq_of, NULL), &n);
    wf_node *qa = made(&p, wf_queue_node_create(&n, p.g, sizeof(int)), &n);
    wf_node *qb = made(&p, wf_queue_node_create(&n, p.g, sizeof(int)), &n);
    wf_node *jq =
        made(&p,
             wf_join_node_create(
                 &n, p.g, &(wf_join_config){.ports = 2, .msg_sizes = two}),
             &n);
    wf_node *jk = key_join(&p);
    wf_node *b = made(&p, wf_broadcast_node_create(&n, p.g, sizeof(int)), &n);
    wf_node *pq = made(
        &p, wf_priority_queue_node_create(&n, p.g, sizeof(int), cmp_int, NULL),
        &n);
    bool join_a = connect(wf_output_port(qa, 0), wf_input_port(jq, 0));
    bool join_b = connect(wf_output_port(qb, 0), wf_input_port(jq, 1));
    bool ok[PATHS] = {
        [P_QUEUE] = to_sink(&p, q, P_QUEUE, NULL),
        [P_CHAIN] = to_sink(&p, fn, P_CHAIN, NULL),
        [P_SEQ] = to_sink(&p, seq, P_SEQ, NULL),
        [P_JOIN] = join_a && join_b && to_sink(&p, jq, P_JOIN, jq),
        [P_KEY] = to_sink(&p, jk, P_KEY, jk),
        [P_BCAST_A] = to_sink(&p, b, P_BCAST_A, NULL),
        [P_BCAST_B] = to_sink(&p, b, P_BCAST_B, NULL),
    };
    bool to_pq = connect(wf_output_port(b, 0), wf_input_port(pq, 0));
    if (b)
        extra_kinds(&p, b);
    for (int id = 0; id < msgs; id++) {
        put(P_QUEUE, 0, wf_input_port(q, 0), id);
        put(P_CHAIN, 0, wf_input_port(fn, 0), id);
        /* Backwards: the sequencer's window grows. */
        put(P_SEQ, 0, wf_input_port(seq, 0), msgs - 1 - id);
        put(P_JOIN, 0, wf_input_port(qa, 0), id);
        put(P_JOIN, 1, wf_input_port(qb, 0), id);
        for (int twice = 0; twice < 2; twice++) { /* a key's second tuple */
            put(P_KEY, 0, wf_input_port(jk, 0), id);
            put(P_KEY, 1, wf_input_port(jk, 1), id);
        }
        put(P_BCAST_A, 0, wf_input_port(b, 0), id);
    }
    err = wf_graph_wait_for_all(p.g);
    CHECK_MSG(err == 0 || err == WF_ENOMEM, "wait: %s", wf_err_name(err));
    /* What arrives: along a path that exists, what it accepted and does
     * not hold; a broadcast's message reaches each successor. */
    memcpy(acc[P_BCAST_B], acc[P_BCAST_A], sizeof acc[P_BCAST_A]);
    memcpy(acc[P_HELD], acc[P_BCAST_A], sizeof acc[P_BCAST_A]);
    drain(pq, P_HELD, 0); /* the priority queue holds each one */
    for (int id = 0; id < msgs; id++)
        CHECK_MSG(!to_pq || err != 0 || acc[P_HELD][0][id] == 0,
                  "priority queue: message %d not held", id);
    drain(q, P_QUEUE, 0);
    drain(seq, P_SEQ, 0);
    drain(qa, P_JOIN, 0);
    drain(qb, P_JOIN, 1);
    for (prefix = 0; prefix < msgs && acc[P_SEQ][0][prefix]; prefix++)
        continue;
    int (*want[PATHS])(int, int) = {want_port0, want_port0, want_prefix,
                                    want_pair,  want_pair,  want_port0,
                                    want_port0};
    for (int i = 0; i < PATHS; i++)
        if (ok[i])
            check_path(i, err, want[i]);
    /* Tear down with no memory to spare (TA_FROM), or with some. */
    CHECK_OK(wf_graph_reset(p.g, WF_RESET_CLEAR_EDGES));
    for (int i = 0; i < p.n; i++)
        CHECK_OK(wf_node_destroy(p.nodes[i]));
    CHECK_OK(wf_graph_destroy(p.g));
    ta_check_no_leak(&ta, "after destroy");
    return atomic_load(&ta.failures) > 0;
}

int main(int argc, char **argv)
{
    unsigned threads = argc > 1 ? (unsigned)atoi(argv[1]) : 2;
    msgs = argc > 2 ? atoi(argv[2]) : 64;
    CHECK(msgs > 0 && msgs <= MAX_MSGS);
    wf_pool *pool = gt_pool(threads);
    long runs[2] = {0, 0};
    for (int m = 0; m < 2; m++) {
        int mode = m == 0 ? TA_ONE : TA_FROM;
        while (run_program(pool, mode, runs[m]))
            runs[m]++;
    }
    printf("graph_fault: %ld allocations swept one at a time and from each "
           "on, %d messages a path, %u threads\n",
           runs[0], msgs, threads);
    /* Nodes, edges and edge lists come from the graph's slabs, a chunk
     * for many; in debug mode (the sanitizer builds) each block is an
     * allocation of its own, and the sweep reaches every one. */
    CHECK_MSG(runs[0] > 60,
              "only %ld allocations: the program is not "
              "what this test means to sweep",
              runs[0]);
    CHECK_OK(wf_pool_destroy(pool));
    CHECK_DONE("graph_fault");
}
