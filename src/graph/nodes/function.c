/* SPDX-License-Identifier: Apache-2.0 */
/* function_node, and what multifunction_node (multifunction.c) and
 * async_node (async.c) share with it: bodies run under a concurrency
 * limit, with a queueing or rejecting policy.
 *
 * The three kinds share everything here but the step that calls the body
 * (fn_node.call): a function body's output is broadcast from output port
 * 0; a multifunction body sends to its ports itself (wf_output_put); an
 * async body hands its input to outside work, which answers through the
 * node's gateway.
 *
 * Accepted inputs wait in the node's FIFO.  Bodies run in runners: pool
 * tasks that each take inputs one after another until none is left, so a
 * busy node costs one task per burst rather than one per message.  The
 * node owns one runner record per possible concurrent body (the limit,
 * capped at the pool's thread count, since more could not run at once), so
 * starting a body never allocates.
 *
 * Lightweight (either policy): a put that finds the node idle, with a
 * runner free and nothing queued, takes the runner without copying its
 * message and runs the body itself, on the putter's message, then gives
 * the runner back as a runner's take does (starting it as a task if
 * inputs came meanwhile).  Inputs that arrive meanwhile queue, so a
 * serial node still runs bodies in arrival order.  The thread's nesting
 * of such calls is bounded (LIGHT_DEPTH): past it, a put copies and
 * spawns as usual, so a cycle of lightweight nodes cannot overflow the
 * stack.  G2 holds: the body runs after the put's handler, never in it.
 *
 * Queueing policy: every push is accepted; a serial node runs bodies in
 * arrival order.  Rejecting policy: a push is rejected when the node
 * already holds `limit` inputs (running or waiting); the sender turns the
 * edge to pull and the node pulls from it when a body finishes (G3).
 *
 * After cancel, runners stop taking inputs; what they have not taken stays
 * queued (or stashed, if taken in a batch and not yet run) until
 * wf_graph_reset, so nothing accepted is silently lost. */
#include "internal/graph/function.h"
#include "internal/graph/edge.h"
#include "internal/graph/mem.h"
#include "internal/graph/node.h"
#include "internal/graph/runtime.h"
#include "internal/graph/store.h"

enum { FN_PUT = WF__OP_KIND, FN_TAKE, FN_PRED_PULL };
enum { PREV_NONE, PREV_RAN, PREV_PULL_FAILED }; /* what the runner did */
enum { TAKE_EXIT, TAKE_RUN, TAKE_PULL, TAKE_HANDOFF };

typedef struct fn_op {
    wf__op op;
    const void *in;
    int result;
    int prev;      /* FN_TAKE */
    unsigned done; /* FN_TAKE: busy slots the runner gives back */
    unsigned left; /* FN_TAKE: of those, inputs it did not run */
    unsigned n;    /* FN_TAKE: inputs taken (TAKE_RUN) */
    bool handoff;  /* FN_TAKE: budget spent */
    bool run_here; /* a lightweight put: the putter runs the body on its
                      message, with the runner r */
    runner *r;     /* FN_TAKE: the runner; FN_PUT / PRED_PULL: to spawn */
} fn_op;

#define RUNNER_BUDGET 256 /* takes per pool task before it yields */
#define RUNNER_BATCH 16   /* most inputs a runner takes at once */
#define LIGHT_DEPTH 8     /* lightweight bodies nested on one thread */

/* Lightweight bodies running on this thread, one inside another. */
static _Thread_local unsigned light_depth;

/* ---- inside the handler -------------------------------------------------- */

static bool full(fn_node *f)
{
    return f->limit != 0 && f->q.count + f->busy >= f->limit;
}

/* An idle runner to start, if the node may run one more. */
static inline runner *grab(fn_node *f)
{
    runner *r = f->free;
    if (r == NULL || wf__node_stopped(&f->base))
        return NULL;
    f->free = r->next_free;
    f->runners++;
    return r;
}

static void put_runner(fn_node *f, runner *r)
{
    r->next_free = f->free;
    f->free = r;
    f->runners--;
}

WF__HOT_INLINE void handle_put(fn_node *f, fn_op *op)
{
    if (f->rejecting && full(f)) {
        op->result = WF__REJECT_PULL;
        return;
    }
    /* An idle node: the input goes straight to the runner it starts, which
     * runs it before its first take, so a message that finds the node
     * idle costs one aggregator operation here and one when the runner
     * stops (the spawn orders r->in for the runner). */
    runner *r = f->q.count == 0 ? grab(f) : NULL;
    if (r) {
        wf__msg_copy(r->in, op->in, f->in_size);
        r->primed = true;
        f->busy++;
        op->r = r;
        op->result = WF__ACCEPT;
        return;
    }
    op->result = wf__fifo_push(&f->q, op->in);
    if (op->result == 0) {
        op->result = WF__ACCEPT;
        op->r = grab(f);
    }
}

