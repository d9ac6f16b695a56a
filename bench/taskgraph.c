/* SPDX-License-Identifier: Apache-2.0 */
/* Task graphs: the shapes of Taskflow's benchmark suite, each built, run
 * and destroyed per run as that suite times them, and one rerun without
 * rebuilding.
 *
 *   tg_wavefront  a W x W grid, cell (i, j) after (i-1, j) and (i, j-1)
 *   tg_chain      a chain of N tasks
 *   tg_tree       a binary tree of N tasks, each after its parent
 *   tg_level      L levels of W tasks, each after 1 to 4 random tasks of
 *                 the level above
 *   tg_rerun      the wavefront built once (untimed), then only run
 *
 * Every task does the same work in every system: its value is one more
 * than the largest of its predecessors' (read from a table of them), so
 * a task that ran before one of its predecessors leaves a wrong value,
 * which the check finds.  Nodes are numbered in a topological order.
 *
 *   seq   the tasks in that order, in a loop
 *   weft  weft/taskgraph.h: wf_tg_emplace and wf_tg_precede per edge,
 *         wf_tg_run, wf_taskgraph_destroy
 *   tbb   oneTBB's flow graph: a continue_node per task, make_edge per
 *         edge, try_put to the sources, wait_for_all, nodes deleted
 *   omp   one task per node in an `omp single`, with depend(in:) on its
 *         predecessors' values (at most four) and depend(out:) on its own
 *
 * Every system is driven from the runner's main thread, as a program's
 * main() builds and runs its graph (bench_workload.from_main).  The
 * array of task handles each system needs is allocated at setup, for all
 * alike. */
#include "kernel.h"
#include "system.h"

typedef struct {
    const char *name;
    long n;                     /* tasks */
    long *succ_off, *succ;      /* successors, CSR */
    long *pred_off, *pred;      /* predecessors, CSR */
    long *depth, *value;        /* expected and computed values */
    void **handles;             /* a system's task handles, n of them */
    void *kept;                 /* tg_rerun: the graph built once, */
    long kept_key;              /* for this pool or thread count, */
    void (*kept_free)(void *s); /* freed by this */
    char describe[64];
} tg_state;

/* Drop a kept graph built for another runtime (a pool, a thread count). */
static inline __attribute__((unused)) void tg_keep_check(tg_state *s, long key)
{
    if (s->kept != NULL && s->kept_key != key) {
        s->kept_free(s);
        s->kept = NULL;
    }
    s->kept_key = key;
}

/* The one task's work, the same everywhere. */
static inline void tg_work(tg_state *s, long i)
{
    long v = 0;
    for (long k = s->pred_off[i]; k < s->pred_off[i + 1]; k++)
        if (s->value[s->pred[k]] > v)
            v = s->value[s->pred[k]];
    s->value[i] = v + 1;
}

#if defined(WEFT_BENCH_SEQ)

BENCH_KERNEL(tg_kernel)
{
    tg_state *s = (tg_state *)arg;
    for (long i = 0; i < s->n; i++)
        tg_work(s, i);
}

BENCH_KERNEL(tg_rerun_kernel)
{
    tg_kernel_seq(arg);
}

#elif defined(WEFT_BENCH_OMP)

#include <omp.h>

/* A task per node with depend(in:) on each predecessor's value and out:
 * on its own: a clause per count of predecessors, as a program writes
 * them. */
BENCH_KERNEL(tg_kernel)
{
    tg_state *s = (tg_state *)arg;
    long *v = s->value; /* named by the depend clauses */
    (void)v;
#pragma omp parallel
#pragma omp single
    for (long i = 0; i < s->n; i++) {
        const long *p = s->pred + s->pred_off[i];
        switch (s->pred_off[i + 1] - s->pred_off[i]) {
        case 0:
#pragma omp task firstprivate(i) depend(out : v[i])
            tg_work(s, i);
            break;
        case 1:
#pragma omp task firstprivate(i) depend(out : v[i]) depend(in : v[p[0]])
            tg_work(s, i);
            break;
        case 2:
#pragma omp task firstprivate(i) depend(out                                    \
                                        : v[i]) depend(in                      \
                                                       : v[p[0]], v[p[1]])
            tg_work(s, i);
            break;
        case 3:
#pragma omp task firstprivate(i) depend(out                                    \
                                        : v[i])                                \
    depend(in                                                                  \
           : v[p[0]], v[p[1]], v[p[2]])
            tg_work(s, i);
            break;
        default:
#pragma omp task firstprivate(i) depend(out                                    \
                                        : v[i])                                \
    depend(in                                                                  \
           : v[p[0]], v[p[1]], v[p[2]], v[p[3]])
            tg_work(s, i);
        }
    }
}

