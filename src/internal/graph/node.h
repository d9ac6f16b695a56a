/* SPDX-License-Identifier: Apache-2.0 */
/* Nodes: a node kind's operation table, the node's record (its hot line,
 * its cold line, its extra block), the inline accessors every graph file
 * uses, and node.c's creation, common handler and wf_node_* calls.
 * Never installed. */
#ifndef WF_GRAPH_NODE_H
#define WF_GRAPH_NODE_H

#include "internal/graph/graph.h"
#include "internal/graph/port.h"

/* Room for a node's "kind#id" name (wf__node_label). */
#define WF__LABEL_MAX 48

typedef struct wf__node_ops {
    const char *kind;
    /* 0: the ports follow the kind's struct; else the offsets of its own
     * room for its inputs and its outputs, next to its hot fields. */
    size_t in_offset, out_offset;
    /* Ports of message size 0 (WF_SIGNAL) are allowed: the constructor
     * checked which of its ports may carry signals. */
    bool signals;
    /* get leaves the message in the node (overwrite, write_once): a pull
     * delivers it once and turns the edge back to push, or a receiver
     * in pull state would take the same value for ever. */
    bool keeps_on_get;
    /* A join or split node: where its struct keeps its tuple's element
     * offsets (size_t[], set before the node is published, then
     * read-only), for wf_tuple_get; 0 for other kinds.  The elements are
     * its ports on the other side: a join's inputs, a split's outputs
     * (tuple_in: the tuple is what it takes in). */
    size_t tuple_offsets;
    bool tuple_in;
    /* receiver side (input ports) */
    int (*put)(wf__port *in, const void *msg); /* WF__ACCEPT... or <0 */
    void (*pred_pull)(wf__port *in);           /* an in-edge became pull */
    /* sender side (output ports); NULL: not pullable / reservable */
    int (*get)(wf__port *out, void *msg);     /* 1 or 0 */
    int (*reserve)(wf__port *out, void *msg); /* 1 or 0 */
    int (*release)(wf__port *out);            /* 0 or WF_ENOENT */
    int (*consume)(wf__port *out);
    /* NULL, or consume and then reserve the next message into msg in one
     * step: 1 if it did, 0 if it only consumed, WF_ENOENT as consume. */
    int (*consume_next)(wf__port *out, void *msg);
    void (*succ_push)(
        wf__port *out); /* an out-edge became (or is new in) push */
    /* a new out-edge e; NULL: succ_push(out) (overwrite: offer e the value) */
    void (*new_succ)(wf__port *out, wf__edge *e);
    /* a composite: the inner port that port `index` stands for, or
     * WF_ENOPORT; `only`: the node's only port of that direction */
    int (*alias)(wf_node *n, bool input, unsigned index, bool only,
                 wf__port **port);
    /* DOT lines of its own after the node's (a composite's aliases) */
    void (*write_dot)(wf_node *n, FILE *f);
    /* inside the handler */
    void (*handle)(wf_node *n, wf__op *op); /* kind-specific ops */
    void (*reset)(wf_node *n);
    size_t (*held)(wf_node *n);
    /* Why the node is stuck, for debug mode (dot.c), or NULL: inside the
     * handler, as held. */
    const char *(*stuck)(wf_node *n);
    /* A node that counts signals towards a round (continue_node): how
     * many the round has so far, 0 when none, and of how many (*of).
     * Inside the handler, as held: debug mode reports a round that an
     * idle graph left part-way. */
    size_t (*round)(wf_node *n, size_t *of);
    /* outside, at destroy: free kind-specific memory */
    void (*destroy)(wf_node *n);
} wf__node_ops;

/* A node is one 64-byte-aligned block: wf_node and the kind's fields,
 * with the ports where the kind puts them (wf__node_ops.in_offset,
 * out_offset) or else after its fields, then its cold part
 * (wf__node_cold).  wf_node holds only what messages and bodies read, in
 * one cache line; a kind puts its own hot fields right after it, so a
 * message touches few lines of a node. */
