/* SPDX-License-Identifier: Apache-2.0 */
/* The sleep side of parking: idle workers and waiters (threads that help
 * while they wait for a condition) sleep on the pool's event counts
 * (evcount.c) once they have asked every other slot for work and found
 * none; a nap sleeps a while without asking; a joiner whose task was
 * stolen sleeps on the task's own done_ word.  The wake side is
 * notify.c.  Rule numbers (P2, P3, P5, P8, P11) refer to
 * docs/protocols.md. */
#include "internal/pool/park.h"
#include "internal/pool/done.h"
#include "internal/pool/stack.h"
#include "internal/pool/steal.h"
#include "internal/trace.h"

/* Ask every other slot's owner to publish (P2): a parked thread is woken
 * only by a publish, and owners publish only when asked.  The request is
 * a hint (wf__ask_for_work's relaxed stores). */
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
    /* Announced, and fenced (P3): see wf__ec_sleep_begin. */
    uint32_t epoch = wf__ec_sleep_begin(&p->ec);
    /* A spare also stays up when it has become surplus: it retires at the
     * top of its loop.  wf_blocking_end decrements `blocked` before it
     * wakes everyone, so the same fence argument covers that wake-up.
     * Relaxed on shutdown: the fence in wf__ec_sleep_begin orders it.  If
     * that read of epoch saw wf__wake_all's release increment, the store
     * of shutdown before it happens before this load, which reads it;
     * if not, the wait returns at once or is woken.  The store publishes
     * nothing a worker reads (P11). */
    if (!wf__work_visible(p) && !wf_load_relaxed(&p->shutdown) &&
        !(w->spare && wf__spares_surplus(p))) {
        wf_counter_inc(&w->stats.parks); /* owner-only (P4) */
        traced_wait(&p->ec.epoch, epoch);
    }
    wf__ec_sleep_end(&p->ec);
}

void wf__wait_park(wf__worker *w, wf__cond_fn done, const void *arg)
{
    wf_pool *p = w->pool;
    /* A parked waiter answers no request: what it holds privately goes
     * where others can take it (P2). */
    wf__publish_all(w);
    ask_everyone(w);
    /* Announced, and fenced (P8): see wf__ec_wait_begin. */
    uint32_t epoch = wf__ec_wait_begin(&p->ec);
    /* Relaxed on shutdown: wf__wake_all wakes no waiter, so this test
     * only saves a sleep, and what a waiter reads next its condition's
     * own acquire orders; the store publishes nothing (P11). */
    if (!done(arg) && !wf__work_visible(p) && !wf_load_relaxed(&p->shutdown)) {
        wf_counter_inc(&w->stats.parks); /* owner-only (P4) */
        traced_wait(&p->ec.waiter_epoch, epoch);
    }
    wf__ec_wait_end(&p->ec);
}

void wf__nap(wf__worker *w, uint64_t ns)
{
    wf_pool *p = w->pool;
    /* If the shutdown store (before wf__wake_all's increment) is missed
     * below, epoch has moved since this read and the wait returns at
     * once (wf__ec_epoch). */
    uint32_t epoch = wf__ec_epoch(&p->ec);
    /* Relaxed: the acquire load of epoch above orders it, as the fence
     * orders wf__park's test (P11). */
    if (!wf_load_relaxed(&p->shutdown)) {
        wf_counter_inc(&w->stats.parks); /* owner-only (P4) */
        wf__futex_wait_ns(&p->ec.epoch, epoch, ns);
    }
}

/* Block the calling thread until t has run (P5).  done_ may be 0 or
 * HELPING (a joiner that helped and could not go on, caller.c). */
void wf__task_wait(wf_task *t)
{
    /* WAITING, unless done; the steps on done_ are done.h's (P5). */
    wf__done_announce(&t->done_);
    /* Acquire pairs with the release of wf__task_complete's exchange
     * (P5). */
    while (!wf__done_seen(&t->done_))
        wf__futex_wait(&t->done_, WF__WAITING);
}
