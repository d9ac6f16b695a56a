/* SPDX-License-Identifier: Apache-2.0 */
/* The drain of wf_mpi_destroy (src/mpi/drain.c). */
#ifndef WF_INTERNAL_MPI_DRAIN_H
#define WF_INTERNAL_MPI_DRAIN_H

#include "internal/mpi/context.h"

/* Collective, engine stopped: receive every message posted here and
 * complete every send; WF_ENOMEM. */
int wf__mpi_drain(wf_mpi *m);

#endif /* WF_INTERNAL_MPI_DRAIN_H */
