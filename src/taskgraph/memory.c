/* SPDX-License-Identifier: Apache-2.0 */
/* The memory task graphs live in: slabs of WF__TG_SLAB tasks, one
 * allocator call each, and an arena of chunks for successor arrays past
 * three, dependency tables and subflows' records.
 *
 * Graphs on malloc (no allocator of their own) give their slabs and full
 * chunks back to a cache of the process when destroyed, up to CACHE_SLABS
 * and CACHE_CHUNKS, and take them from it first: a program that builds
 * and destroys a graph per round, as Taskflow's benchmarks do, neither
 * calls malloc nor faults in fresh pages after the first round (Taskflow
 * keeps its nodes in an object pool for the same reason). */
#include <pthread.h>

#include "internal/taskgraph.h"

#define ARENA_FIRST 4096  /* bytes of a graph's first arena chunk */
#define ARENA_CHUNK 65536 /* of the next ones, which double up to this */
#define CACHE_SLABS 2048  /* a 512 x 512 wavefront's tasks */
#define CACHE_CHUNKS 256  /* 16 MB of successor arrays */

/* ---- the slab cache ------------------------------------------------------ */

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static struct wf__tg_slab *cache; /* under cache_lock */
/* Slabs in the cache: written under the lock; read without it (relaxed)
 * only to skip the lock when the cache is empty. */
static _Atomic size_t cached;
/* Arena chunks of ARENA_CHUNK bytes, the same way. */
static struct wf__tg_chunk *chunk_cache;
static _Atomic size_t chunks_cached;

/* Slabs are allocated with 63 bytes to spare, to align them for the
 * tasks' cache lines. */
#define SLAB_BYTES (sizeof(struct wf__tg_slab) + 63)

static struct wf__tg_slab *slab_new(wf_taskgraph *g)
{
    void *raw = wf__alloc(g->a, SLAB_BYTES);
    if (raw == NULL)
        return NULL;
    struct wf__tg_slab *s =
        (struct wf__tg_slab *)(((uintptr_t)raw + 63) & ~(uintptr_t)63);
    s->raw = raw;
    return s;
}

/* A slab for g: from the cache when g uses malloc, else new. */
struct wf__tg_slab *wf__tg_slab_get(wf_taskgraph *g)
{
    struct wf__tg_slab *s = NULL;
    if (g->a == NULL && wf_load_relaxed(&cached) > 0) {
        pthread_mutex_lock(&cache_lock);
        if ((s = cache) != NULL) {
            cache = s->next;
            wf_store_relaxed(&cached, wf_load_relaxed(&cached) - 1);
        }
        pthread_mutex_unlock(&cache_lock);
    }
    return s != NULL ? s : slab_new(g);
}

/* Free g's slabs, into the cache while it has room. */
static void slabs_put(wf_taskgraph *g)
{
    struct wf__tg_slab *s = g->slabs;
    if (g->a == NULL) {
        pthread_mutex_lock(&cache_lock);
        size_t n = wf_load_relaxed(&cached);
        for (; s != NULL && n < CACHE_SLABS; n++) {
            struct wf__tg_slab *next = s->next;
            s->next = cache;
            cache = s;
            s = next;
        }
        wf_store_relaxed(&cached, n);
        pthread_mutex_unlock(&cache_lock);
    }
    for (struct wf__tg_slab *next; s != NULL; s = next) {
        next = s->next;
        wf__free(g->a, s->raw, SLAB_BYTES);
    }
    g->slabs = g->cur = NULL;
}

/* ---- the arena ----------------------------------------------------------- */

/* A chunk of size bytes for g: a cached one when g uses malloc and size is
 * ARENA_CHUNK, else new. */
static struct wf__tg_chunk *chunk_get(wf_taskgraph *g, size_t size)
{
    struct wf__tg_chunk *c = NULL;
    if (g->a == NULL && size == ARENA_CHUNK &&
        wf_load_relaxed(&chunks_cached) > 0) {
        pthread_mutex_lock(&cache_lock);
        if ((c = chunk_cache) != NULL) {
            chunk_cache = c->next;
            wf_store_relaxed(&chunks_cached,
                             wf_load_relaxed(&chunks_cached) - 1);
        }
        pthread_mutex_unlock(&cache_lock);
    }
    if (c == NULL && (c = wf__alloc(g->a, sizeof *c + size)) != NULL)
        c->size = size;
    return c;
}

