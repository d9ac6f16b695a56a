/* SPDX-License-Identifier: Apache-2.0 */
/* The flow graph's data model: the graph, nodes, ports, edges, node
 * kinds' operation tables, and the inline accessors every graph file uses.
 * Never installed.
 *
 * The rules every graph file follows (docs/graph.md explains them for
 * users):
 *
 * G1  A node's state (buffers, counters, busy flags, edge lists) changes
 *     only inside its aggregator's handler (aggregator.c).  One exception:
 *     continue_node's signal count and due rounds are atomics changed by
 *     CAS (continue.c says why and how); its edge lists still follow G1.
 * G2  A handler never calls another node, a user function or the pool: it
 *     changes local state and tells its caller what to do next ("start the
 *     forwarder", "spawn a runner").  No thread therefore ever waits for a
 *     node while it is applying another node's operations, so aggregators
 *     cannot deadlock however the edges loop.
 * G3  Each edge has an atomic state, push or pull.  The sender turns it to
 *     pull after a rejected push and then tells the receiver (pred_pull);
 *     the receiver turns it back to push after a failed pull and then tells
 *     the sender (succ_push).  The notification is an aggregator operation,
 *     which orders the state change for the other side (the relaxed state
 *     accesses rely on that), and it always follows the change, so neither
 *     side can miss that the other changed its mind.  Two hints rely on it
 *     too, each set by its notification and cleared by a scan that finds
 *     no edge in that state: a function node's pull_edges (function.c)
 *     and an output port's push_hint (wf__port).
 * G4  At most one thread forwards a node's held messages at a time (its
 *     fwd_busy flag, or fire_busy for a reserving join); a request that
 *     finds it busy sets `again` and the forwarder looks once more before
 *     it stops.  One exception: a message that finds a buffering node
 *     empty and idle (its store `quiet`, store.c) is offered by the thread
 *     that put it, without entering the node, and enters it only if no
 *     successor took it.  Several threads may do so at once; their puts
 *     overlap, so no order between their messages was promised, and a
 *     message that waits in the node turns `quiet` off for every put that
 *     starts after it was accepted.
 * G5  The graph counts tasks in flight (pending), and puts from outside
 *     its tasks while they run; a task that starts new work counts it
 *     before it stops counting itself.  A task it bypasses to (graph.c)
 *     runs under the same count, so it is counted throughout. */
#ifndef WF_GRAPH_TYPES_H
#define WF_GRAPH_TYPES_H

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "internal/atomic.h"
#include "internal/graph/agg.h"
#include "internal/graph/mem.h"
#include "internal/trace.h"
#include "internal/util.h"
#include "weft/graph.h"

/* A handler or step on every message's path, inlined into each caller
 * (the direct path of an aggregator op, wf__agg_try_enter), so a message
 * pays no call frame per level.  Direct calls only: GCC cannot honour it
 * through a function pointer at -O0/-O1. */
#define WF__HOT_INLINE static inline __attribute__((always_inline))

/* Room for a node's "kind#id" name (wf__node_label). */
#define WF__LABEL_MAX 48

/* ---- the graph ---------------------------------------------------------- */

typedef struct wf__gtask wf__gtask;

struct wf_graph {
    wf_pool *pool;
    wf_allocator mem; /* wf_graph_config.alloc, or malloc's  */
    wf__slabs *slabs; /* nodes, edges and edge lists (mem.c)  */
    _Atomic int cancelled;
    _Atomic int counting;      /* wf_graph_set_counting: DOT counts on  */
    _Atomic int error;         /* first negative code from a body     */
    pthread_mutex_t idle_lock; /* the 1 -> 0 step of pending, waits */
    pthread_cond_t idle;
    pthread_mutex_t topo; /* node list, edge edits, names, DOT   */
    wf_node *nodes;       /* doubly linked, under topo           */
    unsigned next_id;
    /* runtime (graph.c): errors, priorities */
    wf_node *_Atomic failed;   /* node whose body failed first      */
    _Atomic long prio_count;   /* entries in prio_list (a hint)     */
    pthread_mutex_t prio_lock; /* prio_list, free_drainers        */
    wf__gtask *prio_list;      /* ready tasks of priority > 0, highest first */
    wf__gtask *free_drainers;  /* idle drainer records           */
    wf__gtask *drainers;       /* one per pool thread                 */
    /* Tasks in flight (G5).  Every hold and release writes it: padded
     * off the fields that every body reads (cancelled, prio_count), so
     * that workers do not steal that line from each other. */
    char pad_before_[WF_CACHE_LINE];
    _Atomic long pending;
    char pad_after_[WF_CACHE_LINE - sizeof(long)];
};

