/* SPDX-License-Identifier: Apache-2.0 */
/* broadcast_node, buffer_node, queue_node and priority_queue_node.
 *
 * A broadcast node keeps nothing: a put is offered at once, on the putting
 * thread, to every successor in push state, and is "accepted" whatever
 * they answer (oneTBB's broadcast_node does the same).  It cannot be
 * pulled from, so an edge a receiver reversed comes back to push at the
 * receiver's next pull, and what was offered meanwhile is lost: the
 * behaviour examples/reservation.c walks through.
 *
 * Buffer, queue and priority queue nodes are a store (store.c) behind one
 * input port: single-push, try_get, reservation; the priority queue's
 * store keeps a heap, the others a FIFO.  The buffer_node's order is not part
 * of its contract; both are FIFO here, which the reserving join relies on
 * for a repeatable run_example2 (it reserves the oldest message). */
#include "internal/graph/edge.h"
#include "internal/graph/node.h"
#include "internal/graph/store.h"

/* ---- broadcast ----------------------------------------------------------- */

static int broadcast_put(wf__port *in, const void *msg)
{
    wf__push_broadcast(&in->node->out[0], msg);
    return WF__ACCEPT;
}

static void no_ops(wf_node *n, wf__op *op)
{
    (void)n, (void)op;
    WF_BUG("unknown operation");
}

static const wf__node_ops broadcast_ops = {
    .kind = "broadcast_node",
    .signals = true, /* a broadcast of signals starts a dependency graph */
    .put = broadcast_put,
    .handle = no_ops,
};

int wf_broadcast_node_create(wf_node **out, wf_graph *g, size_t msg_size)
{
    if (out == NULL)
        return WF_EINVAL;
    wf_node *n;
    int err = wf__node_create(&n, g, sizeof *n, &broadcast_ops, 1, &msg_size, 1,
                              &msg_size);
    if (err)
        return err;
    wf__node_publish(n);
    *out = n;
    return 0;
}

/* ---- buffer and queue ---------------------------------------------------- */

typedef struct buffer_node {
    wf_node base;
    wf__store store;
} buffer_node;

static wf__store *store_of(wf_node *n)
{
    return &((buffer_node *)n)->store;
}

static int buffer_put(wf__port *in, const void *msg)
{
    return wf__store_put(in->node, store_of(in->node), msg);
}

static int buffer_get(wf__port *out, void *msg)
{
    return wf__store_call(out->node, store_of(out->node), WF__ST_GET, NULL,
                          msg);
}

static int buffer_reserve(wf__port *out, void *msg)
{
    return wf__store_call(out->node, store_of(out->node), WF__ST_RESERVE, NULL,
                          msg);
}

static int buffer_release(wf__port *out)
{
    return wf__store_call(out->node, store_of(out->node), WF__ST_RELEASE, NULL,
                          NULL);
}

static int buffer_consume(wf__port *out)
{
    return wf__store_call(out->node, store_of(out->node), WF__ST_CONSUME, NULL,
                          NULL);
}

static int buffer_consume_next(wf__port *out, void *msg)
{
    return wf__store_consume_next(out->node, store_of(out->node), msg);
}

static void buffer_succ_push(wf__port *out)
{
    wf__store_call(out->node, store_of(out->node), WF__ST_SUCC_PUSH, NULL,
                   NULL);
}

static void buffer_handle(wf_node *n, wf__op *op)
{
    wf__store_handle(n, store_of(n), (wf__store_op *)op);
}

static void buffer_reset(wf_node *n)
{
    wf__store *s = store_of(n);
    wf__fifo_clear(&s->q);
    s->reserved = 0;
    wf__store_settle(s);
}

static size_t buffer_held(wf_node *n)
{
    return store_of(n)->q.count;
}

static void buffer_destroy(wf_node *n)
{
    wf__store_free(store_of(n));
}

#define BUFFER_OPS(name, sig)                                                  \
    {                                                                          \
        .kind = name, .signals = sig, .put = buffer_put, .get = buffer_get,    \
        .reserve = buffer_reserve, .release = buffer_release,                  \
        .consume = buffer_consume, .consume_next = buffer_consume_next,        \
        .succ_push = buffer_succ_push, .handle = buffer_handle,                \
        .reset = buffer_reset, .held = buffer_held, .destroy = buffer_destroy, \
    }

/* Buffers and queues of signals (message size WF_SIGNAL) keep a count:
 * their FIFO has no bytes per message.  A priority queue of signals would
 * have nothing to order. */
static const wf__node_ops buffer_ops = BUFFER_OPS("buffer_node", true);
static const wf__node_ops queue_ops = BUFFER_OPS("queue_node", true);
/* A priority_queue_node is the same node with its store ordered by cmp
 * (store.c keeps the heap). */
static const wf__node_ops priority_queue_ops =
    BUFFER_OPS("priority_queue_node", false);

static int create(wf_node **out, wf_graph *g, size_t msg_size,
                  const wf__node_ops *ops, wf_compare_fn cmp, void *ctx)
{
    if (out == NULL)
        return WF_EINVAL;
    wf_node *n;
    int err = wf__node_create(&n, g, sizeof(buffer_node), ops, 1, &msg_size, 1,
                              &msg_size);
    if (err)
        return err;
    if (wf__store_init(store_of(n), n, msg_size, false) != 0) {
        wf__node_free(n);
        return WF_ENOMEM;
    }
    store_of(n)->cmp = cmp;
    store_of(n)->cmp_ctx = ctx;
    store_of(n)->direct = true; /* buffer_handle only passes ops on */
    wf__node_publish(n);
    *out = n;
    return 0;
}

int wf_buffer_node_create(wf_node **out, wf_graph *g, size_t msg_size)
{
    return create(out, g, msg_size, &buffer_ops, NULL, NULL);
}

int wf_queue_node_create(wf_node **out, wf_graph *g, size_t msg_size)
{
    return create(out, g, msg_size, &queue_ops, NULL, NULL);
}

int wf_priority_queue_node_create(wf_node **out, wf_graph *g, size_t msg_size,
                                  wf_compare_fn cmp, void *ctx)
{
    if (cmp == NULL)
        return WF_EINVAL;
    return create(out, g, msg_size, &priority_queue_ops, cmp, ctx);
}
