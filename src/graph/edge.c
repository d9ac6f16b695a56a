/* SPDX-License-Identifier: Apache-2.0 */
/* Ports, edges and the push/pull protocol between nodes (G3).
 *
 * An edge is shared by its two ends.  Each end lists it in an immutable
 * array published through the node's aggregator; edits copy the array
 * under the graph's topology lock, which also makes "does this edge exist"
 * and the two publications one step for other editors. */
#include "internal/graph/edge.h"
#include "internal/graph/mem.h"
#include "internal/graph/runtime.h"
#include "internal/graph/types.h"

/* ---- ports --------------------------------------------------------------- */

/* The internal port a wf_port names, checked: WF_EINVAL for a NULL node or
 * the wrong direction, WF_ENOPORT for an index out of range or a node with
 * several ports standing for one, WF_EDESTROYED for a detached node.  A
 * composite's port is the inner port it stands for: every public call
 * finds it here, and nowhere else. */
WF__HOT_INLINE int resolve(wf_port p, bool input, wf__port **out)
{
    if (p.node == NULL)
        return WF_EINVAL;
    if (((p.dir_ & WF__PORT_IN) != 0) != input)
        return WF_EINVAL;
    if (wf__node_graph(p.node) == NULL)
        return WF_EDESTROYED;
    if (p.node->ops->alias)
        return p.node->ops->alias(p.node, input, p.index,
                                  (p.dir_ & WF__PORT_ONLY) != 0, out);
    unsigned count = input ? p.node->n_in : p.node->n_out;
    if ((p.dir_ & WF__PORT_ONLY) ? count != 1 : p.index >= count)
        return WF_ENOPORT;
    *out = input ? &p.node->in[p.index] : &p.node->out[p.index];
    return 0;
}

int wf__port_resolve(wf_port p, bool input, wf__port **out)
{
    return resolve(p, input, out);
}

size_t wf_port_msg_size(wf_port p)
{
    wf__port *port;
    if (resolve(p, (p.dir_ & WF__PORT_IN) != 0, &port) != 0)
        return 0;
    return port->size;
}

/* ---- edge lists ---------------------------------------------------------- */

static wf__edges *load_list(wf__port *p)
{
    /* Acquire pairs with the release store in node_handle (SET_EDGES). */
    return wf_load_acquire(&p->edges);
}

static wf__edge *find_edge(wf__port *from, wf__port *to)
{
    wf__edges *l = load_list(from);
    for (size_t i = 0; l && i < l->n; i++)
        if (l->e[i]->to == to)
            return l->e[i];
    return NULL;
}

/* Inside the node's aggregator (G1): make e->list the port's list.  The
 * node applies every op of this type with this handler (publish), not
 * its own. */
static void set_edges(void *self, wf__op *op)
{
    wf_node *n = self;
    wf__edges_op *e = (wf__edges_op *)op;
    /* Relaxed: only the aggregator writes edges, and we are it. */
    wf__edges *old = wf_load_relaxed(&e->port->edges);
    /* Release pairs with the acquire loads of readers that walk the list
     * outside the aggregator (wf__push_*, wf__pull_*). */
    wf_store_release(&e->port->edges, e->list);
    /* Release pairs with the acquire load in continue.c (threshold). */
    wf_store_release(&e->port->n_edges, e->list ? e->list->n : 0);
    if (!e->port->is_input)
        e->port->push_hint = true; /* a new edge starts in push */
    if (old) { /* a reader may still walk it: keep it (wf__edges) */
        old->retired = wf__cold(n)->retired_lists;
        wf__cold(n)->retired_lists = old;
    }
}

static void publish(wf__port *p, wf__edges *l)
{
    wf__edges_op op = {.op.type = WF__OP_SET_EDGES, .port = p, .list = l};
    wf__agg_execute(&p->node->agg, &op.op, set_edges, p->node);
}

/* A block for an edge list of up to cap edges (and their far ends). */
static wf__edges *list_alloc(wf__port *p, size_t cap)
{
    wf__edges *l = wf__mem_alloc(wf__node_mem(p->node),
                                 sizeof *l + 2 * cap * sizeof l->e[0]);
    if (l)
        l->retired = NULL;
    return l;
}

