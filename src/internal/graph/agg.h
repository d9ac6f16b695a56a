/* SPDX-License-Identifier: Apache-2.0 */
/* The aggregator (src/graph/aggregator.c): a node's operations are
 * queued lock-free and applied one at a time by whichever thread holds the
 * node, as oneTBB's flow graph does with its per-node aggregator (rule
 * G1).  Never installed. */
#ifndef WF_GRAPH_AGG_H
#define WF_GRAPH_AGG_H

#include <stdbool.h>
#include <stddef.h>

#include "internal/atomic.h"

typedef struct wf__op wf__op;
typedef void (*wf__agg_handler)(void *self, wf__op *op);

/* An operation record, embedded first in each node's op structs; lives on
 * the caller's stack until its status says done. */
struct wf__op {
    wf__op *next;
    _Atomic int status; /* 0 queued, 1 done */
    int type;
    /* Set when queued: the handler the batch applies it with (a caller may
     * pass one of its own that knows only its op's type). */
    wf__agg_handler handler;
};

typedef struct wf__agg {
    wf__op *_Atomic mailbox; /* Treiber stack of queued operations */
    _Atomic int busy;        /* held by the thread applying ops    */
} wf__agg;

/* The queued path of wf__agg_execute (aggregator.c). */
void wf__agg_execute_queued(wf__agg *a, wf__op *op, wf__agg_handler h,
                            void *self);

/* The direct path of wf__agg_execute: take the free node, or false (the
 * caller queues its op with wf__agg_execute_queued).  Relaxed mailbox
 * load: only a hint that no handler is waiting (aggregator.c); the busy
 * CAS alone gives mutual exclusion and the order.  The CAS's acquire
 * pairs with the release store of busy by the previous holder (its
 * changes to the node are visible; G1).  The relaxed busy pre-load only
 * avoids a locked instruction that would fail. */
static inline bool wf__agg_try_enter(wf__agg *a)
{
    int free_ = 0;
    return wf_load_relaxed(&a->mailbox) == NULL &&
           wf_load_relaxed(&a->busy) == 0 &&
           wf_cas_acqrel(&a->busy, &free_, 1); /* G1 */
}

/* Leave a node entered with wf__agg_try_enter.  Release pairs with the
 * next holder's CAS (G1). */
static inline void wf__agg_leave(wf__agg *a)
{
    wf_store_release(&a->busy, 0); /* G1 */
}

/* Apply op with h(self, op) and return once it has been applied, by this
 * thread or by the one that holds the aggregator.  Inline: a caller that
 * finds the node free (the common case) calls its handler directly, which
 * gcc -O2 inlines when h is a constant static inline function
 * (function.c's put and take; not always_inline, which a call through a
 * pointer cannot honour at -O1).  A caller whose handler must fold a
 * constant op type writes the two steps itself (store.c, typed_call). */
static inline void wf__agg_execute(wf__agg *a, wf__op *op, wf__agg_handler h,
                                   void *self)
{
    if (wf__agg_try_enter(a)) {
        h(self, op);
        wf__agg_leave(a);
        return;
    }
    wf__agg_execute_queued(a, op, h, self);
}

#endif /* WF_GRAPH_AGG_H */
