/* SPDX-License-Identifier: Apache-2.0 */
/* Ports, edges and the push/pull protocol between nodes (G3).
 *
 * An edge is shared by its two ends.  Each end lists it in a slot of its
 * port's list (internal/graph/port.h, wf__edges), edited through the
 * node's aggregator: appended in place, cleared in place when removed,
 * moved to a larger block when full; a continue node's input links its
 * edges in a chain instead (wf__port.chain), since no reader walks them.
 * Editors hold the graph's topology lock, which also makes "does this
 * edge exist" and the two edits one step for other editors.  Records and lists come from the graph's slabs
 * (mem.c). */
#include "internal/graph/edge.h"
#include "internal/graph/mem.h"
#include "internal/graph/node.h"
#include "internal/graph/runtime.h"

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

/* p's list, for a reader outside its aggregator (the push and pull
 * helpers): the acquire of wf__edges_list pairs with the release store
 * of a new block in set_edges (G7, internal/graph/edges_steps.h).  The
 * editors use it too, under the topology lock. */
static wf__edges *load_list(wf__port *p)
{
    return wf__edges_list(&p->edges);
}

static wf__slabs *slabs_of(wf__port *p)
{
    return wf__cold(p->node)->slabs;
}

/* The slot of p's list that holds e, or -1. */
static long slot_of(wf__port *p, wf__edge *e)
{
    wf__edges *l = load_list(p);
    for (unsigned i = 0, n = wf__edges_count(l); i < n; i++)
        if (wf__edges_at(l, i) == e)
            return (long)i;
    return -1;
}

static wf__edge *find_edge(wf__port *from, wf__port *to)
{
    wf__edges *l = load_list(from);
    for (unsigned i = 0, n = wf__edges_count(l); i < n; i++) {
        wf__edge *e = wf__edges_at(l, i);
        if (e && l->s[i].far == to)
            return e;
    }
    return NULL;
}

static size_t list_bytes(unsigned cap)
{
    return sizeof(wf__edges) + cap * sizeof(wf__edge_slot);
}

void wf__edges_free(wf__slabs *s, wf__edges *l)
{
    if (l)
        wf__slab_free(s, l, list_bytes(l->cap));
}

/* A link of a retired chain (wf__edges.retired) that is an edge. */
#define RETIRED_EDGE ((uintptr_t)1)

/* Keep e, removed from a port whose list is now l, until the node is
 * freed.  Under the topology lock. */
static void retire_edge(wf__edges *now, wf__edge *e)
{
    e->retired = now->retired;
    now->retired = (uintptr_t)e | RETIRED_EDGE;
}

void wf__edges_free_all(wf__slabs *s, wf__edges *l)
{
    for (uintptr_t r = (uintptr_t)l; r != 0;) {
        if (r & RETIRED_EDGE) {
            wf__edge *e = (wf__edge *)(r & ~RETIRED_EDGE);
            r = e->retired;
            wf__slab_free(s, e, sizeof *e);
        } else {
            wf__edges *b = (wf__edges *)r;
            r = b->retired;
            wf__edges_free(s, b);
        }
    }
}

/* set_edges on a chained port (cont_input): link or unlink the edge.
 * Under the topology lock, as every reader of the chain. */
static unsigned set_chain(wf__port *p, wf__edges_op *o, unsigned live)
{
    if (o->add) {
        o->add->link = p->chain;
        p->chain = o->add;
        return live + 1;
    }
    wf__edge **pp = &p->chain;
    while (*pp != o->unchain) {
        if (*pp == NULL)
            WF_BUG("an edge missing from its port's chain");
        pp = &(*pp)->link;
    }
    *pp = o->unchain->link;
    return live - 1;
}

/* Inside the node's aggregator (G1): apply an edit to the port's list.
 * The node applies every op of this type with this handler (publish), not
 * its own. */
