/* SPDX-License-Identifier: Apache-2.0 */
/* The lock-free steps of a continue_node's rounds (rule G9 of
 * docs/protocols.md): a signal that counts and may start a runner, a
 * round counted due, a runner that takes a due round or goes idle.  On
 * atomic.h alone, as src/deque.c, so that weft-sim can compile them
 * unchanged; continue.c puts the spawns and the bodies around them.
 * Static inline: every signal runs them.  Never installed.
 *
 * Two words: `sig`, the signals of the round under way (low half) and
 * the idle runners, a bit each (high half); `due`, the rounds completed
 * while every runner was busy.  A runner is a task record that runs one
 * round at a time; "start runner i" is the caller's spawn of record i. */
#ifndef WF_GRAPH_CONT_COUNT_H
#define WF_GRAPH_CONT_COUNT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "internal/atomic.h"

#define WF__CONT_COUNT_MASK 0xffffffffu /* sig: the round's signals */
#define WF__CONT_IDLE_SHIFT 32          /* sig: idle runners above */
#define WF__CONT_NO_RUNNER (-1)
#define WF__CONT_OWN_ROUND (-2)

/* sig's bit for runner i. */
static inline uint64_t wf__cont_bit(unsigned i)
{
    return (uint64_t)1 << (WF__CONT_IDLE_SHIFT + i);
}

/* sig's bits for runners from .. to - 1 (to at most 32). */
static inline uint64_t wf__cont_bits(unsigned from, unsigned to)
{
    return (((uint64_t)1 << to) - ((uint64_t)1 << from)) << WF__CONT_IDLE_SHIFT;
}

/* The idle runners in s as a mask of indexes; none once the graph stops
 * (cancelled or destroyed), so that completed rounds stay due. */
static inline uint64_t wf__cont_idle(uint64_t s, bool stopped)
{
    return stopped ? 0 : s >> WF__CONT_IDLE_SHIFT;
}

/* How a completed round starts, as the caller's `start` answers it:
 * not now (the graph is stopped: cancelled or destroyed; the round stays
 * due), with an idle runner, or on the caller's own thread with none. */
enum wf__cont_start { WF__CONT_STOPPED, WF__CONT_RUNNER, WF__CONT_OWN };
/* ctx: what the caller passed along.  Asked only of a signal that
 * completes a round: the others need not load what it reads. */
typedef enum wf__cont_start (*wf__cont_start_fn)(void *ctx);

/* Count a signal of a round of `threshold` signals (below 2^32; 0 or 1:
 * every signal completes one).  Returns 0 while the round goes on; when
 * the signal completes it, the count restarts and, as start(ctx) says:
 * the caller runs the round itself, with no runner (WF__CONT_OWN_ROUND),
 * or the lowest idle runner is taken for it (its index + 1), or none
 * when stopped or none is idle: WF__CONT_NO_RUNNER (the caller makes the
 * round due: wf__cont_make_due). */
static inline int wf__cont_signal(_Atomic uint64_t *sig, size_t threshold,
                                  wf__cont_start_fn start, void *ctx)
{
    /* Relaxed first read: the CAS checks it. */
    uint64_t s = wf_load_relaxed(sig), ns, idle = 0;
    enum wf__cont_start how = WF__CONT_RUNNER;
    bool completes;
    do {
        completes = (s & WF__CONT_COUNT_MASK) + 1 >= threshold;
        if (!completes) {
            ns = s + 1;
        } else {
            how = start(ctx);
            idle = how == WF__CONT_RUNNER ? wf__cont_idle(s, false) : 0;
            /* The count restarts; the runner taken, if any, is busy. */
            ns = s & ~(uint64_t)WF__CONT_COUNT_MASK &
                 ~((idle & -idle) << WF__CONT_IDLE_SHIFT);
        }
        /* Acq_rel: the signal that completes a round acquires the earlier
         * signals' releases (their senders' bodies), through the chain of
         * RMWs on sig, and, when it takes a runner, that runner's last
         * release (wf__cont_set_idle); it hands them to the body through
         * its spawn, through due (G9), or runs the body itself (own). */
    } while (!wf_cas_acqrel(sig, &s, ns));
    if (!completes)
        return 0;
    if (how == WF__CONT_OWN)
        return WF__CONT_OWN_ROUND;
    return idle ? __builtin_ctzll(idle) + 1 : WF__CONT_NO_RUNNER;
}

/* Take one due round: true if there was one. */
static inline bool wf__cont_take_due(_Atomic size_t *due)
{
    /* Relaxed first read: the CAS checks it. */
    size_t d = wf_load_relaxed(due);
    /* Acq_rel: taking a round acquires the release of the increment
     * that made it due, which carries the round's signals (G9). */
    while (d > 0 && !wf_cas_acqrel(due, &d, d - 1))
        continue;
    return d > 0;
}

/* Put runners back in the idle set (bits: wf__cont_bit's). */
static inline void wf__cont_set_idle(_Atomic uint64_t *sig, uint64_t bits)
{
    uint64_t s = wf_load_relaxed(sig); /* the CAS checks it */
    /* Seq_cst: one side of the store-buffering pair of G9 with
     * wf__cont_make_due (see wf__cont_any_due); the release hands the
     * runner's last body to whoever takes it next. */
    while (!wf_cas_seqcst(sig, &s, s | bits))
        continue;
}

/* A round completed with no runner idle: count it due.  Seq_cst: the
 * other side of G9's pair; the release carries the round's signals to
 * wf__cont_take_due's acquire. */
static inline void wf__cont_make_due(_Atomic size_t *due)
{
    wf_fetch_add_seqcst(due, 1);
}

/* Is a round due?  Asked after each step of the pair: a thread that made
 * a runner idle (wf__cont_set_idle) and one that made a round due
 * (wf__cont_make_due) each load the other's word afterwards, all four
 * seq_cst, so at least one sees the other's step and pairs them
 * (wf__cont_start_due): no round stays due with every runner idle (G9). */
static inline bool wf__cont_any_due(_Atomic size_t *due)
{
    return wf_load_seqcst(due) > 0;
}

/* Pair a due round with an idle runner: the runner's index, taken with
 * the round, or WF__CONT_NO_RUNNER when no round is due or no runner is
 * idle.  A runner taken for a round that another thread took meanwhile
 * is made idle again, and the pair looked for again. */
static inline int wf__cont_start_due(_Atomic uint64_t *sig, _Atomic size_t *due,
                                     bool stopped)
{
    while (wf__cont_any_due(due)) {
        /* Seq_cst: G9's pair (wf__cont_any_due). */
        uint64_t s = wf_load_seqcst(sig), idle, bit;
        do {
            if ((idle = wf__cont_idle(s, stopped)) == 0)
                return WF__CONT_NO_RUNNER; /* a busy runner will look */
            bit = (idle & -idle) << WF__CONT_IDLE_SHIFT;
            /* Acq_rel: taking a runner acquires its last body's end
             * (wf__cont_set_idle's release; G9).  The seq_cst load
             * above does not suffice: after a failed CAS (or on an ABA
             * of sig) this one may take a runner made idle after it. */
        } while (!wf_cas_acqrel(sig, &s, s & ~bit));
        if (wf__cont_take_due(due))
            return __builtin_ctzll(idle);
        wf__cont_set_idle(sig, bit); /* the round went to another */
    }
    return WF__CONT_NO_RUNNER;
}

#endif /* WF_GRAPH_CONT_COUNT_H */
