/* SPDX-License-Identifier: Apache-2.0 */
/* Message FIFOs and the buffering sender ("store"): the part of buffer,
 * queue and joins that keeps messages, lends the head to a reservation,
 * and forwards to successors (G4).
 *
 * The forwarder takes the head under the aggregator as if it reserved it
 * (WF__RES_FWD), offers it outside, then removes or releases it in the op that
 * takes the next one.  The op that starts the forwarder (a put, a join's tuple,
 * a consume...) already lends it the first, so a message that finds the
 * forwarder idle costs two aggregator ops, not three.  While it is out, try_get
 * and try_reserve fail, so no message is handed out twice and a queue stays in
 * order.
 *
 * A put that finds the store quiet (nothing held, lent or forwarded) does
 * not enter the node at all: the putting thread offers its message itself
 * and puts it in the store only if nobody took it (G4's exception), so a
 * message through an empty queue costs no aggregator op.  A join that
 * forms a tuple into a quiet store hands it back to its caller to offer
 * the same way (wf__store_take_direct).  Both nest on the thread like the
 * inline forwarder and share its depth bound.
 *
 * Two variants (internal/graph/store.h): a max-heap instead of the FIFO for the
 * priority queue (push_item / pop_item / unlend below), and discard mode
 * for overwrite and write_once, where each message is offered once and
 * dropped. */
#include "internal/graph/store.h"
#include "internal/graph/edge.h"
#include "internal/graph/mem.h"
#include "internal/graph/node.h"
#include "internal/graph/runtime.h"

/* ---- FIFO ---------------------------------------------------------------- */

void wf__fifo_init(wf__fifo *q, size_t size, const wf_allocator *mem)
{
    memset(q, 0, sizeof *q);
    q->size = size;
    q->mem = mem;
}

int wf__fifo_grow(wf__fifo *q)
{
    if (q->count < q->cap)
        return 0;
    size_t cap = q->cap ? q->cap * 2 : 8;
    if (q->size && cap > SIZE_MAX / q->size)
        return WF_ENOMEM; /* no such ring could exist */
    /* malloc's alignment and a multiple of the size keep every slot
     * aligned for the message type (its alignment divides its size). */
    char *buf = wf__mem_alloc(q->mem, q->size ? cap * q->size : 1);
    if (buf == NULL)
        return WF_ENOMEM;
    /* The messages in order: head to the end of the ring, then its
     * wrapped part from the start; two copies, not one per message. */
    size_t first = q->count < q->cap - q->head ? q->count : q->cap - q->head;
    if (q->count) {
        memcpy(buf, q->buf + q->head * q->size, first * q->size);
        memcpy(buf + first * q->size, q->buf, (q->count - first) * q->size);
    }
    wf__mem_free(q->mem, q->buf);
    q->buf = buf;
    q->cap = cap;
    q->head = 0;
    return 0;
}

void wf__fifo_clear(wf__fifo *q)
{
    q->head = q->count = 0;
}

void wf__fifo_free(wf__fifo *q)
{
    wf__mem_free(q->mem, q->buf);
    q->buf = NULL;
    q->cap = q->count = q->head = 0;
}

/* ---- message order: FIFO, or a max-heap for priority queues -------------- */

static char *slot(wf__store *s, size_t i)
{
    return s->q.buf + i * s->q.size;
}

static void swap_slots(wf__store *s, size_t i, size_t j)
{
    char *a = slot(s, i), *b = slot(s, j);
    for (size_t k = 0; k < s->q.size; k++) {
        char t = a[k];
        a[k] = b[k];
        b[k] = t;
    }
}

static bool greater(wf__store *s, size_t i, size_t j)
{
    return s->cmp(slot(s, i), slot(s, j), s->cmp_ctx) > 0;
}

static void sift_down(wf__store *s, size_t i)
{
    for (;;) {
        size_t top = i, l = 2 * i + 1, r = l + 1;
        if (l < s->q.count && greater(s, l, top))
            top = l;
        if (r < s->q.count && greater(s, r, top))
            top = r;
        if (top == i)
            return;
        swap_slots(s, i, top);
        i = top;
    }
}

