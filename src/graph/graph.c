/* The graph: its pool, the count of work in flight, waiting, cancel, reset,
 * destroy. */
#include <time.h>

#include "graph/graph_impl.h"
#include "internal/pool.h" /* wf__help_once */

/* The graph whose task this thread is running, to refuse a wait that
 * would wait for itself. */
static _Thread_local wf_graph *running_graph;

int wf_graph_create(wf_graph **out, wf_pool *pool)
{
    if (out == NULL)
        return WF_EINVAL;
    if (pool == NULL && (pool = wf_pool_default()) == NULL)
        return WF_EAGAIN;
    wf_graph *g = calloc(1, sizeof *g);
    if (g == NULL)
        return WF_ENOMEM;
    g->pool = pool;
    if (pthread_mutex_init(&g->idle_lock, NULL) != 0)
        goto fail_idle_lock;
    if (pthread_cond_init(&g->idle, NULL) != 0)
        goto fail_cond;
    if (pthread_mutex_init(&g->topo, NULL) != 0)
        goto fail_topo;
    *out = g;
    return 0;
fail_topo:
    pthread_cond_destroy(&g->idle);
fail_cond:
    pthread_mutex_destroy(&g->idle_lock);
fail_idle_lock:
    free(g);
    return WF_ENOMEM;
}

/* ---- work in flight (G5) -------------------------------------------------- */

static void hold(wf_graph *g)
{
    /* Seq_cst RMW: a waiter that later reads 0 must have seen this +1
     * first, or the task it counts has already finished. */
    wf_fetch_add_seqcst(&g->pending, 1);
}

/* The step from 1 to 0 happens only under idle_lock, so a waiter that
 * sees 0 under the lock knows the last releaser has let go of the graph
 * (and a destroy may free it). */
static void release(wf_graph *g)
{
    long v = wf_load_relaxed(&g->pending);
    while (v > 1) {
        /* Release pairs with the waiter's acquire load: the task's effects
         * (a body's writes) are visible once the waiter sees 0, through
         * the release sequence of these RMWs. */
        if (wf_cas_acqrel(&g->pending, &v, v - 1))
            return;
    }
    pthread_mutex_lock(&g->idle_lock);
    /* The last one: under the lock, so a waiter that saw pending > 0 is
     * already in cond_wait when the broadcast comes. */
    if (wf_fetch_add_seqcst(&g->pending, -1) == 1)
        pthread_cond_broadcast(&g->idle);
    pthread_mutex_unlock(&g->idle_lock);
}

/* Outside work (an async node's gateway) holds the graph open as a task
 * does, from any thread (G5). */
void wf__graph_hold(wf_graph *g)
{
    hold(g);
}

void wf__graph_release(wf_graph *g)
{
    release(g);
}

static void gtask_main(wf_task *task)
{
    wf__gtask *t = (wf__gtask *)task;
    wf_graph *g = t->graph, *outer = running_graph;
    running_graph = g;
    t->run(t); /* t may be respawned from here on: do not touch it */
    running_graph = outer;
    release(g);
}

void wf__spawn(wf_graph *g, wf__gtask *t)
{
    if (g == NULL) { /* cannot happen while the graph is alive */
        t->run(t);
        return;
    }
    t->graph = g;
    hold(g);
    /* The previous run of this record has started and no longer reads it
     * (see wf__gtask), so it can be reinitialised for the pool. */
    memset(&t->task, 0, sizeof t->task);
    if (wf_submit(g->pool, &t->task, gtask_main) != 0)
        gtask_main(&t->task); /* no memory for the queue: run it here */
}

static int status(wf_graph *g)
{
    /* Acquire pairs with the CAS in wf__graph_fail. */
    int err = wf_load_acquire(&g->error);
    if (err)
        return err;
    return wf_load_acquire(&g->cancelled) ? WF_ECANCELED : 0;
}

/* A worker waits by helping: the work it waits for may be queued behind
 * it (on a pool of one worker, it must be).  With nothing to help with it
 * spins, yields, then sleeps in short slices, looking again after each. */
