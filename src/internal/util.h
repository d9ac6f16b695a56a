/* SPDX-License-Identifier: Apache-2.0 */
/* What every part of the library uses: a broken invariant's report, the
 * pause of a spin, a spin-then-yield backoff.  Never installed. */
#ifndef WF_INTERNAL_UTIL_H
#define WF_INTERNAL_UTIL_H

#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* Broken internal invariant: report where, then abort.  Never for bad
 * input, which gets an error code. */
#define WF_BUG(msg)                                                            \
    (fprintf(stderr, "weft: internal error at %s:%d: %s\n", __FILE__,          \
             __LINE__, (msg)),                                                 \
     abort())

/* One spin-wait step: tells the core (and a sibling hyperthread) that
 * this thread only waits. */
static inline void wf__cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

static inline uint64_t wf__now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The one policy for a wait that may last (a worker with no work, a
 * join, a thread waiting on a pool): spin, then yield, then park.  The
 * spin is bounded by rounds (the pool's spin setting) and by time: a
 * round may poll every worker, so with a thousand of them a few hundred
 * rounds would take seconds of CPU.  The yields let a preempted thread
 * that the waiter waits for run, on a machine with more threads than
 * cores.  The caller parks its own way when a step says so. */
#define WF__SPIN_MAX_NS 100000u /* the longest spin before yielding */
#define WF__YIELDS 32u          /* sched_yields between spin and park */

typedef struct wf__idle {
    unsigned round, spin, yields;
    uint64_t start; /* when the spin began */
} wf__idle;

/* A wait of up to `spin` rounds of spinning and `yields` yields. */
static inline void wf__idle_init(wf__idle *s, unsigned spin, unsigned yields)
{
    s->round = 0;
    s->spin = spin;
    s->yields = yields;
    s->start = 0;
}

/* One step of waiting: a pause while spinning, then a yield; false, and
 * nothing done, once it is time to park (the caller parks, or gives up,
 * and starts over with round = 0).  The clock is read every 16th round. */
static inline bool wf__idle_step(wf__idle *s)
{
    unsigned r = ++s->round;
    if (r <= s->spin) {
        if (r == 1)
            s->start = wf__now_ns();
        else if ((r & 15) == 0 && wf__now_ns() - s->start > WF__SPIN_MAX_NS)
            s->round = s->spin; /* on to the yields */
        wf__cpu_relax();
        return true;
    }
    if (r <= s->spin + s->yields) {
        sched_yield();
        return true;
    }
    return false;
}

#define WF__BACKOFF_SPINS 64 /* pauses before a backoff starts yielding */

/* For a wait that is short and bounded (another thread finishing a few
 * instructions): spin, then yield, so that a waiter never starves the
 * thread it waits for when there are more threads than cores.  Waits that
 * may be long park instead (park.c). */
static inline void wf__backoff(unsigned *round)
{
    if (*round < WF__BACKOFF_SPINS) {
        wf__cpu_relax();
        (*round)++;
    } else {
        sched_yield();
    }
}

#endif /* WF_INTERNAL_UTIL_H */
