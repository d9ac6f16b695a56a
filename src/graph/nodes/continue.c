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
 * A signal is one CAS on the count (`sig`), not an aggregator operation:
 * the count is the node's only state a signal changes, and the threshold is
 * read from the published edge list.  This departs from G1 on purpose (a
 * wavefront of continue nodes is nothing but signals); the node still
 * handles SET_EDGES / RESET / HELD through its aggregator.
 *
 * Rounds run in runners, one record per body that could run at once (the
 * pool's thread count, at most 32).  The first runner lives in the node:
 * a node whose rounds never overlap (a wavefront cell) uses only it, and
 * has no more lines to miss with many pool threads than with one.  The
 * others are made the first time a round completes while every runner is
 * busy; no other round allocates.  The round's signals and the set of
 * idle runners share one atomic word (`sig`), so that the signal that
 * completes a round also takes an idle runner for it, in its one CAS.  A
 * round that finds every runner busy is counted in `due` (a round
 * carries no data, so a count is its queue), and a runner that ends a
 * body takes a due round or goes idle.  Both sides then look at the
 * other's word, so no round is left due with every runner idle (G9 in
 * docs/protocols.md).
 *
 * A runner's hand-back is a CAS of `sig` per round.  A round that a graph
 * task's signal completes on a node with a signal output needs none: the
 * signalling thread runs it itself after its task (run_own), from its own
 * record kept for bypass, and takes no runner. */
#include <limits.h>
#include <stddef.h>

#include "internal/graph/cont_count.h"
#include "internal/graph/edge.h"
#include "internal/graph/mem.h"
#include "internal/graph/node.h"
#include "internal/graph/runtime.h"

/* A runner is a graph task: its node is the cont_node, its arg the
 * body's output (NULL for a signal), on the line spawn and run read. */
typedef wf__gtask runner;

#define MAX_SLOTS 32 /* the idle bits of sig (cont_count.h) */

/* Laid out by use (internal/graph/node.h): a signal reads the base line
 * and the next one (its port, sig, outside), as does a body (body, ctx);
 * the first runner is the line after, the part of it that spawn and run
 * touch in one line; then the output port and what only overlapping
 * rounds use. */
typedef struct cont_node {
    wf_node base;
    wf__port in;            /* its input port (cont_ops.in_offset) */
    _Atomic uint64_t sig;   /* idle runners | signals (cont_count.h) */
    unsigned outside;       /* cfg->predecessors: signals not from edges */
    unsigned short n_slots; /* runners it may have */
    bool own_rounds; /* a signal output: rounds may run in wf__own (run_own) */
    wf_continue_fn body;
    void *ctx;
    runner first __attribute__((aligned(64))); /* slot 0 */
    wf__port out;                              /* its output port */
    _Atomic size_t due;   /* completed rounds no runner has taken */
    runner *_Atomic more; /* slots 1 .. n_slots - 1 once made (add_runners) */
} cont_node;

/* Slot i of c, for i > 0 only after its idle bit was seen in `sig`.
 * Relaxed: add_runners stores `more` before the release RMW that sets
 * those bits, and whoever saw a bit got it through an acquiring CAS. */
static runner *slot(cont_node *c, unsigned i)
{
    return i == 0 ? &c->first : &wf_load_relaxed(&c->more)[i - 1];
}

#define RUNNER_BUDGET 256 /* bodies per pool task before it yields */

/* The round's size for a signal that came through `in` (the node's
 * input port: read from the port, whose line the sender loaded already). */
static size_t threshold(cont_node *c, wf__port *in)
{
    /* Relaxed: a count, behind which set_edges publishes nothing; a
     * signal racing with an edge edit counts against the threshold before
     * or after it, as it would under a lock (G7). */
    return (size_t)wf_load_relaxed(&in->n_edges) + c->outside;
}

/* The functions below take g, c's graph, from their caller: a runner's
 * own (wf__gtask.graph, c's while it runs, since a graph's destroy waits
 * for its tasks), a signalling runner's (an edge joins nodes of one
 * graph), or wf__node_graph's for a put from outside.  A cell's path then
 * reads no line of c but its port's, its runner's and its output's. */

/* ---- runners ------------------------------------------------------------- */

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

/* Start runner i: cont_count.h took it for a round.  Inline: every
 * completed round starts one. */
