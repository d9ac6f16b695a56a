/* SPDX-License-Identifier: Apache-2.0 */
/* The lock-free step of a continue_node's rounds (rule G9 of
 * docs/protocols.md): a signal that counts, and may complete, the round
 * under way.  On atomic.h alone, as src/deque.c, so that weft-sim can
 * compile it unchanged; continue.c puts the rounds' tasks and bodies
 * around it.  Static inline: every signal runs it.  Never installed. */
#ifndef WF_GRAPH_CONT_COUNT_H
#define WF_GRAPH_CONT_COUNT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "internal/atomic.h"

/* sig: the signals of the round under way in its low half; above them,
 * the completed rounds that did not run (wf__cont_drop). */
#define WF__CONT_COUNT_MASK 0xffffffffu
#define WF__CONT_DROPPED_SHIFT 32

/* Count a signal of a round of `threshold` signals (below 2^32; 0 or 1:
 * every signal completes one) in *sig.  True when this signal completes
 * the round: the count restarts at 0, and the caller runs the round's
 * body or gives it a task. */
static inline bool wf__cont_signal(_Atomic uint64_t *sig, size_t threshold)
{
    /* Relaxed first read: the CAS checks it. */
    uint64_t s = wf_load_relaxed(sig), count;
    bool completes;
    do {
        count = s & WF__CONT_COUNT_MASK;
        completes = count + 1 >= threshold;
        /* Acq_rel: each signal releases its sender's body, and the one
         * that completes a round acquires the earlier signals' releases
         * through the chain of RMWs on sig, then hands them to the body
         * through its task's spawn, or runs the body itself (G9). */
    } while (!wf_cas_acqrel(sig, &s, completes ? s - count : s + 1));
    return completes;
}

/* Count a completed round that will not run (the graph is stopped, or no
 * task could be had for it).  Relaxed: a count that a node's held() reads
 * of an idle graph; as an RMW it keeps the signals' chain of releases
 * unbroken (a release sequence). */
static inline void wf__cont_drop(_Atomic uint64_t *sig)
{
    wf_fetch_add_relaxed(sig, (uint64_t)1 << WF__CONT_DROPPED_SHIFT);
}

/* The rounds dropped, as wf__cont_drop counted them. */
static inline size_t wf__cont_dropped(uint64_t sig)
{
    return (size_t)(sig >> WF__CONT_DROPPED_SHIFT);
}

#endif /* WF_GRAPH_CONT_COUNT_H */
