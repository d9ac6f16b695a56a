/* SPDX-License-Identifier: Apache-2.0 */
/* join_node: the tuple layout, the queueing and reserving policies, and
 * the node ops all policies share.
 *
 * Queueing: each port has a FIFO; as soon as every port holds a message
 * the heads leave together as one tuple, which a store (store.c) keeps and
 * broadcasts.  The spec keeps the heads in the ports until a successor
 * accepts the tuple; forming it at once is the same sequence of tuples,
 * seen by successors and try_get in the same order.
 *
 * Reserving: the ports keep nothing and reject every push, so each
 * predecessor's edge turns to pull and marks the port available (G3).
 * When every port is available a fire task reserves one message at each
 * port, all or none: a port where no predecessor can be reserved releases
 * what the earlier ports hold.  With all reserved the tuple is broadcast;
 * if anyone took it the reservations are consumed, else released.  A
 * predecessor that cannot be reserved (a broadcast_node) turns back to
 * push at each attempt, so a port fed only by such nodes never fires.
 * While the fire task goes on firing, a buffering predecessor consumes
 * and lends its next message in one step (consume_next), so a tuple
 * costs one aggregator op per port instead of two; what is lent that way
 * goes back (release) when the next tuple cannot be formed or the task
 * stops, so nothing is held outside a firing and the order is kept. */
#include "internal/graph/edge.h"
#include "internal/graph/join.h"
#include "internal/graph/mem.h"
#include "internal/graph/node.h"
#include "internal/graph/runtime.h"
#include "internal/graph/store.h"

/* ---- queueing, inside the handler ---------------------------------------- */

static bool all_ports_hold(join_node *j)
{
    for (unsigned i = 0; i < j->n; i++)
        if (j->ports[i].count == 0)
            return false;
    return true;
}

static void queueing_put(join_node *j, join_op *op)
{
    op->result = wf__fifo_push(&j->ports[op->port], op->msg);
    if (op->result != 0)
        return;
    op->result = WF__ACCEPT;
    /* With no room for the tuple the heads wait in the ports (still
     * accepted); the next put forms it. */
    while (all_ports_hold(j) && wf__fifo_grow(&j->store.q) == 0) {
        for (unsigned i = 0; i < j->n; i++)
            wf__fifo_pop(&j->ports[i], j->tuple + j->offset[i]);
        wf__fifo_push(&j->store.q, j->tuple);
    }
    wf__join_put_done(j, op);
}

/* ---- reserving, inside the handler -------------------------------------- */

static bool all_ports_available(join_node *j)
{
    for (unsigned i = 0; i < j->n; i++)
        if (!wf__has_edge(&j->base.in[i], WF__PULL))
            return false;
    return true;
}

static void fire_op(join_node *j, join_op *op)
{
    bool stopped = wf__node_stopped(&j->base);
    switch (op->op.type) {
    case JOIN_FIRE_REQ:
        if (j->fire_busy)
            j->fire_again = true;
        else if (!stopped && all_ports_available(j))
            op->start = j->fire_busy = true;
        break;
    case JOIN_FIRE_BEGIN:
        op->result = !j->fire_busy;
        j->fire_busy = true;
        break;
    case JOIN_FIRE_END: /* start: go on firing */
        op->start = j->fire_again && !stopped;
        j->fire_busy = op->start;
        j->fire_again = false;
        break;
    }
}

static void join_handle(wf_node *n, wf__op *op)
{
    join_node *j = (join_node *)n;
    switch (op->type) {
    case JOIN_QPUT: queueing_put(j, (join_op *)op); break;
    case JOIN_KPUT: wf__join_key_put(j, (join_op *)op); break;
    case JOIN_FIRE_REQ:
    case JOIN_FIRE_BEGIN:
    case JOIN_FIRE_END: fire_op(j, (join_op *)op); break;
    default: wf__store_handle(n, &j->store, (wf__store_op *)op);
    }
}

/* ---- reserving, outside -------------------------------------------------- */

enum { FIRE_NOT_READY, FIRE_ACCEPTED, FIRE_REJECTED };

/* Give back the reservations of the ports in `ports` (a bit each). */
static void release_ports(join_node *j, unsigned ports)
{
    for (unsigned i = 0; i < j->n; i++)
        if (ports & (1u << i))
            j->res[i]->from->node->ops->release(j->res[i]->from);
}

/* The tuple was taken: consume every reservation.  With `keep`, a
 * sender that can (consume_next) lends the next message in the same
 * step, into the next tuple's slot; its port is then `held` and the next
 * fire_once does not reserve there.  Saves an aggregator op per port and
 * tuple while the join keeps firing. */
