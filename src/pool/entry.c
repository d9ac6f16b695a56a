/* SPDX-License-Identifier: Apache-2.0 */
/* Entry from outside the pool: wf_run, wf_submit, wf_pool_wait_idle.  A
 * thread that waits takes part (caller.c).  Rule numbers refer to
 * docs/protocols.md. */
#include "internal/pool/caller.h"
#include "internal/pool/debug.h"
#include "internal/pool/park.h"
#include "internal/pool/roots.h"
#include "internal/pool/spawn.h"
#include "internal/pool/submit.h"
#include "internal/trace.h"

int wf_submit(wf_pool *pool, wf_task *t, wf_task_fn fn)
{
    if (pool == NULL || t == NULL || fn == NULL)
        return WF_EINVAL;
    if (wf__pool_forked(pool))
        return WF_ESTATE;
    /* Queued twice, t would run twice, or link the queue into a cycle.
     * The bit is cleared when t starts (run_task), so fn may submit t
     * again. */
    if (t->flags_ & WF__TASK_QUEUED)
        return WF_EBUSY;
    /* From one of pool's workers: on its own stack, where a spawn goes. */
    if (wf__spawn_detached(pool, t, fn, WF__TASK_ROOT | WF__TASK_QUEUED))
        return 0;
    t->fn = fn;
    t->owner_ = WF__JOINED; /* nobody may join it */
    t->flags_ = WF__TASK_DETACHED | WF__TASK_QUEUED;
    wf__submit_root(pool, t);
    return 0;
}

typedef struct {
    wf_task task;
    void (*fn)(void *);
    void *arg;
} run_frame;

static void run_body(wf_task *t)
{
    run_frame *f = (run_frame *)t;
    f->fn(f->arg);
}

int wf_run(wf_pool *pool, void (*fn)(void *arg), void *arg)
{
    if (pool == NULL || fn == NULL)
        return WF_EINVAL;
    if (wf_current_pool() == pool) {
        fn(arg);
        return 0;
    }
    if (wf__pool_forked(pool))
        return WF_ESTATE; /* made before a fork: its threads are not here */
    /* From outside: on this thread, in a caller slot, as a worker would;
     * what fn spawns is stolen from here. */
    wf__worker *w = wf__caller_enter_wait(pool, NULL, NULL);
    if (w) {
        wf_task *top = pool->debug ? wf__debug_top(w) : NULL;
        bool traced = wf__trace_enabled();
        if (traced)
            wf__trace_record('B', WF__TRACE_RUN, "wf_run", 0);
        fn(arg);
        if (traced)
            wf__trace_record('E', WF__TRACE_RUN, NULL, 0);
        if (__builtin_expect(pool->debug, 0))
            wf__debug_frame_exit(w, top, (const void *)fn,
                                 __builtin_frame_address(0));
        wf__caller_leave(w);
        return 0;
    }
    run_frame f = {.task = {.fn = run_body}, .fn = fn, .arg = arg};
    wf__submit_root(pool, &f.task);
    wf__task_wait(&f.task);
    return 0;
}

/* The waiter's load of P10 (roots.h). */
static bool no_roots(const void *pool)
{
    return wf__roots_none(&((wf_pool *)pool)->roots);
}

int wf_pool_wait_idle(wf_pool *pool)
{
    if (pool == NULL)
        return WF_EINVAL;
    if (wf_current_pool() == pool)
        return WF_EPERM; /* it would wait for itself */
    if (wf__pool_forked(pool))
        return WF_ESTATE;
    /* Not a cancellation point (docs/pool.md, "Threads"): cancelled in
     * cond_wait, the thread would end holding idle_lock, and every root's
     * end would wait for it for ever; cancelled in a task it runs while
     * it helps, it would end holding a caller slot. */
    int cancel_state = PTHREAD_CANCEL_ENABLE;
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel_state);
    bool helped = wf__wait_helping(pool, no_roots, pool);
    /* Always taken, also after the helping wait saw no root: the last
     * root lets it go after its step to 0, and the lock is what orders
     * every root's effects before this return (P10, roots.h). */
    pthread_mutex_lock(&pool->idle_lock);
    while (!helped && !wf__roots_none(&pool->roots))
        pthread_cond_wait(&pool->idle_cond, &pool->idle_lock);
    pthread_mutex_unlock(&pool->idle_lock);
    pthread_setcancelstate(cancel_state, NULL);
    return 0;
}

/* The waiter's side of P8 for a thread that found no caller slot: announce
 * itself (wf__ec_wait_begin's fence), test the condition, and sleep on
 * waiter_epoch, which wf_pool_notify moves after its own fence; the
 * workers run the work meanwhile. */
static void wait_parked(wf_pool *pool, wf__cond_fn done, const void *arg)
{
    while (!done(arg)) {
        uint32_t epoch = wf__ec_wait_begin(&pool->ec);
        if (!done(arg))
            wf__futex_wait(&pool->ec.waiter_epoch, epoch);
        wf__ec_wait_end(&pool->ec);
    }
}

int wf_pool_wait_until(wf_pool *pool, bool (*done)(const void *arg),
                       const void *arg)
{
    if (pool == NULL || done == NULL)
        return WF_EINVAL;
    if (done(arg))
        return 0;
    if (wf__pool_forked(pool))
        return WF_ESTATE;
    /* Not a cancellation point, as wf_pool_wait_idle: cancelled in a task
     * it runs while it helps, the thread would keep a caller slot. */
    int cancel_state = PTHREAD_CANCEL_ENABLE;
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel_state);
    if (!wf__wait_helping(pool, done, arg))
        wait_parked(pool, done, arg);
    pthread_setcancelstate(cancel_state, NULL);
    return 0;
}

void wf_pool_notify(wf_pool *pool)
{
    if (pool != NULL)
        wf__wake_waiters(pool); /* its fence orders the condition (P8) */
}
