/* SPDX-License-Identifier: Apache-2.0 */
/* Caller slots (src/pool/caller.c): threads that are not workers take
 * part while they wait.  (wf__caller_enter, wf__caller_leave,
 * wf__run_own_for and wf__wait_helping, which the other components call
 * too, are in pool_hooks.h.)  Never installed. */
#ifndef WF_INTERNAL_POOL_CALLER_H
#define WF_INTERNAL_POOL_CALLER_H

#include "internal/pool/types.h"

/* wf__caller_enter, and if every slot is taken in a pool without
 * background workers (a pool of 1, where nobody else would run the work),
 * wait for one to free; NULL at once when the pool has workers, or once
 * done(arg) holds (done may be NULL). */
wf__worker *wf__caller_enter_wait(wf_pool *pool, wf__cond_fn done,
                                  const void *arg);

#endif /* WF_INTERNAL_POOL_CALLER_H */
