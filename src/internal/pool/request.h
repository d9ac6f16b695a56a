/* SPDX-License-Identifier: Apache-2.0 */
/* The lock-free steps of a request to publish (rules P2 and P9 of
 * docs/protocols.md) on a worker's two request words: `limit`, the
 * untyped spawn's, and `tlimit`, the typed spawn's.  A thief stores NULL
 * in each (wf__ask_for_work); the owner takes a request by an exchange
 * of each (wf__take_request) and points tlimit at a new segment's end
 * without losing one (wf__request_set_tlimit, from typed.c).  On atomic.h alone, as
 * src/deque.c, so that weft-sim compiles them unchanged
 * (tools/weft-sim/algos/frames.c); stack.c and typed.c call them.  Every
 * step is relaxed: an exchange reads the last value of its word whatever
 * its order, which is all that "never lost" needs, and a request carries
 * no data (what answers it is published by the deque's release, D1).
 * Never installed. */
#ifndef WF_INTERNAL_POOL_REQUEST_H
#define WF_INTERNAL_POOL_REQUEST_H

#include <stdbool.h>
#include <stddef.h>

#include "internal/atomic.h"

struct wf_task;
struct wf__tslot;

/* A thief's request on one word.  Read before writing, so that idle
 * thieves do not bounce the line. */
static inline void wf__request_ask_limit(_Atomic(struct wf_task **) *limit)
{
    if (wf_load_relaxed(limit) != NULL)
        wf_store_relaxed(limit, NULL);
}

static inline void wf__request_ask_tlimit(_Atomic(struct wf__tslot *) *tlimit)
{
    if (wf_load_relaxed(tlimit) != NULL) /* typed spawns' word (P9) */
        wf_store_relaxed(tlimit, NULL);
}

/* Has a thief asked, on either word?  The typed spawn's slow path reads
 * both before it takes a request, so that no request costs no RMW. */
static inline bool wf__request_seen(_Atomic(struct wf_task **) *limit,
                                    _Atomic(struct wf__tslot *) *tlimit)
{
    return wf_load_relaxed(tlimit) == NULL || wf_load_relaxed(limit) == NULL;
}

/* The owner puts a word back (limit to the stack's end, tlimit to the
 * segment's stop): true when it held a request.  A NULL stored before
 * the exchange is read by it, one stored after it stays for the next
 * spawn: never lost (P2, P9). */
static inline bool wf__request_take_limit(_Atomic(struct wf_task **) *limit,
                                          struct wf_task **end)
{
    return wf_exchange_relaxed(limit, end) == NULL;
}

static inline bool wf__request_take_tlimit(_Atomic(struct wf__tslot *) *tlimit,
                                           struct wf__tslot *stop)
{
    return wf_exchange_relaxed(tlimit, stop) == NULL;
}

/* Point tlimit at stop, a new segment's, keeping a request: a NULL the
 * exchange reads is put back (P9). */
static inline void wf__request_set_tlimit(_Atomic(struct wf__tslot *) *tlimit,
                                          struct wf__tslot *stop)
{
    if (wf_exchange_relaxed(tlimit, stop) == NULL)
        wf_store_relaxed(tlimit, NULL);
}

#endif /* WF_INTERNAL_POOL_REQUEST_H */
