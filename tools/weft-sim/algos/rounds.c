/* SPDX-License-Identifier: Apache-2.0 */
/* A continue_node's rounds (rule G9 of docs/protocols.md) on the
 * library's own code: src/internal/graph/cont_count.h compiled unchanged
 * with -DWF_SIM, driven as src/graph/nodes/continue.c drives it (cont_put,
 * round_due, start_due, run, next_round).  "Start runner i" (continue.c's
 * spawn of record i) is the thread that got the runner running its body
 * at once:
 *
 *   g9       threshold 2, one runner: owner and T1 each write their datum,
 *            then signal (wf__cont_signal); the one that completes the
 *            round takes the runner and runs the body, which reads both
 *            data, then ends it (take_due, set_idle, any_due).
 *   g9-due   threshold 1 (every signal a round), one runner: owner and T1
 *            each write their datum and signal.  A round that finds the
 *            runner busy is made due (make_due, then start_due's second
 *            look); the runner's end takes a due round or goes idle and
 *            looks again (next_round, start_due).
 *   g9-two   threshold 1, two runners: the owner's signal found both
 *            busy, then runner 0 went idle (its thread ended its body
 *            and looked at due before the round was made due: runner 0
 *            starts idle).  The owner writes its datum, makes the round
 *            due and pairs it (round_due, start_due) while T1 ends
 *            runner 1's body (writes its record, next_round).  T1 may set
 *            runner 1's idle bit after the owner's seq_cst load of sig
 *            and take runner 0 in its own start_due, so that the owner's
 *            CAS fails and, on its retry, takes runner 1, made idle after
 *            that load: only the CAS's acquire then orders runner 1's last
 *            body before the round's.
 *   g9-own   threshold 2, one runner: the owner signals as a put from
 *            outside would, T1 as a graph task that may run the round
 *            itself (own: continue.c's run_own, no runner taken).  If T1
 *            completes the round, it runs the body, which must see the
 *            owner's datum through the CAS alone.
 *   g9-adopt threshold 1, one runner: the owner's round takes the runner;
 *            T1's is its own, then given to the pool (continue.c's
 *            adopt_own: round_due), so it is made due and paired with
 *            the runner, which may be busy with the owner's round.
 *
 * A body must see the data its round's signals published: all of them
 * when several signals make the round, the maker's when it ran as a due
 * round (a stale read under the hardware models, a data race under c11).
 * A runner's record (continue.c's output buffer, r->arg) is written by
 * each body it runs, so a body must see its runner's last body.  At the
 * end every completed round ran exactly once, nothing is due and every
 * runner is idle: a round due with every runner idle is LOST. */

#include "algos/evcount.h"
#include "algos/plain.h"
#include "core/access.h"
#include "core/threads.h"

#include "internal/graph/cont_count.h"

#define MAX_SIGNALS 2
#define MAX_RUNNERS 2
#define MAX_DUE 2

static _Alignas(64) _Atomic uint64_t sig;
static _Alignas(64) _Atomic size_t due;
static _Alignas(64) _Atomic int64_t datum[MAX_SIGNALS];  /* each sender's */
static _Alignas(64) _Atomic int64_t record[MAX_RUNNERS]; /* bodies run */
static size_t threshold;
static int nsignals, nrunners, nbusy; /* nbusy: busy at the start */
static int bodies, runs[MAX_RUNNERS]; /* bodies run; by each runner */
static unsigned queue[MAX_DUE];       /* due rounds' senders, in order */
static int queued, taken, made_due;   /* made due; taken; makers */

/* The graph never stops; a sender whose flag (ctx) is set signals from
 * a graph task that runs the round itself (wf__cont_start_fn). */
static enum wf__cont_start round_start(void *own)
{
    return *(bool *)own ? WF__CONT_OWN : WF__CONT_RUNNER;
}

/* The body of runner i for a round whose signals are `senders` (a mask):
 * it reads their data and its runner's record, and counts itself there. */
static void body(int t, unsigned i, unsigned senders)
{
    bodies++;
    for (int s = 0; s < nsignals && !S.fail[0]; s++) {
        if (!(senders & 1u << s))
            continue;
        if (plain_read(&datum[s]) != 1)
            sim_failf("%s runs runner %u's body for a round %s signalled, "
                      "but reads %s's datum as not yet written (stale)",
                      sim_thread_name(t), i, sim_thread_name(s),
                      sim_thread_name(s));
    }
    int64_t r = plain_read(&record[i]);
    if (r != runs[i] && !S.fail[0])
        sim_failf("%s runs runner %u's body but reads its record as %lld, "
                  "not %d: it does not see the runner's last body",
                  sim_thread_name(t), i, (long long)r, runs[i]);
    plain_write(&record[i], r + 1);
    runs[i]++;
}