BENCH_KERNEL(tg_rerun_kernel)
{
    tg_kernel_par(arg); /* OpenMP has no graph to keep */
}

#elif defined(WEFT_BENCH_TBB)

#include <oneapi/tbb/flow_graph.h>

typedef tbb::flow::continue_node<tbb::flow::continue_msg> tg_node;

typedef struct {
    tbb::flow::graph g;
} tg_tbb_graph;

static tg_tbb_graph *tg_build_tbb(tg_state *s)
{
    tg_tbb_graph *tg = new tg_tbb_graph;
    tg_node **nodes = (tg_node **)s->handles;
    for (long i = 0; i < s->n; i++)
        nodes[i] = new tg_node(
            tg->g, [s, i](const tbb::flow::continue_msg &) { tg_work(s, i); });
    for (long i = 0; i < s->n; i++)
        for (long k = s->succ_off[i]; k < s->succ_off[i + 1]; k++)
            tbb::flow::make_edge(*nodes[i], *nodes[s->succ[k]]);
    return tg;
}

static void tg_run_tbb(tg_state *s, tg_tbb_graph *tg)
{
    tg_node **nodes = (tg_node **)s->handles;
    for (long i = 0; i < s->n; i++)
        if (s->pred_off[i] == s->pred_off[i + 1])
            nodes[i]->try_put(tbb::flow::continue_msg());
    tg->g.wait_for_all();
}

static void tg_free_tbb(tg_state *s, tg_tbb_graph *tg)
{
    tg_node **nodes = (tg_node **)s->handles;
    for (long i = 0; i < s->n; i++)
        delete nodes[i];
    delete tg;
}

BENCH_KERNEL(tg_kernel)
{
    tg_state *s = (tg_state *)arg;
    tg_tbb_graph *tg = tg_build_tbb(s);
    tg_run_tbb(s, tg);
    tg_free_tbb(s, tg);
}

BENCH_EXTERN_C void tg_rerun_build_par(void *arg);

static void tg_free_kept_tbb(void *arg)
{
    tg_state *s = (tg_state *)arg;
    tg_free_tbb(s, (tg_tbb_graph *)s->kept);
}

BENCH_EXTERN_C void tg_rerun_build_par(void *arg)
{
    tg_state *s = (tg_state *)arg;
    tg_keep_check(s, (long)bench_tbb_threads());
    if (s->kept == NULL) {
        s->kept = tg_build_tbb(s);
        s->kept_free = tg_free_kept_tbb;
    }
}

BENCH_KERNEL(tg_rerun_kernel)
{
    tg_state *s = (tg_state *)arg;
    tg_rerun_build_par(s);
    tg_run_tbb(s, (tg_tbb_graph *)s->kept);
}

#else /* weft */

BENCH_EXTERN_C void tg_rerun_build_par(void *arg);

static tg_state *tg_cur; /* the state of the run in progress */

static int tg_task(void *ctx)
{
    tg_work(tg_cur, (long)(intptr_t)ctx);
    return 0;
}

static wf_taskgraph *tg_build_weft(tg_state *s)
{
    wf_taskgraph_config cfg = WF_TASKGRAPH_CONFIG_INIT;
    cfg.pool = bench_weft_pool();
    wf_taskgraph *g;
    if (wf_taskgraph_create(&g, &cfg) != 0)
        return NULL;
    wf_tg_task **t = (wf_tg_task **)s->handles;
    for (long i = 0; i < s->n; i++)
        t[i] = wf_tg_emplace(g, tg_task, (void *)(intptr_t)i);
    for (long i = 0; i < s->n; i++)
        for (long k = s->succ_off[i]; k < s->succ_off[i + 1]; k++)
            wf_tg_precede(t[i], t[s->succ[k]]);
    return g;
}

