/* SPDX-License-Identifier: Apache-2.0 */
/* sequencer_node: a buffer that lets messages out in the order of their
 * sequence numbers 0, 1, 2, ..., whatever order they arrive in.
 *
 * The sequence function runs on the putting thread (G2: not in the
 * handler).  A message whose number is the next one goes into the node's
 * store (store.c: single-push forwarding, try_get, reservation), together
 * with those after it that were waiting; any other waits in a window, a
 * ring indexed by its distance from the next number.  As oneTBB does, a
 * put is rejected when its number was already let out or is already
 * waiting: the spec's "rejects duplicate sequencer numbers".
 *
 * If the store cannot grow, the messages stay in the window (counted by
 * wf_graph_write_dot) and move on at the node's next operation; the
 * graph fails with WF_ENOMEM, as nothing may be due to come that would
 * make that operation happen. */
#include "internal/graph/mem.h"
#include "internal/graph/node.h"
#include "internal/graph/runtime.h"
#include "internal/graph/store.h"

typedef struct seq_node {
    wf_node base;
    wf__store store; /* in order, ready to go */
    wf_sequence_fn seq;
    void *ctx;
    /* state, under the aggregator */
    size_t next; /* number of the next message to let into the store */
    char *win;   /* cap slots; number next + k waits in (head + k) % cap */
    bool *valid;
    size_t cap, head, waiting;
} seq_node;

enum { SEQ_PUT = WF__OP_KIND };

typedef struct seq_op {
    wf__store_op st; /* first: the store's ops share the record's start */
    size_t seq;
    bool stuck; /* the store could not take the messages due to go */
} seq_op;

/* ---- inside the handler -------------------------------------------------- */

static char *slot(seq_node *s, size_t k)
{
    return s->win + ((s->head + k) % s->cap) * s->store.q.size;
}

/* Move the run of waiting messages that starts at `next` into the store:
 * false when the store could not grow. */
static bool drain(seq_node *s)
{
    while (s->waiting && s->valid[s->head]) {
        if (wf__fifo_push(&s->store.q, slot(s, 0)) != 0)
            return false; /* they wait; the next operation tries again */
        s->valid[s->head] = false;
        s->head = (s->head + 1) % s->cap;
        s->next++;
        s->waiting--;
    }
    return true;
}

/* Room in the window for distance k: 0 or WF_ENOMEM. */
static int reach(seq_node *s, size_t k)
{
    if (k < s->cap)
        return 0;
    size_t size = s->store.q.size, cap = s->cap ? s->cap : 8;
    while (cap <= k && cap <= SIZE_MAX / 2)
        cap *= 2;
    if (cap <= k || cap > SIZE_MAX / size)
        return WF_ENOMEM;
    const wf_allocator *mem = wf__node_mem(&s->base);
    char *win = wf__mem_alloc(mem, cap * size);
    bool *valid = wf__mem_calloc(mem, cap, sizeof *valid);
    if (win == NULL || valid == NULL) {
        wf__mem_free(mem, win);
        wf__mem_free(mem, valid);
        return WF_ENOMEM;
    }
    for (size_t i = 0; i < s->cap; i++) {
        valid[i] = s->valid[(s->head + i) % s->cap];
        if (valid[i])
            memcpy(win + i * size, slot(s, i), size);
    }
    wf__mem_free(mem, s->win);
    wf__mem_free(mem, s->valid);
    s->win = win;
    s->valid = valid;
    s->cap = cap;
    s->head = 0;
    return 0;
}

static void handle_put(seq_node *s, seq_op *op)
{
    size_t k = op->seq - s->next;
    int err;
    if (op->seq < s->next || (k < s->cap && s->valid[(s->head + k) % s->cap])) {
        op->st.result = WF__REJECT; /* a duplicate; the edge stays push */
    } else if ((err = reach(s, k)) != 0) {
        op->st.result = err;
    } else {
        memcpy(slot(s, k), op->st.in, s->store.q.size);
        s->valid[(s->head + k) % s->cap] = true;
        s->waiting++;
        op->stuck = !drain(s);
        op->st.result = WF__ACCEPT;
        op->st.start = wf__store_should_start(&s->base, &s->store);
    }
}

