/* SPDX-License-Identifier: Apache-2.0 */
/* pool_caller: a thread that is not a pool worker takes part in the work
 * it waits for (wf_run, wf_join of a task it spawned, wf_group_wait,
 * wf_pool_wait_idle run the pool's tasks on the calling thread instead of
 * sleeping), and a pool of `threads` = T has T - 1 background workers: the
 * waiting caller is the T-th.
 *
 * ARGS: a scenario name (none or "all": every one), then an optional
 * divisor for the iteration counts (TSan passes 4, ASan 2).
 * The default pool is made with WEFT_NUM_THREADS=2 (set by main).
 *   threads      for T = 1, 2, 4: tasks submitted one at a time that block
 *           their thread (those that run on main return at once) block
 *           exactly T - 1 background threads at most; the one left over
 *           runs in wf_pool_wait_idle once they are released.
 *   one_thread_run  threads = 1: wf_run of fib(25) by wf_spawn/wf_join gives
 *           fib(25); the body and every spawned task ran on the calling
 *           thread (pthread_self).
 *   spawn_default  the default pool (threads = 2): every background worker
 *           is blocked (as in `threads`, for at most ~12 s); main then
 *           wf_spawns 100 tasks (they go to the default pool) and joins
 *           each: every task ran once, before any blocked task timed out
 *           (so main ran them while it joined).
 *   group_pool  the same through a wf_group on an explicit threads = 2
 *           pool and wf_group_wait.
 *   wait_idle_one  threads = 1: 1000 wf_submit from main; none runs before
 *           main waits (no background worker); wf_pool_wait_idle returns
 *           with each run exactly once, all on main.
 *   outside_run  4 plain threads call wf_run on one threads = 2 pool at
 *           once, each a fork-join sum over a range that changes every
 *           round (many rounds): every sum exact.
 *   idle_after  the outside_run load (fewer rounds) and a wf_run from main
 *           on a threads = 4 pool, then 2 s idle: the process uses < 0.05 s
 *           of CPU (getrusage RUSAGE_SELF) in that window.
 *   group_one  wf_group_wait from main, group on an explicit threads = 1
 *           pool: 1000 tasks all run once, on main, wait returns 0; then
 *           1000 tasks of which two fail (-1001, -1002): wait returns the
 *           error of the one that ran (first), the other never ran, no
 *           task started after the error, the group is cancelled.
 *   slots_full  threads = 1: WF_CALLER_SLOTS plain threads hold every
 *           caller slot (each in a wf_run whose fn waits for a release);
 *           main's wf_run, which finds no slot, must still run once they
 *           let go (a pool of 1 has no worker to hand it to).
 *   nested_pools  a task on pool A's background worker calls wf_run(B),
 *           whose fn calls wf_run(A) and computes fib(18) there: it
 *           completes (each wf_run runs fn in a caller slot of its pool on
 *           the same thread; it once waited for A's only worker, itself).
 *   default_race  four threads ask for the default pool at once, the
 *           process's first use, and each runs a task on it.
 * Every wait on another thread is bounded; a watchdog (alarm) turns a hang
 * inside weft into a failure that names where it hung. */
#include <sys/resource.h>

#include "caller_test.h"

/* Every spawned task's body: counts the ones that ran off main. */
static _Atomic long fib_off_main;
#define FIB_TASK_HOOK()                                                        \
    (on_main() ? (void)0                                                       \
               : (void)atomic_fetch_add_explicit(&fib_off_main, 1,             \
                                                 memory_order_relaxed))
#include "fib_task.h"

static wf_pool *make_pool(unsigned threads)
{
    return check_pool(threads);
}

/* ---- blocking tasks ------------------------------------------------------ */

enum { MAX_BLOCKERS = 64 };

typedef struct blocker blocker;
typedef struct {
    wf_task task;
    blocker *b;
} blocker_frame;

struct blocker {
    _Atomic int release;
    _Atomic int started;  /* tasks blocked off the main thread */
    _Atomic int returned; /* of those, how many have returned */
    _Atomic int on_main;  /* tasks that ran on main (returned at once) */
    _Atomic int timed_out;
    double deadline;
    int submitted;
    blocker_frame frames[MAX_BLOCKERS];
};

