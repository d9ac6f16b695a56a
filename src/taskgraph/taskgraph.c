/* SPDX-License-Identifier: Apache-2.0 */
/* Task graphs (weft/taskgraph.h): tasks in slabs, successors as compact
 * arrays, a join counter per task, run on the pool through its hooks.
 *
 * Building.  Tasks come from slabs of SLAB_TASKS, one allocator call
 * each; a task keeps its first two successors inline and the rest in an
 * array from the graph's bump arena, doubled when full (the old array
 * stays in the arena until the graph goes).  Nothing a run does
 * allocates.  Graphs on malloc (no allocator of their own) give their
 * slabs back to a cache of the process when destroyed, up to CACHE_SLABS,
 * and take them from it first: a program that builds and destroys a graph
 * per round, as Taskflow's benchmarks do, neither calls malloc nor faults
 * in fresh pages after the first round (Taskflow keeps its nodes in an
 * object pool for the same reason).
 *
 * Running (one round).  Every task's join counter is set to its strong
 * in-degree (edges from tasks that are not conditions) and the sources
 * (no predecessor at all) are spawned.  A task that finishes decrements
 * each successor's counter; the one that brings it to zero makes it
 * ready, sets it back to its in-degree (so that a loop through a
 * condition may run it again), and runs the first ready successor itself
 * (no spawn for a chain) and spawns the others.  A condition task makes
 * ready the one successor its value picks, whatever its counter says
 * (Taskflow's weak edges).  `active` counts the tasks ready or running;
 * the round ends when it comes to zero, which the thread that called the
 * run waits for while it runs the pool's tasks (wf__wait_helping). */
#include <pthread.h>
#include <stdalign.h>
#include <stdint.h>
#include <string.h>

#include "internal/atomic.h"
#include "internal/pool_hooks.h"
#include "weft/taskgraph.h"

#define SLAB_TASKS 64
#define ARENA_CHUNK 4096 /* bytes of successor arrays per arena chunk */
#define CACHE_SLABS 4096 /* a 512 x 512 wavefront's tasks */

struct wf_tg_task {
    wf_task task; /* what the pool runs: first, so a wf_task * is a task */
    wf_taskgraph *graph;
    wf_tg_fn fn;
    void *ctx;
    /* Strong predecessors not yet done in this round.  Written relaxed
     * before the round's first spawn (which publishes it) and by the task
     * that makes this one ready, before it spawns or runs it. */
    _Atomic uint32_t join;
    uint32_t strong; /* strong predecessors */
    uint32_t npred;  /* all predecessors: 0 makes a source */
    uint32_t nsucc, cap;
    bool condition;
    const char *name;
    wf_tg_task **succ; /* inl until more than two */
    wf_tg_task *inl[2];
};

struct slab {
    struct slab *next;
    size_t used;
    wf_tg_task tasks[SLAB_TASKS];
};

struct chunk {
    struct chunk *next;
    size_t size, used; /* bytes of data */
    alignas(max_align_t) unsigned char data[];
};

struct wf_taskgraph {
    wf_pool *pool;
    wf_allocator alloc; /* copied; alloc.alloc NULL: malloc */
    const wf_allocator *a;
    struct slab *slabs; /* newest first */
    size_t ntasks;
    struct chunk *arena; /* newest first */
    int error;           /* the first building error */
    /* A run in progress: taken by a CAS from 0, given back by a release
     * store, so that each run sees what the one before it did. */
    _Atomic int running;
    /* Tasks of this round ready or running (see the file's comment). */
    _Atomic long active;
    /* The first error of this round's tasks; non-zero skips the rest. */
    _Atomic int run_error;
};

/* ---- the slab cache ------------------------------------------------------ */

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static struct slab *cache; /* under cache_lock */
/* Slabs in the cache: written under the lock; read without it (relaxed)
 * only to skip the lock when the cache is empty. */
static _Atomic size_t cached;

/* A slab for g: from the cache when g uses malloc, else new. */
static struct slab *slab_get(wf_taskgraph *g)
{
    struct slab *s = NULL;
    if (g->a == NULL && wf_load_relaxed(&cached) > 0) {
        pthread_mutex_lock(&cache_lock);
        if ((s = cache) != NULL) {
            cache = s->next;
            wf_store_relaxed(&cached, wf_load_relaxed(&cached) - 1);
        }
        pthread_mutex_unlock(&cache_lock);
    }
    return s != NULL ? s : wf__alloc(g->a, sizeof(struct slab));
}

