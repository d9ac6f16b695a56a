/* SPDX-License-Identifier: Apache-2.0 */
/* The engine's sleep and its wake-up (src/mpi/wake.c, M1). */
#ifndef WF_INTERNAL_MPI_WAKE_H
#define WF_INTERNAL_MPI_WAKE_H

#include <stdbool.h>
#include <stdint.h>

#include "internal/mpi/context.h"

/* Work for the engine: wake the thread that sleeps with it.  Any thread. */
void wf__mpi_kick(wf_mpi *m);
/* A worker's send after the end of a computation: kick the engine out of
 * its long idle sleep, once.  Any thread. */
void wf__mpi_wake_if_quiet(wf_mpi *m);
/* The thread with the engine: sleep up to ns, or until kicked.  True if
 * kicked. */
bool wf__mpi_sleep(wf_mpi *m, int64_t ns);

#endif /* WF_INTERNAL_MPI_WAKE_H */
