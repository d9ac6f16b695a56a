/* SPDX-License-Identifier: Apache-2.0 */
/* run_bench: every workload on every system, interleaved; markdown tables,
 * results.json and gnuplot data.
 *
 *   run_bench [--reps N] [--warmup N] [--threads LIST] [--only NAMES]
 *             [--systems NAMES] [--quick] [--json PATH]
 *
 * Each system runs in its own process, bench_<system> next to this one
 * (server.c): run_bench sets a workload up in all of them, then for each
 * thread count does rounds in which every system runs once in turn
 * (A B C A B C ...), so a slow spell of a shared machine hits all systems
 * alike and each ratio comes from one run of this program.  A thread
 * count T counts the thread that starts and waits for the work, on every
 * system (system.h).  Every run's result is checked against the
 * sequential one by the runner; a wrong one makes run_bench exit 1
 * without writing results.json.  A peer that was not built is reported as
 * missing in every table it belongs to; a system that has no version of a
 * workload (weft-typed, for most) shows n/a there. */
#define _POSIX_C_SOURCE 200809L /* fdopen, readlink */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_systems.h" /* generated: peers not built, and why */

#define MAX_THREADS 64
#define PATH_LEN 4096

/* WEFT_TYPED (weft-typed) is weft's typed tasks (weft/task.h), for the
 * fork-join kernels that have a typed version (kernel.h); n/a for the
 * others.  WEFT_POOL (weft-inpool) is weft's runner with --in-pool: the
 * graph kernels inside wf_run, so that their puts and waits are a pool
 * member's rather than an outside thread's, as these benchmarks ran them
 * before every system's kernel ran from the main thread; a column for
 * comparison only, in the graph tables. */
enum { SEQ, WEFT, WEFT_TYPED, WEFT_POOL, OMP_GCC, OMP_CLANG, TBB, N_SYSTEMS };
static const char *const system_names[N_SYSTEMS] = {
    "seq", "weft", "weft-typed", "weft-inpool", "omp-gcc", "omp-clang", "tbb"};
static const char *const system_exes[N_SYSTEMS] = {
    "bench_seq",     "bench_weft",      "bench_weft_typed", "bench_weft",
    "bench_omp_gcc", "bench_omp_clang", "bench_tbb"};
static const char *const system_args[N_SYSTEMS] = {
    NULL, NULL, NULL, "--in-pool", NULL, NULL, NULL};

typedef struct {
    const char *name, *group;
} workload_info;

/* Flow-graph workloads run on weft (and weft-inpool) and oneTBB only;
 * weft-typed has fork-join kernels only. */
static const workload_info workloads[] = {
    {"fib", "forkjoin"},
    {"nqueens", "forkjoin"},
    {"queens", "forkjoin"},
    {"uts", "forkjoin"},
    {"matmul", "forkjoin"},
    {"sum", "forkjoin"},
    {"pfor", "forkjoin"},
    {"reduce", "forkjoin"},
    {"cilksort", "forkjoin"},
    {"pipeline", "forkjoin"},  /* from main, as the graphs: bench/pipeline.c */
    {"blur", "forkjoin"},      /* from main: bench/blur.c */
    {"histogram", "forkjoin"}, /* from main: bench/histogram.c */
    /* from main: bench/sort.c, bench/scan.c; sort_stdpar: tbb only */
    {"sort", "forkjoin"},
    {"sort_stdpar", "forkjoin"},
    {"scan", "forkjoin"},
    {"g_chain", "graph"},
    {"g_broadcast", "graph"},
    {"g_join_queueing", "graph"},
    {"g_join_reserving", "graph"},
    {"g_join_key", "graph"},
    {"g_wavefront", "graph"},
    {"g_latency", "graph"},
    /* task graphs, from main; every system (bench/taskgraph.c) */
    {"tg_wavefront", "forkjoin"},
    {"tg_chain", "forkjoin"},
    {"tg_tree", "forkjoin"},
    {"tg_level", "forkjoin"},
    {"tg_rerun", "forkjoin"},
};
#define N_WORKLOADS (sizeof workloads / sizeof workloads[0])
static const char *const groups[] = {"forkjoin", "graph"};

