/* SPDX-License-Identifier: Apache-2.0 */
/* wf_graph_write_dot: the topology in Graphviz DOT.
 *
 * Nodes show kind, name and how many messages they hold (read through each
 * node's aggregator, so the count is a consistent snapshot per node), and,
 * while the graph counts (wf_graph_set_counting), the counts of messages
 * put to them, accepted, rejected and forwarded (graph.c counts them on
 * the push and pull paths).
 * Edges are solid in push state and dashed in pull state, labelled with
 * the port numbers of multi-port nodes. */
#include "internal/graph/node.h"
#include "internal/graph/runtime.h"

static void write_escaped(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', f);
        fputc(*s == '\n' ? ' ' : *s, f);
    }
}

static size_t held(wf_node *n)
{
    return wf__node_held(n).held;
}

static void write_node(FILE *f, wf_node *n, bool counting)
{
    fprintf(f, "  n%u [label=\"", n->id);
    write_escaped(f, n->ops->kind);
    wf__node_extra *named = wf__extra_if(n);
    if (named != NULL && named->name != NULL) {
        fputs("\\n", f);
        write_escaped(f, named->name);
    }
    fprintf(f, "\\nholds %zu", held(n));
    if (counting) {
        /* Relaxed: statistics; each counter is a snapshot of its own.  A
         * node with no extra block has counted nothing. */
        wf__node_extra *x = wf__extra_if(n);
        unsigned long acc = x ? wf_load_relaxed(&x->n_accepted) : 0;
        unsigned long rej = x ? wf_load_relaxed(&x->n_rejected) : 0;
        unsigned long fwd = x ? wf_load_relaxed(&x->n_forwarded) : 0;
        fprintf(f, "\\nput %lu: accepted %lu, rejected %lu\\nforwarded %lu",
                acc + rej, acc, rej, fwd);
    }
    fputs("\"];\n", f);
    if (n->ops->write_dot)
        n->ops->write_dot(n, f);
}

static void write_edges(FILE *f, wf_node *n)
{
    for (unsigned i = 0; i < n->n_out; i++) {
        /* Relaxed: under the topology lock, as every edge edit (G7). */
        wf__edges *l = wf_load_relaxed(&n->out[i].edges);
        for (unsigned k = 0, c = wf__edges_count(l); k < c; k++) {
            wf__edge *e = wf__edges_at(l, k);
            if (e == NULL)
                continue;
            /* Relaxed: a snapshot; the state may change right after. */
            bool pull = wf_load_relaxed(&e->state) == WF__PULL;
            fprintf(f, "  n%u -> n%u [label=\"%s\"%s", n->id, e->to->node->id,
                    pull ? "pull" : "push", pull ? ", style=dashed" : "");
            if (n->n_out > 1)
                fprintf(f, ", taillabel=\"%u\"", i);
            if (e->to->node->n_in > 1)
                fprintf(f, ", headlabel=\"%u\"", wf__port_index(e->to));
            fputs("];\n", f);
        }
    }
}

int wf_graph_write_dot(wf_graph *g, FILE *f)
{
    if (g == NULL || f == NULL)
        return WF_EINVAL;
    /* Writing may be a cancellation point (stdio): not under the lock. */
    int cancel_state = wf__nocancel_begin();
    pthread_mutex_lock(&g->topo);
    fputs("digraph weft {\n  rankdir=LR;\n  node [shape=box];\n", f);
    /* The list is newest first; print in creation order for a stable
     * layout. */
    wf_node *last = g->nodes;
    while (last && wf__cold(last)->next)
        last = wf__cold(last)->next;
    /* Relaxed: whether to show the counts; see wf__observed. */
    bool counting = wf_load_relaxed(&g->counting) != 0;
    for (wf_node *n = last; n; n = wf__cold(n)->prev)
        write_node(f, n, counting);
    for (wf_node *n = last; n; n = wf__cold(n)->prev)
        write_edges(f, n);
    fputs("}\n", f);
    pthread_mutex_unlock(&g->topo);
    wf__nocancel_end(cancel_state);
    return ferror(f) ? WF_EAGAIN : 0;
}