/* Free g's chunks, the cacheable ones into the cache while it has room. */
static void chunks_put(wf_taskgraph *g)
{
    struct wf__tg_chunk *keep = NULL, *c = g->chunks;
    while (c != NULL) {
        struct wf__tg_chunk *next = c->next;
        if (g->a == NULL && c->size == ARENA_CHUNK) {
            c->next = keep;
            keep = c;
        } else {
            wf__free(g->a, c, sizeof *c + c->size);
        }
        c = next;
    }
    if (keep != NULL) {
        pthread_mutex_lock(&cache_lock);
        size_t n = wf_load_relaxed(&chunks_cached);
        while (keep != NULL && n < CACHE_CHUNKS) {
            struct wf__tg_chunk *next = keep->next;
            keep->next = chunk_cache;
            chunk_cache = keep;
            keep = next;
            n++;
        }
        wf_store_relaxed(&chunks_cached, n);
        pthread_mutex_unlock(&cache_lock);
    }
    for (struct wf__tg_chunk *next; keep != NULL; keep = next) {
        next = keep->next;
        wf__free(g->a, keep, sizeof *keep + keep->size);
    }
    g->chunks = g->chunk = NULL;
}

/* wf__tg_arena_take when the current chunk is full (or there is none). */
static __attribute__((noinline)) void *arena_refill(wf_taskgraph *g, size_t n)
{
    struct wf__tg_chunk *c = g->chunk;
    while (c != NULL && c->size - c->used < n && c->next != NULL) {
        c = c->next; /* a spare chunk that clear left */
        c->used = 0;
    }
    if (c == NULL || c->size - c->used < n) {
        size_t size = c == NULL                ? ARENA_FIRST
                      : c->size >= ARENA_CHUNK ? ARENA_CHUNK
                                               : 2 * c->size;
        if (size < n)
            size = n;
        struct wf__tg_chunk *fresh = chunk_get(g, size);
        if (fresh == NULL)
            return NULL;
        fresh->used = 0;
        fresh->next = NULL;
        if (c != NULL) /* c is the last: spares come before new ones */
            c->next = fresh;
        else
            g->chunks = fresh;
        c = fresh;
    }
    g->chunk = c;
    void *p = c->data + c->used;
    c->used += n;
    return p;
}

void *wf__tg_arena_take(wf_taskgraph *g, size_t n)
{
    n = (n + alignof(max_align_t) - 1) & ~(alignof(max_align_t) - 1);
    struct wf__tg_chunk *c = g->chunk;
    if (c == NULL || c->size - c->used < n)
        return arena_refill(g, n);
    void *p = c->data + c->used;
    c->used += n;
    return p;
}

wf_tg_task **wf__tg_succ_take(wf_taskgraph *g, uint32_t n)
{
    size_t bytes = n * sizeof(wf_tg_task *);
    struct wf__tg_chunk *c = g->chunk;
    /* In the current chunk when it has room once aligned: data is
     * aligned for max_align_t, and so is the line and the array's size,
     * so `used` stays a multiple of it for the next take. */
    if (c != NULL) {
        uintptr_t p = ((uintptr_t)(c->data + c->used) + 63) & ~(uintptr_t)63;
        size_t end = p - (uintptr_t)c->data + bytes;
        if (end <= c->size) {
            c->used = end;
            return (wf_tg_task **)p;
        }
    }
    /* Else from a chunk of its own, with room to align it. */
    unsigned char *raw =
        wf__tg_arena_take(g, bytes + 64 - alignof(max_align_t));
    if (raw == NULL)
        return NULL;
    return (wf_tg_task **)(((uintptr_t)raw + 63) & ~(uintptr_t)63);
}

void wf__tg_memory_put(wf_taskgraph *g)
{
    slabs_put(g);
    chunks_put(g);
}
