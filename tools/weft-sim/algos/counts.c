/* SPDX-License-Identifier: Apache-2.0 */
/* Counts of work in flight that a thread waits for, on the library's own
 * code: src/internal/graph/pending.h (a flow graph's pending, rule G5 of
 * docs/protocols.md) and src/internal/pool/roots.h (the pool's roots,
 * P10), compiled unchanged with -DWF_SIM, with src/pool/evcount.c for the
 * waiters' sleep and wake (P8).  They are driven as src/graph/runtime.c
 * (release, wf__graph_quiesce, wf_graph_is_idle) and src/pool/submit.c,
 * entry.c (wf__root_done, wf_pool_wait_idle) drive them:
 *
 *   g5       two tasks of a graph in flight (pending 2) each write their
 *            effect and release (wf__pending_drop; the last one, under
 *            idle_lock, wf__pending_drop_last, then wf__ec_wake_waiters);
 *            T2, in wf_graph_wait_for_all, helps until idle (P8's park on
 *            waiter_epoch), takes and leaves idle_lock, then reads both
 *            effects.
 *   g5-poll  the same two tasks; T2 polls wf_graph_is_idle once and, if
 *            idle, reads both effects (no lock: the count's release
 *            sequence alone must carry them).
 *   g5-poll-three  three tasks (pending 3: two CASes, then the step to
 *            0) and T3 polling, as g5-poll.
 *   p10      two roots (roots 2) end as wf__root_done does; T2 runs
 *            wf_pool_wait_idle, as the g5 waiter.
 *   g5-reset, g5-reset-flag, g5-gateway: a reset's close and reopen
 *            and a gateway's reservation, described with their code below.
 *
 * A waiter that returns must see every task's effect: a stale read under the
 * hardware models, a data race under c11 (the model reports it).  No
 * wake-up is lost: a waiter asleep for good at the end (evcount.c's futex
 * model) while the count is 0 fails.  The count ends at 0: never below,
 * no release lost.
 *
 * idle_lock is a pthread mutex in the library; here it is the simplest
 * futex mutex (a CAS that acquires, a store that releases, then a wake;
 * Drepper, "Futexes Are Tricky", mutex 1), since weft-sim runs no
 * pthreads.  The condition variable is left out: its wait runs only when
 * the helping wait returned false (a pool without threads), which these
 * scenarios never do. */
#include <string.h>

#include "algos/evcount.h"
#include "core/access.h"
#include "core/threads.h"
#include "internal/graph/pending.h"
#include "internal/pool/evcount.h"
#include "internal/pool/roots.h"

/* The library's steps on one count, as a protocol drives them. */
typedef struct count_steps {
    bool (*drop)(_Atomic long *);
    bool (*drop_last)(_Atomic long *);
    bool (*idle)(_Atomic long *);
    const char *name; /* the count's field */
} count_steps;

static const count_steps pending_steps = {
    wf__pending_drop, wf__pending_drop_last, wf__pending_idle, "pending"};
static const count_steps roots_steps = {wf__roots_drop, wf__roots_drop_last,
                                        wf__roots_none, "roots"};

static const count_steps *steps;
static _Alignas(64) _Atomic long count;
static _Alignas(64) wf__evcount ec;
static _Alignas(64) _Atomic uint32_t idle_lock; /* 0 free, 1 held */
#define MAX_TASKS 3
static int ntasks; /* threads 0 .. ntasks - 1; the waiter is thread ntasks */
static _Alignas(64) _Atomic int64_t effect[MAX_TASKS]; /* each task's write */
static int last = -1;         /* the task that took the count to 0 */
static int seen[MAX_TASKS];   /* the waiter's reads of the effects */
static bool returned, polled; /* the waiter returned; the poll saw idle */

/* idle_lock's futex mutex.  Two threads at most contend (the last task,
 * the waiter), so a second CAS after a wait that returned at once (the
 * lock was let go meanwhile) wins.  False: asleep in the wait, which ends
 * the thread's part (the end decides whether it was woken). */
