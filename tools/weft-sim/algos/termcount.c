/* SPDX-License-Identifier: Apache-2.0 */
/* Termination detection's counts (rule M3 of docs/protocols.md) on the
 * library's own code: src/internal/mpi/count_steps.h compiled unchanged
 * with -DWF_SIM, driven as src/internal/mpi/counters.h and
 * src/mpi/termination.c (wf_mpi_graph_wait_all's rounds) drive it, with
 * two ranks in one simulation.  Each rank has its own pair of counts
 * (S, R: n_sent, n_received); what MPI does is the scenario's own:
 *
 *   a message   a release store of 1 to the word `wire(to rank j)` (the
 *               post), after the sender's wf__mpi_count_sent_step; the
 *               receiving rank's engine loads it with acquire (the
 *               receive; MPI's matching is taken as synchronisation) and,
 *               if it read 1, counts it with wf__mpi_count_received_step.
 *               An engine that reads 0 never receives it in that
 *               execution.
 *   a round     a rank's waiter reads its counts (wf__mpi_counts_round:
 *               S, then R), stores them to its word `coll(rank, round)`
 *               with release and loads the other rank's with acquire (the
 *               allreduce: every contribution happens before every
 *               return).  A waiter that finds the other's contribution
 *               missing is left waiting: its part ends there, unchecked;
 *               the execution where the load reads the contribution is
 *               explored on its own.  After two rounds a waiter concludes
 *               as termination.c does: both rounds' sums equal, and S = R
 *               in them.
 *
 *   m3      owner, a worker of rank 0, counts a send and posts it to rank
 *           1; T1, rank 1's engine, receives and counts it; T2 and T3 are
 *           the waiters of ranks 0 and 1, two rounds each.  The check is
 *           the method's bound R* <= S' (termination.c's header): the
 *           receipts summed by the first round are at most the sends
 *           summed by the second.  Here R* counts the one receipt only
 *           if rank 1's first reading of R did, and S' counts its send
 *           only if rank 0's second reading of S did: the chain of
 *           count_steps.h, from the send's count through the post, the
 *           receipt's release count and the round's acquire load, and
 *           the collective, to the next round's load of S.
 *   m3-end  the detector's conclusion.  owner is rank 1's waiter, which
 *           first runs rank 1's work (it takes part in it, as
 *           wait_all's first local wait does): a message m0 to rank 0,
 *           counted, posted.  T1, rank 0's engine, receives m0: the put
 *           starts its work (wf__pending_hold on rank 0's `pending`,
 *           G5), then the count; the work counts and posts m1 to rank 1
 *           and ends (wf__pending_drop_last).  T2, rank 0's waiter, waits
 *           before each round until its graph is idle (wf__pending_idle;
 *           a waiter that finds it busy is left waiting, as above).  T3,
 *           rank 1's engine, receives and counts m1, which starts no
 *           work.  A waiter that concludes termination must have summed
 *           every count of the execution: a send or a receipt that its
 *           second round missed was a message in flight, or work still
 *           running, when it concluded (FALSE TERMINATION).  The
 *           chain breaks in two places here: rank 0's round counts m0's
 *           receipt but its next local wait misses m0's work (the local
 *           half: the receipt is counted after the put's hold, and the
 *           wait must see the hold); or rank 1's first round counts m1's
 *           receipt and rank 0's second misses m1's send (m3's chain).
 *           Either way both rounds sum S = R = 1 while the execution
 *           counts two sends: rank 0's counts of m0's work, made or
 *           still to be made, are missing from them.
 *
 * Under sc, tso and pso the chain holds whatever the counts' orders.
 * Under arm m3's does too (the post's and the collective's releases
 * order the accesses before them, and the receive's acquire those after
 * it), but a relaxed receipt count may be seen before the put's hold
 * (m3-end).  Under c11, c20 and c11std a relaxed receipt count or a
 * relaxed load of R breaks both halves. */
#include <string.h>

#include "algos/evcount.h"
#include "core/access.h"
#include "core/threads.h"

#include "internal/graph/pending.h"
#include "internal/mpi/count_steps.h"

#define NRANKS 2
#define NROUNDS 2

/* One rank's counts, as in wf_mpi; each on a line of its own. */
typedef struct rank_counts {
    _Alignas(64) _Atomic uint64_t n_sent;
    _Alignas(64) _Atomic uint64_t n_received;
} rank_counts;