static inline void start(cont_node *c, unsigned i, wf_graph *g)
{
    wf__spawn(g, slot(c, i));
}

/* While rounds are due and runners idle, start one with one (G9). */
static __attribute__((noinline)) void start_due_rounds(cont_node *c,
                                                       wf_graph *g)
{
    for (;;) {
        int i = wf__cont_start_due(&c->sig, &c->due, wf__graph_stopped(g));
        if (i < 0)
            return;
        start(c, (unsigned)i, g);
    }
}

/* After making a runner idle or a round due: G9's second look.  Inline:
 * a runner that goes idle asks, and almost always finds none due. */
static inline void start_due(cont_node *c, wf_graph *g)
{
    if (wf__cont_any_due(&c->due))
        start_due_rounds(c, g);
}

static void add_runners(cont_node *c, wf_graph *g);

/* A round completed with every runner busy: count it due, and let the
 * first runner that is idle (or made now) take it. */
static __attribute__((noinline)) void round_due(cont_node *c, wf_graph *g)
{
    wf__cont_make_due(&c->due);
    start_due(c, g);
    /* Relaxed: a hint; add_runners decides with its CAS. */
    if (c->n_slots > 1 && wf_load_relaxed(&c->more) == NULL)
        add_runners(c, g);
}

/* A runner ended its round(s): take a due one (true) or go idle. */
static bool next_round(cont_node *c, uint64_t bit, wf_graph *g)
{
    /* Relaxed first look at due (take_due's CAS decides): a body with no
     * round due, the common case, then skips the graph's cancel flag. */
    if (wf_load_relaxed(&c->due) > 0 && !wf__graph_stopped(g) &&
        wf__cont_take_due(&c->due))
        return true;
    wf__cont_set_idle(&c->sig, bit);
    start_due(c, g);
    return false;
}

/* One round's body, then its output to the successors; out: the
 * runner's message (NULL for a signal, which has no data).  Inline: every
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

/* A round that a graph task's signal completed, run by that thread from
 * its own record (wf__own, kept for bypass) rather than by a runner: no
 * runner to take or to give back, so no round to look for after it
 * either (a runner that ends its body does that).  Only for a signal
 * output: the record has no room for a message. */
static void run_own(wf__gtask *t)
{
    cont_node *c = (cont_node *)t->node;
    wf_graph *g = t->graph;
    wf__own.busy = false;       /* c and g read: it may keep the next round */
    if (wf__graph_stopped(g)) { /* cancelled: the round stays due */
        wf__cont_make_due(&c->due);
        return;
    }
    round_body(c, g, NULL);
}

/* The round kept in wf__own goes to the pool instead (wf__own.adopt):
 * a runner of the node's takes it, or it is due, as a round that found
 * no runner idle. */
