/* SPDX-License-Identifier: Apache-2.0 */
/* Threads that are not workers take part.  A thread that waits on the pool
 * (wf_run, wf_join of a task it spawned, wf_group_wait, wf_pool_wait_idle,
 * wf_graph_wait_for_all) takes one of the pool's caller slots, a worker
 * without a thread of its own, and runs the pool's work on the calling
 * thread until what it waits for is done: its own tasks first, then
 * submissions, then steals, as a worker does.  It parks only when there is
 * nothing to help with (P8).  oneTBB's arenas keep slots for such threads
 * in the same way, and ForkJoinPool's external callers help
 * (awaitQuiescence, helpQuiesce).  Rule numbers refer to
 * docs/protocols.md. */
#include <sched.h>
#include <time.h>

#include "internal/pool/caller.h"
#include "internal/pool/runner.h"
#include "internal/pool/stack.h"

/* A thread in a slot of one pool, or a worker of it, may take a slot of
 * another while it waits there: the slot remembers where it came from
 * (outer). */

/* The slot this thread had last, tried first: its lines may still be in
 * this core's cache. */
static _Thread_local unsigned last_slot;

wf__worker *wf__caller_enter(wf_pool *pool)
{
    struct wf__fast *outer = wf__self;
    for (unsigned k = 0; k < WF_CALLER_SLOTS; k++) {
        unsigned i = (last_slot + k) % WF_CALLER_SLOTS;
        wf__worker *w = pool->workers[pool->n + i];
        int free = 0;
        /* Relaxed first look, so busy slots cost no RMW; the acquire CAS
         * pairs with the release store in wf__caller_leave (P8). */
        if (wf_load_relaxed(&w->occupied) == 0 &&
            wf_cas_acqrel(&w->occupied, &free, 1)) { /* P8 */
            last_slot = i;
            /* A worker of another pool answers no request of its own
             * pool while it is here: what it holds privately goes where
             * its pool's thieves can take it (P2). */
            if (outer != &wf__no_worker) {
                wf__worker *o = (wf__worker *)outer;
                wf__publish_all(o);
            }
            w->outer = outer;
            wf__self = &w->fast;
            return w;
        }
    }
    return NULL;
}

void wf__caller_leave(wf__worker *w)
{
    /* Detached tasks (graph tasks, wf_submit from a task) may be left on
     * the private stack, where nobody would see them: publish them (P7).
     * If the deque cannot grow they are run here instead. */
    wf__publish_all(w);
    for (wf_task *t; w->fast.sp > w->fast.bp;) {
        t = *--w->fast.sp;
        wf__run_own(w, t);
    }
    wf__self = w->outer;
    wf_store_release(&w->occupied, 0); /* the CAS in enter (P8) */
}

unsigned wf__run_own_for(wf__worker *w, uint64_t budget_ns)
{
    unsigned n = 0;
    uint64_t deadline = 0;
    for (;;) {
        wf__answer_request(w); /* a spinning thief may take the older half */
        if (n > 0) {
            /* The clock only when there is more to run, so a run of one
             * task (a message's work, often) reads it not at all; the
             * budget runs from the end of the first task. */
            if (w->fast.sp == w->fast.bp && wf_deque_size(&w->deque) == 0)
                return n;
            uint64_t now = wf__now_ns();
            if (n == 1)
                deadline = now + budget_ns;
            else if (now >= deadline)
                return n;
        }
        wf_task *t = wf__pop_own(w);
        if (t == NULL)
            return n;
        wf__run_own(w, t);
        n++;
    }
}

wf__worker *wf__caller_enter_wait(wf_pool *pool, wf__cond_fn done,
                                  const void *arg)
{
    wf__worker *w = wf__caller_enter(pool);
    if (w != NULL || pool->n > 0)
        return w; /* a slot, or workers that will run the work */
    /* No background worker: the work waits for a thread in a slot.  The
     * holders are putters (they leave at once) or waiters (they leave when
     * done), so one frees soon; poll for it, gently. */
    for (unsigned round = 0;; round++) {
        if (done != NULL && done(arg))
            return NULL;
        if (round < 64) {
            sched_yield();
        } else {
            struct timespec ts = {0, 50000};
            nanosleep(&ts, NULL);
        }
        if ((w = wf__caller_enter(pool)) != NULL)
            return w;
    }
}

bool wf__wait_helping(wf_pool *pool, wf__cond_fn done, const void *arg)
{
    wf__worker *w = wf__current();
    if (w != NULL && w->pool == pool) {
        wf__help_until(w, done, arg);
        return true;
    }
    if ((w = wf__caller_enter_wait(pool, done, arg)) == NULL)
        return pool->n == 0; /* done while it waited for a slot */
    wf__help_until(w, done, arg);
    wf__caller_leave(w);
    return true;
}