struct wf_node {
    const wf__node_ops *ops;
    wf_graph *_Atomic graph; /* NULL once the graph is destroyed */
    wf__agg agg;
    /* Read by every spawn (graph.c). */
    _Atomic int priority; /* wf_node_set_priority    */
    uint16_t n_in, n_out; /* at most WF__MAX_PORTS each */
    unsigned cold_at;     /* wf__cold(n): this many bytes after n */
    unsigned id;          /* DOT node id, "kind#id"  */
    wf__port *in, *out;
};
_Static_assert(sizeof(struct wf_node) == 64, "wf_node is one cache line");

/* The most ports of one direction a node may have. */
#define WF__MAX_PORTS UINT16_MAX

/* p's index among its node's inputs or outputs: computed, not stored, so
 * that a port is half a line. */
static inline unsigned wf__port_index(const wf__port *p)
{
    return (unsigned)(p - (p->is_input ? p->node->in : p->node->out));
}

/* What only some nodes need (callbacks, counters, the trace's arrow, a
 * name): a block of its own, made the first time a node needs it
 * (wf__extra_make), so that a graph of many plain nodes does not carry
 * it on each. */
typedef struct wf__node_extra {
    void (*cancel_fn)(void *); /* under graph->topo        */
    void *cancel_ctx;
    void (*body_reset_fn)(void *); /* under graph->topo        */
    void *body_reset_ctx;
    /* Relaxed counters, bumped while the graph counts and shown by
     * wf_graph_write_dot; put = accepted + rejected. */
    _Atomic unsigned long n_accepted, n_rejected, n_forwarded;
    _Atomic uint64_t trace_flow; /* arrow to the next body   */
    char *name;      /* wf_node_set_name's copy; under graph->topo */
    bool debug_told; /* debug mode reported it stuck; under graph->topo */
    char auto_name
        [WF__LABEL_MAX]; /* "kind#id", wf_node_name's answer when unnamed */
} wf__node_extra;

/* What messages and bodies do not read (the node list, the memory), at
 * the end of the node's block: wf__cold(n). */
typedef struct wf__node_cold {
    wf__slabs *slabs;              /* the graph's; the node holds a reference */
    wf_node *next, *prev;          /* graph's node list, under graph->topo */
    wf__node_extra *_Atomic extra; /* NULL until needed (extra.c) */
} wf__node_cold;

static inline wf__node_cold *wf__cold(const wf_node *n)
{
    return (wf__node_cold *)((char *)n + n->cold_at);
}

/* n's extra block, made (zeroed) if it has none; NULL without memory.
 * Any thread, at any time. */
wf__node_extra *wf__extra_make(wf_node *n);

/* n's extra block if it has one, else NULL.  Acquire pairs with the
 * release CAS that installed it (extra.c): its fields are initialised
 * (G10). */
static inline wf__node_extra *wf__extra_if(const wf_node *n)
{
    return wf_load_acquire(&wf__cold(n)->extra); /* G10 */
}

/* The allocator of n's memory (mem.c). */
static inline const wf_allocator *wf__node_mem(const wf_node *n)
{
    return &wf__cold(n)->slabs->mem;
}

/* True when the node's graph is cancelled or gone: stop starting work.
 * Relaxed loads: the answer guards no data.  Stopping is a hint that
 * cancel and destroy only need eventually (a task that misses the flag
 * runs one more body, which cancel allows: bodies already started finish
 * anyway), and the node's state that a caller goes on to read is ordered
 * by its aggregator (G1), not by this flag.  A graph found non-NULL is
 * alive: destroy waits for every task and caller first. */
static inline bool wf__graph_stopped(const wf_graph *g)
{
    /* g: the node's graph, as a task of it already knows it
     * (wf__gtask.graph), without a load of the node's line. */
    return g == NULL || wf_load_relaxed(&((wf_graph *)g)->cancelled);
}

static inline bool wf__node_stopped(const wf_node *n)
{
    return wf__graph_stopped(wf_load_relaxed(&((wf_node *)n)->graph));
}

