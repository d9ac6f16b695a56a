/* SPDX-License-Identifier: Apache-2.0 */
/* What every node shares: creation with its ports, the aggregator handler
 * for the common operations, and the public wf_node_* calls (names,
 * priorities, callbacks, destruction). */
#include <limits.h>

#include "internal/graph/edge.h"
#include "internal/graph/mem.h"
#include "internal/graph/node.h"
#include "internal/graph/runtime.h"
#include "internal/pool_hooks.h"

/* The handler for every node (G1): common operations here, the kind's own
 * through ops->handle. */
static void node_handle(void *self, wf__op *op)
{
    wf_node *n = self;
    switch (op->type) {
    case WF__OP_RESET:
        if (n->ops->reset)
            n->ops->reset(n);
        break;
    case WF__OP_HELD: {
        wf__held_op *h = (wf__held_op *)op;
        h->held = n->ops->held ? n->ops->held(n) : 0;
        h->stuck = n->ops->stuck ? n->ops->stuck(n) : NULL;
        h->round = n->ops->round ? n->ops->round(n, &h->round_of) : 0;
        break;
    }
    default: n->ops->handle(n, op);
    }
}

void wf__node_no_ops(wf_node *n, wf__op *op)
{
    (void)n, (void)op;
    WF_BUG("an operation for a node kind that has none");
}

void wf__node_exec(wf_node *n, wf__op *op)
{
    wf__agg_execute(&n->agg, op, node_handle, n);
}

wf__held_op wf__node_held(wf_node *n)
{
    wf__held_op op = {.op.type = WF__OP_HELD};
    wf__node_exec(n, &op.op);
    return op;
}

static void init_ports(wf_node *n, wf__port *p, unsigned count, bool input,
                       const size_t *sizes)
{
    for (unsigned i = 0; i < count; i++) {
        p[i].node = n;
        p[i].is_input = input;
        p[i].size = sizes[i];
        wf_store_relaxed(&p[i].edges, NULL); /* not shared yet */
    }
}

int wf__node_create(wf_node **out, wf_graph *g, size_t size,
                    const wf__node_ops *ops, unsigned n_in,
                    const size_t *in_sizes, unsigned n_out,
                    const size_t *out_sizes)
{
    if (out == NULL || g == NULL)
        return WF_EINVAL;
    /* Before any arithmetic on the sizes (buffers, tuples) can wrap. */
    for (unsigned i = 0; i < n_in; i++)
        if (in_sizes[i] > WF_MAX_MSG_SIZE)
            return WF_ERANGE;
    for (unsigned i = 0; i < n_out; i++)
        if (out_sizes[i] > WF_MAX_MSG_SIZE)
            return WF_ERANGE;
    for (unsigned i = 0; i < n_in && !ops->signals; i++)
        if (in_sizes[i] == 0)
            return WF_EINVAL;
    for (unsigned i = 0; i < n_out && !ops->signals; i++)
        if (out_sizes[i] == 0)
            return WF_EINVAL;
    if (n_in > WF__MAX_PORTS || n_out > WF__MAX_PORTS)
        return WF_ERANGE;
    /* One block (internal/graph/node.h): the node, the ports unless the
     * kind has room for them, then the cold part.  Ports of their own
     * start a line: the kind's last fields are its state, which its
     * aggregator writes, and a sender reads the ports. */
    size_t ports_at = ops->in_offset ? size : (size + 63) & ~(size_t)63;
    size_t fields =
        ports_at + (ops->in_offset ? 0 : (n_in + n_out) * sizeof(wf__port));
    size_t cold_at =
        (fields + _Alignof(wf__node_cold) - 1) & ~(_Alignof(wf__node_cold) - 1);
    size_t bytes = cold_at + sizeof(wf__node_cold);
    if (bytes > UINT_MAX)
        return WF_ENOMEM;
    char *block = wf__slab_alloc(g->slabs, bytes);
    if (block == NULL)
        return WF_ENOMEM;
    memset(block, 0, bytes);
    wf__slabs_hold(g->slabs);
    wf_node *n = (wf_node *)block;
    n->cold_at = (unsigned)cold_at;
    wf__cold(n)->slabs = g->slabs;
    wf__port *ports = (wf__port *)(block + ports_at);
    n->ops = ops;
    wf_store_relaxed(&n->graph, g); /* published by wf__node_publish */
    n->n_in = (uint16_t)n_in;
    n->n_out = (uint16_t)n_out;
    n->in = ops->in_offset ? (wf__port *)((char *)n + ops->in_offset) : ports;
    n->out = ops->in_offset ? (wf__port *)((char *)n + ops->out_offset)
                            : ports + n_in;
    init_ports(n, n->in, n_in, true, in_sizes);
    init_ports(n, n->out, n_out, false, out_sizes);
    *out = n;
    return 0;
}

void wf__node_publish(wf_node *n)
{
    wf_graph *g = wf__node_graph(n);
    pthread_mutex_lock(&g->topo);
    n->id = g->next_id++;
    wf__cold(n)->next = g->nodes;
    if (g->nodes)
        wf__cold(g->nodes)->prev = n;
    g->nodes = n;
    pthread_mutex_unlock(&g->topo);
}

