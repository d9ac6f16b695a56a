/* Private structures of the flow graph.  Never installed.
 *
 * The rules every file here follows (docs/graph.md explains them for users):
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
#ifndef WF_GRAPH_IMPL_H
#define WF_GRAPH_IMPL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal/atomic.h"
#include "internal/trace.h"
#include "internal/util.h"
#include "weft/graph.h"


/* A handler or step on every message's path, inlined into each caller
 * (the direct path of an aggregator op, wf__agg_try_enter), so a message
 * pays no call frame per level.  Direct calls only: GCC cannot honour it
 * through a function pointer at -O0/-O1. */
#define WF__HOT_INLINE static inline __attribute__((always_inline))

/* ---- memory (mem.c) ---------------------------------------------------- */

/* Every block of a graph and its nodes comes from the graph's allocator
 * (wf_graph_config.alloc, copied into the graph and into each node, which
 * may outlive it).  Like malloc, calloc and free; the size is remembered,
 * as wf_allocator's free needs it.  NULL on no memory or a size that
 * overflows. */
void *wf__mem_alloc(const wf_allocator *a, size_t size);
void *wf__mem_alloc_aligned(const wf_allocator *a, size_t size, size_t align);
void *wf__mem_calloc(const wf_allocator *a, size_t n, size_t size);
void wf__mem_free(const wf_allocator *a, void *p);

/* ---- aggregator (aggregator.c) ---------------------------------------- */

typedef struct wf__op wf__op;
typedef void (*wf__agg_handler)(void *self, wf__op *op);

/* An operation record, embedded first in each node's op structs; lives on
 * the caller's stack until its status says done. */
struct wf__op {
    wf__op *next;
    _Atomic int status; /* 0 queued, 1 done */
    int type;
    /* Set when queued: the handler the batch applies it with (a caller may
     * pass one of its own that knows only its op's type). */
    wf__agg_handler handler;
};

typedef struct wf__agg {
    wf__op *_Atomic mailbox; /* Treiber stack of queued operations */
    _Atomic int busy;        /* held by the thread applying ops    */
} wf__agg;

/* The queued path of wf__agg_execute (aggregator.c). */
void wf__agg_execute_queued(wf__agg *a, wf__op *op, wf__agg_handler h,
                            void *self);

/* The direct path of wf__agg_execute: take the free node, or false (the
 * caller queues its op with wf__agg_execute_queued).  Relaxed mailbox
 * load: only a hint that no handler is waiting (aggregator.c); the busy
 * CAS alone gives mutual exclusion and the order.  The CAS's acquire
 * pairs with the release store of busy by the previous holder (its
 * changes to the node are visible).  The relaxed busy pre-load only
 * avoids a locked instruction that would fail. */
static inline bool wf__agg_try_enter(wf__agg *a)
{
    int free_ = 0;
    return wf_load_relaxed(&a->mailbox) == NULL &&
           wf_load_relaxed(&a->busy) == 0 && wf_cas_acqrel(&a->busy, &free_, 1);
}

/* Leave a node entered with wf__agg_try_enter.  Release pairs with the
 * next holder's CAS. */
static inline void wf__agg_leave(wf__agg *a)
{
    wf_store_release(&a->busy, 0);
}

/* Apply op with h(self, op) and return once it has been applied, by this
 * thread or by the one that holds the aggregator.  Inline: a caller that
 * finds the node free (the common case) calls its handler directly, which
 * gcc -O2 inlines when h is a constant static inline function
 * (function.c's put and take; not always_inline, which a call through a
 * pointer cannot honour at -O1).  A caller whose handler must fold a
 * constant op type writes the two steps itself (store.c, typed_call). */
static inline void wf__agg_execute(wf__agg *a, wf__op *op, wf__agg_handler h,
                                   void *self)
{
    if (wf__agg_try_enter(a)) {
        h(self, op);
        wf__agg_leave(a);
        return;
    }
    wf__agg_execute_queued(a, op, h, self);
}

