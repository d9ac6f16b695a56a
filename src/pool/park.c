/* SPDX-License-Identifier: Apache-2.0 */
/* Sleeping and waking: idle workers (an event count on the pool), waiters
 * that help while they wait for a condition (a second event count), and
 * joiners whose task was stolen (the task's own done_ word).
 * Rule numbers (P3, P5, P8) refer to docs/protocols.md. */
#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "internal/pool.h"

/* Returns at once if *addr != val, else when woken or after timeout (NULL:
 * none); spurious returns are fine, every caller loops. */
static void futex_wait(_Atomic uint32_t *addr, uint32_t val,
                       const struct timespec *timeout)
{
    syscall(SYS_futex, (uint32_t *)addr, FUTEX_WAIT_PRIVATE, val, timeout, NULL,
            0);
}

void wf__futex_wait(_Atomic uint32_t *addr, uint32_t val)
{
    futex_wait(addr, val, NULL);
}

void wf__futex_wake(_Atomic uint32_t *addr, int n)
{
    syscall(SYS_futex, (uint32_t *)addr, FUTEX_WAKE_PRIVATE, n, NULL, NULL, 0);
}

/* Every parked waiter looks again.  Release: a waiter that wakes on the
 * new epoch sees what was done before (the work, the condition). */
static void wake_waiters_now(wf_pool *pool)
{
    wf_fetch_add_release(&pool->waiter_epoch, 1);
    wf__futex_wake(&pool->waiter_epoch, INT_MAX);
}

/* Called after making work visible (a publish or a submission).  An idle
 * worker is woken first: it is there for that.  Only when none sleeps are
 * the waiters woken, since the work may be theirs to do (P8). */
void wf__wake_one(wf_pool *pool, wf__worker *by)
{
    /* P3: StoreLoad.  Pairs with the fence in wf__park (and in
     * wf__wait_park): either that sleeper's rescan sees the work made
     * visible before this fence, or this load sees its increment. */
    wf_fence_seqcst();
    if (wf_load_relaxed(&pool->sleepers) == 0) {
        if (wf_load_relaxed(&pool->waiters) != 0)
            wake_waiters_now(pool);
        return;
    }
    /* Release: a sleeper that wakes on the new epoch finds the work. */
    wf_fetch_add_release(&pool->epoch, 1);
    wf__futex_wake(&pool->epoch, 1);
    if (by)
        wf_counter_inc(&by->stats.wakes);
}

void wf__wake_waiters(wf_pool *pool)
{
    /* P8: StoreLoad, as in wf__wake_one: either the waiter's check after
     * its fence sees the condition made true before this fence, or this
     * load sees its increment. */
    wf_fence_seqcst();
    if (wf_load_relaxed(&pool->waiters) != 0)
        wake_waiters_now(pool);
}

void wf__wake_all(wf_pool *pool)
{
    /* Release, as in wf__wake_one: sleepers that see the new epoch see
     * what was written before (shutdown, a blocked count). */
    wf_fetch_add_release(&pool->epoch, 1);
    wf__futex_wake(&pool->epoch, INT_MAX);
}

/* Ask every other slot's owner to publish (P2): a parked thread is woken
 * only by a publish, and owners publish only when asked.  Relaxed: the
 * request is a hint. */
static void ask_everyone(wf__worker *w)
{
    wf_pool *p = w->pool;
    for (unsigned i = 0, n = wf__nslots(p); i < n; i++)
        if (i != w->index)
            wf__ask_for_work(&p->workers[i]->fast);
}

/* Sleep on an event count, as a "parked" span when tracing. */
static void traced_wait(_Atomic uint32_t *word, uint32_t epoch)
{
    bool traced = wf__trace_enabled();
    if (traced)
        wf__trace_record('B', WF__TRACE_PARK, "parked", 0);
    wf__futex_wait(word, epoch);
    if (traced)
        wf__trace_record('E', WF__TRACE_PARK, NULL, 0);
}