static rank_counts counts[NRANKS];
static _Alignas(64) _Atomic int64_t wire[NRANKS]; /* a message to rank j */
static _Alignas(64) _Atomic int64_t coll[NRANKS][NROUNDS]; /* allreduce */
static _Alignas(64) _Atomic long pending0; /* rank 0's graph (m3-end) */

static bool end_to_end; /* m3-end */
static int rounds_done[NRANKS];
static int64_t sum_s[NRANKS][NROUNDS], sum_r[NRANKS][NROUNDS];
static bool concluded[NRANKS];

/* A round's contribution: 1 (present), S and R. */
static int64_t encode(uint64_t s, uint64_t r)
{
    return 1 + (int64_t)(s << 8) + (int64_t)(r << 16);
}

/* A message counted as sent (counters.h's wf__mpi_count_sent), then
 * posted to rank `to`. */
static void send_to(int from, int to)
{
    wf__mpi_count_sent_step(&counts[from].n_sent);
    wf_store_release(&wire[to], 1);
}

/* Rank `me`'s engine receives: true if the message is there (counted as
 * received by the caller, after the work it starts has started). */
static bool receive(int me)
{
    return wf_load_acquire(&wire[me]) == 1;
}

/* Two rounds of wf_mpi_graph_wait_all on rank `me` (thread t); `local_wait`: rank
 * 0 of m3-end, whose graph has work to wait for. */
static void rounds(int t, int me, bool local_wait)
{
    int other = 1 - me;
    for (int k = 0; k < NROUNDS; k++) {
        if (local_wait && !wf__pending_idle(&pending0))
            return; /* waits for the graph: left, unchecked */
        uint64_t s, r;
        wf__mpi_counts_round(&counts[me].n_sent, &counts[me].n_received, &s,
                             &r);
        wf_store_release(&coll[me][k], encode(s, r));
        int64_t v = wf_load_acquire(&coll[other][k]);
        if (v == 0)
            return; /* the allreduce waits for the other rank: left */
        sum_s[me][k] = (int64_t)s + ((v >> 8) & 0xff);
        sum_r[me][k] = (int64_t)r + ((v >> 16) & 0xff);
        rounds_done[me] = k + 1;
    }
    concluded[me] = sum_s[me][0] == sum_r[me][0] &&
                    sum_s[me][0] == sum_s[me][1] &&
                    sum_r[me][0] == sum_r[me][1];
    if (!end_to_end && sum_r[me][0] > sum_s[me][1])
        sim_failf("%s (rank %d): the first round summed %lld receipts, the "
                  "second %lld sends: R* <= S' broken, a receipt counted "
                  "by the first round whose send the second missed",
                  sim_thread_name(t), me, (long long)sum_r[me][0],
                  (long long)sum_s[me][1]);
}

/* m3: rank 0's worker sends to rank 1. */
static void worker0(int t)
{
    (void)t;
    send_to(0, 1);
}

/* m3: rank 1's engine. */
static void engine1(int t)
{
    (void)t;
    if (receive(1))
        wf__mpi_count_received_step(&counts[1].n_received);
}

/* m3-end: rank 0's engine takes m0; its work sends m1. */
static void engine0_work(int t)
{
    (void)t;
    if (!receive(0))
        return;
    wf__pending_hold(&pending0); /* the put starts m0's work (G5) */
    wf__mpi_count_received_step(&counts[0].n_received);
    send_to(0, 1);                    /* the work: m1, to rank 1 */
    wf__pending_drop_last(&pending0); /* the work ends */
}

static void waiter0(int t)
{
    rounds(t, 0, end_to_end);
}

static void waiter1(int t)
{
    rounds(t, 1, false);
}

/* m3-end: rank 1's waiter runs rank 1's work first (m0, to rank 0). */
static void work_then_waiter1(int t)
{
    send_to(1, 0);
    rounds(t, 1, false);
}

