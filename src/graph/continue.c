/* continue_node: runs its body each time every predecessor has signalled.
 *
 * Its input port carries signals (WF_SIGNAL: no data).  The threshold is
 * the number of in-edges plus cfg->predecessors; the in-edge list is the
 * port's own, which wf_make_edge / wf_remove_edge publish through this
 * node's aggregator (WF__OP_SET_EDGES), so the handler reads the current
 * threshold without any hook of its own.  As in oneTBB, a signal that
 * brings the count to the threshold (or past it, after a remove_edge)
 * completes a round: the count restarts at 0 and one body is due.  A
 * threshold of 0 makes every signal a round.
 *
 * Due bodies are a counter, not a queue (a round carries no data).  They
 * run in runners as function_node's do: one record per body that could
 * run at once (the pool's thread count), so a round never allocates. */
#include "graph/graph_impl.h"

typedef struct runner {
    wf__gtask task; /* first */
    struct cont_node *node;
    char *out; /* the body's output; NULL for a signal */
    struct runner *next_free;
} runner;

typedef struct cont_node {
    wf_node base;
    wf_continue_fn body;
    void *ctx;
    size_t out_size;
    unsigned extra; /* cfg->predecessors */
    /* state, under the aggregator */
    size_t count; /* signals in this round */
    size_t due;   /* completed rounds whose body has not started */
    runner *free; /* idle runner records */
    unsigned n_slots;
    runner *slots;
} cont_node;

enum { CN_SIGNAL = WF__OP_KIND, CN_TAKE };
enum { TAKE_EXIT, TAKE_RUN, TAKE_HANDOFF };

typedef struct cont_op {
    wf__op op;
    int result;
    bool handoff; /* CN_TAKE: budget spent */
    runner *r;    /* CN_TAKE: the runner; CN_SIGNAL: one to spawn */
} cont_op;

#define RUNNER_BUDGET 256 /* bodies per pool task before it yields */

/* ---- inside the handler ------------------------------------------------------ */

static size_t threshold(cont_node *c)
{
    /* Relaxed: only this aggregator writes the list, and we are it. */
    wf__edges *l = wf_load_relaxed(&c->base.in[0].edges);
    return (l ? l->n : 0) + c->extra;
}

static void handle_signal(cont_node *c, cont_op *op)
{
    if (++c->count < threshold(c))
        return;
    c->count = 0;
    c->due++;
    runner *r = c->free;
    if (r && !wf__node_stopped(&c->base)) {
        c->free = r->next_free;
        op->r = r;
    }
}

static void handle_take(cont_node *c, cont_op *op)
{
    if (c->due == 0 || wf__node_stopped(&c->base)) {
        op->r->next_free = c->free;
        c->free = op->r;
        op->result = TAKE_EXIT;
    } else if (op->handoff) {
        op->result = TAKE_HANDOFF;
    } else {
        c->due--;
        op->result = TAKE_RUN;
    }
}

static void cont_handle(wf_node *n, wf__op *op)
{
    cont_node *c = (cont_node *)n;
    if (op->type == CN_SIGNAL)
        handle_signal(c, (cont_op *)op);
    else if (op->type == CN_TAKE)
        handle_take(c, (cont_op *)op);
    else
        WF__GBUG("unknown continue_node operation");
}

/* ---- runners ------------------------------------------------------------------ */

static void run(wf__gtask *t)
{
    runner *r = (runner *)t;
    cont_node *c = r->node;
    cont_op op = {.op.type = CN_TAKE, .r = r};
    for (int budget = RUNNER_BUDGET;; budget--) {
        op.handoff = budget <= 0;
        wf__node_exec(&c->base, &op.op);
        if (op.result == TAKE_EXIT)
            return;
        if (op.result == TAKE_HANDOFF) { /* let other tasks in */
            wf__spawn(wf__node_graph(&c->base), &r->task);
            return;
        }
        wf__body_begin(&c->base);
        int rc = c->body(r->out, c->ctx);
        wf__body_end(&c->base, rc);
        if (rc == 0) /* r->out is NULL for a signal, which has no data */
            wf__push_broadcast(&c->base.out[0], r->out);
    }
}

/* ---- node ops --------------------------------------------------------------- */

static int cont_put(wf__port *in, const void *msg)
{
    (void)msg; /* a signal: nothing to copy */
    cont_op op = {.op.type = CN_SIGNAL};
    wf__node_exec(in->node, &op.op);
    if (op.r)
        wf__spawn(wf__node_graph(in->node), &op.r->task);
    return WF__ACCEPT;
}

static void cont_reset(wf_node *n)
{
    cont_node *c = (cont_node *)n;
    c->count = 0;
    c->due = 0;
}

static size_t cont_held(wf_node *n)
{
    return ((cont_node *)n)->due;
}

static void cont_destroy(wf_node *n)
{
    cont_node *c = (cont_node *)n;
    for (unsigned i = 0; c->slots && i < c->n_slots; i++)
        free(c->slots[i].out);
    free(c->slots);
}

static const wf__node_ops cont_ops = {
    .kind = "continue_node",
    .signals = true, /* its input always, its output when out_size is 0 */
    .put = cont_put,
    .handle = cont_handle,
    .reset = cont_reset,
    .held = cont_held,
    .destroy = cont_destroy,
};

static int make_slots(cont_node *c, unsigned n)
{
    if ((c->slots = calloc(n, sizeof *c->slots)) == NULL)
        return WF_ENOMEM;
    c->n_slots = n;
    for (unsigned i = 0; i < n; i++) {
        runner *r = &c->slots[i];
        r->task.run = run;
        r->node = c;
        if (c->out_size && (r->out = malloc(c->out_size)) == NULL)
            return WF_ENOMEM;
        r->next_free = c->free;
        c->free = r;
    }
    return 0;
}

int wf_continue_node_create(wf_node **out, wf_graph *g,
                            const wf_continue_config *cfg)
{
    if (out == NULL || cfg == NULL || cfg->body == NULL)
        return WF_EINVAL;
    size_t in_size = WF_SIGNAL;
    wf_node *n;
    int err = wf__node_create(&n, g, sizeof(cont_node), &cont_ops, 1,
                              &in_size, 1, &cfg->out_size);
    if (err)
        return err;
    cont_node *c = (cont_node *)n;
    c->body = cfg->body;
    c->ctx = cfg->ctx;
    c->out_size = cfg->out_size;
    c->extra = cfg->predecessors;
    unsigned threads = wf_pool_threads(g->pool);
    if (make_slots(c, threads ? threads : 1) != 0) {
        wf__node_free(n);
        return WF_ENOMEM;
    }
    wf__node_publish(n);
    *out = n;
    return 0;
}