/* The senders of the round a take of `due` took: the oldest made due. */
static unsigned take_round(void)
{
    return taken < queued ? queue[taken++] : 0;
}

static void run_runner(int t, unsigned i, unsigned senders);

/* A round the signalling thread runs itself (continue.c's run_own): no
 * runner, so no record. */
static void own_body(int t, unsigned senders)
{
    bodies++;
    for (int s = 0; s < nsignals && !S.fail[0]; s++)
        if ((senders & 1u << s) && plain_read(&datum[s]) != 1)
            sim_failf("%s runs its own round's body but reads %s's datum "
                      "as not yet written (stale)",
                      sim_thread_name(t), sim_thread_name(s));
}

/* continue.c's start_due and start_due_rounds: after making a runner
 * idle or a round due, G9's second look. */
static void start_due(int t)
{
    if (!wf__cont_any_due(&due))
        return;
    int i;
    while ((i = wf__cont_start_due(&sig, &due, false)) >= 0)
        run_runner(t, (unsigned)i, take_round());
}

/* continue.c's run and next_round: bodies while rounds are due, then
 * idle. */
static void run_runner(int t, unsigned i, unsigned senders)
{
    for (;;) {
        body(t, i, senders);
        if (!wf__cont_take_due(&due))
            break;
        senders = take_round();
    }
    wf__cont_set_idle(&sig, wf__cont_bit(i));
    start_due(t);
}

/* continue.c's round_due: a round that found no runner idle. */
static void round_due(int t, unsigned senders)
{
    wf__cont_make_due(&due);
    if (queued < MAX_DUE)
        queue[queued++] = senders;
    made_due |= 1 << t;
    start_due(t);
}

/* T1 in g9-own and g9-adopt: a graph task's signal (own).  g9-adopt's
 * thread then gives its own round to the pool instead of running it. */
static bool own_signals[MAX_SIGNALS], adopts;

/* A predecessor's body writes its datum; cont_signal signals. */
static void sender(int t)
{
    plain_write(&datum[t], 1);
    int r = wf__cont_signal(&sig, threshold, round_start, &own_signals[t]);
    unsigned senders = threshold > 1 ? (1u << nsignals) - 1 : 1u << t;
    if (r > 0)
        run_runner(t, (unsigned)r - 1, senders);
    else if (r == WF__CONT_OWN_ROUND && adopts)
        round_due(t, senders); /* adopt_own */
    else if (r == WF__CONT_OWN_ROUND)
        own_body(t, senders); /* run_own */
    else if (r == WF__CONT_NO_RUNNER)
        round_due(t, senders);
}

/* g9-two's owner: its signal, before the scenario, found every runner
 * busy (wf__cont_signal returned WF__CONT_NO_RUNNER): round_due. */
static void maker(int t)
{
    plain_write(&datum[t], 1);
    wf__cont_make_due(&due);
    queue[queued++] = 1u << t;
    made_due |= 1 << t;
    start_due(t);
}

/* A runner busy at the start, on thread `nsignals + j`: runner
 * nrunners - nbusy + j, whose round's body (its signals came before the
 * scenario: it reads no datum) ends. */
static void runner_end(int t)
{
    run_runner(t, (unsigned)(nrunners - nbusy + t - nsignals), 0);
}

/* `signals` threads running `send` (0 ..), then `busy` threads each
 * ending a runner's body: the last `busy` runners start busy, the others
 * idle. */
static void reset(size_t thr, int signals, int runners, int busy,
                  void (*send)(int))
{
    threshold = thr;
    nsignals = signals;
    nrunners = runners;
    nbusy = busy;
    /* make_slots, add_runners */
    wf_store_relaxed(&sig, wf__cont_bits(0, (unsigned)(runners - busy)));
    wf_store_relaxed(&due, 0);
    static const char *const dn[MAX_SIGNALS] = {"datum(owner)", "datum(T1)"};
    static const char *const rn[MAX_RUNNERS] = {"record0", "record1"};
    for (int s = 0; s < MAX_SIGNALS; s++) {
        wf_store_relaxed(&datum[s], 0);
        sim_register_name(&datum[s], dn[s]);
    }
    for (int i = 0; i < MAX_RUNNERS; i++) {
        wf_store_relaxed(&record[i], 0);
        runs[i] = 0;
        sim_register_name(&record[i], rn[i]);
    }
    bodies = queued = taken = made_due = 0;
    own_signals[0] = own_signals[1] = adopts = false;
    sim_register_name(&sig, "sig");
    sim_register_name(&due, "due");
    for (int t = 0; t < signals; t++)
        sim_add_op(t, (sim_op){.kind = OP_CALL, .call = send});
    for (int i = 0; i < busy; i++)
        sim_add_op(signals + i, (sim_op){.kind = OP_CALL, .call = runner_end});
}

