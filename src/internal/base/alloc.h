/* SPDX-License-Identifier: Apache-2.0 */
/* Memory through a wf_allocator (src/base/alloc.c), for every component.
 * Never installed. */
#ifndef WF_INTERNAL_BASE_ALLOC_H
#define WF_INTERNAL_BASE_ALLOC_H

#include <stddef.h>

#include "weft/common.h"

/* Memory through an allocator, NULL: malloc; free is given the size that
 * was allocated. */
void *wf__alloc(const wf_allocator *a, size_t size);
void wf__free(const wf_allocator *a, void *p, size_t size);

/* A cache-line-aligned block for structures with _Alignas(WF_CACHE_LINE)
 * members; *raw receives what wf__free_aligned must be given. */
void *wf__alloc_aligned(const wf_allocator *a, size_t size, void **raw);
void wf__free_aligned(const wf_allocator *a, void *raw, size_t size);

#endif /* WF_INTERNAL_BASE_ALLOC_H */
