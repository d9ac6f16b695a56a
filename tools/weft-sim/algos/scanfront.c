/* SPDX-License-Identifier: Apache-2.0 */
/* The scan's frontier (rule A6 of docs/protocols.md) on the library's own
 * code: src/internal/algo/scan_front.h compiled unchanged with -DWF_SIM,
 * driven as src/algo/scan.c's first pass drives it (block_run: at, pass,
 * folded, advance with its step) and ended as its scan_root_fn ends it
 * (the steps from the frontier's end over the folded blocks).  Block k's
 * sum is 2^k and the combination is addition, so prefix k is 2^k - 1:
 *
 *   a6          two blocks, block 0 on the owner, block 1 on T1: block 1
 *               finds the frontier and reads prefix 1, or folds its sum
 *               for the owner's advance (or takes the token first and
 *               advances past itself from the owner's pass).
 *   a6-advance  three blocks, blocks 0 and 2 on the owner (a thread meets
 *               its blocks in order), block 1 on T1: two advancers take
 *               the token in turn, and the owner's block 2 finds the
 *               frontier that T1's advance moved.
 *   a6-three    three blocks, one on each of three threads: any block
 *               may fold or find the frontier, an advance may step past
 *               two folded blocks, and a thread may find the token held.
 *
 * A prefix, a sum and step()'s accesses are plain memory under arm and
 * c11 (c11 reports an unordered access as a data race; arm reads it
 * stale), relaxed atomics under sc, tso and pso.  Checked: every prefix
 * and sum that a block or a step reads has the value written before it
 * (so every prefix written is right); the frontier moves past each block
 * once (one writer, A6), by its final pass or by one step over its folded
 * sum, and never back: it ends at or past every value it was moved to,
 * every prefix up to it written and every block from it on folded, so
 * that scan_root_fn's steps complete the prefixes and the total. */

#include "algos/evcount.h"
#include "algos/plain.h"
#include "core/access.h"
#include "core/threads.h"

#include "internal/algo/scan_front.h"

#define MAX_BLOCKS 3

static _Alignas(64) wf__scan_front front;
static _Alignas(64) _Atomic unsigned char state[MAX_BLOCKS];
static _Alignas(64) _Atomic int64_t pre[MAX_BLOCKS + 1]; /* scan.c's pre */
static _Alignas(64) _Atomic int64_t sums[MAX_BLOCKS];    /* scan.c's sums */
static size_t nblocks;
#define MAX_THREADS 3
static int blocks_of[MAX_THREADS][MAX_BLOCKS]; /* each thread's, in order */
static int nblocks_of[MAX_THREADS];
/* What the threads did (scaffolding, not memory of the scenario): which
 * blocks ran their final pass, which the frontier was stepped past, and
 * the highest value the frontier was moved to. */
static bool passed[MAX_BLOCKS], stepped[MAX_BLOCKS];
static size_t reached;

static int64_t prefix(size_t k) /* the right value of pre[k] */
{
    return ((int64_t)1 << k) - 1;
}

/* Prefix k or block k's folded sum, as a block or a step reads it: it
 * must be the value written before (the frontier's or the state's
 * acquire made it visible). */
static int64_t read_prefix(size_t k)
{
    int64_t v = plain_read(&pre[k]);
    if (v != prefix(k) && !S.fail[0])
        sim_failf("%s reads prefix %zu as %lld, not %lld: it does not see "
                  "the write of it (stale)",
                  sim_thread_name(S.cur), k, (long long)v,
                  (long long)prefix(k));
    return v;
}

static int64_t read_sum(size_t k)
{
    int64_t v = plain_read(&sums[k]);
    if (v != (int64_t)1 << k && !S.fail[0])
        sim_failf("%s reads block %zu's folded sum as %lld, not %lld: it "
                  "does not see the fold (stale)",
                  sim_thread_name(S.cur), k, (long long)v, (long long)1 << k);
    return v;
}

/* scan.c's step: pre[k + 1] = pre[k] (+) sums[k], as the frontier moves
 * past the folded block k. */
static void step(size_t k, void *arg)
{
    (void)arg;
    int64_t p = read_prefix(k);
    plain_write(&pre[k + 1], p + read_sum(k));
    if ((stepped[k] || passed[k]) && !S.fail[0])
        sim_failf("%s moves the frontier past block %zu again (after %s): "
                  "it read the frontier as %zu after it had moved to %zu "
                  "(stale), so the frontier has two writers and may move "
                  "back",
                  sim_thread_name(S.cur), k,
                  passed[k] ? "its final pass" : "a step over its sum", k,
                  k + 1);
    stepped[k] = true;
    if (k + 1 > reached)
        reached = k + 1;
}

/* scan.c's block_run, first pass: the block at the frontier runs its
 * final pass from its prefix and passes the frontier on; one that starts
 * early folds its sum.  Either then advances the frontier. */
static void block_run(int t, size_t k)
{
    (void)t;
    int64_t sum = (int64_t)1 << k; /* the block's elements combined */
    if (wf__scan_front_at(&front, k)) {
        plain_write(&pre[k + 1], read_prefix(k) + sum);
        if (stepped[k] && !S.fail[0])
            sim_failf("%s runs block %zu's final pass after the frontier "
                      "was stepped past it",
                      sim_thread_name(S.cur), k);
        passed[k] = true;
        wf__scan_front_pass(&front, k);
        if (k + 1 > reached)
            reached = k + 1;
    } else {
        plain_write(&sums[k], sum);
        wf__scan_front_folded(&front, k);
    }
    wf__scan_front_advance(&front, step, NULL);
}

