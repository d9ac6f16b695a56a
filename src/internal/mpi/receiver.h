/* SPDX-License-Identifier: Apache-2.0 */
/* The receiving end of a channel (src/mpi/receiver.c). */
#ifndef WF_INTERNAL_MPI_RECEIVER_H
#define WF_INTERNAL_MPI_RECEIVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "internal/mpi/context.h"

/* An async_node whose gateway the engine puts into, in front of a ring of
 * `credits` message slots. */
struct wf__mpi_recv {
    wf_mpi *m;
    int peer, channel;
    size_t size;
    unsigned credits, batch;
    wf_node *face, *node;
    wf_gateway *gw;
    unsigned char *ring;
    bool peer_seen; /* under m->lock */
    /* engine */
    uint64_t head, tail; /* delivered, received: slot = index % credits */
    uint64_t granted;    /* credits granted in all (the first included) */
    uint64_t pending;    /* delivered, not yet granted back           */
    bool blocked, ready; /* the head was rejected; on the ready list  */
    int64_t retry_at;    /* ns, CLOCK_MONOTONIC, when blocked         */
    int64_t retry_delay; /* ns, doubles while rejections go on        */
    wf__mpi_recv *next_ready;
};

/* Engine: a data message that landed on comm (one message, or a batch)
 * into its channel's ring, or dropped. */
void wf__mpi_on_data(wf_mpi *m, int peer, int channel, int count,
                     const void *data);
/* Engine: a bulk message announced; receive it into its ring. */
void wf__mpi_on_bulk(wf_mpi *m, int peer, const wf__mpi_ctrl *c);
/* Engine: offer the receivers' messages to their successors; true if any
 * was taken. */
bool wf__mpi_deliver(wf_mpi *m);
/* Engine, after a cancel: drop every undelivered message. */
void wf__mpi_drop_all(wf_mpi *m);
/* Destroy r's nodes and free it (wf_mpi_destroy). */
void wf__mpi_receiver_free(wf__mpi_recv *r);

#endif /* WF_INTERNAL_MPI_RECEIVER_H */
