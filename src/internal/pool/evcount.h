/* SPDX-License-Identifier: Apache-2.0 */
/* Event counts: sleeping on a futex without losing a wake-up, and waking
 * (ck's ck_ec is the model; rules P3 and P8 of docs/protocols.md argue
 * the orders).  A sleeper reads the epoch, announces itself, fences, then
 * checks its condition once more and sleeps on the epoch it read; a waker
 * makes its change, fences, and bumps the epoch only when someone
 * announced itself.  The pool keeps two: one for idle workers, one for
 * waiters (threads that wait for a condition and help meanwhile, P8).
 *
 * This header and src/pool/evcount.c depend on internal/atomic.h alone,
 * as src/deque.c does, so that a model checker can compile them
 * unchanged.  Never installed. */
#ifndef WF_INTERNAL_POOL_EVCOUNT_H
#define WF_INTERNAL_POOL_EVCOUNT_H

#include <stdbool.h>
#include <stdint.h>

#include "internal/atomic.h"

/* The pool's two event counts, on one line: a waker reads both counts
 * after one fence. */
typedef struct wf__evcount {
    _Atomic int sleepers;          /* idle workers announced (P3)       */
    _Atomic uint32_t epoch;        /* what they sleep on                */
    _Atomic int waiters;           /* waiters announced (P8)            */
    _Atomic uint32_t waiter_epoch; /* what they sleep on                */
} wf__evcount;

/* Sleep while *addr == val: returns at once if it differs, else when
 * woken (or after about ns nanoseconds, for the timed one); spurious
 * returns are fine, every caller loops. */
void wf__futex_wait(_Atomic uint32_t *addr, uint32_t val);
void wf__futex_wait_ns(_Atomic uint32_t *addr, uint32_t val, uint64_t ns);
/* Wake up to n threads sleeping on addr. */
void wf__futex_wake(_Atomic uint32_t *addr, int n);

/* ---- the waker's side ---------------------------------------------------- */

/* After making work visible: wake one sleeper if one announced itself,
 * and say so; when none did, wake the waiters if any announced
 * themselves (the work may be theirs to do, P8). */
bool wf__ec_wake_sleeper(wf__evcount *ec);
/* After making a waiter's condition true: wake the waiters if any
 * announced themselves (P8). */
void wf__ec_wake_waiters(wf__evcount *ec);
/* Wake every sleeper, announced or not (shutdown, a spare made surplus). */
void wf__ec_wake_all(wf__evcount *ec);

/* ---- the sleeper's side -------------------------------------------------- */

/* Announce an idle worker (P3): returns the epoch to sleep on.  The
 * caller then checks for work and, finding none, sleeps on ec->epoch
 * with that value; then calls wf__ec_sleep_end either way. */
uint32_t wf__ec_sleep_begin(wf__evcount *ec);
void wf__ec_sleep_end(wf__evcount *ec);
/* The same for a waiter, on waiter_epoch (P8). */
uint32_t wf__ec_wait_begin(wf__evcount *ec);
void wf__ec_wait_end(wf__evcount *ec);
/* The epoch, for a sleep that announces nothing (a nap, P3): a wake-up
 * that bumps it after this read ends the sleep. */
uint32_t wf__ec_epoch(wf__evcount *ec);

#endif /* WF_INTERNAL_POOL_EVCOUNT_H */
