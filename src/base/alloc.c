/* SPDX-License-Identifier: Apache-2.0 */
/* Memory through a wf_allocator (malloc when it has none), for every
 * component. */
#include <stdint.h>
#include <stdlib.h>

#include "internal/base/alloc.h"

void *wf__alloc(const wf_allocator *a, size_t size)
{
    return a && a->alloc ? a->alloc(size, a->ctx) : malloc(size);
}

void wf__free(const wf_allocator *a, void *p, size_t size)
{
    if (p == NULL)
        return;
    if (a && a->free)
        a->free(p, size, a->ctx);
    else
        free(p);
}

/* A cache-line-aligned block for structures with _Alignas(WF_CACHE_LINE)
 * members; *raw receives what wf__free_aligned must be given. */
void *wf__alloc_aligned(const wf_allocator *a, size_t size, void **raw)
{
    void *m = wf__alloc(a, size + WF_CACHE_LINE);
    *raw = m;
    if (m == NULL)
        return NULL;
    uintptr_t p =
        ((uintptr_t)m + WF_CACHE_LINE - 1) & ~(uintptr_t)(WF_CACHE_LINE - 1);
    return (void *)p;
}

void wf__free_aligned(const wf_allocator *a, void *raw, size_t size)
{
    wf__free(a, raw, size + WF_CACHE_LINE);
}