static void adopt_own(wf_node *n, wf_graph *g)
{
    round_due((cont_node *)n, g);
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

/* A runner starts holding one round (cont_put or start_due gave it). */
static void run(wf__gtask *t)
{
    runner *r = (runner *)t;
    cont_node *c = (cont_node *)t->node;
    wf_graph *g = t->graph; /* c's (see the note after threshold) */
    /* Relaxed: this runner was started, so `more` is made (see slot). */
    uint64_t bit = wf__cont_bit(
        r == &c->first ? 0 : (unsigned)(r - wf_load_relaxed(&c->more)) + 1);
    if (wf__graph_stopped(g)) { /* cancelled: the round stays due */
        wf__cont_make_due(&c->due);
        wf__cont_set_idle(&c->sig, bit);
        return;
    }
    for (int budget = RUNNER_BUDGET;; budget--) {
        round_body(c, g, r->arg);
        if (!next_round(c, bit, g))
            return;
        if (budget <= 1) { /* let other tasks in, holding the round */
            wf__spawn(g, r);
            return;
        }
    }
}

static void free_runners(cont_node *c, runner *more, unsigned n)
{
    const wf_allocator *mem = wf__node_mem(&c->base);
    for (unsigned i = 0; more && i < n; i++)
        wf__mem_free(mem, more[i].arg);
    wf__mem_free(mem, more);
}

/* Rounds overlap: make runners 1 .. n_slots - 1 (once), add them to the
 * idle set and give them the due rounds.  Out of line: once per node. */
static __attribute__((noinline, cold)) void add_runners(cont_node *c,
                                                        wf_graph *g)
{
    unsigned n = c->n_slots - 1;
    const wf_allocator *mem = wf__node_mem(&c->base);
    runner *more = wf__mem_calloc(mem, n, sizeof *more), *none = NULL;
    for (unsigned i = 0; more && i < n; i++) {
        more[i].run = run;
        more[i].node = &c->base;
        if (c->out.size &&
            (more[i].arg = wf__mem_alloc(mem, c->out.size)) == NULL) {
            free_runners(c, more, n);
            return; /* the rounds wait for runner 0 */
        }
    }
    /* Relaxed: the CAS only picks which of two makers installs its
     * records (the loser frees its own and reads nothing of the
     * winner's).  What publishes the records, and `more`, is
     * wf__cont_set_idle's release below: a thread uses record i only
     * after taking its idle bit with an acquiring CAS of sig, or as the
     * runner such a thread spawned (G9). */
    if (more == NULL || !wf_cas_relaxed(&c->more, &none, more)) {
        free_runners(c, more, n);
        return;
    }
    /* wf__cont_set_idle's release orders the records and the store of
     * `more` before the bits. */
    wf__cont_set_idle(&c->sig, wf__cont_bits(1, c->n_slots));
    start_due(c, g);
}

/* ---- node ops ------------------------------------------------------------ */

typedef struct signal_ctx {
    cont_node *c;
    wf_graph *g; /* c's (see the note after threshold) */
} signal_ctx;

/* How a round that a signal completes starts (wf__cont_start_fn): on
 * this thread, in wf__own, when it could keep a runner for bypass
 * anyway (and the output is a signal); else with a runner. */
static inline enum wf__cont_start round_start(void *ctx)
{
    signal_ctx *x = ctx;
    if (wf__graph_stopped(x->g))
        return WF__CONT_STOPPED;
    if (x->c->own_rounds && !wf__own.busy &&
        wf__can_bypass(x->g, wf__task_prio(x->g, &x->c->base)))
        return WF__CONT_OWN;
    return WF__CONT_RUNNER;
}

/* A signal through `in`, a continue node's input, of g (see
 * the note after threshold). */
WF__HOT_INLINE void cont_signal(wf__port *in, wf_graph *g)
{
    cont_node *c = (cont_node *)in->node;
    signal_ctx x = {c, g};
    int r = wf__cont_signal(&c->sig, threshold(c, in), round_start, &x);
    if (r > 0)
        start(c, (unsigned)r - 1, g);
    else if (r == WF__CONT_OWN_ROUND)
        keep_own(c, g);
    else if (r == WF__CONT_NO_RUNNER)
        round_due(c, g);
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
    unsigned runners = wf_load_relaxed(&c->more) ? c->n_slots : 1;
    wf_store_relaxed(&c->sig, wf__cont_bits(0, runners));
    wf_store_relaxed(&c->due, 0);
}

static size_t cont_held(wf_node *n)
{
    /* Relaxed: a snapshot, as the other kinds' held counts are. */
    return wf_load_relaxed(&((cont_node *)n)->due);
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

static void cont_destroy(wf_node *n)
{
    cont_node *c = (cont_node *)n;
    wf__mem_free(wf__node_mem(n), c->first.arg);
    /* Relaxed: the node is no longer used. */
    free_runners(c, wf_load_relaxed(&c->more), c->n_slots - 1);
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
    .destroy = cont_destroy,
};

static int make_slots(cont_node *c, unsigned n)
{
    c->n_slots = (unsigned short)n;
    c->first.run = run;
    c->first.node = &c->base; /* its priority and trace name */
    if (c->out.size && (c->first.arg = wf__mem_alloc(wf__node_mem(&c->base),
                                                     c->out.size)) == NULL)
        return WF_ENOMEM;
    /* Not shared yet: relaxed.  Runner 0 idle, nothing due, no others. */
    wf_store_relaxed(&c->more, NULL);
    wf_store_relaxed(&c->sig, wf__cont_bit(0));
    wf_store_relaxed(&c->due, 0);
    return 0;
}

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
    unsigned threads = wf_pool_threads(g->pool);
    threads = threads == 0 ? 1 : threads > MAX_SLOTS ? MAX_SLOTS : threads;
    if (make_slots(c, threads) != 0) {
        wf__node_free(n);
        return WF_ENOMEM;
    }
    wf__node_publish(n);
    *out = n;
    return 0;
}