static void consume_all(join_node *j, bool keep)
{
    for (unsigned i = 0; i < j->n; i++) {
        wf__port *from = j->res[i]->from;
        const wf__node_ops *ops = from->node->ops;
        if (keep && ops->consume_next) {
            if (ops->consume_next(from, j->fire_buf + j->offset[i]) == 1)
                j->held |= 1u << i;
        } else {
            ops->consume(from);
        }
    }
}

/* Leave the firing loop: a message lent for the next tuple goes back to
 * its sender, still its oldest (a reservation lends the head). */
static void drop_held(join_node *j)
{
    release_ports(j, j->held);
    j->held = 0;
}

/* Reserve at every port, all or none; then deliver into `into` (try_get)
 * or broadcast.  Only the thread that set fire_busy calls this.  keep:
 * the caller fires again at once (consume_all). */
static int fire_once(join_node *j, void *into, bool keep)
{
    for (unsigned i = 0; i < j->n; i++) {
        if (j->held & (1u << i))
            continue; /* lent with the last tuple's consume */
        j->res[i] =
            wf__pull_reserve(&j->base.in[i], j->fire_buf + j->offset[i]);
        if (j->res[i] == NULL) {
            /* The ports before i, and any held after it. */
            release_ports(j, ((1u << i) - 1) | j->held);
            j->held = 0;
            return FIRE_NOT_READY;
        }
    }
    j->held = 0;
    bool taken = true;
    if (into)
        wf__msg_copy(into, j->fire_buf, j->tuple_size);
    else
        taken = wf__push_broadcast(&j->base.out[0], j->fire_buf) > 0;
    if (taken)
        consume_all(j, keep && !into);
    else
        release_ports(j, (1u << j->n) - 1);
    return taken ? FIRE_ACCEPTED : FIRE_REJECTED;
}

/* Ask to stop firing; true when a request came meanwhile (go on). */
static bool fire_end(join_node *j)
{
    join_op op = {.op.type = JOIN_FIRE_END};
    wf__node_exec(&j->base, &op.op);
    return op.start;
}

#define FIRE_BUDGET 1024 /* tuples per pool task before it yields */

static void fire_run(wf__gtask *t)
{
    join_node *j = t->arg;
    for (int budget = FIRE_BUDGET; budget > 0; budget--) {
        /* After a rejection by every successor, wait for one to ask (a
         * pull, or its edge back to push) instead of offering again. */
        if (!wf__node_stopped(&j->base) &&
            fire_once(j, NULL, budget > 1) == FIRE_ACCEPTED)
            continue;
        drop_held(j); /* stopped: fire_once did not run */
        if (!fire_end(j))
            return;
    }
    wf__spawn(wf__node_graph(&j->base), &j->fire_task); /* still busy */
}

static void fire_request(join_node *j)
{
    join_op op = {.op.type = JOIN_FIRE_REQ};
    wf__node_exec(&j->base, &op.op);
    if (op.start)
        wf__spawn(wf__node_graph(&j->base), &j->fire_task);
}

static int reserving_put(wf__port *in, const void *msg)
{
    (void)in, (void)msg;
    return WF__REJECT_PULL; /* always: the edge turns to pull (spec) */
}

static void reserving_pred_pull(wf__port *in)
{
    fire_request((join_node *)in->node);
}

static void reserving_succ_push(wf__port *out)
{
    fire_request((join_node *)out->node);
}

/* A successor pulls: fire here, into msg, if nobody else is firing. */
static int reserving_get(wf__port *out, void *msg)
{
    join_node *j = (join_node *)out->node;
    join_op op = {.op.type = JOIN_FIRE_BEGIN};
    wf__node_exec(&j->base, &op.op);
    if (!op.result)
        return 0;
    int r =
        wf__node_stopped(&j->base) ? FIRE_NOT_READY : fire_once(j, msg, false);
    if (fire_end(j))
        wf__spawn(wf__node_graph(&j->base), &j->fire_task);
    return r == FIRE_ACCEPTED;
}

/* ---- the sender side of queueing / key joins: the store ------------------ */

static wf__store *store_of(wf__port *p)
{
    return &((join_node *)p->node)->store;
}

static int store_get(wf__port *out, void *msg)
{
    return wf__store_call(out->node, store_of(out), WF__ST_GET, NULL, msg);
}

static int store_reserve(wf__port *out, void *msg)
{
    return wf__store_call(out->node, store_of(out), WF__ST_RESERVE, NULL, msg);
}

