/* SPDX-License-Identifier: Apache-2.0 */
/* The receives the engine keeps posted on comm, each into its landing
 * buffer (src/mpi/landing.c); and the receive that drops a bulk message. */
#ifndef WF_INTERNAL_MPI_LANDING_H
#define WF_INTERNAL_MPI_LANDING_H

#include "internal/mpi/context.h"

/* Post every receive (creation); WF_ENOMEM. */
int wf__mpi_post_receives(wf_mpi *m);
/* Engine: post the receive of landing buffer i again; on failure its
 * request is MPI_REQUEST_NULL and the context has failed. */
void wf__mpi_post_receive(wf_mpi *m, unsigned i);
/* Cancel them, before the communicator is freed (engine stopped). */
void wf__mpi_cancel_receives(wf_mpi *m);
/* Engine: receive a bulk message into scratch memory and drop it. */
void wf__mpi_discard_bulk(wf_mpi *m, int peer, int channel, int count);

#endif /* WF_INTERNAL_MPI_LANDING_H */
