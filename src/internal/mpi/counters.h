/* SPDX-License-Identifier: Apache-2.0 */
/* The counts of termination detection (M3: wf_mpi_graph_wait_all reads
 * them) and the statistics (M6: wf_mpi_get_stats reads them). */
#ifndef WF_INTERNAL_MPI_COUNTERS_H
#define WF_INTERNAL_MPI_COUNTERS_H

#include "internal/mpi/context.h"

/* A message that can start work somewhere (data, a credit, a hello), sent:
 * counted before it can arrive anywhere (termination.c). */
static inline void wf__mpi_count_sent(wf_mpi *m)
{
    /* M3: seq_cst, as the count it is compared with. */
    wf_fetch_add_seqcst(&m->n_sent, 1);
}

/* Such a message received: counted once the work it starts has started,
 * or under a reservation of the graph (termination.c). */
static inline void wf__mpi_count_received(wf_mpi *m)
{
    /* M3: seq_cst, ordered with the other counter, read by wait_all. */
    wf_fetch_add_seqcst(&m->n_received, 1);
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