/* Fill l with p's list, plus e (add) or less e. */
static wf__edges *edited(wf__edges *l, wf__port *p, wf__edge *e, bool add)
{
    wf__edges *old = load_list(p);
    size_t n = old ? old->n : 0;
    l->n = 0;
    for (size_t i = 0; i < n; i++)
        if (old->e[i] != e)
            l->e[l->n++] = old->e[i];
    if (add)
        l->e[l->n++] = e;
    for (size_t i = 0; i < l->n; i++) /* wf__edges: the far ends */
        wf__edges_far(l)[i] = p->is_input ? l->e[i]->from : l->e[i]->to;
    return l;
}

/* Removing an edge must not need memory: destroying a node or clearing
 * the edges cannot fail.  So every edge added to a port brings a spare
 * block for a later removal, sized for the list it makes (k edges for
 * the k-th): the spares form a stack under the topology lock whose i-th
 * block from the bottom holds at least i edges, one per edge listed.  A
 * removal from n edges pops the top (at least n, n - 1 needed), leaving
 * blocks 1 .. n - 1 for the edges that remain; an addition pushes a block
 * of n + 1.  The invariant holds either way. */
static void spare_push(wf__port *p, wf__edges *l)
{
    l->retired = p->spares;
    p->spares = l;
}

static wf__edges *spare_pop(wf__port *p)
{
    wf__edges *l = p->spares;
    if (l == NULL)
        WF_BUG("an edge without its spare list block");
    p->spares = l->retired;
    l->retired = NULL;
    return l;
}

/* Take e out of p's list, with no allocation. */
static void unlist(wf__port *p, wf__edge *e)
{
    publish(p, edited(spare_pop(p), p, e, false));
}

static int check_pair(wf_port from, wf_port to, wf__port **fp, wf__port **tp)
{
    int err = resolve(from, false, fp);
    if (err == 0)
        err = resolve(to, true, tp);
    if (err)
        return err;
    if (wf__node_graph(from.node) != wf__node_graph(to.node))
        return WF_EINVAL;
    return (*fp)->size == (*tp)->size ? 0 : WF_ESIZE;
}

/* The blocks an edge from fp to tp needs: its record, each end's new list
 * and each end's spare (see spare_push); false, with none kept, when one
 * cannot be had. */
typedef struct {
    wf__edge *e;
    wf__edges *list[2], *spare[2];
} edge_blocks;

static bool blocks_alloc(edge_blocks *b, wf__port *end[2])
{
    const wf_allocator *mem = wf__node_mem(end[0]->node); /* the graph's */
    bool ok = (b->e = wf__mem_calloc(mem, 1, sizeof *b->e)) != NULL;
    for (int i = 0; i < 2; i++) {
        wf__edges *l = load_list(end[i]);
        size_t n = (l ? l->n : 0) + 1;
        ok = ok && (b->list[i] = list_alloc(end[i], n)) != NULL &&
             (b->spare[i] = list_alloc(end[i], n)) != NULL;
    }
    if (!ok) {
        wf__mem_free(mem, b->e);
        for (int i = 0; i < 2; i++) {
            wf__mem_free(mem, b->list[i]);
            wf__mem_free(mem, b->spare[i]);
        }
    }
    return ok;
}