static bool lock_idle(int t)
{
    for (int round = 0; round < 2; round++) {
        uint32_t free_ = 0;
        if (wf_cas_acqrel(&idle_lock, &free_, 1))
            return true;
        wf__futex_wait(&idle_lock, 1);
        if (S.th[t].futex_slept)
            return false;
    }
    sim_failf("%s could not take idle_lock", sim_thread_name(t));
    return false;
}

static void unlock_idle(void)
{
    wf_store_release(&idle_lock, 0);
    wf__futex_wake(&idle_lock, 1);
}

/* A body's write, and the waiter's read of it: plain accesses under arm
 * and c11 (c11 reports an unordered read as a data race), relaxed ones
 * under sc, tso and pso, whose machines have no other kind. */
static void write_effect(int t)
{
    if (SIM_GRAPH_MODEL(S.model))
        sim_plain_store(&effect[t], 1);
    else
        wf_store_relaxed(&effect[t], 1);
}

static void read_effects(int t, const char *call)
{
    for (int i = 0; i < ntasks && !S.fail[0]; i++) {
        seen[i] = SIM_GRAPH_MODEL(S.model) ? (int)sim_plain_load(&effect[i])
                                           : (int)wf_load_relaxed(&effect[i]);
        if (seen[i] != 1)
            sim_failf("%s returned from %s but reads %s's effect as not "
                      "yet written (stale): the count's release sequence "
                      "did not carry it",
                      sim_thread_name(t), call, sim_thread_name(i));
    }
}

/* A unit of work ends: runtime.c's release, submit.c's wf__root_done. */
static void end_work(int t)
{
    if (steps->drop(&count))
        return;
    if (!lock_idle(t))
        return;
    if (steps->drop_last(&count)) {
        last = t;
        wf__ec_wake_waiters(&ec); /* after the broadcast, which no one needs */
    }
    unlock_idle();
}

/* A task ends: its effect, then the release. */
static void task(int t)
{
    write_effect(t);
    end_work(t);
}

/* wf__help_until with the count's test: P8's park (wf__wait_park) until
 * the test holds.  A wait that returns at once (the epoch moved) goes
 * round again; after two rounds the last wake has come, so the test must
 * hold.  False: asleep, woken or not (the end decides). */
static bool help_until_idle(int t)
{
    for (int round = 0; round < 2; round++) {
        if (steps->idle(&count))
            return true;
        uint32_t e = wf__ec_wait_begin(&ec);
        if (!steps->idle(&count)) {
            wf__futex_wait(&ec.waiter_epoch, e);
            if (S.th[t].futex_slept)
                return false;
        }
        wf__ec_wait_end(&ec);
    }
    if (steps->idle(&count))
        return true;
    sim_failf("%s was woken twice and still sees %s above 0",
              sim_thread_name(t), steps->name);
    return false;
}

/* wf__graph_quiesce (wf_graph_wait_for_all) and wf_pool_wait_idle: help,
 * then take and leave idle_lock (the last task has let go), return. */
static void waiter(int t)
{
    if (!help_until_idle(t) || !lock_idle(t))
        return;
    unlock_idle();
    returned = true;
    read_effects(t, steps == &roots_steps ? "wf_pool_wait_idle"
                                          : "wf_graph_wait_for_all");
}

/* wf_graph_is_idle, once. */
static void poller(int t)
{
    if (!steps->idle(&count))
        return;
    polled = true;
    read_effects(t, "wf_graph_is_idle");
}