static int store_release(wf__port *out)
{
    return wf__store_call(out->node, store_of(out), WF__ST_RELEASE, NULL, NULL);
}

static int store_consume(wf__port *out)
{
    return wf__store_call(out->node, store_of(out), WF__ST_CONSUME, NULL, NULL);
}

static int store_consume_next(wf__port *out, void *msg)
{
    return wf__store_consume_next(out->node, store_of(out), msg);
}

static void store_succ_push(wf__port *out)
{
    wf__store_call(out->node, store_of(out), WF__ST_SUCC_PUSH, NULL, NULL);
}

/* ---- puts ---------------------------------------------------------------- */

/* The two puts, applied through the aggregator with their own handlers
 * (internal/graph/agg.h, wf__agg_execute): no dispatch on the type. */
static void qput_handler(void *self, wf__op *op)
{
    queueing_put(self, (join_op *)op);
}

static void kput_handler(void *self, wf__op *op)
{
    wf__join_key_put(self, (join_op *)op);
}

#define DIRECT_MAX 256 /* tuples up to this size may be offered directly */

static int run_put(join_node *j, join_op *op, wf__agg_handler h)
{
    union {
        max_align_t align;
        unsigned char bytes[DIRECT_MAX];
    } tuple;
    if (j->tuple_size <= sizeof tuple && wf__store_may_offer())
        op->out = &tuple;
    wf__agg_execute(&j->base.agg, &op->op, h, j);
    /* A tuple nobody took goes back to the store, as one a put kept; it
     * was accepted already, so a failure to keep it fails the graph. */
    if (op->direct && !wf__store_offer(&j->base, &j->store, op->out)) {
        int r =
            wf__store_call(&j->base, &j->store, WF__ST_PUT_KEPT, op->out, NULL);
        wf_graph *g = wf__node_graph(&j->base);
        if (r < 0 && g)
            wf__graph_fail(g, r);
    }
    if (op->start)
        wf__store_kick(&j->base, &j->store);
    return op->result;
}

static int queueing_port_put(wf__port *in, const void *msg)
{
    join_op op = {.op.type = JOIN_QPUT, .port = wf__port_index(in), .msg = msg};
    return run_put((join_node *)in->node, &op, qput_handler);
}

static int key_port_put(wf__port *in, const void *msg)
{
    join_node *j = (join_node *)in->node;
    unsigned char small[64];
    void *key = j->key_size <= sizeof small
                    ? small
                    : wf__mem_alloc(wf__node_mem(&j->base), j->key_size);
    if (key == NULL)
        return WF_ENOMEM;
    join_op op = {.op.type = JOIN_KPUT,
                  .port = wf__port_index(in),
                  .msg = msg,
                  .key = key};
    /* The user's key function runs here, outside the aggregator (G2). */
    op.hash = wf__join_key_of(j, wf__port_index(in), msg, key);
    int r = run_put(j, &op, kput_handler);
    if (key != small)
        wf__mem_free(wf__node_mem(&j->base), key);
    return r;
}

/* ---- reset, held, destroy ------------------------------------------------ */

static void join_reset(wf_node *n)
{
    join_node *j = (join_node *)n;
    for (unsigned i = 0; i < j->n; i++)
        wf__fifo_clear(&j->ports[i]);
    wf__fifo_clear(&j->store.q);
    j->store.reserved = 0;
    j->fire_again = false;
    if (j->keys)
        wf__join_key_reset(j);
    wf__store_settle(&j->store);
}

static size_t join_held(wf_node *n)
{
    join_node *j = (join_node *)n;
    size_t held = j->store.q.count * j->n;
    for (unsigned i = 0; i < j->n; i++)
        held += j->ports[i].count;
    return held + (j->keys ? wf__join_key_held(j) : 0);
}

static void join_destroy(wf_node *n)
{
    join_node *j = (join_node *)n;
    for (unsigned i = 0; i < j->n; i++)
        wf__fifo_free(&j->ports[i]);
    wf__store_free(&j->store);
    wf__join_keys_destroy(j);
    wf__mem_free(wf__node_mem(n), j->tuple);
    wf__mem_free(wf__node_mem(n), j->fire_buf);
}

#define STORE_JOIN_OPS(name, putfn)                                            \
    {                                                                          \
        .kind = name, .tuple_offsets = offsetof(join_node, offset),            \
        .put = putfn, .get = store_get, .reserve = store_reserve,              \
        .release = store_release, .consume = store_consume,                    \
        .consume_next = store_consume_next, .succ_push = store_succ_push,      \
        .handle = join_handle, .reset = join_reset, .held = join_held,         \
        .destroy = join_destroy,                                               \
    }

