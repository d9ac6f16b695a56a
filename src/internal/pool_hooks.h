/* SPDX-License-Identifier: Apache-2.0 */
/* What the components built on the pool use of it, and no more: the flow
 * graph, task graphs and the algorithms (src/algo: loops, groups,
 * pipelines) include this, never a header of internal/pool/, so they do
 * not see the pool's structures.  The pool implements every function
 * here.  Never installed. */
#ifndef WF_INTERNAL_POOL_HOOKS_H
#define WF_INTERNAL_POOL_HOOKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "internal/base/alloc.h"
#include "weft/pool.h"

struct wf__worker;

/* A condition a waiter waits for: true once it holds.  Its completer makes
 * it true with a seq_cst RMW or store, then calls wf__wake_waiters (P8). */
typedef bool (*wf__cond_fn)(const void *arg);
/* After making a waiter's condition true: wake the pool's waiters. */
void wf__wake_waiters(wf_pool *pool);
/* Wait until done(arg), running pool's work on the calling thread
 * meanwhile: as the worker it is, or in a caller slot.  Returns false,
 * having done nothing, when it cannot take part (no free slot, in a pool
 * with background workers): the caller then blocks its own way. */
bool wf__wait_helping(wf_pool *pool, wf__cond_fn done, const void *arg);

/* Spawn t detached (nobody joins it; flags adds WF__TASK_ROOT to count it
 * for wf_pool_wait_idle) on the calling worker's own stack, as wf_spawn
 * does, if the caller is one of pool's workers; else return false and do
 * nothing.  For graph tasks and wf_submit from inside the pool: no lock,
 * no RMW (but the root count), and the task stays on this worker unless a
 * thief asks. */
bool wf__spawn_detached(wf_pool *pool, wf_task *t, wf_task_fn fn,
                        uint32_t flags);

/* Records for the detached tasks of components (a continue node's
 * rounds), WF__RECORD_SIZE bytes each, aligned as pool's allocator
 * aligns.  take: the last record the calling thread's worker or slot of
 * pool gave back, else one from pool's allocator; NULL without memory.
 * give: r back to the calling thread's worker or slot of pool, which
 * keeps a few for its next takes, else to pool's allocator.  Any thread:
 * a record taken on one thread may be given back on another
 * (src/pool/records.c). */
#define WF__RECORD_SIZE 128
void *wf__record_take(wf_pool *pool);
void wf__record_give(wf_pool *pool, void *r);

/* Is the calling thread one of a pool's (a worker, or in a caller slot)? */
bool wf__in_pool(void);
/* Take a free caller slot of pool for the calling thread, which must not
 * be a worker of pool or in one of its slots: it then runs tasks as a
 * worker of pool does.  NULL when every slot is taken. */
struct wf__worker *wf__caller_enter(wf_pool *pool);
/* Give the slot back; its private tasks go to its deque first. */
void wf__caller_leave(struct wf__worker *w);
/* On w, the calling thread's slot or worker: run its own tasks (newest
 * first, as a worker does), answering a thief's request before each
 * (P2), until it has none left or budget_ns nanoseconds have passed
 * since the first began (the clock is read only once a task ran).  Runs
 * nothing it would have to steal.  Returns how many tasks ran. */
unsigned wf__run_own_for(struct wf__worker *w, uint64_t budget_ns);

/* Was pool made before a fork() of this process (its threads are not
 * here)? */
bool wf__pool_forked(const wf_pool *pool);
/* Count a graph made on pool (delta 1) or destroyed (-1): the pool is not
 * destroyed while one uses it. */
void wf__pool_graphs_add(wf_pool *pool, long delta);
/* Debug mode (WEFT_DEBUG) as it was when pool was made. */
bool wf__pool_debug(const wf_pool *pool);
/* The allocator pool was made with (its configuration's, or malloc's). */
const wf_allocator *wf__pool_alloc(const wf_pool *pool);