static void blocker_body(wf_task *t)
{
    blocker *b = ((blocker_frame *)t)->b;
    if (on_main()) {
        atomic_fetch_add(&b->on_main, 1);
        return;
    }
    atomic_fetch_add(&b->started, 1);
    if (!block_until(&b->release, b->deadline))
        atomic_store(&b->timed_out, 1);
    atomic_fetch_add(&b->returned, 1);
}

/* Submit blocking tasks to p one at a time until one more does not start
 * within a second (first_wait for the first): then every background thread
 * is inside one.  Returns how many are; one task may be left queued. */
static int block_workers(blocker *b, wf_pool *p, double hold, double first_wait)
{
    b->deadline = check_now() + hold;
    int blocked = 0;
    while (b->submitted < MAX_BLOCKERS) {
        blocker_frame *f = &b->frames[b->submitted++];
        f->b = b;
        CHECK_OK(wf_submit(p, &f->task, blocker_body));
        if (!wait_count(&b->started, blocked + 1, blocked ? 1.0 : first_wait))
            break;
        blocked = atomic_load(&b->started);
    }
    return blocked;
}

/* Release the blockers and wait for every one of them to have run. */
static void unblock(blocker *b, wf_pool *p)
{
    atomic_store(&b->release, 1);
    CHECK_OK(wf_pool_wait_idle(p));
    CHECK_EQ(atomic_load(&b->started) + atomic_load(&b->on_main), b->submitted);
    CHECK_EQ(atomic_load(&b->returned), atomic_load(&b->started));
}

/* ---- threads ------------------------------------------------------------- */

static void threads_case(void)
{
    static const unsigned sizes[] = {1, 2, 4};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        unsigned t = sizes[i];
        watch("threads: blocking tasks on a pool", WATCH_S);
        wf_pool *p = make_pool(t);
        blocker *b = calloc(1, sizeof *b);
        CHECK(b != NULL);
        int blocked = block_workers(b, p, 20.0, t > 1 ? 5.0 : 1.5);
        printf("threads: threads = %u: %d task(s) blocked at once on "
               "background threads\n",
               t, blocked);
        CHECK_MSG(blocked == (int)t - 1,
                  "threads = %u: %d background threads ran tasks, expected "
                  "%u (the waiting caller is the T-th)",
                  t, blocked, t - 1);
        watch("threads: wf_pool_wait_idle after the release", WATCH_S);
        unblock(b, p);
        CHECK(!atomic_load(&b->timed_out));
        free(b);
        CHECK_OK(wf_pool_destroy(p));
    }
    alarm(0);
}

/* ---- one_thread_run ------------------------------------------------------ */

typedef struct {
    int n;
    long out;
    int root_on_main;
    wf_pool *pool;
    int in_pool;
} main_job;

static void main_root(void *arg)
{
    main_job *j = arg;
    j->root_on_main = on_main();
    j->in_pool = wf_current_pool() == j->pool;
    j->out = fib_par(j->n);
}

static void one_thread_run(void)
{
    watch("one_thread_run: wf_run of fib on a threads = 1 pool", WATCH_S);
    wf_pool *p = make_pool(1);
    int n = divisor > 1 ? 20 : 25;
    atomic_store(&fib_off_main, 0);
    main_job j = {.n = n, .out = -1, .pool = p};
    CHECK_OK(wf_run(p, main_root, &j));
    long off = atomic_load(&fib_off_main);
    printf("one_thread_run: fib(%d) = %ld; root on main: %s; %ld spawned "
           "tasks off main\n",
           n, j.out, j.root_on_main ? "yes" : "no", off);
    CHECK_MSG(j.out == fib_seq(n), "fib(%d) = %ld, expected %ld", n, j.out,
              fib_seq(n));
    CHECK_MSG(j.in_pool, "the body did not run as part of the pool");
    CHECK_MSG(j.root_on_main,
              "wf_run's body ran on another thread: a threads = 1 pool has "
              "no background worker, the caller runs it");
    CHECK_MSG(off == 0, "%ld spawned tasks ran off the calling thread", off);
    /* Twice: the caller leaves the pool and comes back. */
    j = (main_job){.n = n, .out = -1, .pool = p};
    CHECK_OK(wf_run(p, main_root, &j));
    CHECK(j.out == fib_seq(n) && j.root_on_main);
    CHECK_OK(wf_pool_destroy(p));
    alarm(0);
}

