/* SPDX-License-Identifier: Apache-2.0 */
/* limiter_node: lets at most `threshold` messages through until signals on
 * its decrement port (input 1) lower the count again.
 *
 * It keeps nothing.  A message put while the messages passed and those
 * being offered are below the threshold is counted as a try and broadcast
 * on the putting thread; if a successor takes it, it counts as passed,
 * otherwise the try is dropped and the put is rejected (oneTBB keeps the
 * tries apart in the same way, my_tries).  At the threshold a put is
 * rejected, which turns the edge to pull.  A decrement lowers the count of
 * passed messages, never below 0 (the spec truncates the count to
 * [0, threshold], so spare signals are not saved up; tries in flight are
 * not passed yet, so a decrement never takes them), and
 * starts the puller: one pool task at a time (G4) that reserves a message
 * at a predecessor in pull state, broadcasts it, and consumes the
 * reservation if a successor took it or releases it otherwise, while the
 * count allows.  As in the reserving join, a predecessor that cannot be
 * reserved (broadcast, function) turns its edge back to push. */
#include "internal/graph/edge.h"
#include "internal/graph/mem.h"
#include "internal/graph/node.h"
#include "internal/graph/runtime.h"

typedef struct limiter_node {
    wf_node base;
    size_t threshold;
    bool counted;   /* port 1 takes int64_t amounts, not signals */
    char *item;     /* the puller's message */
    wf__gtask task; /* the puller */
    /* state, under the aggregator */
    size_t count; /* passed, not yet decremented */
    size_t tries; /* being offered to the successors now */
    bool pull_busy, pull_again;
} limiter_node;

enum {
    LM_TRY = WF__OP_KIND,
    LM_PASSED,
    LM_UNDO,
    LM_DECREMENT,
    LM_WAKE,
    LM_PULL
};
enum { PULL_STOP, PULL_GO };
enum { PREV_NONE, PREV_PASSED, PREV_REJECTED, PREV_EMPTY };

typedef struct lm_op {
    wf__op op;
    int result;
    int64_t delta; /* LM_DECREMENT: lower the count by this (< 0: raise) */
    int prev;      /* LM_PULL */
    bool start;    /* the caller must spawn the puller */
} lm_op;

/* ---- inside the handler -------------------------------------------------- */

static bool should_start(limiter_node *l)
{
    if (l->pull_busy) {
        l->pull_again = true;
        return false;
    }
    if (l->count + l->tries >= l->threshold || wf__node_stopped(&l->base) ||
        !wf__has_edge(&l->base.in[0], WF__PULL))
        return false;
    l->pull_busy = true;
    l->pull_again = false;
    return true;
}

static void pull_step(limiter_node *l, lm_op *op)
{
    if (op->prev != PREV_NONE)
        l->tries--; /* the last try is over: it passed, or did not */
    if (op->prev == PREV_PASSED)
        l->count++;
    /* After successors rejected, go on only if something changed (G4). */
    if (l->count + l->tries >= l->threshold || wf__node_stopped(&l->base) ||
        !wf__has_edge(&l->base.in[0], WF__PULL) ||
        (op->prev == PREV_REJECTED && !l->pull_again)) {
        l->pull_busy = l->pull_again = false;
        op->result = PULL_STOP;
        return;
    }
    l->pull_again = false;
    l->tries++; /* a try while it is offered, as a put is */
    op->result = PULL_GO;
}

static void limiter_handle(wf_node *n, wf__op *o)
{
    limiter_node *l = (limiter_node *)n;
    lm_op *op = (lm_op *)o;
    switch (o->type) {
    case LM_TRY:
        op->result = l->count + l->tries < l->threshold;
        l->tries += op->result;
        break;
    case LM_PASSED:
        l->tries--;
        l->count++;
        break;
    case LM_UNDO: l->tries--; break;
    case LM_DECREMENT:
        /* Truncated to [0, threshold], as the spec says: a spare decrement
         * is dropped, not saved up, and a raise stops at the threshold. */
        if (op->delta >= 0) {
            uint64_t down = (uint64_t)op->delta;
            l->count = down >= l->count ? 0 : l->count - (size_t)down;
        } else {
            uint64_t up = -(uint64_t)op->delta; /* INT64_MIN too */
            l->count = up >= l->threshold - l->count ? l->threshold
                                                     : l->count + (size_t)up;
        }
        op->start = should_start(l);
        break;
    case LM_WAKE: /* an in-edge turned to pull, or an out-edge to push */
        op->start = should_start(l);
        break;
    case LM_PULL: pull_step(l, op); break;
    default: WF_BUG("unknown limiter_node operation");
    }
}

