/* SPDX-License-Identifier: Apache-2.0 */
/* graph_continue_node: a dependency graph, like a build.
 *
 *            +--> compile_a --+
 *   fetch ---+                +--> link --> test
 *            +--> compile_b --+
 *
 * Each step is a continue_node: it runs when every step before it has
 * finished (each in-edge adds one to the signals it waits for).  compile_a
 * and compile_b may run at the same time.  A broadcast_node of signals
 * starts a build; the graph is built once and run three times.
 *
 * Output:
 *   3 builds, 15 steps, each after the steps it depends on
 *
 * Build: cc -O2 graph_continue_node.c $(pkg-config --cflags --libs weft) */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <weft.h>

#define TRY(call)                                                              \
    do {                                                                       \
        int err_ = (call);                                                     \
        if (err_ < 0) {                                                        \
            fprintf(stderr, "%s: %s\n", #call, wf_strerror(err_));             \
            exit(2);                                                           \
        }                                                                      \
    } while (0)

enum { FETCH, COMPILE_A, COMPILE_B, LINK, TEST, STEPS };

static _Atomic int clock_;  /* ticks once per step run */
static int finished[STEPS]; /* the tick at which each step ran last */

static int step(void *out, void *ctx)
{
    (void)out; /* the output is a signal */
    finished[(int)(intptr_t)ctx] = atomic_fetch_add(&clock_, 1);
    return 0;
}

int main(void)
{
    wf_graph *g;
    TRY(wf_graph_create(&g, NULL));
    wf_node *start, *n[STEPS];
    TRY(wf_broadcast_node_create(&start, g, WF_SIGNAL));
    for (int i = 0; i < STEPS; i++) {
        wf_continue_config c = WF_CONTINUE_CONFIG_INIT; /* signal output */
        c.body = step;
        c.ctx = (void *)(intptr_t)i;
        TRY(wf_continue_node_create(&n[i], g, &c));
    }
    TRY(wf_make_edge(start, n[FETCH]));
    TRY(wf_make_edge(n[FETCH], n[COMPILE_A]));
    TRY(wf_make_edge(n[FETCH], n[COMPILE_B]));
    TRY(wf_make_edge(n[COMPILE_A], n[LINK])); /* link waits for two */
    TRY(wf_make_edge(n[COMPILE_B], n[LINK]));
    TRY(wf_make_edge(n[LINK], n[TEST]));

    int ok = 1, builds = 3;
    for (int b = 0; b < builds; b++) {
        TRY(wf_try_put(start, NULL)); /* a signal carries no data */
        TRY(wf_graph_wait_for_all(g));
        ok &= finished[FETCH] < finished[COMPILE_A] &&
              finished[FETCH] < finished[COMPILE_B] &&
              finished[COMPILE_A] < finished[LINK] &&
              finished[COMPILE_B] < finished[LINK] &&
              finished[LINK] < finished[TEST];
    }
    printf("%d builds, %d steps, %s\n", builds, atomic_load(&clock_),
           ok ? "each after the steps it depends on" : "OUT OF ORDER");
    for (int i = 0; i < STEPS; i++)
        TRY(wf_node_destroy(n[i]));
    TRY(wf_node_destroy(start));
    TRY(wf_graph_destroy(g));
    return ok ? 0 : 1;
}
