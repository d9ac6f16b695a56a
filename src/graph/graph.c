/* SPDX-License-Identifier: Apache-2.0 */
/* A graph's lifecycle: creation, waiting for its work, cancellation,
 * reset and destruction.  What runs its nodes' bodies is the runtime
 * (runtime.c); the nodes themselves are node.c's and the kinds'. */
#include "internal/base/env.h"
#include "internal/graph/edge.h"
#include "internal/graph/mem.h"
#include "internal/graph/node.h"
#include "internal/graph/runtime.h"
#include "internal/pool_hooks.h"
#include "internal/trace.h"

/* WEFT_GRAPH_COUNTS=1: every graph counts from creation (read once). */
static bool env_counts;

static void read_counts_env(void)
{
    env_counts = wf__env_uint("WEFT_GRAPH_COUNTS", 0, 1) != 0;
}

int wf_graph_create(wf_graph **out, wf_pool *pool)
{
    wf_graph_config cfg = WF_GRAPH_CONFIG_INIT;
    cfg.pool = pool;
    return wf_graph_create_with(out, &cfg);
}

int wf_graph_create_with(wf_graph **out, const wf_graph_config *cfg)
{
    if (out == NULL || cfg == NULL)
        return WF_EINVAL;
    wf__trace_env();
    wf_pool *pool = cfg->pool;
    if (pool == NULL && (pool = wf_pool_default()) == NULL)
        return WF_EAGAIN;
    if (wf__pool_forked(pool))
        return WF_ESTATE; /* a pool of the parent, after fork() */
    wf_allocator mem = cfg->alloc ? *cfg->alloc : (wf_allocator){0};
    wf_graph *g = wf__mem_calloc(&mem, 1, sizeof *g);
    if (g == NULL)
        return WF_ENOMEM;
    g->pool = pool;
    g->mem = mem;
    if ((g->slabs = wf__slabs_create(&mem, wf__pool_debug(pool))) == NULL) {
        wf__mem_free(&mem, g);
        return WF_ENOMEM;
    }
    wf__pool_graphs_add(pool, 1); /* see wf_pool_destroy */
    static pthread_once_t counts_once = PTHREAD_ONCE_INIT;
    pthread_once(&counts_once, read_counts_env);
    /* Relaxed: g is not shared yet; publishing it orders the store. */
    wf_store_relaxed(&g->counting, env_counts);
    if (wf__runtime_init(g) != 0)
        goto fail_drainers;
    if (pthread_mutex_init(&g->idle_lock, NULL) != 0)
        goto fail_idle_lock;
    if (pthread_cond_init(&g->idle, NULL) != 0)
        goto fail_cond;
    if (pthread_mutex_init(&g->topo, NULL) != 0)
        goto fail_topo;
    if (pthread_mutex_init(&g->prio_lock, NULL) != 0)
        goto fail_prio;
    *out = g;
    return 0;
fail_prio:
    pthread_mutex_destroy(&g->topo);
fail_topo:
    pthread_cond_destroy(&g->idle);
fail_cond:
    pthread_mutex_destroy(&g->idle_lock);
fail_idle_lock:
    wf__runtime_fini(g);
fail_drainers:
    wf__pool_graphs_add(pool, -1);
    wf__slabs_drop(g->slabs);
    wf__mem_free(&mem, g);
    return WF_ENOMEM;
}

/* ---- waiting ------------------------------------------------------------- */

/* Debug mode: what the idle graph left stuck (once per node). */
static bool has_successor(wf_node *n)
{
    for (unsigned i = 0; i < n->n_out; i++)
        /* Relaxed: under the topology lock, as every edge edit (G7). */
        if (wf_load_relaxed(&n->out[i].n_edges) > 0)
            return true;
    return false;
}

