/* SPDX-License-Identifier: Apache-2.0 */
/* graph_dot: wf_graph_write_dot shows kinds, names, what each node holds,
 * its message counts (put, accepted, rejected, forwarded) and each edge's
 * push/pull state.
 *
 * Usage: graph_dot [SCENARIO [FILE]], one ctest entry per scenario:
 *
 *   walkthrough [FILE]  the reservation walk-through below; also writes
 *                       its DOT text to FILE (docs/ keeps it, rendered
 *                       with `dot -Tsvg`)
 *   counting            wf_graph_set_counting turns counting on and off
 *   tasks               exact counts after messages ran through tasks
 *   env                 WEFT_GRAPH_COUNTS=1 (set, or this program again
 *                       with it) turns counting on for every graph
 *
 * The walk-through's graph is the reservation example (examples/reservation.c)
 * after its run, before anything is taken out: buf2 still holds 7 and its
 * edge to the join is in pull state (dashed); buf1's and bn's edges went
 * back to push when the join found nothing to reserve there; buf_out holds
 * the tuple (3,4).  The counts: bn, buf1 and buf2 took every put; the
 * join rejected all three pushes (2, 3, 4) and forwarded one tuple; 7
 * never left buf2 (its edge was in pull state).  Also: the same graph with
 * no names and a fresh edge, a name with quotes is escaped, set_name(NULL)
 * clears it.
 *
 * Counting is off by default: a graph that does not count shows no
 * counts and counts nothing, wf_graph_set_counting turns it on and off,
 * and WEFT_GRAPH_COUNTS=1 turns it on for every graph. */
#include "graph_test.h"

#define COUNTS_ENV "WEFT_GRAPH_COUNTS"

static wf_pool *pool;

/* The variable is read when the first graph is created: the scenarios but
 * env run with counting off by default. */
static void counting_off_by_default(void)
{
    CHECK(unsetenv(COUNTS_ENV) == 0);
}

static char *dot_of(wf_graph *g)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    CHECK(f != NULL);
    CHECK_OK(wf_graph_write_dot(g, f));
    fclose(f);
    return text;
}

static void expect(const char *dot, const char *line)
{
    CHECK_MSG(strstr(dot, line) != NULL, "missing [%s] in\n%s", line, dot);
}

static int add_one(const void *in, void *out, void *ctx)
{
    (void)ctx;
    *(int *)out = *(const int *)in + 1;
    return 0;
}

/* queue -> function (unlimited) -> function (serial) -> queue, N messages
 * from outside, on two workers: every node's counts are exact once
 * wait_for_all has returned. */
static void check_counts_through_tasks(int n)
{
    wf_graph *g = gt_graph(pool);
    CHECK_OK(wf_graph_set_counting(g, true));
    wf_node *in = gt_queue(g, sizeof(int));
    wf_node *f1 = gt_function(g, sizeof(int), sizeof(int), WF_UNLIMITED,
                              WF_QUEUEING, add_one, NULL);
    wf_node *f2 = gt_function(g, sizeof(int), sizeof(int), WF_SERIAL,
                              WF_QUEUEING, add_one, NULL);
    wf_node *out = gt_queue(g, sizeof(int));
    CHECK_OK(wf_make_edge(in, f1));
    CHECK_OK(wf_make_edge(f1, f2));
    CHECK_OK(wf_make_edge(f2, out));
    for (int i = 0; i < n; i++)
        gt_put(in, i);
    CHECK_OK(wf_graph_wait_for_all(g));
    char *dot = dot_of(g);
    char want[160];
    snprintf(want, sizeof want,
             "n0 [label=\"queue_node\\nholds 0\\nput %d: "
             "accepted %d, rejected 0\\nforwarded %d\"];",
             n, n, n);
    expect(dot, want);
    snprintf(want, sizeof want,
             "n1 [label=\"function_node\\nholds 0\\nput "
             "%d: accepted %d, rejected 0\\nforwarded %d\"];",
             n, n, n);
    expect(dot, want);
    snprintf(want, sizeof want,
             "n2 [label=\"function_node\\nholds 0\\nput "
             "%d: accepted %d, rejected 0\\nforwarded %d\"];",
             n, n, n);
    expect(dot, want);
    snprintf(want, sizeof want,
             "n3 [label=\"queue_node\\nholds %d\\nput %d: "
             "accepted %d, rejected 0\\nforwarded 0\"];",
             n, n, n);
    expect(dot, want);
    free(dot);
    GT_DESTROY(g, in, f1, f2, out);
}

/* The labels of a drained queue -> function -> queue pipeline after k
 * messages (k < 0: without counts); the last queue forwarded none. */