/* ---- spawn_default, group_pool ------------------------------------------- */

enum { NTASKS = 100 };

typedef struct {
    wf_task task;
    int idx;
} count_frame;

static _Atomic int task_runs[NTASKS];
static _Atomic int task_on_main;

static void count_body(wf_task *t)
{
    count_frame *f = (count_frame *)t;
    atomic_fetch_add(&task_runs[f->idx], 1);
    if (on_main())
        atomic_fetch_add(&task_on_main, 1);
}

static void reset_counts(void)
{
    for (int i = 0; i < NTASKS; i++)
        atomic_store(&task_runs[i], 0);
    atomic_store(&task_on_main, 0);
}

static void check_counts(const char *what, blocker *b, int blocked, double took)
{
    int timed_out = atomic_load(&b->timed_out);
    int still = atomic_load(&b->started) - atomic_load(&b->returned);
    printf("%s: %d background worker(s) blocked; %d tasks done in %.3f s, "
           "%d on main\n",
           what, blocked, NTASKS, took, atomic_load(&task_on_main));
    CHECK_MSG(!timed_out,
              "%s: the tasks finished only after the blocked ones timed out "
              "(%.1f s): the waiting thread did not run them",
              what, took);
    CHECK_MSG(still == blocked, "%s: %d of %d blocked tasks returned early",
              what, blocked - still, blocked);
    for (int i = 0; i < NTASKS; i++)
        CHECK_MSG(atomic_load(&task_runs[i]) == 1, "%s: task %d ran %d times",
                  what, i, atomic_load(&task_runs[i]));
    CHECK_EQ(atomic_load(&task_on_main), NTASKS);
}

static void spawn_default(void)
{
    watch("spawn_default: blocking the default pool's workers", WATCH_S);
    wf_pool *dp = wf_pool_default();
    CHECK(dp != NULL);
    blocker *b = calloc(1, sizeof *b);
    CHECK(b != NULL);
    int blocked = block_workers(b, dp, 12.0, 5.0);
    CHECK_MSG(blocked >= 1, "no task started on the default pool (threads = "
                            "2) in 5 s");
    reset_counts();
    count_frame f[NTASKS];
    watch("spawn_default: wf_spawn/wf_join from main, workers blocked",
          WATCH_S);
    double t0 = check_now();
    for (int i = 0; i < NTASKS; i++) {
        f[i] = (count_frame){.idx = i};
        CHECK_OK(wf_spawn(&f[i].task, count_body));
    }
    for (int i = 0; i < NTASKS; i++)
        CHECK_OK(wf_join(&f[i].task));
    check_counts("spawn_default", b, blocked, check_now() - t0);
    /* Frames can be spawned again after their join, in reverse this time. */
    reset_counts();
    for (int i = 0; i < NTASKS; i++)
        CHECK_OK(wf_spawn(&f[i].task, count_body));
    for (int i = NTASKS - 1; i >= 0; i--)
        CHECK_OK(wf_join(&f[i].task));
    check_counts("spawn_default (joined newest first)", b, blocked, 0);
    watch("spawn_default: wf_pool_wait_idle after the release", WATCH_S);
    unblock(b, dp);
    CHECK(!atomic_load(&b->timed_out));
    free(b);
    alarm(0);
}

typedef struct {
    wf_group_task gt;
    int idx;
    int ret;
} gframe;

static int gcount_body(wf_group_task *t)
{
    gframe *f = (gframe *)t;
    atomic_fetch_add(&task_runs[f->idx % NTASKS], 1);
    if (on_main())
        atomic_fetch_add(&task_on_main, 1);
    return 0;
}