static void reset(const count_steps *s, int tasks)
{
    steps = s;
    ntasks = tasks;
    wf_store_relaxed(&count, tasks); /* every task counted before it ran */
    wf_store_relaxed(&ec.sleepers, 0);
    wf_store_relaxed(&ec.epoch, 0);
    wf_store_relaxed(&ec.waiters, 0);
    wf_store_relaxed(&ec.waiter_epoch, 0);
    wf_store_relaxed(&idle_lock, 0);
    static const char *const names[MAX_TASKS] = {"effect(owner)", "effect(T1)",
                                                 "effect(T2)"};
    for (int i = 0; i < MAX_TASKS; i++) {
        wf_store_relaxed(&effect[i], 0);
        seen[i] = -1;
    }
    last = -1;
    returned = polled = false;
    sim_register_name(&count, s->name);
    sim_register_name(&ec.waiters, "waiters");
    sim_register_name(&ec.waiter_epoch, "waiter_epoch");
    sim_register_name(&idle_lock, "idle_lock");
    for (int i = 0; i < tasks; i++) {
        sim_register_name(&effect[i], names[i]);
        sim_add_op(i, (sim_op){.kind = OP_CALL, .call = task});
    }
}

static void setup_g5(const explore_job *job)
{
    (void)job;
    reset(&pending_steps, 2);
    sim_add_op(2, (sim_op){.kind = OP_CALL, .call = waiter});
}

static void setup_g5_poll(const explore_job *job)
{
    (void)job;
    reset(&pending_steps, 2);
    sim_add_op(2, (sim_op){.kind = OP_CALL, .call = poller});
}

static void setup_p10(const explore_job *job)
{
    (void)job;
    reset(&roots_steps, 2);
    sim_add_op(2, (sim_op){.kind = OP_CALL, .call = waiter});
}

static void setup_g5_poll_three(const explore_job *job)
{
    (void)job;
    reset(&pending_steps, 3);
    sim_add_op(3, (sim_op){.kind = OP_CALL, .call = poller});
}

/* The count at 0, and nobody asleep for good. */
static void final(void)
{
    long c = wf_load_relaxed(&count);
    if (c != 0) {
        sim_failf("%s ends at %ld, not 0: a release was lost or counted "
                  "twice",
                  steps->name, c);
        return;
    }
    for (int t = 0; t < S.nthreads && !S.fail[0]; t++)
        if (sim_futex_asleep(t))
            sim_failf("lost wake-up: %s sleeps on %s for good while %s is 0",
                      sim_thread_name(t),
                      S.th[t].futex_addr == (volatile void *)&idle_lock
                          ? "idle_lock"
                          : "waiter_epoch",
                      steps->name);
}

#define CORRECT                                                                \
    "the waiter that returns sees every task's effect, no wake-up is lost, "   \
    "the count ends at 0"

static void outcome(char *buf, size_t n)
{
    int t = ntasks;
    const char *w = !S.th[t].futex_slept  ? "awake"
                    : sim_futex_asleep(t) ? "asleep"
                                          : "slept, woken";
    size_t k = (size_t)snprintf(buf, n, "last: %s | %s: %s, %s, effects read",
                                last < 0 ? "none" : sim_thread_name(last),
                                sim_thread_name(t), w,
                                returned ? "returned"
                                : polled ? "saw idle"
                                         : "saw work in flight");
    for (int i = 0; i < ntasks && k < n; i++)
        k += (size_t)snprintf(buf + k, n - k, " %d", seen[i]);
}

const sim_protocol sim_proto_g5 = {
    "g5",
    "two tasks of a graph release pending (the last under idle_lock, then "
    "wake_waiters) while wf_graph_wait_for_all helps, parks, returns and "
    "reads their effects",
    3,
    setup_g5,
    final,
    outcome,
    CORRECT};
const sim_protocol sim_proto_g5_poll = {
    "g5-poll",
    "two tasks of a graph release pending while a thread polls "
    "wf_graph_is_idle and, idle, reads their effects",
    3,
    setup_g5_poll,
    final,
    outcome,
    CORRECT};
const sim_protocol sim_proto_g5_poll_three = {
    "g5-poll-three",
    "three tasks of a graph release pending (two CASes, then the step to 0) "
    "while a thread polls wf_graph_is_idle and, idle, reads their effects",
    4,
    setup_g5_poll_three,
    final,
    outcome,
    CORRECT};
