/* SPDX-License-Identifier: Apache-2.0 */
/* Memory of a graph and its nodes, through the allocator the graph was
 * created with (wf_graph_config.alloc; malloc when none).
 *
 * A wf_allocator's free is given the size that was allocated, and a
 * node's buffers are freed far from where they were sized (a FIFO that
 * grew, a key table, an edge list).  So each block starts with a small
 * header that remembers its size and where the allocator's block begins;
 * the callers keep only the pointer, as with malloc. */
#include <stdalign.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "internal/graph/mem.h"
#include "internal/pool_hooks.h"

typedef struct {
    size_t total;  /* bytes asked of the allocator */
    size_t offset; /* from the allocator's block to the caller's */
} header;

#define HEADER_ROOM                                                            \
    ((sizeof(header) + alignof(max_align_t) - 1) & ~(alignof(max_align_t) - 1))

void *wf__mem_alloc_aligned(const wf_allocator *a, size_t size, size_t align)
{
    if (align < alignof(max_align_t))
        align = alignof(max_align_t);
    size_t extra = HEADER_ROOM + align - alignof(max_align_t);
    if (size > SIZE_MAX - extra)
        return NULL;
    char *raw = wf__alloc(a, size + extra);
    if (raw == NULL)
        return NULL;
    uintptr_t p =
        ((uintptr_t)raw + HEADER_ROOM + align - 1) & ~(uintptr_t)(align - 1);
    header *h = (header *)p - 1;
    h->total = size + extra;
    h->offset = p - (uintptr_t)raw;
    return (void *)p;
}

void *wf__mem_alloc(const wf_allocator *a, size_t size)
{
    return wf__mem_alloc_aligned(a, size, alignof(max_align_t));
}

void *wf__mem_calloc(const wf_allocator *a, size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size)
        return NULL;
    void *p = wf__mem_alloc(a, n * size);
    if (p)
        memset(p, 0, n * size);
    return p;
}

void wf__mem_free(const wf_allocator *a, void *p)
{
    if (p == NULL)
        return;
    header *h = (header *)p - 1;
    wf__free(a, (char *)p - h->offset, h->total);
}

/* ---- slabs --------------------------------------------------------------- */

/* Under AddressSanitizer a freed block is poisoned until it is handed out
 * again, so that a use after wf_node_destroy is still reported. */
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define POISON(p, n) ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

#define FIRST_CHUNK 4096
#define LAST_CHUNK 65536

static size_t class_of(size_t size)
{
    return size <= 32 ? 0 : (size + 63) / 64;
}

size_t wf__slab_block_size(size_t size)
{
    return size <= 32 ? 32 : size > WF__SLAB_MAX ? size : (size + 63) & ~63u;
}

wf__slabs *wf__slabs_create(const wf_allocator *a, bool each_alone)
{
    wf__slabs *s = wf__mem_calloc(a, 1, sizeof *s);
    if (s == NULL)
        return NULL;
    if (pthread_mutex_init(&s->lock, NULL) != 0) {
        wf__mem_free(a, s);
        return NULL;
    }
    s->mem = *a;
    s->refs = 1;
    s->max = each_alone ? 0 : WF__SLAB_MAX;
    s->next_chunk = FIRST_CHUNK;
    return s;
}

void wf__slabs_hold(wf__slabs *s)
{
    pthread_mutex_lock(&s->lock);
    s->refs++;
    pthread_mutex_unlock(&s->lock);
}

void wf__slabs_drop(wf__slabs *s)
{
    pthread_mutex_lock(&s->lock);
    bool last = --s->refs == 0;
    pthread_mutex_unlock(&s->lock);
    if (!last)
        return;
    for (void *c = s->chunks, *next; c; c = next) {
        next = *(void **)c;
        wf__mem_free(&s->mem, c);
    }
    pthread_mutex_destroy(&s->lock);
    wf_allocator mem = s->mem;
    wf__mem_free(&mem, s);
}

/* Carve a block of `bytes` (whole lines) from the current chunk, or start
 * a new one; the rest of a chunk too small for it is left unused.  A
 * chunk's first line links it to the others.  Under s->lock. */
static void *carve(wf__slabs *s, size_t bytes)
{
    if (s->bump == NULL || bytes > (size_t)(s->end - s->bump)) {
        size_t size = s->next_chunk;
        char *c = wf__mem_alloc_aligned(&s->mem, size, 64);
        if (c == NULL)
            return NULL;
        if (s->next_chunk < LAST_CHUNK)
            s->next_chunk *= 2;
        *(void **)c = s->chunks;
        s->chunks = c;
        s->bump = c + 64;
        s->end = c + size;
    }
    void *p = s->bump;
    s->bump += bytes;
    return p;
}

void *wf__slab_alloc(wf__slabs *s, size_t size)
{
    if (size > s->max)
        return wf__mem_alloc_aligned(&s->mem, size, 64);
    size_t k = class_of(size);
    pthread_mutex_lock(&s->lock);
    void *p = s->free[k];
    if (p) {
        UNPOISON(p, wf__slab_block_size(size));
        s->free[k] = *(void **)p;
    } else if (k == 0 && (p = carve(s, 64)) != NULL) {
        /* 32-byte blocks are carved in pairs, keeping the bump on a line
         * boundary for the blocks of whole lines that come between. */
        void *twin = (char *)p + 32;
        *(void **)twin = NULL;
        s->free[0] = twin;
        POISON(twin, 32);
    } else if (k != 0) {
        p = carve(s, wf__slab_block_size(size));
    }
    pthread_mutex_unlock(&s->lock);
    return p;
}

void wf__slab_free(wf__slabs *s, void *p, size_t size)
{
    if (p == NULL)
        return;
    if (size > s->max) {
        wf__mem_free(&s->mem, p);
        return;
    }
    size_t k = class_of(size);
    pthread_mutex_lock(&s->lock);
    *(void **)p = s->free[k];
    s->free[k] = p;
    POISON(p, wf__slab_block_size(size));
    pthread_mutex_unlock(&s->lock);
}
