/* SPDX-License-Identifier: Apache-2.0 */
/* weft-sim park: the pool's sleep/wake handshake (docs/protocols.md, P3),
 * a second protocol next to the deque: no wake-up may be lost.
 *
 * The code below restates the two halves of src/pool/evcount.c (the
 * pool's event counts, which depend on atomic.h alone) on the shipped
 * deque (src/deque.c, through the simulator); the handshake is copied,
 * access for access and order for order, and kept beside this comment:
 *
 *   the pusher (wf__ec_wake_sleeper)        the parker (wf__ec_sleep_begin)
 *   wf_deque_push(dq, task)                 e = load_acquire(&epoch)
 *   fence_seqcst()                          fetch_add_seqcst(&sleepers, 1)
 *   if (load_relaxed(&sleepers) != 0)       fence_seqcst()
 *       fetch_add_release(&epoch, 1)        if (wf_deque_size(dq) == 0)
 *       + futex wake                            futex_wait(&epoch, e)
 *
 * A futex wait sleeps only if the word still holds e when the kernel looks
 * (under the lock a wake takes too), so it is a seq_cst load of epoch
 * here; and a wake that follows an increment wakes a sleeper queued
 * before it.  A wake-up is lost when the parker sleeps (its rescan saw no
 * task, its futex saw the old epoch) while the pusher saw no sleeper: the
 * task waits in the deque with every worker asleep.  The fences are what
 * forbid that: either the pusher's comes first in their order, and the
 * rescan sees the task, or the parker's does, and the pusher sees it. */
#include <string.h>

#include "algos/algos.h"
#include "algos/handshake.h"
#include "algos/weft_deque.h"
#include "core/threads.h"
#include "search/explore.h"

static _Alignas(64) _Atomic int64_t epoch;
static _Alignas(64) _Atomic int64_t sleepers;
static bool no_wake_fence, no_park_fence; /* the mutants */
static int woke, asleep, saw_work;

static void pusher(int t)
{
    (void)t;
    wf_deque_push(&sim_weft_dq, SIM_VALUE(0));
    if (!no_wake_fence)
        wf_fence_seqcst(); /* P3: StoreLoad, pairs with the parker's */
    woke = wf_load_relaxed(&sleepers) != 0;
    if (woke)
        wf_fetch_add_release(&epoch, 1);
}

static void parker(int t)
{
    (void)t;
    int64_t e = wf_load_acquire(&epoch);
    wf_fetch_add_seqcst(&sleepers, 1);
    if (!no_park_fence)
        wf_fence_seqcst(); /* P3: pairs with the pusher's */
    saw_work = wf_deque_size(&sim_weft_dq) > 0;
    asleep = !saw_work && wf_load_seqcst(&epoch) == e;
}

static void setup(const explore_job *job)
{
    (void)job;
    wf_store_relaxed(&epoch, 0);
    wf_store_relaxed(&sleepers, 0);
    woke = asleep = saw_work = 0;
    sim_register_name(&epoch, "epoch");
    sim_register_name(&sleepers, "sleepers");
    sim_add_op(0, (sim_op){.kind = OP_CALL, .call = pusher});
    sim_add_op(1, (sim_op){.kind = OP_CALL, .call = parker});
}

static void final(void)
{
    if (asleep && !woke)
        sim_failf("lost wake-up: the parker sleeps (its rescan saw an empty "
                  "deque, its futex the old epoch) and the pusher saw no "
                  "sleeper, so the task waits with nobody awake");
}

static void outcome(char *buf, size_t n)
{
    snprintf(buf, n, "woke=%d saw_work=%d asleep=%d", woke, saw_work, asleep);
}

typedef struct variant {
    const char *name;
    bool wake_fence, park_fence;
    const char *catch_model; /* the weakest model that loses a wake-up */
} variant;

static const variant variants[] = {
    {"park", true, true, "-"},
    {"park-no-wake-fence", false, true, "tso"},
    /* on x86 the locked increment of sleepers is a full fence already */
    {"park-no-park-fence", true, false, "arm"},
};

/* Every variant under every model: the handshake loses nothing, each
 * mutant loses a wake-up exactly under its model and the weaker ones. */
int cmd_park(int argc, char **argv)
{
    bool verbose = argc > 0 && strcmp(argv[0], "-v") == 0;
    int bad = 0;
    for (size_t v = 0; v < sizeof variants / sizeof *variants; v++) {
        no_wake_fence = !variants[v].wake_fence;
        no_park_fence = !variants[v].park_fence;
        int from = sim_model_parse(variants[v].catch_model);
        for (int m = 0; m < MODEL_COUNT; m++) {
            explore_job job = {.algo = &sim_algo_weft,
                               .model = m,
                               .nthreads = 2,
                               .capacity = 2,
                               .setup = setup,
                               .final = final,
                               .outcome = outcome,
                               .collect_outcomes = verbose,
                               .preemptions = -1,
                               .extra_after_fail = 0};
            explore_result res;
            if (explore_run(&job, &res) != 0)
                return 2;
            bool lost = res.failed;
            bool want = from >= 0 && m >= from; /* sc < tso < pso < arm, c11 */
            bool ok = lost == want && (res.exhausted || res.failed);
            bad += !ok;
            printf("%s %-20s %-3s %s (%ld executions)\n", ok ? "ok  " : "FAIL",
                   variants[v].name, sim_model_name(m),
                   lost ? "lost wake-up" : "no lost wake-up", res.execs);
            for (int k = 0; verbose && k < res.noutcomes; k++)
                printf("       %s\n", res.outcomes[k]);
            if (lost && verbose)
                printf("       %s\n", res.fail);
            explore_result_free(&res);
        }
    }
    no_wake_fence = no_park_fence = false;
    return bad ? 1 : 0;
}
