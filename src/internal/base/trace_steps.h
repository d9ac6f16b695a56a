/* SPDX-License-Identifier: Apache-2.0 */
/* The lock-free steps of the trace (rules B1 and B2 of
 * docs/protocols.md): a recorder's entry and exit around its writes to
 * its own buffer, and the stop's and the start's turns of the switch.  On
 * atomic.h alone, as src/deque.c, so that weft-sim can compile them
 * unchanged; src/base/trace.c puts the buffers, the spin and the file
 * around them.  Never installed.
 *
 * Two words: `tracing`, the global switch (1 while a session records),
 * and each buffer's `busy` (1 while its owner is inside a recording).
 * B1 is a store-buffering (Dekker) pair: a recorder stores busy, fences
 * and loads the switch; the stop stores the switch, fences and loads
 * busy.  Of the two loads one at least sees the other side's store:
 * either the recorder sees the switch off and writes nothing, or the stop
 * sees busy and waits until the recorder leaves, its writes complete. */
#ifndef WF_BASE_TRACE_STEPS_H
#define WF_BASE_TRACE_STEPS_H

#include <stdbool.h>

#include "internal/atomic.h"

/* A recorder enters its buffer: true if it may record (the switch is
 * on), in which case it writes its buffer and then calls
 * wf__trace_leave; it calls wf__trace_leave either way. */
static inline bool wf__trace_enter(_Atomic int *busy, _Atomic int *tracing)
{
    /* Relaxed: the fence below orders it before the load (B1). */
    wf_store_relaxed(busy, 1);
    /* B1: pairs with the fence of wf__trace_switch_off; without it the
     * load of the switch may pass the store of busy (StoreLoad), and the
     * stop read a buffer while this recorder writes it. */
    wf_fence_seqcst();
    /* Acquire (B2): a switch turned on by wf__trace_switch_on brings the
     * session's time origin and the buffers the last stop emptied. */
    return wf_load_acquire(tracing) != 0;
}

/* The recorder leaves its buffer. */
static inline void wf__trace_leave(_Atomic int *busy)
{
    /* Release (B1): pairs with the acquire load of wf__trace_busy, so
     * that the stop that sees busy 0 sees the events written before. */
    wf_store_release(busy, 0);
}

/* The stop turns the switch off; then it waits until no buffer is busy
 * (wf__trace_busy) before it reads them. */
static inline void wf__trace_switch_off(_Atomic int *tracing)
{
    /* Relaxed: the fence below orders it before the loads of busy (B1). */
    wf_store_relaxed(tracing, 0);
    /* B1: pairs with the fence of wf__trace_enter; without it the loads
     * of busy may pass the store of the switch (StoreLoad), and a
     * recorder that read the switch on be missed. */
    wf_fence_seqcst();
}

/* After wf__trace_switch_off: is a recorder inside this buffer?  Once it
 * returns false, the buffer is the caller's until the next start. */
static inline bool wf__trace_busy(_Atomic int *busy)
{
    /* Acquire (B1): pairs with the release store of wf__trace_leave: the
     * recorder's events are complete before the stop reads them. */
    return wf_load_acquire(busy) != 0;
}

/* The start turns the switch on, after it wrote the session's time
 * origin (the last stop emptied the buffers before). */
static inline void wf__trace_switch_on(_Atomic int *tracing)
{
    /* Release (B2): pairs with the acquire load of wf__trace_enter: a
     * recorder that sees the switch on sees the time origin and the
     * emptied buffers. */
    wf_store_release(tracing, 1);
}

#endif /* WF_BASE_TRACE_STEPS_H */
