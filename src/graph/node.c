/* What every node shares: creation with its ports, the aggregator handler
 * for the common operations, names, destruction. */
#include "graph/graph_impl.h"

/* The handler for every node (G1): common operations here, the kind's own
 * through ops->handle. */
static void node_handle(void *self, wf__op *op)
{
    wf_node *n = self;
    switch (op->type) {
    case WF__OP_SET_EDGES: {
        wf__edges_op *e = (wf__edges_op *)op;
        /* Relaxed: only the aggregator writes edges, and we are it. */
        wf__edges *old = wf_load_relaxed(&e->port->edges);
        /* Release pairs with the acquire loads of readers that walk the
         * list outside the aggregator (wf__push_*, wf__pull_*). */
        wf_store_release(&e->port->edges, e->list);
        /* Release pairs with the acquire load in continue.c (threshold). */
        wf_store_release(&e->port->n_edges, e->list ? e->list->n : 0);
        if (!e->port->is_input)
            e->port->push_hint = true; /* a new edge starts in push */
        if (old) { /* a reader may still walk it: keep it (graph_impl.h) */
            old->retired = wf__cold(n)->retired_lists;
            wf__cold(n)->retired_lists = old;
        }
        break;
    }
    case WF__OP_RESET:
        if (n->ops->reset)
            n->ops->reset(n);
        break;
    case WF__OP_HELD: {
        wf__held_op *h = (wf__held_op *)op;
        h->held = n->ops->held ? n->ops->held(n) : 0;
        h->stuck = n->ops->stuck ? n->ops->stuck(n) : NULL;
        break;
    }
    default:
        n->ops->handle(n, op);
    }
}

void wf__node_exec(wf_node *n, wf__op *op)
{
    wf__agg_execute(&n->agg, op, node_handle, n);
}

static void init_ports(wf_node *n, wf__port *p, unsigned count, bool input,
                       const size_t *sizes)
{
    for (unsigned i = 0; i < count; i++) {
        p[i].node = n;
        p[i].index = i;
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
    /* One block (graph_impl.h): cold part, node, then the ports unless
     * the kind has room for them. */
    size_t bytes = sizeof(wf__node_cold) + size +
                   (ops->in_offset ? 0 : (n_in + n_out) * sizeof(wf__port));
    char *block = wf__mem_alloc_aligned(&g->mem, bytes, 64);
    if (block == NULL)
        return WF_ENOMEM;
    memset(block, 0, bytes);
    ((wf__node_cold *)block)->mem = g->mem;
    wf_node *n = (wf_node *)(block + sizeof(wf__node_cold));
    wf__port *ports = (wf__port *)((char *)n + size);
    n->ops = ops;
    wf_store_relaxed(&n->graph, g); /* published by wf__node_publish */
    n->n_in = n_in;
    n->n_out = n_out;
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
    wf__cold(n)->id = g->next_id++;
    snprintf(wf__cold(n)->auto_name, sizeof wf__cold(n)->auto_name, "%s#%u",
             n->ops->kind, wf__cold(n)->id);
    wf__cold(n)->next = g->nodes;
    if (g->nodes)
        wf__cold(g->nodes)->prev = n;
    g->nodes = n;
    pthread_mutex_unlock(&g->topo);
}

static void free_retired(wf_node *n)
{
    while (wf__cold(n)->retired_lists) {
        wf__edges *l = wf__cold(n)->retired_lists;
        wf__cold(n)->retired_lists = l->retired;
        wf__mem_free(wf__node_mem(n), l);
    }
    while (wf__cold(n)->retired_edges) {
        wf__edge *e = wf__cold(n)->retired_edges;
        wf__cold(n)->retired_edges = e->retired;
        wf__mem_free(wf__node_mem(n), e);
    }
}

void wf__node_free(wf_node *n)
{
    if (n->ops->destroy)
        n->ops->destroy(n);
    wf_allocator mem = *wf__node_mem(n); /* in the block it frees */
    for (unsigned i = 0; i < n->n_in + n->n_out; i++) {
        wf__port *p = wf__node_port(n, i);
        wf__mem_free(&mem, wf_load_relaxed(&p->edges)); /* unshared */
        for (wf__edges *l = p->spares, *next; l; l = next) {
            next = l->retired;
            wf__mem_free(&mem, l);
        }
    }
    free_retired(n);
    wf__mem_free(&mem, wf__cold(n)->name);
    wf__mem_free(&mem, wf__cold(n));
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
    wf_graph_wait_for_all(g);
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
    /* The name is read only by wf_graph_write_dot, under the same lock. */
    pthread_mutex_lock(&g->topo);
    char *old = wf__cold(n)->name;
    wf__cold(n)->name = copy;
    pthread_mutex_unlock(&g->topo);
    wf__mem_free(wf__node_mem(n), old);
    return 0;
}

const char *wf_node_kind(const wf_node *n)
{
    return n ? n->ops->kind : "";
}
