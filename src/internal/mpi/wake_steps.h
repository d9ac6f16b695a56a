/* SPDX-License-Identifier: Apache-2.0 */
/* The atomic steps of the engine's sleep and its kick (rule M1 of
 * docs/protocols.md): the sleeper's count in `sleeping` and the kicks in
 * `kicked`, the two words of wf_mpi (internal/mpi/context.h) that the
 * handshake shares.  On atomic.h alone, as internal/graph/cont_count.h,
 * so that weft-sim compiles them unchanged (its scenarios `m1`, `m1-two`,
 * `m1-timeout`); src/mpi/wake.c puts wake_mu and wake_cv around them.
 * Static inline: every sleep and every kick runs them.  Never installed.
 *
 * The pair is a store-buffering (Dekker) shape: the sleeper writes
 * `sleeping`, then reads `kicked`; the kicker writes `kicked`, then reads
 * `sleeping`.  These four are seq_cst, so in the single order of seq_cst
 * operations one side's write comes first and the other side's read sees
 * it: the kicker broadcasts, or the sleeper takes the kick and does not
 * wait. */
#ifndef WF_INTERNAL_MPI_WAKE_STEPS_H
#define WF_INTERNAL_MPI_WAKE_STEPS_H

#include <stdbool.h>

#include "internal/atomic.h"

/* The sleeper's first steps, under wake_mu: count itself as sleeping,
 * then take the pending kick.  True: a kick was there (do not wait). */
static inline bool wf__mpi_sleep_begin(_Atomic int *sleeping,
                                       _Atomic int *kicked)
{
    /* M1: seq_cst: the sleeper's write of the store-buffering pair; a
     * kicker whose store the exchange below misses loads `sleeping`
     * after this increment in the seq_cst order, and broadcasts. */
    wf_fetch_add_seqcst(sleeping, 1);
    /* M1: seq_cst: the sleeper's read of the pair, after its increment
     * in the seq_cst order; its acquire also hands the engine what the
     * kicker wrote before its kick. */
    return wf_exchange_seqcst(kicked, 0) != 0;
}

/* After the wait, still under wake_mu: take a kick that came during it.
 * True: one did. */
static inline bool wf__mpi_sleep_recheck(_Atomic int *kicked)
{
    /* M1: acq_rel: no wait follows it, so it is no half of the pair and
     * needs no seq_cst; its acquire hands the engine what the kicker
     * wrote before its kick (the stop, M7) when the wait timed out as
     * the kick came. */
    return wf_exchange_acqrel(kicked, 0) != 0;
}

/* The sleeper's last step, under wake_mu: it no longer sleeps. */
static inline void wf__mpi_sleep_end(_Atomic int *sleeping)
{
    /* M1: relaxed: after it a kicker may skip the broadcast, as nobody
     * sleeps; its kick stays in `kicked`.  A kicker whose seq_cst load
     * reads this decrement (or an earlier value) comes before the next
     * sleep's seq_cst increment in the seq_cst order, so that sleep's
     * exchange takes the kick; nothing is published through it. */
    wf_fetch_add_relaxed(sleeping, -1);
}

/* A kick: leave work for the engine, then say whether it may sleep (the
 * caller then broadcasts wake_cv under wake_mu).  Any thread. */
static inline bool wf__mpi_kick_needs_wake(_Atomic int *kicked,
                                           _Atomic int *sleeping)
{
    /* M1: seq_cst: the kicker's write of the store-buffering pair with
     * wf__mpi_sleep_begin; a sleeper whose increment the load below
     * misses exchanges `kicked` after this store, and takes the kick. */
    wf_store_seqcst(kicked, 1);
    /* M1: seq_cst: the kicker's read of the pair, after its store in the
     * seq_cst order. */
    return wf_load_seqcst(sleeping) != 0;
}

#endif /* WF_INTERNAL_MPI_WAKE_STEPS_H */
