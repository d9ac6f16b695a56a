/* SPDX-License-Identifier: Apache-2.0 */
/* A worker's private stack: its memory, and publishing its tasks.
 *
 * The spawn and join fast paths are inline in include/weft/pool.h.  A
 * worker's tasks live in two places, in spawn order: its public deque
 * holds the older ones, its private stack [bp, sp) the newer ones.
 * Publishing moves the oldest private tasks to the deque's top, so the
 * order is kept and a task that was stolen has no older sibling left
 * (P6).  A thief asks for that by storing NULL in the owner's limit (P2).
 * Rules: docs/protocols.md. */
#include <string.h>

#include "internal/pool/notify.h"
#include "internal/pool/request.h"
#include "internal/pool/stack.h"

int wf__stack_init(wf__worker *w, size_t cap)
{
    wf_allocator *a = &w->pool->alloc;
    w->stack_mem = wf__alloc(a, (cap + 1) * sizeof(wf_task *));
    if (w->stack_mem == NULL)
        return WF_ENOMEM;
    w->stack_cap = cap;
    w->stack_mem[0] = NULL; /* P1: the sentinel below the stack */
    w->fast.bp = w->fast.sp = w->stack_mem + 1;
    w->fast.end = w->fast.sp + cap;
    /* Before the worker's thread starts: relaxed. */
    wf_store_relaxed(&w->fast.limit, w->fast.end);
    /* No typed segment yet (typed.c sets it); not NULL, which would read
     * as a thief's request (P9).  Relaxed, as limit. */
    wf_store_relaxed(&w->fast.tlimit, (struct wf__tslot *)w->fast.end);
    return 0;
}

void wf__stack_destroy(wf__worker *w)
{
    wf__free(&w->pool->alloc, w->stack_mem,
             (w->stack_cap + 1) * sizeof(wf_task *));
    w->stack_mem = NULL;
}

int wf__stack_make_room(wf__worker *w)
{
    struct wf__fast *f = &w->fast;
    size_t n = (size_t)(f->sp - f->bp);
    wf_task **base = w->stack_mem + 1;
    if (f->bp > base) {
        memmove(base, f->bp, n * sizeof *base);
        memset(base + n, 0, (size_t)(f->bp - base) * sizeof *base);
    } else {
        size_t cap = w->stack_cap * 2;
        wf_task **mem = wf__alloc(&w->pool->alloc, (cap + 1) * sizeof *mem);
        if (mem == NULL)
            return WF_ENOMEM;
        memcpy(mem, w->stack_mem, (n + 1) * sizeof *mem);
        wf__stack_destroy(w);
        w->stack_mem = mem;
        w->stack_cap = cap;
        base = mem + 1;
    }
    f->bp = base;
    f->sp = base + n;
    f->end = base + w->stack_cap;
    return 0;
}

void wf__publish_some(wf__worker *w, size_t k)
{
    struct wf__fast *f = &w->fast;
    if (k == 0)
        return;
    /* The fields the inline spawn leaves to this point, before the
     * deque's release store publishes the tasks; and the count of the
     * joinable ones (wf_pool_stats). */
    uint64_t joinable = 0;
    for (size_t i = 0; i < k; i++)
        joinable += wf__task_settle_fields(f->bp[i]);
    if (wf_deque_push_n(&w->deque, (void *const *)f->bp, k) != 0)
        return; /* no memory: the tasks stay private */
    /* An owner-only counter: a relaxed load and store (P4). */
    wf_store_relaxed(&w->stats.spawns,
                     wf_load_relaxed(&w->stats.spawns) + joinable);
    /* P1: cleared slots never match the inline join's sp[-1] test. */
    memset(f->bp, 0, k * sizeof *f->bp);
    f->bp += k;
    if (f->bp == f->sp)
        f->bp = f->sp = w->stack_mem + 1;
    wf_counter_inc(&w->stats.publishes); /* owner-only (P4) */
    wf__wake_one(w->pool, w);
}

void wf__publish_all(wf__worker *w)
{
    wf__spawn_held(w);
    wf__publish_some(w, (size_t)(w->fast.sp - w->fast.bp));
}

wf_task *wf__pop_own(wf__worker *w)
{
    struct wf__fast *f = &w->fast;
    if (f->sp > f->bp)
        return *--f->sp;
    return wf_deque_pop(&w->deque);
}

/* Ask the owner of f to publish at its next spawn (P2).  Relaxed: a hint.
 * The steps on each word are request.h's. */
void wf__ask_for_work(struct wf__fast *f)
{
    wf__request_ask_limit(&f->limit);
    wf__request_ask_tlimit(&f->tlimit); /* typed spawns' word (P9) */
}

/* Set limit back to end (and tlimit to tstop, while a typed body runs)
 * and say whether a thief had asked for work (P2, P9).  An exchange each,
 * so a request stored meanwhile is either taken here or left for the next
 * spawn, never lost; the two words need no order between them, since a
 * thief stores NULL in both and either one is a request.  Relaxed: an
 * exchange reads the last value of its word whatever its order, which is
 * all that "never lost" needs, and nothing is published through these
 * words (what answers a request goes through the deque's release, D1). */
bool wf__take_request(struct wf__fast *f)
{
    /* P2's exchange; P9's below (request.h's steps). */
    bool asked = wf__request_take_limit(&f->limit, f->end);
    wf__tslot *tstop = ((wf__worker *)f)->tstop;
    if (tstop != NULL)
        asked |= wf__request_take_tlimit(&f->tlimit, tstop); /* P9 */
    return asked;
}

void wf__answer_request(wf__worker *w)
{
    /* Relaxed: a hint (P2), read first so that no request costs no RMW.
     * A request is taken only when there is a task to answer it with: the
     * asker may be parked, and only the publish wakes it. */
    if (w->fast.sp > w->fast.bp && wf_load_relaxed(&w->fast.limit) == NULL &&
        wf__take_request(&w->fast))
        wf__publish_half(w);
}
