/* SPDX-License-Identifier: Apache-2.0 */
/* The atomic steps of termination detection's counts (rule M3 of
 * docs/protocols.md): `n_sent` (S) and `n_received` (R) of wf_mpi
 * (internal/mpi/context.h), Mattern's four counters as
 * src/mpi/termination.c uses them.  On atomic.h alone, as
 * internal/mpi/wake_steps.h, so that weft-sim compiles them unchanged
 * (its scenarios `m3`, `m3-end`); counters.h counts with them,
 * termination.c reads with them.  Static inline: every counted message
 * runs one.  Never installed.
 *
 * What one rank owes the method.  Its argument (termination.c's header)
 * rests on R* <= S': the receipts counted by the first of the two rounds
 * (R*, summed over ranks) are at most the sends counted by the second
 * (S').  Taking MPI's messages and its collective as synchronisation (a
 * send happens before the receive it matches; every rank's contribution
 * to an allreduce happens before every rank's return from it), it holds
 * if each receipt r(m) that a round-k reading of R counts has its send
 * s(m) counted by the round-(k+1) reading of S on the sender's rank.  The
 * chain is
 *
 *   s(m), the count of S -> (program order, locks) the post of m -> (MPI)
 *   its receipt -> the count of R -rf-> the waiter's load of R -> (the
 *   collective) the sender's waiter's next load of S,
 *
 * a chain of happens-before only if the reads-from edge synchronises: the
 * increment of R a release, the round's load of R an acquire.  Then s(m)
 * happens before the load of S, which by write-read coherence reads s(m)
 * or a later count: S needs nothing but coherence, relaxed on both sides.
 * The same pair serves the local half of the argument: a receipt is
 * counted once the work it starts has started (or under a reservation of
 * the graph), so a round whose load of R counts it has the start of that
 * work happen before the next round's local wait, which then waits for
 * the work, the sends it makes included.  Nothing needs seq_cst: each
 * counter has one reader, the waiter, whose two loads are not ordered by
 * any argument (the method uses R of one round and S of the next, never
 * the two of one round), and the writers only add, so there is no
 * store-buffering or IRIW shape among them.  The increments of R are all
 * RMWs, so a load that reads the latest one synchronises with every
 * earlier one (each heads a release sequence that the later RMWs
 * continue, in C11 and C++20 alike). */
#ifndef WF_INTERNAL_MPI_COUNT_STEPS_H
#define WF_INTERNAL_MPI_COUNT_STEPS_H

#include <stdint.h>

#include "internal/atomic.h"

/* A message that can start work somewhere, counted as sent: before the
 * sender posts it.  Any thread. */
static inline void wf__mpi_count_sent_step(_Atomic uint64_t *n_sent)
{
    /* M3: relaxed: program order (and whatever hands the message to the
     * engine) puts it before the post, MPI before the receipt, and the
     * receipt's release count and the round's acquire load carry it on
     * to the next round's load of S (the chain above); it publishes
     * nothing itself. */
    wf_fetch_add_relaxed(n_sent, 1);
}

/* Such a message counted as received: once the work it starts has
 * started, or under a reservation of the graph.  The engine's thread. */
static inline void wf__mpi_count_received_step(_Atomic uint64_t *n_received)
{
    /* M3: release: a round whose acquire load reads it (or a later
     * count, through the release sequence of these RMWs) has the send it
     * answers, and the start of the work it starts, happen before its
     * next steps: the collective, on to every rank's next load of S, and
     * this rank's next local wait (the chain above; weft-sim `m3`,
     * `m3-end`). */
    wf_fetch_add_release(n_received, 1);
}

/* A round's reading (wf_mpi_graph_wait_all), the waiter's: S, then R. */
static inline void wf__mpi_counts_round(const _Atomic uint64_t *n_sent,
                                        const _Atomic uint64_t *n_received,
                                        uint64_t *sent, uint64_t *received)
{
    /* M3: relaxed: every send this round owes happens before this load,
     * which by coherence reads it: one whose receipt an earlier round
     * counted, on any rank (the chain above), or one made by work that
     * ended before this round's local wait (G5). */
    *sent = wf_load_relaxed(n_sent);
    /* M3: acquire: pairs with the receipts' release counts, so that the
     * sends they answer, and the work they started, happen before what
     * this round is followed by (the chain above). */
    *received = wf_load_acquire(n_received);
}

/* A look between rounds (termination.c's pause): has anything been sent
 * or received since the last look?  The waiter's. */
static inline uint64_t wf__mpi_count_peek(const _Atomic uint64_t *count)
{
    /* M3: relaxed: it only decides when the pause ends; the next round
     * reads the counts itself. */
    return wf_load_relaxed(count);
}

#endif /* WF_INTERNAL_MPI_COUNT_STEPS_H */