BENCH_KERNEL(tg_kernel)
{
    tg_state *s = (tg_state *)arg;
    tg_cur = s;
    wf_taskgraph *g = tg_build_weft(s);
    if (g == NULL || wf_tg_run(g) != 0)
        s->value[s->n - 1] = -1; /* the check reports it */
    wf_taskgraph_destroy(g);
}

static void tg_free_kept_weft(void *arg)
{
    wf_taskgraph_destroy((wf_taskgraph *)((tg_state *)arg)->kept);
}

BENCH_EXTERN_C void tg_rerun_build_par(void *arg)
{
    tg_state *s = (tg_state *)arg;
    tg_keep_check(s, (long)(intptr_t)bench_weft_pool());
    if (s->kept == NULL) {
        s->kept = tg_build_weft(s);
        s->kept_free = tg_free_kept_weft;
    }
}

BENCH_KERNEL(tg_rerun_kernel)
{
    tg_state *s = (tg_state *)arg;
    tg_cur = s;
    tg_rerun_build_par(s);
    if (s->kept == NULL || wf_tg_run((wf_taskgraph *)s->kept) != 0)
        s->value[s->n - 1] = -1;
}

#endif

/* ---- untimed parts (compiled once) ------------------------------------ */
#ifdef BENCH_HARNESS
#include <stdio.h>
#include <stdlib.h>

BENCH_EXTERN_C void tg_rerun_build_par(void *arg) __attribute__((weak));

/* Edges (a, b) in a list, then both CSRs; depth from the topological
 * order. */
typedef struct {
    long n, m, cap;
    long (*edge)[2];
} tg_edges;

static void tg_edge(tg_edges *e, long a, long b)
{
    if (e->m == e->cap) {
        e->cap = e->cap ? 2 * e->cap : 1024;
        e->edge =
            (long(*)[2])realloc(e->edge, (size_t)e->cap * sizeof *e->edge);
        if (e->edge == NULL)
            abort();
    }
    e->edge[e->m][0] = a;
    e->edge[e->m][1] = b;
    e->m++;
}

static long *tg_csr(const tg_edges *e, int side, long **off)
{
    long n = e->n;
    *off = (long *)calloc((size_t)n + 1, sizeof **off);
    long *out = (long *)malloc((size_t)(e->m ? e->m : 1) * sizeof *out);
    if (*off == NULL || out == NULL)
        abort();
    for (long k = 0; k < e->m; k++)
        (*off)[e->edge[k][side] + 1]++;
    for (long i = 0; i < n; i++)
        (*off)[i + 1] += (*off)[i];
    long *fill = (long *)calloc((size_t)n, sizeof *fill);
    for (long k = 0; k < e->m; k++) {
        long at = e->edge[k][side];
        out[(*off)[at] + fill[at]++] = e->edge[k][1 - side];
    }
    free(fill);
    return out;
}

static tg_state *tg_make(const char *name, tg_edges *e, const char *what)
{
    tg_state *s = (tg_state *)calloc(1, sizeof *s);
    if (s == NULL)
        return NULL;
    s->name = name;
    s->n = e->n;
    s->succ = tg_csr(e, 0, &s->succ_off);
    s->pred = tg_csr(e, 1, &s->pred_off);
    free(e->edge);
    s->depth = (long *)calloc((size_t)s->n, sizeof(long));
    s->value = (long *)calloc((size_t)s->n, sizeof(long));
    s->handles = (void **)calloc((size_t)s->n, sizeof(void *));
    if (!s->depth || !s->value || !s->handles)
        abort();
    long *v = s->value; /* the sequential values, as the reference */
    for (long i = 0; i < s->n; i++)
        tg_work(s, i);
    for (long i = 0; i < s->n; i++)
        s->depth[i] = v[i];
    snprintf(s->describe, sizeof s->describe, "%s, %ld tasks, %ld edges", what,
             s->n, e->m);
    return s;
}

