/* SPDX-License-Identifier: Apache-2.0 */
/* The wake side of parking (src/pool/notify.c): what a thread calls after
 * making work visible, making a waiter's condition true, or running a
 * task another thread joins.  The sleep side is park.h; the protocol
 * both follow is evcount.h's.  Never installed. */
#ifndef WF_INTERNAL_POOL_NOTIFY_H
#define WF_INTERNAL_POOL_NOTIFY_H

#include "internal/pool/types.h"

/* After making work visible (a publish or a submission): wake an idle
 * worker, or when none sleeps the waiters (P3, P8).  by: the slot that
 * counts the wake-up (NULL: none). */
void wf__wake_one(wf_pool *pool, wf__worker *by);
/* Wake every idle worker (shutdown, spares made surplus). */
void wf__wake_all(wf_pool *pool);
/* Mark t as run and wake its joiner if it sleeps on t or may have parked
 * as one of pool's waiters (P5, P8).  t must not be touched afterwards. */
void wf__task_complete(wf_pool *pool, wf_task *t);

#endif /* WF_INTERNAL_POOL_NOTIFY_H */
