/* SPDX-License-Identifier: Apache-2.0 */
/* taskgraph_subflow: a task graph that unfolds as it runs (weft/taskgraph.h,
 * wf_tg_subflow): the sum of an array by recursive halving, each half a
 * subflow that builds its own graph, and a task after both that adds them.
 *
 *   taskgraph_subflow          prints the sum and whether it is right
 *
 * Node k of the implicit binary tree covers a range of the array; its
 * children are 2k + 1 and 2k + 2.  A node whose range is short sums it in
 * one task. */
#include <stdint.h>
#include <stdio.h>
#include <weft.h>

#define LEN 1000000
#define LEAF 20000             /* at most this many elements in one task */
#define NODES (4 * LEN / LEAF) /* enough for the tree's nodes */

static long data[LEN];

static struct {
    long lo, hi, sum;
} node[NODES];

static int leaf_sum(void *ctx)
{
    intptr_t k = (intptr_t)ctx;
    long s = 0;
    for (long i = node[k].lo; i < node[k].hi; i++)
        s += data[i];
    node[k].sum = s;
    return 0;
}

static int add_halves(void *ctx)
{
    intptr_t k = (intptr_t)ctx;
    node[k].sum = node[2 * k + 1].sum + node[2 * k + 2].sum;
    return 0;
}

/* Node k's work, built when it runs: one task, or two halves and their
 * sum. */
static int split(wf_taskgraph *sub, void *ctx)
{
    intptr_t k = (intptr_t)ctx;
    if (node[k].hi - node[k].lo <= LEAF) {
        wf_tg_emplace(sub, leaf_sum, ctx);
        return 0;
    }
    long mid = (node[k].lo + node[k].hi) / 2;
    node[2 * k + 1].lo = node[k].lo, node[2 * k + 1].hi = mid;
    node[2 * k + 2].lo = mid, node[2 * k + 2].hi = node[k].hi;
    wf_tg_task *add = wf_tg_emplace(sub, add_halves, ctx);
    wf_tg_precede(wf_tg_subflow(sub, split, (void *)(2 * k + 1)), add);
    wf_tg_precede(wf_tg_subflow(sub, split, (void *)(2 * k + 2)), add);
    return 0;
}

int main(void)
{
    for (long i = 0; i < LEN; i++)
        data[i] = i + 1;
    node[0].lo = 0, node[0].hi = LEN;
    wf_taskgraph *g;
    if (wf_taskgraph_create(&g, NULL) != 0)
        return 1;
    wf_tg_subflow(g, split, (void *)0);
    int err = wf_tg_run_n(g, 2); /* the second run reuses the subflows */
    wf_taskgraph_destroy(g);
    if (err != 0) {
        fprintf(stderr, "taskgraph_subflow: %s\n", wf_strerror(err));
        return 1;
    }
    long want = (long)LEN * (LEN + 1) / 2;
    printf("sum of 1..%d by recursive subflows: %ld (%s)\n", LEN, node[0].sum,
           node[0].sum == want ? "ok" : "wrong");
    return node[0].sum != want;
}