/* Free g's slabs, into the cache while it has room. */
static void slabs_put(wf_taskgraph *g)
{
    struct slab *s = g->slabs;
    if (g->a == NULL) {
        pthread_mutex_lock(&cache_lock);
        size_t n = wf_load_relaxed(&cached);
        for (; s != NULL && n < CACHE_SLABS; n++) {
            struct slab *next = s->next;
            s->next = cache;
            cache = s;
            s = next;
        }
        wf_store_relaxed(&cached, n);
        pthread_mutex_unlock(&cache_lock);
    }
    for (struct slab *next; s != NULL; s = next) {
        next = s->next;
        wf__free(g->a, s, sizeof *s);
    }
    g->slabs = NULL;
}

/* ---- building ----------------------------------------------------------- */

static int keep_error(wf_taskgraph *g, int err)
{
    if (g->error == 0)
        g->error = err;
    return err;
}

/* Building while a run reads the graph is refused.  Acquire pairs with
 * the release that ends a run: what it wrote is seen. */
static bool busy(wf_taskgraph *g)
{
    return wf_load_acquire(&g->running) != 0;
}

int wf_taskgraph_create(wf_taskgraph **out, const wf_taskgraph_config *cfg)
{
    if (out == NULL)
        return WF_EINVAL;
    *out = NULL;
    const wf_allocator *a = cfg != NULL ? cfg->alloc : NULL;
    wf_pool *pool =
        cfg != NULL && cfg->pool != NULL ? cfg->pool : wf_pool_default();
    if (pool == NULL)
        return WF_EAGAIN; /* the default pool could not be made */
    wf_taskgraph *g = wf__alloc(a, sizeof *g);
    if (g == NULL)
        return WF_ENOMEM;
    memset(g, 0, sizeof *g);
    g->pool = pool;
    if (a != NULL) {
        g->alloc = *a;
        g->a = &g->alloc;
    }
    wf__pool_graphs_add(pool, 1);
    *out = g;
    return 0;
}

int wf_taskgraph_destroy(wf_taskgraph *g)
{
    if (g == NULL)
        return 0;
    if (busy(g))
        return WF_EBUSY;
    slabs_put(g);
    for (struct chunk *c = g->arena, *next; c != NULL; c = next) {
        next = c->next;
        wf__free(g->a, c, sizeof *c + c->size);
    }
    wf__pool_graphs_add(g->pool, -1);
    wf__free(g->a, g, sizeof *g);
    return 0;
}

static wf_tg_task *add_task(wf_taskgraph *g, wf_tg_fn fn, void *ctx,
                            bool condition)
{
    if (g == NULL)
        return NULL;
    if (busy(g)) {
        keep_error(g, WF_EBUSY);
        return NULL;
    }
    struct slab *s = g->slabs;
    if (s == NULL || s->used == SLAB_TASKS) {
        s = slab_get(g);
        if (s == NULL) {
            keep_error(g, WF_ENOMEM);
            return NULL;
        }
        s->next = g->slabs;
        s->used = 0;
        g->slabs = s;
    }
    wf_tg_task *t = &s->tasks[s->used++];
    memset(t, 0, sizeof *t);
    t->graph = g;
    t->fn = fn;
    t->ctx = ctx;
    t->condition = condition;
    t->succ = t->inl;
    t->cap = 2;
    g->ntasks++;
    return t;
}

wf_tg_task *wf_tg_emplace(wf_taskgraph *g, wf_tg_fn fn, void *ctx)
{
    if (g != NULL && fn == NULL) {
        keep_error(g, WF_EINVAL);
        return NULL;
    }
    return add_task(g, fn, ctx, false);
}

wf_tg_task *wf_tg_condition(wf_taskgraph *g, wf_tg_fn fn, void *ctx)
{
    if (g != NULL && fn == NULL) {
        keep_error(g, WF_EINVAL);
        return NULL;
    }
    return add_task(g, fn, ctx, true);
}

wf_tg_task *wf_tg_placeholder(wf_taskgraph *g)
{
    return add_task(g, NULL, NULL, false);
}

int wf_tg_set_work(wf_tg_task *t, wf_tg_fn fn, void *ctx)
{
    if (t == NULL)
        return WF_EINVAL;
    if (busy(t->graph))
        return keep_error(t->graph, WF_EBUSY);
    t->fn = fn;
    t->ctx = ctx;
    return 0;
}

int wf_tg_name(wf_tg_task *t, const char *name)
{
    if (t == NULL)
        return WF_EINVAL;
    t->name = name;
    return 0;
}

