/* SPDX-License-Identifier: Apache-2.0 */
/* A worker thread: its private stack, and the loop that finds work when it
 * has none (submissions, then stealing), spins, yields, and parks; the same
 * search for a thread that waits for a condition and helps meanwhile.
 * Rule numbers refer to docs/protocols.md. */
#include <sched.h>
#include <string.h>
#include <time.h>

#include "internal/pool.h"

int wf__stack_init(wf__worker *w, size_t cap)
{
    wf_allocator *a = &w->pool->alloc;
    w->stack_mem = wf__alloc(a, (cap + 1) * sizeof(wf_task *));
    if (w->stack_mem == NULL)
        return WF_ENOMEM;
    w->stack_cap = cap;
    w->stack_mem[0] = NULL; /* P1: the sentinel below the stack */
    w->fast.bp = w->fast.sp = w->stack_mem + 1;
    w->fast.end = w->fast.sp + cap;
    /* Before the worker's thread starts: relaxed. */
    wf_store_relaxed(&w->fast.limit, w->fast.end);
    /* No typed segment yet (typed.c sets it); not NULL, which would read
     * as a thief's request. */
    wf_store_relaxed(&w->fast.tlimit, (struct wf__tslot *)w->fast.end);
    return 0;
}

void wf__stack_destroy(wf__worker *w)
{
    wf__free(&w->pool->alloc, w->stack_mem,
             (w->stack_cap + 1) * sizeof(wf_task *));
    w->stack_mem = NULL;
}

/* Ask the owner of f to publish at its next spawn (P2).  Relaxed: a hint.
 * Read before writing, so idle thieves do not bounce the line. */
void wf__ask_for_work(struct wf__fast *f)
{
    if (wf_load_relaxed(&f->limit) != NULL)
        wf_store_relaxed(&f->limit, NULL);
    if (wf_load_relaxed(&f->tlimit) != NULL) /* typed spawns' word (P9) */
        wf_store_relaxed(&f->tlimit, NULL);
}

/* Poll victim's deque once.  On EMPTY, ask the victim to publish (P2). */
wf_task *wf__steal(wf__worker *w, wf__worker *victim)
{
    void *x;
    int r = wf_deque_poll(&victim->deque, &x);
    if (r == WF_POLL_TAKEN) {
        wf_task *t = x;
        /* A hint for the joiner's leapfrogging; relaxed, read relaxed. */
        wf_store_relaxed(&t->thief_, w);
        wf_counter_inc(&w->stats.steals);
        /* Nobody joins a detached task, so its owner cannot learn that a
         * thief ran it: the spawn is counted on the owner's row here. */
        if (t->flags_ & WF__TASK_DETACHED)
            wf_fetch_add_relaxed(&victim->given, 1);
        return t;
    }
    wf_counter_inc(&w->stats.failed_steals);
    if (r == WF_POLL_EMPTY)
        wf__ask_for_work(&victim->fast);
    return NULL;
}

/* The span a task gets in a trace (docs/pool.md, "Tracing"), from its
 * flags: a submitted task (wf_submit, wf_run's and wf_spawn's from
 * outside) wherever it runs, a fork-join task when a thief runs it.  A
 * graph's tasks and a pipeline's tokens (detached) trace themselves, as
 * node bodies and stage calls; a fork-join task run where it was spawned
 * is a call, inside the span of what called it. */
static const char *span_name(uint32_t flags, bool stolen, char *cat)
{
    if (flags & WF__TASK_ROOT) {
        *cat = WF__TRACE_SUBMIT;
        return "submitted task";
    }
    *cat = WF__TRACE_STEAL;
    return stolen && !(flags & WF__TASK_DETACHED) ? "stolen task" : NULL;
}

/* Run t and settle it.  A joinable task is marked done: with a release and
 * a wake-up when its joiner may be another thread (`shared`: stolen or
 * submitted), with a plain store when the joiner is this thread.  A
 * detached task is not touched once it has run (it may be freed or
 * spawned again), so its flags are read first.  A root leaves the pool's
 * count. */
static void run_task(wf__worker *w, wf_task *t, bool shared)
{
    uint32_t flags = t->flags_;
    if (flags & WF__TASK_QUEUED) /* started: wf_submit may take it again */
        t->flags_ = flags & ~WF__TASK_QUEUED;
    char cat;
    const char *span = span_name(flags, shared, &cat);
    bool traced = span != NULL && wf__trace_enabled();
    if (traced)
        wf__trace_record('B', cat, span, 0);
    bool debug = w->pool->debug;
    wf_task *top = debug ? wf__debug_top(w) : NULL;
    wf_task_fn fn = t->fn;
    fn(t);
    if (traced)
        wf__trace_record('E', cat, NULL, 0);
    if (__builtin_expect(debug, 0))
        wf__debug_frame_exit(w, top, (const void *)fn,
                             __builtin_frame_address(0));
    if (!(flags & WF__TASK_DETACHED)) {
        if (shared)
            wf__task_complete(w->pool, t);
        else /* its joiner is this thread: relaxed */
            wf_store_relaxed(&t->done_, WF__DONE);
    }
    if (flags & WF__TASK_ROOT)
        wf__root_done(w->pool);
}