/* ---- outside ------------------------------------------------------------- */

static int call_delta(limiter_node *l, int type, int64_t delta)
{
    lm_op op = {.op.type = type, .delta = delta};
    wf__node_exec(&l->base, &op.op);
    if (op.start)
        wf__spawn(wf__node_graph(&l->base), &l->task);
    return op.result;
}

static void pull_task(wf__gtask *t)
{
    limiter_node *l = t->arg;
    lm_op op = {.op.type = LM_PULL, .prev = PREV_NONE};
    for (;;) {
        wf__node_exec(&l->base, &op.op);
        if (op.result == PULL_STOP)
            return;
        wf__edge *e = wf__pull_reserve(&l->base.in[0], l->item);
        if (e == NULL) {
            op.prev = PREV_EMPTY;
            continue;
        }
        bool passed = wf__push_broadcast(&l->base.out[0], l->item) > 0;
        const wf__node_ops *from = e->from->node->ops;
        if (passed)
            from->consume(e->from);
        else
            from->release(e->from);
        op.prev = passed ? PREV_PASSED : PREV_REJECTED;
    }
}

static int call(limiter_node *l, int type)
{
    return call_delta(l, type, 1);
}

static int limiter_put(wf__port *in, const void *msg)
{
    limiter_node *l = (limiter_node *)in->node;
    if (wf__port_index(in) == 1) {
        int64_t delta = 1; /* a signal */
        if (l->counted)
            memcpy(&delta, msg, sizeof delta);
        call_delta(l, LM_DECREMENT, delta);
        return WF__ACCEPT;
    }
    if (!call(l, LM_TRY))
        return WF__REJECT_PULL; /* at the threshold: pull when lowered */
    if (wf__push_broadcast(&l->base.out[0], msg) > 0) {
        call(l, LM_PASSED);
        return WF__ACCEPT;
    }
    call(l, LM_UNDO);
    return WF__REJECT_PULL; /* pull it when a successor comes back */
}

static void limiter_wake(wf__port *p)
{
    call((limiter_node *)p->node, LM_WAKE);
}

static void limiter_reset(wf_node *n)
{
    limiter_node *l = (limiter_node *)n;
    l->count = l->tries = 0; /* the graph is idle: no puller runs */
    l->pull_again = false;
}

static void limiter_destroy(wf_node *n)
{
    wf__mem_free(wf__node_mem(n), ((limiter_node *)n)->item);
}

static const wf__node_ops limiter_ops = {
    .kind = "limiter_node",
    .signals = true, /* the decrement port; the constructor checks data */
    .put = limiter_put,
    .pred_pull = limiter_wake,
    .succ_push = limiter_wake,
    .handle = limiter_handle,
    .reset = limiter_reset,
    .destroy = limiter_destroy,
};

static int create(wf_node **out, wf_graph *g, size_t msg_size, size_t threshold,
                  bool counted)
{
    if (out == NULL || msg_size == 0)
        return WF_EINVAL;
    size_t in[2] = {msg_size, counted ? sizeof(int64_t) : WF_SIGNAL};
    wf_node *n;
    int err = wf__node_create(&n, g, sizeof(limiter_node), &limiter_ops, 2, in,
                              1, &msg_size);
    if (err)
        return err;
    limiter_node *l = (limiter_node *)n;
    l->threshold = threshold;
    l->counted = counted;
    l->task.run = pull_task;
    l->task.arg = l;
    l->task.node = &l->base; /* its priority and trace name */
    if ((l->item = wf__mem_alloc(wf__node_mem(n), msg_size)) == NULL) {
        wf__node_free(n);
        return WF_ENOMEM;
    }
    wf__node_publish(n);
    *out = n;
    return 0;
}

int wf_limiter_node_create(wf_node **out, wf_graph *g, size_t msg_size,
                           size_t threshold)
{
    return create(out, g, msg_size, threshold, false);
}

int wf_limiter_node_create_counted(wf_node **out, wf_graph *g, size_t msg_size,
                                   size_t threshold)
{
    return create(out, g, msg_size, threshold, true);
}
