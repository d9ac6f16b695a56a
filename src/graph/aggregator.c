/* The aggregator: one thread at a time applies a node's operations (G1).
 *
 * As in oneTBB's aggregator, a caller pushes its operation record on a
 * lock-free stack (the mailbox).  The caller that finds the mailbox empty
 * becomes the next handler: it waits until the current handler, if any,
 * has finished, takes the whole mailbox at once and applies the batch in
 * arrival order.  Every other caller only waits for its own record to be
 * marked done.  At most one caller waits to become handler at a time: a
 * second one would need an empty mailbox, and the first one's record stays
 * in it until that one takes the batch.
 *
 * Handlers are short and call no other node (G2), so the waits below are
 * bounded by the work queued ahead; they still yield after a short spin, so
 * an oversubscribed machine runs the thread they wait for. */
#include <sched.h>

#include "graph/graph_impl.h"

void wf__backoff(unsigned *round)
{
    if (*round < 64) {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#elif defined(__aarch64__)
        __asm__ __volatile__("yield");
#endif
        (*round)++;
    } else {
        sched_yield();
    }
}

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

static void handle_batch(wf__agg *a, wf__agg_handler h, void *self)
{
    unsigned round = 0;
    /* Acquire pairs with the release store of busy below, by the previous
     * handler: its changes to the node's state are visible to us. */
    while (wf_load_acquire(&a->busy))
        wf__backoff(&round);
    /* Only we can set it now (we are the one waiting handler); the
     * acq_rel exchange below publishes this store to the next candidate,
     * whose acquire CAS in wf__agg_execute reads the emptied mailbox. */
    wf_store_relaxed(&a->busy, 1);
    /* Acquire pairs with each pusher's release CAS: we see their records. */
    wf__op *op = reverse(wf_exchange_acqrel(&a->mailbox, NULL));
    while (op) {
        wf__op *next = op->next; /* the record may vanish once done */
        h(self, op);
        /* Release pairs with the acquire load in wait_done: the owner
         * sees the results written into its record. */
        wf_store_release(&op->status, 1);
        op = next;
    }
    /* Release pairs with the next handler's acquire load of busy. */
    wf_store_release(&a->busy, 0);
}

static void wait_done(wf__op *op)
{
    unsigned round = 0;
    /* Acquire pairs with the handler's release store of status. */
    while (!wf_load_acquire(&op->status))
        wf__backoff(&round);
}

void wf__agg_execute(wf__agg *a, wf__op *op, wf__agg_handler h, void *self)
{
    wf_store_relaxed(&op->status, 0); /* not shared yet */
    wf__op *head = wf_load_relaxed(&a->mailbox);
    do {
        op->next = head;
        /* Release: the handler that takes the mailbox sees the record.
         * Acquire (on success and failure): a pusher that finds the
         * mailbox empty reads it from the handler's exchange, and so sees
         * that handler's busy = 1 before it waits on busy. */
    } while (!wf_cas_acqrel(&a->mailbox, &head, op));
    if (head == NULL)
        handle_batch(a, h, self);
    else
        wait_done(op);
}
