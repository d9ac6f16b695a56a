/* SPDX-License-Identifier: Apache-2.0 */
/* Private structures of task graphs (weft/taskgraph.h).  Never installed.
 *
 * A graph's tasks live in slabs of WF__TG_SLAB tasks, in a list from the
 * oldest; `cur` is the slab tasks are added to, and the slabs after it are
 * spares that wf_taskgraph_clear left (used again before any new one).
 * The arena, where successor arrays past three, dependency tables and
 * subflows' records live, is a list of chunks in the same way. */
#ifndef WF_INTERNAL_TASKGRAPH_H
#define WF_INTERNAL_TASKGRAPH_H

#include <stdalign.h>
#include <stddef.h>
#include <stdint.h>

#include "internal/atomic.h"
#include "internal/pool_hooks.h"
#include "weft/taskgraph.h"

#define WF__TG_SLAB 128

enum wf__tg_kind {
    WF__TG_PLAIN,     /* fn(ctx) */
    WF__TG_CONDITION, /* fn(ctx) picks the successor */
    WF__TG_SUBFLOW,   /* ctx is a struct wf__tg_subflow */
    WF__TG_MODULE,    /* ctx is the graph it runs */
};

/* A task is two records of 64 bytes, one cache line each, in two
 * parallel arrays of its slab (the same index in both).  The hot one,
 * wf_tg_task, holds what running it, making it ready and adding an edge
 * touch: a run of a built graph touches no other line of a task it does
 * not spawn.  The cold one holds what a spawn uses, and names.  Hot
 * records of neighbouring tasks are neighbours, so that the line the
 * CPU's adjacent-line prefetcher brings with a task's (WF_CACHE_LINE) is
 * another task's hot one, often a successor's, rather than its own cold
 * line.
 *
 * A task's first three successors are in its hot record (out.inl); past
 * three, they are in an array of the arena (wf__tg_succ) whose address
 * takes the place of the first (out.arr), with room for the next power
 * of two at or above nsucc, eight at least (it doubles as it fills).
 * The other two slots keep the second and third successors, which the
 * array holds too, so that ready() can fetch what is there whatever
 * nsucc is: unused slots hold the task itself. */
#define WF__TG_INLINE 3
struct wf_tg_task {
    WF__ALIGNAS(64) wf_tg_fn fn;
    void *ctx;
    wf_taskgraph *graph;
    union {
        wf_tg_task *inl[WF__TG_INLINE];
        wf_tg_task **arr;
    } out;
    /* Strong predecessors not yet done in this round.  Written relaxed
     * when the round is set up (its first spawn publishes it) and by the
     * task that makes this one ready, before it spawns or runs it. */
    _Atomic uint32_t join;
    uint32_t strong; /* strong predecessors: not conditions */
    uint32_t nsucc;
    /* All predecessors (0 makes a source) in the low 24 bits, the kind
     * above them: a word rather than bitfields, so that an edge adds one
     * to it in one instruction. */
    uint32_t bits;
};

/* t's successors, nsucc of them. */
static inline wf_tg_task **wf__tg_succ(const wf_tg_task *t)
{
    return t->nsucc <= WF__TG_INLINE ? (wf_tg_task **)t->out.inl : t->out.arr;
}

/* A task's cold record: a build writes nothing here (a run only for a
 * task it spawns, the round's set-up for sources), so that building a
 * graph touches one line per task.  As large as the hot record, so that
 * the one is at a fixed distance from the other (wf__tg_cold). */
struct wf__tg_cold {
    WF__ALIGNAS(64) wf_task task; /* what the pool runs (wf__tg_of) */
    const char *name;             /* valid once the graph is `named` */
    wf_tg_task *next_source;      /* the graph's list of sources (run.c) */
};

/* Predecessors a task may have (the width of npred in bits). */
#define WF__TG_MAX_PRED ((1u << 24) - 1)
#define WF__TG_KIND_SHIFT 24

static inline uint32_t wf__tg_npred(const wf_tg_task *t)
{
    return t->bits & WF__TG_MAX_PRED;
}

static inline enum wf__tg_kind wf__tg_kind(const wf_tg_task *t)
{
    return (enum wf__tg_kind)(t->bits >> WF__TG_KIND_SHIFT);
}

/* A subflow task's record, in its graph's arena. */
struct wf__tg_subflow {
    wf_tg_subflow_fn fn;
    void *ctx;
    wf_taskgraph *child; /* made at its first run, cleared at each */
};

/* Allocated with room to align it (raw is what the allocator gave).
 * Task i is tasks[i], its cold record cold[i]. */
struct wf__tg_slab {
    WF__ALIGNAS(64) struct wf__tg_slab *next;
    size_t used;
    void *raw;
    wf_tg_task tasks[WF__TG_SLAB];
    struct wf__tg_cold cold[WF__TG_SLAB];
};

_Static_assert(sizeof(wf_tg_task) == 64 &&
                   sizeof(struct wf__tg_cold) == sizeof(wf_tg_task),
               "a task's records are a line each, at one distance");

/* From a task's hot record to its cold one: the same index in the
 * slab's other array, which records of one size put at a fixed
 * distance, whatever the slab. */
