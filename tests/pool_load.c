/* SPDX-License-Identifier: Apache-2.0 */
/* pool_load: the submission queue under failure, and the pool under abuse.
 * (ctest names: pool_fault_<scenario>, label fault.)
 *
 *   usage: test_pool_load SCENARIO
 *
 * submit_failure    memory runs out while both background workers are
 *                   busy (a pool of 3 threads): wf_submit
 *                   and wf_run still accept every task (the submission
 *                   queue is linked through the tasks, it never
 *                   allocates) and each runs exactly once.
 * shutdown_busy     wf_pool_destroy right after thousands of submissions
 *                   (some submitting more): every task runs exactly once.
 * blocking          tasks that sleep 1 ms, by submit, spawn and loop.
 * oversubscription  8 workers (two such pools at once) on a 2-core
 *                   machine: exact results. */
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "fib_task.h"
#include "test_alloc.h"

#ifdef WF_TEST_SANITIZED
#define SCALE 5
#else
#define SCALE 1
#endif

static test_alloc ta;

#define check_no_leak(when) ta_check_no_leak(&ta, (when))

/* ---- submitted tasks: counted, heap-allocated, self-freeing ------------ */
enum { MAXSUB = 20000 };
static _Atomic int hits[MAXSUB];
static _Atomic int next_idx; /* follow-up tasks take fresh indices */

typedef struct {
    wf_task task;
    wf_pool *pool;
    int idx, chain; /* chain > 0: submit a follow-up before returning */
} sub_task;

static void sub_body(wf_task *t);

static void submit_one(wf_pool *p, int chain)
{
    sub_task *s = calloc(1, sizeof *s);
    CHECK(s != NULL);
    s->pool = p;
    s->idx = atomic_fetch_add(&next_idx, 1);
    CHECK(s->idx < MAXSUB);
    s->chain = chain;
    CHECK_OK(wf_submit(p, &s->task, sub_body));
}

static void sub_body(wf_task *t)
{
    sub_task *s = (sub_task *)t;
    if (s->idx % 10 == 0)
        CHECK_EQ(fib_par(12), 144);
    if (s->chain > 0)
        submit_one(s->pool, s->chain - 1);
    atomic_fetch_add(&hits[s->idx], 1);
    free(s);
}

static void check_hits(int n)
{
    CHECK_EQ(atomic_load(&next_idx), n);
    for (int i = 0; i < n; i++)
        CHECK_MSG(atomic_load(&hits[i]) == 1, "task %d ran %d times", i,
                  atomic_load(&hits[i]));
}

static void scenario_shutdown_busy(void)
{
    int n = 5000 / SCALE;
    for (int round = 0; round < 5; round++) {
        memset(hits, 0, sizeof hits);
        atomic_store(&next_idx, 0);
        wf_pool *p = make_pool(2, 0, NULL);
        for (int i = 0; i < n; i++)
            submit_one(p, i % 50 == 0 ? 3 : 0); /* 1 in 50 makes 3 more */
        CHECK_OK(wf_pool_destroy(p)); /* at once: must finish them all */
        check_hits(n + (n + 49) / 50 * 3);
    }
}

/* ---- submit_failure ----------------------------------------------------- */
static _Atomic int gate, blocked;

static void blocker_body(wf_task *t)
{
    (void)t;
    atomic_fetch_add(&blocked, 1);
    while (!atomic_load(&gate))
        usleep(200);
}

static _Atomic int run_calls;

static void count_run(void *arg)
{
    (void)arg;
    atomic_fetch_add(&run_calls, 1);
}

static void *run_from_thread(void *arg)
{
    CHECK_OK(wf_run(arg, count_run, NULL));
    return NULL;
}

static void scenario_submit_failure(void)
{
    ta_init(&ta, TA_NEVER, -1);
    wf_pool *p = make_pool(3, 0, &ta.iface);
    check_fib_on(p, 5);
    static wf_task blockers[2];
    for (int i = 0; i < 2; i++)
        CHECK_OK(wf_submit(p, &blockers[i], blocker_body));
    while (atomic_load(&blocked) < 2) /* both background workers stuck */
        usleep(100);
    ta_fail_from_now(&ta, 1); /* every allocation fails from here on */
    memset(hits, 0, sizeof hits);
    enum { N = 1000 };
    for (int i = 0; i < N; i++) {
        sub_task *s = calloc(1, sizeof *s);
        CHECK(s != NULL);
        s->pool = p;
        s->idx = i;
        CHECK_OK(wf_submit(p, &s->task, sub_body));
    }
    /* wf_run from another thread, in a caller slot: allocates nothing. */
    pthread_t runner;
    CHECK(pthread_create(&runner, NULL, run_from_thread, p) == 0);
    atomic_store(&gate, 1);
    CHECK(pthread_join(runner, NULL) == 0);
    CHECK_OK(wf_pool_wait_idle(p));
    atomic_store(&next_idx, N);
    check_hits(N);
    CHECK_EQ(atomic_load(&run_calls), 1);
    CHECK_OK(wf_pool_destroy(p));
    check_no_leak("after wf_pool_destroy");
}