/* n bytes from g's arena (aligned for pointers), or NULL. */
static void *arena_take(wf_taskgraph *g, size_t n)
{
    n = (n + alignof(max_align_t) - 1) & ~(alignof(max_align_t) - 1);
    struct chunk *c = g->arena;
    if (c == NULL || c->size - c->used < n) {
        size_t size = n > ARENA_CHUNK ? n : ARENA_CHUNK;
        c = wf__alloc(g->a, sizeof *c + size);
        if (c == NULL)
            return NULL;
        c->size = size;
        c->used = 0;
        c->next = g->arena;
        g->arena = c;
    }
    void *p = c->data + c->used;
    c->used += n;
    return p;
}

int wf_tg_precede(wf_tg_task *a, wf_tg_task *b)
{
    if (a == NULL || b == NULL)
        return a   ? keep_error(a->graph, WF_EINVAL)
               : b ? keep_error(b->graph, WF_EINVAL)
                   : WF_EINVAL;
    wf_taskgraph *g = a->graph;
    if (b->graph != g || a == b)
        return keep_error(g, WF_EINVAL);
    if (busy(g))
        return keep_error(g, WF_EBUSY);
    if (a->nsucc == a->cap) {
        wf_tg_task **grown = arena_take(g, 2 * a->cap * sizeof *grown);
        if (grown == NULL)
            return keep_error(g, WF_ENOMEM);
        memcpy(grown, a->succ, a->nsucc * sizeof *grown);
        a->succ = grown;
        a->cap *= 2;
    }
    a->succ[a->nsucc++] = b;
    b->npred++;
    if (!a->condition)
        b->strong++;
    return 0;
}

int wf_taskgraph_error(const wf_taskgraph *g)
{
    return g ? g->error : WF_EINVAL;
}

size_t wf_taskgraph_size(const wf_taskgraph *g)
{
    return g ? g->ntasks : 0;
}

/* ---- running ------------------------------------------------------------ */

static void exec(wf_task *wt);

/* Spawn t on the calling worker (every task and the round's start run in
 * g's pool), where a thief may take it. */
static void spawn(wf_taskgraph *g, wf_tg_task *t)
{
    if (!wf__spawn_detached(g->pool, &t->task, exec, 0)) {
        memset(&t->task, 0, sizeof t->task);
        if (wf_submit(g->pool, &t->task, exec) != 0)
            exec(&t->task); /* cannot happen (valid arguments): run it */
    }
}

/* Make t ready: set its counter back for the round's next visit.  Relaxed:
 * the spawn or the inline run that follows publishes it. */
static wf_tg_task *ready(wf_tg_task *t)
{
    wf_store_relaxed(&t->join, t->strong);
    return t;
}

/* One of the round's tasks is done: the round ends when it was the last.
 * Seq_cst, as the condition of a waiter must be made true (P8 in
 * docs/protocols.md); the release side also publishes every task's
 * writes to the thread that waits. */
static void retire(wf_taskgraph *g, long n)
{
    wf_pool *pool = g->pool; /* once the count is 0, g may be freed */
    if (wf_fetch_add_seqcst(&g->active, -n) == n)
        wf__wake_waiters(pool);
}

static void fail(wf_taskgraph *g, int err)
{
    int none = 0;
    /* Seq_cst: the first error wins; the others' loads of it are hints. */
    wf_cas_seqcst(&g->run_error, &none, err);
}

/* Run t and return the successor to run next on this thread, or NULL. */
static wf_tg_task *run_task(wf_taskgraph *g, wf_tg_task *t)
{
    /* Relaxed: a hint to skip work once the round failed. */
    bool skip = wf_load_relaxed(&g->run_error) != 0;
    int r = !skip && t->fn != NULL ? t->fn(t->ctx) : 0;
    if (t->condition) {
        if (r < 0)
            fail(g, r);
        else if (!skip && (uint32_t)r < t->nsucc)
            return ready(t->succ[r]);
        return NULL;
    }
    if (r != 0) {
        fail(g, r);
        return NULL;
    }
    if (skip)
        return NULL;
    wf_tg_task *next = NULL, *batch[16];
    size_t n = 0;
    for (uint32_t i = 0; i < t->nsucc; i++) {
        wf_tg_task *s = t->succ[i];
        /* Acquire and release: the last predecessor sees the others'
         * writes, and s's run sees its own (seq_cst, the RMW that
         * atomic.h names; one locked instruction on x86 either way). */
        if (wf_fetch_add_seqcst(&s->join, (uint32_t)-1) != 1)
            continue;
        if (next == NULL) {
            next = ready(s);
            continue;
        }
        batch[n++] = ready(s);
        if (n == 16 || i + 1 == t->nsucc) {
            /* Counted before they are spawned, so that the count cannot
             * reach zero while they are still to run. */
            wf_fetch_add_seqcst(&g->active, (long)n);
            for (size_t k = 0; k < n; k++)
                spawn(g, batch[k]);
            n = 0;
        }
    }
    if (n > 0) {
        wf_fetch_add_seqcst(&g->active, (long)n);
        for (size_t k = 0; k < n; k++)
            spawn(g, batch[k]);
    }
    return next;
}

