/* SPDX-License-Identifier: Apache-2.0 */
/* The counts of termination detection (M3: wf_mpi_graph_wait_all reads
 * them) and the statistics (M6: wf_mpi_get_stats reads them). */
#ifndef WF_INTERNAL_MPI_COUNTERS_H
#define WF_INTERNAL_MPI_COUNTERS_H

#include "internal/mpi/context.h"
#include "internal/mpi/count_steps.h"

/* A message that can start work somewhere (data, a credit, a hello), sent:
 * counted before it can arrive anywhere (termination.c). */
static inline void wf__mpi_count_sent(wf_mpi *m)
{
    wf__mpi_count_sent_step(&m->n_sent); /* M3: relaxed (count_steps.h) */
}

/* Such a message received: counted once the work it starts has started,
 * or under a reservation of the graph (termination.c). */
static inline void wf__mpi_count_received(wf_mpi *m)
{
    /* M3: release, paired with the round's acquire load (count_steps.h). */
    wf__mpi_count_received_step(&m->n_received);
}

/* Raise a high-water mark. */
static inline void wf__mpi_stat_max(_Atomic uint64_t *stat, uint64_t v)
{
    /* M6: relaxed, a statistic, read by nobody who acts on it. */
    uint64_t old = wf_load_relaxed(stat);
    while (v > old && !wf_cas_relaxed(stat, &old, v)) {
    }
}

#endif /* WF_INTERNAL_MPI_COUNTERS_H */
