/* SPDX-License-Identifier: Apache-2.0 */
/* Event counts on futexes: the sleep and wake protocol of the pool's idle
 * workers and waiters (internal/pool/evcount.h).  Every shared access goes
 * through atomic.h, and this file depends on nothing else, as
 * src/deque.c does, so a model checker can compile it unchanged.  Rule
 * numbers (P3, P8, P11) refer to docs/protocols.md. */
#include <limits.h>
#include <time.h>

#include "internal/pool/evcount.h"

/* The two futex operations (Linux futex(2)), the only system calls here.
 * Under WF_SIM they are events of weft-sim instead (internal/sim_hook.h),
 * which orders the operations on one word as the kernel does and tells a
 * wait that sleeps for good (docs/weft-sim.md). */
#ifdef WF_SIM
static void futex_wait(_Atomic uint32_t *addr, uint32_t val,
                       const struct timespec *timeout)
{
    wf__sim_futex_wait(addr, val, timeout != NULL, WF__SIM_SITE("futex"));
}

static void futex_wake(_Atomic uint32_t *addr, int n)
{
    wf__sim_futex_wake(addr, n, WF__SIM_SITE("futex"));
}
#else
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Returns at once if *addr != val, else when woken or after timeout (NULL:
 * none); spurious returns are fine, every caller loops. */
static void futex_wait(_Atomic uint32_t *addr, uint32_t val,
                       const struct timespec *timeout)
{
    syscall(SYS_futex, (uint32_t *)addr, FUTEX_WAIT_PRIVATE, val, timeout, NULL,
            0);
}

static void futex_wake(_Atomic uint32_t *addr, int n)
{
    syscall(SYS_futex, (uint32_t *)addr, FUTEX_WAKE_PRIVATE, n, NULL, NULL, 0);
}
#endif

void wf__futex_wait(_Atomic uint32_t *addr, uint32_t val)
{
    futex_wait(addr, val, NULL);
}

void wf__futex_wait_ns(_Atomic uint32_t *addr, uint32_t val, uint64_t ns)
{
    struct timespec ts = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};
    futex_wait(addr, val, &ts);
}

void wf__futex_wake(_Atomic uint32_t *addr, int n)
{
    futex_wake(addr, n);
}

/* Every parked waiter looks again.  Called only after a seq_cst fence
 * (wf__ec_wake_sleeper, wf__ec_wake_waiters), which orders what was done
 * before (the work, the condition) ahead of the increment: relaxed.  A
 * waiter that read the new epoch before its own fence then sees it too
 * (fence to fence through that read; P8). */
static void wake_waiters_now(wf__evcount *ec)
{
    wf_fetch_add_relaxed(&ec->waiter_epoch, 1);
    wf__futex_wake(&ec->waiter_epoch, INT_MAX);
}

bool wf__ec_wake_sleeper(wf__evcount *ec)
{
    /* P3: StoreLoad.  Pairs with the fence in wf__ec_sleep_begin (and in
     * wf__ec_wait_begin): either that sleeper's rescan sees the work made
     * visible before this fence, or this load sees its increment.
     * Relaxed loads: the fence orders them. */
    wf_fence_seqcst();
    if (wf_load_relaxed(&ec->sleepers) == 0) {
        if (wf_load_relaxed(&ec->waiters) != 0)
            wake_waiters_now(ec);
        return false;
    }
    /* Relaxed: the fence above orders the work before the increment, and
     * a sleeper that read the new epoch before its fence is ordered after
     * ours through that read (P3). */
    wf_fetch_add_relaxed(&ec->epoch, 1);
    wf__futex_wake(&ec->epoch, 1);
    return true;
}

void wf__ec_wake_waiters(wf__evcount *ec)
{
    /* P8: StoreLoad, as in wf__ec_wake_sleeper: either the waiter's check
     * after its fence sees the condition made true before this fence, or
     * this relaxed load (ordered by the fence) sees its increment. */
    wf_fence_seqcst();
    if (wf_load_relaxed(&ec->waiters) != 0)
        wake_waiters_now(ec);
}

void wf__ec_wake_all(wf__evcount *ec)
{
    /* Release: no fence before it here, so the increment itself publishes
     * what was written before (shutdown, a blocked count) to a sleeper
     * that sees the new epoch (P3, P11): relaxed, a parker may read the
     * new epoch but not shutdown and sleep on it after the wake. */
    wf_fetch_add_release(&ec->epoch, 1);
    wf__futex_wake(&ec->epoch, INT_MAX);
}

uint32_t wf__ec_sleep_begin(wf__evcount *ec)
{
    /* Relaxed, both: the fence below orders them.  It is also the acquire
     * side of a waker's release (a fence before its increment, or
     * wf__ec_wake_all's release increment) whenever this load read that
     * increment (what wf__park's relaxed test of shutdown relies on,
     * P11); and a waker's fence that comes after ours in the seq_cst
     * order sees the count (P3). */
    uint32_t epoch = wf_load_relaxed(&ec->epoch);
    wf_fetch_add_relaxed(&ec->sleepers, 1);
    /* P3: pairs with the fence in wf__ec_wake_sleeper (see there). */
    wf_fence_seqcst();
    return epoch;
}

void wf__ec_sleep_end(wf__evcount *ec)
{
    /* Relaxed: only a hint for wakers (P3); a stale count costs a wake. */
    wf_fetch_add_relaxed(&ec->sleepers, -1);
}

uint32_t wf__ec_wait_begin(wf__evcount *ec)
{
    /* Relaxed, both, as in wf__ec_sleep_begin: the fence below orders
     * them (P8). */
    uint32_t epoch = wf_load_relaxed(&ec->waiter_epoch);
    wf_fetch_add_relaxed(&ec->waiters, 1);
    /* P8: pairs with the fences in wf__ec_wake_sleeper and
     * wf__ec_wake_waiters. */
    wf_fence_seqcst();
    return epoch;
}

void wf__ec_wait_end(wf__evcount *ec)
{
    /* Relaxed: only a hint for wakers (P8). */
    wf_fetch_add_relaxed(&ec->waiters, -1);
}

uint32_t wf__ec_epoch(wf__evcount *ec)
{
    /* Acquire pairs with the release increment in wf__ec_wake_all: if a
     * store made before it (shutdown) is missed after this load, epoch
     * has moved since, and a sleep on this value returns at once; it
     * also orders wf__nap's relaxed test of shutdown (P3, P11). */
    return wf_load_acquire(&ec->epoch);
}