static void setup_g9(const explore_job *job)
{
    (void)job;
    reset(2, 2, 1, 0, sender);
}

static void setup_due(const explore_job *job)
{
    (void)job;
    reset(1, 2, 1, 0, sender);
}

static void setup_two(const explore_job *job)
{
    (void)job;
    reset(1, 1, 2, 1, maker);
}

static void setup_own(const explore_job *job)
{
    (void)job;
    reset(2, 2, 1, 0, sender);
    own_signals[1] = true;
}

static void setup_adopt(const explore_job *job)
{
    (void)job;
    reset(1, 2, 1, 0, sender);
    own_signals[1] = adopts = true;
}

/* Every round ran once, none due, every runner idle. */
static void final(void)
{
    if (S.fail[0])
        return;
    int rounds = nbusy + nsignals / (int)(threshold > 1 ? threshold : 1);
    uint64_t s = wf_load_relaxed(&sig);
    uint64_t idle = wf__cont_bits(0, (unsigned)nrunners);
    size_t d = wf_load_relaxed(&due);
    if (d != 0 && (s & idle) == idle)
        sim_failf("lost round: %zu due with every runner idle (a round made "
                  "due and a runner made idle each missed the other's step)",
                  d);
    else if (bodies != rounds)
        sim_failf("%d bodies ran for %d completed rounds", bodies, rounds);
    else if (d != 0 || s != idle)
        sim_failf("the node ends with %zu due and sig %#llx, not idle", d,
                  (unsigned long long)s);
}

static void outcome(char *buf, size_t n)
{
    size_t k =
        (size_t)snprintf(buf, n, "bodies %d (runner 0: %d", bodies, runs[0]);
    for (int i = 1; i < nrunners && k < n; i++)
        k += (size_t)snprintf(buf + k, n - k, ", runner %d: %d", i, runs[i]);
    k += (size_t)snprintf(buf + k, n - k, ") | made due by");
    for (int t = 0; t < nsignals && k < n; t++)
        if (made_due & 1 << t)
            k += (size_t)snprintf(buf + k, n - k, " %s", sim_thread_name(t));
    if (!made_due && k < n)
        snprintf(buf + k, n - k, " none");
}

#define CORRECT                                                                \
    "every completed round's body ran once and saw its signals' data and "     \
    "its runner's last body; nothing due, every runner idle at the end"

const sim_protocol sim_proto_g9 = {
    "g9",
    "two senders write their data and signal a continue_node of threshold "
    "2; the one that completes the round takes the runner, runs the body "
    "(reads both data) and ends it",
    2,
    setup_g9,
    final,
    outcome,
    CORRECT};
const sim_protocol sim_proto_g9_due = {
    "g9-due",
    "two senders signal a continue_node of threshold 1 with one runner: a "
    "round that finds it busy is made due, the runner's end takes it or "
    "goes idle and looks again",
    2,
    setup_due,
    final,
    outcome,
    CORRECT};
const sim_protocol sim_proto_g9_two = {
    "g9-two",
    "a continue_node of threshold 1 with two runners: the owner makes due a "
    "round that found both busy and pairs it with an idle one while T1 ends "
    "runner 1's body; the round's body sees its runner's last body",
    2,
    setup_two,
    final,
    outcome,
    CORRECT};
const sim_protocol sim_proto_g9_own = {
    "g9-own",
    "a continue_node of threshold 2: the owner signals from outside, T1 from "
    "a graph task; if T1 completes the round it runs the body itself (no "
    "runner), which sees the owner's datum",
    2,
    setup_own,
    final,
    outcome,
    CORRECT};
const sim_protocol sim_proto_g9_adopt = {
    "g9-adopt",
    "a continue_node of threshold 1, one runner: the owner's round takes "
    "the runner; T1's own round is given to the pool instead (made due, "
    "paired with the runner, busy or not)",
    2,
    setup_adopt,
    final,
    outcome,
    CORRECT};
