/* SPDX-License-Identifier: Apache-2.0 */
/* graph_continue: a continue node's rounds as pool tasks, and the node
 * record they left lean.
 *
 *   no_record   the pool's allocator fails, so the round a put completes
 *               gets no task record: the body does not run, the graph
 *               fails with WF_ENOMEM, the node holds the round (DOT);
 *               after a reset and with memory back, rounds run again.
 *   overlap     one node, every signal a round, signalled from several
 *               pool tasks at once: every round runs once, and bodies of
 *               the node do run at the same time.
 *   priority    the same with the node at priority 5: its rounds go by the
 *               graph's priority list, and every one runs once.
 *   cancel      a body cancels the graph part-way through 4000 rounds:
 *               wait_for_all says WF_ECANCELED, and every completed round
 *               either ran or is held (DOT), none lost; after a reset all
 *               run again.
 *   big_output  a 256-byte output (larger than a task record's room):
 *               each round's message reaches the sink whole, and a round
 *               whose output cannot be allocated fails the graph; nothing
 *               leaks.
 *   ports       a multifunction node of 65535 output ports is made, one of
 *               65536 is refused with WF_ERANGE.
 *   retired     edges made and removed until a port's list grows and
 *               retires blocks and edges: with every block its own
 *               allocation (debug mode), all of it is freed with the
 *               nodes.
 *   memory      a 128x128 wavefront of continue nodes, each after its
 *               north and west neighbours, asks the graph's allocator
 *               for at most 328 bytes a node in all (a 192-byte node,
 *               two 32-byte edges, a 64-byte out-list, and the slabs'
 *               share: 324.1 when this was written), in fewer than one
 *               call per 64 nodes, and runs every cell once. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph_test.h"
#include "test_alloc.h"

static test_alloc ta;

/* A graph on pool whose memory comes from ta. */
static wf_graph *counted_graph(wf_pool *pool)
{
    wf_graph_config gc = WF_GRAPH_CONFIG_INIT;
    gc.pool = pool;
    gc.alloc = &ta.iface;
    wf_graph *g = NULL;
    CHECK_OK(wf_graph_create_with(&g, &gc));
    return g;
}

/* Does g's DOT output contain `text`? */
static bool dot_has(wf_graph *g, const char *text)
{
    FILE *f = tmpfile();
    CHECK(f != NULL);
    CHECK_OK(wf_graph_write_dot(g, f));
    long n = ftell(f);
    CHECK(n > 0);
    char *buf = calloc(1, (size_t)n + 1);
    CHECK(buf != NULL);
    rewind(f);
    CHECK(fread(buf, 1, (size_t)n, f) == (size_t)n);
    fclose(f);
    bool has = strstr(buf, text) != NULL;
    free(buf);
    return has;
}

static void no_record(void)
{
    ta_init(&ta, TA_NEVER, 0);
    wf_pool *pool = make_pool(2, 0, &ta.iface);
    wf_graph *g = gt_graph(pool);
    _Atomic int runs = 0;
    wf_node *c = gt_continue_counter(g, &runs);
    /* No record kept yet on this thread's slot: the round needs one. */
    ta_fail_from_now(&ta, 1);
    CHECK_EQ(wf_try_put(c, NULL), 1); /* a continue node always accepts */
    CHECK_EQ(wf_graph_wait_for_all(g), WF_ENOMEM);
    CHECK_EQ(atomic_load(&runs), 0);
    CHECK(atomic_load(&ta.failures) > 0);
    CHECK_MSG(dot_has(g, "continue_node\\nholds 1"),
              "the dropped round is not reported as held");
    ta_fail_from_now(&ta, 0);
    CHECK_OK(wf_graph_reset(g, 0));
    CHECK(dot_has(g, "continue_node\\nholds 0"));
    for (int i = 0; i < 100; i++)
        CHECK_EQ(wf_try_put(c, NULL), 1);
    CHECK_OK(wf_graph_wait_for_all(g));
    CHECK_EQ(atomic_load(&runs), 100);
    CHECK_OK(wf_node_destroy(c));
    CHECK_OK(wf_graph_destroy(g));
    CHECK_OK(wf_pool_destroy(pool));
    ta_check_no_leak(&ta, "no_record"); /* the records kept: freed too */
}