void wf__node_free(wf_node *n)
{
    if (n->ops->destroy)
        n->ops->destroy(n);
    wf__node_cold *c = wf__cold(n);
    wf__slabs *s = c->slabs;
    for (unsigned i = 0; i < n->n_in + n->n_out; i++) {
        wf__port *p = wf__node_port(n, i);
        if (!p->cont_input) /* a chain's edges were freed by their detach */
            wf__edges_free_all(s, wf_load_relaxed(&p->edges)); /* unshared */
    }
    wf__node_extra *x = wf__extra_if(n);
    if (x) {
        wf__mem_free(&s->mem, x->name);
        wf__slab_free(s, x, sizeof *x);
    }
    wf__slab_free(s, n, n->cold_at + sizeof *c);
    wf__slabs_drop(s); /* last: may free the slabs */
}

int wf_node_destroy(wf_node *n)
{
    if (n == NULL)
        return 0;
    wf_graph *g = wf__node_graph(n);
    if (g == NULL) { /* detached: nothing runs; neighbours stay valid */
        wf__edges_detach_all(n);
        wf__node_free(n);
        return 0;
    }
    if (wf__graph_running_here(g))
        return WF_EPERM;
    /* Not a cancellation point (wf__nocancel_begin): nor is what follows
     * the wait, under the topology lock. */
    int cancel_state = wf__nocancel_begin();
    if (!wf__pool_forked(g->pool)) /* else no thread would run its work */
        wf__graph_quiesce(g);
    pthread_mutex_lock(&g->topo);
    wf__edges_detach_all(n);
    wf__node_cold *c = wf__cold(n);
    if (c->prev)
        wf__cold(c->prev)->next = c->next;
    else
        g->nodes = c->next;
    if (c->next)
        wf__cold(c->next)->prev = c->prev;
    pthread_mutex_unlock(&g->topo);
    wf__node_free(n);
    wf__nocancel_end(cancel_state);
    return 0;
}

int wf_node_set_name(wf_node *n, const char *name)
{
    if (n == NULL)
        return WF_EINVAL;
    wf_graph *g = wf__node_graph(n);
    if (g == NULL)
        return WF_EDESTROYED;
    char *copy = NULL;
    if (name) {
        size_t len = strlen(name) + 1;
        if ((copy = wf__mem_alloc(wf__node_mem(n), len)) == NULL)
            return WF_ENOMEM;
        memcpy(copy, name, len);
    }
    wf__node_extra *x = copy ? wf__extra_make(n) : wf__extra_if(n);
    if (copy != NULL && x == NULL) {
        wf__mem_free(wf__node_mem(n), copy);
        return WF_ENOMEM;
    }
    if (x == NULL) /* no name to clear */
        return 0;
    /* The name is read by wf_graph_write_dot under the same lock. */
    pthread_mutex_lock(&g->topo);
    char *old = x->name;
    x->name = copy;
    pthread_mutex_unlock(&g->topo);
    wf__mem_free(wf__node_mem(n), old);
    return 0;
}

const char *wf_node_kind(const wf_node *n)
{
    return n ? n->ops->kind : "";
}

int wf_node_set_priority(wf_node *n, int priority)
{
    if (n == NULL || priority < 0)
        return WF_EINVAL;
    wf_graph *g = wf__node_graph(n);
    if (g == NULL)
        return WF_EDESTROYED;
    wf_store_relaxed(&n->priority, priority); /* see wf__spawn */
    /* Relaxed, as the priority: a spawn ordered after this call sees
     * both; one racing with it may use the old priority, as it may
     * without the flag. */
    if (priority > 0)
        wf_store_relaxed(&g->prioritized, 1);
    return 0;
}

/* Set a node's callback under the topology lock, which cancel and reset
 * hold while they call it.  `cancel`: the cancel callback, else the body
 * reset. */
static int set_callback(wf_node *n, bool cancel, void (*fn)(void *), void *ctx)
{
    if (n == NULL)
        return WF_EINVAL;
    wf_graph *g = wf__node_graph(n);
    if (g == NULL)
        return WF_EDESTROYED;
    wf__node_extra *x = wf__extra_make(n);
    if (x == NULL)
        return WF_ENOMEM;
    pthread_mutex_lock(&g->topo);
    *(cancel ? &x->cancel_fn : &x->body_reset_fn) = fn;
    *(cancel ? &x->cancel_ctx : &x->body_reset_ctx) = ctx;
    pthread_mutex_unlock(&g->topo);
    return 0;
}

int wf_node_set_cancel(wf_node *n, void (*fn)(void *), void *ctx)
{
    return set_callback(n, true, fn, ctx);
}

int wf_node_set_body_reset(wf_node *n, void (*fn)(void *), void *ctx)
{
    return set_callback(n, false, fn, ctx);
}

const char *wf_node_name(const wf_node *n)
{
    if (n == NULL)
        return "";
    wf__node_extra *named = wf__extra_if(n);
    if (named != NULL && named->name != NULL)
        return named->name;
    /* "kind#id" in the extra block, written once, by the first caller
     * that finds it empty, under the slabs' lock (callers may race, and
     * the node may have outlived its graph). */
    wf__node_extra *x = wf__extra_make((wf_node *)n);
    if (x == NULL)
        return n->ops->kind;
    wf__slabs *s = wf__cold(n)->slabs;
    pthread_mutex_lock(&s->lock);
    if (x->auto_name[0] == '\0') {
        char buf[WF__LABEL_MAX];
        snprintf(x->auto_name, sizeof x->auto_name, "%s",
                 wf__node_label(n, buf));
    }
    pthread_mutex_unlock(&s->lock);
    return x->auto_name;
}