/* ---- for the algorithms (src/algo) --------------------------------------- */

/* What wf__self points to in threads that are not workers: a full, empty
 * stack, so the inline spawn takes the slow path and the inline join never
 * matches (src/pool/self.c). */
extern struct wf__fast wf__no_worker;

/* The calling thread's worker or caller slot, NULL if it has none. */
static inline struct wf__worker *wf__current(void)
{
    return wf__self == &wf__no_worker ? NULL : (struct wf__worker *)wf__self;
}

/* Ready tasks a component keeps off the private stack while one of its
 * tasks runs, for this thread to run after it: a task graph's successors
 * (src/taskgraph/run.c), which a spawn would give a record and a trip
 * through the pool's loop each.  Registered in wf__fast.held; before the
 * thread waits, helps or publishes all, the pool calls spawn, which must
 * spawn them all (wf__spawn_detached_n) and forget them, so that no task
 * is stranded where only a frame below sees it (rule P7). */
struct wf__held {
    void (*spawn)(struct wf__held *h);
};

/* Make h (or NULL) the held tasks of f, the calling thread's identity
 * (wf__self); returns those it replaces, to be put back when h's task
 * ends.  Nothing on a thread that is no worker, whose identity is shared:
 * its spawns are submissions and it never helps, so h, kept to itself,
 * strands nothing. */
static inline struct wf__held *wf__held_swap(struct wf__fast *f,
                                             struct wf__held *h)
{
    struct wf__held *old = f->held;
    if (f != &wf__no_worker)
        f->held = h;
    return old;
}

/* Would a spawn now take its slow path on f, the calling thread's
 * identity: a thief has asked it for work (P2), or its stack is full?
 * (Always, on a thread that is no worker.)  The test by which a
 * component that holds tasks hands them over.  Relaxed: the request is a
 * hint, as for the spawn's test. */
static inline bool wf__spawn_asked(struct wf__fast *f)
{
    return WF__SPAWN_FULL(f, f->sp);
}

/* Spawn n tasks detached, each as wf__spawn_detached (flags 0) spawns
 * it: on top of the calling worker's private tasks, or `under` them all
 * (older than any, so that a publish gives them first and the owner pops
 * them last); and answer a thief's request once, after the last, so that
 * it gets the older half of them all (P2).  False, having done nothing,
 * when the caller is not one of pool's workers. */
bool wf__spawn_detached_n(wf_pool *pool, wf_task *const *ts, size_t n,
                          wf_task_fn fn, bool under);

/* All of w's private tasks to its deque: before it blocks, parks, waits
 * or hands its thread over, so that none is stranded where no thief
 * looks, or at once when a task must not wait for a thief's request
 * (P2). */
void wf__publish_all(struct wf__worker *w);
/* Run pool work on w, the calling thread's worker or slot (own tasks,
 * submissions, steals), until done(arg); spin, yield, then park as a
 * waiter when there is none (P8). */
void wf__help_until(struct wf__worker *w, wf__cond_fn done, const void *arg);
/* After a pipeline token's task on a background worker: keep helping
 * the pool, as its loop would, until idle a while (src/pool/worker.c
 * says how long and why); nothing on a caller, nor when already
 * lingering. */
void wf__linger(void);

/* This thread's identity as a task owner: its worker, or a token of its
 * own when it is no worker. */
void *wf__thread_token(void);
/* Spawn t from a thread that is not a worker: it goes to pool's
 * submission queue (run at once when pool is NULL), and its join, from
 * this thread, is wf__join_external. */
void wf__spawn_external(wf_pool *pool, wf_task *t, wf_task_fn fn);
/* Join t, which this thread spawned from outside any pool into pool's
 * submission queue (wf__spawn_external), helping pool meanwhile.  Returns
 * wf_join's codes. */
int wf__join_external(wf_pool *pool, wf_task *t);

#endif /* WF_INTERNAL_POOL_HOOKS_H */
