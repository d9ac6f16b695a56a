/* SPDX-License-Identifier: Apache-2.0 */
/* continue_node: runs its body each time every predecessor has signalled.
 *
 * Its input port carries signals (WF_SIGNAL: no data).  The threshold is
 * the number of in-edges plus cfg->predecessors; the in-edge list is the
 * port's own, which wf_make_edge / wf_remove_edge publish through this
 * node's aggregator (WF__OP_SET_EDGES).  As in oneTBB, a signal that
 * brings the count to the threshold (or past it, after a remove_edge)
 * completes a round: the count restarts at 0 and one body is due.  A
 * threshold of 0 makes every signal a round.
 *
 * A signal is one CAS on the count (`sig`, internal/graph/cont_count.h),
 * not an aggregator operation: the count is the node's only state a
 * signal changes, and the threshold is read from the published edge list.
 * This departs from G1 on purpose (a wavefront of continue nodes is
 * nothing but signals); the node still handles SET_EDGES / RESET / HELD
 * through its aggregator.
 *
 * Each round is a pool task of its own, as in oneTBB, whose record (and
 * room for the body's output) the completing signal takes from its
 * thread's worker (wf__record_take): the record the thread's last round
 * gave back, warm in its cache, so a round calls no allocator and the
 * node carries no task record.  Rounds of one node may run at once.  A
 * round that a graph task's signal completes on a node with a signal
 * output needs no record at all: the signalling thread runs it itself
 * after its task (run_own), from its own record kept for bypass. */
#include <limits.h>
#include <stddef.h>

#include "internal/graph/cont_count.h"
#include "internal/graph/edge.h"
#include "internal/graph/mem.h"
#include "internal/graph/node.h"
#include "internal/graph/runtime.h"
#include "internal/pool_hooks.h"

/* Laid out by use (internal/graph/node.h): a signal reads the line after
 * the base (its port, sig, outside), as does a body (body, ctx); its
 * output then reads the output port. */
typedef struct cont_node {
    wf_node base;
    wf__port in;          /* its input port (cont_ops.in_offset) */
    _Atomic uint64_t sig; /* signals, dropped rounds (cont_count.h) */
    unsigned outside;     /* cfg->predecessors: signals not from edges */
    bool own_rounds; /* a signal output: rounds may run in wf__own (run_own) */
    wf_continue_fn body;
    void *ctx;
    wf__port out; /* its output port */
} cont_node;

/* A round's task (wf__record_take): the graph task, then the body's
 * output when it fits in the record (else gtask.arg is a block of its
 * own). */
typedef struct round {
    wf__gtask task;
    max_align_t out[];
} round;

#define ROUND_ROOM (WF__RECORD_SIZE - sizeof(round))
_Static_assert(sizeof(round) <= WF__RECORD_SIZE, "a round fits its record");

/* The round's size for a signal that came through `in` (the node's
 * input port: read from the port, whose line the sender loaded already). */
static size_t threshold(cont_node *c, wf__port *in)
{
    /* Relaxed: a count, behind which set_edges publishes nothing; a
     * signal racing with an edge edit counts against the threshold before
     * or after it, as it would under a lock (G7). */
    return (size_t)wf_load_relaxed(&in->n_edges) + c->outside;
}

/* The functions below take g, c's graph, from their caller: a round's
 * task's own (wf__gtask.graph, c's while it runs, since a graph's destroy
 * waits for its tasks), a signalling round's (an edge joins nodes of one
 * graph), or wf__node_graph's for a put from outside.  A cell's path then
 * reads no line of c but its port's and its output's. */

/* ---- rounds -------------------------------------------------------------- */

WF__HOT_INLINE void cont_signal(wf__port *in, wf_graph *g);

/* Offer a body's output along the out-edges in push state, as
 * wf__push_broadcast does, but signal a continue_node successor with a
 * direct cont_put: it always accepts, so offer's rejection handling (G3)
 * has nothing to do.  That is the whole path of a wavefront cell.  When
 * the graph counts or a trace records (`traced`: the round's body was),
 * everything goes through wf__push_broadcast. */
