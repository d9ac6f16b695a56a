/* A worker thread: its private stack, and the loop that finds work when it
 * has none (submissions, then stealing), spins, yields, and parks.
 * Rule numbers refer to docs/protocols.md. */
#include <sched.h>
#include <string.h>

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
        return t;
    }
    wf_counter_inc(&w->stats.failed_steals);
    if (r == WF_POLL_EMPTY)
        wf__ask_for_work(&victim->fast);
    return NULL;
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
    t->fn(t);
    if (!(flags & WF__TASK_DETACHED)) {
        if (shared)
            wf__task_complete(t);
        else /* its joiner is this thread: relaxed */
            wf_store_relaxed(&t->done_, WF__DONE);
    }
    if (flags & WF__TASK_ROOT)
        wf__root_done(w->pool);
}

void wf__run_stolen(wf__worker *w, wf_task *t)
{
    wf_counter_inc(&w->stats.run_stolen);
    run_task(w, t, true);
}

void wf__run_root(wf__worker *w, wf_task *t)
{
    wf_counter_inc(&w->stats.run_external);
    run_task(w, t, true);
}

void wf__run_own(wf__worker *w, wf_task *t)
{
    if (t->flags_ & WF__TASK_DETACHED) /* not counted as a spawn */
        wf_counter_inc(&w->stats.run_external);
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

/* One pass over the other workers, from a random one. */
static wf_task *steal_any(wf__worker *w)
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
        if (i == w->index)
            continue;
        wf_task *t = wf__steal(w, p->workers[i]);
        if (t)
            return t;
    }
    return NULL;
}

static bool find_and_run(wf__worker *w)
{
    /* Own tasks first: detached ones (wf_submit, graph tasks) left on the
     * stack or deque once the task that spawned them returned. */
    wf__answer_request(w); /* a sleeper may wait for our private tasks */
    wf_task *t = wf__pop_own(w);
    if (t) {
        wf__run_own(w, t);
        return true;
    }
    t = wf__take_submitted(w->pool);
    if (t) {
        wf__run_root(w, t);
        return true;
    }
    t = steal_any(w);
    if (t) {
        wf__run_stolen(w, t);
        return true;
    }
    return false;
}

bool wf__help_once(void)
{
    wf__worker *w = wf__current();
    return w != NULL && find_and_run(w);
}

void *wf__worker_main(void *arg)
{
    wf__worker *w = arg;
    wf_pool *p = w->pool;
    wf__self = &w->fast;
    unsigned idle = 0;
    /* Acquire pairs with the release store in wf_pool_destroy. */
    while (!wf_load_acquire(&p->shutdown)) {
        if (find_and_run(w)) {
            idle = 0;
        } else if (++idle <= p->spin) {
            wf__cpu_relax();
        } else if (idle <= p->spin + 32) {
            sched_yield(); /* let a preempted thread we wait on run */
        } else if (w->spare && wf__spare_should_retire(w)) {
            break; /* a spare nobody needs any more */
        } else {
            wf__park(w);
            idle = 0;
        }
    }
    wf__self = &wf__no_worker;
    return NULL;
}
