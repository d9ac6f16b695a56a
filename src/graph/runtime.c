/* SPDX-License-Identifier: Apache-2.0 */
/* The graph's runtime: the pool tasks that run nodes' bodies and
 * forwarders, the count of work in flight and waiting for it (rule G5),
 * errors and cancellation, and the hooks around every body and message.
 *
 * Priorities.  A task of a node with priority > 0 is not given to the
 * pool: it goes to the graph's priority list (highest first, FIFO among
 * equals), and a drainer task (one record per pool thread, so at most
 * that many run) is started if one is idle.  Drainers run list entries
 * until the list is empty.  Every body of the graph also looks at the
 * list before it starts (wf__body_begin) and first runs the entries of a
 * higher priority than its own node's, so with one worker a high-priority
 * body queued behind low-priority work still runs first.  Priority 0
 * tasks go straight to the pool: their only extra cost is one relaxed
 * load of the list's length per body. */
#include <limits.h>
#include <sched.h>

#include "internal/graph/mem.h"
#include "internal/graph/node.h"
#include "internal/graph/pending.h"
#include "internal/graph/runtime.h"
#include "internal/graph/spans.h"
#include "internal/pool_hooks.h"

/* The graph whose task this thread is running, to refuse a wait that
 * would wait for itself (runtime.h). */
_Thread_local wf_graph *wf__running_graph WF__TLS_FAST;

/* The other graphs with a body on this thread's stack, innermost first:
 * bodies run inline (wf__inline_body_begin), and the task under a nested
 * one (run_gtask).  Empty on the common path: only a wait for a graph
 * looks through it. */
static _Thread_local wf__graph_frame *frames WF__TLS_FAST;

/* Task bypass (as oneTBB's): the first priority-0 task that the running
 * task of a graph spawns is kept here instead of going to the pool, and
 * run_gtask runs it on this thread when the running task returns.  A chain
 * of nodes then costs no pool round trip per hop.  The running task's
 * count in pending covers the kept task (G5) and passes on to it.  Before
 * a body starts, the slot goes to the pool (wf__body_begin): a runner
 * that goes on with more messages must not hold back work another worker
 * could take.  At most BYPASS_MAX tasks run in a row this way; the next
 * one goes to the pool, so a cycle or a runner's hand-off (which yields on
 * purpose) lets other tasks in. */
_Thread_local wf__gtask *wf__bypass WF__TLS_FAST;
_Thread_local wf__own_task wf__own WF__TLS_FAST;
#define BYPASS_MAX 64

static void drainer_main(wf_task *task);

/* One drainer record per pool thread, all idle. */
int wf__runtime_init(wf_graph *g)
{
    unsigned n = wf_pool_threads(g->pool);
    if (n == 0)
        n = 1;
    if ((g->drainers = wf__mem_calloc(&g->mem, n, sizeof *g->drainers)) == NULL)
        return WF_ENOMEM;
    for (unsigned i = 0; i < n; i++) {
        g->drainers[i].graph = g;
        g->drainers[i].prio_next = g->free_drainers;
        g->free_drainers = &g->drainers[i];
    }
    return 0;
}

void wf__runtime_fini(wf_graph *g)
{
    wf__mem_free(&g->mem, g->drainers);
}

/* ---- work in flight (G5) ------------------------------------------------- */

/* Count one unit of work (G5; the step is pending.h's).  While a reset
 * empties the nodes (pending at WF__PENDING_RESETTING, called RESETTING
 * in this file) the step takes its count back: start once the reset is
 * done. */
static void hold(wf_graph *g)
{
    unsigned round = 0;
    while (!wf__pending_hold(&g->pending))
        wf__backoff(&round);
}

/* The step from 1 to 0 happens only under idle_lock, so a waiter that
 * sees 0 under the lock knows the last releaser has let go of the graph
 * (and a destroy may free it).  The steps on pending are pending.h's. */
