/* SPDX-License-Identifier: Apache-2.0 */
/* wait_cancel: pthread_cancel of a thread asleep in a weft wait leaves the
 * graph or pool usable.  The waits are not cancellation points (docs/
 * graph.md, "Waiting"; docs/pool.md): the request takes effect at the
 * thread's next cancellation point after the wait has returned.
 *
 * ARGS: a scenario name (none or "all": every one).
 *   graph  threads = 2.  A body blocks on the pool's background worker;
 *          four threads hold the pool's caller slots (each in a wf_run
 *          function that blocks), so a fifth thread's
 *          wf_graph_wait_for_all finds no slot and sleeps (checked in
 *          /proc: state S).  It is cancelled; 0.2 s later it must still be
 *          waiting.  The body is released: the wait returns 0 and the
 *          thread ends, cancelled, at the pthread_testcancel after it
 *          (join: PTHREAD_CANCELED).  Then the slots are released and the
 *          graph must work: wait_for_all returns 0, a new message runs its
 *          body, reset and destroy return 0, the pool is destroyed.
 *   pool   the same with a wf_submit task that blocks, and a fifth thread
 *          asleep in wf_pool_wait_idle; afterwards wait_idle returns, a new
 *          task runs and is waited for, and the pool is destroyed.
 * Before the waits were made safe, the sleeper died holding the graph's
 * (or pool's) internal mutex, and the blocked body's end hung on it: the
 * watchdog names the step that hung. */
#include <errno.h>
#include <sys/syscall.h>

#include "caller_test.h"
#include "graph_test.h"

#define PHASE_S 20 /* seconds each step may take before the watchdog */

/* ---- what blocks --------------------------------------------------------- */

static _Atomic int release_work, work_started, work_runs;
static _Atomic int release_slots, in_slot;
static _Thread_local bool slot_holder; /* set on the holders' threads */

static void block_work(void)
{
    atomic_fetch_add(&work_started, 1);
    CHECK_MSG(block_until(&release_work, check_now() + 4 * PHASE_S),
              "the blocked work was never released");
    atomic_fetch_add(&work_runs, 1);
}

static int blocking_body(const void *in, void *out, void *ctx)
{
    (void)in, (void)out, (void)ctx;
    if (atomic_load(&release_work)) { /* later messages: just count */
        atomic_fetch_add(&work_runs, 1);
        return 0;
    }
    block_work();
    return 0;
}

/* A wf_run function that keeps its caller slot until released. */
static void hold_slot(void *arg)
{
    (void)arg;
    CHECK_MSG(slot_holder, "wf_run's function ran off its caller's thread: "
                           "no slot was free");
    atomic_fetch_add(&in_slot, 1);
    CHECK_MSG(block_until(&release_slots, check_now() + 4 * PHASE_S),
              "the slots were never released");
}

static void *holder_main(void *arg)
{
    slot_holder = true;
    CHECK_OK(wf_run(arg, hold_slot, NULL));
    return NULL;
}

/* Take every caller slot of pool (four threads, each in wf_run). */
static void fill_slots(wf_pool *pool, pthread_t *holders)
{
    atomic_store(&release_slots, 0);
    atomic_store(&in_slot, 0);
    for (int i = 0; i < WF_CALLER_SLOTS; i++)
        CHECK(pthread_create(&holders[i], NULL, holder_main, pool) == 0);
    CHECK_MSG(wait_count(&in_slot, WF_CALLER_SLOTS, PHASE_S),
              "only %d slot(s) taken", atomic_load(&in_slot));
}

static void free_slots(pthread_t *holders)
{
    atomic_store(&release_slots, 1);
    for (int i = 0; i < WF_CALLER_SLOTS; i++)
        CHECK(pthread_join(holders[i], NULL) == 0);
}

/* ---- the waiter ---------------------------------------------------------- */

typedef struct {
    wf_graph *graph; /* wait for it, or else for pool to be idle */
    wf_pool *pool;
    _Atomic long tid;
    _Atomic int returned, result, survived;
} waiter;

static void *waiter_main(void *arg)
{
    waiter *w = arg;
    atomic_store(&w->tid, (long)syscall(SYS_gettid));
    int r =
        w->graph ? wf_graph_wait_for_all(w->graph) : wf_pool_wait_idle(w->pool);
    atomic_store(&w->result, r);
    atomic_store(&w->returned, 1);
    pthread_testcancel(); /* the request, deferred to here */
    atomic_store(&w->survived, 1);
    return NULL;
}

/* The state letter of thread tid (/proc/self/task/TID/stat), or '?'. */
static char thread_state(long tid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/self/task/%ld/stat", tid);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return '?';
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *p = strrchr(buf, ')'); /* after the command name */
    return p && p[1] == ' ' ? p[2] : '?';
}

