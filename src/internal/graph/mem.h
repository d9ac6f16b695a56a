/* SPDX-License-Identifier: Apache-2.0 */
/* Memory of a graph and its nodes (src/graph/mem.c).  Never installed. */
#ifndef WF_GRAPH_MEM_H
#define WF_GRAPH_MEM_H

#include <pthread.h>
#include <stdbool.h>
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

/* A graph's slabs: the fixed-size blocks of its nodes, edges and edge
 * lists, carved from chunks of the graph's allocator, so that building a
 * graph costs an allocator call per chunk, not per node or edge, and a
 * freed block is reused by the next of its size class.  The graph and
 * each of its nodes hold a reference (nodes may outlive the graph); the
 * last one frees every chunk. */
#define WF__SLAB_CLASSES 17 /* 32 bytes, then 64, 128, ... 1024 by 64 */
#define WF__SLAB_MAX 1024   /* larger blocks go to the allocator */

typedef struct wf__slabs {
    wf_allocator mem; /* the graph's allocator, for everything */
    pthread_mutex_t lock;
    size_t refs;                  /* under lock */
    void *free[WF__SLAB_CLASSES]; /* freed blocks by class, linked */
    char *bump, *end;             /* the chunk being carved */
    void *chunks;                 /* every chunk, linked */
    size_t next_chunk;            /* its size: doubles to 64 KiB */
    /* Blocks larger go to the allocator one by one: WF__SLAB_MAX, or 0 in
     * debug mode, where every block is its own allocation so that
     * AddressSanitizer and a failing allocator see each one. */
    size_t max;
} wf__slabs;

/* A new set of slabs with one reference; NULL without memory.
 * each_alone: every block its own allocation (debug mode). */
wf__slabs *wf__slabs_create(const wf_allocator *a, bool each_alone);
/* Take or drop a reference; the last drop frees every chunk. */
void wf__slabs_hold(wf__slabs *s);
void wf__slabs_drop(wf__slabs *s);
/* A block of `size` bytes, 64-byte aligned when size > 32 (32 otherwise),
 * not zeroed; NULL without memory.  Free it with the same size. */
void *wf__slab_alloc(wf__slabs *s, size_t size);
void wf__slab_free(wf__slabs *s, void *p, size_t size);
/* The bytes a block of `size` takes (its class), for sizing edge lists
 * to fill their block. */
size_t wf__slab_block_size(size_t size);

#endif /* WF_GRAPH_MEM_H */
