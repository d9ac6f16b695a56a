/* SPDX-License-Identifier: Apache-2.0 */
/* The slow paths of spawn and join (wf_spawn, wf_join, and typed tasks'
 * WF_SYNC), the top of the pool: a spawn or join from a thread that is no
 * worker goes through the default pool's submission queue; a join whose
 * task is not on top of the private stack runs what is newer (P6), or,
 * the task stolen, helps its thief (leapfrogging) and then sleeps on it
 * (P5).  The fast paths are inline in include/weft/pool.h and
 * weft/task.h; the private stack itself is stack.c.  Rules:
 * docs/protocols.md. */
#include "internal/pool/caller.h"
#include "internal/pool/done.h"
#include "internal/pool/park.h"
#include "internal/pool/runner.h"
#include "internal/pool/spawn.h"
#include "internal/pool/stack.h"
#include "internal/pool/steal.h"
#include "internal/pool/submit.h"
#include "internal/pool/thunk.h"
#include "internal/pool/typed.h"

/* The identity a thread that is not a worker gives the tasks it spawns. */
static _Thread_local char external_token;

/* This thread's identity as a task owner: its worker, or its token. */
void *wf__thread_token(void)
{
    wf__worker *w = wf__current();
    return w ? (void *)w : (void *)&external_token;
}

/* Spawn from a thread that is not a worker: the task goes to pool's
 * submission queue, and its join (from this thread) waits for it. */
void wf__spawn_external(wf_pool *pool, wf_task *t, wf_task_fn fn)
{
    t->fn = fn;
    t->flags_ = 0;
    t->owner_ = &external_token;
    wf_store_relaxed(&t->done_, 0); /* the queue's lock publishes it */
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
    t->fn = fn; /* the inline spawn's stores */
    t->owner_ = w;
    wf_store_relaxed(&t->done_, 0);
    t->flags_ = 0;
    wf__push_private(w, t);
    return 0;
}

/* Wait for a stolen task, helping its thief meanwhile (leapfrogging: the
 * thief's deque holds t's descendants, so what we steal there is work t
 * waits on).  Park only when there is nothing to help with. */
