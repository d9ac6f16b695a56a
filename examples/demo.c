/* SPDX-License-Identifier: Apache-2.0 */
/* demo: what `make demo` runs.  Fork-join programs on the default pool,
 * each timed against its sequential version, with the per-worker counters
 * of one parallel run: who spawned, who stole, who slept.  It first says
 * how many CPUs the process may use and how much of them it gets at the
 * moment, because no speedup can exceed that.
 *
 * The sequential versions are the same code with the spawn replaced by a
 * call; bench/ does this for five workloads with more care (interleaved
 * repetitions, several pool sizes): `make bench`. */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT; clock_gettime */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <weft.h>

#define REPS 5 /* timed runs of each version; the median is shown */

/* ---- fib: a spawn at every call, no other work ------------------------ */

static long fib_seq(int n)
{
    return n < 2 ? n : fib_seq(n - 1) + fib_seq(n - 2);
}

typedef struct {
    wf_task task; /* first member: the body casts back to the frame */
    int n;
    long out;
} fib_frame;

static long fib(int n);

static void fib_task(wf_task *t)
{
    fib_frame *f = (fib_frame *)t;
    f->out = fib(f->n);
}

static long fib(int n)
{
    if (n < 2)
        return n;
    fib_frame child = {.n = n - 1};
    wf_spawn(&child.task, fib_task);
    long other = fib(n - 2);
    /* wf_join_fn: when nobody stole the child, call fib_task directly,
     * which the compiler can inline; wf_join would call through t->fn. */
    wf_join_fn(&child.task, fib_task);
    return child.out + other;
}

/* ---- fib with a cutoff: how a program would use tasks ----------------- */

/* Below the cutoff a subtree is a few microseconds of plain calls, so the
 * price of a task is paid once per ~10k calls and the pool's two halves
 * of the work are what shows. */
#define FIB_CUTOFF 20

static long fib_cut(int n);

static void fib_cut_task(wf_task *t)
{
    fib_frame *f = (fib_frame *)t;
    f->out = fib_cut(f->n);
}

static long fib_cut(int n)
{
    if (n < FIB_CUTOFF)
        return fib_seq(n);
    fib_frame child = {.n = n - 1};
    wf_spawn(&child.task, fib_cut_task);
    long other = fib_cut(n - 2);
    wf_join_fn(&child.task, fib_cut_task);
    return child.out + other;
}

/* ---- nqueens: a task per legal column, bit-mask board ----------------- */

typedef struct {
    unsigned all, cols, left, right; /* all = n one bits */
} board;

/* The squares of the next row left free by the queens placed so far. */
static unsigned free_squares(board b)
{
    return b.all & ~(b.cols | b.left | b.right);
}

static board place(board b, unsigned bit)
{
    return (board){b.all, b.cols | bit, ((b.left | bit) << 1) & b.all,
                   (b.right | bit) >> 1};
}

static long nq_seq(board b)
{
    if (b.cols == b.all)
        return 1;
    long total = 0;
    for (unsigned f = free_squares(b); f; f &= f - 1)
        total += nq_seq(place(b, f & -f));
    return total;
}

typedef struct {
    wf_task task;
    board b;
    long out;
} nq_frame;

static long nq(board b);

static void nq_task(wf_task *t)
{
    nq_frame *f = (nq_frame *)t;
    f->out = nq(f->b);
}

static long nq(board b)
{
    if (b.cols == b.all)
        return 1;
    nq_frame kids[32];
    int k = 0;
    for (unsigned f = free_squares(b); f; f &= f - 1) {
        kids[k] = (nq_frame){.b = place(b, f & -f)};
        wf_spawn(&kids[k].task, nq_task);
        k++;
    }
    long total = 0;
    while (k-- > 0) { /* newest first: the join fast path is LIFO */
        wf_join_fn(&kids[k].task, nq_task);
        total += kids[k].out;
    }
    return total;
}

/* ---- how many CPUs this process really gets --------------------------- */

static double now_s(void);