void wf__park(wf__worker *w)
{
    wf_pool *p = w->pool;
    ask_everyone(w);
    /* Acquire pairs with the release increment in wf__wake_one. */
    uint32_t epoch = wf_load_acquire(&p->epoch);
    wf_fetch_add_seqcst(&p->sleepers, 1);
    /* P3: pairs with the fence in wf__wake_one (see there). */
    wf_fence_seqcst();
    /* A spare also stays up when it has become surplus: it retires at the
     * top of its loop.  wf_blocking_end decrements `blocked` before it
     * wakes everyone, so the same fence argument covers that wake-up. */
    if (!wf__work_visible(p) && !wf_load_acquire(&p->shutdown) &&
        !(w->spare && wf__spares_surplus(p))) {
        wf_counter_inc(&w->stats.parks);
        traced_wait(&p->epoch, epoch);
    }
    wf_fetch_add_seqcst(&p->sleepers, -1); /* only a hint for wakers */
}

void wf__wait_park(wf__worker *w, wf__cond_fn done, const void *arg)
{
    wf_pool *p = w->pool;
    /* A parked waiter answers no request: what it holds privately goes
     * where others can take it (P2). */
    wf__publish_all(w);
    ask_everyone(w);
    /* Acquire pairs with the release increments of the wakers. */
    uint32_t epoch = wf_load_acquire(&p->waiter_epoch);
    wf_fetch_add_seqcst(&p->waiters, 1);
    /* P8: pairs with the fences in wf__wake_one and wf__wake_waiters. */
    wf_fence_seqcst();
    if (!done(arg) && !wf__work_visible(p) && !wf_load_acquire(&p->shutdown)) {
        wf_counter_inc(&w->stats.parks);
        traced_wait(&p->waiter_epoch, epoch);
    }
    wf_fetch_add_seqcst(&p->waiters, -1); /* only a hint for wakers */
}

void wf__nap(wf__worker *w, uint64_t ns)
{
    wf_pool *p = w->pool;
    struct timespec ts = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};
    /* Acquire pairs with the release increment in wf__wake_all: if the
     * shutdown store (before it) is missed below, epoch has moved since
     * this load and the wait returns at once. */
    uint32_t epoch = wf_load_acquire(&p->epoch);
    if (!wf_load_acquire(&p->shutdown)) { /* pairs with wf_pool_destroy */
        wf_counter_inc(&w->stats.parks);
        futex_wait(&p->epoch, epoch, &ts);
    }
}

/* Block the calling thread until t has run (P5).  done_ may be 0 or
 * HELPING (a joiner that helped and could not go on, caller.c). */
void wf__task_wait(wf_task *t)
{
    /* acq_rel: on failure we may read WF__DONE and need the task's
     * effects.  The first load may be relaxed: the CAS checks it, and the
     * acquire load below is what the return waits on. */
    uint32_t d = wf_load_relaxed(&t->done_);
    while (d != WF__DONE && d != WF__WAITING &&
           !wf_cas_acqrel(&t->done_, &d, WF__WAITING))
        ;
    while (wf_load_acquire(&t->done_) != WF__DONE)
        wf__futex_wait(&t->done_, WF__WAITING);
}

/* Mark t as run and wake its joiner if it sleeps on t (WAITING) or may
 * have parked as one of pool's waiters (HELPING, P8).  t must not be
 * touched afterwards: the joiner may return and reuse its frame at once.
 * A wake on a dead frame is harmless (P5). */
void wf__task_complete(wf_pool *pool, wf_task *t)
{
    /* Release publishes the task's effects to the joiner's acquire. */
    uint32_t was = wf_exchange_acqrel(&t->done_, WF__DONE);
    if (was == WF__WAITING)
        wf__futex_wake(&t->done_, INT_MAX);
    else if (was == WF__HELPING)
        wf__wake_waiters(pool);
}
