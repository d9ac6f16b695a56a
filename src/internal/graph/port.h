/* SPDX-License-Identifier: Apache-2.0 */
/* Ports and edges: a node's inputs and outputs, the edge records between
 * them, and each port's list of edges (rules G1 and G3 in
 * internal/graph/graph.h).  Never installed. */
#ifndef WF_GRAPH_PORT_H
#define WF_GRAPH_PORT_H

#include <stdbool.h>
#include <stddef.h>

#include "internal/atomic.h"
/* The edge record, a port's list of edges and their atomic steps (G7). */
#include "internal/graph/edges_steps.h"
#include "weft/graph.h"

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