/* ---- overlap --------------------------------------------------------- */

enum { SIGNALLERS = 8, SIGNALS = 500 };

static _Atomic int in_body, most_in_body, overlap_runs;

static int slow_round(void *out, void *ctx)
{
    (void)out, (void)ctx;
    int now = atomic_fetch_add(&in_body, 1) + 1;
    for (int seen = atomic_load(&most_in_body); now > seen;)
        if (atomic_compare_exchange_weak(&most_in_body, &seen, now))
            break;
    gt_sleep_us(20);
    atomic_fetch_sub(&in_body, 1);
    atomic_fetch_add(&overlap_runs, 1);
    return 0;
}

static _Atomic long sent; /* signals the node accepted */

/* A function node's body: SIGNALS signals to the continue node (ctx), or
 * fewer once the graph is cancelled. */
static int signaller(const void *in, void *out, void *ctx)
{
    (void)in, (void)out;
    for (int i = 0; i < SIGNALS; i++) {
        int r = wf_try_put((wf_node *)ctx, NULL);
        CHECK_MSG(r == 1 || r == WF_ECANCELED, "try_put: %d", r);
        if (r == 1)
            atomic_fetch_add(&sent, 1);
    }
    return 0;
}

static void overlap(void)
{
    wf_pool *pool = gt_pool(4);
    wf_graph *g = gt_graph(pool);
    wf_continue_config cc = WF_CONTINUE_CONFIG_INIT;
    cc.body = slow_round;
    wf_node *c = NULL;
    CHECK_OK(wf_continue_node_create(&c, g, &cc));
    wf_node *f = gt_function(g, sizeof(int), WF_SIGNAL, WF_UNLIMITED,
                             WF_QUEUEING, signaller, c);
    for (int i = 0; i < SIGNALLERS; i++)
        CHECK_EQ(wf_try_put(f, &i), 1);
    CHECK_OK(wf_graph_wait_for_all(g));
    CHECK_EQ(atomic_load(&overlap_runs), SIGNALLERS * SIGNALS);
    CHECK_MSG(atomic_load(&most_in_body) > 1,
              "no two bodies of the node ran at once in %d rounds",
              SIGNALLERS * SIGNALS);
    CHECK_OK(wf_graph_destroy(g));
    CHECK_OK(wf_node_destroy(c));
    CHECK_OK(wf_node_destroy(f));
    CHECK_OK(wf_pool_destroy(pool));
}

/* ---- priority and cancel ------------------------------------------------ */

static wf_graph *cancel_graph;
static _Atomic int cancel_runs;

static int count_or_cancel(void *out, void *ctx)
{
    (void)out, (void)ctx;
    if (atomic_fetch_add(&cancel_runs, 1) + 1 == 100)
        CHECK_OK(wf_graph_cancel(cancel_graph));
    return 0;
}

/* 4000 signals from 8 graph tasks into one continue node of threshold 1
 * (priority prio), whose body is `body`.  Returns the node. */
static wf_node *signalled_node(wf_graph *g, int prio, wf_continue_fn body,
                               wf_node **f)
{
    wf_continue_config cc = WF_CONTINUE_CONFIG_INIT;
    cc.body = body;
    wf_node *c = NULL;
    CHECK_OK(wf_continue_node_create(&c, g, &cc));
    if (prio > 0)
        CHECK_OK(wf_node_set_priority(c, prio));
    *f = gt_function(g, sizeof(int), WF_SIGNAL, WF_UNLIMITED, WF_QUEUEING,
                     signaller, c);
    return c;
}