int wf_make_edge_ports(wf_port from, wf_port to)
{
    wf__port *fp, *tp;
    int err = check_pair(from, to, &fp, &tp);
    if (err)
        return err;
    /* A node offering to itself: a buffer would pass its message round
     * for ever, the first put never done.  A loop needs another node. */
    if (fp->node == tp->node)
        return WF_EINVAL;
    wf_graph *g = wf__node_graph(from.node);
    wf__port *end[2] = {tp, fp};
    edge_blocks b = {0};
    pthread_mutex_lock(&g->topo);
    if (find_edge(fp, tp)) {
        err = WF_EEXIST;
    } else if (!blocks_alloc(&b, end)) {
        err = WF_ENOMEM;
    } else {
        b.e->from = fp;
        b.e->to = tp;
        wf_store_relaxed(&b.e->state, WF__PUSH); /* published below */
        /* Receiver first: once the sender lists the edge it may push and
         * the receiver may need to pull back along it. */
        for (int i = 0; i < 2; i++) {
            spare_push(end[i], b.spare[i]);
            publish(end[i], edited(b.list[i], end[i], b.e, true));
        }
    }
    pthread_mutex_unlock(&g->topo);
    /* A buffering sender offers what it holds to its new successor.  The
     * edge stays valid after a concurrent remove (it is retired, not
     * freed, until the sender is destroyed). */
    const wf__node_ops *ops = fp->node->ops;
    if (err == 0 && ops->new_succ)
        ops->new_succ(fp, b.e);
    else if (err == 0 && ops->succ_push)
        ops->succ_push(fp);
    return err;
}

int wf_remove_edge_ports(wf_port from, wf_port to)
{
    wf__port *fp, *tp;
    int err = check_pair(from, to, &fp, &tp);
    if (err)
        return err;
    wf_graph *g = wf__node_graph(from.node);
    pthread_mutex_lock(&g->topo);
    wf__edge *e = find_edge(fp, tp);
    if (e == NULL) {
        err = WF_ENOENT;
    } else {
        unlist(fp, e); /* sender first: no new push along e */
        unlist(tp, e);
        /* A push or pull that loaded an old list may still use e: keep it
         * until the sender is destroyed. */
        e->retired = wf__cold(fp->node)->retired_edges;
        wf__cold(fp->node)->retired_edges = e;
    }
    pthread_mutex_unlock(&g->topo);
    return err;
}

/* Remove every edge of n from its neighbours' lists and its own, and free
 * the edges; the caller holds the topology lock (or the graph is gone).
 * Needs no memory (spare_push).  No edge joins two ports of one node
 * (wf_make_edge_ports), so the far end is always a neighbour's. */
void wf__edges_detach_all(wf_node *n)
{
    for (unsigned i = 0; i < n->n_in + n->n_out; i++) {
        wf__port *p = wf__node_port(n, i);
        wf__edges *l = load_list(p);
        for (size_t k = 0; l && k < l->n; k++) {
            wf__edge *e = l->e[k];
            unlist(p->is_input ? e->from : e->to, e);
            wf__mem_free(wf__node_mem(n), e);
        }
        if (l)
            publish(p, NULL); /* n's own list: none, no block needed */
        while (p->spares)
            wf__mem_free(wf__node_mem(n), spare_pop(p));
    }
}

void wf__edges_reset(wf_node *n)
{
    for (unsigned i = 0; i < n->n_out; i++) {
        wf__edges *l = load_list(&n->out[i]);
        for (size_t k = 0; l && k < l->n; k++)
            /* Quiescent graph (reset waited): no one else reads it now. */
            wf_store_relaxed(&l->e[k]->state, WF__PUSH);
        n->out[i].push_hint = true; /* quiescent too */
    }
}

/* ---- push and pull ------------------------------------------------------- */

__attribute__((cold)) void wf__offer_failed(wf__edge *e, int r)
{
    wf_graph *g = wf__node_graph(e->to->node);
    if (g)
        wf__graph_fail(g, r);
}

int wf__push_edge(wf__edge *e, const void *msg)
{
    return wf__offer(e, msg);
}

int wf__push_single(wf__port *out, const void *msg)
{
    wf__edges *l = load_list(out);
    /* Edge states are read relaxed here and below: a stale state costs one
     * rejected offer or one failed pull, and each switch is followed by a
     * notice through the other node's aggregator (G3). */
    for (size_t i = 0; l && i < l->n; i++)
        if (wf_load_relaxed(&l->e[i]->state) == WF__PUSH &&
            wf__offer(l->e[i], msg))
            return 1;
    return 0;
}

int wf__push_broadcast(wf__port *out, const void *msg)
{
    return wf__push_broadcast_inline(out, msg);
}

