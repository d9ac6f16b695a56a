/* SPDX-License-Identifier: Apache-2.0 */
/* Blocking inside a task (ForkJoinPool's ManagedBlocker): a worker (or a
 * caller in its slot) about to block hands its private tasks to the
 * others and, if fewer than the pool's background workers would be left
 * running, starts (or reuses) a spare.  A spare
 * retires when it is idle and no longer needed.  The counts' lock-free
 * steps are internal/pool/spares.h's (rule P12 of docs/protocols.md). */
#include "internal/pool/notify.h"
#include "internal/pool/park.h"
#include "internal/pool/spares.h"
#include "internal/pool/stack.h"
#include "internal/pool/worker.h"

/* A slot for a new spare: a retired one (its thread joined first), else a
 * new one.  Called with spare_lock held.  NULL when at the limit or out of
 * memory. */
static wf__worker *spare_slot(wf_pool *p)
{
    unsigned n = wf__nslots(p);
    for (unsigned i = p->first_spare; i < n; i++) {
        wf__worker *w = p->workers[i];
        /* Relaxed: the join below (or spare_lock, for a spare that
         * failed to start) orders the slot's last use (P12). */
        if (wf_load_relaxed(&w->retired)) {
            if (w->started) /* not a slot whose thread failed to start */
                pthread_join(w->thread, NULL);
            w->started = false;
            wf_store_relaxed(&w->retired, 0);
            return w;
        }
    }
    if (n >= p->first_spare + p->max_spares || wf__worker_create(p, n) != 0)
        return NULL;
    /* Release: thieves that see the new count see the worker (acquire in
     * wf__nslots; P11). */
    wf_store_release(&p->nslots, n + 1);
    return p->workers[n];
}

/* Start a spare if fewer than the pool's workers run.  WF_EAGAIN when one
 * was needed and memory or a thread for it could not be had; 0 otherwise,
 * at the max_spares bound too (the configuration asked for that). */
static int start_spare(wf_pool *p)
{
    int err = 0;
    pthread_mutex_lock(&p->spare_lock);
    /* No spare after shutdown.  Relaxed: stop_workers takes this lock
     * after it stores shutdown, before it joins (P11). */
    if (!wf_load_relaxed(&p->shutdown) && wf__running(p) < (int)p->n) {
        bool at_bound = wf__nslots(p) >= p->first_spare + p->max_spares;
        wf__worker *w = spare_slot(p);
        if (w) {
            wf__spares_add(&p->spares_running, 1); /* P12 */
            if (wf__worker_start(w) != 0) {
                wf__spares_add(&p->spares_running, -1); /* P12 */
                /* Reusable; relaxed: under spare_lock (P12). */
                wf_store_relaxed(&w->retired, 1);
                w->started = false;
                err = WF_EAGAIN;
            }
        } else if (!at_bound) {
            err = WF_EAGAIN; /* no memory for the slot */
        }
    }
    pthread_mutex_unlock(&p->spare_lock);
    return err;
}

int wf_blocking_begin(void)
{
    wf__worker *w = wf__current();
    if (w == NULL || w->blocking_depth++ > 0)
        return 0;
    /* Another worker may need our private tasks to unblock us: publish
     * them all (P2), then make sure enough workers run. */
    wf__publish_all(w);
    wf_pool *p = w->pool;
    if (wf__spares_block(&p->blocked, &p->spares_running)) /* P12 */
        return start_spare(p); /* blocked either way: end follows */
    return 0;
}

int wf_blocking_end(void)
{
    wf__worker *w = wf__current();
    if (w == NULL || w->blocking_depth == 0 || --w->blocking_depth > 0)
        return 0;
    wf_pool *p = w->pool;
    /* Spares that parked while they were needed are surplus now: wake
     * them so they retire (they check at the point where they would park
     * again).  The count is lowered before the wake (P12). */
    if (wf__spares_unblock(&p->blocked, &p->spares_running))
        wf__wake_all(p);
    return 0;
}