const sim_protocol sim_proto_p10 = {
    "p10",
    "two roots end (wf__root_done) while wf_pool_wait_idle helps, parks, "
    "returns and reads their effects",
    3,
    setup_p10,
    final,
    outcome,
    CORRECT};

/* ---- a reset's close and reopen; a gateway's reservation (G5) ------------
 *
 *   g5-reset    the owner runs wf_graph_reset on an idle graph that was
 *               cancelled: wf__graph_close (the quiesce: wf__pending_idle
 *               as its helping wait, then idle_lock and a relaxed look;
 *               then wf__pending_close, twice at most), reads and empties
 *               a node's `state` (plain) and clears `cancelled` (relaxed,
 *               as graph.c), then wf__graph_reopen (wf__pending_reopen
 *               under idle_lock).  T1 is a put from outside (past its
 *               look at `cancelled`, or a gateway's reservation, which has
 *               none): runtime.c's hold (wf__pending_hold, twice at most;
 *               a hold that saw the count closed waits for the reopen),
 *               then, held, wf_graph_is_cancelled and the node's state,
 *               writes it, and releases as a task.
 *   g5-reset-flag  the same with the flag alone, no state: `cancelled`
 *               is an atomic, so only a stale read can show it.
 *   g5-gateway  the owner is an async node's body (pending 1, its task):
 *               wf_gateway_reserve_wait (the hold, wf__gateway_reserve),
 *               its effect, its end.  T1 is the outside work: it sees a
 *               reservation (a relaxed look at `waits`: no order of its
 *               own), writes its effect, wf_gateway_release_wait
 *               (wf__gateway_take, then the graph's release).  T2 polls
 *               wf_graph_is_idle as in g5-poll.
 *
 * g5-reset: a put whose hold saw the count closed is held after the
 * reopen (there is one close), so it must read `cancelled` cleared and
 * the state emptied; and whatever the order, the put and the reset each
 * see the other's write of the state or are seen by it (the reset reads
 * the put's 2, or the put reads the reset's 0): a put held before the
 * close ended before it, and one held after it came after the reopen.
 * g5-gateway: as g5-poll, the poller that sees 0 sees both effects; the
 * count ends at 0, or at 1 when T1 saw no reservation (it left it). */

static _Alignas(64) _Atomic int cancelled;      /* the graph's flag (G8) */
static _Alignas(64) _Atomic int64_t state;      /* a node's, plain */
static _Alignas(64) _Atomic long waits;         /* the gateway's */
static int reset_read, put_read, put_cancelled; /* -1: not read */
static bool closed, reopened, saw_closed, held, took;
static bool with_state; /* g5-reset: the node's state too, not only the flag */

static int64_t read_state(void)
{
    return SIM_GRAPH_MODEL(S.model) ? (int64_t)sim_plain_load(&state)
                                    : wf_load_relaxed(&state);
}

static void write_state(int64_t v)
{
    if (SIM_GRAPH_MODEL(S.model))
        sim_plain_store(&state, (uint64_t)v);
    else
        wf_store_relaxed(&state, v);
}

/* wf__graph_quiesce: false when work is in flight (the thread would wait
 * for it: its part ends there; g5 explores that wait). */
static bool quiesce(int t)
{
    if (!wf__pending_idle(&count)) /* the helping wait */
        return false;
    if (!lock_idle(t))
        return false;
    bool idle = wf_load_relaxed(&count) == 0; /* else cond_wait */
    unlock_idle();
    return idle;
}

/* wf_graph_reset (graph.c): close, empty, clear, reopen.  The reopen's
 * broadcast and wake are left out: nobody waits on them here. */
static void resetter(int t)
{
    for (int round = 0; round < 2 && !closed; round++) {
        if (!quiesce(t))
            return;
        closed = wf__pending_close(&count);
    }
    if (!closed)
        return;
    if (with_state) {
        reset_read = (int)read_state();
        write_state(0);
    }
    wf_store_relaxed(&cancelled, 0);
    if (!lock_idle(t))
        return;
    wf__pending_reopen(&count);
    unlock_idle();
    reopened = true;
}