static bool in_group(bool graph, int sys)
{
    return graph ? sys == WEFT || sys == WEFT_POOL || sys == TBB
                 : sys != WEFT_POOL;
}

static bool applies(const workload_info *w, int sys)
{
    return in_group(strcmp(w->group, "graph") == 0, sys);
}

typedef struct {
    int reps, warmup;
    bool quick;
    const char *only, *systems;
    unsigned threads[MAX_THREADS];
    int n_threads;
    const char *json_path;
} options;

/* A system's runner process.  A fresh one runs each workload, so that no
 * workload's figure depends on what ran before it in the same process (a
 * runtime's allocator, thread and cache state: oneTBB's joins measured
 * 2.2 M msgs/s after other graph workloads and 3.8-7.0 alone). */
typedef struct {
    const char *missing; /* why it is not there, or NULL */
    char path[PATH_LEN + 64];
    pid_t pid;
    FILE *to, *from;
} runner;

/* One workload's results. */
typedef struct {
    const workload_info *info;
    char size[96];
    double messages;                      /* per run; 0 for fork-join */
    bool latency;                         /* g_latency: round trips, rtt[] */
    bool in[N_SYSTEMS];                   /* ran on this system */
    bool na[N_SYSTEMS];                   /* the system has no version */
    double *runs[N_SYSTEMS][MAX_THREADS]; /* reps seconds; seq: [0] only */
    double median[N_SYSTEMS][MAX_THREADS];
    /* latency: per run, the mean, p50 and p99 of its round trips (us),
     * 3 * reps; and the median over runs of each */
    double *rtt[N_SYSTEMS][MAX_THREADS];
    double rtt_median[N_SYSTEMS][MAX_THREADS][3];
    bool failed;
} result;

/* ---- options ----------------------------------------------------------- */

static void usage(FILE *to)
{
    fprintf(to,
            "usage: run_bench [--reps N] [--warmup N] [--threads LIST] "
            "[--only NAMES] [--systems NAMES] [--quick] [--json PATH]\n"
            "  --reps N         measured runs per system (default 5)\n"
            "  --warmup N       unmeasured rounds first (default 1)\n"
            "  --threads LIST   thread counts, the caller counted, e.g. 1,2,4\n"
            "                   (default 1..nproc; --workers: the same)\n"
            "  --only NAMES     workloads, e.g. fib,g_chain (default all)\n"
            "  --systems NAMES  seq,weft,weft-typed,weft-inpool,omp-gcc,\n"
            "                   omp-clang,tbb\n"
            "                   (default all)\n"
            "  --quick          small inputs\n"
            "  --json PATH      results (default results.json next to "
            "run_bench); gnuplot data goes to PATH-less-.json-GROUP.dat\n");
}

static bool parse_int(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end != '\0' || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

static bool in_list(const char *name, const char *list)
{
    size_t len = strlen(name);
    for (const char *p = list; *p;) {
        const char *comma = strchr(p, ',');
        size_t tok = comma ? (size_t)(comma - p) : strlen(p);
        if (tok == len && strncmp(p, name, len) == 0)
            return true;
        p += tok + (comma != NULL);
    }
    return false;
}

/* Every name in a list must be known: a typo must not run nothing. */
static bool list_valid(const char *list, bool systems)
{
    char buf[512];
    if (strlen(list) >= sizeof buf)
        return false;
    strcpy(buf, list);
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        bool known = false;
        if (systems)
            for (int s = 0; s < N_SYSTEMS; s++)
                known |= strcmp(tok, system_names[s]) == 0;
        else
            for (size_t i = 0; i < N_WORKLOADS; i++)
                known |= strcmp(tok, workloads[i].name) == 0;
        if (!known) {
            fprintf(stderr, "run_bench: unknown %s '%s'\n",
                    systems ? "system" : "workload", tok);
            return false;
        }
    }
    return true;
}

static bool parse_threads(const char *list, options *opt)
{
    char buf[512];
    if (strlen(list) >= sizeof buf)
        return false;
    strcpy(buf, list);
    opt->n_threads = 0;
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        long v;
        if (opt->n_threads == MAX_THREADS || !parse_int(tok, 1, 4096, &v))
            return false;
        opt->threads[opt->n_threads++] = (unsigned)v;
    }
    return opt->n_threads > 0;
}

