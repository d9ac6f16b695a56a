/* What every part of the library uses: a broken invariant's report, the
 * pause of a spin, a spin-then-yield backoff.  Never installed. */
#ifndef WF_INTERNAL_UTIL_H
#define WF_INTERNAL_UTIL_H

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

/* Broken internal invariant: report where, then abort.  Never for bad
 * input, which gets an error code. */
#define WF_BUG(msg)                                                          \
    (fprintf(stderr, "weft: internal error at %s:%d: %s\n", __FILE__,        \
             __LINE__, (msg)),                                               \
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

/* An unsigned environment variable (src/pool/env.c): dflt when unset or
 * empty, and (with a warning on stderr, once) when it is not a decimal
 * number from 0 to max. */
unsigned wf__env_uint(const char *name, unsigned dflt, unsigned max);

#endif /* WF_INTERNAL_UTIL_H */