/* CPUs in this process's affinity mask (taskset, a container's cpuset). */
static unsigned cpus_allowed(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return (unsigned)CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (unsigned)n : 1;
}

typedef struct {
    double until; /* spin until this time (now_s) */
    double share; /* out: CPU time it got / wall time it spun */
} spinner;

static double thread_cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void *spin(void *p)
{
    spinner *s = p;
    volatile unsigned sink = 0;
    double t0 = now_s(), c0 = thread_cpu_s(), t;
    do {
        for (unsigned i = 0; i < 4096; i++)
            sink += i;
    } while ((t = now_s()) < s->until);
    (void)sink;
    s->share = (thread_cpu_s() - c0) / (t - t0);
    return NULL;
}

/* How many CPUs' worth of time n threads spinning together for 50 ms get:
 * about n on an idle machine, less when other programs (or a VM's host)
 * hold the CPUs.  0 if the threads could not be started. */
static double cpus_measured(unsigned n)
{
    spinner s[64];
    pthread_t tid[64];
    if (n > 64)
        n = 64;
    double until = now_s() + 0.05;
    unsigned started = 1;
    for (unsigned i = 0; i < n; i++)
        s[i] = (spinner){until, 0};
    while (started < n &&
           pthread_create(&tid[started], NULL, spin, &s[started]) == 0)
        started++;
    spin(&s[0]);
    double total = 0;
    for (unsigned i = 0; i < started; i++) {
        if (i > 0)
            pthread_join(tid[i], NULL);
        total += s[i].share;
    }
    return started == n ? total : 0;
}

/* Say how many CPUs the process may use (cpus) and how many it gets now
 * (got, from cpus_measured); returns the largest speedup possible with a
 * pool of `threads`. */
static double report_cpus(unsigned cpus, double got, unsigned threads)
{
    if (cpus == 1) {
        printf("1 CPU available to this process: no speedup possible\n");
        return 1;
    }
    if (got > 0)
        printf("%u CPUs available to this process; %u threads spinning "
               "together got %.2f CPUs' worth\n",
               cpus, cpus, got);
    else
        printf("%u CPUs available to this process\n", cpus);
    if (threads == 1) {
        printf("a pool of 1 thread: no speedup possible\n");
        return 1;
    }
    if (got > 0 && got < 1.25)
        printf("other programs hold the CPUs now: little speedup possible\n");
    double bound = got > 0 ? got : cpus;
    return bound < threads ? bound : threads;
}

/* ---- the showcase ------------------------------------------------------ */

typedef struct {
    const char *name;
    int n;
    long result;
    void (*seq)(void *self); /* both store into result */
    void (*par)(void *self);
    const char *how; /* printed after the result */
} program;

static void fib_seq_run(void *p)
{
    program *g = p;
    g->result = fib_seq(g->n);
}

static void fib_par_run(void *p)
{
    program *g = p;
    g->result = fib(g->n);
}

static void fib_cut_run(void *p)
{
    program *g = p;
    g->result = fib_cut(g->n);
}

static board empty_board(int n)
{
    return (board){.all = (1u << n) - 1};
}

static void nq_seq_run(void *p)
{
    program *g = p;
    g->result = nq_seq(empty_board(g->n));
}

