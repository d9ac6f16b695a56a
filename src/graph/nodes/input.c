/* SPDX-License-Identifier: Apache-2.0 */
/* input_node: a source that calls its body for each message and broadcasts
 * it; buffering (one message), pullable and reservable.
 *
 * It starts inactive.  Once activated, its forwarder (one pool task at a
 * time, G4) calls the body and offers each message to every successor in
 * push state, until the body says WF_INPUT_DONE or no successor takes the
 * message: that one stays buffered, and the node waits to be pulled (or for
 * an edge to come back to push, or a new successor).  try_get and
 * try_reserve hand out the buffered message, or, when there is none and
 * the node is active, call the body on the caller's thread to make one.
 *
 * The body never runs twice at once: a call is "making" under the
 * aggregator, and nobody else starts one meanwhile (a try_get then finds
 * nothing, as it does while the forwarder is offering the buffered
 * message).  The body writes into the node's buffer only while making, and
 * the buffer is read outside the aggregator only while it is lent to the
 * forwarder, so neither access needs more than the aggregator's order. */
#include "internal/graph/edge.h"
#include "internal/graph/mem.h"
#include "internal/graph/node.h"
#include "internal/graph/runtime.h"

typedef struct input_node {
    wf_node base;
    wf_input_fn body;
    void *ctx;
    char *item;     /* the buffered message */
    wf__gtask task; /* the forwarder */
    /* state, under the aggregator */
    bool active, done, has_item, making;
    bool fwd_busy, fwd_again, wake; /* wake: start the forwarder after a
                                       puller's body call */
    int reserved;                   /* 0, WF__RES_PULLER or WF__RES_FWD */
} input_node;

enum {
    IN_ACTIVATE = WF__OP_KIND,
    IN_TAKE, /* get or reserve */
    IN_MADE, /* a puller's body call returned */
    IN_RELEASE,
    IN_CONSUME,
    IN_SUCC_PUSH,
    IN_FWD
};
/* IN_TAKE results beyond 0 and 1; IN_FWD results; IN_FWD's prev */
enum { TAKE_MAKE = 2 };
enum { FWD_STOP, FWD_PUSH, FWD_MAKE, FWD_HANDOFF };
enum { PREV_NONE, PREV_ACCEPTED, PREV_REJECTED, PREV_MADE, PREV_END };

typedef struct in_op {
    wf__op op;
    void *out;    /* IN_TAKE / IN_MADE: the caller's message */
    bool reserve; /* IN_TAKE / IN_MADE */
    int result;
    int prev;     /* IN_FWD; IN_MADE: PREV_MADE or PREV_END */
    bool handoff; /* IN_FWD: budget spent */
    bool start;   /* the caller must spawn the forwarder */
} in_op;

#define TASK_BUDGET 256 /* messages per forwarder task before it yields */

/* ---- inside the handler -------------------------------------------------- */

static bool should_start(input_node *s)
{
    if (s->making) { /* the puller's call ends with a look */
        s->wake = true;
        return false;
    }
    if (s->fwd_busy || !s->active || s->reserved || (s->done && !s->has_item) ||
        wf__node_stopped(&s->base) || !wf__has_edge(&s->base.out[0], WF__PUSH))
        return false;
    s->fwd_busy = true;
    s->fwd_again = false;
    return true;
}

static void handle_take(input_node *s, in_op *op)
{
    if (s->has_item) {
        op->result = !s->reserved;
        if (op->result)
            memcpy(op->out, s->item, s->base.out[0].size);
        if (op->result && op->reserve)
            s->reserved = WF__RES_PULLER;
        else if (op->result)
            s->has_item = false;
    } else if (!s->active || s->done || s->making ||
               wf__node_stopped(&s->base)) {
        op->result = 0;
    } else {
        s->making = true;
        op->result = TAKE_MAKE;
    }
}

