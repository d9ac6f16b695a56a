/* SPDX-License-Identifier: Apache-2.0 */
/* Batches of small messages, and which thread runs the engine's pass now
 * (src/mpi/batch.c). */
#ifndef WF_INTERNAL_MPI_BATCH_H
#define WF_INTERNAL_MPI_BATCH_H

#include <stdbool.h>

#include "internal/mpi/context.h"

/* Whether this thread is in a pass of m's engine. */
bool wf__mpi_on_engine(const wf_mpi *m);
/* A pass of m's engine starts on this thread; returns the context whose
 * pass it was in (passes nest), for wf__mpi_leave_engine. */
const wf_mpi *wf__mpi_enter_engine(const wf_mpi *m);
void wf__mpi_leave_engine(const wf_mpi *outer);
/* Engine: s has an open batch; flush it at the end of the pass. */
void wf__mpi_mark_dirty(wf_mpi *m, wf__mpi_send *s);
/* Engine: post every open batch. */
void wf__mpi_flush_batches(wf_mpi *m);

#endif /* WF_INTERNAL_MPI_BATCH_H */