static void group_pool(void)
{
    watch("group_pool: blocking the workers of a threads = 2 pool", WATCH_S);
    wf_pool *p = make_pool(2);
    blocker *b = calloc(1, sizeof *b);
    CHECK(b != NULL);
    int blocked = block_workers(b, p, 12.0, 5.0);
    CHECK_MSG(blocked >= 1, "no task started on a threads = 2 pool in 5 s");
    reset_counts();
    gframe f[NTASKS];
    wf_group g;
    CHECK_OK(wf_group_init(&g, p, NULL));
    watch("group_pool: wf_group_wait from main, workers blocked", WATCH_S);
    double t0 = check_now();
    for (int i = 0; i < NTASKS; i++) {
        f[i] = (gframe){.idx = i};
        CHECK_OK(wf_group_spawn(&g, &f[i].gt, gcount_body));
    }
    CHECK_OK(wf_group_wait(&g));
    check_counts("group_pool", b, blocked, check_now() - t0);
    watch("group_pool: wf_pool_wait_idle after the release", WATCH_S);
    unblock(b, p);
    CHECK(!atomic_load(&b->timed_out));
    free(b);
    CHECK_OK(wf_pool_destroy(p));
    alarm(0);
}

/* ---- wait_idle_one ------------------------------------------------------- */

enum { NSUBMIT = 1000 };

typedef struct {
    wf_task task;
    _Atomic int runs;
} sub_frame;

static _Atomic int sub_ran, sub_off_main;

static void sub_body(wf_task *t)
{
    sub_frame *f = (sub_frame *)t;
    atomic_fetch_add(&f->runs, 1);
    atomic_fetch_add(&sub_ran, 1);
    if (!on_main())
        atomic_fetch_add(&sub_off_main, 1);
}

static void wait_idle_one(void)
{
    watch("wait_idle_one: wf_pool_wait_idle on a threads = 1 pool", WATCH_S);
    wf_pool *p = make_pool(1);
    sub_frame *f = calloc(NSUBMIT, sizeof *f);
    CHECK(f != NULL);
    for (int i = 0; i < NSUBMIT; i++)
        CHECK_OK(wf_submit(p, &f[i].task, sub_body));
    sleep_us(100000);
    int early = atomic_load(&sub_ran);
    CHECK_OK(wf_pool_wait_idle(p));
    int off = atomic_load(&sub_off_main);
    printf("wait_idle_one: %d of %d tasks ran before the wait, %d off main\n",
           early, NSUBMIT, off);
    CHECK_EQ(atomic_load(&sub_ran), NSUBMIT);
    for (int i = 0; i < NSUBMIT; i++)
        CHECK_MSG(atomic_load(&f[i].runs) == 1, "task %d ran %d times", i,
                  atomic_load(&f[i].runs));
    CHECK_MSG(early == 0,
              "%d tasks ran in 0.1 s before anyone waited: a threads = 1 pool "
              "must have no background worker",
              early);
    CHECK_MSG(off == 0, "%d tasks ran off the waiting thread", off);
    /* Idle now: waiting again returns at once. */
    CHECK_OK(wf_pool_wait_idle(p));
    CHECK_EQ(atomic_load(&sub_ran), NSUBMIT);
    free(f);
    CHECK_OK(wf_pool_destroy(p));
    alarm(0);
}

/* ---- outside_run, idle_after --------------------------------------------- */

typedef struct {
    wf_task task;
    uint64_t lo, hi, out;
} sum_frame;

static uint64_t sum_par(uint64_t lo, uint64_t hi);

static void sum_body(wf_task *t)
{
    sum_frame *f = (sum_frame *)t;
    f->out = sum_par(f->lo, f->hi);
}

static uint64_t sum_par(uint64_t lo, uint64_t hi)
{
    if (hi - lo <= 256) {
        uint64_t s = 0;
        for (uint64_t i = lo; i < hi; i++)
            s += i * i;
        return s;
    }
    uint64_t mid = lo + (hi - lo) / 2;
    sum_frame a = {.lo = mid, .hi = hi};
    CHECK_OK(wf_spawn(&a.task, sum_body));
    uint64_t l = sum_par(lo, mid);
    CHECK_OK(wf_join(&a.task));
    return l + a.out;
}

