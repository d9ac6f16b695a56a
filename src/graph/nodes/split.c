/* SPDX-License-Identifier: Apache-2.0 */
/* split_node: takes a tuple (a join's message) apart, sending element i
 * from output port i.  It keeps nothing (discarding, broadcast-push, as
 * the oneTBB specification has it): a put is broadcast at once on the
 * putting thread and always accepted, like a broadcast_node's.  It has no
 * state, so no aggregator operations either. */
#include "internal/graph/edge.h"
#include "internal/graph/node.h"

typedef struct split_node {
    wf_node base;
    size_t offset[WF_JOIN_MAX_PORTS];
} split_node;

static int split_put(wf__port *in, const void *msg)
{
    split_node *s = (split_node *)in->node;
    for (unsigned i = 0; i < s->base.n_out; i++)
        wf__push_broadcast(&s->base.out[i], (const char *)msg + s->offset[i]);
    return WF__ACCEPT;
}

static const wf__node_ops split_ops = {
    .kind = "split_node",
    .tuple_offsets = offsetof(split_node, offset),
    .tuple_in = true,
    .put = split_put,
    .handle = wf__node_no_ops,
};

int wf_split_node_create(wf_node **out, wf_graph *g, unsigned ports,
                         const size_t *msg_sizes)
{
    if (out == NULL || wf__tuple_ports_bad(ports, msg_sizes))
        return WF_EINVAL;
    size_t offset[WF_JOIN_MAX_PORTS];
    size_t tuple_size = wf_tuple_layout(ports, msg_sizes, offset);
    wf_node *n;
    int err = wf__node_create(&n, g, sizeof(split_node), &split_ops, 1,
                              &tuple_size, ports, msg_sizes);
    if (err)
        return err;
    memcpy(((split_node *)n)->offset, offset, sizeof offset);
    wf__node_publish(n);
    *out = n;
    return 0;
}
