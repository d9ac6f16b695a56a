/* SPDX-License-Identifier: Apache-2.0 */
/* Running task graphs (weft/taskgraph.h) on the pool, through its hooks.
 *
 * One round: every task's join counter is at its strong in-degree (edges
 * from tasks that are not conditions) and the sources (no predecessor at
 * all) are spawned.  A task that finishes decrements each
 * successor's counter; the one that brings it to zero makes it ready, sets
 * it back to its in-degree (so that a loop through a condition may run it
 * again), runs one ready successor itself (a chain never spawns; which
 * one, successors() says) and holds the others for its thread to run
 * after it, until a thief asks for them (held_tasks).  A condition task
 * makes ready the one successor its value picks, whatever its counter
 * says (Taskflow's weak edges).  A subflow task
 * builds its own graph and runs it, a module task runs another graph;
 * both wait for it as a run's caller does, helping, so the round's count
 * covers them.  `active` counts the tasks ready or running; the round
 * ends when it comes to zero, which the thread that called the run waits
 * for while it runs the pool's tasks (wf__wait_helping). */
#include <string.h>

#include "internal/taskgraph.h"
#include "internal/taskgraph/run_steps.h"
#include "internal/trace.h"

static void exec(wf_task *wt);

/* spawn() from a thread that is not one of g's pool's, which does not
 * happen: submitted instead.  Out of line, so that a spawn saves no
 * register for it. */
static __attribute__((noinline, cold)) void submit(wf_taskgraph *g, wf_task *wt)
{
    memset(wt, 0, sizeof *wt);
    if (wf_submit(g->pool, wt, exec) != 0)
        exec(wt); /* cannot happen (valid arguments): run it */
}

/* Spawn t on the calling worker (every task and the round's start run in
 * g's pool), where a thief may take it. */
static inline void spawn(wf_taskgraph *g, wf_tg_task *t)
{
    wf_task *wt = &wf__tg_cold(t)->task;
    if (!wf__spawn_detached(g->pool, wt, exec, 0))
        submit(g, wt);
}

#define WF__TG_BATCH 32 /* the most tasks spawn_all takes */

/* Ready tasks that exec() runs after the task in progress, newest first,
 * rather than spawn them: a spawn writes the task's cold record (its
 * wf_task), a line that nothing else of the run touches, and each spawned
 * task is a trip through the pool's loop.  Held as the pool's private
 * tasks are (P7): spawned when a thief asks for work, before a body runs,
 * and by the pool, through `base`, before this thread waits, helps or
 * publishes all; and never counted in `active`, since exec's own count
 * covers them until they run or are spawned. */
#define WF__TG_HELD WF__TG_BATCH
typedef struct {
    struct wf__held base;  /* first: the pool calls spawn_held with it */
    struct wf__fast *self; /* the thread's identity, where it is held */
    wf_taskgraph *g;
    unsigned n;
    /* No other task of the round exists, nor can until this thread
     * spawns one: arrivals need no locked instruction (T1). */
    bool alone;
    wf_tg_task *t[WF__TG_HELD];
} held_tasks;

/* Count n more tasks of the round, then spawn them (`under` the worker's
 * private tasks, or on top: wf__spawn_detached_n): counted first, so that
 * the count cannot reach zero while they are still to run (T2). */
static __attribute__((noinline)) void
spawn_all(wf_taskgraph *g, wf_tg_task **ts, size_t n, bool under)
{
    wf__tg_count_spawned(&g->active, (long)n); /* T2 */
    wf_task *wts[WF__TG_BATCH];
    for (size_t k = 0; k < n; k++)
        wts[k] = &wf__tg_cold(ts[k])->task;
    if (!wf__spawn_detached_n(g->pool, wts, n, exec, under))
        for (size_t k = 0; k < n; k++)
            submit(g, wts[k]);
}

/* spawn_all for h's task, which every spawn of a running task goes
 * through: it stops arriving alone before another thread can see the
 * tasks (T1).  Inline: spawn_all's own call is all it costs. */
static inline void spawn_from(held_tasks *h, wf_tg_task **ts, size_t n,
                              bool under)
{
    h->alone = false;
    spawn_all(h->g, ts, n, under);
}