/* A put from outside: runtime.c's hold (two tries), the held put's look
 * at the flag and the state, its write, its release. */
static void putter(int t)
{
    for (int tries = 0; tries < 2 && !held; tries++) {
        held = wf__pending_hold(&count);
        saw_closed |= !held;
    }
    if (!held)
        return; /* it backs off until the reopen */
    put_cancelled = wf_load_acquire(&cancelled); /* wf_graph_is_cancelled */
    if (saw_closed && put_cancelled != 0) {
        sim_failf("%s waited for the reset, then holds the graph but reads "
                  "cancelled = 1 (stale): the reopen's release and the "
                  "hold's acquire did not carry the cleared flag",
                  sim_thread_name(t));
        return;
    }
    if (with_state) {
        put_read = (int)read_state();
        if (saw_closed && put_read != 0) {
            sim_failf("%s waited for the reset, then holds the graph but "
                      "reads the node's state as %d, not emptied (stale)",
                      sim_thread_name(t), put_read);
            return;
        }
        write_state(2);
    }
    end_work(t);
}

static void setup_reset_common(void)
{
    steps = &pending_steps;
    ntasks = 0;
    wf_store_relaxed(&count, 0);
    wf_store_relaxed(&ec.sleepers, 0);
    wf_store_relaxed(&ec.epoch, 0);
    wf_store_relaxed(&ec.waiters, 0);
    wf_store_relaxed(&ec.waiter_epoch, 0);
    wf_store_relaxed(&idle_lock, 0);
    for (int i = 0; i < MAX_TASKS; i++) {
        wf_store_relaxed(&effect[i], 0);
        seen[i] = -1;
    }
    wf_store_relaxed(&cancelled, 1);
    wf_store_relaxed(&state, 1);
    wf_store_relaxed(&waits, 0);
    reset_read = put_read = put_cancelled = -1;
    closed = reopened = saw_closed = held = took = false;
    last = -1;
    returned = polled = false;
    sim_register_name(&count, "pending");
    sim_register_name(&ec.waiters, "waiters");
    sim_register_name(&ec.waiter_epoch, "waiter_epoch");
    sim_register_name(&idle_lock, "idle_lock");
    sim_register_name(&cancelled, "cancelled");
    sim_register_name(&state, "state");
    sim_register_name(&waits, "waits");
}

static void setup_g5_reset(const explore_job *job)
{
    (void)job;
    setup_reset_common();
    with_state = true;
    sim_add_op(0, (sim_op){.kind = OP_CALL, .call = resetter});
    sim_add_op(1, (sim_op){.kind = OP_CALL, .call = putter});
}

static void setup_g5_reset_flag(const explore_job *job)
{
    (void)job;
    setup_reset_common();
    with_state = false;
    sim_add_op(0, (sim_op){.kind = OP_CALL, .call = resetter});
    sim_add_op(1, (sim_op){.kind = OP_CALL, .call = putter});
}

/* A thread whose lock of idle_lock slept ended its part there: woken, it
 * would have gone on (the count is then left as it was); asleep for good,
 * a lost wake-up (final() says so).  True when one was cut short. */
static bool cut_short(void)
{
    bool any = false;
    for (int t = 0; t < S.nthreads && !S.fail[0]; t++) {
        if (sim_futex_asleep(t))
            sim_failf("lost wake-up: %s sleeps on idle_lock for good",
                      sim_thread_name(t));
        any |= S.th[t].futex_slept;
    }
    return any || S.fail[0];
}

static void final_reset(void)
{
    if (S.fail[0])
        return;
    if (reset_read == 1 && put_read == 1)
        sim_failf("the reset read the node's state before the put's write "
                  "and the put read it before the reset's: neither is "
                  "ordered before the other (the close missed a put that "
                  "ended before it, or the reopen did not publish the "
                  "reset to a put held after it)");
    else if (!cut_short())
        final();
}