static int parse_options(int argc, char **argv, options *opt)
{
    *opt = (options){.reps = 5, .warmup = 1};
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    for (long t = 1; t <= (cpus > 0 ? cpus : 1) && t <= MAX_THREADS; t++)
        opt->threads[opt->n_threads++] = (unsigned)t;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        long v = 0;
        bool ok = true;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            exit(0);
        } else if (strcmp(a, "--quick") == 0) {
            opt->quick = true;
            continue;
        } else if (val == NULL) {
            ok = false;
        } else if (strcmp(a, "--reps") == 0) {
            ok = parse_int(val, 1, 100000, &v);
            opt->reps = (int)v;
        } else if (strcmp(a, "--warmup") == 0) {
            ok = parse_int(val, 0, 100000, &v);
            opt->warmup = (int)v;
        } else if (strcmp(a, "--threads") == 0 ||
                   strcmp(a, "--workers") == 0) { /* the old name */
            ok = parse_threads(val, opt);
        } else if (strcmp(a, "--only") == 0) {
            ok = list_valid(val, false);
            opt->only = val;
        } else if (strcmp(a, "--systems") == 0) {
            ok = list_valid(val, true);
            opt->systems = val;
        } else if (strcmp(a, "--json") == 0) {
            opt->json_path = val;
        } else {
            ok = false;
        }
        if (!ok) {
            fprintf(stderr, "run_bench: bad argument '%s%s%s'\n", a,
                    val ? " " : "", val ? val : "");
            usage(stderr);
            return -1;
        }
        i++; /* consumed the value */
    }
    return 0;
}

/* ---- runners ----------------------------------------------------------- */

static void exe_dir(const char *argv0, char *buf, size_t n)
{
    char exe[PATH_LEN];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len > 0)
        exe[len] = '\0';
    else
        snprintf(exe, sizeof exe, "%s", argv0);
    char *slash = strrchr(exe, '/');
    if (slash)
        *slash = '\0';
    else
        strcpy(exe, ".");
    snprintf(buf, n, "%s", exe);
}

static const char *missing_reason(int sys)
{
    for (int i = 0; bench_missing[i].system; i++)
        if (strcmp(bench_missing[i].system, system_names[sys]) == 0)
            return bench_missing[i].why;
    return NULL;
}

static int start_runner(runner *r, const char *path, const char *arg,
                        bool quick)
{
    int down[2], up[2];
    if (pipe(down) != 0 || pipe(up) != 0)
        return -1;
    /* Close-on-exec everywhere: a later runner must not inherit this one's
     * stdin, or this one would never see EOF (dup2 clears the flag on the
     * child's 0 and 1). */
    for (int i = 0; i < 2; i++) {
        fcntl(down[i], F_SETFD, FD_CLOEXEC);
        fcntl(up[i], F_SETFD, FD_CLOEXEC);
    }
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        dup2(down[0], 0);
        dup2(up[1], 1);
        close(down[0]);
        close(down[1]);
        close(up[0]);
        close(up[1]);
        char *args[4] = {(char *)path};
        int n = 1;
        if (quick)
            args[n++] = "--quick";
        if (arg)
            args[n++] = (char *)arg;
        execv(path, args);
        fprintf(stderr, "run_bench: cannot run %s: %s\n", path,
                strerror(errno));
        _exit(127);
    }
    close(down[0]);
    close(up[1]);
    r->pid = pid;
    r->to = fdopen(down[1], "w");
    r->from = fdopen(up[0], "r");
    return r->to && r->from ? 0 : -1;
}

/* Send a command, read the one-line answer into reply (without newline).
 * Returns false when the runner died (crash, hang watchdog). */
static bool ask(runner *r, const char *cmd, char *reply, size_t n)
{
    if (fprintf(r->to, "%s\n", cmd) < 0 || fflush(r->to) != 0 ||
        fgets(reply, (int)n, r->from) == NULL) {
        snprintf(reply, n, "wrong the runner died");
        return false;
    }
    reply[strcspn(reply, "\n")] = '\0';
    return true;
}

