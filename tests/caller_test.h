/* SPDX-License-Identifier: Apache-2.0 */
/* Helpers shared by the tests of threads that take part while they wait
 * (pool_caller, graph_caller): which thread is main, iteration counts
 * scaled down under the sanitizers, bounded waits, and a watchdog that
 * turns a hang inside weft into a failure naming where it hung. */
#ifndef WEFT_TEST_CALLER_H
#define WEFT_TEST_CALLER_H

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <unistd.h>

#include "check.h"

static pthread_t main_tid;
static long divisor = 1; /* argv[2]: iteration counts are divided by it */

static inline long scaled(long n)
{
    n /= divisor;
    return n < 1 ? 1 : n;
}

static inline bool on_main(void)
{
    return pthread_equal(pthread_self(), main_tid);
}

static inline void sleep_us(long us)
{
    struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
    nanosleep(&ts, NULL);
}

/* Until *x >= at_least, for at most `timeout` seconds; false on time-out. */
static inline bool wait_count(_Atomic int *x, int at_least, double timeout)
{
    double end = check_now() + timeout;
    while (atomic_load(x) < at_least) {
        if (check_now() > end)
            return false;
        sleep_us(1000);
    }
    return true;
}

/* Block this thread until *release is set, or until `deadline`
 * (check_now() time): false on time-out. */
static inline bool block_until(_Atomic int *release, double deadline)
{
    while (!atomic_load(release)) {
        if (check_now() > deadline)
            return false;
        sleep_us(1000);
    }
    return true;
}

/* ---- a pool with every caller slot taken -------------------------------- */

/* Each caller_slot_holder thread sits in a wf_run of the pool (its
 * argument) until holders_release is set, at most 30 s, and counts itself
 * in holders_in first. */
static _Atomic int holders_in __attribute__((unused));
static _Atomic int holders_release __attribute__((unused));

static inline void hold_caller_slot(void *arg)
{
    (void)arg;
    atomic_fetch_add(&holders_in, 1);
    CHECK(block_until(&holders_release, check_now() + 30.0));
}

static inline void *caller_slot_holder(void *pool)
{
    CHECK_OK(wf_run(pool, hold_caller_slot, NULL));
    return NULL;
}

/* ---- watchdog ------------------------------------------------------------ */

#define WATCH_S 45

static const char *watch_test = "test";
static const char *volatile watch_phase = "start";

static void watch_alarm(int sig)
{
    (void)sig;
    const char *t = watch_test, *p = watch_phase;
    (void)!write(2, t, strlen(t));
    (void)!write(2, ": watchdog: no progress in ", 27);
    (void)!write(2, p, strlen(p));
    (void)!write(2, "\n", 1);
    _exit(1);
}

/* Name what comes next and give it `s` seconds before the watchdog fires. */
static inline void watch(const char *what, unsigned s)
{
    watch_phase = what;
    alarm(s);
}

/* main(): ARGS are a scenario name (none or "all": every one), then an
 * optional divisor for the iteration counts. */
#define CALLER_TEST_MAIN(test, argc, argv, table)                              \
    do {                                                                       \
        main_tid = pthread_self();                                             \
        watch_test = (test);                                                   \
        if ((argc) > 2)                                                        \
            divisor = atol((argv)[2]);                                         \
        CHECK(divisor >= 1);                                                   \
        struct sigaction sa_ = {.sa_handler = watch_alarm};                    \
        sigemptyset(&sa_.sa_mask);                                             \
        CHECK(sigaction(SIGALRM, &sa_, NULL) == 0);                            \
        return CHECK_RUN_SCENARIOS(test, argc, argv, table);                   \
    } while (0)

#endif /* WEFT_TEST_CALLER_H */
