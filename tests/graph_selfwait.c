/* SPDX-License-Identifier: Apache-2.0 */
/* graph_selfwait: a body that waits for its own graph gets WF_EPERM
 * (include/weft/graph.h), wherever weft runs it: not only in a pool task,
 * but on the thread whose call started it.
 *
 * Each body calls one of wf_graph_wait_for_all, wf_graph_reset,
 * wf_node_destroy (of another node of its graph) and wf_graph_destroy on
 * its own graph, records what it returned, and returns 0.  Every one must
 * be WF_EPERM, the body must have run exactly once, and the graph must
 * still work afterwards (a wait returns 0, the other node is destroyed by
 * main).  A call that waited instead would wait for the body that makes it
 * (the put that ran it counts as work in flight): a hang, which the
 * watchdog turns into a failure naming the scenario.
 *
 * ARGS: a scenario name (none or "all": every one).
 *   outside   main (no pool thread) puts into an idle WF_LIGHTWEIGHT or
 *             WF_REJECTING_LIGHTWEIGHT function node: the body runs inside
 *             main's wf_try_put.
 *   caller    the same from a wf_run function (main in a caller slot).
 *   worker    the same from a wf_submit task on the pool's background
 *             worker (main does not enter the pool meanwhile).
 *   queueing  the same bodies under WF_QUEUEING, run as pool tasks: the
 *             promise the others must keep.
 *   input     an input node's body run on main by wf_try_get (the node is
 *             active, holds nothing, and main pulls).
 *   nested    threads = 1: a body of graph A puts into graph B and waits
 *             for B; the wait runs B's body on the same thread, inside A's
 *             body, and B's body waits for A, which cannot be idle before
 *             A's body returns. */
#include "caller_test.h"
#include "graph_test.h"

enum { OP_WAIT, OP_RESET, OP_NODE_DESTROY, OP_GRAPH_DESTROY, N_OPS };
static const char *const op_name[N_OPS] = {"wf_graph_wait_for_all",
                                           "wf_graph_reset", "wf_node_destroy",
                                           "wf_graph_destroy"};

typedef struct {
    wf_graph *g;
    wf_node *spare; /* the node OP_NODE_DESTROY tries to destroy */
    int op;
    _Atomic int runs;
    _Atomic int result;
} self_call;

static int call_op(self_call *c)
{
    switch (c->op) {
    case OP_WAIT: return wf_graph_wait_for_all(c->g);
    case OP_RESET: return wf_graph_reset(c->g, WF_RESET_PROTOCOL);
    case OP_NODE_DESTROY: return wf_node_destroy(c->spare);
    default: return wf_graph_destroy(c->g);
    }
}

static int self_body(const void *in, void *out, void *ctx)
{
    (void)in, (void)out;
    self_call *c = ctx;
    atomic_store(&c->result, call_op(c));
    atomic_fetch_add(&c->runs, 1);
    return 0;
}

/* A graph with a function node of `policy` running self_body with op, and
 * a spare queue node. */
typedef struct {
    wf_graph *g;
    wf_node *f, *spare;
    self_call call;
} setup;

static void set_up(setup *s, wf_pool *pool, wf_fn_policy policy, int op)
{
    memset(s, 0, sizeof *s);
    s->g = gt_graph(pool);
    s->spare = gt_queue(s->g, sizeof(int));
    s->call.g = s->g;
    s->call.spare = s->spare;
    s->call.op = op;
    s->f = gt_function(s->g, sizeof(int), 0, WF_SERIAL, policy, self_body,
                       &s->call);
}

/* The body ran once and got WF_EPERM; the graph still works. */
static void check_and_tear_down(setup *s, const char *where)
{
    CHECK_OK(wf_graph_wait_for_all(s->g));
    CHECK_EQ(atomic_load(&s->call.runs), 1);
    CHECK_MSG(atomic_load(&s->call.result) == WF_EPERM,
              "%s from a body (%s) returned %s", op_name[s->call.op], where,
              wf_err_name(atomic_load(&s->call.result)));
    gt_put(s->spare, 7); /* the spare is alive and usable */
    int v = 0;
    CHECK_EQ(wf_try_get(s->spare, &v), 1);
    CHECK_EQ(v, 7);
    CHECK_OK(wf_graph_reset(s->g, WF_RESET_PROTOCOL));
    GT_DESTROY(s->g, s->f, s->spare);
}

static const wf_fn_policy light[2] = {WF_LIGHTWEIGHT, WF_REJECTING_LIGHTWEIGHT};

/* ---- outside, caller, queueing ------------------------------------------- */

static void put_from_here(wf_pool *pool, wf_fn_policy policy, const char *where)
{
    for (int op = 0; op < N_OPS; op++) {
        setup s;
        set_up(&s, pool, policy, op);
        watch(op_name[op], 20);
        gt_put(s.f, 1);
        alarm(0);
        check_and_tear_down(&s, where);
    }
}

static void scenario_outside(void)
{
    wf_pool *pool = gt_pool(2);
    for (int i = 0; i < 2; i++)
        put_from_here(pool, light[i], "lightweight, put from outside");
    CHECK_OK(wf_pool_destroy(pool));
}

typedef struct {
    wf_pool *pool;
    wf_fn_policy policy;
} caller_job;

static void caller_fn(void *arg)
{
    caller_job *j = arg;
    put_from_here(j->pool, j->policy, "lightweight, put from wf_run");
}

static void scenario_caller(void)
{
    wf_pool *pool = gt_pool(2);
    for (int i = 0; i < 2; i++) {
        caller_job j = {pool, light[i]};
        CHECK_OK(wf_run(pool, caller_fn, &j));
    }
    CHECK_OK(wf_pool_destroy(pool));
}