/* The pool's call (wf__held), and exec's when a thief asks: every held
 * task spawned, oldest first, in one batch, under the private tasks.
 * Under: when the pool calls, the task that holds them is waiting for
 * work of its own (a subflow's graph, a loop of its body), which its
 * thread should run first, as it would have had the held tasks been
 * spawned before the body; and a thief's request gets the oldest first. */
static void spawn_held(struct wf__held *base)
{
    held_tasks *h = (held_tasks *)base;
    if (h->n > 0)
        spawn_from(h, h->t, h->n, true);
    h->n = 0;
}

/* Make t ready: set its counter back (to strong, t->strong) for the
 * round's next visit.  Relaxed: the spawn or the inline run that follows
 * publishes it. */
static wf_tg_task *ready(wf_tg_task *t, uint32_t strong)
{
    wf_store_relaxed(&t->join, strong);
    /* t's line is here now: start fetching what its run reads first
     * while it waits its turn: the lines its inline slots point to
     * (wf_tg_task): its first three successors', or, past three, its
     * array's and the second and third successors' (run_task fetches
     * the others it needs); a slot not used holds t, a line already
     * here. */
    __builtin_prefetch(t->out.inl[0], 1);
    __builtin_prefetch(t->out.inl[1], 1);
    __builtin_prefetch(t->out.inl[2], 1);
    return t;
}

/* n of the round's tasks are done: the round ends with the last, which
 * wakes the thread that waits (T2, wf__tg_retire says why acq_rel). */
static void retire(wf_taskgraph *g, long n)
{
    wf_pool *pool = g->pool; /* once the count is 0, g may be freed */
    if (wf__tg_retire(&g->active, n))
        wf__wake_waiters(pool);
}

/* A subflow task's work: its graph, made at the first run (on g's pool
 * and allocator, or one of g's spares) and emptied at the others, built
 * by its function, then run here. */
static int run_subflow(wf_taskgraph *g, struct wf__tg_subflow *sf)
{
    if (sf->child == NULL)
        sf->child = wf__tg_spare(g);
    if (sf->child == NULL) {
        wf_taskgraph_config cfg = {.pool = g->pool, .alloc = g->a};
        int err = wf_taskgraph_create(&sf->child, &cfg);
        if (err)
            return err;
    } else {
        wf_taskgraph_clear(sf->child);
    }
    int err = sf->fn(sf->child, sf->ctx);
    return err ? err : wf_tg_run(sf->child);
}

/* The work of a task that is not plain: 0, an error, or a condition's
 * pick. */
static int work(wf_taskgraph *g, wf_tg_task *t)
{
    switch (wf__tg_kind(t)) {
    case WF__TG_SUBFLOW: return run_subflow(g, t->ctx);
    case WF__TG_MODULE: return wf_tg_run(t->ctx);
    default: return t->fn != NULL ? t->fn(t->ctx) : 0;
    }
}

/* work() inside a span of the trace (WEFT_TRACE, wf_trace_start): "task "
 * and the task's name (wf_tg_name), or "task unnamed". */
static int traced_work(wf_taskgraph *g, wf_tg_task *t)
{
    wf__trace_record('B', WF__TRACE_TASK,
                     wf__tg_name(t) ? wf__tg_name(t) : "unnamed", 0);
    int r = work(g, t);
    wf__trace_record('E', WF__TRACE_TASK, NULL, 0);
    return r;
}

/* What a task that is not plain, or runs traced, does: its work (*r),
 * and for a condition the successor it picks, or NULL, to run next (never
 * t: wf_tg_precede refuses an edge from a task to itself).  Any other
 * task's is t itself: run_task goes on with its successors. */
static __attribute__((noinline)) wf_tg_task *run_other(wf_taskgraph *g,
                                                       wf_tg_task *t, int *r)
{
    *r = wf__trace_enabled() ? traced_work(g, t) : work(g, t);
    if (wf__tg_kind(t) != WF__TG_CONDITION)
        return t;
    if (*r < 0)
        wf__tg_fail(&g->run_error, *r); /* the first wins (T3) */
    else if ((uint32_t)*r < t->nsucc) {
        wf_tg_task *s = wf__tg_succ(t)[*r];
        return ready(s, s->strong);
    }
    return NULL;
}