static int push_item(wf__store *s, const void *msg)
{
    int err = wf__fifo_push(&s->q, msg); /* a heap appends: head is 0 */
    if (err || s->cmp == NULL)
        return err;
    /* A lent head stays where it is: the new one stops below it. */
    size_t i = s->q.count - 1, floor = s->reserved ? 1 : 0;
    while (i > floor) {
        size_t parent = (i - 1) / 2;
        if (parent < floor || !greater(s, i, parent))
            break;
        swap_slots(s, i, parent);
        i = parent;
    }
    return 0;
}

static void pop_item(wf__store *s, void *msg)
{
    if (s->cmp == NULL) {
        wf__fifo_pop(&s->q, msg);
        return;
    }
    if (msg)
        wf__msg_copy(msg, slot(s, 0), s->q.size);
    if (--s->q.count > 0) {
        wf__msg_copy(slot(s, 0), slot(s, s->q.count), s->q.size);
        sift_down(s, 0);
    }
}

/* The lent head comes back: a greater message that arrived meanwhile
 * waits just below it, so it goes back down. */
static void unlend(wf__store *s)
{
    s->reserved = 0;
    if (s->cmp && s->q.count > 1)
        sift_down(s, 0);
}

/* ---- the store, inside the handler -------------------------------------- */

static void forward_task(wf__gtask *t);

int wf__store_init(wf__store *s, wf_node *n, size_t size, bool broadcast)
{
    wf__fifo_init(&s->q, size, wf__node_mem(n));
    s->broadcast = broadcast;
    s->task.run = forward_task;
    s->task.arg = n;
    s->task.node = n; /* named in traces */
    /* Signals: no bytes, but a pointer. */
    s->item = wf__mem_alloc(wf__node_mem(n), size ? size : 1);
    wf__store_settle(s); /* not shared yet */
    return s->item ? 0 : WF_ENOMEM;
}

void wf__store_settle(wf__store *s)
{
    int quiet = s->q.count == 0 && !s->fwd_busy && !s->reserved &&
                !s->discard && !s->no_offer;
    /* Relaxed: only the handler writes it, and the reader needs nothing
     * but coherence: a put that returned after its message was kept here
     * happens after this store of 0 (through the aggregator, and the
     * record's status for a queued op), so a put that starts after it
     * reads 0 or a later value, and a later 1 means the message left. */
    wf_store_relaxed(&s->quiet, quiet);
}

void wf__store_free(wf__store *s)
{
    wf__fifo_free(&s->q);
    wf__mem_free(s->q.mem, s->item);
}

/* Lend the head to the forwarder (as if it reserved it) in its copy. */
static void lend(wf__store *s)
{
    s->fwd_again = false;
    s->reserved = WF__RES_FWD;
    wf__msg_copy(s->item, wf__fifo_front(&s->q), s->q.size);
}

bool wf__store_should_start(wf_node *n, wf__store *s)
{
    wf__port *out = &n->out[0];
    if (s->fwd_busy || s->q.count == 0 || s->reserved || !out->push_hint ||
        wf__node_stopped(n))
        return false;
    if (!wf__has_edge(out, WF__PUSH)) {
        /* A later turn to push is followed by its succ_push op, which
         * sets the hint again; an earlier one was visible here (G3). */
        out->push_hint = false;
        return false;
    }
    /* The op that starts the forwarder also lends it the head, which
     * saves the forwarder an aggregator round trip per start. */
    s->fwd_busy = true;
    lend(s);
    return true;
}

/* Nobody holds the head or offers it, and it could be offered now. */
static bool may_offer_head(wf_node *n, wf__store *s)
{
    return !s->fwd_busy && !s->reserved && !s->discard && !s->no_offer &&
           !wf__node_stopped(n) && wf__has_edge(&n->out[0], WF__PUSH);
}

bool wf__store_may_skip(wf_node *n, wf__store *s)
{
    return s->q.count == 0 && may_offer_head(n, s);
}

bool wf__store_take_direct(wf_node *n, wf__store *s, void *out)
{
    if (s->q.count != 1 || !may_offer_head(n, s))
        return false;
    pop_item(s, out);
    return true;
}

enum { FWD_ACCEPTED, FWD_REJECTED };    /* op->prev */
enum { FWD_STOP, FWD_GO, FWD_HANDOFF }; /* op->result */