static void help_until_idle(wf_graph *g)
{
    unsigned round = 0, idle = 0;
    /* Acquire pairs with the releasers' RMWs (see release). */
    while (wf_load_acquire(&g->pending) > 0) {
        if (wf__help_once()) {
            round = idle = 0;
        } else if (++idle < 256) {
            wf__backoff(&round);
        } else {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            ts.tv_nsec += 200000;
            if (ts.tv_nsec >= 1000000000) {
                ts.tv_sec++;
                ts.tv_nsec -= 1000000000;
            }
            pthread_mutex_lock(&g->idle_lock);
            /* Acquire pairs with the release decrements (see above). */
            if (wf_load_acquire(&g->pending) > 0)
                pthread_cond_timedwait(&g->idle, &g->idle_lock, &ts);
            pthread_mutex_unlock(&g->idle_lock);
        }
    }
}

int wf_graph_wait_for_all(wf_graph *g)
{
    if (g == NULL)
        return WF_EINVAL;
    if (running_graph == g)
        return WF_EPERM;
    if (wf_current_pool() != NULL) {
        help_until_idle(g);
        /* The last releaser may still hold idle_lock. */
        pthread_mutex_lock(&g->idle_lock);
    } else {
        pthread_mutex_lock(&g->idle_lock);
        /* Acquire: see release; the 1 -> 0 step is made under this lock. */
        while (wf_load_acquire(&g->pending) > 0)
            pthread_cond_wait(&g->idle, &g->idle_lock);
    }
    pthread_mutex_unlock(&g->idle_lock);
    return status(g);
}

/* ---- cancel, errors, reset ------------------------------------------------ */

int wf_graph_cancel(wf_graph *g)
{
    if (g == NULL)
        return WF_EINVAL;
    /* Release pairs with the acquire loads in wf__node_stopped. */
    wf_store_release(&g->cancelled, 1);
    return 0;
}

bool wf_graph_is_cancelled(const wf_graph *g)
{
    /* Acquire pairs with the release store in wf_graph_cancel. */
    return g != NULL && wf_load_acquire(&((wf_graph *)g)->cancelled);
}

void wf__graph_fail(wf_graph *g, int err)
{
    int none = 0;
    /* First error wins; acq_rel orders it before the cancel below. */
    wf_cas_acqrel(&g->error, &none, err);
    wf_graph_cancel(g);
}

void wf__body_begin(wf_node *n)
{
    (void)n;
}

void wf__body_end(wf_node *n, int result)
{
    if (result < 0)
        wf__graph_fail(wf__node_graph(n), result);
}

bool wf__node_stopped(const wf_node *n)
{
    /* Acquire pairs with the release store in wf_graph_destroy / cancel. */
    wf_graph *g = wf_load_acquire(&((wf_node *)n)->graph);
    return g == NULL || wf_load_acquire(&g->cancelled);
}

int wf_graph_reset(wf_graph *g)
{
    if (g == NULL)
        return WF_EINVAL;
    int err = wf_graph_wait_for_all(g);
    if (err == WF_EPERM)
        return err;
    pthread_mutex_lock(&g->topo);
    for (wf_node *n = g->nodes; n; n = n->next) {
        wf__op op = {.type = WF__OP_RESET};
        wf__node_exec(n, &op);
        wf__edges_reset(n);
    }
    pthread_mutex_unlock(&g->topo);
    /* Release pairs with the acquire loads in status / wf__node_stopped:
     * whoever sees the graph running again sees the emptied nodes. */
    wf_store_release(&g->error, 0);
    wf_store_release(&g->cancelled, 0);
    return 0;
}

int wf_graph_destroy(wf_graph *g)
{
    if (g == NULL)
        return 0;
    if (running_graph == g)
        return WF_EPERM;
    wf_graph_wait_for_all(g);
    pthread_mutex_lock(&g->topo);
    for (wf_node *n = g->nodes; n; n = n->next)
        /* Release pairs with the acquire loads of node->graph: a node
         * seen detached is never used with this graph again. */
        wf_store_release(&n->graph, NULL);
    g->nodes = NULL;
    pthread_mutex_unlock(&g->topo);
    pthread_mutex_destroy(&g->topo);
    pthread_cond_destroy(&g->idle);
    pthread_mutex_destroy(&g->idle_lock);
    free(g);
    return 0;
}

bool wf__graph_running_here(const wf_graph *g)
{
    return running_graph == g;
}
