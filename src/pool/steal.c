/* SPDX-License-Identifier: Apache-2.0 */
/* Finding work: a steal from one victim (ForkJoinPool's scan, on the
 * deque of src/deque.c), one pass over the victims from a random one, and
 * a worker's look for work in the order of its loop: own tasks,
 * submissions, steals.  Rule numbers refer to docs/protocols.md. */
#include "internal/pool/steal.h"
#include "internal/pool/runner.h"
#include "internal/pool/stack.h"
#include "internal/pool/submit.h"

/* Poll victim's deque once.  On EMPTY, ask the victim to publish (P2). */
wf_task *wf__steal(wf__worker *w, wf__worker *victim)
{
    void *x;
    int r = wf_deque_poll(&victim->deque, &x);
    if (r == WF_POLL_TAKEN) {
        wf_task *t = x;
        /* A hint for the joiner's leapfrogging; relaxed, read relaxed. */
        wf_store_relaxed(&t->thief_, w);
        wf_counter_inc(&w->stats.steals); /* owner-only (P4) */
        /* Nobody joins a detached task, so its owner cannot learn that a
         * thief ran it: the spawn is counted on the owner's row here.
         * A relaxed RMW: a count, ordered with nothing (P4). */
        if (t->flags_ & WF__TASK_DETACHED)
            wf_fetch_add_relaxed(&victim->given, 1);
        return t;
    }
    wf_counter_inc(&w->stats.failed_steals); /* owner-only (P4) */
    if (r == WF_POLL_EMPTY)
        wf__ask_for_work(&victim->fast);
    return NULL;
}

/* Any work a parking worker could take?  Relaxed loads suffice after the
 * fence in wf__park (P3). */
bool wf__work_visible(wf_pool *pool)
{
    if (wf_load_relaxed(&pool->submit.visible) > 0)
        return true;
    for (unsigned i = 0, n = wf__nslots(pool); i < n; i++)
        if (wf_deque_size(&pool->workers[i]->deque) > 0)
            return true;
    return false;
}

/* One pass over the other workers, from a random one.  Without `ask`,
 * only deques that look non-empty are polled (see wf__find_and_run). */
static wf_task *steal_any(wf__worker *w, bool ask)
{
    wf_pool *p = w->pool;
    unsigned n = wf__nslots(p);
    if (n < 2)
        return NULL;
    w->rng ^= w->rng << 13; /* xorshift64 */
    w->rng ^= w->rng >> 7;
    w->rng ^= w->rng << 17;
    unsigned start = (unsigned)(w->rng % n);
    for (unsigned k = 0; k < n; k++) {
        unsigned i = (start + k) % n;
        if (i == w->index ||
            (!ask && wf_deque_size(&p->workers[i]->deque) == 0))
            continue;
        wf_task *t = wf__steal(w, p->workers[i]);
        if (t)
            return t;
    }
    return NULL;
}

int wf__find_and_run(wf__worker *w, bool ask)
{
    /* Own tasks first: detached ones (wf_submit, graph tasks) left on the
     * stack or deque once the task that spawned them returned, or held by
     * a task that now waits, helping. */
    wf__spawn_held(w);
    wf__answer_request(w); /* a sleeper may wait for our private tasks */
    wf_task *t = wf__pop_own(w);
    if (t) {
        wf__run_own(w, t);
        return WF__RAN_TASK;
    }
    t = wf__take_submitted(w->pool);
    if (t) {
        wf__run_root(w, t);
        return WF__RAN_TASK;
    }
    t = steal_any(w, ask);
    if (t) {
        /* Read before running it: it may be freed or respawned. */
        bool detached = (t->flags_ & WF__TASK_DETACHED) != 0;
        wf__run_stolen(w, t);
        return detached ? WF__RAN_STOLEN_DETACHED : WF__RAN_TASK;
    }
    return WF__RAN_NONE;
}
