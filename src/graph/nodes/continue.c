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
 * A signal is one CAS on the count, not an aggregator operation: the
 * count is the node's only state a signal changes, and the threshold is
 * read from the published edge list.  This departs from G1 on purpose (a
 * wavefront of continue nodes is nothing but signals); the node still
 * handles SET_EDGES / RESET / HELD through its aggregator.
 *
 * Due bodies are a counter, not a queue (a round carries no data).  They
 * run in runners, one record per body that could run at once (the pool's
 * thread count, at most 32).  The first runner lives in the node: a node
 * whose rounds never overlap (a wavefront cell) uses only it, and has no
 * more lines to miss with many pool threads than with one.  The others are
 * made the first time a round completes while every runner is busy (that
 * round waits, counted due, for the first runner that is free; without
 * memory the rounds keep waiting so); no other round allocates.  The due
 * count and the set of idle runners share one atomic word (`work`), so
 * that a completed round either finds an idle runner and starts it
 * holding that round, or is counted as due, in one CAS; and a runner that
 * ends a body either takes a due round or goes idle, in one CAS.  No round
 * is left due with every runner idle. */
#include <stddef.h>

#include "internal/graph/edge.h"
#include "internal/graph/mem.h"
#include "internal/graph/node.h"
#include "internal/graph/runtime.h"

/* A runner is a graph task: its node is the cont_node, its arg the
 * body's output (NULL for a signal), on the line spawn and run read. */
typedef wf__gtask runner;

#define MAX_SLOTS 32
#define DUE_ONE ((uint64_t)1 << 32) /* work: due rounds above bit 32 */
#define IDLE_MASK (DUE_ONE - 1)     /* work: idle runners, a bit each */

/* Laid out by use (internal/graph/node.h): a signal reads the base line
 * and the next one (its port, count, work, outside); a body run the line after
 * (body, ctx, the output port's edges) and the first runner's, which
 * follows without padding: the node's block is a slab class smaller. */
typedef struct cont_node {
    wf_node base;
    wf__port in;           /* its input port (cont_ops.in_offset) */
    _Atomic size_t count;  /* signals in this round */
    _Atomic uint64_t work; /* due rounds << 32 | idle runners' bits */
    unsigned outside;      /* cfg->predecessors: signals not from edges */
    unsigned n_slots;      /* runners it may have */
    wf_continue_fn body;
    void *ctx;
    wf__port out;         /* its output port */
    runner *_Atomic more; /* slots 1 .. n_slots - 1 once made (add_runners) */
    runner first;         /* slot 0; its bit is 1 */
} cont_node;

/* Slot i of c, for i > 0 only after its idle bit was seen in `work`.
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
    /* Acquire pairs with the release store of n_edges in set_edges
     * (SET_EDGES); a signal racing with an edge edit counts against the
     * threshold before or after it, as it would under a lock (G7). */
    return (size_t)wf_load_acquire(&in->n_edges) + c->outside;
}

/* ---- runners ------------------------------------------------------------- */

static inline int cont_put(wf__port *in, const void *msg);

/* Offer a body's output along the out-edges in push state, as
 * wf__push_broadcast does, but signal a continue_node successor with a
 * direct cont_put: it always accepts, so offer's rejection handling (G3)
 * has nothing to do.  That is the whole path of a wavefront cell.  When
 * the graph counts or a trace records (for one node, then for all of its
 * graph), everything goes through wf__push_broadcast. */
static void broadcast(cont_node *c, const void *msg)
{
    wf__port *out = &c->out;
    if (wf__observed(&c->base)) {
        wf__push_broadcast(out, msg);
        return;
    }
    /* Acquire pairs with the release store of the list in set_edges
     * (G7). */
    wf__edges *l = wf_load_acquire(&out->edges);
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
            cont_put(to, msg);
            continue;
        }
        /* Relaxed: as in wf__push_broadcast (a stale state costs one
         * rejected offer; G3 notifies every change). */
        if (wf_load_relaxed(&e->state) == WF__PUSH)
            wf__push_edge(e, msg);
    }
}

/* A runner ended its round(s): take a due one (true) or go idle. */
static bool next_round(cont_node *c, uint64_t bit, bool may_take)
{
    /* Relaxed first read: the CAS checks it. */
    uint64_t w = wf_load_relaxed(&c->work), nw;
    bool take;
    do {
        take = may_take && w >= DUE_ONE && !wf__node_stopped(&c->base);
        nw = take ? w - DUE_ONE : w | bit;
        /* Acq_rel: taking a round acquires what its signals released (the
         * predecessors' bodies, through the count's CAS chain and the
         * firer's CAS here); going idle releases this runner's body to
         * whoever starts it next (G9). */
    } while (!wf_cas_acqrel(&c->work, &w, nw));
    return take;
}