static void nq_par_run(void *p)
{
    program *g = p;
    g->result = nq(empty_board(g->n));
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void print_stats(const wf_worker_stats *before,
                        const wf_worker_stats *after, unsigned n)
{
    printf("    %6s %10s %10s %7s %8s %9s %6s %6s\n", "thread", "spawns",
           "tasks run", "steals", "failed", "publishes", "parks", "wakes");
    /* Slots 0 .. n-2 are the background workers; n-1 is the caller slot
     * that main takes in wf_run. */
    for (unsigned i = 0; i < n; i++) {
        const wf_worker_stats *a = &before[i], *b = &after[i];
        char who[16];
        snprintf(who, sizeof who, i + 1 < n ? "%u" : "main", i);
        printf("    %6s %10llu %10llu %7llu %8llu %9llu %6llu %6llu\n", who,
               (unsigned long long)(b->spawns - a->spawns),
               (unsigned long long)(b->tasks_run - a->tasks_run),
               (unsigned long long)(b->steals - a->steals),
               (unsigned long long)(b->failed_steals - a->failed_steals),
               (unsigned long long)(b->publishes - a->publishes),
               (unsigned long long)(b->parks - a->parks),
               (unsigned long long)(b->wakes - a->wakes));
    }
}

/* Time seq and weft alternately (noise then hits both alike), check that
 * they agree, print the medians and the counters of the last weft run. */
static int showcase(wf_pool *pool, program *g, long expected, double bound)
{
    unsigned n = wf_pool_threads(pool);
    wf_worker_stats *before = calloc(n, sizeof *before);
    wf_worker_stats *after = calloc(n, sizeof *after);
    double ts[REPS], tw[REPS];
    int err = (before && after) ? 0 : WF_ENOMEM;
    for (int r = 0; r < REPS && !err; r++) {
        double t0 = now_s();
        g->seq(g);
        ts[r] = now_s() - t0;
        long seq_result = g->result;

        wf_pool_stats(pool, before, n);
        t0 = now_s();
        err = wf_run(pool, g->par, g);
        tw[r] = now_s() - t0;
        wf_pool_stats(pool, after, n);
        if (!err && (g->result != expected || seq_result != expected)) {
            fprintf(stderr,
                    "demo: %s(%d): weft %ld, sequential %ld, "
                    "expected %ld\n",
                    g->name, g->n, g->result, seq_result, expected);
            err = WF_EINVAL;
        }
    }
    if (!err) {
        qsort(ts, REPS, sizeof ts[0], cmp_double);
        qsort(tw, REPS, sizeof tw[0], cmp_double);
        double seq = ts[REPS / 2], par = tw[REPS / 2];
        printf("\n%s(%d) = %ld%s\n", g->name, g->n, g->result, g->how);
        printf("    sequential %8.2f ms   weft %8.2f ms   speedup %.2fx%s\n",
               seq * 1e3, par * 1e3, seq / par,
               bound <= 1     ? " (none possible here)"
               : bound < 1.25 ? " (the CPUs are busy)"
                              : "");
        print_stats(before, after, n);
    } else if (err != WF_EINVAL) {
        fprintf(stderr, "demo: %s\n", wf_strerror(err));
    }
    free(before);
    free(after);
    return err;
}

int main(void)
{
    /* Measured before the pool exists, so its workers do not compete. */
    unsigned cpus = cpus_allowed();
    double got = cpus > 1 ? cpus_measured(cpus) : 1;
    wf_pool *pool = wf_pool_default();
    if (pool == NULL) {
        fprintf(stderr, "demo: the default pool could not be created\n");
        return 1;
    }
    unsigned threads = wf_pool_threads(pool);
    printf("weft demo: default pool, %u threads (main and %u background "
           "worker%s); median of %d runs each\n",
           threads, threads - 1, threads == 2 ? "" : "s", REPS);
    double bound = report_cpus(cpus, got, threads);

    program fib_prog = {"fib",       35,          0,
                        fib_seq_run, fib_par_run, ", a task at every call"};
    program nq_prog = {"nqueens",  12,         0,
                       nq_seq_run, nq_par_run, ", a task per legal column"};
    program cut_prog = {
        "fib", 38, 0, fib_seq_run, fib_cut_run, ", tasks only down to n = 20"};
    if (showcase(pool, &fib_prog, 9227465, bound) ||
        showcase(pool, &nq_prog, 14200, bound) ||
        showcase(pool, &cut_prog, 39088169, bound))
        return 1;

    printf("\nThe first fib does nothing but spawn: its ratio is the price "
           "of a task against\na plain call, which gcc -O2 inlines several "
           "levels deep.  nqueens does some\nwork per task.  The last fib "
           "spawns only above n = 20 and calls the sequential\ncode below: "
           "that is how a program uses tasks, and its ratio is the pool's "
           "speedup.\n");
    return 0;
}
