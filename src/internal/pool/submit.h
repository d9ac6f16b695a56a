/* SPDX-License-Identifier: Apache-2.0 */
/* The submission queue and the count of root tasks (src/pool/submit.c):
 * how work from threads that are not workers enters the pool.  Never
 * installed. */
#ifndef WF_INTERNAL_POOL_SUBMIT_H
#define WF_INTERNAL_POOL_SUBMIT_H

#include "internal/pool/types.h"

/* Queue t, a root (counted in pool->roots), and wake a worker. */
void wf__submit_root(wf_pool *pool, wf_task *t);
/* The oldest queued task, or NULL. */
wf_task *wf__take_submitted(wf_pool *pool);
/* A root task has run: the last one wakes wf_pool_wait_idle's waiters. */
void wf__root_done(wf_pool *pool);

#endif /* WF_INTERNAL_POOL_SUBMIT_H */