/* A runner starts holding one round (fire gave it one). */
static void run(wf__gtask *t)
{
    runner *r = (runner *)t;
    cont_node *c = (cont_node *)t->node;
    /* Relaxed: this runner was started, so `more` is made (see slot). */
    uint64_t bit =
        r == &c->first ? 1 : (uint64_t)2 << (r - wf_load_relaxed(&c->more));
    if (wf__node_stopped(&c->base)) { /* cancelled: the round stays due */
        uint64_t w = wf_load_relaxed(&c->work); /* the CAS checks it */
        /* Acq_rel, as in next_round; retried until no one else moved
         * (G9). */
        while (!wf_cas_acqrel(&c->work, &w, (w + DUE_ONE) | bit))
            continue;
        return;
    }
    for (int budget = RUNNER_BUDGET;; budget--) {
        wf__body_begin(&c->base);
        int rc = c->body(r->arg, c->ctx);
        wf__body_end(&c->base, rc);
        if (rc == 0) /* r->arg is NULL for a signal, which has no data */
            broadcast(c, r->arg);
        if (!next_round(c, bit, true))
            return;
        if (budget <= 1) { /* let other tasks in, holding the round */
            wf__spawn(wf__node_graph(&c->base), r);
            return;
        }
    }
}

static void add_runners(cont_node *c);

/* Start an idle runner with a round: a new round (due false: with no idle
 * runner it is counted due) or one already due.  True if one started. */
static inline bool fire(cont_node *c, bool due)
{
    /* Relaxed first read: the CAS checks it. */
    uint64_t w = wf_load_relaxed(&c->work), nw;
    uint64_t idle;
    do {
        idle = wf__node_stopped(&c->base) ? 0 : w & IDLE_MASK;
        if (due && (w < DUE_ONE || idle == 0))
            return false;
        if (idle) /* the lowest idle runner */
            nw = (due ? w - DUE_ONE : w) & ~(idle & -idle);
        else
            nw = w + DUE_ONE;
        /* Acq_rel: see next_round (G9). */
    } while (!wf_cas_acqrel(&c->work, &w, nw));
    if (idle) {
        wf__spawn(wf__node_graph(&c->base),
                  slot(c, (unsigned)__builtin_ctzll(idle)));
        return true;
    }
    /* Relaxed: a hint; add_runners decides with its CAS. */
    if (c->n_slots > 1 && wf_load_relaxed(&c->more) == NULL)
        add_runners(c);
    return false;
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
static __attribute__((noinline, cold)) void add_runners(cont_node *c)
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
    /* Acq_rel: the release publishes the records' fields to whoever
     * loads `more` after seeing their idle bits (below); the loser of two
     * makers frees its own (G9). */
    if (more == NULL || !wf_cas_acqrel(&c->more, &none, more)) {
        free_runners(c, more, n);
        return;
    }
    uint64_t bits = (((uint64_t)1 << c->n_slots) - 1) & ~(uint64_t)1;
    uint64_t w = wf_load_relaxed(&c->work); /* the CAS checks it */
    /* Acq_rel: the release orders the store of `more` before the bits;
     * see next_round for the rest (G9). */
    while (!wf_cas_acqrel(&c->work, &w, w | bits))
        continue;
    while (fire(c, true))
        continue;
}

/* ---- node ops ------------------------------------------------------------ */

static inline int cont_put(wf__port *in, const void *msg)
{
    (void)msg; /* a signal: nothing to copy */
    cont_node *c = (cont_node *)in->node;
    size_t t = threshold(c, in);
    /* Relaxed first read: the CAS checks it. */
    size_t n = wf_load_relaxed(&c->count), next;
    do {
        next = n + 1 >= t ? 0 : n + 1;
        /* Acq_rel: the signal that completes a round acquires the earlier
         * signals' releases (their senders' bodies), and fire passes them
         * on to the body (G9). */
    } while (!wf_cas_acqrel(&c->count, &n, next));
    if (next == 0)
        fire(c, false);
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
    wf_store_relaxed(&c->count, 0);
    wf_store_relaxed(&c->work, wf_load_relaxed(&c->more)
                                   ? ((uint64_t)1 << c->n_slots) - 1
                                   : 1);
}

static size_t cont_held(wf_node *n)
{
    /* Relaxed: a snapshot, as the other kinds' held counts are. */
    return (size_t)(wf_load_relaxed(&((cont_node *)n)->work) / DUE_ONE);
}

/* The signals of the round under way (debug mode's report, graph.c).
 * Relaxed: asked of an idle graph, whose last signal happened before the
 * wait that asks (G5). */
static size_t cont_round(wf_node *n, size_t *of)
{
    cont_node *c = (cont_node *)n;
    *of = threshold(c, &c->in);
    return wf_load_relaxed(&c->count);
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
    c->n_slots = n;
    c->first.run = run;
    c->first.node = &c->base; /* its priority and trace name */
    if (c->out.size && (c->first.arg = wf__mem_alloc(wf__node_mem(&c->base),
                                                     c->out.size)) == NULL)
        return WF_ENOMEM;
    /* Not shared yet: relaxed.  Runner 0 idle, nothing due, no others. */
    wf_store_relaxed(&c->more, NULL);
    wf_store_relaxed(&c->work, 1);
    return 0;
}

int wf_continue_node_create(wf_node **out, wf_graph *g,
                            const wf_continue_config *cfg)
{
    if (out == NULL || cfg == NULL || cfg->body == NULL)
        return WF_EINVAL;
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
