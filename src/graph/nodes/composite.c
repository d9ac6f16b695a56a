/* SPDX-License-Identifier: Apache-2.0 */
/* composite_node: a sub-graph exported as one node.
 *
 * The composite has no ports of its own: each of its ports is an alias of
 * an inner port, resolved once when the composite is made (through inner
 * composites too) and looked up by edge.c's port resolution, so every call
 * that takes a port acts on the inner one.  Edges made through a composite
 * are edges of the inner nodes; the composite keeps no state, so it has no
 * aggregator operations of its own.
 *
 * As in oneTBB, the composite does not own the inner nodes: destroying it
 * frees the aliases only.  It must be destroyed before its inner nodes
 * (graph.h). */
#include "internal/graph/edge.h"
#include "internal/graph/mem.h"
#include "internal/graph/node.h"

typedef struct composite_node {
    wf_node base;
    unsigned n_in, n_out;
    wf__port **ports; /* the inner ports: n_in inputs, then n_out outputs */
} composite_node;

static composite_node *comp_of(wf_node *n)
{
    return (composite_node *)n;
}

static int comp_alias(wf_node *n, bool input, unsigned index, bool only,
                      wf__port **port)
{
    composite_node *c = comp_of(n);
    unsigned count = input ? c->n_in : c->n_out;
    if (only ? count != 1 : index >= count)
        return WF_ENOPORT;
    *port = c->ports[(input ? 0 : c->n_in) + index];
    return 0;
}

/* The composite as a note, with a dotted line to each inner node it
 * exports (not a cluster: an inner node may be exported by several
 * composites, and DOT puts a node in one cluster only). */
static void comp_write_dot(wf_node *n, FILE *f)
{
    composite_node *c = comp_of(n);
    fprintf(f, "  n%u [shape=note];\n", n->id);
    for (unsigned i = 0; i < c->n_in + c->n_out; i++) {
        bool input = i < c->n_in;
        wf__port *p = c->ports[i];
        fprintf(f,
                "  n%u -> n%u [style=dotted, arrowhead=none, "
                "constraint=false, label=\"%s %u\"];\n",
                n->id, p->node->id, input ? "in" : "out",
                input ? i : i - c->n_in);
    }
}

static void comp_handle(wf_node *n, wf__op *op)
{
    (void)n, (void)op;
    WF_BUG("composite_node has no operations");
}

static void comp_destroy(wf_node *n)
{
    wf__mem_free(wf__node_mem(n), comp_of(n)->ports);
}

static const wf__node_ops composite_ops = {
    .kind = "composite_node",
    .alias = comp_alias,
    .write_dot = comp_write_dot,
    .handle = comp_handle,
    .destroy = comp_destroy,
};

/* Resolve the inner ports into ports[]: 0 or the first error. */
static int resolve_all(wf_graph *g, unsigned n_in, const wf_port *inputs,
                       unsigned n_out, const wf_port *outputs, wf__port **ports)
{
    for (size_t i = 0; i < (size_t)n_in + n_out; i++) {
        bool input = i < n_in;
        wf_port p = input ? inputs[i] : outputs[i - n_in];
        int err = wf__port_resolve(p, input, &ports[i]);
        if (err)
            return err;
        if (wf__node_graph(p.node) != g)
            return WF_EINVAL;
    }
    return 0;
}

int wf_composite_node_create(wf_node **out, wf_graph *g, unsigned n_in,
                             const wf_port *inputs, unsigned n_out,
                             const wf_port *outputs)
{
    if (out == NULL || g == NULL || (n_in == 0 && n_out == 0) ||
        (n_in && inputs == NULL) || (n_out && outputs == NULL))
        return WF_EINVAL;
    wf__port **ports =
        wf__mem_calloc(&g->mem, (size_t)n_in + n_out, sizeof *ports);
    if (ports == NULL)
        return WF_ENOMEM;
    int err = resolve_all(g, n_in, inputs, n_out, outputs, ports);
    wf_node *n = NULL;
    if (err == 0)
        err = wf__node_create(&n, g, sizeof(composite_node), &composite_ops, 0,
                              NULL, 0, NULL);
    if (err) {
        wf__mem_free(&g->mem, ports);
        return err;
    }
    composite_node *c = comp_of(n);
    c->n_in = n_in;
    c->n_out = n_out;
    c->ports = ports;
    wf__node_publish(n);
    *out = n;
    return 0;
}
