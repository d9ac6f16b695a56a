/* SPDX-License-Identifier: Apache-2.0 */
/* Per-thread storage: a value per slot of a pool, indexed by
 * wf_worker_index.  A slot is held by one thread at a time (a worker, a
 * caller while it waits in the slot, a spare), so its value needs no
 * atomic; each value starts on a cache line of its own, so two threads'
 * values never share one.  A slot's `used` flag is written by its thread
 * at its first wf_per_thread_local and read by wf_per_thread_each after
 * the work is done, which the end of that work (a join, wf_run's return)
 * orders. */
#include <string.h>

#include "internal/base/alloc.h"
#include "internal/pool_hooks.h"
#include "weft/common.h"

struct wf_per_thread {
    wf_pool *pool;
    const wf_allocator *mem;
    void *raw;      /* what wf__free_aligned takes */
    size_t bytes;   /* of the block */
    size_t stride;  /* bytes from one value to the next: whole lines */
    unsigned slots; /* values */
    bool *used;     /* slots whose thread took its value */
    unsigned char *values;
};

int wf_per_thread_create(wf_per_thread **out, wf_pool *pool, size_t size,
                         const void *init)
{
    if (out == NULL || pool == NULL || size == 0 ||
        size > SIZE_MAX - WF_CACHE_LINE)
        return WF_EINVAL;
    unsigned slots = wf_pool_slots(pool);
    size_t stride = (size + WF_CACHE_LINE - 1) / WF_CACHE_LINE * WF_CACHE_LINE;
    size_t head =
        (sizeof(wf_per_thread) + slots * sizeof(bool) + WF_CACHE_LINE - 1) /
        WF_CACHE_LINE * WF_CACHE_LINE;
    if (stride > (SIZE_MAX - head) / slots)
        return WF_EINVAL;
    const wf_allocator *mem = wf__pool_alloc(pool);
    void *raw;
    size_t bytes = head + slots * stride;
    unsigned char *block = wf__alloc_aligned(mem, bytes, &raw);
    if (block == NULL)
        return WF_ENOMEM;
    wf_per_thread *pt = (wf_per_thread *)block;
    *pt = (wf_per_thread){
        pool, mem, raw, bytes, stride, slots, (bool *)(pt + 1), block + head};
    memset(pt->used, 0, slots * sizeof(bool));
    for (unsigned i = 0; i < slots; i++) {
        unsigned char *v = pt->values + i * stride;
        if (init != NULL)
            memcpy(v, init, size);
        else
            memset(v, 0, size);
    }
    *out = pt;
    return 0;
}

void *wf_per_thread_local(wf_per_thread *pt)
{
    if (pt == NULL || wf_current_pool() != pt->pool)
        return NULL;
    unsigned i = (unsigned)wf_worker_index();
    if (!pt->used[i])
        pt->used[i] = true;
    return pt->values + i * pt->stride;
}

int wf_per_thread_each(wf_per_thread *pt, void (*fn)(void *value, void *ctx),
                       void *ctx)
{
    if (pt == NULL || fn == NULL)
        return WF_EINVAL;
    for (unsigned i = 0; i < pt->slots; i++)
        if (pt->used[i])
            fn(pt->values + i * pt->stride, ctx);
    return 0;
}

void wf_per_thread_destroy(wf_per_thread *pt)
{
    if (pt != NULL)
        wf__free_aligned(pt->mem, pt->raw, pt->bytes);
}
