/* SPDX-License-Identifier: Apache-2.0 */
/* indexer_node: a message on input port i goes out as a tagged message
 * (wf_tagged_msg: i, then the value).  Like split_node it keeps nothing:
 * a put is broadcast at once on the putting thread and always accepted,
 * and it has no aggregator operations. */
#include "internal/graph/edge.h"
#include "internal/graph/mem.h"
#include "internal/graph/node.h"

#define SMALL_TAGGED 256 /* tagged messages built on the stack up to this */

static int indexer_put(wf__port *in, const void *msg)
{
    wf__port *out = &in->node->out[0];
    union {
        wf_tagged_msg m;
        max_align_t align;
        unsigned char bytes[SMALL_TAGGED];
    } small;
    wf_tagged_msg *t = out->size <= sizeof small
                           ? &small.m
                           : wf__mem_alloc(wf__node_mem(in->node), out->size);
    if (t == NULL)
        return WF_ENOMEM;
    memset(t, 0, out->size); /* no stale bytes after a short value */
    t->port = wf__port_index(in);
    memcpy(t->value, msg, in->size);
    wf__push_broadcast(out, t);
    if (t != &small.m)
        wf__mem_free(wf__node_mem(in->node), t);
    return WF__ACCEPT;
}

static const wf__node_ops indexer_ops = {
    .kind = "indexer_node",
    .put = indexer_put,
    .handle = wf__node_no_ops,
};

int wf_indexer_node_create(wf_node **out, wf_graph *g, unsigned ports,
                           const size_t *msg_sizes)
{
    if (out == NULL || wf__tuple_ports_bad(ports, msg_sizes))
        return WF_EINVAL;
    size_t largest = 0;
    for (unsigned i = 0; i < ports; i++)
        largest = msg_sizes[i] > largest ? msg_sizes[i] : largest;
    size_t size = WF_TAGGED_MSG_SIZE(largest);
    wf_node *n;
    int err = wf__node_create(&n, g, sizeof(wf_node), &indexer_ops, ports,
                              msg_sizes, 1, &size);
    if (err)
        return err;
    wf__node_publish(n);
    *out = n;
    return 0;
}
