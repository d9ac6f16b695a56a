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