/* ---- graph (graph.c) --------------------------------------------------- */

typedef struct wf__gtask wf__gtask;

struct wf_graph {
    wf_pool *pool;
    wf_allocator mem;      /* wf_graph_config.alloc, or malloc's  */
    _Atomic int cancelled;
    _Atomic int counting;  /* wf_graph_set_counting: DOT counts on  */
    _Atomic int error;     /* first negative code from a body     */
    pthread_mutex_t idle_lock; /* the 1 -> 0 step of pending, waits */
    pthread_cond_t idle;
    pthread_mutex_t topo;  /* node list, edge edits, names, DOT   */
    wf_node *nodes;        /* doubly linked, under topo           */
    unsigned next_id;
    /* runtime (graph.c): errors, priorities */
    wf_node *_Atomic failed; /* node whose body failed first      */
    _Atomic long prio_count; /* entries in prio_list (a hint)     */
    pthread_mutex_t prio_lock; /* prio_list, free_drainers        */
    wf__gtask *prio_list;  /* ready tasks of priority > 0, highest first */
    wf__gtask *free_drainers; /* idle drainer records           */
    wf__gtask *drainers;   /* one per pool thread                 */
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

void wf__spawn(wf_graph *g, wf__gtask *t);
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
void wf__body_begin(wf_node *n);
void wf__body_end(wf_node *n, int result);
/* A message offered by `from` (NULL: a caller outside the graph) to `to`
 * got the answer r (WF__ACCEPT, a rejection, or an error); pulled: a
 * receiver took one from `from` with a pull.  The DOT counters (when the
 * graph counts) and the trace's flow arrows (when tracing): edge.c calls
 * them on the push and pull paths, only when wf__observed(to or from). */
void wf__count_offer(wf_node *from, wf_node *to, int r);
void wf__count_pulled(wf_node *from);

/* ---- tracing (trace.c; the recorder: internal/trace.h) ----------------- */

/* Begin ('B', named after n, NULL: "graph task") or end ('E') a span on
 * this thread's track. */
void wf__trace_span(char ph, char cat, const wf_node *n);
/* A body span of n, ending the flow arrow of a message n took. */
void wf__trace_body_begin(wf_node *n);
/* The start of a flow arrow from this thread's current span to the next
 * body of `to`. */
void wf__trace_message(wf_node *to);

/* Debug mode (dot.c): wait_for_all returned 0 and the graph is idle; say
 * which nodes hold messages they cannot pass on, or are stuck otherwise
 * (an input node never activated), once per node. */
void wf__graph_debug_idle(wf_graph *g);

/* Is this thread running a task of g?  (Waiting for g would deadlock.) */
bool wf__graph_running_here(const wf_graph *g);

/* ---- edges, ports, nodes (edge.c, node.c) ------------------------------ */

enum { WF__PUSH = 0, WF__PULL = 1 };

typedef struct wf__port wf__port;

typedef struct wf__edge {
    wf__port *from, *to;
    _Atomic int state; /* WF__PUSH or WF__PULL (G3) */
    struct wf__edge *retired;
} wf__edge;

/* An edge list is immutable once published; an edit publishes a copy and
 * keeps the old one until the node is destroyed, so a forwarder may walk
 * a list it loaded without holding anything.  After e[0 .. n-1] it holds
 * each edge's other end, wf__edges_far(l)[i] (e[i]->to for an out-list,
 * e[i]->from for an in-list): a sender signalling continue nodes reads
 * the list's line and the receivers', not one line per edge record. */
typedef struct wf__edges {
    size_t n;
    struct wf__edges *retired;
    wf__edge *e[];
} wf__edges;

static inline wf__port **wf__edges_far(wf__edges *l)
{
    return (wf__port **)&l->e[l->n];
}

struct wf__port {
    /* First what a signal reads from a continue node's input (node,
     * n_edges, cont_input) and a sender from its output (edges). */
    wf_node *node;
    wf__edges *_Atomic edges; /* successors / predecessors; NULL = none */
    /* edges->n, published after each list (SET_EDGES): a continue node
     * reads its threshold from its own port, one line fewer per signal. */
    _Atomic size_t n_edges;
    size_t size;              /* message size */
    unsigned index;
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
    /* Blocks kept for removing edges without memory (edge.c, spare_push);
     * under graph->topo. */
    struct wf__edges *spares;
};

/* What put answers. */
enum { WF__REJECT = 0, WF__ACCEPT = 1, WF__REJECT_PULL = 2 };

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
    void (*succ_push)(wf__port *out); /* an out-edge became (or is new in) push */
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
    /* outside, at destroy: free kind-specific memory */
    void (*destroy)(wf_node *n);
} wf__node_ops;

