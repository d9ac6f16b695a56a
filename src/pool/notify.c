/* SPDX-License-Identifier: Apache-2.0 */
/* The wake side of parking: the pool's calls into its event counts
 * (evcount.c), with the counting they need, and the completion of a task
 * another thread joins (the task's own done_ word).  Rule numbers (P3,
 * P5, P8) refer to docs/protocols.md. */
#include <limits.h>

#include "internal/pool/done.h"
#include "internal/pool/notify.h"

/* Called after making work visible (a publish or a submission).  An idle
 * worker is woken first: it is there for that.  Only when none sleeps are
 * the waiters woken, since the work may be theirs to do (P8). */
void wf__wake_one(wf_pool *pool, wf__worker *by)
{
    if (wf__ec_wake_sleeper(&pool->ec) && by)
        wf_counter_inc(&by->stats.wakes); /* owner-only counter (P4) */
}

void wf__wake_waiters(wf_pool *pool)
{
    wf__ec_wake_waiters(&pool->ec);
}

void wf__wake_all(wf_pool *pool)
{
    wf__ec_wake_all(&pool->ec);
}

/* Mark t as run and wake its joiner if it sleeps on t (WAITING) or may
 * have parked as one of pool's waiters (HELPING, P8).  t must not be
 * touched afterwards: the joiner may return and reuse its frame at once.
 * A wake on a dead frame is harmless (P5). */
void wf__task_complete(wf_pool *pool, wf_task *t)
{
    /* done.h's exchange: its release publishes the task's effects to the
     * joiner's acquire (P5). */
    uint32_t was = wf__done_mark(&t->done_);
    if (was == WF__WAITING)
        wf__futex_wake(&t->done_, INT_MAX);
    else if (was == WF__HELPING)
        wf__wake_waiters(pool);
}