static void handle_made(input_node *s, in_op *op)
{
    s->making = false;
    if (op->prev == PREV_END) {
        s->done = true;
    } else if (op->reserve) { /* keep it, lent to the caller */
        memcpy(s->item, op->out, s->base.out[0].size);
        s->has_item = true;
        s->reserved = WF__RES_PULLER;
    }
    if (s->wake) {
        s->wake = false;
        op->start = should_start(s);
    }
}

static void puller_done(input_node *s, in_op *op, bool consume)
{
    if (s->reserved != WF__RES_PULLER) {
        op->result = WF_ENOENT;
        return;
    }
    s->reserved = 0;
    if (consume)
        s->has_item = false;
    op->result = 0;
    op->start = should_start(s); /* as oneTBB: offer (or make) the next */
}

/* The forwarder's step: settle what it did last, then choose the next. */
static void fwd_step(input_node *s, in_op *op)
{
    switch (op->prev) {
    case PREV_ACCEPTED: s->has_item = false; /* fall through */
    case PREV_REJECTED: s->reserved = 0; break;
    case PREV_MADE:
        s->making = false;
        s->has_item = true;
        break;
    case PREV_END:
        s->making = false;
        s->done = true;
        break;
    }
    op->result = FWD_STOP;
    if (!s->active || wf__node_stopped(&s->base) ||
        !wf__has_edge(&s->base.out[0], WF__PUSH)) {
        /* stop */
    } else if (s->has_item) {
        /* After a rejection by everyone, go on only if a successor came
         * back to push meanwhile (G4). */
        if (!s->reserved && (op->prev != PREV_REJECTED || s->fwd_again))
            op->result = op->handoff ? FWD_HANDOFF : FWD_PUSH;
    } else if (s->making) {
        s->wake = true; /* a puller is calling the body: it looks after */
    } else if (!s->done) {
        op->result = op->handoff ? FWD_HANDOFF : FWD_MAKE;
    }
    if (op->result == FWD_PUSH) {
        s->fwd_again = false;
        s->reserved = WF__RES_FWD;
    } else if (op->result == FWD_MAKE) {
        s->making = true;
    } else if (op->result == FWD_STOP) {
        s->fwd_busy = s->fwd_again = false;
    }
}

static void input_handle(wf_node *n, wf__op *o)
{
    input_node *s = (input_node *)n;
    in_op *op = (in_op *)o;
    switch (o->type) {
    case IN_ACTIVATE:
        s->active = true;
        op->start = should_start(s);
        break;
    case IN_TAKE: handle_take(s, op); break;
    case IN_MADE: handle_made(s, op); break;
    case IN_RELEASE: puller_done(s, op, false); break;
    case IN_CONSUME: puller_done(s, op, true); break;
    case IN_SUCC_PUSH:
        if (s->fwd_busy)
            s->fwd_again = true;
        else
            op->start = should_start(s);
        break;
    case IN_FWD: fwd_step(s, op); break;
    default: WF_BUG("unknown input_node operation");
    }
}

/* ---- outside ------------------------------------------------------------- */

/* Call the body into out; PREV_MADE or PREV_END (done, or an error, which
 * wf__body_end records for the graph). */
static int call_body(input_node *s, void *out)
{
    bool traced = wf__body_begin(&s->base);
    int rc = s->body(out, s->ctx);
    wf__body_end(&s->base, rc < 0 ? rc : 0, traced);
    return rc == 0 ? PREV_MADE : PREV_END;
}

static void forward_task(wf__gtask *t)
{
    input_node *s = t->arg;
    in_op op = {.op.type = IN_FWD, .prev = PREV_NONE};
    for (int budget = TASK_BUDGET;; budget--) {
        op.handoff = budget <= 0;
        wf__node_exec(&s->base, &op.op);
        if (op.result == FWD_STOP)
            return;
        if (op.result == FWD_HANDOFF) { /* stays busy: the task goes on */
            wf__spawn(wf__node_graph(&s->base), &s->task);
            return;
        }
        if (op.result == FWD_MAKE)
            op.prev = call_body(s, s->item);
        else
            op.prev = wf__push_broadcast(&s->base.out[0], s->item) > 0
                          ? PREV_ACCEPTED
                          : PREV_REJECTED;
    }
}

