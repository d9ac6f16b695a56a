/* SPDX-License-Identifier: Apache-2.0 */
/* pool_idle: an idle pool, and a joiner waiting on a stolen task, use no
 * CPU (docs/pool.md, "Idle": workers spin briefly, then park).
 *
 * Proves, with getrusage(RUSAGE_SELF) user+sys time over wall-clock
 * windows (all threads of the process count):
 *   1. a 2-worker pool that has just run fib(25) and then sits idle for
 *      1 s consumes < 0.05 s of CPU in that second;
 *   2. a freshly created pool that never ran anything, the same over 0.5 s;
 *   3. a worker that joins a task stolen by the other worker, which then
 *      sleeps 0.5 s, does not spin meanwhile: < 0.05 s of CPU;
 *   4. a pool of WF_MAX_THREADS (1024) threads: < 2 s of CPU from its
 *      creation to 0.5 s after fib(20) (idle workers spin for a bounded
 *      time, not `spin` rounds of polling 1024 slots each), and then the
 *      same idle check over the window: its workers have parked.
 * Normal build only: the sanitizers' own threads would blur the figure. */
#include <sched.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

#include "fib_task.h"

#define MAX_CPU 0.05

static double cpu_seconds(void)
{
    struct rusage ru;
    CHECK(getrusage(RUSAGE_SELF, &ru) == 0);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
           (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
}

static void sleep_seconds(double s)
{
    double end = check_now() + s;
    for (double now; (now = check_now()) < end;)
        usleep((useconds_t)((end - now) * 1e6) + 1);
}

static void check_idle_cpu(const char *what, double window)
{
    double c0 = cpu_seconds(), t0 = check_now();
    sleep_seconds(window);
    double cpu = cpu_seconds() - c0, wall = check_now() - t0;
    printf("pool_idle: %s: %.4f s CPU in %.3f s wall (limit %.2f)\n", what, cpu,
           wall, MAX_CPU);
    CHECK_MSG(cpu < MAX_CPU, "%s: %.4f s of CPU while idle", what, cpu);
}

/* ---- 3: a joiner whose task was stolen ----------------------------------- */
typedef struct {
    wf_task task;
    _Atomic int started;
    _Atomic int ran_on; /* worker index of the thief */
} sleeper_frame;

static void sleeper_body(wf_task *t)
{
    sleeper_frame *f = (sleeper_frame *)t;
    atomic_store(&f->ran_on, wf_worker_index());
    atomic_store(&f->started, 1);
    usleep(500000);
}

static void dummy_body(wf_task *t)
{
    (void)t;
}

static void stolen_join_root(void *arg)
{
    double *cpu = arg;
    sleeper_frame x = {.ran_on = -1};
    CHECK_OK(wf_spawn(&x.task, sleeper_body));
    /* Spawn and join dummies until the other worker has stolen x: a spawn
     * answers the thief's request by publishing the older task, x. */
    double deadline = check_now() + 5.0;
    while (!atomic_load(&x.started)) {
        CHECK_MSG(check_now() < deadline,
                  "no worker stole the published task in 5 s");
        wf_task d = {0};
        CHECK_OK(wf_spawn(&d, dummy_body));
        CHECK_OK(wf_join(&d));
        sched_yield();
    }
    CHECK(atomic_load(&x.ran_on) != wf_worker_index());
    double c0 = cpu_seconds();
    CHECK_OK(wf_join(&x.task)); /* helps, finds nothing, must park */
    *cpu = cpu_seconds() - c0;
}

/* argv[1]: seconds of the idle window after fib (default 1); the README's
 * idle figure is `test_pool_idle 2`. */
int main(int argc, char **argv)
{
    double window = argc > 1 ? atof(argv[1]) : 1.0;
    char what[64];
    wf_pool_config cfg = WF_POOL_CONFIG_INIT;
    cfg.threads = 2;
    wf_pool *p = NULL;

    CHECK_OK(wf_pool_create(&p, &cfg));
    check_idle_cpu("fresh pool, 0.5 s", 0.5);
    CHECK_OK(wf_pool_destroy(p));

    CHECK_OK(wf_pool_create(&p, &cfg));
    check_fib_on(p, 25);
    snprintf(what, sizeof what, "after fib(25), %g s", window);
    check_idle_cpu(what, window);

    /* 4: a pool of WF_MAX_THREADS: idle workers stop spinning after a
     * bounded time, not after `spin` rounds each of which polls every
     * slot (that kept 2 cores busy for seconds).  0.5 s to settle. */
    wf_pool_config big = WF_POOL_CONFIG_INIT;
    big.threads = WF_MAX_THREADS;
    big.stack_size = (size_t)256 << 10;
    wf_pool *q = NULL;
    double c0 = cpu_seconds();
    CHECK_OK(wf_pool_create(&q, &big));
    check_fib_on(q, 20);
    sleep_seconds(0.5);
    /* Starting 1023 threads costs some CPU too, well under the limit. */
    double settle = cpu_seconds() - c0;
    printf("pool_idle: %u threads: %.3f s CPU from creation to 0.5 s after "
           "fib(20) (limit 2)\n",
           big.threads, settle);
    CHECK_MSG(settle < 2.0, "%u threads: %.3f s of CPU to start and settle",
              big.threads, settle);
    snprintf(what, sizeof what, "%u threads, 0.5 s after fib(20), %g s",
             big.threads, window);
    check_idle_cpu(what, window);
    CHECK_OK(wf_pool_destroy(q));

    double cpu = -1;
    CHECK_OK(wf_run(p, stolen_join_root, &cpu));
    printf("pool_idle: joiner waiting 0.5 s on a stolen task: %.4f s CPU "
           "(limit %.2f)\n",
           cpu, MAX_CPU);
    CHECK_MSG(cpu < MAX_CPU, "joiner used %.4f s of CPU while waiting", cpu);
    CHECK_OK(wf_pool_destroy(p));
    CHECK_DONE("pool_idle");
}
