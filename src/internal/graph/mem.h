/* SPDX-License-Identifier: Apache-2.0 */
/* Memory of a graph and its nodes (src/graph/mem.c).  Never installed. */
#ifndef WF_GRAPH_MEM_H
#define WF_GRAPH_MEM_H

#include <stddef.h>

#include "weft/common.h"

/* Every block of a graph and its nodes comes from the graph's allocator
 * (wf_graph_config.alloc, copied into the graph and into each node, which
 * may outlive it).  Like malloc, calloc and free; the size is remembered,
 * as wf_allocator's free needs it.  NULL on no memory or a size that
 * overflows. */
void *wf__mem_alloc(const wf_allocator *a, size_t size);
void *wf__mem_alloc_aligned(const wf_allocator *a, size_t size, size_t align);
void *wf__mem_calloc(const wf_allocator *a, size_t n, size_t size);
void wf__mem_free(const wf_allocator *a, void *p);

#endif /* WF_GRAPH_MEM_H */
