/* SPDX-License-Identifier: Apache-2.0 */
/* The sleep side of parking (src/pool/park.c): an idle worker, a waiter
 * that helps while it waits for a condition, a nap, and a joiner whose
 * task was stolen.  The wake side is notify.h; the protocol both follow
 * is evcount.h's.  Never installed. */
#ifndef WF_INTERNAL_POOL_PARK_H
#define WF_INTERNAL_POOL_PARK_H

#include "internal/pool/spares.h"
#include "internal/pool/types.h"

/* Park w, an idle worker, until work may have come (P3); returns at once
 * if there is work, or the pool shuts down. */
void wf__park(wf__worker *w);
/* Park w, which waits for done(arg), until work or a completion may have
 * come (P8); returns at once if done(arg) already holds. */
void wf__wait_park(wf__worker *w, wf__cond_fn done, const void *arg);
/* Sleep for about ns nanoseconds, or until the pool shuts down, asking no
 * one for work and not counted as a sleeper (P3): publishes and
 * submissions do not wake it, though a wake-up may. */
void wf__nap(wf__worker *w, uint64_t ns);
/* Block the calling thread until t has run (P5). */
void wf__task_wait(wf_task *t);

/* Threads running now: the pool's workers and spares, minus the workers
 * blocked (blocking.c).  Relaxed: an estimate, for a parking spare's
 * test, wf_blocking_end's and start_spare's second test under
 * spare_lock; being off by one keeps a spare too many (it retires when
 * idle) or starts one too many.  The test that must not miss a retiring
 * spare is wf_blocking_begin's, spares.h's wf__spares_block (P12). */
static inline int wf__running(wf_pool *p)
{
    return (int)p->n + wf__spares_excess(&p->blocked, &p->spares_running);
}
/* More threads run than the pool's size: a spare may retire. */
static inline bool wf__spares_surplus(wf_pool *p)
{
    return wf__running(p) > (int)p->n;
}

#endif /* WF_INTERNAL_POOL_PARK_H */