static void broadcast(cont_node *c, wf_graph *g, const void *msg, bool traced)
{
    wf__port *out = &c->out;
    if (wf__graph_observed_in(g, traced)) {
        wf__push_broadcast(out, msg);
        return;
    }
    wf__edges *l = wf__edges_list(&out->edges); /* G7 */
    for (unsigned i = 0, n = wf__edges_count(l); i < n; i++) {
        wf__edge *e = wf__edges_at(l, i);
        if (e == NULL)
            continue;
        /* The receiver from the slot itself, not from the edge's record.
         * A continue node's input (cont_input, set before the node was
         * published) never rejects, so its edges stay in push state (only
         * a REJECT_PULL turns one to pull, G3): no need to read it. */
        wf__port *to = l->s[i].far;
        if (to->cont_input) {
            cont_signal(to, g);
            continue;
        }
        /* Relaxed: as in wf__push_broadcast (a stale state costs one
         * rejected offer; G3 notifies every change). */
        if (wf_load_relaxed(&e->state) == WF__PUSH)
            wf__push_edge(e, msg);
    }
}

/* A completed round that will not run: the graph is stopped, or no
 * record could be had for it (which fails the graph, so that
 * wait_for_all says so).  held() counts it until a reset. */
static __attribute__((noinline, cold)) void round_dropped(cont_node *c,
                                                          wf_graph *g, int err)
{
    wf__cont_drop(&c->sig);
    if (err != 0 && g != NULL)
        wf__graph_fail(g, err);
}

/* One round's body, then its output to the successors; out: the room
 * for its output (NULL for a signal, which has no data).  Inline: every
 * round runs it. */
static inline void round_body(cont_node *c, wf_graph *g, void *out)
{
    /* Once a round: its span begins and ends alike, and its signals are
     * traced as its body was. */
    bool traced = wf__trace_enabled();
    wf__body_begin_in(&c->base, g, traced);
    int rc = c->body(out, c->ctx);
    wf__body_end(&c->base, rc, traced);
    if (rc == 0)
        broadcast(c, g, out, traced);
}

/* A round's task: its body, then its record back to this thread's worker,
 * for the next round this thread starts. */
static void run_round(wf__gtask *t)
{
    round *r = (round *)t;
    cont_node *c = (cont_node *)t->node;
    wf_graph *g = t->graph; /* c's (see the note after threshold) */
    if (wf__graph_stopped(g))
        round_dropped(c, g, 0);
    else
        round_body(c, g, t->arg);
    if (t->arg != NULL && t->arg != r->out) /* an output of its own */
        wf__mem_free(wf__node_mem(&c->base), t->arg);
    wf__record_give(g->pool, r);
}

/* Give a completed round a task of its own, and spawn it. */
static void start_round(cont_node *c, wf_graph *g)
{
    round *r = wf__record_take(g->pool);
    void *out = NULL;
    size_t size = c->out.size;
    if (r != NULL && size > ROUND_ROOM &&
        (out = wf__mem_alloc(wf__node_mem(&c->base), size)) == NULL) {
        wf__record_give(g->pool, r);
        r = NULL;
    }
    if (r == NULL) {
        round_dropped(c, g, WF_ENOMEM);
        return;
    }
    r->task.run = run_round;
    r->task.node = &c->base; /* its priority and trace name */
    r->task.arg = size == 0 ? NULL : size <= ROUND_ROOM ? (void *)r->out : out;
    wf__spawn(g, &r->task);
}

/* A round that a graph task's signal completed, run by that thread from
 * its own record (wf__own, kept for bypass) rather than a task of its
 * own.  Only for a signal output: the record has no room for a message. */
static void run_own(wf__gtask *t)
{
    cont_node *c = (cont_node *)t->node;
    wf_graph *g = t->graph;
    wf__own.busy = false; /* c and g read: it may keep the next round */
    if (wf__graph_stopped(g))
        round_dropped(c, g, 0);
    else
        round_body(c, g, NULL);
}

/* The round kept in wf__own goes to the pool instead (wf__own.adopt). */
static void adopt_own(wf_node *n, wf_graph *g)
{
    start_round((cont_node *)n, g);
}