/* The forwarder's step: settle the last item, then lend it the next. */
static void fwd_step(wf_node *n, wf__store *s, wf__store_op *op)
{
    if (op->prev == FWD_ACCEPTED || s->discard)
        pop_item(s, NULL);
    unlend(s);
    bool more = s->q.count > 0 && !wf__node_stopped(n) &&
                wf__has_edge(&n->out[0], WF__PUSH);
    if (!more && s->discard)
        wf__fifo_clear(&s->q); /* nobody left to offer them to */
    /* After a rejection by everyone, go on only if a successor came back
     * to push meanwhile (G4); otherwise we would offer it again at once.
     * In discard mode the next message is a new one: offer it. */
    if (!more || (op->prev == FWD_REJECTED && !s->fwd_again && !s->discard)) {
        s->fwd_busy = s->fwd_again = false;
        op->result = FWD_STOP;
        return;
    }
    lend(s);
    /* Handoff: budget spent; stays busy, a task offers what we lent. */
    op->result = op->handoff ? FWD_HANDOFF : FWD_GO;
}

static void puller_done(wf_node *n, wf__store *s, wf__store_op *op, bool pop)
{
    if (s->reserved != WF__RES_PULLER) {
        op->result = WF_ENOENT;
        return;
    }
    if (pop)
        pop_item(s, NULL);
    unlend(s);
    op->result = 0;
    op->start = wf__store_should_start(n, s);
}

/* Inlined where the op type is a constant (typed_call): the switch folds
 * to that op's case. */
WF__HOT_INLINE void handle(wf_node *n, wf__store *s, wf__store_op *op)
{
    switch (op->op.type) {
    case WF__ST_PUT_KEPT:
        s->no_offer = true;
        /* fall through */
    case WF__ST_PUT:
        if (s->discard && !wf__has_edge(&n->out[0], WF__PUSH)) {
            op->result = WF__ACCEPT; /* nobody to offer it to */
            break;
        }
        op->result = push_item(s, op->in);
        if (op->result == 0) {
            op->result = WF__ACCEPT;
            op->start = wf__store_should_start(n, s);
        }
        break;
    case WF__ST_GET:
    case WF__ST_RESERVE:
        op->result = s->q.count > 0 && !s->reserved;
        if (op->result && op->op.type == WF__ST_GET) {
            pop_item(s, op->out);
        } else if (op->result) {
            wf__msg_copy(op->out, wf__fifo_front(&s->q), s->q.size);
            s->reserved = WF__RES_PULLER;
        }
        break;
    case WF__ST_RELEASE:
    case WF__ST_CONSUME:
        puller_done(n, s, op, op->op.type == WF__ST_CONSUME);
        break;
    case WF__ST_CONSUME_NEXT:
        puller_done(n, s, op, true);
        /* Lend the puller the new head in the same op, unless the
         * forwarder just took it for a successor in push state. */
        if (op->result == 0 && s->q.count > 0 && !s->reserved) {
            wf__msg_copy(op->out, wf__fifo_front(&s->q), s->q.size);
            s->reserved = WF__RES_PULLER;
            op->result = 1;
        }
        break;
    case WF__ST_SUCC_PUSH:
        n->out[0].push_hint = true;
        if (s->fwd_busy)
            s->fwd_again = true;
        else
            op->start = wf__store_should_start(n, s);
        break;
    case WF__ST_FWD: fwd_step(n, s, op); break;
    default: WF_BUG("unknown store operation");
    }
    wf__store_settle(s);
}

void wf__store_handle(wf_node *n, wf__store *s, wf__store_op *op)
{
    handle(n, s, op);
}

/* ---- the forwarder, outside ---------------------------------------------- */

static void direct_handler(void *self, wf__op *op)
{
    wf__store_op *o = (wf__store_op *)op;
    wf__store_handle(self, o->store, o);
}

/* Apply a store op of n: straight to the store when the node's handler
 * would only pass it on (s->direct), else through the node's handler. */
static void exec(wf_node *n, wf__store *s, wf__store_op *op)
{
    if (s->direct) {
        op->store = s;
        wf__agg_execute(&n->agg, &op->op, direct_handler, n);
    } else {
        wf__node_exec(n, &op->op);
    }
}

#define INLINE_BUDGET 64   /* items a putting thread forwards itself */
#define TASK_BUDGET 4096   /* items per pool task before it yields    */
#define MAX_INLINE_DEPTH 8 /* nested inline forwarders on one thread  */