static void *tg_setup_wavefront(bool quick)
{
    long w = quick ? 64 : 512;
    tg_edges e = {w * w, 0, 0, NULL};
    for (long i = 0; i < w; i++)
        for (long j = 0; j < w; j++) {
            if (i + 1 < w)
                tg_edge(&e, i * w + j, (i + 1) * w + j);
            if (j + 1 < w)
                tg_edge(&e, i * w + j, i * w + j + 1);
        }
    char what[32];
    snprintf(what, sizeof what, "%ldx%ld", w, w);
    return tg_make("tg_wavefront", &e, what);
}

static void *tg_setup_chain(bool quick)
{
    tg_edges e = {quick ? 1l << 12 : 1l << 18, 0, 0, NULL};
    for (long i = 0; i + 1 < e.n; i++)
        tg_edge(&e, i, i + 1);
    return tg_make("tg_chain", &e, "chain");
}

static void *tg_setup_tree(bool quick)
{
    tg_edges e = {(quick ? 1l << 12 : 1l << 18) - 1, 0, 0, NULL};
    for (long i = 1; i < e.n; i++)
        tg_edge(&e, (i - 1) / 2, i);
    return tg_make("tg_tree", &e, "binary tree");
}

static void *tg_setup_level(bool quick)
{
    long levels = quick ? 40 : 451, width = quick ? 50 : 507;
    tg_edges e = {levels * width, 0, 0, NULL};
    uint64_t r = 1;
    for (long l = 1; l < levels; l++)
        for (long j = 0; j < width; j++) {
            long from[4], nf = 1 + (long)(bench_mix64(r++) % 4);
            for (long k = 0; k < nf; k++) {
                long p = (long)(bench_mix64(r++) % (uint64_t)width);
                bool dup = false;
                for (long q = 0; q < k; q++)
                    dup |= from[q] == p;
                from[k] = dup ? -1 : p;
                if (!dup)
                    tg_edge(&e, (l - 1) * width + p, l * width + j);
            }
        }
    return tg_make("tg_level", &e, "level graph");
}

static void *tg_setup_rerun(bool quick)
{
    tg_state *s = (tg_state *)tg_setup_wavefront(quick);
    if (s != NULL)
        s->name = "tg_rerun";
    return s;
}

static void tg_prepare(void *state)
{
    tg_state *s = (tg_state *)state;
    memset(s->value, 0, (size_t)s->n * sizeof *s->value);
}

static int tg_check(void *state, bool seq, char *why, size_t n)
{
    (void)seq;
    const tg_state *s = (const tg_state *)state;
    for (long i = 0; i < s->n; i++)
        if (s->value[i] != s->depth[i]) {
            snprintf(why, n, "%s: task %ld has %ld, expected %ld", s->name, i,
                     s->value[i], s->depth[i]);
            return -1;
        }
    return 0;
}

static const char *tg_describe(const void *state)
{
    return ((const tg_state *)state)->describe;
}

static void tg_teardown(void *state)
{
    tg_state *s = (tg_state *)state;
    if (s->kept != NULL)
        s->kept_free(s);
    free(s->succ_off);
    free(s->succ);
    free(s->pred_off);
    free(s->pred);
    free(s->depth);
    free(s->value);
    free(s->handles);
    free(s);
}

#define TG_WORKLOAD(var, label, setup, kernel, build_fn)                       \
    const bench_workload var = {                                               \
        label,        setup,    tg_prepare, kernel##_seq,                      \
        kernel##_par, build_fn, tg_check,   tg_describe,                       \
        tg_teardown,  NULL,     true,       NULL,                              \
    }

TG_WORKLOAD(bench_tg_wavefront, "tg_wavefront", tg_setup_wavefront, tg_kernel,
            NULL);
TG_WORKLOAD(bench_tg_chain, "tg_chain", tg_setup_chain, tg_kernel, NULL);
TG_WORKLOAD(bench_tg_tree, "tg_tree", tg_setup_tree, tg_kernel, NULL);
TG_WORKLOAD(bench_tg_level, "tg_level", tg_setup_level, tg_kernel, NULL);
TG_WORKLOAD(bench_tg_rerun, "tg_rerun", tg_setup_rerun, tg_rerun_kernel,
            tg_rerun_build_par);
#endif