static void outcome_reset(char *buf, size_t n)
{
    snprintf(buf, n,
             "reset: %s, read state %d | T1: %s%s, read cancelled %d, "
             "state %d",
             reopened ? "closed, reopened"
             : closed ? "closed"
                      : "waits for work in flight",
             reset_read, held ? "held" : "waits in hold",
             saw_closed ? " (saw it closed)" : "", put_cancelled, put_read);
}

/* The async body (owner): reserve, its effect, its end. */
static void async_body(int t)
{
    if (!wf__pending_hold(&count)) { /* wf__graph_hold: no reset here */
        sim_failf("%s's hold found the count closed", sim_thread_name(t));
        return;
    }
    wf__gateway_reserve(&waits);
    write_effect(t);
    end_work(t);
}

/* The outside work: a reservation seen, its effect, release_wait. */
static void outside_work(int t)
{
    if (wf_load_relaxed(&waits) <= 0)
        return; /* no work handed to it yet */
    write_effect(t);
    took = wf__gateway_take(&waits);
    if (!took) {
        sim_failf("%s saw a reservation but could not take it",
                  sim_thread_name(t));
        return;
    }
    end_work(t);
}

static void setup_g5_gateway(const explore_job *job)
{
    (void)job;
    setup_reset_common();
    ntasks = 2;
    wf_store_relaxed(&count, 1); /* the body's task */
    sim_register_name(&effect[0], "effect(owner)");
    sim_register_name(&effect[1], "effect(T1)");
    sim_add_op(0, (sim_op){.kind = OP_CALL, .call = async_body});
    sim_add_op(1, (sim_op){.kind = OP_CALL, .call = outside_work});
    sim_add_op(2, (sim_op){.kind = OP_CALL, .call = poller});
}

/* The count ends at 0, or at 1 with the reservation left untaken. */
static void final_gateway(void)
{
    if (S.fail[0] || cut_short())
        return;
    long c = wf_load_relaxed(&count);
    if (c != (took ? 0 : 1)) {
        sim_failf("pending ends at %ld with the reservation %s: a release "
                  "was lost or counted twice",
                  c, took ? "released" : "left");
        return;
    }
    if (!took)
        return;
    final();
}

static void outcome_gateway(char *buf, size_t n)
{
    size_t k =
        (size_t)snprintf(buf, n, "last: %s | T1: %s | T2: %s, effects read",
                         last < 0 ? "none" : sim_thread_name(last),
                         took ? "released the reservation" : "saw none",
                         polled ? "saw idle" : "saw work in flight");
    for (int i = 0; i < ntasks && k < n; i++)
        k += (size_t)snprintf(buf + k, n - k, " %d", seen[i]);
}

const sim_protocol sim_proto_g5_reset = {
    "g5-reset",
    "wf_graph_reset closes pending, empties a node and clears cancelled, "
    "reopens, while a put from outside holds (waiting while closed), reads "
    "the flag and the node, writes it and releases",
    2,
    setup_g5_reset,
    final_reset,
    outcome_reset,
    "a put held after waiting reads the flag cleared and the node emptied; "
    "the reset and the put each see the other's write or are seen by it; "
    "the count ends at 0"};
const sim_protocol sim_proto_g5_reset_flag = {
    "g5-reset-flag",
    "as g5-reset with the flag alone (an atomic: no data race can show it): "
    "a put held after waiting for the reset reads cancelled cleared",
    2,
    setup_g5_reset_flag,
    final_reset,
    outcome_reset,
    "a put held after waiting reads the flag cleared; the count ends at 0"};
const sim_protocol sim_proto_g5_gateway = {
    "g5-gateway",
    "an async body reserves its gateway and ends while outside work writes "
    "its effect and releases the reservation, and a thread polls "
    "wf_graph_is_idle and, idle, reads both effects",
    3,
    setup_g5_gateway,
    final_gateway,
    outcome_gateway,
    "the poller that sees 0 sees both effects; the count ends at 0 (at 1 "
    "with the reservation left)"};