static void stop_runner(runner *r)
{
    if (r->to == NULL)
        return;
    fclose(r->to);
    fclose(r->from);
    waitpid(r->pid, NULL, 0);
    r->to = r->from = NULL;
}

/* ---- statistics -------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(const double *v, int n)
{
    double s[n];
    memcpy(s, v, sizeof s);
    qsort(s, (size_t)n, sizeof *s, cmp_double);
    return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

static double spread(const double *v, int n)
{
    double lo = v[0], hi = v[0];
    for (int k = 1; k < n; k++) {
        lo = v[k] < lo ? v[k] : lo;
        hi = v[k] > hi ? v[k] : hi;
    }
    return (hi - lo) / median(v, n);
}

/* ---- running ----------------------------------------------------------- */

/* Column index of thread count k for system s: seq runs once, in k = 0. */
static bool runs_at(int s, int k)
{
    return s != SEQ || k == 0;
}

static void run_workload(const options *opt, runner *rn, result *r)
{
    char reply[512], cmd[64];
    snprintf(cmd, sizeof cmd, "setup %s", r->info->name);
    for (int s = 0; s < N_SYSTEMS; s++) {
        if (rn[s].to == NULL || !applies(r->info, s))
            continue;
        ask(&rn[s], cmd, reply, sizeof reply);
        if (strcmp(reply, "na") == 0) {
            r->na[s] = true;
            continue;
        }
        if (strncmp(reply, "ok ", 3) != 0) {
            fprintf(stderr, "run_bench: %s on %s: %s\n", r->info->name,
                    system_names[s], reply);
            r->failed = true;
            continue;
        }
        char *tab = strchr(reply + 3, '\t');
        if (tab) {
            *tab = '\0';
            r->messages = strtod(tab + 1, NULL);
        }
        snprintf(r->size, sizeof r->size, "%.95s", reply + 3);
        r->in[s] = true;
    }
    r->latency = strcmp(r->info->name, "g_latency") == 0;
    fprintf(stderr, "%-17s", r->info->name);
    for (int k = 0; k < opt->n_threads && !r->failed; k++) {
        snprintf(cmd, sizeof cmd, "run %u", opt->threads[k]);
        for (int round = -opt->warmup; round < opt->reps && !r->failed;
             round++) {
            for (int s = 0; s < N_SYSTEMS && !r->failed; s++) {
                if (!r->in[s] || !runs_at(s, k))
                    continue;
                ask(&rn[s], cmd, reply, sizeof reply);
                /* "ok SECONDS", then for g_latency "MEAN P50 P99" (us) */
                char *p = reply + 3, *end = p;
                double v[4] = {0};
                int want = r->latency ? 4 : 1, got = 0;
                if (strncmp(reply, "ok ", 3) == 0)
                    for (; got < want; got++, p = end) {
                        v[got] = strtod(p, &end);
                        if (end == p)
                            break;
                    }
                if (got < want) {
                    fprintf(stderr,
                            "\nrun_bench: WRONG RESULT: %s on %s "
                            "with %u threads: %s\n",
                            r->info->name, system_names[s], opt->threads[k],
                            reply);
                    r->failed = true;
                } else if (round >= 0) {
                    r->runs[s][k][round] = v[0];
                    if (r->latency)
                        memcpy(&r->rtt[s][k][3 * round], v + 1, 3 * sizeof *v);
                }
            }
            fputc('.', stderr); /* a long run should show it is alive */
        }
    }
    fputc('\n', stderr);
    for (int s = 0; s < N_SYSTEMS; s++)
        if (r->in[s])
            ask(&rn[s], "teardown", reply, sizeof reply);
    if (r->failed)
        return;
    for (int s = 0; s < N_SYSTEMS; s++)
        for (int k = 0; k < opt->n_threads; k++) {
            if (!r->in[s] || !runs_at(s, k))
                continue;
            r->median[s][k] = median(r->runs[s][k], opt->reps);
            for (int q = 0; q < 3 && r->latency; q++) {
                double col[opt->reps];
                for (int j = 0; j < opt->reps; j++)
                    col[j] = r->rtt[s][k][3 * j + q];
                r->rtt_median[s][k][q] = median(col, opt->reps);
            }
        }
}

