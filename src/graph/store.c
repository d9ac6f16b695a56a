/* Message FIFOs and the buffering sender ("store"): the part of buffer,
 * queue and joins that keeps messages, lends the head to a reservation,
 * and forwards to successors (G4).
 *
 * The forwarder takes the head under the aggregator as if it reserved it
 * (WF__RES_FWD), offers it outside, then removes or releases it in the op
 * that takes the next one.  While it is out, try_get and try_reserve fail,
 * so no message is handed out twice and a queue stays in order. */
#include "graph/graph_impl.h"

/* ---- FIFO ------------------------------------------------------------------- */

void wf__fifo_init(wf__fifo *q, size_t size)
{
    memset(q, 0, sizeof *q);
    q->size = size;
}

int wf__fifo_grow(wf__fifo *q)
{
    if (q->count < q->cap)
        return 0;
    size_t cap = q->cap ? q->cap * 2 : 8;
    /* malloc's alignment and a multiple of the size keep every slot
     * aligned for the message type (its alignment divides its size). */
    char *buf = malloc(cap * q->size);
    if (buf == NULL)
        return WF_ENOMEM;
    for (size_t i = 0; i < q->count; i++)
        memcpy(buf + i * q->size, q->buf + ((q->head + i) % q->cap) * q->size,
               q->size);
    free(q->buf);
    q->buf = buf;
    q->cap = cap;
    q->head = 0;
    return 0;
}

int wf__fifo_push(wf__fifo *q, const void *msg)
{
    int err = wf__fifo_grow(q);
    if (err)
        return err;
    memcpy(q->buf + ((q->head + q->count) % q->cap) * q->size, msg, q->size);
    q->count++;
    return 0;
}

void *wf__fifo_front(wf__fifo *q)
{
    return q->count ? q->buf + q->head * q->size : NULL;
}

void wf__fifo_pop(wf__fifo *q, void *msg)
{
    if (msg)
        memcpy(msg, wf__fifo_front(q), q->size);
    q->head = (q->head + 1) % q->cap;
    q->count--;
}

void wf__fifo_clear(wf__fifo *q)
{
    q->head = q->count = 0;
}

void wf__fifo_free(wf__fifo *q)
{
    free(q->buf);
    q->buf = NULL;
    q->cap = q->count = q->head = 0;
}

/* ---- the store, inside the handler -------------------------------------- */

static void forward_task(wf__gtask *t);

int wf__store_init(wf__store *s, wf_node *n, size_t size, bool broadcast)
{
    wf__fifo_init(&s->q, size);
    s->broadcast = broadcast;
    s->task.run = forward_task;
    s->task.arg = n;
    s->task.node = n; /* named in traces */
    s->item = malloc(size);
    return s->item ? 0 : WF_ENOMEM;
}

void wf__store_free(wf__store *s)
{
    wf__fifo_free(&s->q);
    free(s->item);
}

bool wf__store_should_start(wf_node *n, wf__store *s)
{
    if (s->fwd_busy || s->q.count == 0 || s->reserved || wf__node_stopped(n) ||
        !wf__has_edge(&n->out[0], WF__PUSH))
        return false;
    s->fwd_busy = true;
    s->fwd_again = false;
    return true;
}

enum { FWD_NONE, FWD_ACCEPTED, FWD_REJECTED }; /* op->prev */
enum { FWD_STOP, FWD_GO, FWD_HANDOFF };        /* op->result */

/* The forwarder's step: settle the last item, then lend it the next. */
static void fwd_step(wf_node *n, wf__store *s, wf__store_op *op)
{
    if (op->prev != FWD_NONE) {
        if (op->prev == FWD_ACCEPTED)
            wf__fifo_pop(&s->q, NULL);
        s->reserved = 0;
    }
    bool more = s->q.count > 0 && !wf__node_stopped(n) &&
                wf__has_edge(&n->out[0], WF__PUSH);
    /* After a rejection by everyone, go on only if a successor came back
     * to push meanwhile (G4); otherwise we would offer it again at once. */
    if (!more || (op->prev == FWD_REJECTED && !s->fwd_again)) {
        s->fwd_busy = s->fwd_again = false;
        op->result = FWD_STOP;
    } else if (op->handoff) {
        op->result = FWD_HANDOFF; /* stays busy: the task takes over */
    } else {
        s->fwd_again = false;
        s->reserved = WF__RES_FWD;
        memcpy(s->item, wf__fifo_front(&s->q), s->q.size);
        op->result = FWD_GO;
    }
}

static void puller_done(wf_node *n, wf__store *s, wf__store_op *op, bool pop)
{
    if (s->reserved != WF__RES_PULLER) {
        op->result = WF_ENOENT;
        return;
    }
    if (pop)
        wf__fifo_pop(&s->q, NULL);
    s->reserved = 0;
    op->result = 0;
    op->start = wf__store_should_start(n, s);
}

void wf__store_handle(wf_node *n, wf__store *s, wf__store_op *op)
{
    switch (op->op.type) {
    case WF__ST_PUT:
        op->result = wf__fifo_push(&s->q, op->in);
        if (op->result == 0) {
            op->result = WF__ACCEPT;
            op->start = wf__store_should_start(n, s);
        }
        break;
    case WF__ST_GET:
    case WF__ST_RESERVE:
        op->result = s->q.count > 0 && !s->reserved;
        if (op->result && op->op.type == WF__ST_GET) {
            wf__fifo_pop(&s->q, op->out);
        } else if (op->result) {
            memcpy(op->out, wf__fifo_front(&s->q), s->q.size);
            s->reserved = WF__RES_PULLER;
        }
        break;
    case WF__ST_RELEASE:
    case WF__ST_CONSUME:
        puller_done(n, s, op, op->op.type == WF__ST_CONSUME);
        break;
    case WF__ST_SUCC_PUSH:
        if (s->fwd_busy)
            s->fwd_again = true;
        else
            op->start = wf__store_should_start(n, s);
        break;
    case WF__ST_FWD:
        fwd_step(n, s, op);
        break;
    default:
        WF__GBUG("unknown store operation");
    }
}

/* ---- the forwarder, outside ------------------------------------------------ */

#define INLINE_BUDGET 64    /* items a putting thread forwards itself */
#define TASK_BUDGET 4096    /* items per pool task before it yields    */
#define MAX_INLINE_DEPTH 8  /* nested inline forwarders on one thread  */

static _Thread_local unsigned inline_depth;

static void forward(wf_node *n, wf__store *s, int budget)
{
    wf__store_op op = {.op.type = WF__ST_FWD, .prev = FWD_NONE};
    for (;;) {
        op.handoff = budget-- <= 0;
        wf__node_exec(n, &op.op);
        if (op.result == FWD_STOP)
            return;
        if (op.result == FWD_HANDOFF) {
            wf__spawn(wf__node_graph(n), &s->task);
            return;
        }
        bool ok = s->broadcast ? wf__push_broadcast(&n->out[0], s->item) > 0
                               : wf__push_single(&n->out[0], s->item) != 0;
        op.prev = ok ? FWD_ACCEPTED : FWD_REJECTED;
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

int wf__store_call(wf_node *n, wf__store *s, int type, const void *in, void *out)
{
    wf__store_op op = {.op.type = type, .in = in, .out = out};
    wf__node_exec(n, &op.op);
    if (op.start)
        wf__store_kick(n, s);
    return op.result;
}