/* Say what n, in an idle graph, was left with; false if nothing. */
static bool debug_report(wf_node *n)
{
    char label[WF__LABEL_MAX];
    /* A continue node part-way through its round will not run its body
     * until signals come that no task will send: a predecessor that never
     * fired, or a cycle.  With or without successors: its body is what
     * waits. */
    bool succ = has_successor(n);
    if (!succ && n->ops->round == NULL)
        return false;
    wf__held_op h = wf__node_held(n);
    if (h.round > 0) {
        fprintf(stderr,
                "weft: wf_graph_wait_for_all returned with %s part-way "
                "through its round: %zu of %zu signals; its body waits for "
                "the others (a predecessor that never signalled, or a "
                "cycle).  (WEFT_DEBUG; said once per node)\n",
                wf__node_label(n, label), h.round, h.round_of);
        return true;
    }
    /* A message held by a node that has successors waits for something
     * no task will do: a sequence number, a reservation, a limiter's
     * decrement, the other ports of a join, a pull.  Often what the
     * program means (a buffer for later gets); often a mistake. */
    if (!succ || (h.held == 0 && h.stuck == NULL))
        return false;
    fprintf(stderr,
            "weft: wf_graph_wait_for_all returned with %s "
            "holding %zu message(s) it has not passed on to its "
            "successors%s%s.  (WEFT_DEBUG; said once per node)\n",
            wf__node_label(n, label), h.held, h.stuck ? ": " : "",
            h.stuck ? h.stuck : "");
    return true;
}

static void debug_idle(wf_graph *g)
{
    pthread_mutex_lock(&g->topo);
    for (wf_node *n = g->nodes; n; n = wf__cold(n)->next) {
        /* Only while the graph is still idle: not a snapshot of a put
         * that started meanwhile.  Relaxed: what the report reads of a
         * node it reads through the node's aggregator (G1, G5). */
        if (wf_load_relaxed(&g->pending) != 0)
            break;
        /* Without memory for the flag, it may be said again. */
        wf__node_extra *x = wf__extra_if(n);
        if ((x == NULL || !x->debug_told) && debug_report(n) &&
            (x = wf__extra_make(n)) != NULL)
            x->debug_told = true;
    }
    pthread_mutex_unlock(&g->topo);
}

int wf_graph_wait_for_all(wf_graph *g)
{
    if (g == NULL)
        return WF_EINVAL;
    if (wf__graph_running_here(g))
        return WF_EPERM;
    if (wf__pool_forked(g->pool))
        return WF_ESTATE; /* made before fork(): no thread would run it */
    /* Not a cancellation point (docs/graph.md, "Waiting"); nor is debug
     * mode's report, written under the topology lock. */
    int cancel_state = wf__nocancel_begin();
    wf__graph_quiesce(g);
    int err = wf__graph_status(g);
    if (__builtin_expect(wf__pool_debug(g->pool), 0) && err == 0)
        debug_idle(g);
    wf__nocancel_end(cancel_state);
    return err;
}

/* ---- cancel, errors, counting -------------------------------------------- */

int wf_graph_cancel(wf_graph *g)
{
    if (g == NULL)
        return WF_EINVAL;
    /* The cancel callbacks run under the topology lock. */
    int cancel_state = wf__nocancel_begin();
    wf__graph_cancel(g);
    wf__nocancel_end(cancel_state);
    return 0;
}

bool wf_graph_is_cancelled(const wf_graph *g)
{
    /* Acquire pairs with the exchange in wf__graph_cancel (G8). */
    return g != NULL && wf_load_acquire(&((wf_graph *)g)->cancelled);
}

wf_node *wf_graph_failed_node(const wf_graph *g)
{
    /* Acquire pairs with the release store in fail (G8). */
    return g ? wf_load_acquire(&((wf_graph *)g)->failed) : NULL;
}

int wf_graph_set_counting(wf_graph *g, bool on)
{
    if (g == NULL)
        return WF_EINVAL;
    /* Relaxed: see wf__observed for which messages see the switch. */
    wf_store_relaxed(&g->counting, on);
    return 0;
}