/* ---- blocking ------------------------------------------------------------ */
typedef struct {
    wf_task task;
    int lo, hi; /* leaves [lo, hi) each sleep 1 ms */
} sleep_frame;

static void sleep_tree(wf_task *t)
{
    sleep_frame *f = (sleep_frame *)t;
    if (f->hi - f->lo == 1) {
        usleep(1000);
        atomic_fetch_add(&hits[f->lo], 1);
        return;
    }
    int mid = (f->lo + f->hi) / 2;
    sleep_frame a = {.lo = f->lo, .hi = mid}, b = {.lo = mid, .hi = f->hi};
    CHECK_OK(wf_spawn(&a.task, sleep_tree));
    sleep_tree(&b.task);
    CHECK_OK(wf_join(&a.task));
}

static void sleep_tree_root(void *arg)
{
    sleep_frame *f = arg;
    sleep_tree(&f->task);
}

static void sleep_range(size_t b, size_t e, void *ctx)
{
    (void)ctx;
    for (size_t i = b; i < e; i++) {
        usleep(1000);
        atomic_fetch_add(&hits[i], 1);
    }
}

static void sleep_sub(wf_task *t)
{
    sub_task *s = (sub_task *)t;
    usleep(1000);
    atomic_fetch_add(&hits[s->idx], 1);
    free(s);
}

static void scenario_blocking(void)
{
    wf_pool *p = make_pool(2, 0, NULL);
    double t0 = check_now();
    memset(hits, 0, sizeof hits);
    CHECK_OK(wf_parallel_for(p, 0, 50, 1, sleep_range, NULL));
    for (int i = 0; i < 50; i++)
        CHECK_EQ(atomic_load(&hits[i]), 1);
    memset(hits, 0, sizeof hits);
    sleep_frame root = {.lo = 0, .hi = 50};
    CHECK_OK(wf_run(p, sleep_tree_root, &root));
    for (int i = 0; i < 50; i++)
        CHECK_EQ(atomic_load(&hits[i]), 1);
    memset(hits, 0, sizeof hits);
    for (int i = 0; i < 50; i++) {
        sub_task *s = calloc(1, sizeof *s);
        CHECK(s != NULL);
        s->idx = i;
        CHECK_OK(wf_submit(p, &s->task, sleep_sub));
    }
    CHECK_OK(wf_pool_wait_idle(p));
    for (int i = 0; i < 50; i++)
        CHECK_EQ(atomic_load(&hits[i]), 1);
    double dt = check_now() - t0;
    printf("blocking: 3 x 50 sleeping tasks in %.3f s\n", dt);
    CHECK_MSG(dt < 10.0, "took %.1f s for 150 ms of sleeping", dt);
    CHECK_OK(wf_pool_destroy(p));
}

/* ---- oversubscription ---------------------------------------------------- */
static void count_range(size_t b, size_t e, void *ctx)
{
    (void)ctx;
    for (size_t i = b; i < e; i++)
        atomic_fetch_add_explicit(&hits[i], 1, memory_order_relaxed);
}

static void scenario_oversubscription(void)
{
    double t0 = check_now();
    wf_pool *p = make_pool(8, 0, NULL);
    wf_pool *q = make_pool(8, 0, NULL); /* two busy pools at once */
    for (int rep = 0; rep < 5; rep++) {
        check_fib_on(p, SCALE > 1 ? 22 : 30);
        memset(hits, 0, sizeof hits);
        CHECK_OK(wf_parallel_for(q, 0, MAXSUB, 0, count_range, NULL));
        for (int i = 0; i < MAXSUB; i++)
            CHECK_EQ(atomic_load(&hits[i]), 1);
    }
    CHECK_OK(wf_pool_destroy(p));
    CHECK_OK(wf_pool_destroy(q));
    printf("oversubscription: %.3f s\n", check_now() - t0);
}

int main(int argc, char **argv)
{
    static const check_scenario scenarios[] = {
        {"submit_failure", scenario_submit_failure},
        {"shutdown_busy", scenario_shutdown_busy},
        {"blocking", scenario_blocking},
        {"oversubscription", scenario_oversubscription},
    };
    return CHECK_RUN_SCENARIOS("pool_load", argc, argv, scenarios);
}
