/* SPDX-License-Identifier: Apache-2.0 */
/* A continue_node's rounds (rule G9 of docs/protocols.md) on the
 * library's own code: src/internal/graph/cont_count.h compiled unchanged
 * with -DWF_SIM, driven as src/graph/nodes/continue.c drives it
 * (cont_signal).  The thread whose signal completes a round runs its body
 * at once: continue.c runs it on that thread (run_own) or spawns a task
 * for it, whose spawn orders what the thread saw before the body (D1).
 *
 *   g9        threshold 2: owner and T1 each write their datum, then
 *             signal; the one that completes the round runs the body,
 *             which reads both data.
 *   g9-three  threshold 3, three senders: the round's last signal must
 *             see the first's datum through the second's RMW between
 *             them (a release sequence on sig).
 *   g9-each   threshold 1: every signal completes a round of its own,
 *             whose body reads its sender's datum; two rounds, two
 *             bodies, and the count back at 0.
 *
 * A body must see the data its round's signals published (a stale read
 * under the hardware models, a data race under c11).  At the end every
 * completed round ran exactly once and the count is back at 0. */

#include "algos/evcount.h"
#include "algos/plain.h"
#include "core/access.h"
#include "core/threads.h"

#include "internal/graph/cont_count.h"

#define MAX_SIGNALS 3

static _Alignas(64) _Atomic uint64_t sig;
static _Alignas(64) _Atomic int64_t datum[MAX_SIGNALS]; /* each sender's */
static size_t threshold;
static int nsignals, bodies;

/* A round's body: it reads the data of the signals that made it (all of
 * them, or its own sender's when every signal is a round). */
static void body(int t)
{
    bodies++;
    for (int s = 0; s < nsignals && !S.fail[0]; s++) {
        if (threshold <= 1 && s != t)
            continue;
        if (plain_read(&datum[s]) != 1)
            sim_failf("%s runs the round's body but reads %s's datum as not "
                      "yet written (stale)",
                      sim_thread_name(t), sim_thread_name(s));
    }
}

/* A predecessor's body writes its datum; cont_signal signals. */
static void sender(int t)
{
    plain_write(&datum[t], 1);
    if (wf__cont_signal(&sig, threshold))
        body(t);
}

static void reset(size_t thr, int signals)
{
    threshold = thr;
    nsignals = signals;
    wf_store_relaxed(&sig, 0); /* wf_continue_node_create */
    static const char *const dn[MAX_SIGNALS] = {"datum(owner)", "datum(T1)",
                                                "datum(T2)"};
    for (int s = 0; s < MAX_SIGNALS; s++) {
        wf_store_relaxed(&datum[s], 0);
        sim_register_name(&datum[s], dn[s]);
    }
    bodies = 0;
    sim_register_name(&sig, "sig");
    for (int t = 0; t < signals; t++)
        sim_add_op(t, (sim_op){.kind = OP_CALL, .call = sender});
}

static void setup_g9(const explore_job *job)
{
    (void)job;
    reset(2, 2);
}

static void setup_three(const explore_job *job)
{
    (void)job;
    reset(3, 3);
}

static void setup_each(const explore_job *job)
{
    (void)job;
    reset(1, 2);
}

/* Every completed round ran once; the count is back at 0. */
static void final(void)
{
    if (S.fail[0])
        return;
    int rounds = nsignals / (int)(threshold > 1 ? threshold : 1);
    uint64_t s = wf_load_relaxed(&sig);
    if (bodies != rounds)
        sim_failf("%d bodies ran for %d completed rounds", bodies, rounds);
    else if (s != 0)
        sim_failf("the node ends with %llu signals counted, not 0",
                  (unsigned long long)s);
}

static void outcome(char *buf, size_t n)
{
    snprintf(buf, n, "bodies %d", bodies);
}

#define CORRECT                                                                \
    "every completed round's body ran once and saw its signals' data; the "    \
    "count back at 0 at the end"

const sim_protocol sim_proto_g9 = {
    "g9",
    "two senders write their data and signal a continue_node of threshold "
    "2; the one that completes the round runs the body (reads both data)",
    2,
    setup_g9,
    final,
    outcome,
    CORRECT};
const sim_protocol sim_proto_g9_three = {
    "g9-three",
    "three senders write their data and signal a continue_node of threshold "
    "3; the last runs the body, which reads all three data",
    3,
    setup_three,
    final,
    outcome,
    CORRECT};
const sim_protocol sim_proto_g9_each = {
    "g9-each",
    "two senders signal a continue_node of threshold 1: each signal "
    "completes a round, whose body reads its sender's datum",
    2,
    setup_each,
    final,
    outcome,
    CORRECT};