/* Initial-exec: read on every kick, so no __tls_get_addr call in the
 * shared library (as the thread-locals of graph.c). */
static _Thread_local unsigned inline_depth
    __attribute__((tls_model("initial-exec")));

static bool offer(wf_node *n, wf__store *s, const void *msg)
{
    return s->broadcast ? wf__push_broadcast(&n->out[0], msg) > 0
                        : wf__push_single(&n->out[0], msg) != 0;
}

/* Offer the lent item, settle it and take the next, until the store has
 * nothing more to offer or the budget is spent. */
static void forward(wf_node *n, wf__store *s, int budget)
{
    wf__store_op op = {.op.type = WF__ST_FWD};
    for (;;) {
        op.prev = offer(n, s, s->item) ? FWD_ACCEPTED : FWD_REJECTED;
        op.handoff = --budget <= 0;
        exec(n, s, &op);
        if (op.result == FWD_STOP)
            return;
        if (op.result == FWD_HANDOFF) {
            wf__spawn(wf__node_graph(n), &s->task);
            return;
        }
    }
}

static void forward_task(wf__gtask *t)
{
    wf_node *n = t->arg;
    /* The task is embedded in the store. */
    wf__store *s = (wf__store *)((char *)t - offsetof(wf__store, task));
    forward(n, s, TASK_BUDGET);
}

void wf__store_kick(wf_node *n, wf__store *s)
{
    /* Forward here, which saves a task per message, unless this thread is
     * already forwarding for a chain of nodes. */
    if (inline_depth >= MAX_INLINE_DEPTH) {
        wf__spawn(wf__node_graph(n), &s->task);
        return;
    }
    inline_depth++;
    forward(n, s, INLINE_BUDGET);
    inline_depth--;
}

bool wf__store_may_offer(void)
{
    return inline_depth < MAX_INLINE_DEPTH;
}

bool wf__store_offer(wf_node *n, wf__store *s, const void *msg)
{
    inline_depth++;
    bool ok = offer(n, s, msg);
    inline_depth--;
    return ok;
}

/* A store op from outside.  With `inline_op` (a constant), the
 * aggregator's direct path and the handler are inlined; with a constant
 * type too (the put and consume_next of every message) the handler folds
 * to that op's case alone. */
WF__HOT_INLINE int typed_call(wf_node *n, wf__store *s, int type,
                              const void *in, void *out, bool inline_op)
{
    wf__store_op op; /* not zeroed: what a store op reads is set here */
    op.op.type = type;
    op.in = in;
    op.out = out;
    op.result = 0;
    op.start = false;
    if (inline_op && s->direct && wf__agg_try_enter(&n->agg)) {
        handle(n, s, &op);
        wf__agg_leave(&n->agg);
    } else {
        exec(n, s, &op);
    }
    if (op.start)
        wf__store_kick(n, s);
    return op.result;
}

int wf__store_call(wf_node *n, wf__store *s, int type, const void *in,
                   void *out)
{
    return typed_call(n, s, type, in, out, false);
}

int wf__store_consume_next(wf_node *n, wf__store *s, void *msg)
{
    return typed_call(n, s, WF__ST_CONSUME_NEXT, NULL, msg, true);
}

/* The put that keeps its message, out of line: a put that offers its
 * message itself (below) pays no frame for it. */
static __attribute__((noinline)) int put_kept(wf_node *n, wf__store *s,
                                              const void *msg)
{
    return typed_call(n, s, WF__ST_PUT, msg, NULL, true);
}

int wf__store_put(wf_node *n, wf__store *s, const void *msg)
{
    /* Relaxed: see wf__store_settle.  A stale 0 only sends the message
     * through the aggregator; a 1 read while another put's message goes
     * in overlaps that put (G4). */
    if (wf_load_relaxed(&s->quiet) && wf__store_may_offer() &&
        !wf__node_stopped(n) && wf__has_edge(&n->out[0], WF__PUSH)) {
        if (wf__store_offer(n, s, msg))
            return WF__ACCEPT;
        return wf__store_call(n, s, WF__ST_PUT_KEPT, msg, NULL);
    }
    return put_kept(n, s, msg);
}
