/* SPDX-License-Identifier: Apache-2.0 */
/* graph_wavefront: a dependency graph of continue_nodes, one per cell of an
 * N x N grid.  Cell (i,j) waits for its north (i-1,j) and west (i,j-1)
 * neighbours, then computes its value from theirs; the cells on one
 * anti-diagonal are independent and run in parallel, so the work sweeps
 * across the grid as a wave.  No data travels on the edges: they are
 * signals (WF_SIGNAL), and each body reads its neighbours' results from
 * the grid, which the graph guarantees are written before it runs.
 *
 * The result is compared with the same recurrence computed sequentially.
 *
 * Output (N = 64):
 *   wavefront 64x64: cell (63,63) = 774415, same as sequential
 *
 * Build: cc -O2 graph_wavefront.c $(pkg-config --cflags --libs weft)
 * Run:   ./graph_wavefront [N [workers]] */
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

#define MOD 1000003L

static long step(long north, long west, int i, int j)
{
    return (north * 31 + west * 17 + i * 7 + j) % MOD;
}

typedef struct {
    long *v; /* n * n values */
    int n, i, j;
} cell;

static long at(const cell *c, int i, int j)
{
    return i < 0 || j < 0 ? 1 : c->v[(size_t)i * c->n + j];
}

static int cell_body(void *out, void *ctx)
{
    (void)out; /* the output is a signal */
    cell *c = ctx;
    c->v[(size_t)c->i * c->n + c->j] =
        step(at(c, c->i - 1, c->j), at(c, c->i, c->j - 1), c->i, c->j);
    return 0;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 64;
    unsigned workers = argc > 2 ? (unsigned)atoi(argv[2]) : 0;
    if (n < 1 || n > 2048)
        return fprintf(stderr, "N must be 1..2048\n"), 2;
    wf_pool *pool = NULL;
    if (workers) {
        wf_pool_config pc = WF_POOL_CONFIG_INIT;
        pc.threads = workers;
        TRY(wf_pool_create(&pool, &pc));
    }
    wf_graph *g;
    TRY(wf_graph_create(&g, pool));
    long *v = calloc((size_t)n * n, sizeof *v);
    cell *cells = calloc((size_t)n * n, sizeof *cells);
    wf_node **nodes = calloc((size_t)n * n, sizeof *nodes);
    if (!v || !cells || !nodes)
        return fprintf(stderr, "out of memory\n"), 2;

    /* The start signal goes to (0,0), the only cell with no neighbour. */
    wf_node *start;
    TRY(wf_broadcast_node_create(&start, g, WF_SIGNAL));
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++) {
            cell *c = &cells[(size_t)i * n + j];
            *c = (cell){v, n, i, j};
            wf_continue_config cc = WF_CONTINUE_CONFIG_INIT;
            cc.body = cell_body;
            cc.ctx = c;
            wf_node **me = &nodes[(size_t)i * n + j];
            TRY(wf_continue_node_create(me, g, &cc));
            /* Each in-edge raises the node's threshold by one. */
            if (i > 0)
                TRY(wf_make_edge(nodes[(size_t)(i - 1) * n + j], *me));
            if (j > 0)
                TRY(wf_make_edge(nodes[(size_t)i * n + j - 1], *me));
        }
    }
    TRY(wf_make_edge(start, nodes[0]));
    TRY(wf_try_put(start, NULL));
    TRY(wf_graph_wait_for_all(g));

    /* The same recurrence, one cell after another. */
    long *seq = calloc((size_t)n * n, sizeof *seq);
    if (!seq)
        return fprintf(stderr, "out of memory\n"), 2;
    cell s = {seq, n, 0, 0};
    int same = 1;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            seq[(size_t)i * n + j] =
                step(at(&s, i - 1, j), at(&s, i, j - 1), i, j);
            same &= seq[(size_t)i * n + j] == v[(size_t)i * n + j];
        }
    printf("wavefront %dx%d: cell (%d,%d) = %ld, %s\n", n, n, n - 1, n - 1,
           v[(size_t)n * n - 1], same ? "same as sequential" : "DIFFERS");

    for (size_t k = 0; k < (size_t)n * n; k++)
        TRY(wf_node_destroy(nodes[k]));
    TRY(wf_node_destroy(start));
    TRY(wf_graph_destroy(g));
    if (pool)
        TRY(wf_pool_destroy(pool));
    free(seq);
    free(nodes);
    free(cells);
    free(v);
    return same ? 0 : 1;
}