static void exec(wf_task *wt)
{
    wf_tg_task *t = (wf_tg_task *)wt;
    wf_taskgraph *g = t->graph;
    while ((t = run_task(g, t)) != NULL) {
        /* t inherits the count of the task that made it ready. */
    }
    retire(g, 1);
}

/* Acquire pairs with retire's release. */
static bool round_done(const void *g)
{
    return wf_load_acquire(&((const wf_taskgraph *)g)->active) == 0;
}

/* One round, from a thread of g's pool: the sources are spawned, then
 * this thread runs tasks until the round is over. */
static int run_round(wf_taskgraph *g)
{
    wf_store_relaxed(&g->run_error, 0);
    long sources = 0;
    for (struct slab *s = g->slabs; s != NULL; s = s->next)
        for (size_t i = 0; i < s->used; i++) {
            wf_tg_task *t = &s->tasks[i];
            wf_store_relaxed(&t->join, t->strong);
            sources += t->npred == 0;
        }
    if (sources == 0)
        return 0;
    /* Before any task of the round can retire; this thread reads it. */
    wf_store_relaxed(&g->active, sources);
    for (struct slab *s = g->slabs; s != NULL; s = s->next)
        for (size_t i = 0; i < s->used; i++)
            if (s->tasks[i].npred == 0)
                spawn(g, &s->tasks[i]);
    wf__wait_helping(g->pool, round_done, g);
    return wf_load_acquire(&g->run_error);
}

typedef struct {
    wf_taskgraph *g;
    unsigned n; /* rounds, when done is NULL */
    bool (*done)(void *);
    void *ctx;
    int err;
} run_job;

static void run_rounds(void *arg)
{
    run_job *j = arg;
    for (unsigned i = 0; j->done ? !j->done(j->ctx) : i < j->n; i++)
        if ((j->err = run_round(j->g)) != 0)
            return;
}

static int run(wf_taskgraph *g, run_job *j)
{
    if (g == NULL)
        return WF_EINVAL;
    if (g->error != 0)
        return g->error;
    int idle = 0;
    /* Acquire: this run sees what the one before wrote (its release). */
    if (!wf_cas_acqrel(&g->running, &idle, 1))
        return WF_EBUSY;
    j->g = g;
    j->err = 0;
    wf_run(g->pool, run_rounds, j);
    wf_store_release(&g->running, 0);
    return j->err;
}

int wf_tg_run(wf_taskgraph *g)
{
    run_job j = {.n = 1};
    return run(g, &j);
}

int wf_tg_run_n(wf_taskgraph *g, unsigned n)
{
    run_job j = {.n = n};
    return run(g, &j);
}

int wf_tg_run_until(wf_taskgraph *g, bool (*done)(void *ctx), void *ctx)
{
    if (done == NULL)
        return WF_EINVAL;
    run_job j = {.done = done, .ctx = ctx};
    return run(g, &j);
}

/* ---- DOT ---------------------------------------------------------------- */

int wf_taskgraph_write_dot(const wf_taskgraph *g, FILE *f)
{
    if (g == NULL || f == NULL)
        return WF_EINVAL;
    fprintf(f, "digraph taskgraph {\n");
    for (const struct slab *s = g->slabs; s != NULL; s = s->next)
        for (size_t i = 0; i < s->used; i++) {
            const wf_tg_task *t = &s->tasks[i];
            fprintf(f, "  t%p [label=\"", (const void *)t);
            if (t->name)
                fprintf(f, "%s", t->name);
            else
                fprintf(f, "%p", (const void *)t);
            fprintf(f, "\" shape=%s];\n", t->condition ? "diamond" : "box");
            for (uint32_t k = 0; k < t->nsucc; k++)
                fprintf(f, "  t%p -> t%p%s;\n", (const void *)t,
                        (const void *)t->succ[k],
                        t->condition ? " [style=dashed]" : "");
        }
    fprintf(f, "}\n");
    return 0;
}
