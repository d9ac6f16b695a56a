/* SPDX-License-Identifier: Apache-2.0 */
/* Private structures of the pool.  Never installed. */
#ifndef WF_INTERNAL_POOL_H
#define WF_INTERNAL_POOL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "internal/atomic.h"
#include "internal/base/alloc.h"
#include "internal/base/env.h"
#include "internal/pool_hooks.h"
#include "internal/trace.h"
#include "internal/util.h"
#include "weft/pool.h"
#include "weft/task.h"

/* Workers that exist now (spares included); acquire pairs with the release
 * that publishes a new slot in wf__worker_create's caller. */
#define wf__nslots(p) wf_load_acquire(&(p)->nslots)

/* Task flags (owner-written before the task is shared). */
#define WF__TASK_DETACHED 1u /* nobody joins it; it may be freed once run */
#define WF__TASK_ROOT 2u     /* counted in pool->roots (wf_pool_wait_idle) */
#define WF__TASK_QUEUED 4u   /* given to wf_submit and not started yet */
/* 8u is a typed frame's WF__TSLOT_SLOW (weft/task.h).  In debug mode a
 * private frame carries it too, with one of these, so that every sync
 * takes the slow path and is checked there (typed.c): */
#define WF__TSLOT_CHECK 16u /* spawned and not synced */
#define WF__TSLOT_FREE 32u  /* no spawn pending */

/* Counters written by one worker, read by wf_pool_stats (wf_counter_inc).
 * A spawn is counted once, by its owner, and so is each task run, by its
 * runner: joinable tasks when published (spawns) and, if a thief ran one,
 * again when joined (lost); tasks that nobody joins (detached: wf_submit
 * from a task, graph tasks, pipeline tokens) as their owner runs them
 * (run_unjoined) or a thief takes them (wf__worker.given); a submission
 * from outside by the slot that takes it from the queue (run_unjoined):
 * it enters the pool there. */
typedef struct wf__counters {
    _Atomic uint64_t steals, failed_steals, publishes, parks, wakes;
    _Atomic uint64_t run_stolen;   /* tasks of other workers it ran       */
    _Atomic uint64_t run_unjoined; /* its detached tasks and submissions it
                                      ran: each a spawn and a task run    */
    _Atomic uint64_t lost;         /* its own tasks that thieves ran      */
    _Atomic uint64_t spawns;       /* its joinable tasks it published     */
} wf__counters;

typedef struct wf__worker {
    struct wf__fast fast; /* first: wf__self points here */
    wf_deque deque;       /* the public part: thieves poll it */
    _Alignas(WF_CACHE_LINE) wf_pool *pool;
    unsigned index;
    uint64_t rng;        /* victim selection */
    wf_task **stack_mem; /* [0] is the NULL sentinel below the stack */
    size_t stack_cap;    /* usable slots */
    wf__counters stats;
    pthread_t thread;
    bool started;
    bool spare;  /* started for a blocked worker (blocking.c) */
    bool caller; /* a slot for threads that are not workers (caller.c) */
    /* A caller slot's holder: 0 when free.  Taken by an acquire CAS and
     * freed by a release store, so each holder sees what the previous one
     * did to the slot's stack and deque. */
    _Atomic int occupied;
    struct wf__fast *outer; /* the holder's wf__self before it came */
    _Atomic int retired;    /* a spare whose thread has exited or will */
    int blocking_depth;     /* nesting of wf_blocking_begin (owner-only) */
    /* Typed frames (typed.c): the reservation of this worker's segments
     * (NULL until it runs a typed body), the segments in use (the last is
     * the one in use), the segments made ready; the segment in use's first
     * frame not yet published, its end, and what tlimit holds when no
     * thief asks.  Owner-only. */
    struct wf__tstack *tstack;
    unsigned tdepth, tready;
    struct wf__tslot *tbp, *tend, *tstop;
    void *mem; /* what wf__alloc returned, for the aligned worker */
    /* Its detached tasks that thieves took (wf__steal): spawns of its own
     * that it does not run.  The one counter other threads write, by a
     * relaxed RMW (a count, ordered with nothing), on a line of its own:
     * the owner never writes it. */
    _Alignas(WF_CACHE_LINE) _Atomic uint64_t given;
} wf__worker;

/* Submission queue for threads that are not workers (wf_run, wf_submit,
 * wf_spawn from outside).  An intrusive FIFO under a mutex, linked through
 * the tasks' thief_ field (unused until a task is stolen, and root tasks
 * are never stolen): submitting never allocates, so it cannot fail.
 * External entry is rare and already pays a futex wake. */
