/* SPDX-License-Identifier: Apache-2.0 */
/* The sending end of a channel (src/mpi/sender.c). */
#ifndef WF_INTERNAL_MPI_SENDER_H
#define WF_INTERNAL_MPI_SENDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "internal/mpi/context.h"

/* Its node is a composite of [queue_node ->] limiter_node ->
 * function_node: the limiter lets a message through per credit, the
 * serial function node's body posts it. */
struct wf__mpi_send {
    wf_mpi *m;
    int peer, channel;
    size_t size;
    wf_node *face, *queue, *limiter, *body;
    /* Small messages go out in batches of up to batch_max (batch.c);
     * buf_size = batch_max * size, the size of every data buffer of the
     * channel. */
    unsigned batch_max;
    size_t buf_size;
    pthread_mutex_t mu; /* guards `open` and the free buffers; taken
                           before m->lock */
    wf__mpi_out *open;  /* the batch being filled, or NULL */
    bool dirty;         /* engine: on m->dirty, to flush at the pass's end */
    wf__mpi_send *next_dirty;
    wf__mpi_out *free_bufs; /* under mu */
    unsigned n_free;
    bool peer_seen; /* under m->lock */
    /* Messages sent (by the body, one at a time: a serial node) and
     * credits granted (by the engine, or the creating thread), and the
     * receiver's first grant; for the statistics (M6). */
    _Atomic uint64_t sent, granted, window;
};

/* Whether s's data messages go on the bulk communicator. */
static inline bool wf__mpi_bulk(const wf__mpi_send *s)
{
    return s->buf_size > WF__MPI_SMALL_MAX;
}

/* Give s n more credits (on the engine, or its creating thread). */
void wf__mpi_grant(wf__mpi_send *s, int64_t n);
/* Engine: credits came back from peer. */
void wf__mpi_on_credit(wf_mpi *m, int peer, const wf__mpi_ctrl *c);
/* Destroy s's nodes and free it (wf_mpi_destroy). */
void wf__mpi_sender_free(wf__mpi_send *s);

#endif /* WF_INTERNAL_MPI_SENDER_H */