static const wf__node_ops queueing_ops =
    STORE_JOIN_OPS("join_node<queueing>", queueing_port_put);
static const wf__node_ops key_ops =
    STORE_JOIN_OPS("join_node<key_matching>", key_port_put);
static const wf__node_ops tag_ops =
    STORE_JOIN_OPS("join_node<tag_matching>", key_port_put);
static const wf__node_ops reserving_ops = {
    .kind = "join_node<reserving>",
    .tuple_offsets = offsetof(join_node, offset),
    .put = reserving_put,
    .pred_pull = reserving_pred_pull,
    .get = reserving_get,
    .succ_push = reserving_succ_push,
    .handle = join_handle,
    .reset = join_reset,
    .held = join_held,
    .destroy = join_destroy,
};

/* ---- construction -------------------------------------------------------- */

static int check_config(const wf_join_config *c)
{
    if (c == NULL || c->ports < 2 || c->ports > WF_JOIN_MAX_PORTS ||
        c->msg_sizes == NULL)
        return WF_EINVAL;
    for (unsigned i = 0; i < c->ports; i++) {
        if (c->msg_sizes[i] == 0)
            return WF_EINVAL;
        if (c->policy == WF_JOIN_KEY_MATCHING &&
            (c->key_fns == NULL || c->key_fns[i] == NULL))
            return WF_EINVAL;
        if (c->policy == WF_JOIN_TAG_MATCHING &&
            (c->tag_fns == NULL || c->tag_fns[i] == NULL))
            return WF_EINVAL;
    }
    if (c->policy == WF_JOIN_KEY_MATCHING && c->key_size == 0)
        return WF_EINVAL;
    if (c->policy == WF_JOIN_KEY_MATCHING && c->key_size > WF_MAX_MSG_SIZE)
        return WF_ERANGE;
    return (unsigned)c->policy <= WF_JOIN_TAG_MATCHING ? 0 : WF_EINVAL;
}

static const wf__node_ops *ops_for(wf_join_policy p)
{
    switch (p) {
    case WF_JOIN_QUEUEING: return &queueing_ops;
    case WF_JOIN_RESERVING: return &reserving_ops;
    case WF_JOIN_KEY_MATCHING: return &key_ops;
    default: return &tag_ops;
    }
}

static int init_join(join_node *j, const wf_join_config *c)
{
    j->policy = c->policy;
    j->n = c->ports;
    j->tuple_size = wf_tuple_layout(j->n, c->msg_sizes, j->offset);
    j->ctx = c->ctx;
    j->key_size =
        c->policy == WF_JOIN_TAG_MATCHING ? sizeof(uint64_t) : c->key_size;
    for (unsigned i = 0; i < j->n; i++) {
        wf__fifo_init(&j->ports[i], c->msg_sizes[i], wf__node_mem(&j->base));
        if (c->key_fns && c->policy == WF_JOIN_KEY_MATCHING)
            j->key_fns[i] = c->key_fns[i];
        if (c->tag_fns && c->policy == WF_JOIN_TAG_MATCHING)
            j->tag_fns[i] = c->tag_fns[i];
    }
    j->fire_task.run = fire_run;
    j->fire_task.arg = j;
    j->tuple = wf__mem_alloc(wf__node_mem(&j->base), j->tuple_size);
    j->fire_buf = wf__mem_alloc(wf__node_mem(&j->base), j->tuple_size);
    int err = wf__store_init(&j->store, &j->base, j->tuple_size, true);
    j->store.direct = true; /* join_handle passes WF__ST_* ops on */
    if (err == 0 && c->policy >= WF_JOIN_KEY_MATCHING)
        err = wf__join_keys_create(j);
    return j->tuple && j->fire_buf && err == 0 ? 0 : WF_ENOMEM;
}

int wf_join_node_create(wf_node **out, wf_graph *g, const wf_join_config *cfg)
{
    if (out == NULL)
        return WF_EINVAL;
    int err = check_config(cfg);
    if (err)
        return err;
    size_t tuple_size = wf_tuple_layout(cfg->ports, cfg->msg_sizes, NULL);
    wf_node *n;
    err = wf__node_create(&n, g, sizeof(join_node), ops_for(cfg->policy),
                          cfg->ports, cfg->msg_sizes, 1, &tuple_size);
    if (err)
        return err;
    if (init_join((join_node *)n, cfg) != 0) {
        wf__node_free(n);
        return WF_ENOMEM;
    }
    wf__node_publish(n);
    *out = n;
    return 0;
}