static void priority(void)
{
    wf_pool *pool = gt_pool(2);
    wf_graph *g = gt_graph(pool);
    atomic_store(&overlap_runs, 0);
    wf_node *f, *c = signalled_node(g, 5, slow_round, &f);
    for (int i = 0; i < SIGNALLERS; i++)
        CHECK_EQ(wf_try_put(f, &i), 1);
    CHECK_OK(wf_graph_wait_for_all(g));
    CHECK_EQ(atomic_load(&overlap_runs), SIGNALLERS * SIGNALS);
    CHECK(dot_has(g, "continue_node\\nholds 0"));
    CHECK_OK(wf_graph_destroy(g));
    CHECK_OK(wf_node_destroy(c));
    CHECK_OK(wf_node_destroy(f));
    CHECK_OK(wf_pool_destroy(pool));
}

/* The node's held count, from g's DOT output. */
static long held_rounds(wf_graph *g)
{
    for (long n = 0; n <= SIGNALLERS * SIGNALS; n++) {
        char text[64];
        snprintf(text, sizeof text, "continue_node\\nholds %ld\"", n);
        if (dot_has(g, text))
            return n;
    }
    CHECK_MSG(false, "no held count for the continue node in the DOT output");
    return -1;
}

static void cancel(void)
{
    wf_pool *pool = gt_pool(2);
    wf_graph *g = cancel_graph = gt_graph(pool);
    atomic_store(&sent, 0);
    wf_node *f, *c = signalled_node(g, 0, count_or_cancel, &f);
    for (int i = 0; i < SIGNALLERS; i++)
        CHECK_EQ(wf_try_put(f, &i), 1);
    CHECK_EQ(wf_graph_wait_for_all(g), WF_ECANCELED);
    /* Every signal the node accepted completed a round (threshold 1),
     * which ran or is held: none lost. */
    long ran = atomic_load(&cancel_runs), held = held_rounds(g);
    CHECK_MSG(ran >= 100 && ran + held == atomic_load(&sent),
              "%ld rounds ran and %ld are held, of %ld signals", ran, held,
              atomic_load(&sent));
    CHECK_OK(wf_graph_reset(g, 0));
    CHECK_EQ(held_rounds(g), 0);
    atomic_store(&cancel_runs, 1000); /* past 100: no second cancel */
    CHECK_EQ(wf_try_put(f, &(int){0}), 1);
    CHECK_OK(wf_graph_wait_for_all(g));
    CHECK_EQ(atomic_load(&cancel_runs), 1000 + SIGNALS);
    CHECK_OK(wf_graph_destroy(g));
    CHECK_OK(wf_node_destroy(c));
    CHECK_OK(wf_node_destroy(f));
    CHECK_OK(wf_pool_destroy(pool));
}

/* ---- big_output ------------------------------------------------------ */

enum { WORDS = 64, BIG_ROUNDS = 2000 };

typedef struct {
    int w[WORDS];
} big;

static _Atomic int next_stamp, big_seen, big_torn;

static int write_big(void *out, void *ctx)
{
    (void)ctx;
    big *b = out;
    int stamp = atomic_fetch_add(&next_stamp, 1);
    for (int i = 0; i < WORDS; i++)
        b->w[i] = stamp;
    return 0;
}

static int check_big(const void *in, void *out, void *ctx)
{
    (void)out, (void)ctx;
    const big *b = in;
    for (int i = 1; i < WORDS; i++)
        if (b->w[i] != b->w[0])
            atomic_fetch_add(&big_torn, 1);
    atomic_fetch_add(&big_seen, 1);
    return 0;
}

