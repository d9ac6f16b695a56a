/* SPDX-License-Identifier: Apache-2.0 */
/* The submission queue: how tasks from threads that are not workers (wf_run,
 * wf_submit, wf_spawn from outside) enter the pool, and the count of root
 * tasks that wf_pool_wait_idle waits for.  Rule numbers refer to
 * docs/protocols.md. */
#include "internal/pool/submit.h"
#include "internal/pool/notify.h"

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
    /* Counted before it can run, so wait_idle cannot miss it (P10). */
    wf_fetch_add_seqcst(&pool->roots, 1);
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
 * (and a destroy may free it).  Above 1, a CAS: release, so that a waiter
 * that reads 0 sees every root's effects (a release sequence). */
void wf__root_done(wf_pool *pool)
{
    long v = wf_load_relaxed(&pool->roots);
    while (v > 1)
        /* Release, see above (P10). */
        if (wf_cas_acqrel(&pool->roots, &v, v - 1))
            return;
    pthread_mutex_lock(&pool->idle_lock);
    /* Seq_cst: the waiters' condition, made true before the wake (P10,
     * P8). */
    if (wf_fetch_add_seqcst(&pool->roots, -1) == 1) {
        pthread_cond_broadcast(&pool->idle_cond);
        wf__wake_waiters(pool); /* and those that help (P8) */
    }
    pthread_mutex_unlock(&pool->idle_lock);
}
