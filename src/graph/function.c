/* function_node: out = body(in), at most `concurrency` bodies at a time.
 *
 * Accepted inputs wait in the node's FIFO.  Bodies run in runners: pool
 * tasks that each take inputs one after another until none is left, so a
 * busy node costs one task per burst rather than one per message.  The
 * node owns one runner record per possible concurrent body (the limit,
 * capped at the pool's thread count, since more could not run at once), so
 * starting a body never allocates.
 *
 * Queueing policy: every push is accepted; a serial node runs bodies in
 * arrival order.  Rejecting policy: a push is rejected when the node
 * already holds `limit` inputs (running or waiting); the sender turns the
 * edge to pull and the node pulls from it when a body finishes (G3).
 *
 * After cancel, runners stop taking inputs; what they have not taken stays
 * queued until wf_graph_reset, so nothing accepted is silently lost. */
#include "graph/graph_impl.h"

typedef struct runner {
    wf__gtask task; /* first */
    struct fn_node *node;
    char *in, *out;
    struct runner *next_free;
} runner;

typedef struct fn_node {
    wf_node base;
    wf_body_fn body;
    void *ctx;
    size_t in_size, out_size;
    unsigned limit; /* 0: unlimited */
    bool rejecting;
    /* state, under the aggregator */
    wf__fifo q;         /* accepted, not yet started */
    unsigned busy;      /* bodies running, and runners pulling */
    unsigned runners;   /* runners alive */
    bool pull_again;    /* an edge turned to pull while runners were out */
    runner *free;       /* idle runner records */
    unsigned n_slots;
    runner *slots;
} fn_node;

enum { FN_PUT = WF__OP_KIND, FN_TAKE, FN_PRED_PULL };
enum { PREV_NONE, PREV_RAN, PREV_PULL_FAILED };  /* what the runner did */
enum { TAKE_EXIT, TAKE_RUN, TAKE_PULL, TAKE_HANDOFF };

typedef struct fn_op {
    wf__op op;
    const void *in;
    int result;
    int prev;       /* FN_TAKE */
    bool handoff;   /* FN_TAKE: budget spent */
    runner *r;      /* FN_TAKE: the runner; FN_PUT / PRED_PULL: to spawn */
} fn_op;

#define RUNNER_BUDGET 256 /* bodies per pool task before it yields */

/* ---- inside the handler ------------------------------------------------------ */

static bool full(fn_node *f)
{
    return f->limit != 0 && f->q.count + f->busy >= f->limit;
}

/* An idle runner to start, if the node may run one more. */
static runner *grab(fn_node *f)
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

static void handle_put(fn_node *f, fn_op *op)
{
    if (f->rejecting && full(f)) {
        op->result = WF__REJECT_PULL;
        return;
    }
    op->result = wf__fifo_push(&f->q, op->in);
    if (op->result == 0) {
        op->result = WF__ACCEPT;
        op->r = grab(f);
    }
}

/* A runner asks for its next input. */
static void handle_take(fn_node *f, fn_op *op)
{
    if (op->prev != PREV_NONE)
        f->busy--;
    bool may_pull = !full(f) && wf__has_edge(&f->base.in[0], WF__PULL) &&
                    (op->prev != PREV_PULL_FAILED || f->pull_again);
    if (wf__node_stopped(&f->base) || (f->q.count == 0 && !may_pull)) {
        put_runner(f, op->r);
        op->result = TAKE_EXIT;
    } else if (op->handoff) {
        op->result = TAKE_HANDOFF;
    } else if (f->q.count > 0) {
        wf__fifo_pop(&f->q, op->r->in);
        f->busy++;
        op->result = TAKE_RUN;
    } else {
        f->pull_again = false;
        f->busy++; /* the slot is ours while we pull */
        op->result = TAKE_PULL;
    }
}

static void handle_pred_pull(fn_node *f, fn_op *op)
{
    if (f->runners > 0)
        f->pull_again = true; /* a running body will pull when it ends */
    if (!full(f))
        op->r = grab(f);
}

static void fn_handle(wf_node *n, wf__op *op)
{
    fn_node *f = (fn_node *)n;
    fn_op *o = (fn_op *)op;
    switch (op->type) {
    case FN_PUT: handle_put(f, o); break;
    case FN_TAKE: handle_take(f, o); break;
    case FN_PRED_PULL: handle_pred_pull(f, o); break;
    default: WF__GBUG("unknown function_node operation");
    }
}