static uint64_t sum_seq(uint64_t lo, uint64_t hi)
{
    uint64_t s = 0;
    for (uint64_t i = lo; i < hi; i++)
        s += i * i;
    return s;
}

typedef struct {
    uint64_t lo, hi, out;
} sum_job;

static void sum_root(void *arg)
{
    sum_job *j = arg;
    j->out = sum_par(j->lo, j->hi);
}

typedef struct {
    wf_pool *pool;
    int id;
    long rounds;
} runner_arg;

static void *runner(void *p)
{
    runner_arg *a = p;
    uint64_t seed = 0x9e3779b97f4a7c15ull * (uint64_t)(a->id + 1);
    for (long r = 0; r < a->rounds; r++) {
        uint64_t lo = check_rand(&seed) % 1000;
        uint64_t hi = lo + 1 + check_rand(&seed) % 20000;
        sum_job j = {.lo = lo, .hi = hi};
        CHECK_OK(wf_run(a->pool, sum_root, &j));
        CHECK_MSG(j.out == sum_seq(lo, hi),
                  "thread %d, round %ld: sum of squares [%llu, %llu) wrong",
                  a->id, r, (unsigned long long)lo, (unsigned long long)hi);
    }
    return NULL;
}

enum { NRUNNERS = 4 };

static void run_outside_load(wf_pool *p, long rounds)
{
    pthread_t th[NRUNNERS];
    runner_arg a[NRUNNERS];
    for (int i = 0; i < NRUNNERS; i++) {
        a[i] = (runner_arg){.pool = p, .id = i, .rounds = rounds};
        CHECK(pthread_create(&th[i], NULL, runner, &a[i]) == 0);
    }
    for (int i = 0; i < NRUNNERS; i++)
        CHECK(pthread_join(th[i], NULL) == 0);
}

static void outside_run(void)
{
    watch("outside_run: 4 threads calling wf_run on one threads = 2 pool",
          WATCH_S);
    wf_pool *p = make_pool(2);
    long rounds = scaled(20000);
    run_outside_load(p, rounds);
    printf("outside_run: 4 threads x %ld wf_run, every sum exact\n", rounds);
    CHECK_OK(wf_pool_destroy(p));
    alarm(0);
}

