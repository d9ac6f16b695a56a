/* SPDX-License-Identifier: Apache-2.0 */
/* The pool's sleep and wake protocols on its own code: src/pool/evcount.c
 * compiled unchanged with -DWF_SIM (its atomics and its two futex calls
 * become the simulator's steps, internal/sim_hook.h), driven the way the
 * pool drives it (src/pool/park.c, notify.c, stack.c).  Rules P3 and P8
 * of docs/protocols.md:
 *
 *   p3           owner: publish a task (wf_deque_push_n, as
 *                wf__publish_some), then wf__ec_wake_sleeper;
 *                T1, an idle worker (wf__park): wf__ec_sleep_begin,
 *                rescan the deque, futex-wait on epoch, wf__ec_sleep_end.
 *   p8           owner, a completer (wf__task_complete): exchange the
 *                task's done word (HELPING -> DONE, acq_rel; done.h's
 *                wf__done_mark), then
 *                wf__ec_wake_waiters; T1, a waiter (wf__wait_park):
 *                wf__ec_wait_begin, check done (acquire), futex-wait on
 *                waiter_epoch, wf__ec_wait_end.
 *   p8-fallback  owner publishes and calls wf__ec_wake_sleeper with no
 *                idle worker: it must wake the waiters; T1, a waiter
 *                whose check is the deque (wf__work_visible).
 *   p3-two       p3 with two idle workers, T1 and T2: wake_sleeper wakes
 *                one (FUTEX_WAKE of 1), and one awake is enough.
 *   p8-two       p8 with two waiters on the same task, T1 and T2: both
 *                must wake (wake_waiters wakes every one).
 *
 * A sleeper whose futex wait returns at once (the epoch moved) goes round
 * again, as a worker's loop does, once: the second rescan must see the
 * work.  A wait that sleeps ends the thread's part: weft-sim does not run
 * what a woken thread does next (it would rescan); whether it is woken is
 * decided at the end (access.c's futex model).  A LOST WAKE-UP is a thread
 * still asleep at the end, with nothing left to wake it, while what it
 * waits for (a task in the deque, a done task) is there; for a published
 * task, every idle worker asleep so (one awake takes it). */
#include <string.h>

#include "algos/evcount.h"
#include "algos/weft_deque.h"
#include "core/threads.h"
#include "weft/pool.h" /* WF__DONE, WF__HELPING: done.h's values */

#include "internal/pool/done.h"
#include "internal/pool/evcount.h"

static _Alignas(64) wf__evcount ec;
static _Alignas(64) _Atomic uint32_t done_word;
static bool published, completed; /* what the sleepers wait for is there */
static bool one_enough; /* a task: one awake worker takes it (p3-two) */
static int woke; /* what the waker's wake_sleeper returned; -1: none ran */
static int rounds[SIM_MAX_THREADS]; /* each sleeper's rounds (outcome)    */

static void publish(int t)
{
    (void)t;
    void *x = SIM_VALUE(0);
    published = wf_deque_push_n(&sim_weft_dq, &x, 1) == 0;
    woke = wf__ec_wake_sleeper(&ec);
}

/* wf__park, then the worker's loop taking it round once more. */
static void idle_worker(int t)
{
    for (int round = 0; round < 2; round++) {
        rounds[t]++;
        uint32_t e = wf__ec_sleep_begin(&ec);
        if (wf_deque_size(&sim_weft_dq) > 0) { /* finds the work */
            wf__ec_sleep_end(&ec);
            return;
        }
        wf__futex_wait(&ec.epoch, e);
        if (S.th[t].futex_slept)
            return; /* asleep: woken or not, the end decides */
        wf__ec_sleep_end(&ec);
    }
}

static void complete(int t)
{
    (void)t;
    /* wf__task_complete's step: its release publishes the task's
     * effects (P5). */
    uint32_t was = wf__done_mark(&done_word);
    completed = true;
    if (was == WF__HELPING)
        wf__ec_wake_waiters(&ec);
}