static void seq_handle(wf_node *n, wf__op *op)
{
    seq_node *s = (seq_node *)n;
    drain(s); /* after a failed push into the store, if any */
    if (op->type == SEQ_PUT)
        handle_put(s, (seq_op *)op);
    else
        wf__store_handle(n, &s->store, (wf__store_op *)op);
}

/* ---- node ops ------------------------------------------------------------ */

static int seq_put(wf__port *in, const void *msg)
{
    seq_node *s = (seq_node *)in->node;
    seq_op op = {
        .st.op.type = SEQ_PUT, .st.in = msg, .seq = s->seq(msg, s->ctx)};
    wf__node_exec(in->node, &op.st.op);
    if (op.stuck) /* accepted, but it cannot move on: say so */
        wf__graph_fail(wf__node_graph(in->node), WF_ENOMEM);
    if (op.st.start)
        wf__store_kick(in->node, &s->store);
    return op.st.result;
}

static int store_op(wf__port *p, int type, void *msg)
{
    return wf__store_call(p->node, &((seq_node *)p->node)->store, type, NULL,
                          msg);
}

static int seq_get(wf__port *out, void *msg)
{
    return store_op(out, WF__ST_GET, msg);
}
static int seq_reserve(wf__port *out, void *msg)
{
    return store_op(out, WF__ST_RESERVE, msg);
}
static int seq_release(wf__port *out)
{
    return store_op(out, WF__ST_RELEASE, NULL);
}
static int seq_consume(wf__port *out)
{
    return store_op(out, WF__ST_CONSUME, NULL);
}
static void seq_succ_push(wf__port *out)
{
    store_op(out, WF__ST_SUCC_PUSH, NULL);
}

static void seq_reset(wf_node *n)
{
    seq_node *s = (seq_node *)n;
    wf__fifo_clear(&s->store.q);
    s->store.reserved = 0;
    for (size_t i = 0; i < s->cap; i++)
        s->valid[i] = false;
    s->next = s->head = s->waiting = 0;
}

static size_t seq_held(wf_node *n)
{
    seq_node *s = (seq_node *)n;
    return s->store.q.count + s->waiting;
}

static const char *seq_stuck(wf_node *n)
{
    return ((seq_node *)n)->waiting
               ? "its messages wait for a smaller sequence number (the "
                 "first is 0)"
               : NULL;
}

static void seq_destroy(wf_node *n)
{
    seq_node *s = (seq_node *)n;
    wf__store_free(&s->store);
    wf__mem_free(wf__node_mem(n), s->win);
    wf__mem_free(wf__node_mem(n), s->valid);
}

static const wf__node_ops seq_ops = {
    .kind = "sequencer_node",
    .put = seq_put,
    .get = seq_get,
    .reserve = seq_reserve,
    .release = seq_release,
    .consume = seq_consume,
    .succ_push = seq_succ_push,
    .handle = seq_handle,
    .reset = seq_reset,
    .held = seq_held,
    .stuck = seq_stuck,
    .destroy = seq_destroy,
};

int wf_sequencer_node_create(wf_node **out, wf_graph *g, size_t msg_size,
                             wf_sequence_fn seq, void *ctx)
{
    if (out == NULL || seq == NULL)
        return WF_EINVAL;
    wf_node *n;
    int err = wf__node_create(&n, g, sizeof(seq_node), &seq_ops, 1, &msg_size,
                              1, &msg_size);
    if (err)
        return err;
    seq_node *s = (seq_node *)n;
    s->seq = seq;
    s->ctx = ctx;
    if (wf__store_init(&s->store, n, msg_size, false) != 0 ||
        reach(s, 0) != 0) {
        wf__node_free(n);
        return WF_ENOMEM;
    }
    wf__node_publish(n);
    *out = n;
    return 0;
}
