/* SPDX-License-Identifier: Apache-2.0 */
/* taskgraph_loop: a loop inside a task graph, with a condition task
 * (weft/taskgraph.h): Newton's steps towards sqrt(2) until two agree.
 *
 *   init -> step -> converged? --0--> step      (a weak edge: the loop)
 *                              --1--> report
 *
 *   taskgraph_loop            prints the root and the steps it took */
#include <math.h>
#include <stdio.h>
#include <weft.h>

typedef struct {
    double x, prev;
    int steps;
} newton;

static int init(void *ctx)
{
    newton *n = ctx;
    n->x = 1.0;
    n->steps = 0;
    return 0;
}

static int step(void *ctx)
{
    newton *n = ctx;
    n->prev = n->x;
    n->x = (n->x + 2.0 / n->x) / 2.0;
    n->steps++;
    return 0;
}

static int converged(void *ctx) /* a condition: the successor to run */
{
    newton *n = ctx;
    return fabs(n->x - n->prev) < 1e-12 ? 1 : 0;
}

static int report(void *ctx)
{
    newton *n = ctx;
    printf("sqrt(2) = %.12f after %d steps\n", n->x, n->steps);
    return 0;
}

int main(void)
{
    newton n;
    wf_taskgraph *g;
    if (wf_taskgraph_create(&g, NULL) != 0)
        return 1;
    wf_tg_task *a = wf_tg_emplace(g, init, &n);
    wf_tg_task *s = wf_tg_emplace(g, step, &n);
    wf_tg_task *c = wf_tg_condition(g, converged, &n);
    wf_tg_precede(a, s);
    wf_tg_precede(s, c);
    wf_tg_precede(c, s);                            /* 0: step again */
    wf_tg_precede(c, wf_tg_emplace(g, report, &n)); /* 1: done */
    int err = wf_tg_run(g);
    wf_taskgraph_destroy(g);
    if (err != 0)
        fprintf(stderr, "taskgraph_loop: %s\n", wf_strerror(err));
    return err != 0;
}
