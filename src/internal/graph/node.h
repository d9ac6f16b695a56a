/* SPDX-License-Identifier: Apache-2.0 */
/* Nodes (src/graph/node.c): creation with their ports, the aggregator
 * handler every node shares, the public wf_node_* calls.  Never
 * installed. */
#ifndef WF_GRAPH_NODE_H
#define WF_GRAPH_NODE_H

#include "internal/graph/types.h"

/* Apply op through the node's aggregator (G1). */
void wf__node_exec(wf_node *n, wf__op *op);

/* Allocate a node of `size` bytes (the kind's struct, wf_node first) with
 * its ports, and add it to g.  in_sizes / out_sizes give each port's
 * message size.  Returns 0 or WF_ENOMEM / WF_EINVAL / WF_EDESTROYED. */
int wf__node_create(wf_node **out, wf_graph *g, size_t size,
                    const wf__node_ops *ops, unsigned n_in,
                    const size_t *in_sizes, unsigned n_out,
                    const size_t *out_sizes);
/* Free a node that was never shared (constructor failure paths). */
void wf__node_free(wf_node *n);
void wf__node_publish(wf_node *n); /* add to the graph's list */

/* The handler of a node kind that has no operations of its own. */
void wf__node_no_ops(wf_node *n, wf__op *op);
/* A split or indexer node's ports (tuple.c): a count out of range or a
 * size 0.  Sizes above WF_MAX_MSG_SIZE are wf__node_create's WF_ERANGE. */
bool wf__tuple_ports_bad(unsigned ports, const size_t *sizes);

/* What n holds and, for debug mode, why it is stuck (ops->stuck): read in
 * its aggregator, a consistent snapshot. */
wf__held_op wf__node_held(wf_node *n);

#endif /* WF_GRAPH_NODE_H */