/* Keep the round just completed in this thread's own record. */
static inline void keep_own(cont_node *c, wf_graph *g)
{
    wf__own.task.node = &c->base;
    wf__own.task.graph = g;
    wf__own.task.run = run_own;
    wf__own.adopt = adopt_own;
    wf__own.busy = true;
    wf__bypass = &wf__own.task; /* counted by the running task (G5) */
}

/* ---- node ops ------------------------------------------------------------ */

/* A signal through `in`, a continue node's input, of g (see the note
 * after threshold).  The round it completes runs on this thread, in
 * wf__own, when it could keep a task for bypass anyway (and the output
 * is a signal); else as a task of its own. */
WF__HOT_INLINE void cont_signal(wf__port *in, wf_graph *g)
{
    cont_node *c = (cont_node *)in->node;
    if (!wf__cont_signal(&c->sig, threshold(c, in)))
        return;
    if (wf__graph_stopped(g))
        round_dropped(c, g, 0);
    else if (c->own_rounds && !wf__own.busy &&
             wf__can_bypass(g, wf__task_prio(g, &c->base)))
        keep_own(c, g);
    else
        start_round(c, g);
}

/* A signal from a node of another kind, or from outside the graph. */
static int cont_put(wf__port *in, const void *msg)
{
    (void)msg; /* a signal: nothing to copy */
    cont_signal(in, wf__node_graph(in->node));
    return WF__ACCEPT;
}

static void cont_handle(wf_node *n, wf__op *op)
{
    (void)n;
    (void)op;
    WF_BUG("unknown continue_node operation");
}

static void cont_reset(wf_node *n)
{
    cont_node *c = (cont_node *)n;
    /* Relaxed: reset runs on an idle graph; the aggregator and the
     * restart of the graph order these stores for later signals. */
    wf_store_relaxed(&c->sig, 0);
}

static size_t cont_held(wf_node *n)
{
    /* Relaxed: a snapshot, as the other kinds' held counts are. */
    return wf__cont_dropped(wf_load_relaxed(&((cont_node *)n)->sig));
}

/* The signals of the round under way (debug mode's report, graph.c).
 * Relaxed: asked of an idle graph, whose last signal happened before the
 * wait that asks (G5). */
static size_t cont_round(wf_node *n, size_t *of)
{
    cont_node *c = (cont_node *)n;
    *of = threshold(c, &c->in);
    return (size_t)(wf_load_relaxed(&c->sig) & WF__CONT_COUNT_MASK);
}

static const wf__node_ops cont_ops = {
    .kind = "continue_node",
    .in_offset = offsetof(cont_node, in),
    .out_offset = offsetof(cont_node, out),
    .signals = true, /* its input always, its output when its size is 0 */
    .put = cont_put,
    .handle = cont_handle,
    .reset = cont_reset,
    .held = cont_held,
    .round = cont_round,
};

int wf_continue_node_create(wf_node **out, wf_graph *g,
                            const wf_continue_config *cfg)
{
    if (out == NULL || cfg == NULL || cfg->body == NULL)
        return WF_EINVAL;
    /* A round's signals are counted in 32 bits (sig); the edges add far
     * fewer than 2^31, so this bound keeps every threshold below 2^32. */
    if (cfg->predecessors > INT_MAX)
        return WF_ERANGE;
    size_t in_size = WF_SIGNAL;
    wf_node *n;
    int err = wf__node_create(&n, g, sizeof(cont_node), &cont_ops, 1, &in_size,
                              1, &cfg->out_size);
    if (err)
        return err;
    cont_node *c = (cont_node *)n;
    c->in.cont_input = true; /* broadcast's direct signal */
    c->body = cfg->body;
    c->ctx = cfg->ctx;
    c->outside = cfg->predecessors;
    c->own_rounds = cfg->out_size == WF_SIGNAL;
    /* Not shared yet: relaxed.  No signal counted, nothing dropped. */
    wf_store_relaxed(&c->sig, 0);
    wf__node_publish(n);
    *out = n;
    return 0;
}