/* Start the waiter, wait until it sleeps, cancel it, and check that the
 * wait goes on until the work is released; then that the thread ends
 * cancelled, after a wait that returned 0. */
static void cancel_sleeper(waiter *w)
{
    pthread_t t;
    watch("starting the waiter", PHASE_S);
    CHECK(pthread_create(&t, NULL, waiter_main, w) == 0);
    double end = check_now() + PHASE_S;
    int asleep = 0; /* consecutive looks that found it asleep */
    while (asleep < 20) {
        long tid = atomic_load(&w->tid);
        asleep = tid && thread_state(tid) == 'S' ? asleep + 1 : 0;
        CHECK_MSG(check_now() < end, "the waiter never slept");
        CHECK_MSG(!atomic_load(&w->returned),
                  "the wait returned before the work was released");
        sleep_us(5000);
    }
    watch("pthread_cancel", PHASE_S);
    CHECK(pthread_cancel(t) == 0);
    sleep_us(200000);
    CHECK_MSG(!atomic_load(&w->returned) &&
                  pthread_tryjoin_np(t, NULL) == EBUSY,
              "the wait was a cancellation point: it ended before its "
              "work was done");
    watch("the blocked work's end, after the cancel", PHASE_S);
    atomic_store(&release_work, 1);
    void *ret = NULL;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += PHASE_S;
    CHECK_MSG(pthread_timedjoin_np(t, &ret, &ts) == 0,
              "the cancelled waiter did not end");
    CHECK_EQ(atomic_load(&w->returned), 1);
    CHECK_EQ(atomic_load(&w->result), 0);
    CHECK_MSG(ret == PTHREAD_CANCELED && !atomic_load(&w->survived),
              "the cancel request was lost");
}

/* ---- scenarios ----------------------------------------------------------- */

static void scenario_graph(void)
{
    atomic_store(&release_work, 0);
    atomic_store(&work_started, 0);
    atomic_store(&work_runs, 0);
    wf_pool *pool = gt_pool(2); /* one background worker */
    wf_graph *g = gt_graph(pool);
    wf_node *f = gt_function(g, sizeof(int), 0, WF_UNLIMITED, WF_QUEUEING,
                             blocking_body, NULL);
    watch("the body's start on the worker", PHASE_S);
    gt_put(f, 1);
    CHECK(wait_count(&work_started, 1, PHASE_S));
    pthread_t holders[WF_CALLER_SLOTS];
    watch("filling the caller slots", PHASE_S);
    fill_slots(pool, holders);
    waiter w = {.graph = g};
    cancel_sleeper(&w);
    watch("the graph, after the cancel", PHASE_S);
    free_slots(holders);
    CHECK_OK(wf_graph_wait_for_all(g));
    CHECK_EQ(atomic_load(&work_runs), 1);
    gt_put(f, 2);
    CHECK_OK(wf_graph_wait_for_all(g));
    CHECK_EQ(atomic_load(&work_runs), 2);
    CHECK_OK(wf_graph_reset(g, WF_RESET_PROTOCOL));
    GT_DESTROY(g, f);
    CHECK_OK(wf_pool_destroy(pool));
    alarm(0);
}

static void blocking_task(wf_task *t)
{
    (void)t;
    if (atomic_load(&release_work))
        atomic_fetch_add(&work_runs, 1);
    else
        block_work();
}

static void scenario_pool(void)
{
    atomic_store(&release_work, 0);
    atomic_store(&work_started, 0);
    atomic_store(&work_runs, 0);
    wf_pool *pool = gt_pool(2);
    static wf_task task; /* zeroed, as wf_submit wants */
    watch("the task's start on the worker", PHASE_S);
    CHECK_OK(wf_submit(pool, &task, blocking_task));
    CHECK(wait_count(&work_started, 1, PHASE_S));
    pthread_t holders[WF_CALLER_SLOTS];
    watch("filling the caller slots", PHASE_S);
    fill_slots(pool, holders);
    waiter w = {.pool = pool};
    cancel_sleeper(&w);
    watch("the pool, after the cancel", PHASE_S);
    free_slots(holders);
    CHECK_OK(wf_pool_wait_idle(pool));
    CHECK_EQ(atomic_load(&work_runs), 1);
    memset(&task, 0, sizeof task);
    CHECK_OK(wf_submit(pool, &task, blocking_task));
    CHECK_OK(wf_pool_wait_idle(pool));
    CHECK_EQ(atomic_load(&work_runs), 2);
    CHECK_OK(wf_pool_destroy(pool));
    alarm(0);
}

int main(int argc, char **argv)
{
    static const check_scenario table[] = {
        {"graph", scenario_graph},
        {"pool", scenario_pool},
    };
    CALLER_TEST_MAIN("wait_cancel", argc, argv, table);
}