/* ---- reset, destroy ------------------------------------------------------ */

/* Under the topology lock, graph idle: what every reset does to n. */
static void reset_node(wf_node *n, unsigned flags)
{
    wf__op op = {.type = WF__OP_RESET};
    wf__node_exec(n, &op);
    wf__edges_reset(n);
    wf__node_extra *x = wf__extra_if(n);
    if (x == NULL)
        return;
    /* Relaxed: the graph is idle (reset waited for it). */
    wf_store_relaxed(&x->n_accepted, 0);
    wf_store_relaxed(&x->n_rejected, 0);
    wf_store_relaxed(&x->n_forwarded, 0);
    wf_store_relaxed(&x->trace_flow, 0);
    if ((flags & WF_RESET_BODIES) && x->body_reset_fn)
        x->body_reset_fn(x->body_reset_ctx);
}

int wf_graph_reset(wf_graph *g, unsigned flags)
{
    if (g == NULL || (flags & ~(WF_RESET_BODIES | WF_RESET_CLEAR_EDGES)))
        return WF_EINVAL;
    if (wf__pool_forked(g->pool))
        return WF_ESTATE;
    /* Not a cancellation point: the wait, and the body-reset callbacks
     * under the topology lock while the graph is closed. */
    int cancel_state = wf__nocancel_begin();
    int err = wf__graph_close(g); /* nothing runs until it reopens */
    if (err) {
        wf__nocancel_end(cancel_state);
        return err;
    }
    pthread_mutex_lock(&g->topo);
    for (wf_node *n = g->nodes; n; n = wf__cold(n)->next)
        reset_node(n, flags);
    if (flags & WF_RESET_CLEAR_EDGES)
        for (wf_node *n = g->nodes; n; n = wf__cold(n)->next)
            wf__edges_detach_all(n);
    pthread_mutex_unlock(&g->topo);
    /* Cleared while the graph is still closed: a put held meanwhile goes
     * on only after the reopen, whose release RMW of pending it reads
     * with acquire (G5), so it never sees the old flags.  Relaxed: the
     * reopen publishes them; a thread that only reads a flag cleared
     * learns that no cancel or failure is pending, and reads a node's
     * state through its aggregator (G1), not through the flag (G8). */
    wf_store_relaxed(&g->failed, NULL);
    wf_store_relaxed(&g->error, 0);
    wf_store_relaxed(&g->cancelled, 0);
    wf__graph_reopen(g);
    wf__nocancel_end(cancel_state);
    return 0;
}

int wf_graph_destroy(wf_graph *g)
{
    if (g == NULL)
        return 0;
    if (wf__graph_running_here(g))
        return WF_EPERM;
    int cancel_state = wf__nocancel_begin(); /* as in wf_node_destroy */
    wf_graph_wait_for_all(g);
    pthread_mutex_lock(&g->topo);
    for (wf_node *n = g->nodes; n; n = wf__cold(n)->next)
        /* Relaxed: NULL publishes nothing; a call that sees it uses no
         * graph, and a call ordered after this destroy sees it (G10). */
        wf_store_relaxed(&n->graph, NULL);
    g->nodes = NULL;
    pthread_mutex_unlock(&g->topo);
    pthread_mutex_destroy(&g->prio_lock);
    pthread_mutex_destroy(&g->topo);
    pthread_cond_destroy(&g->idle);
    pthread_mutex_destroy(&g->idle_lock);
    wf__runtime_fini(g);
    wf__slabs_drop(g->slabs); /* the nodes left hold theirs */
    wf_pool *pool = g->pool;
    wf_allocator mem = g->mem;
    wf__mem_free(&mem, g);
    /* Last: the pool may be destroyed as soon as the count drops. */
    wf__pool_graphs_add(pool, -1);
    wf__nocancel_end(cancel_state);
    return 0;
}