/* A lightweight put (fn_put_light): if the node is idle, the putter takes
 * a runner and runs the body itself, without copying its message; else
 * the put is handled as any other. */
static void handle_put_light(fn_node *f, fn_op *op)
{
    runner *r = f->q.count == 0 && !(f->rejecting && full(f)) ? grab(f) : NULL;
    if (r == NULL) {
        handle_put(f, op);
        return;
    }
    f->busy++;
    op->r = r;
    op->run_here = true;
    op->result = WF__ACCEPT;
}

/* A runner asks for its next inputs.  It takes up to `batch` at once (a
 * take costs an aggregator operation), but no more than its share of the
 * queue among the node's runners, which are all out (a put starts an
 * idle one), so batching never leaves a runner without work that another
 * one holds back.  Inputs it took but did not run
 * because the graph was cancelled are stashed: counted as held, like the
 * queue, until wf_graph_reset empties both. */
/* May a runner with nothing queued pull now?  Asked only after a
 * pred_pull (pull_edges); the edge list is read last. */
static bool may_pull(fn_node *f, const fn_op *op)
{
    if (full(f) || (op->prev == PREV_PULL_FAILED && !f->pull_again))
        return false;
    if (wf__has_edge(&f->base.in[0], WF__PULL))
        return true;
    /* A later turn to pull is followed by its pred_pull, which sets the
     * flag again; an earlier one was visible to this scan (G1, G3). */
    f->pull_edges = false;
    return false;
}

WF__HOT_INLINE void handle_take(fn_node *f, fn_op *op)
{
    f->busy -= op->done;
    f->stashed += op->left;
    if ((f->q.count == 0 && !(f->pull_edges && may_pull(f, op))) ||
        wf__node_stopped(&f->base)) {
        put_runner(f, op->r);
        op->result = TAKE_EXIT;
    } else if (op->handoff) {
        op->result = TAKE_HANDOFF;
    } else if (f->q.count > 0) {
        size_t share = f->q.count / f->runners;
        unsigned max = share < 1          ? 1
                       : share < f->batch ? (unsigned)share
                                          : f->batch;
        unsigned n = 0;
        do
            wf__fifo_pop(&f->q, op->r->in + n * f->in_size);
        while (++n < max);
        f->busy += n;
        op->n = n;
        op->result = TAKE_RUN;
    } else {
        f->pull_again = false;
        f->busy++; /* the slot is ours while we pull */
        op->result = TAKE_PULL;
    }
}

static void handle_pred_pull(fn_node *f, fn_op *op)
{
    f->pull_edges = true;
    if (f->runners > 0)
        f->pull_again = true; /* a running body will pull when it ends */
    if (!full(f))
        op->r = grab(f);
}

/* The two operations of every message, applied through the aggregator
 * with their own handlers: no dispatch on the type.  Inline, so
 * wf__agg_execute's direct path runs handle_put / handle_take in line. */
static inline void put_handler(void *self, wf__op *op)
{
    handle_put(self, (fn_op *)op);
}

static void put_light_handler(void *self, wf__op *op)
{
    handle_put_light(self, (fn_op *)op);
}

static inline void take_handler(void *self, wf__op *op)
{
    handle_take(self, (fn_op *)op);
}

static void fn_handle(wf_node *n, wf__op *op)
{
    fn_node *f = (fn_node *)n;
    fn_op *o = (fn_op *)op;
    switch (op->type) {
    case FN_PUT: handle_put(f, o); break;
    case FN_TAKE: handle_take(f, o); break;
    case FN_PRED_PULL: handle_pred_pull(f, o); break;
    default: WF_BUG("unknown function_node operation");
    }
}

/* ---- runners ------------------------------------------------------------- */

/* The kinds' body steps; each calls the user's body between
 * wf__body_begin and wf__body_end. */
WF__HOT_INLINE void call_function(fn_node *f, runner *r, const void *in)
{
    bool traced = wf__body_begin(&f->base);
    /* r->out is NULL for a signal output (out_size WF_SIGNAL): the body
     * writes nothing, and its 0 sends a signal. */
    int rc = f->body.fn(in, r->out, f->ctx);
    wf__body_end(&f->base, rc, traced);
    if (rc == 0)
        wf__push_broadcast_inline(&f->base.out[0], r->out);
}