static void blocks(int t)
{
    for (int i = 0; i < nblocks_of[t]; i++)
        block_run(t, (size_t)blocks_of[t][i]);
}

/* n blocks; thread t runs the blocks of `runs` (one string a thread,
 * one digit a block, in order: "02" runs block 0 then block 2). */
static void reset(size_t n, int nthreads, const char *const *runs)
{
    nblocks = n;
    for (int t = 0; t < nthreads; t++) {
        nblocks_of[t] = 0;
        for (const char *c = runs[t]; *c; c++)
            blocks_of[t][nblocks_of[t]++] = *c - '0';
    }
    static const char *const pn[MAX_BLOCKS + 1] = {"pre0", "pre1", "pre2",
                                                   "pre3"};
    static const char *const sn[MAX_BLOCKS] = {"sum0", "sum1", "sum2"};
    static const char *const stn[MAX_BLOCKS] = {"state0", "state1", "state2"};
    /* wf_parallel_scan: pre[0] is the identity; the other accumulators
     * are not written before their block or step writes them. */
    for (size_t k = 0; k <= MAX_BLOCKS; k++) {
        wf_store_relaxed(&pre[k], 0);
        sim_register_name(&pre[k], pn[k]);
    }
    for (size_t k = 0; k < MAX_BLOCKS; k++) {
        wf_store_relaxed(&sums[k], 0);
        sim_register_name(&sums[k], sn[k]);
        sim_register_name(&state[k], stn[k]);
        passed[k] = stepped[k] = false;
    }
    wf__scan_front_init(&front, state, n);
    sim_register_name(&front.frontier, "frontier");
    sim_register_name(&front.advancing, "advancing");
    reached = 0;
    for (int t = 0; t < nthreads; t++)
        sim_add_op(t, (sim_op){.kind = OP_CALL, .call = blocks});
}

static void setup_a6(const explore_job *job)
{
    (void)job;
    static const char *const runs[] = {"0", "1"};
    reset(2, 2, runs);
}

static void setup_advance(const explore_job *job)
{
    (void)job;
    static const char *const runs[] = {"02", "1"};
    reset(3, 2, runs);
}

static void setup_three(const explore_job *job)
{
    (void)job;
    static const char *const runs[] = {"0", "1", "2"};
    reset(3, 3, runs);
}

/* After the joins, as scan_root_fn goes on: the frontier ends at or past
 * every value it was moved to, every prefix up to it was written (each
 * write read the right prefix and sum, checked as it ran), and every
 * block from it on folded its sum, so that the steps from there make the
 * rest.  (Under arm and c11 the memory holds no plain write's value after
 * the search, so the prefixes are checked as they are written.) */
static void final(void)
{
    if (S.fail[0])
        return;
    size_t f = wf__scan_front_end(&front);
    if (f < reached) {
        sim_failf("the frontier ends at %zu after it was moved to %zu: it "
                  "moved back",
                  f, reached);
        return;
    }
    for (size_t k = 0; k < f; k++)
        if (!passed[k] && !stepped[k]) {
            sim_failf("the frontier ends at %zu, but prefix %zu was never "
                      "written",
                      f, k + 1);
            return;
        }
    for (size_t k = f; k < nblocks; k++)
        if (!wf__scan_front_was_folded(&front, k)) {
            sim_failf("the frontier ends at %zu, but block %zu after it did "
                      "not fold its sum",
                      f, k);
            return;
        }
}

static void outcome(char *buf, size_t n)
{
    size_t k = (size_t)snprintf(
        buf, n, "frontier %zu | final pass:", wf__scan_front_end(&front));
    bool any = false;
    for (size_t b = 0; b < nblocks && k < n; b++)
        if (passed[b]) {
            k += (size_t)snprintf(buf + k, n - k, " %zu", b);
            any = true;
        }
    if (!any && k < n)
        k += (size_t)snprintf(buf + k, n - k, " none");
    if (k < n)
        k += (size_t)snprintf(buf + k, n - k, " | stepped:");
    any = false;
    for (size_t b = 0; b < nblocks && k < n; b++)
        if (stepped[b]) {
            k += (size_t)snprintf(buf + k, n - k, " %zu", b);
            any = true;
        }
    if (!any && k < n)
        snprintf(buf + k, n - k, " none");
}

#define CORRECT                                                                \
    "every prefix and sum read as written; the frontier moved past each "      \
    "block once, by its final pass or a step over its folded sum, never back"

const sim_protocol sim_proto_a6 = {
    "a6",
    "a scan of two blocks, one on the owner, one on T1: a block at the "
    "frontier runs its final pass and passes it, one that starts early "
    "folds its sum; each then advances the frontier past folded blocks",
    2,
    setup_a6,
    final,
    outcome,
    CORRECT};
const sim_protocol sim_proto_a6_advance = {
    "a6-advance",
    "a scan of three blocks, 0 and 2 on the owner, 1 on T1: two advancers "
    "take the token in turn, and block 2 finds the frontier an advance "
    "moved",
    2,
    setup_advance,
    final,
    outcome,
    CORRECT};
const sim_protocol sim_proto_a6_three = {
    "a6-three",
    "a scan of three blocks, one on each of three threads: blocks fold or "
    "find the frontier in any order, an advance may step past two folded "
    "blocks, and the token is taken while another holds it",
    3,
    setup_three,
    final,
    outcome,
    CORRECT};
