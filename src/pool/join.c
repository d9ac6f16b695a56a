/* Spawn and join, slow paths; publishing private tasks to the deque.
 *
 * The fast paths are inline in include/weft/pool.h.  A worker's tasks live
 * in two places, in spawn order: its public deque holds the older ones,
 * its private list (head, head->older_, ...) the newer ones.  Publishing
 * moves the oldest private tasks to the deque's top, so the order is kept
 * and a task that was stolen has no older sibling left (P6).  Rules:
 * docs/protocols.md. */
#include <sched.h>
#include <string.h>

#include "internal/pool.h"

/* The identity a thread that is not a worker gives the tasks it spawns. */
static _Thread_local char external_token;

/* This thread's identity as a task owner: its worker, or its token. */
void *wf__thread_token(void)
{
    wf__worker *w = wf__current();
    return w ? (void *)w : (void *)&external_token;
}

static size_t private_count(const wf__worker *w)
{
    size_t n = 0;
    for (const wf_task *x = w->fast.head; x != NULL; x = x->older_)
        n++;
    return n;
}

/* Room in the scratch array for k tasks; fewer when memory is short. */
static size_t scratch_reserve(wf__worker *w, size_t k)
{
    if (k <= w->scratch_cap)
        return k;
    size_t cap = w->scratch_cap;
    while (cap < k)
        cap *= 2;
    wf_task **mem = wf__alloc(&w->pool->alloc, cap * sizeof *mem);
    if (mem == NULL)
        return w->scratch_cap;
    wf__scratch_destroy(w);
    w->scratch = mem;
    w->scratch_cap = cap;
    return k;
}

/* Move the k oldest private tasks (all of them when there are fewer) to
 * the deque (P2, P6) and wake a sleeper if there is one.  On allocation
 * failure they stay private. */
void wf__publish_some(wf__worker *w, size_t k)
{
    size_t n = private_count(w);
    k = scratch_reserve(w, k < n ? k : n);
    if (k == 0)
        return;
    /* Skip the n - k newest; *cut is then the newest task to publish. */
    wf_task **cut = &w->fast.head;
    for (size_t i = k; i < n; i++)
        cut = &(*cut)->older_;
    wf_task *x = *cut;
    for (size_t i = k; i-- > 0; x = x->older_)
        w->scratch[i] = x; /* oldest first: the deque's order */
    if (wf_deque_push_n(&w->deque, (void *const *)w->scratch, k) != 0)
        return; /* no memory: the tasks stay private */
    *cut = NULL; /* P1: the published tasks leave the private list */
    wf_counter_inc(&w->stats.publishes);
    wf__wake_one(w->pool, w);
}

/* Clear the request and say whether a thief had asked for work (P2).  An
 * exchange, so a request stored meanwhile is either taken here or left for
 * the next spawn, never lost.  acq_rel: this slow path is rare. */
static bool take_request(struct wf__fast *f)
{
    return wf_exchange_acqrel(&f->asked, 0) != 0;
}

/* Spawn from a thread that is not a worker: the task goes to pool's
 * submission queue, and its join (from this thread) waits for it. */
void wf__spawn_external(wf_pool *pool, wf_task *t, wf_task_fn fn)
{
    t->fn = fn;
    t->flags_ = 0;
    t->owner_ = &external_token;
    if (pool != NULL) {
        wf__submit_root(pool, t);
    } else {
        fn(t); /* no pool could be created: run it now, not lose it */
        wf_store_relaxed(&t->done_, WF__DONE); /* only we read it */
    }
}

int wf__spawn_slow(wf_task *t, wf_task_fn fn)
{
    if (t == NULL || fn == NULL)
        return WF_EINVAL;
    wf__worker *w = wf__current();
    if (w == NULL) {
        wf__spawn_external(wf_pool_default(), t, fn);
        return 0;
    }
    t->fn = fn;
    t->flags_ = 0;
    t->owner_ = w;
    t->older_ = w->fast.head;
    w->fast.head = t;
    wf_counter_inc(&w->fast.spawns);
    /* Answer a request with the older half of the private tasks (the
     * larger ones). */
    if (take_request(&w->fast))
        wf__publish_some(w, (private_count(w) + 1) / 2);
    return 0;
}

/* Newest of this worker's own tasks: private list first, then deque. */
static wf_task *pop_own(wf__worker *w)
{
    wf_task *t = w->fast.head;
    if (t != NULL) {
        w->fast.head = t->older_;
        return t;
    }
    return wf_deque_pop(&w->deque);
}

/* Wait for a stolen task, helping its thief meanwhile (leapfrogging: the
 * thief's deque holds t's descendants, so what we steal there is work t
 * waits on).  Park only when there is nothing to help with. */
static void help_until_done(wf__worker *w, wf_task *t)
{
    unsigned idle = 0, spin = w->pool->spin;
    /* Acquire pairs with the release in wf__task_complete. */
    while (wf_load_acquire(&t->done_) != WF__DONE) {
        wf__worker *thief = wf_load_relaxed(&t->thief_); /* hint */
        wf_task *x = thief ? wf__steal(w, thief) : NULL;
        if (x) {
            wf__run_stolen(w, x);
            idle = 0;
        } else if (++idle <= spin) {
            wf__cpu_relax();
        } else if (idle <= spin + 32) {
            sched_yield();
        } else {
            wf__task_wait(t);
            return;
        }
    }
}

/* Forget the join so the frame can be spawned again. */
static int finish_join(wf_task *t)
{
    t->owner_ = WF__JOINED;
    /* Only the joiner touches these once done_ == WF__DONE: relaxed. */
    wf_store_relaxed(&t->done_, 0);
    wf_store_relaxed(&t->thief_, NULL);
    return 0;
}

int wf__join_slow(wf_task *t)
{
    if (t == NULL)
        return WF_EINVAL;
    wf__worker *w = wf__current();
    void *me = wf__thread_token();
    if (t->owner_ == NULL)
        return WF_ENOTSPAWNED;
    if (t->owner_ == WF__JOINED)
        return WF_EJOINED;
    if (t->owner_ != me)
        return WF_EPERM;
    if (w == NULL) {
        wf__task_wait(t);
        return finish_join(t);
    }
    /* A request: give away the older half of the tasks older than t. */
    if (take_request(&w->fast))
        wf__publish_some(w, private_count(w) / 2);
    /* Acquire pairs with the release in wf__task_complete. */
    if (wf_load_acquire(&t->done_) == WF__DONE)
        goto done; /* ran already: out of order, or stolen and finished */
    /* P6: everything above t in spawn order is newer; run it, then t.  If
     * t is gone, so is everything older: we never run an older task here. */
    for (wf_task *x; (x = pop_own(w)) != NULL;) {
        x->fn(x);
        if (x == t)
            return finish_join(t);
        wf_store_relaxed(&x->done_, WF__DONE); /* its join is ours: relaxed */
    }
    help_until_done(w, t);
done:
    if (wf_load_relaxed(&t->thief_) != NULL) /* a thief ran it */
        wf_counter_inc(&w->stats.lost);
    return finish_join(t);
}