/* ---- output ------------------------------------------------------------ */

/* System s at thread count k as the table shows it: seconds, messages
 * per second, or a round trip's mean / p50 / p99 in microseconds. */
static void cell(const result *r, int s, int k, char *buf, size_t n)
{
    double t = r->median[s][k];
    const double *us = r->rtt_median[s][k];
    if (r->latency)
        snprintf(buf, n, "%.2f / %.2f / %.2f us", us[0], us[1], us[2]);
    else if (r->messages > 0)
        snprintf(buf, n, "%.3g M/s", r->messages / t / 1e6);
    else
        snprintf(buf, n, "%.4f s", t);
}

/* What "weft vs X" divides: the median time, or for latency the median
 * of the runs' mean round trips. */
static double figure(const result *r, int s, int k)
{
    return r->latency ? r->rtt_median[s][k][0] : r->median[s][k];
}

static void print_table(const options *opt, const runner *rn, const result *r)
{
    bool col[N_SYSTEMS];
    for (int s = 0; s < N_SYSTEMS; s++)
        col[s] = applies(r->info, s) && (r->in[s] || r->na[s] || rn[s].missing);
    /* weft-typed's speedup, beside weft's (the "weft vs seq" column) */
    bool typed_vs_seq = col[WEFT_TYPED] && col[SEQ];
    printf("\n### %s (%s)\n\n", r->info->name, r->size);
    if (r->failed) {
        printf("FAILED: a wrong result or a runner that died (see above)\n");
        return;
    }
    printf("| threads |");
    for (int s = 0; s < N_SYSTEMS; s++)
        if (col[s])
            printf(" %s |", system_names[s]);
    for (int s = 0; s < N_SYSTEMS; s++)
        if (col[s] && s != WEFT)
            printf(" weft vs %s |", system_names[s]);
    if (typed_vs_seq)
        printf(" weft-typed vs seq |");
    printf("\n|---:|");
    for (int s = 0; s < N_SYSTEMS; s++)
        if (col[s])
            printf("---:|%s", s != WEFT ? "---:|" : "");
    printf("%s\n", typed_vs_seq ? "---:|" : "");
    double noise = 0;
    for (int k = 0; k < opt->n_threads; k++) {
        printf("| %u |", opt->threads[k]);
        char buf[64];
        for (int s = 0; s < N_SYSTEMS; s++) {
            if (!col[s])
                continue;
            if (r->na[s])
                printf(" n/a |");
            else if (!r->in[s])
                printf(" missing |");
            else if (!runs_at(s, k))
                printf(" |");
            else {
                cell(r, s, k, buf, sizeof buf);
                printf(" %s |", buf);
                double sp = spread(r->runs[s][k], opt->reps);
                noise = sp > noise ? sp : noise;
            }
        }
        /* > 1: weft is faster (less time, more messages per second). */
        for (int s = 0; s < N_SYSTEMS; s++) {
            if (!col[s] || s == WEFT)
                continue;
            int ks = s == SEQ ? 0 : k;
            if (r->na[s] || r->na[WEFT])
                printf(" n/a |");
            else if (!r->in[s] || !r->in[WEFT])
                printf(" missing |");
            else
                printf(" %.2fx |", figure(r, s, ks) / figure(r, WEFT, k));
        }
        if (typed_vs_seq) {
            if (r->na[WEFT_TYPED])
                printf(" n/a |");
            else if (!r->in[WEFT_TYPED] || !r->in[SEQ])
                printf(" missing |");
            else
                printf(" %.2fx |",
                       figure(r, SEQ, 0) / figure(r, WEFT_TYPED, k));
        }
        printf("\n");
    }
    printf(
        "\nmedian of %d runs, interleaved; \"weft vs X\" = X's time / "
        "weft's (> 1: weft faster); noise (widest (max-min)/median) %.0f%%\n",
        opt->reps, noise * 100);
    if (r->latency)
        printf("cells: mean / p50 / p99 of one round trip (put + "
               "wait_for_all, each timed), medians over the runs\n");
    if (typed_vs_seq)
        printf(
            "weft-typed: typed tasks (weft/task.h); \"weft-typed vs "
            "seq\" = seq's time / weft-typed's; n/a: no typed kernel built\n");
    if (col[WEFT_POOL])
        printf("weft-inpool: weft's kernel inside wf_run (puts and waits "
               "by a pool member, not from main); for comparison\n");
    for (int s = 0; s < N_SYSTEMS; s++)
        if (col[s] && rn[s].missing)
            printf("missing: %s (%s)\n", system_names[s], rn[s].missing);
    fflush(stdout);
}