/* t is done: of its successors succ[0..nsucc), those this makes ready
 * run here next (the one returned), or are held (h), or past that are
 * spawned.  The first one made ready runs next; but t + 1, the task added
 * right after t, runs next whenever it is among them.  Its hot record is
 * the neighbour of t's, whose line the adjacent-line prefetcher brought
 * (wf_tg_task), and a program that adds its tasks in the order of their
 * data (a grid's cells row by row) then runs them in that order, on warm
 * lines. */
static inline wf_tg_task *successors(wf_tg_task *t, wf_tg_task **succ,
                                     uint32_t nsucc, held_tasks *h)
{
    wf_tg_task *next = NULL, *batch[WF__TG_BATCH];
    size_t n = 0;
    for (uint32_t i = 0; i < nsucc; i++) {
        wf_tg_task *s = succ[i];
        uint32_t strong = s->strong; /* read once: the RMW is a barrier */
        if (!wf__tg_arrive(&s->join, strong, h->alone)) /* T1 */
            continue;
        ready(s, strong);
        if (next == NULL) {
            next = s;
            continue;
        }
        if (s == t + 1) {
            wf_tg_task *first = next;
            next = s;
            s = first;
        }
        if (h->n < WF__TG_HELD) {
            h->t[h->n++] = s;
            continue;
        }
        /* Its spawn writes its cold record, a line of its own: start
         * fetching it now, so that the stores do not wait for it in the
         * store buffer, where the next locked instruction would. */
        __builtin_prefetch(wf__tg_cold(s), 1);
        batch[n++] = s;
        if (n == WF__TG_BATCH) {
            spawn_from(h, batch, n, false);
            n = 0;
        }
    }
    if (n > 0)
        spawn_from(h, batch, n, false);
    return next;
}

/* Run t and return the successor to run next on this thread, or NULL. */
static wf_tg_task *run_task(wf_taskgraph *g, wf_tg_task *t, held_tasks *h)
{
    /* The first and fourth successors' lines, which the work leaves time
     * to fetch (in a graph larger than the cache each is a miss), when
     * they are in an array: ready() fetched the others of the first
     * four. */
    wf_tg_task **succ = wf__tg_succ(t);
    uint32_t nsucc = t->nsucc;
    if (nsucc > WF__TG_INLINE) {
        __builtin_prefetch(succ[0], 1);
        __builtin_prefetch(succ[3], 1);
    }
    /* A thief waits for work, which the held tasks are (P2). */
    if (h->n != 0 && wf__spawn_asked(h->self))
        spawn_held(&h->base);
    /* A hint to skip work once the round failed (T3). */
    if (wf__tg_failed(&g->run_error))
        return NULL;
    int r;
    if (wf__tg_kind(t) == WF__TG_PLAIN && !wf__trace_enabled()) {
        r = t->fn != NULL ? t->fn(t->ctx) : 0;
    } else {
        wf_tg_task *picked = run_other(g, t, &r);
        if (picked != t)
            return picked; /* a condition's */
    }
    if (r != 0) {
        wf__tg_fail(&g->run_error, r); /* the first wins (T3) */
        return NULL;
    }
    return successors(t, succ, nsucc, h);
}

/* A task the pool runs: t, then the successors it makes ready, each
 * inheriting its count (T2), as do the tasks held meanwhile. */
static void exec(wf_task *wt)
{
    wf_tg_task *t = wf__tg_of(wt);
    wf_taskgraph *g = t->graph;
    held_tasks h = {.base.spawn = spawn_held,
                    .self = wf__self,
                    .g = g,
                    .alone = wf__tg_alone(&g->active)}; /* T1 */
    struct wf__held *outer = wf__held_swap(h.self, &h.base);
    do {
        t = run_task(g, t, &h);
        if (t == NULL && h.n != 0)
            t = h.t[--h.n];
    } while (t != NULL);
    wf__held_swap(h.self, outer);
    retire(g, 1);
}

/* The waiter's test: its acquire pairs with retire's release (T2). */
static bool round_done(const void *g)
{
    return wf__tg_round_over(&((const wf_taskgraph *)g)->active);
}

