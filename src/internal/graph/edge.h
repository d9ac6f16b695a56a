/* SPDX-License-Identifier: Apache-2.0 */
/* Ports, edges and the push/pull protocol between nodes
 * (src/graph/edge.c; rule G3).  Never installed. */
#ifndef WF_GRAPH_EDGE_H
#define WF_GRAPH_EDGE_H

#include "internal/graph/node.h"
#include "internal/graph/runtime.h"

/* An edit of a port's edge list (edge.c), applied by its node (G1). */
typedef struct wf__edges_op {
    wf__op op;
    wf__port *port;
    wf__edge *add; /* append this edge; else clear slot `remove` */
    unsigned remove;
    wf__edge *unchain; /* a chained port (cont_input): take this one out */
    wf__edges *list;   /* non-NULL: the live slots in a larger block, first */
} wf__edges_op;

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
 * aggregator (G3).  The list as edges_steps.h's readers load it (G7). */
WF__HOT_INLINE int wf__push_broadcast_inline(wf__port *out, const void *msg)
{
    wf__edges *l = wf__edges_list(&out->edges); /* G7 */
    int accepted = 0;
    for (unsigned i = 0, n = wf__edges_count(l); i < n; i++) {
        wf__edge *e = wf__edges_at(l, i);
        if (e && wf_load_relaxed(&e->state) == WF__PUSH)
            accepted += wf__offer(e, msg);
    }
    return accepted;
}
/* Pull helpers for receivers: try each in-edge in pull state; a sender that
 * has nothing turns its edge back to push.  get: 1 if msg was filled.
 * reserve: the edge whose sender now holds a reservation for us, or NULL. */
int wf__pull_get(wf__port *in, void *msg);
wf__edge *wf__pull_reserve(wf__port *in, void *msg);
/* Any edge of port in state `state`?  Lock-free read of the list (G3),
 * outside p's aggregator (a store's quiet put asks it): the acquire loads
 * of the list and its count and the relaxed loads of the states are
 * wf__edges_has's (internal/graph/edges_steps.h, G7).  Inline: a store
 * asks after most of its operations. */
static inline bool wf__has_edge(wf__port *p, int state)
{
    return wf__edges_has(&p->edges, state);
}
/* Turn every edge of the node back to push (reset). */
void wf__edges_reset(wf_node *n);
/* Remove every edge of n from its neighbours and free them (destroy). */
void wf__edges_detach_all(wf_node *n);
/* Free an edge list block (a port's, or a retired one) to the slabs. */
void wf__edges_free(wf__slabs *s, wf__edges *l);
/* Free a port's list l (or NULL) and all it retired (wf__edges.retired),
 * as the port's node is freed. */
void wf__edges_free_all(wf__slabs *s, wf__edges *l);

#endif /* WF_GRAPH_EDGE_H */
