/* SPDX-License-Identifier: Apache-2.0 */
/* weft — task graphs: work that is only "this runs after those".
 *
 *     wf_taskgraph *g;
 *     wf_taskgraph_create(&g, NULL);                // the default pool
 *     wf_tg_task *a = wf_tg_emplace(g, load, &cfg);
 *     wf_tg_task *b = wf_tg_emplace(g, parse, &cfg);
 *     wf_tg_task *c = wf_tg_emplace(g, report, &cfg);
 *     wf_tg_precede(a, b);                          // a runs before b
 *     wf_tg_precede(b, c);
 *     int err = wf_tg_run(g);                       // 0, or the first error
 *     wf_taskgraph_destroy(g);
 *
 * A task is a function and its context.  It runs once all its
 * predecessors have run (its strong edges), as oneTBB's continue nodes
 * and Taskflow's tasks do.  A condition task (wf_tg_condition) returns
 * the index of the one successor to run next; its edges are weak: the
 * successor it picks runs at once, whatever else precedes it, so a
 * condition can branch and loop (Taskflow's condition tasks).  A task
 * with no predecessor at all is a source: each run starts with the
 * sources.  A subflow task builds a graph of its own each time it runs
 * and runs it before its successors (recursive task graphs); a module
 * task runs another graph as one task (composition).  wf_tg_depend
 * finds edges from the data each task reads and writes, as OpenMP's
 * depend clauses do.
 *
 * Tasks and edges live in the graph's own slabs (one allocator call per
 * 128 tasks; successor lists past three in a bump arena), are freed with
 * the graph, and a run allocates nothing: a graph is built once and run
 * as many times as needed (wf_tg_run_n, wf_tg_run_until).
 *
 * Building never needs an error check: a call that fails (no memory, a
 * NULL argument) returns NULL or an error and the graph keeps the first
 * such error, which every later run returns without running anything
 * (wf_taskgraph_error reads it).
 *
 * A run happens on the graph's pool, with the calling thread taking part
 * (it runs tasks while it waits, as wf_run's caller does), from any
 * thread, a task of the pool included.  Several graphs may run at once on
 * one pool; one graph runs once at a time (a second run of it meanwhile
 * returns WF_EBUSY).  A task's function returning non-zero (a WF_E...
 * code, or the application's own, weft/common.h) fails the run: tasks
 * not yet started are skipped, and the run returns the first error. */
#ifndef WEFT_TASKGRAPH_H
#define WEFT_TASKGRAPH_H

#include <stdbool.h>
#include <stdio.h>

#include "pool.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct wf_taskgraph wf_taskgraph;
/* A task of a graph: a handle for wf_tg_precede and the like, valid until
 * the graph is destroyed. */
typedef struct wf_tg_task wf_tg_task;

/* A task's work: 0, or an error that fails the run.  A condition task's
 * returns the index of the successor to run (in the order of its
 * wf_tg_precede calls); one past the last runs none, a negative value is
 * an error. */
typedef int (*wf_tg_fn)(void *ctx);
/* A subflow's work: add tasks and edges to sub (an empty graph, on the
 * same pool), return 0 or an error.  sub then runs, and the subflow task
 * is done when it is. */
typedef int (*wf_tg_subflow_fn)(wf_taskgraph *sub, void *ctx);

/* Graph configuration.  Zero means "default" in every field. */
typedef struct wf_taskgraph_config {
    wf_pool *pool;             /* where tasks run; NULL: the default pool */
    const wf_allocator *alloc; /* the graph, its slabs and arenas; NULL:
                                  malloc.  Copied: it need not outlive the
                                  call.  Subflows build on the workers
                                  while a run goes on: then it must be
                                  thread-safe */
} wf_taskgraph_config;

#define WF_TASKGRAPH_CONFIG_INIT                                               \
    {                                                                          \
        NULL, NULL                                                             \
    }

/* Make an empty graph in *out.  cfg may be NULL (all defaults).  Errors:
 * WF_EINVAL (out NULL), WF_ENOMEM, and wf_pool_default's when it is the
 * pool and cannot be made.  The pool is not destroyed while the graph
 * exists (wf_pool_destroy returns WF_EBUSY). */
WF_API int wf_taskgraph_create(wf_taskgraph **out,
                               const wf_taskgraph_config *cfg);
/* Free g and all its tasks and edges.  NULL: nothing.  WF_EBUSY while it
 * runs (nothing is freed). */
WF_API int wf_taskgraph_destroy(wf_taskgraph *g);

/* Add a task that calls fn(ctx).  NULL when g is NULL, fn is NULL
 * (WF_EINVAL) or memory runs out (WF_ENOMEM): the graph keeps the error.
 * Not while g runs (WF_EBUSY, kept as well). */
WF_API wf_tg_task *wf_tg_emplace(wf_taskgraph *g, wf_tg_fn fn, void *ctx);
/* Add a condition task: fn(ctx)'s value picks the successor to run. */
WF_API wf_tg_task *wf_tg_condition(wf_taskgraph *g, wf_tg_fn fn, void *ctx);
/* Add a task with no work yet (a placeholder): wf_tg_set_work gives it
 * some; until then it runs as a task that does nothing. */
