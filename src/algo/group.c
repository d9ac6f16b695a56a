/* SPDX-License-Identifier: Apache-2.0 */
/* Task groups: many tasks waited for together, first error wins, and
 * cancellation that reaches nested groups.
 *
 * A group is a list of ordinary spawned tasks.  wf_group_wait joins them
 * newest first, so a task nobody stole runs inline and a stolen one is
 * helped with, exactly as wf_join does.  Nothing is allocated. */
#include "internal/atomic.h"
#include "internal/pool_hooks.h"
#include "internal/util.h"

enum { GROUP_ACTIVE = 1, GROUP_WAITED = 2 };

int wf_group_init(wf_group *g, wf_pool *pool, wf_group *parent)
{
    if (g == NULL)
        return WF_EINVAL;
    *g = (wf_group){
        .pool_ = pool, .parent_ = parent, .owner_ = wf__thread_token()};
    /* Before g is shared: relaxed.  state_ is read by wf_group_cancel from
     * any thread; the answer is a snapshot either way. */
    wf_store_relaxed(&g->state_, GROUP_ACTIVE);
    return 0;
}

bool wf_group_is_cancelled(const wf_group *g)
{
    /* Relaxed: a hint polled by running tasks; the flag is set before the
     * error that caused it is returned by wait, which joins every task. */
    for (; g != NULL; g = g->parent_)
        if (wf_load_relaxed(&((wf_group *)g)->cancelled_))
            return true;
    return false;
}

int wf_group_cancel(wf_group *g)
{
    if (g == NULL)
        return WF_EINVAL;
    if (wf_load_relaxed(&g->state_) != GROUP_ACTIVE) /* snapshot, see init */
        return WF_ESTATE;
    wf_store_relaxed(&g->cancelled_, 1); /* a hint, see is_cancelled */
    return 0;
}

static void group_task(wf_task *task)
{
    wf_group_task *t = (wf_group_task *)task;
    wf_group *g = t->group_;
    if (wf_group_is_cancelled(g))
        return; /* cancelled before it started: it does not start */
    int err = t->fn_(t);
    if (err < 0) { /* 0 or above: success */
        int none = 0;
        /* First error wins.  Relaxed: the waiter reads it after joining
         * this task, and the join's acquire orders it (A1, P5). */
        wf_cas_relaxed(&g->error_, &none, err);
        wf_store_relaxed(&g->cancelled_, 1);
    }
}

int wf_group_spawn(wf_group *g, wf_group_task *t, wf_group_fn fn)
{
    if (g == NULL || t == NULL || fn == NULL)
        return WF_EINVAL;
    if (g->owner_ != wf__thread_token())
        return WF_EPERM;
    if (wf_load_relaxed(&g->state_) != GROUP_ACTIVE) /* we are its writer */
        return WF_ESTATE;
    if (wf_group_is_cancelled(g))
        return WF_ECANCELED;
    if (t->group_ != NULL) /* in a group (this or another) until waited */
        return WF_EBUSY;
    t->task = (wf_task){0};
    t->group_ = g;
    t->fn_ = fn;
    t->next_ = g->head_;
    g->head_ = t;
    if (wf__current() == NULL) {
        wf__spawn_external(g->pool_ ? g->pool_ : wf_pool_default(), &t->task,
                           group_task);
        return 0;
    }
    return wf_spawn(&t->task, group_task);
}

int wf_group_wait(wf_group *g)
{
    if (g == NULL)
        return WF_EINVAL;
    if (g->owner_ != wf__thread_token())
        return WF_EPERM;
    if (wf_load_relaxed(&g->state_) != GROUP_ACTIVE) /* we are its writer */
        return WF_ESTATE;
    /* From outside, the tasks went to the group's pool (wf_group_spawn),
     * and their joins help there. */
    wf_pool *outside = wf__current() ? NULL
                       : g->pool_    ? g->pool_
                                     : wf_pool_default();
    /* Take from the head each time: a task that runs inline here may spawn
     * into this group, and its new task must be joined too. */
    for (wf_group_task *t; (t = g->head_) != NULL;) {
        g->head_ = t->next_;
        if ((outside ? wf__join_external(outside, &t->task)
                     : wf_join(&t->task)) != 0)
            WF_BUG("a group task could not be joined");
        t->group_ = NULL; /* it has run: the frame may be spawned again */
    }
    wf_store_relaxed(&g->state_, GROUP_WAITED); /* see init */
    int err = wf_load_relaxed(&g->error_);      /* joined above (A1) */
    if (err == 0 && wf_group_is_cancelled(g))
        err = WF_ECANCELED;
    return err;
}
