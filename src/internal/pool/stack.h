/* SPDX-License-Identifier: Apache-2.0 */
/* A worker's private stack (src/pool/stack.c): its memory, publishing its
 * oldest tasks to the deque, and thieves' requests that it do so (P2).
 * The stack's spawn and join fast paths are inline in weft/pool.h.
 * Never installed. */
#ifndef WF_INTERNAL_POOL_STACK_H
#define WF_INTERNAL_POOL_STACK_H

#include "internal/pool/types.h"

int wf__stack_init(wf__worker *w, size_t cap);
void wf__stack_destroy(wf__worker *w);
/* Room for one more private task: compact, else grow.  WF_ENOMEM if
 * neither is possible.  The caller resets limit to the new end. */
int wf__stack_make_room(wf__worker *w);

/* Write the fields of t, one of this worker's private tasks, that the
 * inline spawn leaves unwritten (thief_, flags_), before t is published or
 * run off its join's fast path.  Returns whether t is joinable (spawned by
 * wf_spawn), not detached. */
static inline bool wf__task_settle_fields(wf_task *t)
{
    if (t->owner_ == WF__JOINED) /* detached: wf__spawn_detached set all */
        return false;
    /* A typed frame's mark stays: its sync must still see it (an
     * untyped task's flags_ may be garbage here, and bit 8 means nothing
     * to it). */
    t->flags_ &= WF__TSLOT_SLOW;
    wf_store_relaxed(&t->thief_, NULL); /* unseen by thieves yet (P2) */
    return true;
}

/* Move the k oldest private tasks to the deque (P2, P6) and wake a
 * sleeper if there is one.  On allocation failure they stay private.
 * (wf__publish_all, every one of them, is in pool_hooks.h.) */
void wf__publish_some(wf__worker *w, size_t k);
/* Answer a request: the older half of the private tasks (the larger
 * ones). */
static inline void wf__publish_half(wf__worker *w)
{
    size_t priv = (size_t)(w->fast.sp - w->fast.bp);
    wf__publish_some(w, (priv + 1) / 2);
}
/* The tasks held off w's stack (wf__fast.held) spawned onto it, before w
 * waits, helps or publishes all: where it and its thieves look (P7). */
static inline void wf__spawn_held(wf__worker *w)
{
    struct wf__held *h = w->fast.held;
    if (h != NULL)
        h->spawn(h);
}
/* Newest of w's own tasks: private stack first, then deque. */
wf_task *wf__pop_own(wf__worker *w);

/* Ask the owner of f to publish at its next spawn (P2). */
void wf__ask_for_work(struct wf__fast *f);
/* Set f's limit back to its end and say whether a thief had asked for
 * work (P2): the request is then the caller's to answer. */
bool wf__take_request(struct wf__fast *f);
/* If a thief has asked this worker for work (P2), publish half of its
 * private tasks. */
void wf__answer_request(wf__worker *w);

#endif /* WF_INTERNAL_POOL_STACK_H */