WF_API wf_tg_task *wf_tg_placeholder(wf_taskgraph *g);
/* Add a subflow task: each time it runs, fn(sub, ctx) builds a graph in
 * sub, which then runs; the task's successors run after all of sub's
 * tasks.  sub is made at the first run and kept, emptied before each
 * (wf_taskgraph_clear), so a rerun allocates only what sub needs more
 * than before.  An error of fn or of sub's run is the task's. */
WF_API wf_tg_task *wf_tg_subflow(wf_taskgraph *g, wf_tg_subflow_fn fn,
                                 void *ctx);
/* Add a task that runs the graph module (wf_tg_run) as one task of g:
 * composition.  module must outlive g's runs, and must not run twice at
 * once (a run of it meanwhile fails with WF_EBUSY): compose it once per
 * graph, or in tasks that the edges keep apart. */
WF_API wf_tg_task *wf_tg_compose(wf_taskgraph *g, wf_taskgraph *module);
/* Set t's work.  WF_EINVAL (t NULL), WF_EBUSY while its graph runs. */
WF_API int wf_tg_set_work(wf_tg_task *t, wf_tg_fn fn, void *ctx);
/* Name t, for wf_taskgraph_dot; name must outlive the graph.  WF_EINVAL
 * when t is NULL. */
WF_API int wf_tg_name(wf_tg_task *t, const char *name);

/* a runs before b: an edge from a to b (weak if a is a condition task).
 * Returns 0, or the error the graph then keeps: WF_EINVAL (NULL, the
 * same task, tasks of two graphs), WF_ENOMEM, WF_EBUSY (it runs),
 * WF_ERANGE (b has 2^24 - 1 predecessors already). */
WF_API int wf_tg_precede(wf_tg_task *a, wf_tg_task *b);

/* How a task uses an address, for wf_tg_depend (OpenMP's depend types). */
typedef enum wf_tg_access {
    WF_TG_IN = 1,   /* reads it: after the last task that wrote it */
    WF_TG_OUT = 2,  /* writes it: after that writer and every reader since */
    WF_TG_INOUT = 3 /* both, ordered as OUT */
} wf_tg_access;

typedef struct wf_tg_dep {
    const void *addr;
    wf_tg_access access;
} wf_tg_dep;

/* Dependencies of one task, as OpenMP's depend(in/out/inout: ...). */
#define WF_TG_IN(p) ((wf_tg_dep){(p), WF_TG_IN})
#define WF_TG_OUT(p) ((wf_tg_dep){(p), WF_TG_OUT})
#define WF_TG_INOUT(p) ((wf_tg_dep){(p), WF_TG_INOUT})

/* Give t the n data dependencies deps[]: t runs after the tasks given
 * dependencies before it that conflict (a write and any access to the
 * same address), as OpenMP orders tasks with depend clauses by the order
 * they are created.  Call it once per task, in the order the tasks must
 * appear to run; addresses are only compared, never read.  Returns 0 or
 * the error g keeps (WF_EINVAL: t NULL, deps NULL with n > 0, an unknown
 * access; WF_ENOMEM; WF_EBUSY). */
WF_API int wf_tg_depend(wf_tg_task *t, size_t n, const wf_tg_dep *deps);

/* Remove every task and edge of g, keeping its memory for the next ones
 * (and its building error, if any, cleared).  WF_EINVAL (NULL), WF_EBUSY
 * while it runs. */
WF_API int wf_taskgraph_clear(wf_taskgraph *g);

/* Run g once and wait: 0, the first error of a task, or the graph's
 * build error; WF_EINVAL (g NULL), WF_EBUSY (g runs already). */
WF_API int wf_tg_run(wf_taskgraph *g);
/* Run g n times in a row (0: not at all); stops at the first run that
 * fails and returns its error. */
WF_API int wf_tg_run_n(wf_taskgraph *g, unsigned n);
/* Run g until done(ctx) is true, tested before each run (so not at all if
 * it is true at once); stops at the first run that fails. */
WF_API int wf_tg_run_until(wf_taskgraph *g, bool (*done)(void *ctx), void *ctx);

/* Cancel g's run in progress, from any thread (a task of it included):
 * tasks not yet started are skipped, and the run (wf_tg_run_n's and
 * wf_tg_run_until's too) returns WF_ECANCELED unless a task failed first.
 * A cancel before a run starts does not reach it.  Returns 0, or
 * WF_EINVAL (NULL). */
WF_API int wf_tg_cancel(wf_taskgraph *g);

/* Write g in Graphviz's DOT language to f: a box per task (its name, or
 * its address), a diamond per condition task, dashed weak edges.  Returns
 * 0, or WF_EINVAL (NULL); a failed write shows in ferror(f). */
WF_API int wf_taskgraph_write_dot(const wf_taskgraph *g, FILE *f);

/* The error g keeps from its building (0 if none). */
WF_API int wf_taskgraph_error(const wf_taskgraph *g);
/* Tasks in g (0 for NULL). */
WF_API size_t wf_taskgraph_size(const wf_taskgraph *g);

#ifdef __cplusplus
}
#endif
#endif /* WEFT_TASKGRAPH_H */
