/* SPDX-License-Identifier: Apache-2.0 */
/* Building task graphs (weft/taskgraph.h): graphs, tasks, edges and data
 * dependencies.
 *
 * Tasks come from slabs (memory.c); a task keeps its first three
 * successors inline and, past three, all of them in an array from the
 * graph's arena, doubled when full (the old array stays in the arena
 * until the graph is cleared or destroyed).  Nothing a run does allocates.
 *
 * Building needs no error check from the caller: a call that fails keeps
 * its error in the graph (the first one), and every run returns it. */
#include <string.h>

#include "internal/taskgraph.h"

/* ---- graphs -------------------------------------------------------------- */

static int keep_error(wf_taskgraph *g, int err)
{
    if (g->error == 0)
        g->error = err;
    return err;
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

/* The graphs g's subflow tasks made go to g's spares, for the subflows
 * of the tasks g gets next (wf__tg_spare).  g does not run. */
static void keep_subflows(wf_taskgraph *g)
{
    if (!g->has_subflows) /* no task to look at */
        return;
    for (struct wf__tg_slab *s = g->slabs; s; s = wf__tg_slab_next(g, s))
        for (size_t i = 0; i < s->used; i++) {
            struct wf__tg_subflow *sf = s->tasks[i].ctx;
            if (wf__tg_kind(&s->tasks[i]) != WF__TG_SUBFLOW ||
                sf->child == NULL)
                continue;
            /* Relaxed: no run reads the stack now; the next run's start
             * (wf_run) publishes it. */
            sf->child->spare_next = wf_load_relaxed(&g->spares);
            wf_store_relaxed(&g->spares, sf->child);
            sf->child = NULL;
        }
}

wf_taskgraph *wf__tg_spare(wf_taskgraph *g)
{
    /* Relaxed, the load and the CAS: every push, and the spare_next it
     * wrote, happened before this run started (its wf_run publishes
     * them); pops only take.  No ABA: no push while g runs (T5). */
    wf_taskgraph *top = wf_load_relaxed(&g->spares);
    while (top != NULL && !wf_cas_relaxed(&g->spares, &top, top->spare_next)) {
    }
    return top;
}

int wf_taskgraph_clear(wf_taskgraph *g)
{
    if (g == NULL)
        return WF_EINVAL;
    if (wf__tg_busy(g))
        return WF_EBUSY;
    keep_subflows(g);
    if ((g->cur = g->slabs) != NULL)
        g->cur->used = 0;
    if ((g->chunk = g->chunks) != NULL)
        g->chunk->used = 0;
    g->ntasks = 0;
    g->dirty = false; /* no counter left */
    g->relist = true;
    g->has_conditions = g->has_subflows = g->named = false;
    g->sources = NULL;
    g->nsources = 0;
    g->table = NULL;
    g->table_cap = g->table_used = 0;
    g->error = 0;
    return 0;
}

int wf_taskgraph_destroy(wf_taskgraph *g)
{
    if (g == NULL)
        return 0;
    if (wf__tg_busy(g))
        return WF_EBUSY;
    keep_subflows(g);
    /* Relaxed: g does not run, and this thread saw its last run end. */
    for (wf_taskgraph *c = wf_load_relaxed(&g->spares), *next; c; c = next) {
        next = c->spare_next;
        wf_taskgraph_destroy(c);
    }
    wf__tg_memory_put(g);
    wf__pool_graphs_add(g->pool, -1);
    wf__free(g->a, g, sizeof *g);
    return 0;
}

/* ---- tasks and edges ----------------------------------------------------- */

/* Make s, a spare slab that clear left or a new one, g's current slab;
 * false without memory. */
static __attribute__((noinline)) bool next_slab(wf_taskgraph *g)
{
    struct wf__tg_slab *s = g->cur;
    if (s != NULL && s->next != NULL) { /* a spare that clear left */
        s = s->next;
    } else {
        struct wf__tg_slab *fresh = wf__tg_slab_get(g);
        if (fresh == NULL)
            return false;
        fresh->next = NULL;
        if (s != NULL)
            s->next = fresh;
        else
            g->slabs = fresh;
        s = fresh;
    }
    s->used = 0;
    g->cur = s;
    return true;
}

/* A new task's slot when g runs, or has no room in its current slab:
 * NULL (and the error kept), or a slot of the next slab. */
static wf_tg_task *slot_slow(wf_taskgraph *g)
{
    if (wf__tg_busy(g)) {
        keep_error(g, WF_EBUSY);
        return NULL;
    }
    struct wf__tg_slab *s = g->cur;
    if (s == NULL || s->used == WF__TG_SLAB) {
        if (!next_slab(g)) {
            keep_error(g, WF_ENOMEM);
            return NULL;
        }
        s = g->cur;
    }
    return &s->tasks[s->used++];
}

/* Make t, a fresh slot of g, a task of this kind. */
static inline __attribute__((always_inline)) wf_tg_task *
init_task(wf_taskgraph *g, wf_tg_task *t, enum wf__tg_kind kind, wf_tg_fn fn,
          void *ctx)
{
    g->relist = true;
    g->nsources++;
    g->has_conditions |= kind == WF__TG_CONDITION;
    g->has_subflows |= kind == WF__TG_SUBFLOW;
    /* Every field of the hot record that a run or a build reads before
     * writing it; the cold one's are written before they are read (the
     * wf_task by a spawn, next_source by the round's set-up, name here
     * only once a task of g has one: wf_tg_name). */
    t->fn = fn;
    t->ctx = ctx;
    t->graph = g;
    /* ready() fetches the lines these point to */
    t->out.inl[0] = t->out.inl[1] = t->out.inl[2] = t;
    wf_store_relaxed(&t->join, 0); /* at its in-degree; no run reads it */
    t->strong = t->nsucc = 0;
    t->bits = (uint32_t)kind << WF__TG_KIND_SHIFT;
    if (g->named)
        wf__tg_cold(t)->name = NULL;
    g->ntasks++;
    return t;
}

/* add_task out of line: its own frame, so that the usual add saves no
 * register for a call. */
static __attribute__((noinline)) wf_tg_task *
add_slow(wf_taskgraph *g, enum wf__tg_kind kind, wf_tg_fn fn, void *ctx)
{
    wf_tg_task *t = slot_slow(g);
    return t != NULL ? init_task(g, t, kind, fn, ctx) : NULL;
}

/* Inlined into each kind's function, where kind is a constant: a graph's
 * build adds its tasks here, one call each, and calls nothing unless it
 * needs a slab (or g runs). */
static inline __attribute__((always_inline)) wf_tg_task *
add_task(wf_taskgraph *g, enum wf__tg_kind kind, wf_tg_fn fn, void *ctx)
{
    struct wf__tg_slab *s = g->cur;
    if (s == NULL || s->used >= WF__TG_SLAB || wf__tg_busy(g))
        return add_slow(g, kind, fn, ctx);
    return init_task(g, &s->tasks[s->used++], kind, fn, ctx);
}

/* A task whose work must not be NULL. */
static inline __attribute__((always_inline)) wf_tg_task *
add_work(wf_taskgraph *g, enum wf__tg_kind kind, wf_tg_fn fn, void *ctx)
{
    if (g == NULL)
        return NULL;
    if (fn == NULL) {
        keep_error(g, WF_EINVAL);
        return NULL;
    }
    return add_task(g, kind, fn, ctx);
}

wf_tg_task *wf_tg_emplace(wf_taskgraph *g, wf_tg_fn fn, void *ctx)
{
    return add_work(g, WF__TG_PLAIN, fn, ctx);
}

wf_tg_task *wf_tg_condition(wf_taskgraph *g, wf_tg_fn fn, void *ctx)
{
    return add_work(g, WF__TG_CONDITION, fn, ctx);
}

wf_tg_task *wf_tg_placeholder(wf_taskgraph *g)
{
    return g != NULL ? add_task(g, WF__TG_PLAIN, NULL, NULL) : NULL;
}

wf_tg_task *wf_tg_subflow(wf_taskgraph *g, wf_tg_subflow_fn fn, void *ctx)
{
    if (g == NULL)
        return NULL;
    if (fn == NULL) {
        keep_error(g, WF_EINVAL);
        return NULL;
    }
    struct wf__tg_subflow *sf = wf__tg_arena_take(g, sizeof *sf);
    if (sf == NULL) {
        keep_error(g, WF_ENOMEM);
        return NULL;
    }
    *sf = (struct wf__tg_subflow){fn, ctx, NULL};
    return add_task(g, WF__TG_SUBFLOW, NULL, sf);
}

wf_tg_task *wf_tg_compose(wf_taskgraph *g, wf_taskgraph *module)
{
    if (g == NULL)
        return NULL;
    if (module == NULL || module == g) {
        keep_error(g, WF_EINVAL);
        return NULL;
    }
    return add_task(g, WF__TG_MODULE, NULL, module);
}

int wf_tg_set_work(wf_tg_task *t, wf_tg_fn fn, void *ctx)
{
    if (t == NULL)
        return WF_EINVAL;
    if (wf__tg_kind(t) != WF__TG_PLAIN && wf__tg_kind(t) != WF__TG_CONDITION)
        return keep_error(t->graph, WF_EINVAL);
    if (wf__tg_busy(t->graph))
        return keep_error(t->graph, WF_EBUSY);
    t->fn = fn;
    t->ctx = ctx;
    return 0;
}

int wf_tg_name(wf_tg_task *t, const char *name)
{
    if (t == NULL)
        return WF_EINVAL;
    wf_taskgraph *g = t->graph;
    if (!g->named) { /* the first name: the others become NULL */
        for (struct wf__tg_slab *s = g->slabs; s; s = wf__tg_slab_next(g, s))
            for (size_t i = 0; i < s->used; i++)
                s->cold[i].name = NULL;
        g->named = true;
    }
    wf__tg_cold(t)->name = name;
    return 0;
}

/* wf_tg_precede's errors, out of its way. */
static __attribute__((noinline, cold)) int precede_error(wf_tg_task *a,
                                                         wf_tg_task *b)
{
    if (a == NULL || b == NULL)
        return a   ? keep_error(a->graph, WF_EINVAL)
               : b ? keep_error(b->graph, WF_EINVAL)
                   : WF_EINVAL;
    wf_taskgraph *g = a->graph;
    if (b->graph != g || a == b)
        return keep_error(g, WF_EINVAL);
    if (wf__tg_busy(g))
        return keep_error(g, WF_EBUSY);
    return keep_error(g, WF_ERANGE); /* b's count of predecessors is full */
}

/* The edge a -> b of g, once there is room for it at succ[] (a's
 * successors) and every check has passed. */
static inline void add_edge(wf_taskgraph *g, wf_tg_task *a, wf_tg_task **succ,
                            wf_tg_task *b)
{
    uint32_t strong = wf__tg_kind(a) != WF__TG_CONDITION;
    succ[a->nsucc++] = b;
    g->nsources -= wf__tg_npred(b) == 0; /* b is one no more */
    b->bits++;                           /* npred, below its maximum */
    b->strong += strong;
    /* Kept at the in-degree (g->dirty says when it is not).  Relaxed: g
     * does not run, and the next round's first spawn publishes it. */
    wf_store_relaxed(&b->join, wf_load_relaxed(&b->join) + strong);
    g->relist = true;
}

/* wf_tg_precede when a's successors fill their room (the inline slots, or
 * an array): move them to an array twice as large, eight at least, in the
 * arena first.  A call of its own, so that the usual edge calls nothing. */
static __attribute__((noinline)) int precede_grow(wf_tg_task *a, wf_tg_task *b)
{
    uint32_t n = a->nsucc;
    wf_tg_task **grown = wf__tg_succ_take(a->graph, n < 8 ? 8 : 2 * n);
    if (grown == NULL)
        return keep_error(a->graph, WF_ENOMEM);
    if (n == WF__TG_INLINE) { /* from the inline slots, the most frequent */
        grown[0] = a->out.inl[0];
        grown[1] = a->out.inl[1];
        grown[2] = a->out.inl[2];
    } else {
        memcpy(grown, a->out.arr, n * sizeof *grown);
    }
    a->out.arr = grown; /* in inl[0]'s place; inl[1] and [2] stay */
    add_edge(a->graph, a, grown, b);
    return 0;
}

int wf_tg_precede(wf_tg_task *a, wf_tg_task *b)
{
    /* One test per error on the way, each handled out of line: a graph's
     * build adds its edges here, one call each. */
    if (a == NULL || b == NULL || b->graph != a->graph || a == b ||
        wf__tg_busy(a->graph) || wf__tg_npred(b) == WF__TG_MAX_PRED)
        return precede_error(a, b);
    wf_taskgraph *g = a->graph;
    uint32_t n = a->nsucc;
    if (n < WF__TG_INLINE) {
        add_edge(g, a, a->out.inl, b);
        return 0;
    }
    /* Full: the inline slots (3), or an array (8, 16...). */
    if (n == WF__TG_INLINE || (n >= 8 && (n & (n - 1)) == 0))
        return precede_grow(a, b);
    add_edge(g, a, a->out.arr, b);
    return 0;
}

/* ---- data dependencies --------------------------------------------------- */

/* The table's entry for addr (a free one if addr has none), growing the
 * table to keep it at most half full; NULL without memory. */
static struct wf__tg_access *access_of(wf_taskgraph *g, const void *addr)
{
    if (2 * (g->table_used + 1) > g->table_cap) {
        size_t cap = g->table_cap ? 2 * g->table_cap : 64;
        struct wf__tg_access *t = wf__tg_arena_take(g, cap * sizeof *t);
        if (t == NULL)
            return NULL;
        memset(t, 0, cap * sizeof *t);
        struct wf__tg_access *old = g->table;
        size_t old_cap = g->table_cap;
        g->table = t;
        g->table_cap = cap;
        for (size_t i = 0; i < old_cap; i++)
            if (old[i].addr != NULL)
                *access_of(g, old[i].addr) = old[i];
    }
    /* Fibonacci hashing of the address, then linear probing. */
    size_t i = (size_t)(((uintptr_t)addr * 11400714819323198485ull) >> 20) &
               (g->table_cap - 1);
    while (g->table[i].addr != NULL && g->table[i].addr != addr)
        i = (i + 1) & (g->table_cap - 1);
    return &g->table[i];
}

static int add_reader(wf_taskgraph *g, struct wf__tg_access *e, wf_tg_task *t)
{
    if (e->nreaders == e->cap) {
        uint32_t cap = e->cap ? 2 * e->cap : 4;
        wf_tg_task **grown = wf__tg_arena_take(g, cap * sizeof *grown);
        if (grown == NULL)
            return WF_ENOMEM;
        if (e->nreaders)
            memcpy(grown, e->readers, e->nreaders * sizeof *grown);
        e->readers = grown;
        e->cap = cap;
    }
    e->readers[e->nreaders++] = t;
    return 0;
}

/* An edge from a to t, unless a is none or t itself. */
static int after(wf_tg_task *a, wf_tg_task *t)
{
    return a != NULL && a != t ? wf_tg_precede(a, t) : 0;
}

static int depend_one(wf_taskgraph *g, wf_tg_task *t, const wf_tg_dep *d)
{
    if (d->access < WF_TG_IN || d->access > WF_TG_INOUT)
        return WF_EINVAL;
    struct wf__tg_access *e = access_of(g, d->addr);
    if (e == NULL)
        return WF_ENOMEM;
    if (e->addr == NULL) {
        e->addr = d->addr;
        g->table_used++;
    }
    int err = 0;
    if (d->access == WF_TG_IN) { /* after the last write */
        err = after(e->writer, t);
        return err ? err : add_reader(g, e, t);
    }
    if (e->nreaders == 0) /* a write: after the last write... */
        err = after(e->writer, t);
    for (uint32_t i = 0; i < e->nreaders && err == 0; i++)
        err = after(e->readers[i], t); /* ...or the reads since it */
    e->writer = t;
    e->nreaders = 0;
    return err;
}

int wf_tg_depend(wf_tg_task *t, size_t n, const wf_tg_dep *deps)
{
    if (t == NULL)
        return WF_EINVAL;
    wf_taskgraph *g = t->graph;
    if (deps == NULL && n > 0)
        return keep_error(g, WF_EINVAL);
    if (wf__tg_busy(g))
        return keep_error(g, WF_EBUSY);
    for (size_t i = 0; i < n; i++) {
        int err = depend_one(g, t, &deps[i]);
        if (err)
            return keep_error(g, err);
    }
    return 0;
}

/* ---- queries and DOT ----------------------------------------------------- */

int wf_taskgraph_error(const wf_taskgraph *g)
{
    return g ? g->error : WF_EINVAL;
}

size_t wf_taskgraph_size(const wf_taskgraph *g)
{
    return g ? g->ntasks : 0;
}

static void dot_task(const wf_tg_task *t, FILE *f)
{
    static const char *const shape[] = {"box", "diamond", "box3d", "folder"};
    fprintf(f, "  t%p [label=\"", (const void *)t);
    if (wf__tg_name(t))
        fprintf(f, "%s", wf__tg_name(t));
    else
        fprintf(f, "%p", (const void *)t);
    fprintf(f, "\" shape=%s];\n", shape[wf__tg_kind(t)]);
    wf_tg_task **succ = wf__tg_succ(t);
    for (uint32_t k = 0; k < t->nsucc; k++)
        fprintf(f, "  t%p -> t%p%s;\n", (const void *)t, (const void *)succ[k],
                wf__tg_kind(t) == WF__TG_CONDITION ? " [style=dashed]" : "");
}

int wf_taskgraph_write_dot(const wf_taskgraph *g, FILE *f)
{
    if (g == NULL || f == NULL)
        return WF_EINVAL;
    fprintf(f, "digraph taskgraph {\n");
    for (struct wf__tg_slab *s = g->slabs; s; s = wf__tg_slab_next(g, s))
        for (size_t i = 0; i < s->used; i++)
            dot_task(&s->tasks[i], f);
    fprintf(f, "}\n");
    return 0;
}