static void set_edges(void *self, wf__op *op)
{
    (void)self; /* the port's node: o->port says all */
    wf__edges_op *o = (wf__edges_op *)op;
    wf__port *p = o->port;
    if (p->cont_input) {
        /* Relaxed, load and store: only the aggregator writes it, and a
         * signal reads it as a count, behind which nothing is published
         * (G7). */
        wf_store_relaxed(&p->n_edges,
                         set_chain(p, o, wf_load_relaxed(&p->n_edges)));
        return;
    }
    /* Relaxed: only the aggregator writes the list, and we are it. */
    wf__edges *l = wf_load_relaxed(&p->edges);
    unsigned live = wf_load_relaxed(&p->n_edges);
    if (o->list) { /* the block was full: o->list holds its live slots */
        /* Release: a reader outside the aggregator that finds the new
         * block sees it initialised (G7, edges_steps.h). */
        wf__edges_replace(&p->edges, o->list);
        /* A reader may still walk the old block: the new one keeps it,
         * and what it kept (wf__edges.retired). */
        o->list->retired = (uintptr_t)l;
        l = o->list;
    }
    if (o->add) {
        /* The slot, then the release store of n (G7, edges_steps.h). */
        wf__edges_append(l, o->add, p->is_input ? o->add->from : o->add->to);
        live++;
    } else {
        /* Relaxed: a reader that still finds the edge may use it. */
        wf__edges_clear(l, o->remove);
        live--;
    }
    /* Relaxed: the live count publishes nothing; its readers outside the
     * aggregator hold the topology lock, as every edit does (G7). */
    wf_store_relaxed(&p->n_edges, live);
    if (!p->is_input && o->add)
        p->push_hint = true; /* a new edge starts in push */
}

static void publish(wf__port *p, wf__edges_op *op)
{
    op->op.type = WF__OP_SET_EDGES;
    op->port = p;
    wf__agg_execute(&p->node->agg, &op->op, set_edges, p->node);
}

/* Room to append to p's list: NULL when its block has a free slot, else
 * a new block holding its live slots, with room for as many again (a
 * block fills its slab class).  Under the topology lock, which keeps the
 * list as it is until the append is published.  *fail: no memory. */
static wf__edges *room(wf__port *p, bool *fail)
{
    if (p->cont_input) /* a chain: the edge is its own room */
        return NULL;
    wf__edges *old = load_list(p);
    unsigned n = wf__edges_count(old);
    if (old && n < old->cap)
        return NULL;
    unsigned live = wf_load_relaxed(&p->n_edges); /* under topo: settled */
    size_t want = 2 * (size_t)live + 1;
    size_t bytes = wf__slab_block_size(list_bytes((unsigned)want));
    if (bytes < 64) /* a line: three edges, as most ports have at most */
        bytes = 64;
    unsigned cap =
        bytes > WF__SLAB_MAX
            ? (unsigned)want
            : (unsigned)((bytes - sizeof(wf__edges)) / sizeof(wf__edge_slot));
    wf__edges *l = wf__slab_alloc(slabs_of(p), list_bytes(cap));
    if (l == NULL) {
        *fail = true;
        return NULL;
    }
    wf__edges_fill(l, cap, old, n); /* published by set_edges */
    return l;
}

/* Take e out of p's list: its slot is cleared, with no allocation, so
 * that destroying a node or removing an edge cannot fail. */
