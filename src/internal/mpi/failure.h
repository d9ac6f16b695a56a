/* SPDX-License-Identifier: Apache-2.0 */
/* Failure (src/mpi/failure.c): an error weft_mpi finds, the graph's
 * cancel, and an abort from another rank (M2). */
#ifndef WF_INTERNAL_MPI_FAILURE_H
#define WF_INTERNAL_MPI_FAILURE_H

#include "internal/mpi/context.h"

/* weft_mpi itself found an error: keep the first, cancel the graph.  Any
 * thread. */
void wf__mpi_fail(wf_mpi *m, int err);
/* The anchor's cancel hook (arg: the context). */
void wf__mpi_on_cancel(void *arg);
/* Engine: another rank's graph failed; cancel ours (as remote). */
void wf__mpi_on_abort(wf_mpi *m);

#endif /* WF_INTERNAL_MPI_FAILURE_H */