/* The counters (wf__counters): a stolen task was counted as a spawn by
 * its owner, and is a task run here. */
void wf__run_stolen(wf__worker *w, wf_task *t)
{
    wf_counter_inc(&w->stats.run_stolen);
    run_task(w, t, true);
}

/* A submission from outside enters the pool here: a spawn and a task run
 * of this slot. */
void wf__run_root(wf__worker *w, wf_task *t)
{
    wf_counter_inc(&w->stats.run_unjoined);
    run_task(w, t, true);
}

/* One of this slot's own tasks.  A joinable one was counted when it was
 * published, or is a call (never published); a detached one is a spawn
 * and a task run now. */
void wf__run_own(wf__worker *w, wf_task *t)
{
    if (!wf__task_settle_fields(t))
        wf_counter_inc(&w->stats.run_unjoined);
    run_task(w, t, false);
}

/* Any work a parking worker could take?  Relaxed loads suffice after the
 * fence in wf__park (P3). */
bool wf__work_visible(wf_pool *pool)
{
    if (wf_load_relaxed(&pool->submit.visible) > 0)
        return true;
    for (unsigned i = 0, n = wf__nslots(pool); i < n; i++)
        if (wf_deque_size(&pool->workers[i]->deque) > 0)
            return true;
    return false;
}

/* One pass over the other workers, from a random one.  Without `ask`,
 * only deques that look non-empty are polled (see wf__find_and_run). */
static wf_task *steal_any(wf__worker *w, bool ask)
{
    wf_pool *p = w->pool;
    unsigned n = wf__nslots(p);
    if (n < 2)
        return NULL;
    w->rng ^= w->rng << 13; /* xorshift64 */
    w->rng ^= w->rng >> 7;
    w->rng ^= w->rng << 17;
    unsigned start = (unsigned)(w->rng % n);
    for (unsigned k = 0; k < n; k++) {
        unsigned i = (start + k) % n;
        if (i == w->index ||
            (!ask && wf_deque_size(&p->workers[i]->deque) == 0))
            continue;
        wf_task *t = wf__steal(w, p->workers[i]);
        if (t)
            return t;
    }
    return NULL;
}

int wf__find_and_run(wf__worker *w, bool ask)
{
    /* Own tasks first: detached ones (wf_submit, graph tasks) left on the
     * stack or deque once the task that spawned them returned. */
    wf__answer_request(w); /* a sleeper may wait for our private tasks */
    wf_task *t = wf__pop_own(w);
    if (t) {
        wf__run_own(w, t);
        return WF__RAN_TASK;
    }
    t = wf__take_submitted(w->pool);
    if (t) {
        wf__run_root(w, t);
        return WF__RAN_TASK;
    }
    t = steal_any(w, ask);
    if (t) {
        /* Read before running it: it may be freed or respawned. */
        bool detached = (t->flags_ & WF__TASK_DETACHED) != 0;
        wf__run_stolen(w, t);
        return detached ? WF__RAN_STOLEN_DETACHED : WF__RAN_TASK;
    }
    return WF__RAN_NONE;
}

void wf__help_until(wf__worker *w, wf__cond_fn done, const void *arg)
{
    wf__idle idle;
    wf__idle_init(&idle, w->pool->spin, WF__YIELDS);
    while (!done(arg)) {
        if (wf__find_and_run(w, true) != WF__RAN_NONE) {
            idle.round = 0;
        } else if (!wf__idle_step(&idle)) {
            wf__wait_park(w, done, arg);
            idle.round = 0;
        }
    }
}

/* The idle policy.  A worker that was idle, stole a detached task (a
 * graph's, as a rule) and ran out of work again within CRUMB_NS got a
 * crumb: less work than the hand-off cost the owner (a publish, often a
 * wake-up) and this thief (a steal, and lines that the owner's next tasks
 * write again), as a stolen task of a fine-grained graph is (a few
 * wavefront cells).  It then naps at once, asking no owner to publish
 * (P2), so that the owners keep such tasks and run them on warm lines;
 * after the nap it spins (asking, P2) for fewer rounds than before and,
 * finding nothing, naps again; it parks (asking, so that the next publish
 * wakes it) only after EMPTY_NAPS such naps in a row.  An owner then
 * answers the napper's requests while it spins, without the futex
 * wake-up that a parked asker costs it.  Each crumb in a row doubles the
 * nap (and halves the spin); any other busy stretch ends the naps.
 * Oversubscribed, napping matters most: a spinning or yielding worker
 * stays runnable and takes its share of a core from the one with work.
 * Joined (fork-join) tasks are not judged: a thief that got a small one
 * usually gets a larger one next, since owners publish their oldest.  Nor
 * are submitted tasks: no owner could have kept those, and a nap would
 * only delay the next submission's start by a wake-up. */
#define CRUMB_NS 50000u
#define NAP_NS 25000u
#define MAX_NAPS 7u /* crumbs counted; the nap is NAP_NS << (naps - 1) */
#define EMPTY_NAPS 3u