/* A pull along e failed: the edge goes back to push and the sender is
 * told, so it offers its next message (G3). */
static void back_to_push(wf__edge *e)
{
    /* Relaxed: succ_push's aggregator op orders it for the sender. */
    wf_store_relaxed(&e->state, WF__PUSH);
    if (e->from->node->ops->succ_push)
        e->from->node->ops->succ_push(e->from);
}

int wf__pull_get(wf__port *in, void *msg)
{
    wf__edges *l = load_list(in);
    for (size_t i = 0; l && i < l->n; i++) {
        wf__edge *e = l->e[i];
        if (wf_load_relaxed(&e->state) != WF__PULL) /* see push_single */
            continue;
        const wf__node_ops *ops = e->from->node->ops;
        if (ops->get && ops->get(e->from, msg) == 1) {
            /* The value stays in such a sender: delivered once, the edge
             * is push again (the sender offers its next value); no
             * re-offer now.  Relaxed, as in back_to_push. */
            if (ops->keeps_on_get)
                wf_store_relaxed(&e->state, WF__PUSH);
            if (wf__observed(e->from->node))
                wf__count_pulled(e->from->node);
            return 1;
        }
        back_to_push(e);
    }
    return 0;
}

wf__edge *wf__pull_reserve(wf__port *in, void *msg)
{
    wf__edges *l = load_list(in);
    for (size_t i = 0; l && i < l->n; i++) {
        wf__edge *e = l->e[i];
        if (wf_load_relaxed(&e->state) != WF__PULL) /* see push_single */
            continue;
        const wf__node_ops *ops = e->from->node->ops;
        if (ops->reserve && ops->reserve(e->from, msg) == 1)
            return e;
        back_to_push(e);
    }
    return NULL;
}

/* ---- the public try_ calls ----------------------------------------------- */

int wf_try_put_port(wf_port to, const void *msg)
{
    wf__port *p;
    int err = resolve(to, true, &p);
    if (err)
        return err;
    if (msg == NULL && p->size != WF_SIGNAL) /* a signal carries no data */
        return WF_EINVAL;
    wf_graph *g = wf__node_graph(to.node);
    /* Acquire pairs with the exchange in cancel (graph.c), as in
     * wf_graph_is_cancelled, without the call on every put. */
    if (g && wf_load_acquire(&g->cancelled))
        return WF_ECANCELED;
    wf__outside_put put = wf__outside_put_begin(g);
    int r = p->node->ops->put(p, msg);
    wf__outside_put_end(g, put);
    if (wf__observed(p->node))
        wf__count_offer(NULL, p->node, r);
    return r < 0 ? r : r == WF__ACCEPT;
}

/* Resolve an output port for a pull-side call. */
static int sender(wf_port from, const void *msg, bool need_msg, wf__port **p)
{
    int err = resolve(from, false, p);
    if (err == 0 && need_msg && msg == NULL && (*p)->size != WF_SIGNAL)
        err = WF_EINVAL;
    return err;
}

int wf_try_get_port(wf_port from, void *msg)
{
    wf__port *p;
    int err = sender(from, msg, true, &p);
    if (err)
        return err;
    return p->node->ops->get ? p->node->ops->get(p, msg) : 0;
}

int wf_try_reserve_port(wf_port from, void *msg)
{
    wf__port *p;
    int err = sender(from, msg, true, &p);
    if (err)
        return err;
    return p->node->ops->reserve ? p->node->ops->reserve(p, msg) : 0;
}

int wf_try_release_port(wf_port from)
{
    wf__port *p;
    int err = sender(from, NULL, false, &p);
    if (err)
        return err;
    err = p->node->ops->release ? p->node->ops->release(p) : WF_ENOENT;
    return err == 0 ? 1 : err; /* 1, as every try_ call that succeeds */
}

int wf_try_consume_port(wf_port from)
{
    wf__port *p;
    int err = sender(from, NULL, false, &p);
    if (err)
        return err;
    err = p->node->ops->consume ? p->node->ops->consume(p) : WF_ENOENT;
    return err == 0 ? 1 : err;
}