/* A node is one 64-byte-aligned block: its cold part (wf__node_cold),
 * then wf_node and the kind's fields, with the ports where the kind puts
 * them (wf__node_ops.in_offset, out_offset) or else after its fields.  wf_node holds only what messages and
 * bodies read, in one cache line; a kind puts its own hot fields right
 * after it, so a message touches few lines of a node. */
struct wf_node {
    const wf__node_ops *ops;
    wf_graph *_Atomic graph; /* NULL once the graph is destroyed */
    wf__agg agg;
    /* Read by every spawn (graph.c). */
    _Atomic int priority;              /* wf_node_set_priority    */
    unsigned n_in, n_out;
    wf__port *in, *out;
} __attribute__((aligned(64)));

/* What messages and bodies do not read (names, lists, DOT, callbacks,
 * counters, trace): the block just before the node, wf__cold(n). */
typedef struct wf__node_cold {
    wf_allocator mem; /* the graph's: for the node's memory (mem.c) */
    char *name;      /* under graph->topo */
    unsigned id;     /* DOT node id */
    char auto_name[32]; /* "kind#id", the name when it has none */
    wf_node *next, *prev; /* graph's node list, under graph->topo */
    wf__edges *retired_lists;
    wf__edge *retired_edges;
    /* runtime (graph.c): callbacks, counters, trace */
    void (*cancel_fn)(void *);         /* under graph->topo        */
    void *cancel_ctx;
    void (*body_reset_fn)(void *);     /* under graph->topo        */
    void *body_reset_ctx;
    /* Relaxed counters, bumped while the graph counts and shown by
     * wf_graph_write_dot; put = accepted + rejected. */
    _Atomic unsigned long n_accepted, n_rejected, n_forwarded;
    _Atomic uint64_t trace_flow;       /* arrow to the next body   */
    /* A join or split node: its tuple's element offsets (set before the
     * node is published, then read-only), for wf_tuple_get. */
    const size_t *tuple_offset;
    unsigned tuple_count;
    bool debug_told; /* debug mode reported it stuck; under graph->topo */
} __attribute__((aligned(64))) wf__node_cold;

static inline wf__node_cold *wf__cold(const wf_node *n)
{
    return (wf__node_cold *)n - 1;
}