/* Set every counter to its in-degree if g->dirty, and list the sources,
 * oldest first, if g->relist: one pass over the tasks, which stops at the
 * last source when the counters are right.  Neither is needed after a
 * round that ran every task once (each counter was set back as its task
 * became ready) unless the graph changed since, or conditions may have
 * kept some tasks from running. */
static void set_up(wf_taskgraph *g)
{
    bool counters = g->dirty;
    long left = g->nsources; /* to list */
    wf_tg_task **tail = &g->sources;
    for (struct wf__tg_slab *s = g->slabs; s && (counters || left > 0);
         s = wf__tg_slab_next(g, s))
        for (size_t i = 0; i < s->used && (counters || left > 0); i++) {
            wf_tg_task *t = &s->tasks[i];
            /* Relaxed: the round's first spawn publishes it. */
            if (counters)
                wf_store_relaxed(&t->join, t->strong);
            if (wf__tg_npred(t) == 0) {
                *tail = t;
                tail = &s->cold[i].next_source;
                left--;
            }
        }
    *tail = NULL;
    g->dirty = g->has_conditions;
    g->relist = false;
}

/* One round, from a thread of g's pool: the sources are spawned, then
 * this thread runs tasks until the round is over. */
static int run_round(wf_taskgraph *g)
{
    /* The last round's error cleared; a cancel whose error this clears
     * is seen (T3, wf__tg_round_start says how). */
    if (wf__tg_round_start(&g->run_error, &g->cancelled))
        return WF_ECANCELED;
    if (g->dirty || g->relist)
        set_up(g);
    if (g->nsources == 0)
        return 0;
    /* Before any task of the round can retire (T2). */
    wf__tg_round_count(&g->active, g->nsources);
    for (wf_tg_task *t = g->sources; t != NULL; t = wf__tg_cold(t)->next_source)
        spawn(g, t);
    wf__wait_helping(g->pool, round_done, g);
    /* The failing task retired after its CAS: the wait's acquire of the
     * round's end (T2) orders the CAS and its writes before this (T3). */
    int err = wf__tg_round_error(&g->run_error);
    if (err != 0) /* tasks skipped: counters left part-way */
        g->dirty = true;
    return err;
}

typedef struct {
    wf_taskgraph *g;
    unsigned n; /* rounds, when done is NULL */
    bool (*done)(void *);
    void *ctx;
    int err;
} run_job;

static void run_rounds(void *arg)
{
    run_job *j = arg;
    for (unsigned i = 0; j->done ? !j->done(j->ctx) : i < j->n; i++)
        if ((j->err = run_round(j->g)) != 0)
            return;
}

static int run(wf_taskgraph *g, run_job *j)
{
    if (g == NULL)
        return WF_EINVAL;
    if (g->error != 0)
        return g->error;
    int idle = 0;
    /* Acquire: this run sees what the one before wrote (its release;
     * T4). */
    if (!wf_cas_acqrel(&g->running, &idle, 1))
        return WF_EBUSY;
    j->g = g;
    j->err = 0;
    wf__tg_cancel_clear(&g->cancelled); /* before this run: not for it */
    wf_run(g->pool, run_rounds, j);
    /* Release: the next run, or a build, sees what this one wrote
     * (counters, sources, the spare graphs of subflows; T4). */
    wf_store_release(&g->running, 0);
    return j->err;
}

int wf_tg_cancel(wf_taskgraph *g)
{
    if (g == NULL)
        return WF_EINVAL;
    /* The flag stops the rounds still to come, the error the tasks of
     * the round in progress (T3: wf__tg_round_start says why one of the
     * two is seen). */
    wf__tg_cancel_mark(&g->cancelled, &g->run_error, WF_ECANCELED);
    return 0;
}

int wf_tg_run(wf_taskgraph *g)
{
    run_job j = {.n = 1};
    return run(g, &j);
}

int wf_tg_run_n(wf_taskgraph *g, unsigned n)
{
    run_job j = {.n = n};
    return run(g, &j);
}

int wf_tg_run_until(wf_taskgraph *g, bool (*done)(void *ctx), void *ctx)
{
    if (done == NULL)
        return WF_EINVAL;
    run_job j = {.done = done, .ctx = ctx};
    return run(g, &j);
}
