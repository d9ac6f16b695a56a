/* SPDX-License-Identifier: Apache-2.0 */
/* overwrite_node and write_once_node: one message, kept until cleared.
 *
 * The value lives in the node; try_get and try_reserve copy it and leave
 * it.  Each accepted put also goes to a store (store.c) in discard mode,
 * whose forwarder offers it once to every successor in push state and
 * drops it: the puts reach the successors in the order the node took
 * them, so the last one a successor got is the value the node holds.
 *
 * A new edge gets the current value at once (new_succ), along that edge
 * only.  A put that races with the edge's creation may reach the new
 * successor before that first offer does.
 *
 * A reservation does not pin the value (oneTBB's reservable overwrite_node
 * neither): it only counts, so that release and consume can say
 * WF_ENOENT when nothing was reserved. */
#include "internal/graph/edge.h"
#include "internal/graph/mem.h"
#include "internal/graph/node.h"
#include "internal/graph/runtime.h"
#include "internal/graph/store.h"

typedef struct ow_node {
    wf_node base;
    wf__store store; /* puts waiting to be offered (discard mode) */
    char *value;
    bool valid;
    bool once;           /* write_once_node */
    size_t reservations; /* reserved and not yet released or consumed */
} ow_node;

enum { OW_GET = WF__OP_KIND, OW_RESERVE, OW_END, OW_IS_VALID, OW_CLEAR };

static ow_node *ow_of(wf_node *n)
{
    return (ow_node *)n;
}

/* ---- inside the handler -------------------------------------------------- */

static void ow_handle(wf_node *n, wf__op *o)
{
    ow_node *w = ow_of(n);
    wf__store_op *op = (wf__store_op *)o;
    switch (o->type) {
    case WF__ST_PUT:
        if (w->once && w->valid) {
            op->result = WF__REJECT; /* a plain no: the edge stays push */
            return;
        }
        wf__store_handle(n, &w->store, op);
        if (op->result == WF__ACCEPT) { /* not on WF_ENOMEM: unchanged */
            memcpy(w->value, op->in, w->store.q.size);
            w->valid = true;
        }
        return;
    case OW_GET:
    case OW_RESERVE:
        op->result = w->valid;
        if (w->valid) {
            memcpy(op->out, w->value, w->store.q.size);
            w->reservations += o->type == OW_RESERVE;
        }
        return;
    case OW_END:
        op->result = w->reservations ? 0 : WF_ENOENT;
        w->reservations -= w->reservations > 0;
        return;
    case OW_IS_VALID: op->result = w->valid; return;
    case OW_CLEAR:
        w->valid = false;
        op->result = 0;
        return;
    default: wf__store_handle(n, &w->store, op); /* the forwarder's steps */
    }
}

static void ow_reset(wf_node *n)
{
    ow_node *w = ow_of(n);
    w->valid = false;
    w->reservations = 0;
    wf__fifo_clear(&w->store.q);
    w->store.reserved = 0;
}

static size_t ow_held(wf_node *n)
{
    return ow_of(n)->valid;
}

/* ---- outside ------------------------------------------------------------- */

static int call(wf_node *n, int type, const void *in, void *out)
{
    return wf__store_call(n, &ow_of(n)->store, type, in, out);
}

static int ow_put(wf__port *in, const void *msg)
{
    return call(in->node, WF__ST_PUT, msg, NULL);
}

static int ow_get(wf__port *out, void *msg)
{
    return call(out->node, OW_GET, NULL, msg);
}

static int ow_reserve(wf__port *out, void *msg)
{
    return call(out->node, OW_RESERVE, NULL, msg);
}

static int ow_end(wf__port *out) /* release and consume alike */
{
    return call(out->node, OW_END, NULL, NULL);
}

static void ow_succ_push(wf__port *out)
{
    call(out->node, WF__ST_SUCC_PUSH, NULL, NULL);
}

/* A new successor gets the current value, along its edge only. */
static void ow_new_succ(wf__port *out, wf__edge *e)
{
    wf_node *n = out->node;
    if (wf__node_stopped(n))
        return;
    char *v = wf__mem_alloc(wf__node_mem(n), out->size);
    if (v == NULL) { /* the offer cannot be made: say so, do not skip it */
        wf__graph_fail(wf__node_graph(n), WF_ENOMEM);
        return;
    }
    if (call(n, OW_GET, NULL, v) == 1)
        wf__push_edge(e, v);
    wf__mem_free(wf__node_mem(n), v);
}

static void ow_destroy(wf_node *n)
{
    wf__store_free(&ow_of(n)->store);
    wf__mem_free(wf__node_mem(n), ow_of(n)->value);
}

#define OW_OPS(name)                                                           \
    {                                                                          \
        .kind = name, .keeps_on_get = true, .put = ow_put, .get = ow_get,      \
        .reserve = ow_reserve, .release = ow_end, .consume = ow_end,           \
        .succ_push = ow_succ_push, .new_succ = ow_new_succ,                    \
        .handle = ow_handle, .reset = ow_reset, .held = ow_held,               \
        .destroy = ow_destroy,                                                 \
    }

static const wf__node_ops overwrite_ops = OW_OPS("overwrite_node");
static const wf__node_ops write_once_ops = OW_OPS("write_once_node");

static int create(wf_node **out, wf_graph *g, size_t msg_size, bool once)
{
    if (out == NULL)
        return WF_EINVAL;
    wf_node *n;
    int err = wf__node_create(&n, g, sizeof(ow_node),
                              once ? &write_once_ops : &overwrite_ops, 1,
                              &msg_size, 1, &msg_size);
    if (err)
        return err;
    ow_node *w = ow_of(n);
    w->once = once;
    w->value = wf__mem_alloc(wf__node_mem(n), msg_size);
    if (w->value == NULL || wf__store_init(&w->store, n, msg_size, true)) {
        wf__node_free(n); /* ow_destroy frees what was allocated */
        return WF_ENOMEM;
    }
    w->store.discard = true;
    wf__node_publish(n);
    *out = n;
    return 0;
}

int wf_overwrite_node_create(wf_node **out, wf_graph *g, size_t msg_size)
{
    return create(out, g, msg_size, false);
}

int wf_write_once_node_create(wf_node **out, wf_graph *g, size_t msg_size)
{
    return create(out, g, msg_size, true);
}

static int checked_call(wf_node *n, int type)
{
    if (n == NULL || (n->ops != &overwrite_ops && n->ops != &write_once_ops))
        return WF_EINVAL;
    if (wf__node_graph(n) == NULL)
        return WF_EDESTROYED;
    return call(n, type, NULL, NULL);
}

int wf_overwrite_node_is_valid(wf_node *n)
{
    return checked_call(n, OW_IS_VALID);
}

int wf_overwrite_node_clear(wf_node *n)
{
    return checked_call(n, OW_CLEAR);
}