static int write_json(const options *opt, const char *path, const result *rs,
                      int n)
{
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        fprintf(stderr, "run_bench: cannot write %s: %s\n", path,
                strerror(errno));
        return -1;
    }
    fprintf(f, "[");
    bool first = true;
    for (int i = 0; i < n; i++)
        for (int s = 0; s < N_SYSTEMS; s++)
            for (int k = 0; k < opt->n_threads; k++) {
                const result *r = &rs[i];
                if (!r->in[s] || !runs_at(s, k))
                    continue;
                /* "workers" repeats "threads" for readers of older files */
                unsigned t = s == SEQ ? 1u : opt->threads[k];
                fprintf(f,
                        "%s\n  {\"workload\": \"%s\", \"system\": \"%s\", "
                        "\"threads\": %u, \"workers\": %u, "
                        "\"median_s\": %.9f, ",
                        first ? "" : ",", r->info->name, system_names[s], t, t,
                        r->median[s][k]);
                first = false;
                if (r->messages > 0)
                    fprintf(f, "\"msgs_per_s\": %.1f, ",
                            r->messages / r->median[s][k]);
                if (r->latency) {
                    const double *us = r->rtt_median[s][k];
                    fprintf(f,
                            "\"mean_us\": %.4f, \"p50_us\": %.4f, "
                            "\"p99_us\": %.4f, \"runs_us\": [",
                            us[0], us[1], us[2]);
                    for (int j = 0; j < opt->reps; j++) {
                        const double *u = &r->rtt[s][k][3 * j];
                        fprintf(f, "%s[%.4f, %.4f, %.4f]", j ? ", " : "", u[0],
                                u[1], u[2]);
                    }
                    fprintf(f, "], ");
                }
                fprintf(f, "\"runs\": [");
                for (int j = 0; j < opt->reps; j++)
                    fprintf(f, "%s%.9f", j ? ", " : "", r->runs[s][k][j]);
                fprintf(f, "]}");
            }
    fprintf(f, "\n]\n");
    return fclose(f) == 0 ? 0 : -1;
}

/* gnuplot data, one file per group: two blocks (1 thread, most threads),
 * a row per workload, a column per system: speedup over seq (fork-join)
 * or messages per second (graphs); NaN where a system is missing. */
static void write_plot_data(const options *opt, const char *stem,
                            const result *rs, int n)
{
    for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++) {
        bool graph = strcmp(groups[g], "graph") == 0;
        char path[PATH_LEN + 64];
        snprintf(path, sizeof path, "%s-%s.dat", stem, groups[g]);
        FILE *f = fopen(path, "w");
        if (f == NULL)
            continue;
        int ks[2] = {0, opt->n_threads - 1};
        for (int b = 0; b < 2; b++) {
            fprintf(f, "%s# %u threads\n\"workload\"", b ? "\n\n" : "",
                    opt->threads[ks[b]]);
            for (int s = WEFT; s < N_SYSTEMS; s++)
                if (in_group(graph, s))
                    fprintf(f, " \"%s\"", system_names[s]);
            fprintf(f, "\n");
            for (int i = 0; i < n; i++) {
                const result *r = &rs[i];
                if (strcmp(r->info->group, groups[g]) != 0 || r->failed)
                    continue;
                fprintf(f, "%s", r->info->name);
                for (int s = WEFT; s < N_SYSTEMS; s++) {
                    if (!in_group(graph, s))
                        continue;
                    double v = NAN;
                    double t = r->median[s][ks[b]];
                    if (r->in[s] && graph)
                        v = r->messages / t;
                    else if (r->in[s] && r->in[SEQ])
                        v = r->median[SEQ][0] / t;
                    fprintf(f, " %.6g", v);
                }
                fprintf(f, "\n");
            }
        }
        fclose(f);
    }
}

