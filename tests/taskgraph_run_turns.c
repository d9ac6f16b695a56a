/* SPDX-License-Identifier: Apache-2.0 */
/* One task graph run by two threads in turn (T4 of docs/protocols.md:
 * one run at a time, and each run sees what the one before it wrote).
 *
 * handover two workers of one pool take turns at wf_tg_run of the same
 *          graph, handing the turn over through a relaxed atomic that
 *          orders nothing: only the run's own CAS of `running` (acquire)
 *          and the release store that ends a run order one turn's run
 *          after the other's.  Every other run fails (the graph's second
 *          task returns an error when the count is odd), so that a run's
 *          last write to the graph (`dirty`, after its round) comes after
 *          every RMW of the run's, and a clean run's tasks write the count
 *          after the round's exchange of `run_error`, which the next
 *          run's exchange reads.  Under ThreadSanitizer either order
 *          weakened to relaxed is a data race on the graph's fields or on
 *          the tasks' plain count.
 * contend  two workers call wf_tg_run of one graph at once, over and over:
 *          a run that finds the other in progress returns WF_EBUSY and
 *          runs nothing; every run that started ran the graph once, and
 *          the count it leaves is the number of runs.
 *
 * The two runners are tasks of a pool with two workers (wf_tg_run from a
 * task runs the graph on that worker): each spins in its task, so
 * neither helps the other's run, and no caller slot, which a thread from
 * outside would take and hand on with release and acquire, orders their
 * runs. */
#include <sched.h>
#include <stdatomic.h>

#include "check.h"

/* The tasks' data: plain, as an application's, and touched by the runs'
 * tasks alone (a runner that read it after its run would race with the
 * other's next run, which nothing orders after that read). */
typedef struct {
    long runs; /* one more per run, by the chain's first task */
    long seen; /* the count the second task read in the run before */
} data;

static int count(void *ctx)
{
    data *d = ctx;
    CHECK_EQ(d->runs, d->seen); /* the run before left both equal */
    d->runs++;
    return 0;
}

/* The chain's second task: fails on an odd count. */
static int check_odd(void *ctx)
{
    data *d = ctx;
    CHECK_EQ(d->runs, d->seen + 1);
    d->seen = d->runs;
    return d->runs % 2 ? WF_EUSER(1) : 0;
}

typedef struct {
    wf_task task; /* first: the root submitted */
    int id;       /* 0 or 1 */
} runner;

static wf_taskgraph *graph;
static data shared_data;
static long turns;
/* Whose turn it is: relaxed, so that the hand-over orders nothing. */
static _Atomic int turn;
static _Atomic int started, finished;
static _Atomic long started_runs; /* contend: runs that were not refused */

/* Both runners in their tasks before either runs the graph: a help loop
 * of one then finds the other's root no longer queued. */
static void meet(void)
{
    atomic_fetch_add(&started, 1);
    while (atomic_load(&started) < 2)
        sched_yield();
}

static void take_turns(wf_task *t)
{
    runner *r = (runner *)t;
    meet();
    for (long i = 0; i < turns; i++) {
        while (atomic_load_explicit(&turn, memory_order_relaxed) != r->id)
            sched_yield();
        /* The run before this one ended before the other runner handed
         * the turn over: this run is never refused. */
        int err = wf_tg_run(graph);
        long n = 2 * i + r->id + 1; /* this run's number */
        CHECK_EQ(err, n % 2 ? WF_EUSER(1) : 0);
        atomic_store_explicit(&turn, 1 - r->id, memory_order_relaxed);
    }
    atomic_fetch_add(&finished, 1);
}

static void contend_runs(wf_task *t)
{
    (void)t;
    meet();
    for (long done = 0; done < turns;) {
        int err = wf_tg_run(graph);
        if (err == WF_EBUSY)
            continue; /* the other's run is in progress */
        CHECK(err == 0 || err == WF_EUSER(1));
        atomic_fetch_add_explicit(&started_runs, 1, memory_order_relaxed);
        done++;
    }
    atomic_fetch_add(&finished, 1);
}

/* graph: count -> check_odd, on a pool of two workers, each running fn
 * in a task of its own, `turns` times; then the checks of the count. */
static void two_runners(void (*fn)(wf_task *))
{
    turns = check_arg_long(0, 1000);
    wf_pool *pool = check_pool(3); /* two background workers */
    wf_taskgraph_config cfg = WF_TASKGRAPH_CONFIG_INIT;
    cfg.pool = pool;
    CHECK_OK(wf_taskgraph_create(&graph, &cfg));
    shared_data = (data){0};
    wf_tg_task *a = wf_tg_emplace(graph, count, &shared_data);
    wf_tg_task *b = wf_tg_emplace(graph, check_odd, &shared_data);
    CHECK_OK(wf_tg_precede(a, b));
    atomic_store(&turn, 0);
    atomic_store(&started, 0);
    atomic_store(&finished, 0);
    atomic_store(&started_runs, 0);
    static runner rs[2];
    for (int k = 0; k < 2; k++) {
        rs[k] = (runner){.id = k};
        CHECK_OK(wf_submit(pool, &rs[k].task, fn));
    }
    /* Not wf_pool_wait_idle: its helping could take a runner's root and
     * run both on this thread. */
    while (atomic_load(&finished) < 2)
        sched_yield();
    CHECK_OK(wf_pool_wait_idle(pool));
    CHECK_EQ(shared_data.runs, 2 * turns);
    CHECK_EQ(shared_data.seen, 2 * turns);
    CHECK_OK(wf_taskgraph_error(graph));
    CHECK_OK(wf_taskgraph_destroy(graph));
    CHECK_OK(wf_pool_destroy(pool));
}

static void handover(void)
{
    two_runners(take_turns);
}

static void contend(void)
{
    two_runners(contend_runs);
    CHECK_EQ(atomic_load(&started_runs), 2 * turns);
}

static const check_scenario scenarios[] = {
    {"handover", handover},
    {"contend", contend},
};

int main(int argc, char **argv)
{
    return CHECK_RUN_SCENARIOS("taskgraph_run_turns", argc, argv, scenarios);
}