static void big_output(void)
{
    ta_init(&ta, TA_NEVER, 0);
    wf_pool *pool = gt_pool(2);
    wf_graph *g = counted_graph(pool);
    wf_continue_config cc = WF_CONTINUE_CONFIG_INIT;
    cc.out_size = sizeof(big);
    cc.body = write_big;
    wf_node *c = NULL;
    CHECK_OK(wf_continue_node_create(&c, g, &cc));
    wf_node *sink = gt_function(g, sizeof(big), WF_SIGNAL, WF_UNLIMITED,
                                WF_QUEUEING, check_big, NULL);
    CHECK_OK(wf_make_edge(c, sink));
    for (int i = 0; i < BIG_ROUNDS; i++)
        CHECK_EQ(wf_try_put(c, NULL), 1);
    CHECK_OK(wf_graph_wait_for_all(g));
    CHECK_EQ(atomic_load(&big_seen), BIG_ROUNDS);
    CHECK_EQ(atomic_load(&big_torn), 0);
    /* Each round's output is an allocation of the graph's: with none to
     * be had, the round does not run and the graph fails. */
    int before = atomic_load(&next_stamp);
    ta_fail_from_now(&ta, 1);
    CHECK_EQ(wf_try_put(c, NULL), 1);
    CHECK_EQ(wf_graph_wait_for_all(g), WF_ENOMEM);
    CHECK_EQ(atomic_load(&next_stamp), before);
    ta_fail_from_now(&ta, 0);
    CHECK_OK(wf_graph_destroy(g));
    CHECK_OK(wf_node_destroy(c));
    CHECK_OK(wf_node_destroy(sink));
    CHECK_OK(wf_pool_destroy(pool));
    ta_check_no_leak(&ta, "big_output");
}

/* ---- ports ----------------------------------------------------------- */

static int no_outputs(const void *in, wf_output_ports *ports, void *ctx)
{
    (void)in, (void)ports, (void)ctx;
    return 0;
}

static void ports(void)
{
    wf_pool *pool = gt_pool(1);
    wf_graph *g = gt_graph(pool);
    enum { MOST = 65535 };
    size_t *sizes = malloc((MOST + 1) * sizeof *sizes);
    CHECK(sizes != NULL);
    for (int i = 0; i <= MOST; i++)
        sizes[i] = sizeof(int);
    wf_multifunction_config mc = WF_MULTIFUNCTION_CONFIG_INIT;
    mc.in_size = sizeof(int);
    mc.out_sizes = sizes;
    mc.body = no_outputs;
    wf_node *m = NULL;
    mc.out_ports = MOST + 1;
    CHECK_EQ(wf_multifunction_node_create(&m, g, &mc), WF_ERANGE);
    mc.out_ports = MOST;
    CHECK_OK(wf_multifunction_node_create(&m, g, &mc));
    wf_node *q = gt_queue(g, sizeof(int));
    CHECK_OK(
        wf_make_edge_ports(wf_output_port(m, MOST - 1), wf_input_port(q, 0)));
    CHECK_EQ(wf_make_edge_ports(wf_output_port(m, MOST), wf_input_port(q, 0)),
             WF_ENOPORT);
    free(sizes);
    CHECK_OK(wf_graph_destroy(g));
    CHECK_OK(wf_node_destroy(m));
    CHECK_OK(wf_node_destroy(q));
    CHECK_OK(wf_pool_destroy(pool));
}

/* ---- retired --------------------------------------------------------- */

enum { FAN = 8, EDIT_ROUNDS = 20 };