typedef struct wf__submitq {
    pthread_mutex_t lock;
    wf_task *head, *tail;
    _Atomic size_t visible; /* queued tasks, readable without the lock */
} wf__submitq;

/* The slots, by index: [0, n) background workers, [n, first_spare) caller
 * slots, then spares as they are started. */
struct wf_pool {
    unsigned threads;     /* configured: background workers + one caller */
    unsigned n;           /* background workers: threads - 1             */
    unsigned first_spare; /* n + WF_CALLER_SLOTS                         */
    unsigned max_spares;
    _Atomic unsigned nslots; /* workers[0..nslots) exist */
    unsigned spin;
    wf_pool_config cfg; /* effective configuration */
    wf_allocator alloc;
    wf__worker **workers;
    bool is_default;
    bool debug;       /* wf__debug() when it was made */
    bool print_stats; /* WEFT_STATS=1 when it was made */
    void *mem;        /* raw block behind this aligned struct */
    _Atomic int shutdown;
    /* Graphs made on this pool and not yet destroyed: wf_pool_destroy
     * refuses while there are any (their tasks would outlive the pool).
     * Seq_cst RMWs; destroy's load needs only to see the count of graphs
     * whose creation happened before it (the caller's own order). */
    _Atomic long graphs;
    unsigned generation; /* wf__fork_gen when it was made */

    /* Parking (park.c): an event count.  Sleepers announce themselves,
     * rescan, then wait on `epoch`; a waker bumps it.  Waiters (threads
     * that wait for a condition and help meanwhile, P8) have an event
     * count of their own, so that a wake-up for work goes to an idle
     * worker first and a completion wakes only waiters.  One line: a
     * waker reads both counts after one fence. */
    _Alignas(WF_CACHE_LINE) _Atomic int sleepers;
    _Atomic uint32_t epoch;
    _Atomic int waiters;
    _Atomic uint32_t waiter_epoch;

    _Alignas(WF_CACHE_LINE) wf__submitq submit;

    /* Spares (blocking.c): workers inside wf_blocking_begin, and spare
     * threads running.  The lock serialises starting and reusing spares. */
    _Alignas(WF_CACHE_LINE) _Atomic int blocked;
    _Atomic int spares_running;
    pthread_mutex_t spare_lock;

    /* Outstanding root tasks (wf_run / wf_submit / external spawn). */
    _Alignas(WF_CACHE_LINE) _Atomic long roots;
    pthread_mutex_t idle_lock;
    pthread_cond_t idle_cond;
};

/* Debug mode (debug.c): WEFT_DEBUG, read once. */
bool wf__debug(void);
/* The newest private task of w, or NULL: what a body about to run finds
 * (debug mode). */
wf_task *wf__debug_top(wf__worker *w);
/* A task body or wf_run's function (body) returned on w, whose newest
 * private task was `top` when it began: abort, saying so, if it left a
 * task it spawned unjoined on w's private stack (debug mode).  floor: the
 * frame of the caller of body (__builtin_frame_address(0)). */
void wf__debug_frame_exit(wf__worker *w, wf_task *top, const void *body,
                          const void *floor);

/* park.c */
void wf__futex_wait(_Atomic uint32_t *addr, uint32_t val);
void wf__futex_wake(_Atomic uint32_t *addr, int n);
void wf__wake_one(wf_pool *pool, wf__worker *by);
void wf__wake_all(wf_pool *pool);
void wf__park(wf__worker *w);
/* Park w, which waits for done(arg), until work or a completion may have
 * come (P8); returns at once if done(arg) already holds. */
void wf__wait_park(wf__worker *w, wf__cond_fn done, const void *arg);
/* Sleep for about ns nanoseconds, or until the pool shuts down, asking no
 * one for work and not counted as a sleeper (P3): publishes and
 * submissions do not wake it, though a wake-up may. */
void wf__nap(wf__worker *w, uint64_t ns);
void wf__task_wait(wf_task *t);
void wf__task_complete(wf_pool *pool, wf_task *t);

/* pool.c */
/* How many fork()s this process is away from the one that made a pool
 * with a smaller generation: such a pool's threads are not here. */
extern unsigned wf__fork_gen;
int wf__worker_create(wf_pool *p, unsigned index);
int wf__worker_start(wf__worker *w);

/* blocking.c */
bool wf__spare_should_retire(wf__worker *w);
bool wf__spares_surplus(wf_pool *p);

