/* SPDX-License-Identifier: Apache-2.0 */
/* The submission queue: how tasks from threads that are not workers (wf_run,
 * wf_submit, wf_spawn from outside) enter the pool, and the count of root
 * tasks that wf_pool_wait_idle waits for.  Rule numbers refer to
 * docs/protocols.md. */
#include "internal/pool/submit.h"
#include "internal/pool/notify.h"
#include "internal/pool/roots.h"

void wf__submit_root(wf_pool *pool, wf_task *t)
{
    wf__submitq *q = &pool->submit;
    t->flags_ |= WF__TASK_ROOT;
    /* thief_ is the queue's link; the lock orders it: relaxed. */
    wf_store_relaxed(&t->thief_, NULL);
    pthread_mutex_lock(&q->lock);
    if (q->tail)
        wf_store_relaxed(&q->tail->thief_, (void *)t);
    else
        q->head = t;
    q->tail = t;
    /* Counted before it can run, so wait_idle cannot miss it (P10).
     * Relaxed: the root's end follows this in the count's modification
     * order (it takes the task from this queue, under the lock), and
     * nothing is published through it. */
    wf_fetch_add_relaxed(&pool->roots, 1);
    /* Relaxed: the lock orders the list; this is read as a hint, and the
     * wake protocol (P3) covers a sleeper. */
    wf_store_relaxed(&q->visible, wf_load_relaxed(&q->visible) + 1);
    pthread_mutex_unlock(&q->lock);
    wf__wake_one(pool, NULL);
}

wf_task *wf__take_submitted(wf_pool *pool)
{
    wf__submitq *q = &pool->submit;
    if (wf_load_relaxed(&q->visible) == 0) /* hint; the lock decides */
        return NULL;
    pthread_mutex_lock(&q->lock);
    wf_task *t = q->head;
    if (t) {
        q->head = wf_load_relaxed(&t->thief_); /* the link, see submit */
        if (q->head == NULL)
            q->tail = NULL;
        wf_store_relaxed(&t->thief_, NULL);
        wf_store_relaxed(&q->visible, wf_load_relaxed(&q->visible) - 1);
    }
    pthread_mutex_unlock(&q->lock);
    return t;
}

/* The step from 1 to 0 happens only under idle_lock, so a waiter that sees
 * 0 and then takes the lock knows the last finisher has let go of the pool
 * (and a destroy may free it).  The steps on roots are roots.h's (P10). */
void wf__root_done(wf_pool *pool)
{
    if (__builtin_expect(wf__roots_drop(&pool->roots), 1)) /* not the last */
        return;
    pthread_mutex_lock(&pool->idle_lock);
    if (wf__roots_drop_last(&pool->roots)) {
        pthread_cond_broadcast(&pool->idle_cond);
        wf__wake_waiters(pool); /* and those that help (P8) */
    }
    pthread_mutex_unlock(&pool->idle_lock);
}
