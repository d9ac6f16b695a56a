/* SPDX-License-Identifier: Apache-2.0 */
/* Task records for components' detached tasks (pool_hooks.h): a stack of
 * given-back records per worker and caller slot, so that a task that
 * needs a record per run (a continue node's round) takes the one the
 * thread's last such task gave back, still in its cache, rather than
 * calling the allocator.  As oneTBB's small object pool for its tasks,
 * but owner-only: a record given back on another thread goes to that
 * thread's stack, and a stack past RECORDS_KEPT frees to the allocator,
 * so a thread that only takes and one that only gives cost an
 * allocation each per record and no more memory. */
#include "internal/pool/worker.h"

#define RECORDS_KEPT 64 /* per worker or slot */

/* The calling thread's worker or slot if it is pool's, else NULL.  A
 * slot's stack is its holder's alone: slots change holders with an
 * acquire CAS and a release store (wf__worker.occupied). */
static wf__worker *own(wf_pool *pool)
{
    wf__worker *w = wf__current();
    return w != NULL && w->pool == pool ? w : NULL;
}

void *wf__record_take(wf_pool *pool)
{
    wf__worker *w = own(pool);
    if (w == NULL || w->records == NULL)
        return wf__alloc(&pool->alloc, WF__RECORD_SIZE);
    void *r = w->records;
    w->records = *(void **)r;
    w->n_records--;
    return r;
}

void wf__record_give(wf_pool *pool, void *r)
{
    wf__worker *w = own(pool);
    if (w == NULL || w->n_records == RECORDS_KEPT) {
        wf__free(&pool->alloc, r, WF__RECORD_SIZE);
        return;
    }
    *(void **)r = w->records;
    w->records = r;
    w->n_records++;
}

void wf__records_free(wf__worker *w)
{
    while (w->records != NULL) {
        void *r = w->records;
        w->records = *(void **)r;
        wf__free(&w->pool->alloc, r, WF__RECORD_SIZE);
    }
    w->n_records = 0;
}