/* wf__wait_park for a joiner whose task ran elsewhere (P8); the fallback
 * scenario's waiter waits for work instead (wf__work_visible). */
static void waiter_loop(int t, bool for_work)
{
    for (int round = 0; round < 2; round++) {
        rounds[t]++;
        uint32_t e = wf__ec_wait_begin(&ec);
        bool ready = for_work ? wf_deque_size(&sim_weft_dq) > 0
                              : wf__done_seen(&done_word);
        if (ready) {
            wf__ec_wait_end(&ec);
            return;
        }
        wf__futex_wait(&ec.waiter_epoch, e);
        if (S.th[t].futex_slept)
            return;
        wf__ec_wait_end(&ec);
    }
}

static void waiter(int t)
{
    waiter_loop(t, false);
}

static void work_waiter(int t)
{
    waiter_loop(t, true);
}

static void reset(void)
{
    wf_store_relaxed(&ec.sleepers, 0);
    wf_store_relaxed(&ec.epoch, 0);
    wf_store_relaxed(&ec.waiters, 0);
    wf_store_relaxed(&ec.waiter_epoch, 0);
    wf_store_relaxed(&done_word, WF__HELPING); /* not yet run, joiner helps */
    published = completed = one_enough = false;
    woke = -1;
    memset(rounds, 0, sizeof rounds);
    sim_register_name(&ec.sleepers, "sleepers");
    sim_register_name(&ec.epoch, "epoch");
    sim_register_name(&ec.waiters, "waiters");
    sim_register_name(&ec.waiter_epoch, "waiter_epoch");
    sim_register_name(&done_word, "done");
}

static void setup_p3(const explore_job *job)
{
    (void)job;
    reset();
    sim_add_op(0, (sim_op){.kind = OP_CALL, .call = publish});
    sim_add_op(1, (sim_op){.kind = OP_CALL, .call = idle_worker});
}

static void setup_p8(const explore_job *job)
{
    (void)job;
    reset();
    sim_add_op(0, (sim_op){.kind = OP_CALL, .call = complete});
    sim_add_op(1, (sim_op){.kind = OP_CALL, .call = waiter});
}

static void setup_fallback(const explore_job *job)
{
    (void)job;
    reset();
    sim_add_op(0, (sim_op){.kind = OP_CALL, .call = publish});
    sim_add_op(1, (sim_op){.kind = OP_CALL, .call = work_waiter});
}

static void setup_p3_two(const explore_job *job)
{
    setup_p3(job);
    one_enough = true;
    sim_add_op(2, (sim_op){.kind = OP_CALL, .call = idle_worker});
}

static void setup_p8_two(const explore_job *job)
{
    setup_p8(job);
    sim_add_op(2, (sim_op){.kind = OP_CALL, .call = waiter});
}

/* Every sleeper asleep for good while what it waits for is there. */
static void final(void)
{
    int asleep = 0;
    for (int t = 1; t < S.nthreads; t++)
        asleep += sim_futex_asleep(t);
    if (one_enough && asleep < S.nthreads - 1)
        return; /* a worker is up to take the task */
    if (one_enough && published) {
        sim_failf("lost wake-up: every idle worker sleeps on epoch for good "
                  "(each one's check saw an empty deque, its futex wait the "
                  "old value, and no wake came after it) while a task waits "
                  "in the deque");
        return;
    }
    for (int t = 1; t < S.nthreads && !S.fail[0]; t++)
        if (sim_futex_asleep(t) && (published || completed))
            sim_failf("lost wake-up: %s sleeps on %s for good (its check "
                      "saw %s, its futex wait the old value, and no wake "
                      "came after it) while %s",
                      sim_thread_name(t),
                      S.th[t].futex_addr == (volatile void *)&ec.epoch
                          ? "epoch"
                          : "waiter_epoch",
                      published ? "an empty deque" : "the task not done",
                      published ? "a task waits in the deque"
                                : "the task it waits for is done");
}