/* A pool task owned by a node (a runner, a forwarder).  The pool may run
 * `run` once per wf__spawn; the task is not touched after `run` starts
 * returning, so run may hand the record to the next spawn (G4). */
struct wf__gtask {
    wf_task task; /* first: the pool sees this */
    wf_graph *graph;
    void (*run)(struct wf__gtask *t);
    void *arg;
    /* The node the task works for: its priority and its name in traces.
     * NULL (the default): priority 0, traced as "graph task".  A node
     * kind whose tasks run bodies sets it when it creates the record. */
    wf_node *node;
    wf__gtask *prio_next; /* graph.c: the priority list, or free drainers */
    int prio;             /* graph.c: priority when it was listed */
};

/* ---- edges, ports, nodes ------------------------------------------------- */

enum { WF__PUSH = 0, WF__PULL = 1 };

typedef struct wf__port wf__port;

typedef struct wf__edge {
    wf__port *from, *to;
    _Atomic int state; /* WF__PUSH or WF__PULL (G3) */
    struct wf__edge *retired;
} wf__edge;

/* A port's edge list: slots appended in place, each an edge and its
 * far end (e->to for an out-list, e->from for an in-list), so that a
 * sender signalling continue nodes reads the list's line and the
 * receivers', not one line per edge record.  Only the port's node, in its
 * aggregator (G1), appends a slot (then publishes n with a release store)
 * or removes an edge, by clearing its slot's `e` for good: a reader that
 * walks slots 0 .. n - 1 outside the aggregator sees each slot either
 * live or removed, never another edge in it.  A slot's far end never
 * changes.  An append that finds the block full publishes a new one that
 * holds the live slots, and the old one is kept until the node is
 * destroyed, for readers still walking it (wf__edges_count / _at). */
typedef struct wf__edge_slot {
    struct wf__edge *_Atomic e; /* NULL once removed */
    wf__port *far;
} wf__edge_slot;

typedef struct wf__edges {
    _Atomic unsigned n; /* slots used, live or removed */
    unsigned cap;
    struct wf__edges *retired;
    wf__edge_slot s[];
} wf__edges;

/* The slots of l a reader may walk: 0 .. count - 1 (0 for no list).
 * Acquire pairs with the release store of n in set_edges (edge.c): the
 * slots below it are filled. */
static inline unsigned wf__edges_count(wf__edges *l)
{
    return l ? wf_load_acquire(&l->n) : 0;
}

/* Slot i's edge, or NULL once removed.  Relaxed: the edge was published
 * with n (wf__edges_count); a removal read late costs one use of an edge
 * that is kept until its sender is destroyed. */
static inline struct wf__edge *wf__edges_at(wf__edges *l, unsigned i)
{
    return wf_load_relaxed(&l->s[i].e);
}

struct wf__port {
    /* First what a signal reads from a continue node's input (node,
     * n_edges, cont_input) and a sender from its output (edges). */
    wf_node *node;
    wf__edges *_Atomic edges; /* successors / predecessors; NULL = none */
    /* Live edges, published after each edit (SET_EDGES): a continue node
     * reads its threshold from its own port, one line fewer per signal. */
    _Atomic unsigned n_edges;
    bool is_input;
    /* Output ports: an out-edge may be in push state.  Changed only in the
     * node's aggregator (G1): set by each new edge list (SET_EDGES) and
     * each succ_push op (which follows every turn back to push, G3), and
     * by reset; cleared by wf__store_should_start when it finds none, so
     * a store whose successors all pull (a reserving join) does not scan
     * its edges on every op. */
    bool push_hint;
    /* A continue node's input: its senders signal it with a direct call
     * (continue.c), found from the port alone, without the node's line. */
    bool cont_input;
    size_t size; /* message size */
};

/* What put answers. */
enum { WF__REJECT = 0, WF__ACCEPT = 1, WF__REJECT_PULL = 2 };

/* Who holds a sender's reservation: a receiver that pulled (reserve), or
 * the sender's own forwarder, which lends itself the message it offers. */
enum { WF__RES_PULLER = 1, WF__RES_FWD = 2 };

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

/* A node is one 64-byte-aligned block: its cold part (wf__node_cold),
 * then wf_node and the kind's fields, with the ports where the kind puts them
 * (wf__node_ops.in_offset, out_offset) or else after its fields.  wf_node holds
 * only what messages and bodies read, in one cache line; a kind puts its own
 * hot fields right after it, so a message touches few lines of a node. */
struct wf_node {
    const wf__node_ops *ops;
    wf_graph *_Atomic graph; /* NULL once the graph is destroyed */
    wf__agg agg;
    /* Read by every spawn (graph.c). */
    _Atomic int priority; /* wf_node_set_priority    */
    unsigned n_in, n_out;
    wf__port *in, *out;
} __attribute__((aligned(64)));