static void scenario_queueing(void)
{
    wf_pool *pool = gt_pool(2);
    put_from_here(pool, WF_QUEUEING, "queueing");
    CHECK_OK(wf_pool_destroy(pool));
}

/* ---- worker -------------------------------------------------------------- */

typedef struct {
    wf_task task; /* first */
    setup *s;
    _Atomic int done;
    _Atomic int on_main;
} worker_job;

static void worker_task(wf_task *t)
{
    worker_job *j = (worker_job *)t;
    if (on_main())
        atomic_store(&j->on_main, 1);
    gt_put(j->s->f, 1);
    atomic_store(&j->done, 1);
}

static void scenario_worker(void)
{
    wf_pool *pool = gt_pool(2); /* one background worker */
    for (int i = 0; i < 2; i++) {
        for (int op = 0; op < N_OPS; op++) {
            setup s;
            set_up(&s, pool, light[i], op);
            worker_job j;
            memset(&j, 0, sizeof j);
            j.s = &s;
            watch(op_name[op], 20);
            CHECK_OK(wf_submit(pool, &j.task, worker_task));
            _Atomic int *done = &j.done;
            CHECK_MSG(wait_count(done, 1, 20), "%s: the worker's put hung",
                      op_name[op]);
            alarm(0);
            CHECK_EQ(atomic_load(&j.on_main), 0);
            CHECK_OK(wf_pool_wait_idle(pool));
            check_and_tear_down(&s, "lightweight, put from a worker");
        }
    }
    CHECK_OK(wf_pool_destroy(pool));
}

/* ---- input --------------------------------------------------------------- */

typedef struct {
    self_call call;
    _Atomic int made;
} input_ctx;

static int input_body(void *out, void *ctx)
{
    input_ctx *c = ctx;
    *(int *)out = atomic_fetch_add(&c->made, 1);
    self_body(NULL, NULL, &c->call);
    return 0;
}

static void scenario_input(void)
{
    wf_pool *pool = gt_pool(2);
    for (int op = 0; op < N_OPS; op++) {
        wf_graph *g = gt_graph(pool);
        wf_node *spare = gt_queue(g, sizeof(int)), *in = NULL;
        input_ctx c;
        memset(&c, 0, sizeof c);
        c.call.g = g;
        c.call.spare = spare;
        c.call.op = op;
        wf_input_config ic = WF_INPUT_CONFIG_INIT;
        ic.out_size = sizeof(int);
        ic.body = input_body;
        ic.ctx = &c;
        CHECK_OK(wf_input_node_create(&in, g, &ic));
        /* No successor: activation starts no forwarder, so the body runs
         * only in main's try_get. */
        CHECK_OK(wf_input_node_activate(in));
        watch(op_name[op], 20);
        int v = -1;
        CHECK_EQ(wf_try_get(in, &v), 1);
        alarm(0);
        CHECK_EQ(v, 0);
        CHECK_OK(wf_graph_wait_for_all(g));
        CHECK_EQ(atomic_load(&c.call.runs), 1);
        CHECK_MSG(atomic_load(&c.call.result) == WF_EPERM,
                  "%s from an input body run by try_get returned %s",
                  op_name[op], wf_err_name(atomic_load(&c.call.result)));
        gt_put(spare, 7);
        CHECK_EQ(wf_try_get(spare, &v), 1);
        CHECK_EQ(v, 7);
        GT_DESTROY(g, in, spare);
    }
    CHECK_OK(wf_pool_destroy(pool));
}

/* ---- nested -------------------------------------------------------------- */

typedef struct {
    wf_graph *b;
    wf_node *fb;
    _Atomic int wait_b; /* what A's body's wait for B returned */
} outer_ctx;

static int outer_body(const void *in, void *out, void *ctx)
{
    (void)in, (void)out;
    outer_ctx *c = ctx;
    gt_put(c->fb, 1);
    atomic_store(&c->wait_b, wf_graph_wait_for_all(c->b));
    return 0;
}

static void scenario_nested(void)
{
    wf_pool *pool = gt_pool(1); /* every body runs on main */
    for (int op = 0; op < N_OPS; op++) {
        wf_graph *a = gt_graph(pool), *b = gt_graph(pool);
        outer_ctx oc = {.b = b};
        wf_node *fa = gt_function(a, sizeof(int), 0, WF_SERIAL, WF_QUEUEING,
                                  outer_body, &oc);
        wf_node *spare = gt_queue(a, sizeof(int));
        self_call inner = {.g = a, .spare = spare, .op = op};
        oc.fb = gt_function(b, sizeof(int), 0, WF_SERIAL, WF_QUEUEING,
                            self_body, &inner);
        watch(op_name[op], 20);
        gt_put(fa, 1);
        CHECK_OK(wf_graph_wait_for_all(a));
        alarm(0);
        CHECK_EQ(atomic_load(&oc.wait_b), 0);
        CHECK_EQ(atomic_load(&inner.runs), 1);
        CHECK_MSG(atomic_load(&inner.result) == WF_EPERM,
                  "%s on A from B's body, run inside A's body, returned %s",
                  op_name[op], wf_err_name(atomic_load(&inner.result)));
        GT_DESTROY(b, oc.fb);
        GT_DESTROY(a, fa, spare);
    }
    CHECK_OK(wf_pool_destroy(pool));
}

int main(int argc, char **argv)
{
    static const check_scenario table[] = {
        {"outside", scenario_outside}, {"caller", scenario_caller},
        {"worker", scenario_worker},   {"queueing", scenario_queueing},
        {"input", scenario_input},     {"nested", scenario_nested},
    };
    CALLER_TEST_MAIN("graph_selfwait", argc, argv, table);
}
