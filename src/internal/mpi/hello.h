/* SPDX-License-Identifier: Apache-2.0 */
/* The hellos that match a channel's two ends (src/mpi/hello.c). */
#ifndef WF_INTERNAL_MPI_HELLO_H
#define WF_INTERNAL_MPI_HELLO_H

#include "internal/mpi/context.h"

/* Engine: a hello from peer; match it with its endpoint, or keep it. */
void wf__mpi_on_hello(wf_mpi *m, int peer, const wf__mpi_ctrl *c);

#endif /* WF_INTERNAL_MPI_HELLO_H */
