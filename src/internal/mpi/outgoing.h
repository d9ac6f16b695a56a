/* SPDX-License-Identifier: Apache-2.0 */
/* Outgoing messages (src/mpi/outgoing.c): their buffers, their posting
 * (at once, or through the outbox the engine posts), their completion. */
#ifndef WF_INTERNAL_MPI_OUTGOING_H
#define WF_INTERNAL_MPI_OUTGOING_H

#include <stdbool.h>
#include <stddef.h>

#include "internal/mpi/context.h"

/* An outgoing message: a copy of a sender's message (or of several, a
 * batch), or a control message.  It lives until MPI has completed its
 * send. */
struct wf__mpi_out {
    struct wf__mpi_out *next;
    wf__mpi_send *ch; /* data: its channel keeps the buffer for reuse */
    int dest, tag, count;
    _Alignas(max_align_t) unsigned char data[];
};

/* A data buffer of s's, from its free buffers or new (NULL: no memory);
 * s->mu is held. */
wf__mpi_out *wf__mpi_take_buffer(wf__mpi_send *s);
/* Send o, and the messages linked after it, in order: at once where this
 * thread may call MPI (MULTIPLE, or the engine itself), else through the
 * outbox.  Any thread. */
void wf__mpi_send_out(wf_mpi *m, wf__mpi_out *o, bool from_engine);
/* A control message to dest (counted in the statistics only);
 * WF_ENOMEM. */
int wf__mpi_send_ctrl(wf_mpi *m, int dest, const wf__mpi_ctrl *c,
                      bool from_engine);
/* Engine: post what the outbox holds; true if it held anything. */
bool wf__mpi_post_outbox(wf_mpi *m);
/* Engine (or the drain): complete the posted sends that are done; true if
 * any completed. */
bool wf__mpi_test_sends(wf_mpi *m);

#endif /* WF_INTERNAL_MPI_OUTGOING_H */