/* ---- main ---------------------------------------------------------------- */

static const char *load_average(void)
{
    static char buf[16] = "?";
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (fscanf(f, "%15s", buf) != 1)
            strcpy(buf, "?");
        fclose(f);
    }
    return buf;
}

int main(int argc, char **argv)
{
    options opt;
    if (parse_options(argc, argv, &opt) != 0)
        return 2;
    signal(SIGPIPE, SIG_IGN); /* a dead runner is an answer, not a crash */

    char dir[PATH_LEN];
    exe_dir(argv[0], dir, sizeof dir);
    runner rn[N_SYSTEMS] = {{0}};
    for (int s = 0; s < N_SYSTEMS; s++) {
        snprintf(rn[s].path, sizeof rn[s].path, "%s/%s", dir, system_exes[s]);
        if (opt.systems && !in_list(system_names[s], opt.systems))
            continue;
        rn[s].missing = missing_reason(s);
        if (rn[s].missing == NULL && access(rn[s].path, X_OK) != 0)
            rn[s].missing = "not built (make bench_all)";
    }

    printf("# weft bench: %d reps + %d warm-up, %s inputs, %ld CPUs online, "
           "load %s\n\n",
           opt.reps, opt.warmup, opt.quick ? "quick" : "full",
           sysconf(_SC_NPROCESSORS_ONLN), load_average());
    for (int s = 0; s < N_SYSTEMS; s++)
        if (!opt.systems || in_list(system_names[s], opt.systems))
            printf("- %s: %s\n", system_names[s],
                   rn[s].missing ? rn[s].missing : "built");
    fflush(stdout);

    result rs[N_WORKLOADS];
    int n = 0;
    bool failed = false;
    for (size_t i = 0; i < N_WORKLOADS; i++) {
        if (opt.only && !in_list(workloads[i].name, opt.only))
            continue;
        result *r = &rs[n++];
        *r = (result){.info = &workloads[i]};
        for (int s = 0; s < N_SYSTEMS; s++)
            for (int k = 0; k < opt.n_threads; k++) {
                r->runs[s][k] = calloc((size_t)opt.reps, sizeof(double));
                r->rtt[s][k] = calloc(3 * (size_t)opt.reps, sizeof(double));
                if (r->runs[s][k] == NULL || r->rtt[s][k] == NULL) {
                    fprintf(stderr, "run_bench: out of memory\n");
                    return 1;
                }
            }
        for (int s = 0; s < N_SYSTEMS; s++)
            if ((!opt.systems || in_list(system_names[s], opt.systems)) &&
                rn[s].missing == NULL && applies(r->info, s) &&
                start_runner(&rn[s], rn[s].path, system_args[s], opt.quick) !=
                    0)
                rn[s].missing = "could not be started";
        run_workload(&opt, rn, r);
        for (int s = 0; s < N_SYSTEMS; s++)
            stop_runner(&rn[s]);
        print_table(&opt, rn, r);
        failed |= r->failed;
    }

    char path[PATH_LEN + 32];
    if (opt.json_path)
        snprintf(path, sizeof path, "%s", opt.json_path);
    else
        snprintf(path, sizeof path, "%s/results.json", dir);
    if (failed) {
        /* A stale file from an earlier run must not pass for this one. */
        remove(path);
        fprintf(stderr,
                "\nrun_bench: FAILED: wrong results, %s not "
                "written\n",
                path);
    } else if (write_json(&opt, path, rs, n) == 0) {
        char stem[PATH_LEN + 32];
        snprintf(stem, sizeof stem, "%s", path);
        char *dot = strrchr(stem, '.');
        if (dot && strcmp(dot, ".json") == 0)
            *dot = '\0';
        write_plot_data(&opt, stem, rs, n);
        printf("\nresults: %s\n", path);
    } else {
        failed = true;
    }
    for (int i = 0; i < n; i++)
        for (int s = 0; s < N_SYSTEMS; s++)
            for (int k = 0; k < opt.n_threads; k++) {
                free(rs[i].runs[s][k]);
                free(rs[i].rtt[s][k]);
            }
    return failed ? 1 : 0;
}