static void unlist(wf__port *p, wf__edge *e)
{
    if (p->cont_input) {
        wf__edges_op op = {.unchain = e};
        publish(p, &op);
        return;
    }
    long i = slot_of(p, e);
    if (i < 0)
        WF_BUG("an edge missing from its port's list");
    wf__edges_op op = {.remove = (unsigned)i};
    publish(p, &op);
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

/* Under the topology lock: the edge's record and room in both lists, or
 * WF_ENOMEM with nothing kept; then the edge, listed at both ends. */
static int add_edge(wf__port *fp, wf__port *tp, wf__edge **out)
{
    wf__port *end[2] = {tp, fp};
    wf__slabs *s = slabs_of(fp);
    wf__edges *fresh[2] = {NULL, NULL};
    bool fail = false;
    wf__edge *e = wf__slab_alloc(s, sizeof *e);
    for (int i = 0; i < 2 && e; i++)
        fresh[i] = room(end[i], &fail);
    if (e == NULL || fail) {
        wf__slab_free(s, e, sizeof *e);
        for (int i = 0; i < 2; i++)
            wf__edges_free(s, fresh[i]);
        return WF_ENOMEM;
    }
    e->from = fp;
    e->to = tp;
    e->link = NULL;
    wf_store_relaxed(&e->state, WF__PUSH); /* published below */
    /* Receiver first: once the sender lists the edge it may push and the
     * receiver may need to pull back along it. */
    for (int i = 0; i < 2; i++) {
        wf__edges_op op = {.add = e, .list = fresh[i]};
        publish(end[i], &op);
    }
    *out = e;
    return 0;
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
    wf__edge *e = NULL;
    pthread_mutex_lock(&g->topo);
    err = find_edge(fp, tp) ? WF_EEXIST : add_edge(fp, tp, &e);
    pthread_mutex_unlock(&g->topo);
    /* A buffering sender offers what it holds to its new successor.  The
     * edge stays valid after a concurrent remove (it is retired, not
     * freed, until the sender is freed). */
    const wf__node_ops *ops = fp->node->ops;
    if (err == 0 && ops->new_succ)
        ops->new_succ(fp, e);
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
        /* A push or pull that loaded the slot may still use e: keep it
         * until the sender is freed. */
        retire_edge(load_list(fp), e);
    }
    pthread_mutex_unlock(&g->topo);
    return err;
}

/* Remove every edge of n from its neighbours' lists, and free the edges;
 * the caller holds the topology lock (or the graph is gone), and nothing
 * runs.  Needs no memory (unlist).  No edge joins two ports of one node
 * (wf_make_edge_ports), so the far end is always a neighbour's. */
void wf__edges_detach_all(wf_node *n)
{
    for (unsigned i = 0; i < n->n_in + n->n_out; i++) {
        wf__port *p = wf__node_port(n, i);
        for (wf__edge *e = p->cont_input ? p->chain : NULL, *next; e;
             e = next) {
            next = e->link;
            unlist(e->from, e);
            unlist(p, e);
            wf__slab_free(slabs_of(p), e, sizeof *e);
        }
        wf__edges *l = p->cont_input ? NULL : load_list(p);
        for (unsigned k = 0, c = wf__edges_count(l); k < c; k++) {
            wf__edge *e = wf__edges_at(l, k);
            if (e == NULL)
                continue;
            unlist(p->is_input ? e->from : e->to, e);
            wf__edges_op op = {.remove = k}; /* n's own slot */
            publish(p, &op);
            wf__slab_free(slabs_of(p), e, sizeof *e);
        }
    }
}

void wf__edges_reset(wf_node *n)
{
    for (unsigned i = 0; i < n->n_out; i++) {
        wf__edges *l = load_list(&n->out[i]);
        for (unsigned k = 0, c = wf__edges_count(l); k < c; k++) {
            wf__edge *e = wf__edges_at(l, k);
            /* Quiescent graph (reset waited): no one else reads it now. */
            if (e)
                wf_store_relaxed(&e->state, WF__PUSH);
        }
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
    for (unsigned i = 0, n = wf__edges_count(l); i < n; i++) {
        wf__edge *e = wf__edges_at(l, i);
        if (e && wf_load_relaxed(&e->state) == WF__PUSH && wf__offer(e, msg))
            return 1;
    }
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
    for (unsigned i = 0, n = wf__edges_count(l); i < n; i++) {
        wf__edge *e = wf__edges_at(l, i);
        if (e == NULL ||
            wf_load_relaxed(&e->state) != WF__PULL) /* see push_single */
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
    for (unsigned i = 0, n = wf__edges_count(l); i < n; i++) {
        wf__edge *e = wf__edges_at(l, i);
        if (e == NULL ||
            wf_load_relaxed(&e->state) != WF__PULL) /* see push_single */
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
    /* Acquire pairs with the exchange in wf__graph_cancel (G8), as in
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