/* The allocator of n's memory (mem.c). */
static inline const wf_allocator *wf__node_mem(const wf_node *n)
{
    return &wf__cold(n)->mem;
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
enum {
    WF__OP_SET_EDGES = 1,
    WF__OP_RESET,
    WF__OP_HELD,
    WF__OP_KIND = 100
};

typedef struct wf__edges_op {
    wf__op op;
    wf__port *port;
    wf__edges *list; /* the new list; the old one is retired */
} wf__edges_op;

typedef struct wf__held_op {
    wf__op op;
    size_t held;
    const char *stuck; /* ops->stuck's answer */
} wf__held_op;

/* Apply op through the node's aggregator (G1). */
void wf__node_exec(wf_node *n, wf__op *op);

/* Allocate a node of `size` bytes (the kind's struct, wf_node first) with
 * its ports, and add it to g.  in_sizes / out_sizes give each port's
 * message size.  Returns 0 or WF_ENOMEM / WF_EINVAL / WF_EDESTROYED. */
int wf__node_create(wf_node **out, wf_graph *g, size_t size,
                    const wf__node_ops *ops, unsigned n_in,
                    const size_t *in_sizes, unsigned n_out,
                    const size_t *out_sizes);
/* Port i of n: its inputs, then its outputs. */
static inline wf__port *wf__node_port(wf_node *n, unsigned i)
{
    return i < n->n_in ? &n->in[i] : &n->out[i - n->n_in];
}
/* Free a node that was never shared (constructor failure paths). */
void wf__node_free(wf_node *n);
void wf__node_publish(wf_node *n); /* add to the graph's list */

/* The node's graph, NULL once the graph is destroyed.  Inline: every
 * body and spawn asks. */
static inline wf_graph *wf__node_graph(const wf_node *n)
{
    /* Acquire pairs with the release store in wf_graph_destroy. */
    return wf_load_acquire(&((wf_node *)n)->graph);
}

/* The internal port a wf_port names, through composites, checked as the
 * public calls check it (graph.h, wf_make_edge): 0 or a WF_E... code. */
int wf__port_resolve(wf_port p, bool input, wf__port **out);

/* Push helpers for senders (G3): offer msg along the out-edges in push
 * state; single: stop at the first that accepts (1 if one did);
 * broadcast: offer to all (returns how many accepted); edge: offer along
 * e alone, whatever its state (1 if accepted). */
int wf__push_single(wf__port *out, const void *msg);
int wf__push_broadcast(wf__port *out, const void *msg);
int wf__push_edge(wf__edge *e, const void *msg);

/* The receiver along e could not take a message for lack of memory (r <
 * 0): the graph fails with r, so that wait_for_all says so, rather than
 * the message being dropped as if rejected. */
void wf__offer_failed(wf__edge *e, int r);

/* Offer msg along e.  A rejection that asks for pull reverses the edge
 * and then tells the receiver, which will pull when it can (G3). */
WF__HOT_INLINE bool wf__offer(wf__edge *e, const void *msg)
{
    wf__port *to = e->to;
    int r = to->node->ops->put(to, msg);
    if (wf__observed(to->node))
        wf__count_offer(e->from->node, to->node, r);
    if (r == WF__REJECT_PULL) {
        /* Relaxed: pred_pull's aggregator op orders it for the receiver. */
        wf_store_relaxed(&e->state, WF__PULL);
        if (to->node->ops->pred_pull)
            to->node->ops->pred_pull(to);
    } else if (__builtin_expect(r < 0, 0)) {
        wf__offer_failed(e, r);
    }
    return r == WF__ACCEPT;
}

/* wf__push_broadcast inlined, for a body's output (function.c).  Edge
 * states are read relaxed: a stale state costs one rejected offer, and
 * each switch is followed by a notice through the other node's
 * aggregator (G3).  Acquire on the list pairs with the release store in
 * node_handle (SET_EDGES). */
WF__HOT_INLINE int wf__push_broadcast_inline(wf__port *out, const void *msg)
{
    wf__edges *l = wf_load_acquire(&out->edges);
    int accepted = 0;
    for (size_t i = 0; l && i < l->n; i++)
        if (wf_load_relaxed(&l->e[i]->state) == WF__PUSH)
            accepted += wf__offer(l->e[i], msg);
    return accepted;
}
/* Pull helpers for receivers: try each in-edge in pull state; a sender that
 * has nothing turns its edge back to push.  get: 1 if msg was filled.
 * reserve: the edge whose sender now holds a reservation for us, or NULL. */
int wf__pull_get(wf__port *in, void *msg);
wf__edge *wf__pull_reserve(wf__port *in, void *msg);
/* Any edge of port in state `state`?  Lock-free read of the list (G3).
 * Inline: a store asks after most of its operations. */
static inline bool wf__has_edge(wf__port *p, int state)
{
    /* Acquire pairs with the release store in node_handle (SET_EDGES). */
    wf__edges *l = wf_load_acquire(&p->edges);
    for (size_t i = 0; l && i < l->n; i++)
        /* Relaxed: a stale state is corrected by the notification that
         * follows every change (G3). */
        if (wf_load_relaxed(&l->e[i]->state) == state)
            return true;
    return false;
}
/* Turn every edge of the node back to push (reset). */
void wf__edges_reset(wf_node *n);
/* Remove every edge of n from its neighbours and free them (destroy). */
void wf__edges_detach_all(wf_node *n);

/* ---- message FIFO and the buffering sender (store.c) -------------------- */

typedef struct wf__fifo {
    char *buf;
    const wf_allocator *mem; /* its node's (mem.c) */
    size_t size; /* bytes per message */
    size_t cap;  /* 0 or a power of two (8, doubled by wf__fifo_grow) */
    size_t head, count;
} wf__fifo;

void wf__fifo_init(wf__fifo *q, size_t size, const wf_allocator *mem);
int wf__fifo_grow(wf__fifo *q); /* room for one more: 0 or WF_ENOMEM */
void wf__fifo_clear(wf__fifo *q);
void wf__fifo_free(wf__fifo *q);

/* Copy one message.  Sizes of one or two machine words are copied inline
 * (the common messages): no libc call for a 4-byte int. */
static inline void wf__msg_copy(void *dst, const void *src, size_t size)
{
    switch (size) {
    case 0:
        return;
    case 4:
        memcpy(dst, src, 4);
        return;
    case 8:
        memcpy(dst, src, 8);
        return;
    case 16:
        memcpy(dst, src, 16);
        return;
    default:
        memcpy(dst, src, size);
    }
}

/* Append a copy of msg: 0 or WF_ENOMEM (the FIFO is unchanged then). */
static inline int wf__fifo_push(wf__fifo *q, const void *msg)
{
    if (q->count == q->cap) {
        int err = wf__fifo_grow(q);
        if (err)
            return err;
    }
    wf__msg_copy(q->buf + ((q->head + q->count) & (q->cap - 1)) * q->size,
                 msg, q->size);
    q->count++;
    return 0;
}

static inline void *wf__fifo_front(wf__fifo *q)
{
    return q->count ? q->buf + q->head * q->size : NULL;
}

/* Remove the head (the FIFO is not empty), copied to msg unless NULL. */
static inline void wf__fifo_pop(wf__fifo *q, void *msg)
{
    if (msg)
        wf__msg_copy(msg, q->buf + q->head * q->size, q->size);
    q->head = (q->head + 1) & (q->cap - 1);
    q->count--;
}

/* The sender side of a buffering node: its messages, the reservation of
 * the head, and the forwarder (G4).  Buffer and queue nodes and the
 * queueing / key-matching joins embed one for their output port 0.
 *
 * Order: FIFO, or, with cmp set (priority_queue_node), a binary max-heap
 * in q.buf (q.head stays 0) whose head is the greatest message.  While the
 * head is lent (reserved) a put never moves above it, so the lent message
 * stays at the head until it is consumed or released.
 *
 * Discard mode (overwrite / write_once): every message is offered once to
 * every successor in push state and then dropped, taken or not; with no
 * successor in push state a put keeps nothing. */
typedef struct wf__store {
    wf__fifo q;
    int reserved;        /* 0, WF__RES_PULLER or WF__RES_FWD */
    bool fwd_busy, fwd_again;
    bool broadcast;      /* broadcast-push (joins) or single-push */
    bool discard;        /* offer once, then drop (see above) */
    /* The node's handler passes every WF__ST_* op on to wf__store_handle
     * unchanged (set by the kind after init): store.c applies them with
     * wf__store_handle directly, without the node's dispatch. */
    bool direct;
    /* A put's own offer was rejected once: the successors may ask to pull
     * (a reserving join, a busy rejecting node), and would ask before the
     * message is kept; from then on every put enters the store first. */
    bool no_offer;
    wf_compare_fn cmp;   /* NULL: FIFO; else greatest first */
    void *cmp_ctx;
    char *item;          /* the forwarder's copy of the head */
    wf__gtask task;      /* the forwarder as a pool task */
    /* 1: nothing held, lent or forwarded (G4's exception: a put may offer
     * its message itself).  Written by the handler after each op that may
     * change it (wf__store_settle), read by puts outside. */
    _Atomic int quiet;
} wf__store;

enum { WF__RES_PULLER = 1, WF__RES_FWD = 2 };

/* Store operations; their types follow the node's own. */
enum {
    WF__ST_PUT = 50,
    WF__ST_GET,
    WF__ST_RESERVE,
    WF__ST_RELEASE,
    WF__ST_CONSUME,
    WF__ST_SUCC_PUSH,
    WF__ST_FWD,
    WF__ST_PUT_KEPT, /* a put whose own offer nobody took (sets no_offer) */
    WF__ST_CONSUME_NEXT /* consume, then reserve the new head (result 1) */
};

typedef struct wf__store_op {
    wf__op op;
    const void *in;
    void *out;
    int result;
    int prev;     /* WF__ST_FWD: what became of the last item */
    bool handoff; /* WF__ST_FWD: budget spent, continue in a task */
    bool start;   /* the caller must run the forwarder */
    wf__store *store; /* store.c: the store, for a direct op */
} wf__store_op;

int wf__store_init(wf__store *s, wf_node *n, size_t size, bool broadcast);
void wf__store_free(wf__store *s);
/* Inside the handler: apply a WF__ST_* op to the node's store. */
void wf__store_handle(wf_node *n, wf__store *s, wf__store_op *op);
/* Inside the handler: may the forwarder start now?  Sets fwd_busy and
 * lends the forwarder the head (in item), which wf__store_kick offers. */
bool wf__store_should_start(wf_node *n, wf__store *s);
/* Inside the handler, after an op that changed the store: publish
 * whether it is quiet (see wf__store). */
void wf__store_settle(wf__store *s);
/* Inside the handler: the store holds one message, which could be
 * forwarded now and nobody holds: pop it into out for the caller to offer
 * itself (wf__store_offer, G4's exception) instead of a forwarder. */
bool wf__store_take_direct(wf_node *n, wf__store *s, void *out);
/* Inside the handler: the store is empty and a message formed now could
 * go to the caller to offer itself at once, skipping the store (as
 * wf__store_take_direct would take it back).  The store is unchanged. */
bool wf__store_may_skip(wf_node *n, wf__store *s);
/* Outside: may this thread offer a message of a store itself now?  False
 * once it is nested too deep in such offers and forwarders (a cycle of
 * buffering nodes would recurse without end). */
bool wf__store_may_offer(void);
/* Outside: offer msg from n's port 0 as its forwarder would (broadcast or
 * single); true when a successor took it. */
bool wf__store_offer(wf_node *n, wf__store *s, const void *msg);
/* Outside: put msg in a buffering node: offered at once by this thread if
 * the store is quiet (G4's exception), else kept and forwarded.  Returns
 * what a put answers. */
int wf__store_put(wf_node *n, wf__store *s, const void *msg);
/* Outside: run the forwarder that an op told us to start (G4). */
void wf__store_kick(wf_node *n, wf__store *s);
/* Outside: the sender-side entry points, for a node whose port 0 store is
 * `s` (found through the node kind's accessor). */
int wf__store_call(wf_node *n, wf__store *s, int type, const void *in,
                 void *out);
/* Outside: wf__store_call(WF__ST_CONSUME_NEXT), the reserving join's
 * step per port and tuple, compiled for that op alone. */
int wf__store_consume_next(wf_node *n, wf__store *s, void *msg);

#endif /* WF_GRAPH_IMPL_H */