static void reset(bool end)
{
    end_to_end = end;
    /* Short: the log shows the first 15 characters. */
    static const char *const sent_names[NRANKS] = {"n_sent(0)", "n_sent(1)"};
    static const char *const recv_names[NRANKS] = {"n_received(0)",
                                                   "n_received(1)"};
    static const char *const wire_names[NRANKS] = {"wire(to 0)", "wire(to 1)"};
    static const char *const coll_names[NRANKS][NROUNDS] = {
        {"coll(0).round1", "coll(0).round2"},
        {"coll(1).round1", "coll(1).round2"}};
    for (int i = 0; i < NRANKS; i++) {
        wf_store_relaxed(&counts[i].n_sent, 0);
        wf_store_relaxed(&counts[i].n_received, 0);
        wf_store_relaxed(&wire[i], 0);
        sim_register_name(&counts[i].n_sent, sent_names[i]);
        sim_register_name(&counts[i].n_received, recv_names[i]);
        sim_register_name(&wire[i], wire_names[i]);
        for (int k = 0; k < NROUNDS; k++) {
            wf_store_relaxed(&coll[i][k], 0);
            sim_register_name(&coll[i][k], coll_names[i][k]);
            sum_s[i][k] = sum_r[i][k] = -1;
        }
        rounds_done[i] = 0;
        concluded[i] = false;
    }
    wf_store_relaxed(&pending0, 0);
    sim_register_name(&pending0, "pending(0)");
}

static void setup_m3(const explore_job *job)
{
    (void)job;
    reset(false);
    sim_add_op(0, (sim_op){.kind = OP_CALL, .call = worker0});
    sim_add_op(1, (sim_op){.kind = OP_CALL, .call = engine1});
    sim_add_op(2, (sim_op){.kind = OP_CALL, .call = waiter0});
    sim_add_op(3, (sim_op){.kind = OP_CALL, .call = waiter1});
}

static void setup_m3_end(const explore_job *job)
{
    (void)job;
    reset(true);
    sim_add_op(0, (sim_op){.kind = OP_CALL, .call = work_then_waiter1});
    sim_add_op(1, (sim_op){.kind = OP_CALL, .call = engine0_work});
    sim_add_op(2, (sim_op){.kind = OP_CALL, .call = waiter0});
    sim_add_op(3, (sim_op){.kind = OP_CALL, .call = engine1});
}

/* m3-end: a rank that concluded summed every count of the execution. */
static void final(void)
{
    if (S.fail[0] || !end_to_end)
        return;
    int64_t s = 0, r = 0;
    for (int i = 0; i < NRANKS; i++) {
        s += (int64_t)wf_load_relaxed(&counts[i].n_sent);
        r += (int64_t)wf_load_relaxed(&counts[i].n_received);
    }
    for (int i = 0; i < NRANKS; i++)
        if (concluded[i] && (sum_s[i][1] != s || sum_r[i][1] != r)) {
            sim_failf("FALSE TERMINATION: rank %d concluded with S = R = "
                      "%lld in both rounds, but the execution counts %lld "
                      "sends and %lld receipts: a message was in flight, "
                      "or work still to run, when it concluded",
                      i, (long long)sum_s[i][1], (long long)s, (long long)r);
            return;
        }
}

static void outcome(char *buf, size_t n)
{
    size_t k = 0;
    for (int i = 0; i < NRANKS && k < n; i++) {
        k += (size_t)snprintf(buf + k, n - k, "%srank %d:", i ? " | " : "", i);
        for (int j = 0; j < rounds_done[i] && k < n; j++)
            k += (size_t)snprintf(buf + k, n - k, " (S %lld, R %lld)",
                                  (long long)sum_s[i][j],
                                  (long long)sum_r[i][j]);
        if (k < n)
            k += (size_t)snprintf(buf + k, n - k, "%s",
                                  concluded[i]               ? " concluded"
                                  : rounds_done[i] < NROUNDS ? " left waiting"
                                                             : " goes on");
    }
}

const sim_protocol sim_proto_m3 = {
    "m3",
    "termination detection's counts on two ranks: a worker of rank 0 "
    "counts and posts a message, rank 1's engine receives and counts it, "
    "each rank's waiter runs two rounds (count_steps.h): R* <= S'",
    4,
    setup_m3,
    final,
    outcome,
    "R* <= S': a receipt that the first round counts has its send counted "
    "by the second"};
const sim_protocol sim_proto_m3_end = {
    "m3-end",
    "rank 1's work sends m0 to rank 0, whose work sends m1 back; each "
    "rank's waiter runs two rounds, rank 0's after a local wait: no false "
    "termination",
    4,
    setup_m3_end,
    final,
    outcome,
    "no false termination: a rank that concludes has summed every send "
    "and receipt of the execution"};