/* The body step of r's node: a function node's inlined (the common kind,
 * on every message's path), the others' through the pointer. */
WF__HOT_INLINE void call(fn_node *f, runner *r, const void *in)
{
    if (f->call == call_function)
        call_function(f, r, in);
    else
        f->call(f, r, in);
}

/* Run the n inputs a take gave r; stop early if the graph is cancelled.
 * Returns how many were left unrun. */
static unsigned run_batch(fn_node *f, runner *r, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        if (i > 0 && wf__node_stopped(&f->base))
            return n - i;
        call(f, r, r->in + i * f->in_size);
    }
    return 0;
}

static void run(wf__gtask *t)
{
    runner *r = (runner *)t;
    fn_node *f = r->node;
    fn_op op; /* not zeroed: the fields a take reads, set here or below */
    op.op.type = FN_TAKE;
    op.r = r;
    op.prev = PREV_NONE;
    op.done = op.left = 0;
    if (r->primed) { /* its input came with the put (its slot is busy) */
        r->primed = false;
        call(f, r, r->in);
        op.prev = PREV_RAN;
        op.done = 1;
    }
    for (int budget = RUNNER_BUDGET;; budget--) {
        op.handoff = budget <= 0;
        wf__agg_execute(&f->base.agg, &op.op, take_handler, f);
        op.done = op.left = 0;
        if (op.result == TAKE_EXIT)
            return;
        if (op.result == TAKE_HANDOFF) { /* let other tasks in */
            wf__spawn(wf__node_graph(&f->base), &r->task);
            return;
        }
        if (op.result == TAKE_PULL) {
            op.done = 1; /* the slot it held while pulling */
            if (!wf__pull_get(&f->base.in[0], r->in)) {
                op.prev = PREV_PULL_FAILED;
                continue;
            }
            call(f, r, r->in);
        } else {
            op.done = op.n;
            op.left = run_batch(f, r, op.n);
        }
        op.prev = PREV_RAN;
    }
}

static void spawn(fn_node *f, runner *r)
{
    if (r)
        wf__spawn(wf__node_graph(&f->base), &r->task);
}

/* A put to a lightweight node, out of fn_put's line.  If it found the
 * node idle, the body runs here, on the putter's message, with the
 * runner r that the put took; then r goes back, or on as a task if inputs
 * came meanwhile (the take's handoff). */
static __attribute__((noinline)) int fn_put_light(fn_node *f, const void *msg)
{
    fn_op op;
    op.op.type = FN_PUT;
    op.in = msg;
    op.r = NULL;
    op.run_here = false;
    wf__agg_execute(&f->base.agg, &op.op, put_light_handler, f);
    if (!op.run_here) {
        spawn(f, op.r);
        return op.result;
    }
    runner *r = op.r;
    /* The body is one of the graph's while it runs here, though no task
     * of the graph runs it: a wait for the graph from it is refused. */
    wf__graph_frame frame;
    wf__inline_body_begin(&frame, wf__node_graph(&f->base));
    light_depth++;
    call(f, r, msg);
    light_depth--;
    wf__inline_body_end(&frame);
    op.op.type = FN_TAKE;
    op.r = r;
    op.prev = PREV_RAN;
    op.done = 1;
    op.left = 0;
    op.handoff = true;
    wf__agg_execute(&f->base.agg, &op.op, take_handler, f);
    if (op.result == TAKE_HANDOFF)
        wf__spawn(wf__node_graph(&f->base), &r->task);
    return WF__ACCEPT;
}

/* ---- node ops ------------------------------------------------------------ */

static int fn_put(wf__port *in, const void *msg)
{
    fn_node *f = (fn_node *)in->node;
    if (f->lightweight && light_depth < LIGHT_DEPTH)
        return fn_put_light(f, msg);
    /* Only the fields a put reads or may leave unwritten: the record is
     * on every message's path. */
    fn_op op;
    op.op.type = FN_PUT;
    op.in = msg;
    op.r = NULL;
    wf__agg_execute(&f->base.agg, &op.op, put_handler, f);
    spawn(f, op.r);
    return op.result;
}

static void fn_pred_pull(wf__port *in)
{
    fn_node *f = (fn_node *)in->node;
    fn_op op = {.op.type = FN_PRED_PULL};
    wf__node_exec(in->node, &op.op);
    spawn(f, op.r);
}

static void fn_reset(wf_node *n)
{
    fn_node *f = (fn_node *)n;
    wf__fifo_clear(&f->q);
    f->stashed = 0;
    f->pull_again = false;
}

static size_t fn_held(wf_node *n)
{
    fn_node *f = (fn_node *)n;
    return f->q.count + f->busy + f->stashed;
}

