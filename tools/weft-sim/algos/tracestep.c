/* SPDX-License-Identifier: Apache-2.0 */
/* A trace recorder against the trace's stop (rules B1 and B2 of
 * docs/protocols.md) on the library's own code:
 * src/internal/base/trace_steps.h compiled unchanged with -DWF_SIM,
 * driven as src/base/trace.c drives it (wf__trace_record against
 * wf_trace_stop, then wf_trace_start).  A session is under way when the
 * threads start (the switch is on, its time origin is 1):
 *
 *   b1          owner, the stop (wf_trace_stop): turns the switch off,
 *               waits until T1's buffer is not busy, reads its event and
 *               empties the buffer; T1, a recorder (wf__trace_record):
 *               enters, and if the switch is on writes one event (the
 *               time origin it read, then its name), then leaves.
 *   b1-restart  b1, and the owner then starts a new session
 *               (wf_trace_start): writes the time origin 2 and turns the
 *               switch on.  A recorder that sees that switch records
 *               into the emptied buffer with the new time origin.
 *
 * The stop's wait is a spin on busy, bounded as weft-sim bounds a spin
 * (an execution whose stop gives up reads nothing and is not checked).
 * The event's two words and the time origin are plain memory under arm
 * and c11 (c11 reports an unordered access as a data race: the stop
 * reading or emptying the buffer while the recorder writes it, or the
 * recorder reading the time origin while the start writes it; arm reads
 * it stale), relaxed atomics under sc, tso and pso.  Checked: when the
 * recorder records an event in the session the stop ends (time origin
 * 1), the stop reads that whole event (B1: it waited for the recorder, or
 * the recorder saw the switch off and wrote nothing).  A recorder of
 * b1-restart that sees the new switch but the old time origin (B2) writes
 * an event of the old session after the stop read the buffer, and fails
 * the same check. */

#include "algos/evcount.h"
#include "algos/plain.h"
#include "core/access.h"
#include "core/threads.h"

#include "internal/base/trace_steps.h"

#define EV_NAME 7 /* the event's name, as written */

static _Alignas(64) _Atomic int tracing;            /* trace.c's wf__tracing */
static _Alignas(64) _Atomic int busy;               /* T1's buffer's busy */
static _Alignas(64) _Atomic int64_t t0;             /* trace.c's tr_t0 */
static _Alignas(64) _Atomic int64_t ev_ts, ev_name; /* T1's one event */
static bool restart; /* b1-restart: the stop is followed by a start */
/* What the threads did (scaffolding, not memory of the scenario): the
 * time origin of the event the recorder wrote (0: it wrote none),
 * whether the stop read the buffer (it did not give up its wait), and
 * what it read. */
static int64_t recorded;
static bool looked;
static int64_t seen_ts, seen_name;

/* wf__trace_record: one event, stamped with the time origin it reads. */
static void recorder(int t)
{
    (void)t;
    if (wf__trace_enter(&busy, &tracing)) {
        int64_t origin = plain_read(&t0);
        plain_write(&ev_ts, origin);
        plain_write(&ev_name, EV_NAME);
        recorded = origin;
    }
    wf__trace_leave(&busy);
}

/* wf_trace_stop (its spin bounded), then in b1-restart wf_trace_start. */
static void stopper(int t)
{
    (void)t;
    wf__trace_switch_off(&tracing);
    int spins = 0;
    while (wf__trace_busy(&busy))
        if (!sim_spin_ok(&spins))
            return; /* the simulator bounds the spin */
    looked = true;
    seen_ts = plain_read(&ev_ts); /* write_all */
    seen_name = plain_read(&ev_name);
    plain_write(&ev_ts, 0); /* free_chunks */
    plain_write(&ev_name, 0);
    if (!restart)
        return;
    plain_write(&t0, 2); /* wf_trace_start's tr_t0 */
    wf__trace_switch_on(&tracing);
}

static void reset(bool with_restart)
{
    restart = with_restart;
    recorded = 0;
    looked = false;
    seen_ts = seen_name = -1;
    /* A session under way: its start turned the switch on after t0. */
    wf_store_relaxed(&tracing, 1);
    wf_store_relaxed(&busy, 0);
    wf_store_relaxed(&t0, 1);
    wf_store_relaxed(&ev_ts, 0);
    wf_store_relaxed(&ev_name, 0);
    sim_register_name(&tracing, "tracing");
    sim_register_name(&busy, "busy");
    sim_register_name(&t0, "t0");
    sim_register_name(&ev_ts, "ev.ts");
    sim_register_name(&ev_name, "ev.name");
    sim_add_op(0, (sim_op){.kind = OP_CALL, .call = stopper});
    sim_add_op(1, (sim_op){.kind = OP_CALL, .call = recorder});
}

static void setup_b1(const explore_job *job)
{
    (void)job;
    reset(false);
}

static void setup_restart(const explore_job *job)
{
    (void)job;
    reset(true);
}

/* The event recorded in the stopped session is in the stop's output,
 * whole.  (Under arm and c11 the memory holds no plain write's value
 * after the search, so the stop's reads are checked as it made them.) */
static void final(void)
{
    if (S.fail[0] || !looked || recorded != 1)
        return;
    if (seen_ts != 1 || seen_name != EV_NAME)
        sim_failf("the stop reads T1's event as (ts %lld, name %lld), not "
                  "(1, %d): T1 recorded it in the session the stop ends "
                  "(time origin 1), but wrote it while the stop read the "
                  "buffer or after%s",
                  (long long)seen_ts, (long long)seen_name, EV_NAME,
                  restart ? " (or saw the new session's switch and read "
                            "the old time origin, B2)"
                          : "");
}

static void outcome(char *buf, size_t n)
{
    size_t k = recorded ? (size_t)snprintf(buf, n, "T1 recorded (t0 %lld)",
                                           (long long)recorded)
                        : (size_t)snprintf(buf, n, "T1 recorded nothing");
    if (k >= n)
        return;
    if (looked)
        snprintf(buf + k, n - k, " | stop read (ts %lld, name %lld)",
                 (long long)seen_ts, (long long)seen_name);
    else
        snprintf(buf + k, n - k, " | stop gave up its wait");
}

#define CORRECT                                                                \
    "an event recorded in the session the stop ends is read by the stop "      \
    "whole; none is written while the stop reads or empties the buffer"

const sim_protocol sim_proto_b1 = {
    "b1",
    "the stop turns the switch off, waits until T1's buffer is idle, reads "
    "and empties it, while T1 enters, records one event if the switch is "
    "on, and leaves",
    2,
    setup_b1,
    final,
    outcome,
    CORRECT};
const sim_protocol sim_proto_b1_restart = {
    "b1-restart",
    "b1, then the owner starts a new session (time origin, then the "
    "switch): a recorder that sees the new switch records into the "
    "emptied buffer with the new time origin",
    2,
    setup_restart,
    final,
    outcome,
    CORRECT};