/* Apply op; spawn the forwarder if it says so (never run it here: it
 * calls the body, which runs on the pool). */
static int call(input_node *s, in_op *op)
{
    wf__node_exec(&s->base, &op->op);
    if (op->start)
        wf__spawn(wf__node_graph(&s->base), &s->task);
    return op->result;
}

static int take(wf__port *out, void *msg, bool reserve)
{
    input_node *s = (input_node *)out->node;
    in_op op = {.op.type = IN_TAKE, .out = msg, .reserve = reserve};
    if (call(s, &op) != TAKE_MAKE)
        return op.result;
    in_op made = {.op.type = IN_MADE, .out = msg, .reserve = reserve};
    /* The body runs on the puller's thread, which may run no task of the
     * graph (a try_get from main): a wait for the graph from it is
     * refused all the same (wf__inline_body_begin). */
    wf__graph_frame frame;
    wf__inline_body_begin(&frame, wf__node_graph(&s->base));
    made.prev = call_body(s, msg);
    wf__inline_body_end(&frame);
    call(s, &made);
    return made.prev == PREV_MADE;
}

static int input_get(wf__port *out, void *msg)
{
    return take(out, msg, false);
}
static int input_reserve(wf__port *out, void *msg)
{
    return take(out, msg, true);
}

static int simple(wf_node *n, int type)
{
    in_op op = {.op.type = type};
    return call((input_node *)n, &op);
}

static int input_release(wf__port *out)
{
    return simple(out->node, IN_RELEASE);
}
static int input_consume(wf__port *out)
{
    return simple(out->node, IN_CONSUME);
}
static void input_succ_push(wf__port *out)
{
    simple(out->node, IN_SUCC_PUSH);
}

static void input_reset(wf_node *n)
{
    input_node *s = (input_node *)n;
    /* Waited for: no forwarder and no body call is running. */
    s->active = s->done = s->has_item = s->making = false;
    s->fwd_again = s->wake = false;
    s->reserved = 0;
}

static size_t input_held(wf_node *n)
{
    return ((input_node *)n)->has_item;
}

static const char *input_stuck(wf_node *n)
{
    return ((input_node *)n)->active
               ? NULL
               : "never activated: wf_input_node_activate starts it";
}

static void input_destroy(wf_node *n)
{
    wf__mem_free(wf__node_mem(n), ((input_node *)n)->item);
}

static const wf__node_ops input_ops = {
    .kind = "input_node",
    .get = input_get,
    .reserve = input_reserve,
    .release = input_release,
    .consume = input_consume,
    .succ_push = input_succ_push,
    .handle = input_handle,
    .reset = input_reset,
    .held = input_held,
    .stuck = input_stuck,
    .destroy = input_destroy,
};

int wf_input_node_create(wf_node **out, wf_graph *g, const wf_input_config *cfg)
{
    if (out == NULL || cfg == NULL || cfg->body == NULL || cfg->out_size == 0)
        return WF_EINVAL;
    wf_node *n;
    int err = wf__node_create(&n, g, sizeof(input_node), &input_ops, 0, NULL, 1,
                              &cfg->out_size);
    if (err)
        return err;
    input_node *s = (input_node *)n;
    s->body = cfg->body;
    s->ctx = cfg->ctx;
    s->task.run = forward_task;
    s->task.arg = s;
    s->task.node = &s->base; /* its priority and trace name */
    if ((s->item = wf__mem_alloc(wf__node_mem(n), cfg->out_size)) == NULL) {
        wf__node_free(n);
        return WF_ENOMEM;
    }
    wf__node_publish(n);
    *out = n;
    return 0;
}

int wf_input_node_activate(wf_node *n)
{
    if (n == NULL || n->ops != &input_ops)
        return WF_EINVAL;
    if (wf__node_graph(n) == NULL)
        return WF_EDESTROYED;
    simple(n, IN_ACTIVATE);
    return 0;
}
