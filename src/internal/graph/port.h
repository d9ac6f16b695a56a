/* SPDX-License-Identifier: Apache-2.0 */
/* Ports and edges: a node's inputs and outputs, the edge records between
 * them, and each port's list of edges (rules G1 and G3 in
 * internal/graph/graph.h).  Never installed. */
#ifndef WF_GRAPH_PORT_H
#define WF_GRAPH_PORT_H

#include <stdbool.h>
#include <stddef.h>

#include "internal/atomic.h"
#include "weft/graph.h"

enum { WF__PUSH = 0, WF__PULL = 1 };

typedef struct wf__port wf__port;

typedef struct wf__edge {
    wf__port *from, *to;
    _Atomic int state; /* WF__PUSH or WF__PULL (G3) */
    /* While listed at a continue node's input: the next edge into that
     * port (wf__port.chain).  Once removed: the next retired edge of its
     * sender (wf__node_cold.retired_edges). */
    struct wf__edge *link;
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
 * slots below it are filled (G7). */
static inline unsigned wf__edges_count(wf__edges *l)
{
    return l ? wf_load_acquire(&l->n) : 0; /* G7 */
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
    union {
        wf__edges *_Atomic edges; /* successors / predecessors; NULL: none */
        /* A continue node's input (cont_input) lists no edges in a block:
         * nothing walks them but the edits and the detach of a node, all
         * under the graph's topology lock (it never pulls, and its
         * threshold is n_edges), so they are linked through wf__edge.link
         * from here, and its edges cost no list. */
        struct wf__edge *chain;
    };
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

#endif /* WF_GRAPH_PORT_H */
