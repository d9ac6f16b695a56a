/* SPDX-License-Identifier: Apache-2.0 */
/* Spawning onto a worker's private stack off the inline fast path of
 * weft/pool.h: a full stack or a thief's request to answer (P2), and
 * detached tasks (P7: graph tasks, pipeline tokens, wf_submit from a
 * task), which nobody joins.  Rules: docs/protocols.md. */
#include <string.h>

#include "internal/pool/runner.h"
#include "internal/pool/spawn.h"
#include "internal/pool/stack.h"

/* The spawn's slow path (spawn.h). */
void wf__push_private(wf__worker *w, wf_task *t)
{
    bool asked = wf__take_request(&w->fast);
    if (w->fast.sp == w->fast.end) {
        int err = wf__stack_make_room(w);
        asked |= wf__take_request(&w->fast); /* end may have moved */
        if (err != 0) {
            wf__run_own(w, t); /* no memory: run it now */
            if (asked)
                wf__publish_half(w);
            return;
        }
    }
    *w->fast.sp++ = t;
    if (asked)
        wf__publish_half(w);
}

/* Every field of t, a detached task that nobody joins (P7). */
static inline void detached_init(wf_task *t, wf_task_fn fn, uint32_t flags)
{
    t->fn = fn;
    t->owner_ = WF__JOINED; /* nobody may join it */
    t->flags_ = WF__TASK_DETACHED | flags;
    /* Nobody else sees t until it is published: relaxed. */
    wf_store_relaxed(&t->done_, 0);
    wf_store_relaxed(&t->thief_, NULL);
}

bool wf__spawn_detached(wf_pool *pool, wf_task *t, wf_task_fn fn,
                        uint32_t flags)
{
    wf__worker *w = wf__current();
    if (w == NULL || w->pool != pool)
        return false;
    detached_init(t, fn, flags);
    /* Counted before it can run (P10).  Relaxed: the root's end follows
     * this through the push below (D1), so in the count's modification
     * order too, and nothing is published through it. */
    if (flags & WF__TASK_ROOT)
        wf_fetch_add_relaxed(&pool->roots, 1);
    /* The inline spawn's test and path; relaxed, as there. */
    if ((uintptr_t)w->fast.sp < (uintptr_t)wf_load_relaxed(&w->fast.limit))
        *w->fast.sp++ = t;
    else
        wf__push_private(w, t);
    return true;
}

/* Room for n more private tasks: false if none could be made. */
static bool room_for(wf__worker *w, size_t n)
{
    while ((size_t)(w->fast.end - w->fast.sp) < n)
        if (wf__stack_make_room(w) != 0)
            return false;
    return true;
}

bool wf__spawn_detached_n(wf_pool *pool, wf_task *const *ts, size_t n,
                          wf_task_fn fn, bool under)
{
    wf__worker *w = wf__current();
    if (w == NULL || w->pool != pool)
        return false;
    for (size_t k = 0; k < n; k++)
        detached_init(ts[k], fn, 0);
    struct wf__fast *f = &w->fast;
    if (under && room_for(w, n)) {
        /* Below the private tasks: the stack's slots are the owner's
         * alone, and the sentinel below the base stays (P1). */
        memmove(f->bp + n, f->bp, (size_t)(f->sp - f->bp) * sizeof *f->bp);
        memcpy(f->bp, ts, n * sizeof *ts);
        f->sp += n;
    } else {
        for (size_t k = 0; k < n; k++) {
            if (f->sp == f->end && wf__stack_make_room(w) != 0)
                wf__run_own(w, ts[k]); /* no memory: run it now */
            else
                *f->sp++ = ts[k];
        }
    }
    /* A request that came before or during these pushes gets half of
     * them all, not of the first alone (P2); it is taken only when there
     * is a task to answer it with (P7).  The load first, relaxed as the
     * inline spawn's, so that no request costs no RMW; the exchange also
     * puts back a limit that a grown stack left behind. */
    if (f->sp > f->bp && WF__SPAWN_FULL(f, f->sp) && wf__take_request(f))
        wf__publish_half(w);
    return true;
}