static void help_until_done(wf__worker *w, wf_task *t)
{
    wf__idle idle;
    wf__idle_init(&idle, w->pool->spin, WF__YIELDS);
    wf__spawn_held(w); /* private from here on, as a spawn made them (P7) */
    /* Acquire pairs with the release in wf__task_complete (P5). */
    while (!wf__done_seen(&t->done_)) {
        wf__worker *thief = wf_load_relaxed(&t->thief_); /* hint */
        wf_task *x = thief ? wf__steal(w, thief) : NULL;
        if (x) {
            wf__run_stolen(w, x);
            idle.round = 0;
        } else if (!wf__idle_step(&idle)) {
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

/* Acquire pairs with the release in wf__task_complete. */
static bool task_done(const void *t)
{
    /* The joiner's load of P5, as a helping waiter's condition (P8). */
    return wf__done_seen(&((wf_task *)t)->done_);
}

/* Join t, which w spawned and which is not on top of its private stack:
 * run what pop takes from w's own tasks (newer than t, P6) until it takes
 * t, and t then; if t is gone, wait for its thief, helping it.  Also for
 * a task that ran already (out of order, or stolen and finished). */
static int wait_own(wf__worker *w, wf_task *t, wf_task *(*pop)(wf__worker *))
{
    bool lost;
    /* Acquire pairs with the release in wf__task_complete (P5). */
    if (!wf__done_seen(&t->done_)) {
        wf_task *x;
        while ((x = pop(w)) != NULL && x != t)
            wf__run_own(w, x);
        lost = x != t; /* published, and a thief has it */
        if (!lost)
            t->fn(t);
        else
            help_until_done(w, t);
    } else { /* ran already: set by its thief, or NULL (publish, run_own) */
        lost = wf_load_relaxed(&t->thief_) != NULL;
    }
    if (lost)
        wf_counter_inc(&w->stats.lost); /* owner-only (P4) */
    return finish_join(t);
}

int wf__join_external(wf_pool *pool, wf_task *t)
{
    /* HELPING asks the task's runner to wake the pool's waiters, among
     * which this thread may park (P8).  A failed CAS read WF__DONE, and
     * acquires the task's effects (P5). */
    uint32_t d = 0;
    if (wf_cas_acqrel(&t->done_, &d, WF__HELPING) && /* P8 */
        !wf__wait_helping(pool, task_done, t))
        wf__task_wait(t); /* cannot take part: sleep on t (P5) */
    return finish_join(t);
}

int wf__join_slow(wf_task *t)
{
    if (t == NULL)
        return WF_EINVAL;
    wf__worker *w = wf__current();
    if (t->owner_ == NULL)
        return WF_ENOTSPAWNED;
    if (t->owner_ == WF__JOINED)
        return WF_EJOINED;
    /* Spawned from outside any pool: to the default pool's queue. */
    if (t->owner_ == &external_token)
        return wf__join_external(wf_pool_default(), t);
    if (t->owner_ != wf__thread_token())
        return WF_EPERM;
    /* A request: give away the older half of the tasks below t.  Taken
     * only if there is one to give (see wf__answer_request). */
    if (w->fast.sp - w->fast.bp >= 2 && wf__take_request(&w->fast))
        wf__publish_some(w, (size_t)(w->fast.sp - w->fast.bp) / 2);
    /* P6: everything above t in spawn order is newer; if t is gone, so is
     * everything older: we never run an older task here. */
    return wait_own(w, t, wf__pop_own);
}

/* ---- typed tasks (weft/task.h) ------------------------------------------ */

static wf_task *pop_published(wf__worker *w)
{
    return wf_deque_pop(&w->deque);
}

void wf__tsync_misuse(wf__tslot *s, wf__tslot *tp0, const char *name)
{
    if (s < tp0)
        fprintf(stderr,
                "weft: WF_SYNC(%s) in a body with no spawn of its own left "
                "to sync (frame %p below the body's first, %p): a sync "
                "without a spawn, or one that syncs its caller's spawn\n",
                name, (void *)s, (void *)tp0);
    else
        fprintf(stderr,
                "weft: WF_SYNC(%s) found a frame of another task type (frame "
                "%p); syncs must name the newest spawn not yet synced\n",
                name, (void *)s);
    abort();
}

/* Sync s, a frame the body has spawned and not synced, marked (published,
 * first of an overflow segment, or checked by debug mode). */
static void tsync_marked(wf__worker *w, wf__tslot *s)
{
    wf_task *t = &s->task;
    /* Private (never published): run it here.  The first frame of a
     * segment entered on overflow then takes the body back to the full
     * segment. */
    bool overflow = wf__tseg_overflow_first(w, s);
    if (overflow || (t->flags_ & WF__TSLOT_CHECK)) {
        t->flags_ = wf__tslot_idle_mark(w); /* its next spawn is private */
        t->fn(t);
        if (overflow)
            wf__tseg_leave(&w->fast);
        return;
    }
    /* Published.  Once it is synced, every frame from s up is free, and
     * the body's next spawns there are private: tbp comes down to s. */
    w->tbp = s;
    /* What was published after t is newer (P9): the deque only, not the
     * private stack, whose tasks may be older. */
    wait_own(w, t, pop_published);
    t->owner_ = &w->fast;               /* the frame's worker, for good */
    t->flags_ = wf__tslot_idle_mark(w); /* done, so no thief reads it */
}

void wf__tsync_slow(wf__tslot *s, wf_task_fn run, wf__tslot *tp0,
                    const char *name)
{
    wf__worker *w = (wf__worker *)WF__TSLOT_WORKER(s);
    if (s < tp0 || s->task.fn != run)
        wf__tsync_misuse(s, tp0, name);
    tsync_marked(w, s);
}

#ifdef WF__HAVE_THUNKS /* internal/pool/thunk.h */
THUNK(wf__tsync_thunk, wf__tsync_slow);
THUNK(wf__trest_thunk, wf__tsync_rest);
#endif

void wf__tsync_rest(wf__tslot *top, wf__tslot *tp0)
{
    wf__worker *w = (wf__worker *)WF__TSLOT_WORKER(tp0);
    for (wf__tslot *s = top - 1; s >= tp0; s--) {
        if (s->task.flags_ & WF__TSLOT_SLOW)
            tsync_marked(w, s);
        else /* private: run it here, in a segment of its own */
            s->task.fn(&s->task);
    }
}
