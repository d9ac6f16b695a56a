/* SPDX-License-Identifier: Apache-2.0 */
/* Receiving: the engine takes the receives that landing.c keeps posted,
 * the oldest first, and hands each message to its handler.
 *
 * Order.  MPI matches an incoming message with the first posted receive
 * that fits, and two messages from one sender on one communicator that
 * fit the same receive are matched in the order they were sent
 * (non-overtaking, MPI-3.1 section 3.5).  Every posted receive fits every
 * message, so the receives are matched in the order they were posted,
 * and the engine takes them in that order too, the oldest first, and
 * posts each again once its message is handled.  So each sender's
 * messages are handled in the order they were sent, whatever order MPI
 * completes the receives in.
 *
 * A data message larger than WF__MPI_SMALL_MAX travels on `bulk`, and an
 * announcement on `comm` (WF__CTRL_BULK) follows it at once.  The
 * announcement is handled in order with the rest, and the engine then
 * receives the message it announces, with a receive for that sender and
 * tag, straight into the receiver's ring: the message was posted before
 * its announcement, so the receive waits only for its transfer. */
#include <string.h>

#include "internal/mpi/batch.h"
#include "internal/mpi/dispatch.h"
#include "internal/mpi/failure.h"
#include "internal/mpi/hello.h"
#include "internal/mpi/landing.h"
#include "internal/mpi/receiver.h"
#include "internal/mpi/sender.h"

#define RECEIVE_BATCH 64

/* A data message has come: hand it to its successors now, and post what
 * their lightweight bodies sent, before the next poll; a reply then
 * leaves without waiting for the rest of the pass. */
static void deliver_now(wf_mpi *m)
{
    wf__mpi_deliver(m);
    if (wf__mpi_on_engine(m))
        wf__mpi_flush_batches(m);
}

static void on_ctrl(wf_mpi *m, int peer, const wf__mpi_ctrl *c)
{
    if (c->kind == WF__CTRL_BULK) { /* data, not counted as control */
        wf__mpi_on_bulk(m, peer, c);
        deliver_now(m);
        return;
    }
    wf_fetch_add_relaxed(&m->st_ctrl_received, 1); /* M6: a statistic */
    switch (c->kind) {
    case WF__CTRL_HELLO_SENDER:
    case WF__CTRL_HELLO_RECEIVER: wf__mpi_on_hello(m, peer, c); break;
    case WF__CTRL_CREDIT: wf__mpi_on_credit(m, peer, c); break;
    case WF__CTRL_ABORT: wf__mpi_on_abort(m); break;
    default: wf__mpi_fail(m, WF_ESTATE); break;
    }
}

int wf__mpi_receive_one(wf_mpi *m, bool drop)
{
    unsigned i = m->rx_head;
    int done = 0, count = 0;
    MPI_Status st;
    if (m->rx[i] == MPI_REQUEST_NULL) {
        /* Its post failed, and the graph was cancelled: post it again,
         * out of order (what comes now is dropped), so that the drain
         * at destroy can still take every message. */
        wf__mpi_post_receive(m, i);
        if (m->rx[i] == MPI_REQUEST_NULL)
            return WF__RX_NONE;
    }
    MPI_Test(&m->rx[i], &done, &st);
    if (!done)
        return WF__RX_NONE;
    m->rx_head = (i + 1) % WF__MPI_RX_DEPTH;
    m->recvd_from[st.MPI_SOURCE]++;
    MPI_Get_count(&st, MPI_BYTE, &count);
    wf__mpi_ctrl c;
    bool ctrl = st.MPI_TAG == WF__MPI_TAG_CTRL && count == (int)sizeof c;
    if (ctrl)
        memcpy(&c, m->landing[i], sizeof c);
    int took = ctrl && c.kind != WF__CTRL_BULK ? WF__RX_CTRL : WF__RX_DATA;
    if (drop) {
        if (ctrl && c.kind == WF__CTRL_BULK)
            wf__mpi_discard_bulk(m, st.MPI_SOURCE, c.channel, (int)c.a);
    } else if (ctrl) {
        on_ctrl(m, st.MPI_SOURCE, &c);
    } else if (st.MPI_TAG >= WF__MPI_TAG_DATA) {
        wf__mpi_on_data(m, st.MPI_SOURCE, st.MPI_TAG - WF__MPI_TAG_DATA, count,
                        m->landing[i]);
        deliver_now(m);
    } else {
        wf__mpi_fail(m, WF_ESTATE);
    }
    wf__mpi_post_receive(m, i);
    return took;
}

/* A pass ends after a data message was delivered, and the work the
 * message started runs on this thread (wf_graph_run_here) before the next
 * is taken.  Taking on, while other threads run that work, would let the
 * engine run ahead of a queueing successor, whose queue would then grow
 * without bound. */
bool wf__mpi_receive(wf_mpi *m)
{
    bool any = false;
    for (int k = 0; k < RECEIVE_BATCH; k++) {
        int took = wf__mpi_receive_one(m, false);
        any |= took != WF__RX_NONE;
        if (took != WF__RX_CTRL)
            break;
    }
    return any;
}