static void expect_pipe(const char *dot, int k)
{
    static const char *const kind[3] = {"queue_node", "function_node",
                                        "queue_node"};
    for (int i = 0; i < 3; i++) {
        char want[160];
        if (k < 0)
            snprintf(want, sizeof want, "n%d [label=\"%s\\nholds 0\"];", i,
                     kind[i]);
        else
            snprintf(want, sizeof want,
                     "n%d [label=\"%s\\nholds 0\\nput %d: "
                     "accepted %d, rejected 0\\nforwarded %d\"];",
                     i, kind[i], k, k, i == 2 ? 0 : k);
        expect(dot, want);
    }
}

/* The last queue keeps what it got; take it out so that "holds" reads 0
 * and the counts alone change between the steps. */
static void drain(wf_node *q, int n)
{
    int v;
    for (int i = 0; i < n; i++)
        CHECK(wf_try_get(q, &v) == 1);
    CHECK(wf_try_get(q, &v) == 0);
}

static void run_pipe(wf_graph *g, wf_node *in, wf_node *out, int n)
{
    for (int i = 0; i < n; i++)
        gt_put(in, i);
    CHECK_OK(wf_graph_wait_for_all(g));
    drain(out, n);
}

/* queue -> function(unlimited) -> queue, for the counting checks. */
typedef struct {
    wf_graph *g;
    wf_node *in, *f, *out;
} pipe_graph;

static pipe_graph make_pipe(void)
{
    pipe_graph p = {.g = gt_graph(pool)};
    p.in = gt_queue(p.g, sizeof(int));
    p.f = gt_function(p.g, sizeof(int), sizeof(int), WF_UNLIMITED, WF_QUEUEING,
                      add_one, NULL);
    p.out = gt_queue(p.g, sizeof(int));
    CHECK_OK(wf_make_edge(p.in, p.f));
    CHECK_OK(wf_make_edge(p.f, p.out));
    return p;
}

/* The graph's DOT text shows k messages through the pipe (-1: no counts). */
static void check_pipe_dot(wf_graph *g, int k)
{
    char *dot = dot_of(g);
    expect_pipe(dot, k);
    free(dot);
}

/* Off by default: no counts in the DOT text, and none taken (turning it
 * on shows zeros); on: exact counts; off again: they stop (and stay on
 * show once it is back on); reset zeroes them. */
static void check_counting_switch(void)
{
    counting_off_by_default();
    CHECK(wf_graph_set_counting(NULL, true) == WF_EINVAL);
    CHECK(wf_graph_set_counting(NULL, false) == WF_EINVAL);
    pipe_graph p = make_pipe();
    wf_graph *g = p.g;
    wf_node *in = p.in, *f = p.f, *out = p.out;
    run_pipe(g, in, out, 1000);
    char *dot = dot_of(g);
    expect_pipe(dot, -1);
    CHECK_MSG(strstr(dot, "put ") == NULL && strstr(dot, "forwarded") == NULL,
              "counts shown while counting is off:\n%s", dot);
    free(dot);
    CHECK_OK(wf_graph_set_counting(g, true));
    check_pipe_dot(g, 0);
    run_pipe(g, in, out, 500);
    check_pipe_dot(g, 500);
    CHECK_OK(wf_graph_set_counting(g, false));
    run_pipe(g, in, out, 300);
    check_pipe_dot(g, -1);
    CHECK_OK(wf_graph_set_counting(g, true));
    check_pipe_dot(g, 500);
    CHECK_OK(wf_graph_reset(g, 0));
    check_pipe_dot(g, 0);
    GT_DESTROY(g, in, f, out);
}

