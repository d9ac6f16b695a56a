/* SPDX-License-Identifier: Apache-2.0 */
/* Who this thread is: the pool's lowest floor.  The identity every file of
 * the pool reads (wf__self, the stack of a thread that is no worker), the
 * fork generation, and the small queries answered from them and a pool's
 * fields alone. */
#include "internal/pool/self.h"

/* Threads that are not workers see a stack that is full (spawn takes the
 * slow path) and empty (join's sp[-1] is the NULL sentinel). */
static wf_task *no_worker_stack[1];
struct wf__fast wf__no_worker = {.sp = no_worker_stack + 1,
                                 .end = no_worker_stack + 1,
                                 .bp = no_worker_stack + 1,
                                 .limit = no_worker_stack + 1};
_Thread_local struct wf__fast *wf__self = &wf__no_worker;

#ifdef WF__TSAN
/* The word a seq_cst fence also updates under ThreadSanitizer
 * (internal/atomic.h). */
_Atomic int wf__tsan_fence_word;
#endif

/* fork(): the child has one thread, and a pool made before the fork has
 * none of its workers there.  The child gets a default pool of its own on
 * first use; a pool of the parent's answers WF_ESTATE (wf__pool_forked).
 * Written only by the child's handler, while the child is single-threaded,
 * so plain reads elsewhere do not race. */
unsigned wf__fork_gen;

/* ---- what the graph may ask (pool_hooks.h), and public queries --------- */

bool wf__pool_forked(const wf_pool *p)
{
    return p->generation != wf__fork_gen;
}

void wf__pool_graphs_add(wf_pool *p, long delta)
{
    /* Relaxed: a count, read by wf_pool_destroy, which the program
     * orders after the destroys of the pool's graphs (P11). */
    wf_fetch_add_relaxed(&p->graphs, delta);
}

bool wf__pool_debug(const wf_pool *p)
{
    return p->debug;
}

const wf_allocator *wf__pool_alloc(const wf_pool *p)
{
    return &p->alloc;
}

bool wf__in_pool(void)
{
    return wf__current() != NULL;
}

unsigned wf_pool_threads(const wf_pool *pool)
{
    return pool ? pool->threads : 0;
}

wf_pool *wf_current_pool(void)
{
    wf__worker *w = wf__current();
    return w ? w->pool : NULL;
}

int wf_worker_index(void)
{
    wf__worker *w = wf__current();
    return w ? (int)w->index : -1;
}

unsigned wf_pool_slots(const wf_pool *pool)
{
    return pool ? pool->first_spare + pool->max_spares : 0;
}