static void retired_run(void)
{
    ta_init(&ta, TA_NEVER, 0);
    wf_pool *pool = gt_pool(2);
    wf_graph *g = counted_graph(pool);
    _Atomic int runs = 0;
    wf_node *from = gt_broadcast(g, WF_SIGNAL), *to[FAN];
    for (int i = 0; i < FAN; i++)
        to[i] = gt_continue_counter(g, &runs);
    long blocks = atomic_load(&ta.live_blocks);
    for (int r = 0; r < EDIT_ROUNDS; r++) {
        for (int i = 0; i < FAN; i++) /* the list grows past its block */
            CHECK_OK(wf_make_edge(from, to[i]));
        CHECK_EQ(wf_try_put(from, NULL), 1);
        CHECK_OK(wf_graph_wait_for_all(g));
        for (int i = 0; i < FAN; i++)
            CHECK_OK(wf_remove_edge(from, to[i]));
    }
    CHECK_EQ(atomic_load(&runs), FAN * EDIT_ROUNDS);
    /* Removed edges and outgrown blocks are kept (a reader may hold
     * them) until their node goes. */
    CHECK(atomic_load(&ta.live_blocks) > blocks + FAN * EDIT_ROUNDS);
    CHECK_OK(wf_node_destroy(from));
    for (int i = 0; i < FAN; i++)
        CHECK_OK(wf_node_destroy(to[i]));
    CHECK_OK(wf_graph_destroy(g));
    CHECK_OK(wf_pool_destroy(pool));
    ta_check_no_leak(&ta, "retired");
}

/* In debug mode every block of the graph is an allocation of its own, so
 * the allocator sees each retired block and edge freed, or not. */
static void retired(void)
{
    char err[4096];
    int st = check_child_debug(retired_run, "1", err, sizeof err);
    CHECK_MSG(st == 0, "the debug-mode run failed (status %d): %s", st, err);
}

/* ---- memory ---------------------------------------------------------- */

enum { SIDE = 128, BYTES_PER_NODE = 328 };

static void memory(void)
{
    ta_init(&ta, TA_NEVER, 0);
    wf_pool *pool = gt_pool(2);
    wf_graph *g = counted_graph(pool);
    long bytes = atomic_load(&ta.live_bytes), calls = atomic_load(&ta.calls);
    _Atomic int runs = 0;
    static wf_node *cell[SIDE][SIDE];
    for (int i = 0; i < SIDE; i++) {
        for (int j = 0; j < SIDE; j++) {
            cell[i][j] = gt_continue_counter(g, &runs);
            if (i > 0)
                CHECK_OK(wf_make_edge(cell[i - 1][j], cell[i][j]));
            if (j > 0)
                CHECK_OK(wf_make_edge(cell[i][j - 1], cell[i][j]));
        }
    }
    double per_node =
        (double)(atomic_load(&ta.live_bytes) - bytes) / (SIDE * SIDE);
    long node_calls = atomic_load(&ta.calls) - calls;
    printf("  %dx%d continue nodes: %.1f bytes a node, %ld allocator calls\n",
           SIDE, SIDE, per_node, node_calls);
    CHECK_MSG(per_node <= BYTES_PER_NODE, "%.1f bytes a node, above %d",
              per_node, BYTES_PER_NODE);
    CHECK_MSG(node_calls * 64 < SIDE * SIDE,
              "%ld allocator calls for %d nodes: not below one per 64",
              node_calls, SIDE * SIDE);
    CHECK_EQ(wf_try_put(cell[0][0], NULL), 1);
    CHECK_OK(wf_graph_wait_for_all(g));
    CHECK_EQ(atomic_load(&runs), SIDE * SIDE);
    CHECK_OK(wf_graph_destroy(g));
    for (int i = 0; i < SIDE; i++)
        for (int j = 0; j < SIDE; j++)
            CHECK_OK(wf_node_destroy(cell[i][j]));
    CHECK_OK(wf_pool_destroy(pool));
    ta_check_no_leak(&ta, "memory");
}

int main(int argc, char **argv)
{
    static const check_scenario sc[] = {
        {"no_record", no_record},   {"overlap", overlap},
        {"priority", priority},     {"cancel", cancel},
        {"big_output", big_output}, {"ports", ports},
        {"retired", retired},       {"memory", memory},
    };
    return check_run_scenarios("graph_continue", argc, argv, sc,
                               sizeof sc / sizeof sc[0]);
}