static void fn_destroy(wf_node *n)
{
    fn_node *f = (fn_node *)n;
    const wf_allocator *mem = wf__node_mem(n);
    wf__fifo_free(&f->q);
    for (unsigned i = 0; f->slots && i < f->n_slots; i++) {
        wf__mem_free(mem, f->slots[i].in);
        wf__mem_free(mem, f->slots[i].out);
    }
    wf__mem_free(mem, f->slots);
}

/* signals: the input may be WF_SIGNAL (oneTBB's function_node<continue_msg>),
 * and so may a function node's output and a multifunction node's output
 * ports. */
#define FN_OPS(name)                                                           \
    {                                                                          \
        .kind = name, .put = fn_put, .pred_pull = fn_pred_pull,                \
        .handle = fn_handle, .reset = fn_reset, .held = fn_held,               \
        .destroy = fn_destroy, .signals = true,                                \
    }

const wf__node_ops wf__function_ops = FN_OPS("function_node");
const wf__node_ops wf__multifunction_ops = FN_OPS("multifunction_node");
const wf__node_ops wf__async_ops = FN_OPS("async_node");

static int make_slots(fn_node *f, unsigned n)
{
    const wf_allocator *mem = wf__node_mem(&f->base);
    if ((f->slots = wf__mem_calloc(mem, n, sizeof *f->slots)) == NULL)
        return WF_ENOMEM;
    f->n_slots = n;
    for (unsigned i = 0; i < n; i++) {
        runner *r = &f->slots[i];
        r->task.run = run;
        r->task.node = &f->base; /* its priority and trace name */
        r->node = f;
        r->in = wf__mem_alloc(mem, f->in_size ? f->batch * f->in_size : 1);
        r->out = f->out_size ? wf__mem_alloc(mem, f->out_size) : NULL;
        if (r->in == NULL || (f->out_size && r->out == NULL))
            return WF_ENOMEM;
        r->next_free = f->free;
        f->free = r;
    }
    return 0;
}

int wf__fn_create(wf_node **out, wf_graph *g, const fn_spec *c, fn_node **fp)
{
    if (out == NULL || c->policy < WF_QUEUEING ||
        c->policy > WF_REJECTING_LIGHTWEIGHT)
        return WF_EINVAL;
    wf_node *n;
    int err = wf__node_create(&n, g, sizeof(fn_node), c->ops, 1, &c->in_size,
                              c->n_out, c->out_sizes);
    if (err)
        return err;
    fn_node *f = (fn_node *)n;
    f->call = c->call;
    f->ctx = c->ctx;
    f->ports.node = f;
    f->gw.node = f;
    f->in_size = c->in_size;
    f->out_size = c->out_size;
    f->limit = c->concurrency;
    f->batch = RUNNER_BATCH;
    f->rejecting =
        c->policy == WF_REJECTING || c->policy == WF_REJECTING_LIGHTWEIGHT;
    f->lightweight =
        c->policy == WF_LIGHTWEIGHT || c->policy == WF_REJECTING_LIGHTWEIGHT;
    wf__fifo_init(&f->q, c->in_size, wf__node_mem(n));
    unsigned threads = wf_pool_threads(g->pool);
    unsigned slots = threads ? threads : 1;
    if (f->limit != 0 && f->limit < slots)
        slots = f->limit;
    if (make_slots(f, slots) != 0) {
        wf__node_free(n);
        return WF_ENOMEM;
    }
    *fp = f;
    return 0;
}

/* Publish the node once its body is set: from then on it may run. */
int wf__fn_publish(wf_node **out, fn_node *f)
{
    wf__node_publish(&f->base);
    *out = &f->base;
    return 0;
}

/* ---- function_node ------------------------------------------------------- */

/* Always one output port: of out_size WF_SIGNAL (0), a port of signals,
 * as oneTBB's function_node<T, continue_msg>, which continue nodes count;
 * a node whose output nobody takes simply has no edge from it. */
int wf_function_node_create(wf_node **out, wf_graph *g,
                            const wf_function_config *cfg)
{
    if (cfg == NULL || cfg->body == NULL)
        return WF_EINVAL;
    fn_spec spec = {
        &wf__function_ops, cfg->in_size, cfg->out_size, 1,       &cfg->out_size,
        cfg->concurrency,  cfg->policy,  call_function, cfg->ctx};
    fn_node *f;
    int err = wf__fn_create(out, g, &spec, &f);
    if (err)
        return err;
    f->body.fn = cfg->body;
    return wf__fn_publish(out, f);
}