static void release(wf_graph *g)
{
    if (__builtin_expect(wf__pending_drop(&g->pending), 1)) /* not the last */
        return;
    pthread_mutex_lock(&g->idle_lock);
    /* The last one: under the lock, so a waiter that saw pending > 0 is
     * already in cond_wait when the broadcast comes (G5, P8). */
    if (wf__pending_drop_last(&g->pending)) {
        pthread_cond_broadcast(&g->idle);
        wf__wake_waiters(g->pool); /* and those that help (P8) */
    }
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

/* Why hold: without it a node may hand the message to a runner that
 * another thread's put has taken but not yet spawned, and a wait_for_all
 * racing with that spawn would see nothing pending while the message is
 * still to be processed.  Why a slot: from outside, a task would go to
 * the pool's submission queue (a lock, and a wake-up for a parked worker
 * on every put); in a slot it goes on the slot's own stack as a spawn
 * does, and leaving the slot publishes it to the slot's deque (P7), where
 * this thread's wait_for_all takes it back first. */
wf__outside_put wf__outside_put_begin(wf_graph *g)
{
    wf__outside_put put = {false, NULL};
    if (g == NULL || wf__running_graph == g)
        return put;
    hold(g);
    put.held = true;
    if (!wf__in_pool())
        put.slot = wf__caller_enter(g->pool);
    return put;
}

void wf__outside_put_end(wf_graph *g, wf__outside_put put)
{
    if (put.slot)
        wf__caller_leave(put.slot); /* publishes what the put started */
    if (put.held)
        release(g);
}

/* A thread outside the pool that feeds the graph (an I/O or progress
 * thread) runs, in a caller slot, what its puts start: the tasks go on the
 * slot's own stack as a worker's spawns do (no submission queue, no
 * wake-up), and run here; a thief that asks meanwhile gets the older half
 * (P2), and what is left at the deadline is published (P7) for the
 * workers, as when any slot is left. */
int wf_graph_run_here(wf_graph *g, void (*fn)(void *ctx), void *ctx,
                      uint64_t budget_ns)
{
    if (g == NULL || fn == NULL)
        return WF_EINVAL;
    struct wf__worker *slot = NULL;
    /* Cancellation off while this thread is one of the pool's: ended
     * there, it would keep the slot, and the tasks on its stack, for ever
     * (docs/graph.md, "Waiting"). */
    int cancel_state = wf__nocancel_begin();
    if (!wf__in_pool() && !wf__pool_forked(g->pool))
        slot = wf__caller_enter(g->pool);
    fn(ctx);
    unsigned n = 0;
    /* Relaxed: a hint that skips the running; nothing is read after it
     * that the cancel published (G8). */
    if (slot != NULL && !wf_load_relaxed(&g->cancelled))
        n = wf__run_own_for(slot, budget_ns);
    if (slot != NULL)
        wf__caller_leave(slot);
    wf__nocancel_end(cancel_state);
    return n > INT_MAX ? INT_MAX : (int)n;
}

static void gtask_main(wf_task *task);

static void submit(wf_graph *g, wf__gtask *t, wf_task_fn fn)
{
    /* The previous run of this record has started and no longer reads it
     * (see wf__gtask), so it can be reinitialised for the pool.  From a
     * worker of g's pool (a body, the common case) the task goes on that
     * worker's own stack like a spawn, which sets every field: no lock, no
     * RMW.  The graph's pending count (G5) is what waits for it, not the
     * pool's. */
    if (wf__spawn_detached(g->pool, &t->task, fn, 0))
        return;
    memset(&t->task, 0, sizeof t->task); /* wf_submit wants a zeroed task */
    if (wf_submit(g->pool, &t->task, fn) != 0)
        fn(&t->task); /* cannot happen (the arguments are valid): run it */
}

/* Give the bypassed task to the pool, counted on its own.  A round kept
 * in this thread's own record gets a task of its own first (adopt),
 * which may keep that one here in turn: so until the slot stays empty.
 * Out of line: the paths that test for one then save no registers for
 * this. */
static __attribute__((noinline)) void flush_bypass(void)
{
    wf__gtask *t;
    while ((t = wf__bypass) != NULL) {
        wf__bypass = NULL;
        if (t == &wf__own.task) {
            wf__own.busy = false;
            wf__own.adopt(t->node, t->graph);
            continue;
        }
        hold(t->graph);
        submit(t->graph, t, gtask_main);
    }
}

/* Run a task of g on this thread, then the tasks it bypassed to, and stop
 * counting (G5): one count covers the whole row. */
static void run_gtask(wf_graph *g, wf__gtask *t)
{
    wf_graph *outer = wf__running_graph;
    wf__gtask *outer_bypass = wf__bypass; /* a nested run has its own slot */
    /* A task run inside another (a body's wait that helps): the outer
     * one's graph still has a body on this stack. */
    wf__graph_frame nest;
    if (outer != NULL) {
        nest.graph = outer;
        nest.outer = frames;
        frames = &nest;
    }
    wf__running_graph = g;
    wf__bypass = NULL;
    bool traced = wf__trace_enabled();
    for (unsigned row = 1;; row++) {
        if (traced)
            wf__trace_span('B', WF__TRACE_TASK, t->node);
        t->run(t); /* t may be respawned from here on: do not touch it */
        if (traced)
            wf__trace_span('E', WF__TRACE_TASK, NULL);
        if ((t = wf__bypass) == NULL)
            break;
        if (row == BYPASS_MAX) {
            flush_bypass(); /* t, counted on its own now */
            break;
        }
        wf__bypass = NULL;
    }
    wf__bypass = outer_bypass;
    wf__running_graph = outer;
    if (outer != NULL)
        frames = nest.outer;
    release(g);
}

static void gtask_main(wf_task *task)
{
    wf__gtask *t = (wf__gtask *)task;
    run_gtask(t->graph, t);
}

/* ---- priorities ---------------------------------------------------------- */

/* The head of the list if its priority is above `above`, removed. */
static wf__gtask *prio_pop(wf_graph *g, int above)
{
    pthread_mutex_lock(&g->prio_lock);
    wf__gtask *t = g->prio_list;
    if (t && t->prio > above) {
        g->prio_list = t->prio_next;
        /* Relaxed: a hint for wf__body_begin; the lock orders the list. */
        wf_store_relaxed(&g->prio_count, wf_load_relaxed(&g->prio_count) - 1);
    } else {
        t = NULL;
    }
    pthread_mutex_unlock(&g->prio_lock);
    return t;
}

/* A drainer runs the list's entries until it is empty, then goes idle
 * under the lock, so a push that finds no idle drainer knows that a
 * running one will see its entry. */
static void drainer_main(wf_task *task)
{
    wf__gtask *d = (wf__gtask *)task;
    wf_graph *g = d->graph; /* set at creation; d may be reused below */
    for (;;) {
        pthread_mutex_lock(&g->prio_lock);
        wf__gtask *t = g->prio_list;
        if (t == NULL) {
            d->prio_next = g->free_drainers;
            g->free_drainers = d;
            pthread_mutex_unlock(&g->prio_lock);
            break;
        }
        g->prio_list = t->prio_next;
        /* Relaxed: see prio_pop. */
        wf_store_relaxed(&g->prio_count, wf_load_relaxed(&g->prio_count) - 1);
        pthread_mutex_unlock(&g->prio_lock);
        run_gtask(g, t);
    }
    release(g); /* the drainer's own count */
}

static void prio_push(wf_graph *g, wf__gtask *t, int prio)
{
    t->prio = prio;
    pthread_mutex_lock(&g->prio_lock);
    wf__gtask **pp = &g->prio_list;
    while (*pp && (*pp)->prio >= prio)
        pp = &(*pp)->prio_next;
    t->prio_next = *pp;
    *pp = t;
    /* Relaxed: see prio_pop. */
    wf_store_relaxed(&g->prio_count, wf_load_relaxed(&g->prio_count) + 1);
    wf__gtask *d = g->free_drainers;
    if (d) {
        g->free_drainers = d->prio_next;
        hold(g); /* counted before it can run (G5) */
    }
    pthread_mutex_unlock(&g->prio_lock);
    if (d)
        submit(g, d, drainer_main);
}

/* A task that is not bypassed to: counted on its own (G5), for the
 * priority list or the pool.  Out of line, as flush_bypass. */
__attribute__((noinline)) void wf__spawn_counted(wf_graph *g, wf__gtask *t,
                                                 int prio)
{
    if (g == NULL) { /* cannot happen while the graph is alive */
        t->run(t);
        return;
    }
    hold(g);
    if (prio > 0)
        prio_push(g, t, prio);
    else
        submit(g, t, gtask_main);
}

int wf__graph_status(const wf_graph *g)
{
    /* Relaxed: asked by wait_for_all once nothing is in flight, and
     * every failure is made by a task or a held put, which G5's acquire
     * already orders before it (G8). */
    int err = wf_load_relaxed(&((wf_graph *)g)->error);
    if (err)
        return err;
    /* Acquire pairs with the exchange in wf__graph_cancel (G8). */
    return wf_load_acquire(&((wf_graph *)g)->cancelled) ? WF_ECANCELED : 0;
}

/* The waiter's load of G5 (pending.h). */
static bool idle(const void *g)
{
    return wf__pending_idle(&((wf_graph *)g)->pending);
}

bool wf_graph_is_idle(const wf_graph *g)
{
    return g != NULL && idle(g);
}

/* Wait for g's work in flight.  The calling thread runs the graph's tasks
 * (and others of its pool) while it waits, as a worker or in a caller
 * slot: the work it waits for may be queued behind it, and with one
 * thread it must be. */
void wf__graph_quiesce(wf_graph *g)
{
    /* Not a cancellation point (docs/graph.md, "Waiting"): cancelled in
     * cond_wait, the thread would end holding idle_lock, and every later
     * release would wait for it for ever; cancelled in a task it runs
     * while it helps, it would end holding a caller slot and the task's
     * count. */
    int cancel_state = wf__nocancel_begin();
    bool helped = wf__wait_helping(g->pool, idle, g);
    /* Under the lock: the last releaser may still hold it (see release).
     * Relaxed: the step to 0 is made under the lock, which orders the
     * last releaser's work, and the others' reach it through its wake's
     * fence, as for the roots (G5, P10). */
    pthread_mutex_lock(&g->idle_lock);
    while (!helped && wf_load_relaxed(&g->pending) != 0) /* or RESETTING */
        pthread_cond_wait(&g->idle, &g->idle_lock);
    pthread_mutex_unlock(&g->idle_lock);
    wf__nocancel_end(cancel_state);
}

/* Nothing may run while a reset empties the nodes: wait until no work is
 * in flight, then close the count (0 -> RESETTING, pending.h's
 * wf__pending_close: acquire, it sees a put that started and ended
 * between the wait and the close) so that a put or a gateway that starts
 * meanwhile waits in hold until the reset is done.  A put that slips in
 * between the wait and the close makes it fail: wait again (G5). */
int wf__graph_close(wf_graph *g)
{
    if (wf__graph_running_here(g))
        return WF_EPERM;
    do {
        wf__graph_quiesce(g);
    } while (!wf__pending_close(&g->pending)); /* G5 */
    return 0;
}

/* Open again, counting the holds that waited meanwhile (each added and
 * took back its 1).  Under idle_lock, as every step to 0 (release).
 * pending.h's wf__pending_reopen, a release RMW: a hold that reads it
 * sees the reset's work, the cleared flags among it; an RMW before
 * wf__wake_waiters' fence is all P8 needs (G5). */
void wf__graph_reopen(wf_graph *g)
{
    pthread_mutex_lock(&g->idle_lock);
    wf__pending_reopen(&g->pending); /* G5 */
    pthread_cond_broadcast(&g->idle);
    wf__wake_waiters(g->pool);
    pthread_mutex_unlock(&g->idle_lock);
}

/* ---- cancel, errors ------------------------------------------------------ */

void wf__graph_cancel(wf_graph *g)
{
    /* Acq_rel: the release pairs with the acquire load in
     * wf_graph_is_cancelled; the exchange elects one caller (G8). */
    if (wf_exchange_acqrel(&g->cancelled, 1) != 0)
        return;
    pthread_mutex_lock(&g->topo);
    for (wf_node *n = g->nodes; n; n = wf__cold(n)->next) {
        wf__node_extra *x = wf__extra_if(n);
        if (x && x->cancel_fn)
            x->cancel_fn(x->cancel_ctx);
    }
    pthread_mutex_unlock(&g->topo);
}

static void fail(wf_graph *g, wf_node *n, int err)
{
    int none = 0;
    /* First error wins, by the CAS's modification order.  Relaxed: the
     * release store of `failed` and the cancel's exchange below publish
     * it, and a waiter reads it after G5's acquire (G8). */
    if (wf_cas_relaxed(&g->error, &none, err) && n)
        wf_store_release(&g->failed, n); /* G8 */
    wf__graph_cancel(g);
}

void wf__graph_fail(wf_graph *g, int err)
{
    fail(g, NULL, err);
}

/* Run the listed tasks of a higher priority than n's before n's body.
 * Out of line (and cold): the common body never gets here, and its
 * wf__body_begin then saves no registers for this loop. */
static __attribute__((noinline, cold)) void run_higher(wf_graph *g, wf_node *n)
{
    int mine = wf_load_relaxed(&n->priority); /* see wf__spawn */
    wf__gtask *t;
    while ((t = prio_pop(g, mine)) != NULL)
        run_gtask(g, t);
}

/* What wf__body_begin does when there is something to do: out of line,
 * so that the common body pays a few loads and no saved registers. */
__attribute__((noinline)) void wf__body_begin_slow(wf_node *n, wf_graph *g,
                                                   bool traced)
{
    if (wf__bypass) /* another worker may run it while this body runs */
        flush_bypass();
    if (g && wf_load_relaxed(&g->prio_count) > 0 && wf__running_graph == g)
        run_higher(g, n); /* relaxed hint: see wf__body_begin */
    if (traced) /* the caller's one read: the span's end sees the same */
        wf__trace_body_begin(n);
}

/* As wf__body_begin_slow. */
__attribute__((noinline, cold)) void wf__body_end_slow(wf_node *n, int result,
                                                       bool traced)
{
    if (traced)
        wf__trace_span('E', WF__TRACE_BODY, NULL);
    if (result < 0)
        fail(wf__node_graph(n), n, result);
}

/* ---- the DOT counters and the trace's arrows ----------------------------- */

/* Called when wf__observed(to): the graph counts, or a trace records. */
void wf__count_offer(wf_node *from, wf_node *to, int r)
{
    wf_graph *g = wf__node_graph(to);
    /* Relaxed: see wf__observed.  The counters are relaxed too:
     * statistics, read as a snapshot by the DOT writer after a wait. */
    if (g && wf_load_relaxed(&g->counting)) {
        wf__node_extra *x = wf__extra_make(to);
        if (r != WF__ACCEPT) {
            if (x)
                wf_fetch_add_relaxed(&x->n_rejected, 1);
            return;
        }
        if (x)
            wf_fetch_add_relaxed(&x->n_accepted, 1);
        if (from && (x = wf__extra_make(from)) != NULL)
            wf_fetch_add_relaxed(&x->n_forwarded, 1);
    }
    if (r == WF__ACCEPT && from && wf__trace_enabled())
        wf__trace_message(to);
}

void wf__count_pulled(wf_node *from)
{
    wf_graph *g = wf__node_graph(from);
    wf__node_extra *x;
    if (g && wf_load_relaxed(&g->counting) && /* see wf__count_offer */
        (x = wf__extra_make(from)) != NULL)
        wf_fetch_add_relaxed(&x->n_forwarded, 1);
}

bool wf__graph_running_here(const wf_graph *g)
{
    if (wf__running_graph == g)
        return true;
    for (const wf__graph_frame *f = frames; f; f = f->outer)
        if (f->graph == g)
            return true;
    return false;
}

void wf__inline_body_begin(wf__graph_frame *f, wf_graph *g)
{
    f->graph = g;
    f->outer = frames;
    f->cancel_state = -1;
    /* The outermost body on a thread that runs no graph task (a thread
     * of the program's, a task that is not a graph's): from here until
     * the put returns, the put holds what a cancelled thread would never
     * give back.  Inner ones find it off already. */
    if (wf__running_graph == NULL && frames == NULL)
        f->cancel_state = wf__nocancel_begin();
    frames = f;
}

void wf__inline_body_end(wf__graph_frame *f)
{
    frames = f->outer;
    if (f->cancel_state != -1)
        wf__nocancel_end(f->cancel_state);
}
