/* SPDX-License-Identifier: Apache-2.0 */
/* The lock-free steps of the pool's spare workers (rule P12 of
 * docs/protocols.md): the counts of blocked workers and of spares
 * running, as wf_blocking_begin, wf_blocking_end, start_spare and a
 * spare's retirement change and test them.  On atomic.h alone, as
 * src/deque.c, so that weft-sim compiles them unchanged
 * (tools/weft-sim/algos/spares.c); blocking.c and worker.c put
 * spare_lock, the threads and the wake-up around them.  Never
 * installed. */
#ifndef WF_INTERNAL_POOL_SPARES_H
#define WF_INTERNAL_POOL_SPARES_H

#include <stdbool.h>

#include "internal/atomic.h"

/* Spares running minus workers blocked: the pool runs its size plus this
 * many threads.  Relaxed: an estimate (park.h's wf__running). */
static inline int wf__spares_excess(_Atomic int *blocked, _Atomic int *spares)
{
    int s = wf_load_relaxed(spares);
    return s - wf_load_relaxed(blocked);
}

/* wf_blocking_begin: one more worker blocked; true when fewer threads
 * than the pool's size run now (fewer spares than workers blocked, the
 * count taken just after our own), and a spare is needed.
 *
 * The increment and the load of spares_running are one half of a
 * store-buffering pair; wf__spares_retire's CAS and its second load of
 * blocked are the other (P12).  All four seq_cst: in the single order of
 * seq_cst operations either this load comes after a retiring spare's
 * CAS, and sees one spare fewer (we start one), or the spare's load of
 * blocked comes after our increment, and it stays; possibly both (one
 * spare too many, which retires when idle).  Weaker, both may miss: the
 * spare leaves, we start none, and fewer threads than the pool's size
 * run while we are blocked. */
static inline bool wf__spares_block(_Atomic int *blocked, _Atomic int *spares)
{
    int b = wf_fetch_add_seqcst(blocked, 1) + 1;
    return wf_load_seqcst(spares) < b;
}

/* wf_blocking_end: one worker fewer blocked; true when more threads than
 * the pool's size run now, and surplus spares may retire (the caller
 * then wakes every parked worker).
 *
 * Relaxed, the decrement and the load: no half of the store-buffering
 * pair (P12).  A retiring spare that misses the decrement reads one
 * worker more blocked and stays: a spare too many.  If it parks, the
 * wake-up that follows (wf__ec_wake_all's release increment of the
 * epoch, after this decrement) carries the decrement to it: a parker
 * that reads the new epoch reads, after its fence, the new count, finds
 * itself surplus and retires (park.c, P3); one that reads the old epoch
 * does not sleep through the wake-up.  A blocker's increment reads the
 * count through the RMWs' one order, whatever their orders, and nothing
 * else is published through it. */
static inline bool wf__spares_unblock(_Atomic int *blocked, _Atomic int *spares)
{
    int b = wf_fetch_add_relaxed(blocked, -1) - 1;
    return wf_load_relaxed(spares) > b;
}

/* start_spare, under spare_lock: a spare counted before its thread
 * starts (d = 1), or taken back when it could not start (d = -1).
 * Relaxed: no half of the store-buffering pair (P12).  A blocker's
 * seq_cst load that comes after a retiring spare's CAS in the seq_cst
 * order reads that CAS or a count after it (C++20's rule for seq_cst
 * reads, RC11's psc), whatever order these increments have.  Nothing is
 * published through the count: the new spare's thread reads it after
 * pthread_create, which orders the increment, and its slot is ordered
 * by spare_lock and the join. */
static inline void wf__spares_add(_Atomic int *spares, int d)
{
    wf_fetch_add_relaxed(spares, d);
}

/* A spare that is idle: true when it is no longer needed and has taken
 * itself off spares_running, and must leave.  It leaves only by winning
 * a CAS, so two idle spares cannot both leave when one is still needed
 * (P12).  The test before the CAS is only a hint (relaxed): a worker may
 * block between it and the CAS, its own test reading spares_running
 * before the CAS.  So after the CAS the spare looks at blocked again,
 * seq_cst (see wf__spares_block), and, needed after all, counts itself
 * back and stays. */
static inline bool wf__spares_retire(_Atomic int *blocked, _Atomic int *spares)
{
    int s = wf_load_relaxed(spares);
    do {
        if (s <= wf_load_relaxed(blocked))
            return false; /* still needed */
        /* Seq_cst: the store-buffering pair with wf__spares_block (P12). */
    } while (!wf_cas_seqcst(spares, &s, s - 1));
    /* Seq_cst: the pair's load (P12).  Spares_running relaxed: it reads
     * our CAS or a later count, and the spare whose CAS comes last reads
     * the others' (coherence of the RMWs' one order). */
    int b = wf_load_seqcst(blocked);
    if (wf_load_relaxed(spares) >= b)
        return true;
    /* Relaxed: a blocker that read the count without us started a spare
     * (one too many, which retires when idle); other spares' CASes read
     * it through the RMWs' one order; nothing is published by it. */
    wf_fetch_add_relaxed(spares, 1);
    return false;
}

#endif /* WF_INTERNAL_POOL_SPARES_H */