/* The reservation graph after its run, with names and counts. */
static void check_walkthrough(void)
{
    counting_off_by_default();
    /* The walk-through on a pool of 1 thread: only main runs its tasks,
     * so the order in which the join retries its ports after the tuple,
     * and with it the counts below, is fixed.  On two threads a retry may
     * find buf2 empty first, turn its edge back to push, and the join then
     * rejects 7 too (4 rejections), which is just as correct. */
    wf_pool *one = gt_pool(1);
    wf_graph *g = gt_graph(one);
    CHECK_OK(wf_graph_set_counting(g, true));
    wf_node *bn = gt_broadcast(g, sizeof(int));
    wf_node *buf1 = gt_buffer(g, sizeof(int)),
            *buf2 = gt_buffer(g, sizeof(int));
    size_t sizes[2] = {sizeof(int), sizeof(int)};
    wf_node *jn = gt_join(g, 2, sizes, WF_JOIN_RESERVING);
    wf_node *out = gt_buffer(g, wf_port_msg_size(wf_output_port(jn, 0)));
    CHECK_OK(wf_node_set_name(bn, "bn"));
    CHECK_OK(wf_node_set_name(buf1, "buf1"));
    CHECK_OK(wf_node_set_name(buf2, "buf2"));
    CHECK_OK(wf_node_set_name(jn, "jn"));
    CHECK_OK(wf_node_set_name(out, "buf_out"));
    CHECK_OK(wf_make_edge(buf1, wf_input_port(jn, 0)));
    CHECK_OK(wf_make_edge(bn, wf_input_port(jn, 0)));
    CHECK_OK(wf_make_edge(buf2, wf_input_port(jn, 1)));
    CHECK_OK(wf_make_edge(jn, out));
    char *fresh = dot_of(g);
    expect(fresh, "n1 -> n3 [label=\"push\", headlabel=\"0\"];");
    expect(fresh, "holds 0");
    /* One put at a time, each waited for: the counts below are exact. */
    int puts[4][2] = {{0, 2}, {1, 3}, {2, 4}, {2, 7}};
    wf_node *to[3] = {bn, buf1, buf2};
    for (int i = 0; i < 4; i++) {
        gt_put(to[puts[i][0]], puts[i][1]);
        CHECK_OK(wf_graph_wait_for_all(g));
    }

    char *dot = dot_of(g);
    expect(dot, "digraph weft {");
    expect(dot, "n0 [label=\"broadcast_node\\nbn\\nholds 0\\nput 1: accepted "
                "1, rejected 0\\nforwarded 0\"];");
    expect(dot, "n1 [label=\"buffer_node\\nbuf1\\nholds 0\\nput 1: accepted 1, "
                "rejected 0\\nforwarded 0\"];");
    expect(dot, "n2 [label=\"buffer_node\\nbuf2\\nholds 1\\nput 2: accepted 2, "
                "rejected 0\\nforwarded 0\"];");
    expect(dot, "n3 [label=\"join_node<reserving>\\njn\\nholds 0\\nput 3: "
                "accepted 0, rejected 3\\nforwarded 1\"];");
    expect(dot, "n4 [label=\"buffer_node\\nbuf_out\\nholds 1\\nput 1: accepted "
                "1, rejected 0\\nforwarded 0\"];");
    expect(dot, "n0 -> n3 [label=\"push\", headlabel=\"0\"];");
    expect(dot, "n1 -> n3 [label=\"push\", headlabel=\"0\"];");
    expect(dot, "n2 -> n3 [label=\"pull\", style=dashed, headlabel=\"1\"];");
    expect(dot, "n3 -> n4 [label=\"push\"];");
    if (check_arg(0) != NULL) {
        FILE *f = fopen(check_arg(0), "w");
        CHECK(f != NULL);
        CHECK_OK(wf_graph_write_dot(g, f));
        CHECK(fclose(f) == 0);
    }
    CHECK_OK(wf_node_set_name(bn, "say \"hi\""));
    CHECK_OK(wf_node_set_name(buf1, NULL));
    char *renamed = dot_of(g);
    expect(renamed, "say \\\"hi\\\"");
    expect(renamed, "n1 [label=\"buffer_node\\nholds 0\\nput 1: accepted 1, "
                    "rejected 0\\nforwarded 0\"];");
    free(fresh);
    free(dot);
    free(renamed);
    GT_DESTROY(g, bn, buf1, buf2, jn, out);
    CHECK_OK(wf_pool_destroy(one));
}

static void check_tasks(void)
{
    counting_off_by_default();
    check_counts_through_tasks(20000);
}

/* With WEFT_GRAPH_COUNTS=1 a new graph counts without being told, and
 * wf_graph_set_counting still turns it off.  Without the variable, in
 * this program again with it. */
static void check_env(void)
{
    const char *env = getenv(COUNTS_ENV);
    if (env == NULL || strcmp(env, "1") != 0) {
        char *add[] = {COUNTS_ENV "=1", NULL};
        check_spawn_self("env", add);
        return;
    }
    pipe_graph p = make_pipe();
    wf_graph *g = p.g;
    wf_node *in = p.in, *f = p.f, *out = p.out;
    run_pipe(g, in, out, 700);
    check_pipe_dot(g, 700);
    CHECK_OK(wf_graph_set_counting(g, false));
    check_pipe_dot(g, -1);
    GT_DESTROY(g, in, f, out);
}

int main(int argc, char **argv)
{
    static const check_scenario scenarios[] = {
        {"walkthrough", check_walkthrough},
        {"counting", check_counting_switch},
        {"tasks", check_tasks},
        {"env", check_env}, /* last: the variable is read once */
    };
    pool = gt_pool(2);
    int rc = CHECK_RUN_SCENARIOS("graph_dot", argc, argv, scenarios);
    CHECK_OK(wf_pool_destroy(pool));
    return rc;
}
