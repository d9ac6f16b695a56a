/* SPDX-License-Identifier: Apache-2.0 */
/* The graph's runtime (src/graph/runtime.c): the pool tasks that run
 * nodes' bodies and forwarders, the count of work in flight (rule G5),
 * waiting for it, errors and cancellation, and the hooks around every
 * body and message (counters, trace).  Never installed. */
#ifndef WF_GRAPH_RUNTIME_H
#define WF_GRAPH_RUNTIME_H

#include "internal/graph/node.h"

/* Thread-locals read on every body and spawn: no __tls_get_addr call in
 * the shared library (as wf__self in the pool). */
#define WF__TLS_FAST __attribute__((tls_model("initial-exec")))

/* The graph whose task this thread is running, to refuse a wait that
 * would wait for itself; NULL outside graph tasks. */
extern _Thread_local wf_graph *wf__running_graph WF__TLS_FAST;
/* Task bypass (runtime.c, as oneTBB's): the first priority-0 task that
 * the running task of a graph spawns is kept here and run on this
 * thread when the running task returns; NULL when none is kept. */
extern _Thread_local wf__gtask *wf__bypass WF__TLS_FAST;

/* This thread's own record for a task to keep for bypass that has no
 * record of its own: a continue node's round that the signalling thread
 * runs itself (continue.c), so that no task record is taken or given
 * back.  `busy` while a bypass slot holds it (a nested run keeps the
 * outer slot's); the node kind's `adopt` gives the round a task of its
 * own when the slot goes to the pool instead. */
typedef struct wf__own_task {
    wf__gtask task;
    void (*adopt)(wf_node *n, wf_graph *g);
    bool busy;
} wf__own_task;
extern _Thread_local wf__own_task wf__own WF__TLS_FAST;

/* The priority a task of g for node n (NULL: none) spawns with. */
WF__HOT_INLINE int wf__task_prio(wf_graph *g, wf_node *n)
{
    /* Relaxed: the priority is set before the node gets messages; a
     * change racing with a spawn applies to the next one.  The node's
     * line is read only in a graph where some node has one (the flag is
     * on the graph's line that every body reads). */
    return g && wf_load_relaxed(&g->prioritized) && n
               ? wf_load_relaxed(&n->priority)
               : 0;
}

/* May a task of g of priority prio be kept for bypass?  A running task
 * of g on this thread, and the slot free. */
WF__HOT_INLINE bool wf__can_bypass(wf_graph *g, int prio)
{
    return prio == 0 && wf__bypass == NULL && wf__running_graph == g &&
           g != NULL;
}

/* Spawn t, a task of g: kept for bypass when it can be (counted by the
 * running task, G5), else counted on its own and given to the pool or the
 * priority list (wf__spawn_counted).  Inline: each fired round spawns. */
void wf__spawn_counted(wf_graph *g, wf__gtask *t, int prio);
WF__HOT_INLINE void wf__spawn(wf_graph *g, wf__gtask *t)
{
    t->graph = g;
    int prio = wf__task_prio(g, t->node);
    if (wf__can_bypass(g, prio))
        wf__bypass = t; /* counted by the running task (see wf__bypass) */
    else
        wf__spawn_counted(g, t, prio);
}
/* Count one unit of work in flight that is not a task (G5): an async
 * node's reserve_wait, a put from outside the graph's tasks; release ends
 * it.  Any thread. */
void wf__graph_hold(wf_graph *g);
void wf__graph_release(wf_graph *g);
void wf__graph_fail(wf_graph *g, int err);
/* Bracket a put made from outside g's tasks (from main, say); NULL g and
 * puts from g's own tasks pass through.  The put counts as work in flight
 * until it ends (G5), and a thread that is none of the pool's runs it in
 * a caller slot, so that the tasks it starts go where its wait_for_all
 * will look first (graph.c). */
typedef struct wf__outside_put {
    bool held;
    struct wf__worker *slot;
} wf__outside_put;
wf__outside_put wf__outside_put_begin(wf_graph *g);
void wf__outside_put_end(wf_graph *g, wf__outside_put put);

/* Every node kind calls a user body between these two: begin, then the
 * body, then end with what the body returned.  end records a negative
 * result as the graph's error (failing the graph, attributed to n).  The
 * graph runtime hangs tracing and counters on them. */
