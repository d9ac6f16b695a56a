/* SPDX-License-Identifier: Apache-2.0 */
/* taskgraph_shapes: the four task graphs of Taskflow's benchmark suite
 * (wavefront, linear chain, binary tree, random level graph), each written
 * as a user of weft/taskgraph.h writes it, and checked.
 *
 *   taskgraph_shapes           prints one line: the shapes and "ok"
 *
 * Each function from wf_taskgraph_create to the run's error is the part
 * whose lines bench/README.md counts against Taskflow's (with the task
 * functions, which C++ writes as lambdas); the data and the checks around
 * it are not counted.  Every graph runs on the default pool. */
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <weft.h>

/* ---- wavefront: block (i, j) after (i - 1, j) and (i, j - 1) ---------- */

#define MB 64
#define NB 64

static int cell[MB][NB]; /* 1 + the larger of the upper and left ones */

/* The task of block (i, j); ctx is its cell. */
static int block(void *ctx)
{
    int *c = ctx, k = (int)(c - &cell[0][0]), i = k / NB, j = k % NB;
    int up = i > 0 ? cell[i - 1][j] : 0, left = j > 0 ? cell[i][j - 1] : 0;
    *c = 1 + (up > left ? up : left);
    return 0;
}

static int wavefront(void)
{
    wf_taskgraph *g;
    int err = wf_taskgraph_create(&g, NULL);
    if (err != 0)
        return err;
    wf_tg_task *row[NB]; /* row i up to j - 1, row i - 1 from j on */
    for (int i = 0; i < MB; i++) {
        for (int j = 0; j < NB; j++) {
            wf_tg_task *t = wf_tg_emplace(g, block, &cell[i][j]);
            if (j > 0)
                wf_tg_precede(row[j - 1], t);
            if (i > 0)
                wf_tg_precede(row[j], t);
            row[j] = t;
        }
    }
    err = wf_tg_run(g);
    wf_taskgraph_destroy(g);
    return err;
}

/* ---- linear chain: each task after the one before ------------------------ */

static int count(void *ctx)
{
    (*(size_t *)ctx)++; /* one task at a time: no atomic needed */
    return 0;
}

static int linear_chain(size_t length, size_t *counter)
{
    wf_taskgraph *g;
    int err = wf_taskgraph_create(&g, NULL);
    if (err != 0)
        return err;
    wf_tg_task *prev = wf_tg_emplace(g, count, counter);
    for (size_t i = 1; i < length; i++) {
        wf_tg_task *t = wf_tg_emplace(g, count, counter);
        wf_tg_precede(prev, t);
        prev = t;
    }
    err = wf_tg_run(g);
    wf_taskgraph_destroy(g);
    return err;
}

/* ---- binary tree: each task before its two children ---------------------- */

static int count_atomic(void *ctx)
{
    atomic_fetch_add_explicit((atomic_size_t *)ctx, 1, memory_order_relaxed);
    return 0;
}

/* A task and, under it, a tree of layers - 1 more layers. */
static wf_tg_task *tree(wf_taskgraph *g, unsigned layers, atomic_size_t *n)
{
    wf_tg_task *t = wf_tg_emplace(g, count_atomic, n);
    if (layers > 1) {
        wf_tg_precede(t, tree(g, layers - 1, n));
        wf_tg_precede(t, tree(g, layers - 1, n));
    }
    return t;
}

static int binary_tree(unsigned layers, atomic_size_t *counter)
{
    wf_taskgraph *g;
    int err = wf_taskgraph_create(&g, NULL);
    if (err != 0)
        return err;
    tree(g, layers, counter);
    err = wf_tg_run(g);
    wf_taskgraph_destroy(g);
    return err;
}

/* ---- level graph: each task before 1 to 4 random tasks of the next level */

struct lg_node {
    int nout, out[4]; /* successors: their indices in the next level (none
                         in the last level) */
    bool visited;
};

struct level_graph {
    int levels, length;
    struct lg_node *nodes; /* node i of level l: nodes[l * length + i] */
};

static int mark(void *ctx)
{
    ((struct lg_node *)ctx)->visited = true;
    return 0;
}

static int level_graph(struct level_graph *lg)
{
    wf_taskgraph *g;
    int err = wf_taskgraph_create(&g, NULL);
    if (err != 0)
        return err;
    wf_tg_task *row[2][lg->length]; /* level l + 1's tasks, then l's */
    for (int l = lg->levels - 1; l >= 0; l--) {
        for (int i = 0; i < lg->length; i++) {
            struct lg_node *n = &lg->nodes[l * lg->length + i];
            row[l % 2][i] = wf_tg_emplace(g, mark, n);
            for (int k = 0; k < n->nout; k++)
                wf_tg_precede(row[l % 2][i], row[(l + 1) % 2][n->out[k]]);
        }
    }
    err = wf_tg_run(g);
    wf_taskgraph_destroy(g);
    return err;
}

/* ---- the data and the checks --------------------------------------------- */

/* Whether the run visited every node of lg (Taskflow's check). */
static bool all_visited(const struct level_graph *lg)
{
    for (int k = 0; k < lg->levels * lg->length; k++)
        if (!lg->nodes[k].visited)
            return false;
    return true;
}

int main(void)
{
    int err = wavefront();
    bool ok = err == 0 && cell[MB - 1][NB - 1] == MB + NB - 1;

    size_t chain = 0;
    if (err == 0)
        err = linear_chain(10000, &chain);
    ok = ok && err == 0 && chain == 10000;

    atomic_size_t in_tree = 0;
    if (err == 0)
        err = binary_tree(14, &in_tree);
    ok = ok && err == 0 && atomic_load(&in_tree) == (1u << 14) - 1;

    struct level_graph lg = {100, 64, NULL};
    lg.nodes = calloc((size_t)lg.levels * lg.length, sizeof *lg.nodes);
    if (lg.nodes == NULL)
        return 1;
    srand(1);
    for (int k = 0; k < (lg.levels - 1) * lg.length; k++) {
        int first = rand() % lg.length; /* 1 to 4 successors, distinct */
        lg.nodes[k].nout = 1 + rand() % 4;
        for (int e = 0; e < lg.nodes[k].nout; e++)
            lg.nodes[k].out[e] = (first + e) % lg.length;
    }
    if (err == 0)
        err = level_graph(&lg);
    ok = ok && err == 0 && all_visited(&lg);
    free(lg.nodes);

    if (err != 0)
        fprintf(stderr, "taskgraph_shapes: %s\n", wf_strerror(err));
    printf("wavefront %dx%d, chain of 10000, tree of 14 layers, level graph "
           "%dx%d: %s\n",
           MB, NB, 100, 64, ok ? "ok" : "wrong");
    return !ok;
}