#define WF__TG_COLD_OFFSET                                                     \
    (offsetof(struct wf__tg_slab, cold) - offsetof(struct wf__tg_slab, tasks))

static inline struct wf__tg_cold *wf__tg_cold(const wf_tg_task *t)
{
    return (struct wf__tg_cold *)((char *)t + WF__TG_COLD_OFFSET);
}

/* The task whose wf_task is t (in its cold record). */
static inline wf_tg_task *wf__tg_of(wf_task *t)
{
    return (wf_tg_task *)((char *)t - offsetof(struct wf__tg_cold, task) -
                          WF__TG_COLD_OFFSET);
}

struct wf__tg_chunk {
    struct wf__tg_chunk *next;
    size_t size, used; /* bytes of data */
    alignas(max_align_t) unsigned char data[];
};

/* wf_tg_depend's table: the last task that wrote each address, and the
 * tasks that read it since. */
struct wf__tg_access {
    const void *addr; /* NULL: a free entry */
    wf_tg_task *writer;
    wf_tg_task **readers;
    uint32_t nreaders, cap;
};

struct wf_taskgraph {
    wf_pool *pool;
    wf_allocator alloc; /* copied; a is &alloc, or NULL for malloc */
    const wf_allocator *a;
    struct wf__tg_slab *slabs, *cur;
    size_t ntasks;
    struct wf__tg_chunk *chunks, *chunk;
    struct wf__tg_access *table; /* wf_tg_depend's, in the arena */
    size_t table_cap, table_used;
    int error; /* the first building error */
    /* Written while g does not run.  dirty: the counters need setting
     * before the next round (g has condition tasks, or a round failed);
     * else every one is at its in-degree, where the last round set it back
     * as it made the task ready and a build keeps it (add_edge).  relist:
     * the sources need listing again (tasks or edges were added). */
    bool dirty;
    bool relist;
    bool has_conditions;
    bool has_subflows; /* a destroy or clear looks for their graphs */
    /* A task was named since g was made or cleared: every task's name is
     * set (NULL if not named).  Until then none is, nor read. */
    bool named;
    /* The tasks with no predecessor, oldest first, and how many there are:
     * kept by the build, so that listing them (run.c) stops at the last. */
    wf_tg_task *sources;
    long nsources;
    /* Graphs that its subflow tasks made, kept by wf_taskgraph_clear for
     * the subflows of its next tasks.  Pushed only while g does not run,
     * popped (by subflows, with a CAS) only while it runs: a pop never
     * meets a push, so the stack has no ABA. */
    _Atomic(wf_taskgraph *) spares;
    wf_taskgraph *spare_next;
    /* A run in progress: taken by a CAS from 0, given back by a release
     * store, so that each run sees what the one before it did. */
    _Atomic int running;
    /* Tasks of this round ready or running (run.c), on a line of its own:
     * every spawn and every chain's end writes it. */
    _Alignas(WF_CACHE_LINE) _Atomic long active;
    /* The first error of this round's tasks; non-zero skips the rest.
     * Read by every task. */
    _Alignas(WF_CACHE_LINE) _Atomic int run_error;
    /* wf_tg_cancel was called during this run: no further round. */
    _Atomic int cancelled;
};

/* t's name, or NULL. */
static inline const char *wf__tg_name(const wf_tg_task *t)
{
    return t->graph->named ? wf__tg_cold(t)->name : NULL;
}

/* The slab after s that holds tasks of g, or NULL: every task of g is
 *   for (s = g->slabs; s != NULL; s = wf__tg_slab_next(g, s))
 *       for (i = 0; i < s->used; i++) ... s->tasks[i] ... */
static inline struct wf__tg_slab *wf__tg_slab_next(const wf_taskgraph *g,
                                                   const struct wf__tg_slab *s)
{
    return s == g->cur ? NULL : s->next;
}

/* Memory (memory.c).  A slab for g's tasks, from the process's cache
 * when g uses malloc; NULL without memory. */
struct wf__tg_slab *wf__tg_slab_get(wf_taskgraph *g);
/* n bytes from g's arena (aligned for any type), or NULL. */
void *wf__tg_arena_take(wf_taskgraph *g, size_t n);
/* A successor array for n tasks (a power of two, 8 at least) from g's
 * arena, or NULL: aligned to a line, so that a run fetches its first
 * eight with one miss. */
wf_tg_task **wf__tg_succ_take(wf_taskgraph *g, uint32_t n);
/* Give back all of g's slabs and chunks, to the cache while it has room. */
void wf__tg_memory_put(wf_taskgraph *g);

/* A graph that one of g's subflow tasks made before g was cleared, to be
 * used again (emptied), or NULL.  While g runs. */
wf_taskgraph *wf__tg_spare(wf_taskgraph *g);

/* Is g running?  Acquire pairs with the release that ends a run. */
static inline bool wf__tg_busy(const wf_taskgraph *g)
{
    /* T4: see above. */
    return wf_load_acquire(&((wf_taskgraph *)g)->running) != 0;
}

#endif /* WF_INTERNAL_TASKGRAPH_H */
