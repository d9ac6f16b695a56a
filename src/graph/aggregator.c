/* SPDX-License-Identifier: Apache-2.0 */
/* The aggregator: one thread at a time applies a node's operations (G1).
 *
 * `busy` is the lock: whoever takes it by CAS (0 -> 1) applies operations
 * until it stores 0.  A caller that finds the node free (busy 0 and the
 * mailbox empty) takes busy and applies its own operation directly: one
 * locked instruction and no record traffic, the common case.  That path is
 * inline (wf__agg_execute in internal/graph/agg.h), so a node kind that
 * passes its own handler for one op type gets no call and no dispatch on the
 * type; a queued record carries its handler, so a batch applies each op with
 * the handler its caller chose.
 *
 * Otherwise, as in oneTBB's aggregator, the caller pushes its operation
 * record on a lock-free stack (the mailbox).  The caller that finds the
 * mailbox empty becomes the next handler: it waits until it can take
 * busy, takes the whole mailbox at once and applies the batch in arrival
 * order.  Every other caller only waits for its own record to be marked
 * done.  At most one caller waits to become handler at a time: a second
 * one would need an empty mailbox, and the first one's record stays in it
 * until that one takes the batch.  A non-empty mailbox turns callers away
 * from the direct path, so the waiting handler competes for busy with at
 * most the callers that looked just before it pushed.
 *
 * Handlers are short and call no other node (G2), so the waits below are
 * bounded by the work queued ahead; they still yield after a short spin, so
 * an oversubscribed machine runs the thread they wait for. */

#include "internal/graph/agg.h"
#include "internal/util.h"

/* Reverse the stack so the batch is applied in arrival order. */
static wf__op *reverse(wf__op *list)
{
    wf__op *fifo = NULL;
    while (list) {
        wf__op *next = list->next;
        list->next = fifo;
        fifo = list;
        list = next;
    }
    return fifo;
}

/* Take busy if it is free (G1).  Acquire (the CAS's success order) pairs
 * with the release store of busy by the previous holder: its changes to the
 * node's state are visible to us.  The relaxed pre-load only avoids a
 * locked instruction that would fail; the CAS decides. */
static inline bool try_take(wf__agg *a)
{
    int free_ = 0;
    /* G1's lock: see above. */
    return wf_load_relaxed(&a->busy) == 0 && wf_cas_acqrel(&a->busy, &free_, 1);
}

static void handle_batch(wf__agg *a, void *self)
{
    unsigned round = 0;
    while (!try_take(a))
        wf__backoff(&round);
    /* Acquire pairs with each pusher's release CAS: we see their records
     * (G6). */
    wf__op *op = reverse(wf_exchange_acqrel(&a->mailbox, NULL));
    while (op) {
        wf__op *next = op->next; /* the record may vanish once done */
        op->handler(self, op);
        /* Release pairs with the acquire load in wait_done: the owner
         * sees the results written into its record (G6). */
        wf_store_release(&op->status, 1);
        op = next;
    }
    /* Release pairs with the next holder's acquire CAS of busy (G1). */
    wf_store_release(&a->busy, 0);
}

static void wait_done(wf__op *op)
{
    unsigned round = 0;
    /* Acquire pairs with the handler's release store of status (G6). */
    while (!wf_load_acquire(&op->status))
        wf__backoff(&round);
}

/* The caller found the node busy or a handler waiting (wf__agg_execute,
 * internal/graph/agg.h, tried the direct path first): queue the record. */
void wf__agg_execute_queued(wf__agg *a, wf__op *op, wf__agg_handler h,
                            void *self)
{
    wf_store_relaxed(&op->status, 0); /* not shared yet */
    op->handler = h;
    wf__op *head = wf_load_relaxed(&a->mailbox);
    do {
        op->next = head;
        /* Release: the handler that takes the mailbox sees the record.
         * (Failure needs no order: we only retry with the new head.)
         * G6. */
    } while (!wf_cas_acqrel(&a->mailbox, &head, op));
    if (head == NULL)
        handle_batch(a, self);
    else
        wait_done(op);
}
