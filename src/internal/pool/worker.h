/* SPDX-License-Identifier: Apache-2.0 */
/* A worker thread (src/pool/worker.c): a slot's creation and its thread,
 * the loop, and a spare's retirement.  (wf__help_until and wf__linger,
 * which the algorithms call too, are in pool_hooks.h.)  Never
 * installed. */
#ifndef WF_INTERNAL_POOL_WORKER_H
#define WF_INTERNAL_POOL_WORKER_H

#include "internal/pool/types.h"

/* Allocate and initialise slot `index` of p (no thread yet).  The caller
 * publishes it by raising nslots. */
int wf__worker_create(wf_pool *p, unsigned index);
/* Start w's thread, with the pool's stack size. */
int wf__worker_start(wf__worker *w);
/* A worker thread's loop, until the pool shuts down (or, a spare, until
 * it retires). */
void *wf__worker_main(void *arg);
/* w, a spare, leaves if it is not needed (more threads run than the
 * pool's size), by winning a CAS, so two cannot both leave when one is
 * still needed. */
bool wf__spare_should_retire(wf__worker *w);
/* The task records w keeps (records.c) back to the pool's allocator, as
 * the pool ends. */
void wf__records_free(wf__worker *w);

#endif /* WF_INTERNAL_POOL_WORKER_H */