/* worker.c */
void *wf__worker_main(void *arg);
wf_task *wf__steal(wf__worker *w, wf__worker *victim);
void wf__ask_for_work(struct wf__fast *f);
bool wf__work_visible(wf_pool *pool);
/* One look for work on w, in the order of its loop: own tasks (answering
 * a thief's request first, P2), submissions, then one pass of steals from
 * a random victim.  With `ask`, every victim is polled and one found
 * empty is asked to publish (P2); without, only deques that look
 * non-empty are polled: a look that only reads the victims' lines, for a
 * thread whose victims publish without being asked (pipeline tokens).
 * Returns what it ran: nothing, a task, or a detached task it stole (the
 * worker loop's idle policy tells these apart). */
enum { WF__RAN_NONE, WF__RAN_TASK, WF__RAN_STOLEN_DETACHED };
int wf__find_and_run(wf__worker *w, bool ask);
/* Run pool work on w (own tasks, submissions, steals) until done(arg);
 * spin, yield, then park as a waiter when there is none (P8). */
void wf__help_until(wf__worker *w, wf__cond_fn done, const void *arg);
/* After a pipeline token's task on a background worker: keep helping
 * the pool, as its loop would, until idle a while (worker.c says how
 * long and why); nothing on a caller, nor when already lingering. */
void wf__linger(void);
void wf__run_stolen(wf__worker *w, wf_task *t);
void wf__run_root(wf__worker *w, wf_task *t);
void wf__run_own(wf__worker *w, wf_task *t);
int wf__stack_init(wf__worker *w, size_t cap);
void wf__stack_destroy(wf__worker *w);

/* join.c */
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
    wf_store_relaxed(&t->thief_, NULL); /* unseen by thieves yet */
    return true;
}
void wf__publish_some(wf__worker *w, size_t k);
/* All of w's private tasks to its deque: before it blocks, parks, waits
 * or hands its thread over, so that none is stranded where no thief
 * looks. */
void wf__publish_all(wf__worker *w);
wf_task *wf__pop_own(wf__worker *w);
/* Set f's limit back to its end and say whether a thief had asked for
 * work (P2): the request is then the caller's to answer. */
bool wf__take_request(struct wf__fast *f);
/* If a thief has asked this worker for work (P2), publish half of its
 * private tasks. */
void wf__answer_request(wf__worker *w);
void wf__spawn_external(wf_pool *pool, wf_task *t, wf_task_fn fn);
/* Join t, which this thread spawned from outside any pool into pool's
 * submission queue (wf__spawn_external), helping pool meanwhile.  Returns
 * wf_join's codes. */
int wf__join_external(wf_pool *pool, wf_task *t);
void *wf__thread_token(void);

/* typed.c */
/* Is s the first frame of a segment entered because the one before was
 * full (a frame never published)? */
bool wf__tseg_overflow_first(wf__worker *w, wf__tslot *s);
void wf__tseg_destroy(wf__worker *w);
/* The mark of w's private frames between uses: none, or in debug mode
 * WF__TSLOT_FREE (with WF__TSLOT_SLOW). */
static inline unsigned wf__tslot_idle_mark(const wf__worker *w)
{
    return w->pool->debug ? WF__TSLOT_SLOW | WF__TSLOT_FREE : 0;
}
/* The mark of w's private frames spawned and not synced: none, or in
 * debug mode WF__TSLOT_CHECK (with WF__TSLOT_SLOW). */
static inline unsigned wf__tslot_live_mark(const wf__worker *w)
{
    return w->pool->debug ? WF__TSLOT_SLOW | WF__TSLOT_CHECK : 0;
}

/* caller.c */
/* wf__caller_enter, and if every slot is taken in a pool without
 * background workers (a pool of 1, where nobody else would run the work),
 * wait for one to free; NULL at once when the pool has workers, or once
 * done(arg) holds (done may be NULL). */
wf__worker *wf__caller_enter_wait(wf_pool *pool, wf__cond_fn done,
                                  const void *arg);

/* submit.c */
void wf__submit_root(wf_pool *pool, wf_task *t);
wf_task *wf__take_submitted(wf_pool *pool);
void wf__root_done(wf_pool *pool);

/* What wf__self points to in threads that are not workers: a full, empty
 * stack, so the inline spawn takes the slow path and the inline join never
 * matches. */
extern struct wf__fast wf__no_worker;

static inline wf__worker *wf__current(void)
{
    return wf__self == &wf__no_worker ? NULL : (wf__worker *)wf__self;
}

#endif /* WF_INTERNAL_POOL_H */