/* ---- runners ------------------------------------------------------------------ */

static void call_body(fn_node *f, runner *r)
{
    wf__body_begin(&f->base);
    int rc = f->body(r->in, f->out_size ? r->out : NULL, f->ctx);
    wf__body_end(&f->base, rc);
    if (rc == 0 && f->out_size)
        wf__push_broadcast(&f->base.out[0], r->out);
}

static void run(wf__gtask *t)
{
    runner *r = (runner *)t;
    fn_node *f = r->node;
    fn_op op = {.op.type = FN_TAKE, .r = r, .prev = PREV_NONE};
    for (int budget = RUNNER_BUDGET;; budget--) {
        op.handoff = budget <= 0;
        wf__node_exec(&f->base, &op.op);
        if (op.result == TAKE_EXIT)
            return;
        if (op.result == TAKE_HANDOFF) { /* let other tasks in */
            wf__spawn(wf__node_graph(&f->base), &r->task);
            return;
        }
        if (op.result == TAKE_PULL && !wf__pull_get(&f->base.in[0], r->in)) {
            op.prev = PREV_PULL_FAILED;
            continue;
        }
        call_body(f, r);
        op.prev = PREV_RAN;
    }
}

static void spawn(fn_node *f, runner *r)
{
    if (r)
        wf__spawn(wf__node_graph(&f->base), &r->task);
}

/* ---- node ops --------------------------------------------------------------- */

static int fn_put(wf__port *in, const void *msg)
{
    fn_node *f = (fn_node *)in->node;
    fn_op op = {.op.type = FN_PUT, .in = msg};
    wf__node_exec(in->node, &op.op);
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
    f->pull_again = false;
}

static size_t fn_held(wf_node *n)
{
    fn_node *f = (fn_node *)n;
    return f->q.count + f->busy;
}

static void fn_destroy(wf_node *n)
{
    fn_node *f = (fn_node *)n;
    wf__fifo_free(&f->q);
    for (unsigned i = 0; f->slots && i < f->n_slots; i++) {
        free(f->slots[i].in);
        free(f->slots[i].out);
    }
    free(f->slots);
}

static const wf__node_ops fn_ops = {
    .kind = "function_node",
    .put = fn_put,
    .pred_pull = fn_pred_pull,
    .handle = fn_handle,
    .reset = fn_reset,
    .held = fn_held,
    .destroy = fn_destroy,
};

static int make_slots(fn_node *f, unsigned n)
{
    if ((f->slots = calloc(n, sizeof *f->slots)) == NULL)
        return WF_ENOMEM;
    f->n_slots = n;
    for (unsigned i = 0; i < n; i++) {
        runner *r = &f->slots[i];
        r->task.run = run;
        r->task.node = &f->base; /* its priority and trace name */
        r->node = f;
        r->in = malloc(f->in_size);
        r->out = f->out_size ? malloc(f->out_size) : NULL;
        if (r->in == NULL || (f->out_size && r->out == NULL))
            return WF_ENOMEM;
        r->next_free = f->free;
        f->free = r;
    }
    return 0;
}

int wf_function_node_create(wf_node **out, wf_graph *g,
                            const wf_function_config *cfg)
{
    if (out == NULL)
        return WF_EINVAL;
    if (cfg == NULL || cfg->body == NULL || cfg->in_size == 0 ||
        (cfg->policy != WF_QUEUEING && cfg->policy != WF_REJECTING))
        return WF_EINVAL;
    wf_node *n;
    int err = wf__node_create(&n, g, sizeof(fn_node), &fn_ops, 1,
                              &cfg->in_size, cfg->out_size ? 1 : 0,
                              &cfg->out_size);
    if (err)
        return err;
    fn_node *f = (fn_node *)n;
    f->body = cfg->body;
    f->ctx = cfg->ctx;
    f->in_size = cfg->in_size;
    f->out_size = cfg->out_size;
    f->limit = cfg->concurrency;
    f->rejecting = cfg->policy == WF_REJECTING;
    wf__fifo_init(&f->q, cfg->in_size);
    unsigned threads = wf_pool_threads(g->pool);
    unsigned slots = threads ? threads : 1;
    if (f->limit != 0 && f->limit < slots)
        slots = f->limit;
    if (make_slots(f, slots) != 0) {
        wf__node_free(n);
        return WF_ENOMEM;
    }
    wf__node_publish(n);
    *out = n;
    return 0;
}
