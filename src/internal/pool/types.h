/* SPDX-License-Identifier: Apache-2.0 */
/* The pool's structures: the pool, its slots (wf__worker: a background
 * worker, a caller slot or a spare), their counters and the submission
 * queue.  Every file of src/pool reads them; nothing outside it does
 * (the other components use internal/pool_hooks.h).  Never installed. */
#ifndef WF_INTERNAL_POOL_TYPES_H
#define WF_INTERNAL_POOL_TYPES_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "internal/atomic.h"
#include "internal/base/alloc.h"
#include "internal/pool/evcount.h"
#include "internal/pool_hooks.h"
#include "internal/util.h"
#include "weft/pool.h"
#include "weft/task.h"

/* Workers that exist now (spares included); acquire pairs with the release
 * that publishes a new slot in wf__worker_create's caller (P11). */
#define wf__nslots(p) wf_load_acquire(&(p)->nslots)

/* Task flags (owner-written before the task is shared). */
#define WF__TASK_DETACHED 1u /* nobody joins it; it may be freed once run */
#define WF__TASK_ROOT 2u     /* counted in pool->roots (wf_pool_wait_idle) */
#define WF__TASK_QUEUED 4u   /* given to wf_submit and not started yet */
/* 8u is a typed frame's WF__TSLOT_SLOW (weft/task.h); 16u and 32u are
 * debug mode's marks of typed frames (internal/pool/typed.h). */

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
    uint64_t rng; /* victim selection */
    /* Task records given back on this thread (records.c): a stack linked
     * through each record's first word, and its depth.  Owner-only. */
    void *records;
    unsigned n_records;
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

    /* Parking (park.c, notify.c): two event counts (evcount.c).  Idle
     * workers announce themselves, rescan, then wait on one; a waker
     * bumps it.  Waiters (threads that wait for a condition and help
     * meanwhile, P8) have the other, so that a wake-up for work goes to
     * an idle worker first and a completion wakes only waiters.  One
     * line: a waker reads both counts after one fence. */
    _Alignas(WF_CACHE_LINE) wf__evcount ec;

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

#endif /* WF_INTERNAL_POOL_TYPES_H */