/* A spare that is surplus (more threads run than the pool's size) leaves
 * after the task it just ran, once its own tasks are done too: a stream
 * of work would keep it from ever reaching its idle point. */
static bool spare_done(wf__worker *w)
{
    if (!w->spare || !wf__spares_surplus(w->pool))
        return false;
    for (wf_task *t; (t = wf__pop_own(w)) != NULL;)
        wf__run_own(w, t);
    return wf__spare_should_retire(w);
}

void *wf__worker_main(void *arg)
{
    wf__worker *w = arg;
    wf_pool *p = w->pool;
    wf__self = &w->fast;
    unsigned naps = 0, empty = 0;
    wf__idle idle;
    wf__idle_init(&idle, p->spin, WF__YIELDS);
    bool busy = false;  /* in a busy stretch (found work since idle) */
    uint64_t since = 0; /* its start, if it began with a stolen detached
                           task (else 0: it is not judged, no clock read) */
    /* Acquire pairs with the release store in wf_pool_destroy. */
    while (!wf_load_acquire(&p->shutdown)) {
        int r = wf__find_and_run(w, true);
        if (r != WF__RAN_NONE) {
            if (!busy)
                since = r == WF__RAN_STOLEN_DETACHED ? wf__now_ns() : 0;
            busy = true;
            idle.round = 0;
            if (spare_done(w))
                break;
            continue;
        }
        if (busy) { /* the stretch is over: was it a crumb? */
            bool crumb = since != 0 && wf__now_ns() - since < CRUMB_NS;
            naps = !crumb ? 0 : naps < MAX_NAPS ? naps + 1 : naps;
            busy = false;
            empty = 0;
            /* A napper spins less and does not yield (see above). */
            wf__idle_init(&idle, p->spin >> naps, naps ? 0 : WF__YIELDS);
            if (crumb) {
                wf__nap(w, (uint64_t)NAP_NS << (naps - 1));
                continue;
            }
        }
        if (wf__idle_step(&idle)) {
            continue;
        } else if (w->spare && wf__spare_should_retire(w)) {
            break; /* a spare nobody needs any more */
        } else if (naps != 0 && ++empty < EMPTY_NAPS) {
            wf__nap(w, (uint64_t)NAP_NS << (naps - 1));
            idle.round = 0;
        } else {
            wf__park(w);
            idle.round = 0;
        }
    }
    wf__self = &wf__no_worker;
    return NULL;
}

/* ---- lingering after a pipeline token --------------------------------- */

/* A background worker that ran a pipeline token keeps helping for a while
 * before it goes back to its loop (wf__linger): until it has found nothing
 * to do for LINGER_NS, longer than the loop's crumb threshold (CRUMB_NS
 * above), and for LINGER_MAX_NS at most. */
#define LINGER_NS 60000u
#define LINGER_MAX_NS 500000u
#define LINGER_SPIN_NS 10000u /* idle longer: nap between looks, */
#define LINGER_NAP_NS 20000u  /* for this long, woken by no publish */

static _Thread_local bool lingering;

/* A background worker whose token has parked or finished helps the pool
 * here, as its loop would, until it has been idle for LINGER_NS (or has
 * lingered LINGER_MAX_NS).  Its loop naps when a stretch of work that
 * began with a stolen detached task ends within the crumb threshold:
 * right for a fine-grained graph, whose tasks are better left with their
 * owner, but a pipeline's stretches end whenever its one input token runs
 * on another thread, so its workers would nap nearly all the time and the
 * pipeline run on the caller alone.  A stretch that lingered is never that
 * short.  Idle, it spins for LINGER_SPIN_NS, then naps LINGER_NAP_NS at a
 * time: on an oversubscribed machine a spinning helper takes the CPU from
 * the thread whose work it waits for, and yielding does not give it back
 * reliably (docs/pipeline.md).  Its looks poll only deques that look
 * non-empty, asking no owner (P2): tokens are published as they are
 * spawned, but for an input token kept while hand-offs cost more than
 * its items (pipeline.c, input_keep), and an idle look then only reads the victims'
 * lines, which their owners keep writing.  The wait is bounded and touches no
 * pipeline state (the pipeline may be gone).  Callers (caller slots) help
 * in wf__help_until already and do not nap; tokens run while lingering do
 * not linger again. */
void wf__linger(void)
{
    wf__worker *w = wf__current();
    if (w == NULL || w->caller || lingering)
        return;
    lingering = true;
    uint64_t start = wf__now_ns(), busy_at = start, now = start;
    bool ran = false;
    for (unsigned i = 1;; i++) {
        bool napping = now - busy_at > LINGER_SPIN_NS;
        if (wf__find_and_run(w, false) != WF__RAN_NONE)
            ran = true;
        else if (napping)
            wf__nap(w, LINGER_NAP_NS); /* leave the CPU to threads with work */
        else
            wf__cpu_relax();
        if (i % 16 != 0 && !napping)
            continue; /* spinning: the clock every 16 looks */
        now = wf__now_ns();
        busy_at = ran ? now : busy_at;
        ran = false;
        if (now - busy_at > LINGER_NS || now - start > LINGER_MAX_NS)
            break;
    }
    lingering = false;
}
