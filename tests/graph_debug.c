/* SPDX-License-Identifier: Apache-2.0 */
/* graph_debug: what WEFT_DEBUG=1 says about a graph that
 * wf_graph_wait_for_all leaves stuck, for continue nodes, each case in a
 * child process whose stderr is read back (as tests/debug_mode.c does for
 * the other node kinds).
 *
 *   partial   two signal broadcasts feed a continue node "gate" with no
 *             successor; only one signals.  wait_for_all returns 0 and
 *             says that gate is part-way through its round, 1 of 2
 *             signals; its body never ran.  A second wait says nothing
 *             more (once per node).
 *   cycle     a start signal and continue node "b" feed continue node "a",
 *             and a feeds b: after the start, a waits for b, which waits
 *             for a.  Said for a (1 of 2).
 *   complete  every predecessor signals, 100 rounds: nothing said.
 *   quiet     the partial case with WEFT_DEBUG=0: nothing said.
 *
 * Usage: test_graph_debug [SCENARIO] (none or "all": every one) */
#include <sys/wait.h>

#include "graph_test.h"

static int count_round(void *out, void *ctx)
{
    (void)out;
    atomic_fetch_add((_Atomic int *)ctx, 1);
    return 0;
}

static wf_node *continue_node(wf_graph *g, const char *name, _Atomic int *runs)
{
    wf_continue_config c = WF_CONTINUE_CONFIG_INIT;
    c.body = count_round;
    c.ctx = (void *)runs;
    wf_node *n = NULL;
    CHECK_OK(wf_continue_node_create(&n, g, &c));
    CHECK_OK(wf_node_set_name(n, name));
    return n;
}

/* ---- the children -------------------------------------------------------- */

static void partial_child(void)
{
    wf_pool *p = gt_pool(2);
    wf_graph *g = gt_graph(p);
    _Atomic int runs = 0;
    wf_node *s1 = gt_broadcast(g, WF_SIGNAL), *s2 = gt_broadcast(g, WF_SIGNAL);
    wf_node *gate = continue_node(g, "gate", &runs);
    CHECK_OK(wf_make_edge(s1, gate));
    CHECK_OK(wf_make_edge(s2, gate));
    CHECK_EQ(wf_try_put(s1, NULL), 1); /* s2 never signals */
    CHECK_OK(wf_graph_wait_for_all(g));
    CHECK_OK(wf_graph_wait_for_all(g)); /* said once per node */
    CHECK_EQ(atomic_load(&runs), 0);
    GT_DESTROY(g, s1, s2, gate);
    CHECK_OK(wf_pool_destroy(p));
}

static void cycle_child(void)
{
    wf_pool *p = gt_pool(2);
    wf_graph *g = gt_graph(p);
    _Atomic int runs = 0;
    wf_node *start = gt_broadcast(g, WF_SIGNAL);
    wf_node *a = continue_node(g, "a", &runs);
    wf_node *b = continue_node(g, "b", &runs);
    CHECK_OK(wf_make_edge(start, a));
    CHECK_OK(wf_make_edge(b, a));
    CHECK_OK(wf_make_edge(a, b));
    CHECK_EQ(wf_try_put(start, NULL), 1);
    CHECK_OK(wf_graph_wait_for_all(g));
    CHECK_EQ(atomic_load(&runs), 0);
    GT_DESTROY(g, start, a, b);
    CHECK_OK(wf_pool_destroy(p));
}

static void complete_child(void)
{
    wf_pool *p = gt_pool(2);
    wf_graph *g = gt_graph(p);
    _Atomic int runs = 0, after = 0;
    wf_node *s1 = gt_broadcast(g, WF_SIGNAL), *s2 = gt_broadcast(g, WF_SIGNAL);
    wf_node *gate = continue_node(g, "gate", &runs);
    wf_node *next = continue_node(g, "next", &after);
    CHECK_OK(wf_make_edge(s1, gate));
    CHECK_OK(wf_make_edge(s2, gate));
    CHECK_OK(wf_make_edge(gate, next));
    for (int i = 0; i < 100; i++) {
        CHECK_EQ(wf_try_put(s1, NULL), 1);
        CHECK_EQ(wf_try_put(s2, NULL), 1);
        CHECK_OK(wf_graph_wait_for_all(g));
    }
    CHECK_EQ(atomic_load(&runs), 100);
    CHECK_EQ(atomic_load(&after), 100);
    GT_DESTROY(g, s1, s2, gate, next);
    CHECK_OK(wf_pool_destroy(p));
}

/* ---- running them -------------------------------------------------------- */

/* Run fn in a child with WEFT_DEBUG=debug: it must exit 0, and its stderr
 * hold each of `said` (NULL-terminated), the first of them exactly once;
 * with none, no "weft:" line at all. */
static void expect(void (*fn)(void), const char *debug, const char *const *said)
{
    char err[8192];
    int st = check_child_debug(fn, debug, err, sizeof err);
    CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0,
              "the child failed (status %#x): %s", st, err);
    if (said[0] == NULL) {
        CHECK_MSG(strstr(err, "weft:") == NULL, "expected silence, got: %s",
                  err);
        printf("  (nothing said)\n");
        return;
    }
    for (int i = 0; said[i]; i++)
        CHECK_MSG(strstr(err, said[i]) != NULL,
                  "expected \"%s\" on stderr, got: %s", said[i], err);
    const char *first = strstr(err, said[0]);
    CHECK_MSG(strstr(first + 1, said[0]) == NULL, "said twice: %s", err);
    printf("  %s", err);
}

static void scenario_partial(void)
{
    const char *const said[] = {
        "with gate part-way through its round: 1 of 2 signals", "(WEFT_DEBUG",
        NULL};
    expect(partial_child, "1", said);
}

static void scenario_cycle(void)
{
    const char *const said[] = {
        "with a part-way through its round: 1 of 2 signals", NULL};
    expect(cycle_child, "1", said);
}

static void scenario_complete(void)
{
    const char *const said[] = {NULL};
    expect(complete_child, "1", said);
}

static void scenario_quiet(void)
{
    const char *const said[] = {NULL};
    expect(partial_child, "0", said);
}

int main(int argc, char **argv)
{
    static const check_scenario table[] = {
        {"partial", scenario_partial},
        {"cycle", scenario_cycle},
        {"complete", scenario_complete},
        {"quiet", scenario_quiet},
    };
    return CHECK_RUN_SCENARIOS("graph_debug", argc, argv, table);
}
