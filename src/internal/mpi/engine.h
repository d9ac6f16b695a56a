/* SPDX-License-Identifier: Apache-2.0 */
/* The progress engine (src/mpi/engine.c). */
#ifndef WF_INTERNAL_MPI_ENGINE_H
#define WF_INTERNAL_MPI_ENGINE_H

#include <stdbool.h>
#include <stdint.h>

#include "internal/mpi/context.h"

/* One pass, under engine_mu; true if anything happened. */
bool wf__mpi_engine_step(wf_mpi *m);
/* After a pass that found nothing: poll again, or sleep a little longer
 * than last time (the caller's backoff state; wake_at: a deadline, or 0). */
void wf__mpi_engine_wait(wf_mpi *m, int64_t *idle_since, int64_t *delay,
                         int64_t wake_at);
/* The progress thread (not FUNNELED); WF_EAGAIN. */
int wf__mpi_engine_start(wf_mpi *m);
void wf__mpi_engine_stop(wf_mpi *m);

#endif /* WF_INTERNAL_MPI_ENGINE_H */
