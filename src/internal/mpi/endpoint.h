/* SPDX-License-Identifier: Apache-2.0 */
/* What the two ends of a channel share (src/mpi/endpoint.c): checking a
 * channel's configuration, publishing an endpoint, the early hellos. */
#ifndef WF_INTERNAL_MPI_ENDPOINT_H
#define WF_INTERNAL_MPI_ENDPOINT_H

#include <stdbool.h>

#include "internal/mpi/context.h"

/* WF_EINVAL, WF_ERANGE, WF_ESTATE, or 0. */
int wf__mpi_check_args(wf_node **out, wf_mpi *m,
                       const wf_mpi_channel_config *c);
/* Destroy the nodes that are not NULL, the composite (first) first. */
void wf__mpi_destroy_nodes(wf_node **nodes, int n);
/* Publish ep in its table and list, and take the hello from its other
 * end that came before it (*early, to free; NULL if none). */
int wf__mpi_publish(wf_mpi *m, bool sender, int peer, int channel, void *ep,
                    wf__mpi_hello **early);
/* Endpoints whose other end has not said hello, and hellos that found no
 * endpoint. */
unsigned wf__mpi_unmatched(wf_mpi *m);

#endif /* WF_INTERNAL_MPI_ENDPOINT_H */