static double process_cpu(void)
{
    struct rusage ru;
    CHECK(getrusage(RUSAGE_SELF, &ru) == 0);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
           (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
}

#define MAX_IDLE_CPU 0.05

static void idle_after(void)
{
    watch("idle_after: load on a threads = 4 pool", WATCH_S);
    wf_pool *p = make_pool(4);
    run_outside_load(p, scaled(2000));
    sum_job j = {.lo = 0, .hi = 100000};
    CHECK_OK(wf_run(p, sum_root, &j));
    CHECK(j.out == sum_seq(0, 100000));
    CHECK_OK(wf_pool_wait_idle(p));
    watch("idle_after: the idle window", WATCH_S);
    double c0 = process_cpu(), t0 = check_now();
    double end = t0 + 2.0;
    for (double now; (now = check_now()) < end;)
        sleep_us((long)((end - now) * 1e6) + 1);
    double cpu = process_cpu() - c0, wall = check_now() - t0;
    printf("idle_after: %.4f s of CPU in %.3f s idle (limit %.2f)\n", cpu, wall,
           MAX_IDLE_CPU);
    CHECK_MSG(cpu < MAX_IDLE_CPU, "%.4f s of CPU in %.3f s while idle", cpu,
              wall);
    CHECK_OK(wf_pool_destroy(p));
    alarm(0);
}

/* ---- slots_full ---------------------------------------------------------- */

static _Atomic int main_ran;

static void *release_later(void *arg)
{
    (void)arg;
    sleep_us(100000); /* main is in its wf_run by now, without a slot */
    atomic_store(&holders_release, 1);
    return NULL;
}

static void mark_main(void *arg)
{
    (void)arg;
    atomic_store(&main_ran, on_main());
}

static void slots_full(void)
{
    watch("slots_full: wf_run with every caller slot taken", WATCH_S);
    wf_pool *p = make_pool(1);
    pthread_t th[WF_CALLER_SLOTS], rel;
    for (int i = 0; i < WF_CALLER_SLOTS; i++)
        CHECK(pthread_create(&th[i], NULL, caller_slot_holder, p) == 0);
    CHECK(wait_count(&holders_in, WF_CALLER_SLOTS, 20.0));
    CHECK(pthread_create(&rel, NULL, release_later, NULL) == 0);
    CHECK_OK(wf_run(p, mark_main, NULL));
    CHECK_MSG(atomic_load(&main_ran), "main's fn did not run on main");
    for (int i = 0; i < WF_CALLER_SLOTS; i++)
        CHECK(pthread_join(th[i], NULL) == 0);
    CHECK(pthread_join(rel, NULL) == 0);
    CHECK_OK(wf_pool_destroy(p));
    alarm(0);
}

/* ---- nested_pools -------------------------------------------------------- */

typedef struct {
    wf_pool *a, *b;
    long out;
    _Atomic int done;
} nest_ctx;

static void nest_inner(void *arg) /* in A again, from B's fn */
{
    nest_ctx *c = arg;
    c->out = fib_par(18);
}

static void nest_middle(void *arg) /* in B, from A's task */
{
    nest_ctx *c = arg;
    CHECK_OK(wf_run(c->a, nest_inner, c));
}

typedef struct {
    wf_task task;
    nest_ctx *c;
} nest_frame;

static void nest_task(wf_task *t)
{
    nest_ctx *c = ((nest_frame *)t)->c;
    CHECK_OK(wf_run(c->b, nest_middle, c));
    atomic_store(&c->done, 1);
}

static void nested_pools(void)
{
    watch("nested_pools: A's task runs wf_run(B), which runs wf_run(A)",
          WATCH_S);
    nest_ctx c = {.a = make_pool(2), .b = make_pool(2)};
    nest_frame f = {.c = &c};
    /* On A's only background worker: a task, not main. */
    CHECK_OK(wf_submit(c.a, &f.task, nest_task));
    CHECK(wait_count(&c.done, 1, 30.0));
    CHECK_OK(wf_pool_wait_idle(c.a));
    CHECK_EQ(c.out, fib_seq(18));
    CHECK_OK(wf_pool_destroy(c.b));
    CHECK_OK(wf_pool_destroy(c.a));
    alarm(0);
}

/* ---- group_one ----------------------------------------------------------- */

enum { NGROUP = 1000 };

static _Atomic int g_runs[NGROUP];
static _Atomic int g_off_main, g_late, g_error_seen, g_first_err;

static int gone_body(wf_group_task *t)
{
    gframe *f = (gframe *)t;
    atomic_fetch_add(&g_runs[f->idx], 1);
    if (!on_main())
        atomic_fetch_add(&g_off_main, 1);
    if (atomic_load(&g_error_seen))
        atomic_fetch_add(&g_late, 1); /* started after an error */
    if (f->ret) {
        int none = 0;
        atomic_compare_exchange_strong(&g_first_err, &none, f->ret);
        atomic_store(&g_error_seen, 1);
    }
    return f->ret;
}

static void group_reset(void)
{
    for (int i = 0; i < NGROUP; i++)
        atomic_store(&g_runs[i], 0);
    atomic_store(&g_off_main, 0);
    atomic_store(&g_late, 0);
    atomic_store(&g_error_seen, 0);
    atomic_store(&g_first_err, 0);
}

static void group_one(void)
{
    watch("group_one: wf_group_wait on a threads = 1 pool", WATCH_S);
    wf_pool *p = make_pool(1);
    gframe *f = calloc(NGROUP, sizeof *f);
    CHECK(f != NULL);

    /* All succeed. */
    group_reset();
    wf_group g;
    CHECK_OK(wf_group_init(&g, p, NULL));
    for (int i = 0; i < NGROUP; i++) {
        f[i] = (gframe){.idx = i};
        CHECK_OK(wf_group_spawn(&g, &f[i].gt, gone_body));
    }
    CHECK_OK(wf_group_wait(&g));
    for (int i = 0; i < NGROUP; i++)
        CHECK_MSG(atomic_load(&g_runs[i]) == 1, "task %d ran %d times", i,
                  atomic_load(&g_runs[i]));
    CHECK(!wf_group_is_cancelled(&g));
    int off = atomic_load(&g_off_main);
    printf("group_one: %d tasks, %d off main\n", NGROUP, off);
    CHECK_MSG(off == 0,
              "%d group tasks ran off the waiting thread on a threads = 1 "
              "pool",
              off);

    /* Two fail: the first to run wins, the other never starts. */
    watch("group_one: a group with failing tasks", WATCH_S);
    group_reset();
    CHECK_OK(wf_group_init(&g, p, NULL));
    for (int i = 0; i < NGROUP; i++) {
        f[i] = (gframe){.idx = i,
                        .ret = i == 300   ? -1001
                               : i == 700 ? -1002
                                          : 0};
        CHECK_OK(wf_group_spawn(&g, &f[i].gt, gone_body));
    }
    int err = wf_group_wait(&g);
    int first = atomic_load(&g_first_err);
    int ran = 0;
    for (int i = 0; i < NGROUP; i++) {
        CHECK(atomic_load(&g_runs[i]) <= 1);
        ran += atomic_load(&g_runs[i]);
    }
    printf("group_one: failing group: wait returned %d, %d of %d tasks ran, "
           "%d off main\n",
           err, ran, NGROUP, atomic_load(&g_off_main));
    CHECK_MSG(first == -1001 || first == -1002, "no failing task ran");
    CHECK_EQ(err, first);
    CHECK_EQ(atomic_load(&g_runs[300]) + atomic_load(&g_runs[700]), 1);
    CHECK_MSG(atomic_load(&g_late) == 0,
              "%d tasks started after the error (one thread runs them, so "
              "none may)",
              atomic_load(&g_late));
    CHECK(wf_group_is_cancelled(&g));
    CHECK_ERR(wf_group_wait(&g), WF_ESTATE);
    CHECK_MSG(atomic_load(&g_off_main) == 0, "%d group tasks ran off main",
              atomic_load(&g_off_main));
    free(f);
    CHECK_OK(wf_pool_destroy(p));
    alarm(0);
}

/* ---- default_race --------------------------------------------------------- */

static void add_one(void *arg)
{
    atomic_fetch_add((_Atomic int *)arg, 1);
}

/* Each of several threads asks for the default pool at once, the first
 * call of the process (one makes it, the others find it made) and runs a
 * task on it.  Under ThreadSanitizer, a pool found made without the
 * acquire that pairs with its maker's release (P11 in docs/protocols.md)
 * is a data race on its fields. */
static void *use_default(void *arg)
{
    wf_pool *p = wf_pool_default();
    CHECK(p != NULL);
    CHECK_OK(wf_run(p, add_one, arg));
    return NULL;
}

static void default_race(void)
{
    enum { N = 4 };
    _Atomic int ran = 0;
    pthread_t th[N];
    for (int i = 0; i < N; i++)
        CHECK(pthread_create(&th[i], NULL, use_default, (void *)&ran) == 0);
    for (int i = 0; i < N; i++)
        CHECK(pthread_join(th[i], NULL) == 0);
    CHECK_EQ(atomic_load(&ran), N);
}

static const check_scenario scenarios[] = {
    {"threads", threads_case},        {"one_thread_run", one_thread_run},
    {"spawn_default", spawn_default}, {"group_pool", group_pool},
    {"wait_idle_one", wait_idle_one}, {"outside_run", outside_run},
    {"idle_after", idle_after},       {"group_one", group_one},
    {"slots_full", slots_full},       {"nested_pools", nested_pools},
    {"default_race", default_race},
};

int main(int argc, char **argv)
{
    /* Before anything makes the default pool: spawn_default counts on
     * threads = 2 (one background worker). */
    CHECK(setenv("WEFT_NUM_THREADS", "2", 1) == 0);
    CALLER_TEST_MAIN("pool_caller", argc, argv, scenarios);
}