static void outcome(char *buf, size_t n)
{
    size_t k = (size_t)snprintf(buf, n, "owner: %s",
                                woke < 0    ? "completed"
                                : woke == 0 ? "published, woke no sleeper"
                                            : "published, woke a sleeper");
    for (int t = 1; t < S.nthreads && k < n; t++)
        k += (size_t)snprintf(buf + k, n - k, " | %s: %s after %d round%s",
                              sim_thread_name(t),
                              !S.th[t].futex_slept  ? "awake"
                              : sim_futex_asleep(t) ? "asleep"
                                                    : "slept, woken",
                              rounds[t], rounds[t] == 1 ? "" : "s");
}

static const sim_protocol p3 = {
    "p3",
    "an idle worker parks (sleep_begin, rescan, futex wait on epoch) while "
    "the owner publishes a task and calls wake_sleeper",
    2,
    setup_p3,
    final,
    outcome,
    NULL};
static const sim_protocol p8 = {
    "p8",
    "a waiter (wait_begin, check its task's done word, futex wait on "
    "waiter_epoch) while the task completes and wake_waiters runs",
    2,
    setup_p8,
    final,
    outcome,
    NULL};
static const sim_protocol fallback = {
    "p8-fallback",
    "a waiter waits for work while the owner publishes and calls "
    "wake_sleeper with no idle worker: the waiters must be woken",
    2,
    setup_fallback,
    final,
    outcome,
    NULL};

static const sim_protocol p3_two = {
    "p3-two",
    "two idle workers park while the owner publishes one task and calls "
    "wake_sleeper, which wakes one",
    3,
    setup_p3_two,
    final,
    outcome,
    NULL};
static const sim_protocol p8_two = {
    "p8-two",
    "two waiters wait for the same task while it completes and "
    "wake_waiters runs: both must wake",
    3,
    setup_p8_two,
    final,
    outcome,
    NULL};

const sim_protocol *const sim_protocols[] = {&p3,
                                             &p8,
                                             &fallback,
                                             &p3_two,
                                             &p8_two,
                                             &sim_proto_g5,
                                             &sim_proto_g5_poll,
                                             &sim_proto_g5_poll_three,
                                             &sim_proto_g5_reset,
                                             &sim_proto_g5_reset_flag,
                                             &sim_proto_g5_gateway,
                                             &sim_proto_p10,
                                             &sim_proto_p9,
                                             &sim_proto_p9_request,
                                             &sim_proto_p11_park,
                                             &sim_proto_p11_nap,
                                             &sim_proto_p11,
                                             &sim_proto_g9,
                                             &sim_proto_g9_three,
                                             &sim_proto_g9_each,
                                             &sim_proto_a6,
                                             &sim_proto_a6_advance,
                                             &sim_proto_a6_three,
                                             &sim_proto_m1,
                                             &sim_proto_m1_two,
                                             &sim_proto_m1_timeout,
                                             &sim_proto_m3,
                                             &sim_proto_m3_end,
                                             &sim_proto_b1,
                                             &sim_proto_b1_restart,
                                             &sim_proto_p12,
                                             &sim_proto_p12_end,
                                             &sim_proto_p12_two,
                                             &sim_proto_g7,
                                             &sim_proto_g7_grow,
                                             &sim_proto_g7_has,
                                             &sim_proto_t3,
                                             &sim_proto_t3_three,
                                             &sim_proto_t3_cancel,
                                             &sim_proto_t1,
                                             &sim_proto_t1_spawn,
                                             NULL};

const sim_protocol *sim_protocol_find(const char *name)
{
    for (int i = 0; sim_protocols[i]; i++)
        if (strcmp(sim_protocols[i]->name, name) == 0)
            return sim_protocols[i];
    return NULL;
}
