/* Entry from outside the pool: the submission queue, wf_run, wf_submit,
 * wf_pool_wait_idle. */
#include "internal/pool.h"

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
    /* Counted before it can run, so wait_idle cannot miss it. */
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

void wf__root_done(wf_pool *pool)
{
    /* The last root: the broadcast is under the lock, so a waiter that
     * saw roots > 0 is already in cond_wait. */
    if (wf_fetch_add_seqcst(&pool->roots, -1) == 1) {
        pthread_mutex_lock(&pool->idle_lock);
        pthread_cond_broadcast(&pool->idle_cond);
        pthread_mutex_unlock(&pool->idle_lock);
    }
}

int wf_submit(wf_pool *pool, wf_task *t, wf_task_fn fn)
{
    if (pool == NULL || t == NULL || fn == NULL)
        return WF_EINVAL;
    /* From one of pool's workers: on its own stack, where a spawn goes. */
    if (wf__spawn_detached(pool, t, fn, WF__TASK_ROOT))
        return 0;
    t->fn = fn;
    t->owner_ = WF__JOINED; /* nobody may join it */
    t->flags_ = WF__TASK_DETACHED;
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
    run_frame f = {.task = {.fn = run_body}, .fn = fn, .arg = arg};
    wf__submit_root(pool, &f.task);
    wf__task_wait(&f.task);
    return 0;
}

int wf_pool_wait_idle(wf_pool *pool)
{
    if (pool == NULL)
        return WF_EINVAL;
    if (wf_current_pool() == pool)
        return WF_EPERM; /* it would wait for itself */
    pthread_mutex_lock(&pool->idle_lock);
    while (wf_load_acquire(&pool->roots) > 0)
        pthread_cond_wait(&pool->idle_cond, &pool->idle_lock);
    pthread_mutex_unlock(&pool->idle_lock);
    return 0;
}
