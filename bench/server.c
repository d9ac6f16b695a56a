/* SPDX-License-Identifier: Apache-2.0 */
/* A system's runner: one process per system (bench_seq, bench_weft,
 * bench_omp_gcc, bench_omp_clang, bench_tbb), driven by run_bench over a
 * pipe so that the runs of all systems interleave while each runtime lives
 * in its own process (libgomp and libomp cannot share one).
 *
 *   bench_SYSTEM [--quick] [--in-pool]   reads commands on stdin, one per
 *                                        line:
 *     setup NAME     -> "ok DESCRIPTION\tMESSAGES_PER_RUN", "na" (this
 *                       system has no version of NAME), "err WHY"
 *     run THREADS    -> "ok SECONDS" ("ok SECONDS MEAN P50 P99", round
 *                       trips in microseconds, for a latency workload) or
 *                       "wrong WHY"; only the kernel is timed, and its
 *                       result is checked every run
 *     teardown       -> "ok"
 *
 * A flow-graph kernel (from_main) is called on this, the main, thread,
 * outside the runtime (bench_system_run_graph), as a program's main()
 * drives its graph; with --in-pool (weft-inpool) it runs inside the
 * runtime instead (bench_system_run: wf_run, so its puts and waits are a
 * pool member's), for comparison with how these benchmarks used to run
 * it.
 *
 * After a run the runner waits until its threads have gone idle before it
 * answers: a runtime whose workers spin after a region (libomp spins for
 * 200 ms) must not take the CPUs of the next system's run. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, nanosleep, sigaction */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "system.h"

#ifndef RUN_TIMEOUT_S
#define RUN_TIMEOUT_S 300 /* one run longer than this is taken for a hang */
#endif

static const bench_workload *const all_workloads[] = {
    &bench_fib,
    &bench_nqueens,
    &bench_queens,
    &bench_uts,
    &bench_matmul,
    &bench_sum,
    &bench_pfor,
    &bench_reduce,
    &bench_cilksort,
    &bench_blur,
    &bench_histogram,
    &bench_sort,
    &bench_sort_stdpar,
    &bench_scan,
    &bench_g_chain,
    &bench_g_broadcast,
    &bench_g_join_queueing,
    &bench_g_join_reserving,
    &bench_g_join_key,
    &bench_g_wavefront,
    &bench_g_latency,
    &bench_pipeline,
    &bench_tg_wavefront,
    &bench_tg_chain,
    &bench_tg_tree,
    &bench_tg_level,
    &bench_tg_rerun,
};
#define N_WORKLOADS (sizeof all_workloads / sizeof all_workloads[0])

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double cpu_s(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
           (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

/* Until this process uses under a fifth of a CPU over 5 ms (at most 1 s). */
static void wait_idle(void)
{
    struct timespec tick = {0, 5000000};
    for (int i = 0; i < 200; i++) {
        double c0 = cpu_s();
        nanosleep(&tick, NULL);
        if (cpu_s() - c0 < 0.001)
            return;
    }
}

static char hang_msg[160];
static bool in_pool; /* --in-pool: graph kernels by bench_system_run */

static void on_alarm(int sig)
{
    (void)sig;
    ssize_t ignored = write(2, hang_msg, strlen(hang_msg));
    (void)ignored;
    _exit(3);
}

typedef struct {
    const bench_workload *w;
    void (*fn)(void *);
    void *state;
} current;

static void cmd_setup(current *c, const char *name, bool quick)
{
    const bench_workload *w = NULL;
    for (size_t i = 0; i < N_WORKLOADS; i++)
        if (strcmp(all_workloads[i]->name, name) == 0)
            w = all_workloads[i];
    if (w == NULL) {
        printf("err unknown workload %s\n", name);
        return;
    }
    void (*fn)(void *) = bench_system_is_seq ? w->run_seq : w->run_par;
    if (fn == NULL) {
        printf("na\n");
        return;
    }
    void *state = w->setup(quick);
    if (state == NULL) {
        printf("err setup of %s failed (out of memory?)\n", name);
        return;
    }
    *c = (current){w, fn, state};
    printf("ok %s\t%.17g\n", w->describe(state),
           w->messages ? w->messages(state) : 0.0);
}

static void cmd_run(current *c, unsigned threads)
{
    if (c->w == NULL) {
        printf("wrong no workload set up\n");
        return;
    }
    const bench_workload *w = c->w;
    if (w->prepare)
        w->prepare(c->state);
    snprintf(hang_msg, sizeof hang_msg,
             "\n%s%s: HANG: %s with %u threads still running after %d s\n",
             bench_system_name, in_pool ? " (in pool)" : "", w->name, threads,
             RUN_TIMEOUT_S);
    char why[256] = "";
    alarm(RUN_TIMEOUT_S);
    if (w->build &&
        bench_system_build(w->build, c->state, threads, why, sizeof why)) {
        alarm(0);
        printf("wrong %s\n", why);
        return;
    }
    int (*run)(void (*)(void *), void *, unsigned, char *, unsigned long) =
        w->from_main && !in_pool ? bench_system_run_graph : bench_system_run;
    double t0 = now_s();
    int err = run(c->fn, c->state, threads, why, sizeof why);
    double t = now_s() - t0;
    alarm(0);
    if (err == 0 &&
        w->check(c->state, bench_system_is_seq, why, sizeof why) == 0) {
        double us[3] = {0};
        if (w->round_trips)
            w->round_trips(c->state, us); /* before wait_idle: it sorts */
        wait_idle();
        if (w->round_trips)
            printf("ok %.9f %.4f %.4f %.4f\n", t, us[0], us[1], us[2]);
        else
            printf("ok %.9f\n", t);
    } else {
        printf("wrong %s\n", why);
    }
}

int main(int argc, char **argv)
{
    bool quick = false;
    for (int i = 1; i < argc; i++) {
        quick |= strcmp(argv[i], "--quick") == 0;
        in_pool |= strcmp(argv[i], "--in-pool") == 0;
    }
    struct sigaction sa = {.sa_handler = on_alarm};
    sigaction(SIGALRM, &sa, NULL);
    current c = {0};
    char line[256];
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (strncmp(line, "setup ", 6) == 0) {
            cmd_setup(&c, line + 6, quick);
        } else if (strncmp(line, "run ", 4) == 0) {
            long t = strtol(line + 4, NULL, 10);
            cmd_run(&c, t > 0 ? (unsigned)t : 1u);
        } else if (strcmp(line, "teardown") == 0) {
            if (c.w)
                c.w->teardown(c.state);
            c = (current){0};
            printf("ok\n");
        } else {
            printf("err unknown command\n");
        }
        fflush(stdout);
    }
    if (c.w)
        c.w->teardown(c.state);
    return 0;
}