/* Does a message of n's graph need wf__count_offer / wf__count_pulled:
 * is the graph counting, or a trace recording?  With both off, the push
 * and pull paths pay these loads and one predictable branch.  Relaxed: a
 * message racing with wf_graph_set_counting may or may not be counted
 * (graph.h says so); a message put after the call returned, and every
 * task that carries it on, is ordered after the switch by program order
 * and the pool's hand-off of those tasks, so it sees the new value. */
static inline bool wf__graph_observed_in(const wf_graph *g, bool traced)
{
    /* g: the node's graph, as in wf__graph_stopped; traced: the caller's
     * wf__trace_enabled(), read once for a body and its messages. */
    return (g != NULL && wf_load_relaxed(&((wf_graph *)g)->counting) != 0) ||
           traced;
}

static inline bool wf__graph_observed(const wf_graph *g)
{
    return wf__graph_observed_in(g, wf__trace_enabled());
}

static inline bool wf__observed(const wf_node *n)
{
    return wf__graph_observed(wf_load_relaxed(&((wf_node *)n)->graph));
}
/* Common operation types; kind-specific ones start at WF__OP_KIND. */
enum { WF__OP_SET_EDGES = 1, WF__OP_RESET, WF__OP_HELD, WF__OP_KIND = 100 };

typedef struct wf__held_op {
    wf__op op;
    size_t held;
    const char *stuck;      /* ops->stuck's answer */
    size_t round, round_of; /* ops->round's answer */
} wf__held_op;

/* Port i of n: its inputs, then its outputs. */
static inline wf__port *wf__node_port(wf_node *n, unsigned i)
{
    return i < n->n_in ? &n->in[i] : &n->out[i - n->n_in];
}

/* The node's graph, NULL once the graph is destroyed.  Inline: every
 * body and spawn asks. */
static inline wf_graph *wf__node_graph(const wf_node *n)
{
    /* Relaxed: set before the node is handed out, cleared by
     * wf_graph_destroy with nothing behind it (G10). */
    return wf_load_relaxed(&((wf_node *)n)->graph);
}

/* n's name: the one it was given, else "kind#id" written into buf.
 * Inline, so that tracing and reports need no call into node.c. */
static inline const char *wf__node_label(const wf_node *n,
                                         char buf[WF__LABEL_MAX])
{
    const wf__node_extra *x = wf__extra_if(n);
    if (x != NULL && x->name != NULL)
        return x->name;
    snprintf(buf, WF__LABEL_MAX, "%s#%u", n->ops->kind, n->id);
    return buf;
}

/* Apply op through the node's aggregator (G1). */
void wf__node_exec(wf_node *n, wf__op *op);

/* Allocate a node of `size` bytes (the kind's struct, wf_node first) with
 * its ports, and add it to g.  in_sizes / out_sizes give each port's
 * message size.  Returns 0 or WF_ENOMEM / WF_EINVAL / WF_EDESTROYED. */
int wf__node_create(wf_node **out, wf_graph *g, size_t size,
                    const wf__node_ops *ops, unsigned n_in,
                    const size_t *in_sizes, unsigned n_out,
                    const size_t *out_sizes);
/* Free a node that was never shared (constructor failure paths). */
void wf__node_free(wf_node *n);
void wf__node_publish(wf_node *n); /* add to the graph's list */

/* The handler of a node kind that has no operations of its own. */
void wf__node_no_ops(wf_node *n, wf__op *op);
/* A split or indexer node's ports (tuple.c): a count out of range or a
 * size 0.  Sizes above WF_MAX_MSG_SIZE are wf__node_create's WF_ERANGE. */
bool wf__tuple_ports_bad(unsigned ports, const size_t *sizes);

/* What n holds and, for debug mode, why it is stuck (ops->stuck): read in
 * its aggregator, a consistent snapshot. */
wf__held_op wf__node_held(wf_node *n);

#endif /* WF_GRAPH_NODE_H */