/* p's index among its node's inputs or outputs: computed, not stored, so
 * that a port is half a line. */
static inline unsigned wf__port_index(const wf__port *p)
{
    return (unsigned)(p - (p->is_input ? p->node->in : p->node->out));
}

/* What only some nodes need (callbacks, counters, the trace's arrow, the
 * "kind#id" name): a block of its own, made the first
 * time a node needs it (wf__extra_make), so that a graph of many plain
 * nodes does not carry it on each. */
typedef struct wf__node_extra {
    void (*cancel_fn)(void *); /* under graph->topo        */
    void *cancel_ctx;
    void (*body_reset_fn)(void *); /* under graph->topo        */
    void *body_reset_ctx;
    /* Relaxed counters, bumped while the graph counts and shown by
     * wf_graph_write_dot; put = accepted + rejected. */
    _Atomic unsigned long n_accepted, n_rejected, n_forwarded;
    _Atomic uint64_t trace_flow; /* arrow to the next body   */
    bool debug_told; /* debug mode reported it stuck; under graph->topo */
    char auto_name
        [WF__LABEL_MAX]; /* "kind#id", wf_node_name's answer when unnamed */
} wf__node_extra;

/* What messages and bodies do not read (names, lists, DOT): the line
 * just before the node, wf__cold(n). */
typedef struct wf__node_cold {
    wf__slabs *slabs;     /* the graph's; the node holds a reference */
    unsigned block_size;  /* of the node's block, for wf__slab_free */
    unsigned id;          /* DOT node id */
    char *name;           /* under graph->topo */
    wf_node *next, *prev; /* graph's node list, under graph->topo */
    wf__edges *retired_lists;
    wf__edge *retired_edges;
    wf__node_extra *_Atomic extra; /* NULL until needed (extra.c) */
} __attribute__((aligned(64))) wf__node_cold;

static inline wf__node_cold *wf__cold(const wf_node *n)
{
    return (wf__node_cold *)n - 1;
}

/* n's extra block, made (zeroed) if it has none; NULL without memory.
 * Any thread, at any time. */
wf__node_extra *wf__extra_make(wf_node *n);

/* n's extra block if it has one, else NULL.  Acquire pairs with the
 * release CAS that installed it (extra.c): its fields are initialised. */
static inline wf__node_extra *wf__extra_if(const wf_node *n)
{
    return wf_load_acquire(&wf__cold(n)->extra);
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
static inline bool wf__node_stopped(const wf_node *n)
{
    wf_graph *g = wf_load_relaxed(&((wf_node *)n)->graph);
    return g == NULL || wf_load_relaxed(&g->cancelled);
}

/* Does a message of n's graph need wf__count_offer / wf__count_pulled:
 * is the graph counting, or a trace recording?  With both off, the push
 * and pull paths pay these loads and one predictable branch.  Relaxed: a
 * message racing with wf_graph_set_counting may or may not be counted
 * (graph.h says so); a message put after the call returned, and every
 * task that carries it on, is ordered after the switch by program order
 * and the pool's hand-off of those tasks, so it sees the new value. */
static inline bool wf__observed(const wf_node *n)
{
    wf_graph *g = wf_load_relaxed(&((wf_node *)n)->graph);
    return (g != NULL && wf_load_relaxed(&g->counting) != 0) ||
           wf__trace_enabled();
}

/* Common operation types; kind-specific ones start at WF__OP_KIND. */
enum { WF__OP_SET_EDGES = 1, WF__OP_RESET, WF__OP_HELD, WF__OP_KIND = 100 };

/* An edit of a port's edge list (edge.c), applied by its node (G1). */
typedef struct wf__edges_op {
    wf__op op;
    wf__port *port;
    wf__edge *add; /* append this edge; else clear slot `remove` */
    unsigned remove;
    wf__edges *list; /* non-NULL: the live slots in a larger block, first */
} wf__edges_op;

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
    /* Acquire pairs with the release store in wf_graph_destroy. */
    return wf_load_acquire(&((wf_node *)n)->graph);
}

/* n's name: the one it was given, else "kind#id" written into buf.
 * Inline, so that tracing and reports need no call into node.c. */
static inline const char *wf__node_label(const wf_node *n,
                                         char buf[WF__LABEL_MAX])
{
    const wf__node_cold *c = wf__cold(n);
    if (c->name)
        return c->name;
    snprintf(buf, WF__LABEL_MAX, "%s#%u", n->ops->kind, c->id);
    return buf;
}

#endif /* WF_GRAPH_TYPES_H */