void wf__body_begin_slow(wf_node *n, wf_graph *g, bool traced);
void wf__body_end_slow(wf_node *n, int result, bool traced);
/* Inline: the common body pays a few loads here and no call.  begin's
 * slow path gives the bypassed task to the pool (another worker may run
 * it while this body runs), runs listed tasks of a higher priority first
 * and starts the trace's span; it is taken only when one of those has
 * something to do.  Relaxed load of prio_count: a hint (an entry pushed
 * right after it is run by a drainer).
 *
 * `traced` is wf__trace_enabled() read once for the body: begin returns
 * it and end takes it, so that a trace switched on or off while the body
 * runs records both ends of its span or neither.  The _in form takes n's
 * graph, which a task that runs n's body may pass itself
 * (wf__gtask.graph: it is n's while the task runs, since a graph's
 * destroy waits for its tasks), and the caller's own `traced`. */
WF__HOT_INLINE void wf__body_begin_in(wf_node *n, wf_graph *g, bool traced)
{
    if (wf__bypass || (g && wf_load_relaxed(&g->prio_count) > 0) || traced)
        wf__body_begin_slow(n, g, traced);
}

WF__HOT_INLINE bool wf__body_begin(wf_node *n)
{
    bool traced = wf__trace_enabled();
    wf__body_begin_in(n, wf__node_graph(n), traced);
    return traced;
}

WF__HOT_INLINE void wf__body_end(wf_node *n, int result, bool traced)
{
    if (result < 0 || traced)
        wf__body_end_slow(n, result, traced);
}
/* A message offered by `from` (NULL: a caller outside the graph) to `to`
 * got the answer r (WF__ACCEPT, a rejection, or an error); pulled: a
 * receiver took one from `from` with a pull.  The DOT counters (when the
 * graph counts) and the trace's flow arrows (when tracing): edge.c calls
 * them on the push and pull paths, only when wf__observed(to or from). */
void wf__count_offer(wf_node *from, wf_node *to, int r);
void wf__count_pulled(wf_node *from);

/* Is a body or task of g on this thread's stack: a task it runs, one
 * that runs a task of another graph inside it (a wait that helps), or a
 * body run inline (below)?  Waiting for g would wait for itself. */
bool wf__graph_running_here(const wf_graph *g);

/* A body that runs on the calling thread outside g's tasks: a
 * lightweight put's (function.c), an input node's pull (input.c).  From
 * begin to end, wf__graph_running_here(g) is true on this thread; on a
 * thread that runs no graph's task or body yet, cancellation is off
 * meanwhile (docs/graph.md, "Waiting"): the put holds g's count and maybe
 * a caller slot, which a cancelled thread would never give back.  The
 * record lives on the caller's stack. */
typedef struct wf__graph_frame {
    wf_graph *graph;
    struct wf__graph_frame *outer;
    int cancel_state; /* what end restores; -1: left as it was */
} wf__graph_frame;
void wf__inline_body_begin(wf__graph_frame *f, wf_graph *g);
void wf__inline_body_end(wf__graph_frame *f);

/* weft's waits (wf_graph_wait_for_all, reset, the destroys) are not
 * cancellation points: cancellation is off while they run (docs/graph.md,
 * "Waiting", says why).  begin returns the state that end restores. */
static inline int wf__nocancel_begin(void)
{
    int old = PTHREAD_CANCEL_ENABLE;
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
    return old;
}

static inline void wf__nocancel_end(int old)
{
    pthread_setcancelstate(old, NULL);
}

/* Set up and tear down the runtime's part of a graph (its drainers). */
int wf__runtime_init(wf_graph *g);
void wf__runtime_fini(wf_graph *g);
/* Wait until no work of g is in flight, running the pool's tasks
 * meanwhile (the caller is not one of g's tasks). */
void wf__graph_quiesce(wf_graph *g);
/* Close g for a reset: wait until nothing is in flight and keep it so
 * (puts that start meanwhile wait in hold) until wf__graph_reopen.
 * WF_EPERM from one of g's tasks. */
int wf__graph_close(wf_graph *g);
void wf__graph_reopen(wf_graph *g);
/* Cancel g: the flag, then the nodes' cancel callbacks, once per
 * cancellation.  Takes the topology lock: never from a handler (G2). */
void wf__graph_cancel(wf_graph *g);
/* 0, the first body's error, or WF_ECANCELED. */
int wf__graph_status(const wf_graph *g);

#endif /* WF_GRAPH_RUNTIME_H */
