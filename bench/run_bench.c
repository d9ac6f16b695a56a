/* run_bench: time every workload sequentially and on weft, print a table,
 * write <dir of this executable>/results.json.
 *
 *   run_bench [--reps N] [--only NAME[,NAME...]] [--workers LIST]
 *             [--warmup N] [--quick] [--json PATH]
 *
 * Runs are interleaved: seq, w1, w2, seq, w1, w2, ...  On a shared, noisy
 * machine a slow spell then hits every system alike instead of one system's
 * block of runs; the medians stay comparable.  Every run's result is
 * checked; a wrong one is reported at once and makes the runner exit 1
 * without writing results.json. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, readlink, sigaction */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include <weft.h>

#include "bench.h"

#define MAX_SYSTEMS 17 /* seq + up to 16 worker counts */
#define PATH_LEN 4096
#ifndef RUN_TIMEOUT_S
#define RUN_TIMEOUT_S 300 /* one run longer than this is taken for a hang */
#endif

static const bench_workload *const all_workloads[] = {
    &bench_fib,    &bench_nqueens, &bench_uts,    &bench_matmul,
    &bench_sum,    &bench_pfor,    &bench_reduce,
};
#define N_WORKLOADS (sizeof all_workloads / sizeof all_workloads[0])

typedef struct {
    int reps, warmup;
    bool quick;
    const char *only; /* comma-separated names, or NULL for all */
    unsigned workers[MAX_SYSTEMS - 1];
    int n_workers;
    const char *json_path; /* NULL: next to the executable */
} options;

/* One row of the table: a workload's runs on every system.  System 0 is
 * seq; system s > 0 is weft with opt.workers[s - 1] workers. */
typedef struct {
    const bench_workload *w;
    char size[64];
    double *runs[MAX_SYSTEMS]; /* reps seconds each */
    double median[MAX_SYSTEMS];
    double spawns[MAX_SYSTEMS]; /* tasks spawned per run (weft systems) */
    bool failed;
    char why[256]; /* what went wrong, if failed */
} row;

/* ---- options ----------------------------------------------------------- */

static void usage(FILE *to)
{
    fprintf(to,
            "usage: run_bench [--reps N] [--only NAME[,NAME...]] "
            "[--workers LIST] [--warmup N] [--quick] [--json PATH]\n"
            "  --reps N        measured runs per system (default 5)\n"
            "  --only NAMES    workloads to run: fib,nqueens,uts,matmul,sum\n"
            "  --workers LIST  weft pool sizes, e.g. 1,2,4,8,16 (default 1,2)\n"
            "  --warmup N      unmeasured rounds first (default 1)\n"
            "  --quick         small inputs, for a smoke test\n"
            "  --json PATH     where to write the results (default: "
            "results.json next to run_bench)\n");
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

static bool parse_workers(const char *list, options *opt)
{
    char buf[256];
    if (strlen(list) >= sizeof buf)
        return false;
    strcpy(buf, list);
    opt->n_workers = 0;
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        long v;
        if (opt->n_workers == MAX_SYSTEMS - 1 ||
            !parse_int(tok, 1, WF_MAX_THREADS, &v))
            return false;
        opt->workers[opt->n_workers++] = (unsigned)v;
    }
    return opt->n_workers > 0;
}

static bool name_in_list(const char *name, const char *list)
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

/* Every name in --only must exist: a typo should not run nothing quietly. */
static bool only_is_valid(const char *list)
{
    char buf[256];
    if (strlen(list) >= sizeof buf)
        return false;
    strcpy(buf, list);
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        bool known = false;
        for (size_t i = 0; i < N_WORKLOADS; i++)
            known |= strcmp(tok, all_workloads[i]->name) == 0;
        if (!known) {
            fprintf(stderr, "run_bench: unknown workload '%s'\n", tok);
            return false;
        }
    }
    return true;
}

static int parse_options(int argc, char **argv, options *opt)
{
    *opt = (options){.reps = 5, .warmup = 1, .workers = {1, 2},
                     .n_workers = 2};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        long v;
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
        } else if (strcmp(a, "--workers") == 0) {
            ok = parse_workers(val, opt);
        } else if (strcmp(a, "--only") == 0) {
            ok = only_is_valid(val);
            opt->only = val;
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

/* ---- timing ------------------------------------------------------------ */

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

static double median(const double *v, int n)
{
    double *s = malloc((size_t)n * sizeof *s);
    if (s == NULL)
        return v[0];
    memcpy(s, v, (size_t)n * sizeof *s);
    qsort(s, (size_t)n, sizeof *s, cmp_double);
    double m = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
    free(s);
    return m;
}

/* Tasks spawned so far by all of the pool's workers. */
static uint64_t pool_spawns(wf_pool *pool)
{
    unsigned n = wf_pool_threads(pool);
    wf_worker_stats *st = calloc(n, sizeof *st);
    uint64_t total = 0;
    if (st && wf_pool_stats(pool, st, n) >= 0)
        for (unsigned i = 0; i < n; i++)
            total += st[i].spawns;
    free(st);
    return total;
}

/* A run that never returns (a lost task, a missed wake-up) must not pass
 * for a slow one: the alarm names it and ends the process. */
static char hang_msg[128];

static void on_alarm(int sig)
{
    (void)sig;
    ssize_t ignored = write(2, hang_msg, strlen(hang_msg));
    (void)ignored;
    _exit(3);
}

static void arm_watchdog(const char *workload, const char *label)
{
    snprintf(hang_msg, sizeof hang_msg,
             "\nrun_bench: HANG: %s on %s still running after %d s\n",
             workload, label, RUN_TIMEOUT_S);
    alarm(RUN_TIMEOUT_S);
}

/* One timed run of workload w on system `label`, checked.  Returns the
 * seconds, or a negative number (with r->why set) if the run failed or
 * its result is wrong. */
static double run_once(row *r, void *state, wf_pool *pool, const char *label)
{
    const bench_workload *w = r->w;
    if (w->prepare)
        w->prepare(state);
    int err = 0;
    arm_watchdog(w->name, label);
    double t0 = now_s();
    if (pool == NULL)
        w->run_seq(state);
    else
        err = wf_run(pool, w->run_weft, state);
    double t = now_s() - t0;
    alarm(0);

    char why[200] = "";
    if (err)
        snprintf(why, sizeof why, "wf_run failed: %s", wf_strerror(err));
    if (err || w->check(state, pool == NULL, why, sizeof why) != 0) {
        snprintf(r->why, sizeof r->why, "%s: %s", label, why);
        fprintf(stderr, "\nrun_bench: WRONG RESULT in %s on %s\n", w->name,
                r->why);
        return -1;
    }
    return t;
}

static void system_label(const options *opt, int sys, char *buf, size_t n)
{
    if (sys == 0)
        snprintf(buf, n, "seq");
    else
        snprintf(buf, n, "w%u", opt->workers[sys - 1]);
}

/* All rounds of one workload, each round visiting every system once. */
static void run_workload(const options *opt, wf_pool **pools, row *r)
{
    int systems = 1 + opt->n_workers;
    void *state = r->w->setup(opt->quick);
    if (state == NULL) {
        snprintf(r->why, sizeof r->why, "setup failed (out of memory?)");
        fprintf(stderr, "run_bench: %s: %s\n", r->w->name, r->why);
        r->failed = true;
        return;
    }
    uint64_t spawns_before[MAX_SYSTEMS];
    for (int sys = 1; sys < systems; sys++)
        spawns_before[sys] = pool_spawns(pools[sys - 1]);
    fprintf(stderr, "%-8s", r->w->name);
    for (int round = -opt->warmup; round < opt->reps && !r->failed; round++) {
        for (int sys = 0; sys < systems; sys++) {
            char label[32];
            system_label(opt, sys, label, sizeof label);
            double t = run_once(r, state, sys ? pools[sys - 1] : NULL, label);
            if (t < 0) {
                r->failed = true;
                break;
            }
            if (round >= 0)
                r->runs[sys][round] = t;
        }
        fputc('.', stderr); /* a long run should show it is alive */
    }
    fputc('\n', stderr);
    snprintf(r->size, sizeof r->size, "%s", r->w->describe(state));
    r->w->teardown(state);
    if (r->failed)
        return;
    for (int sys = 0; sys < systems; sys++)
        r->median[sys] = median(r->runs[sys], opt->reps);
    for (int sys = 1; sys < systems; sys++)
        r->spawns[sys] = (double)(pool_spawns(pools[sys - 1]) -
                                  spawns_before[sys]) /
                         (opt->warmup + opt->reps);
}

/* ---- output ------------------------------------------------------------ */

/* Index of the system with `n` workers, or -1. */
static int system_of(const options *opt, unsigned n)
{
    for (int i = 0; i < opt->n_workers; i++)
        if (opt->workers[i] == n)
            return i + 1;
    return -1;
}

static void print_table(const options *opt, const row *rows, int n_rows)
{
    int systems = 1 + opt->n_workers, one = system_of(opt, 1);
    char label[32];
    printf("\n%-8s %-26s %8s", "workload", "size", "seq");
    for (int s = 1; s < systems; s++) {
        system_label(opt, s, label, sizeof label);
        printf(" %8s", label);
    }
    if (one > 0)
        printf(" %8s %8s", "T1/Tseq", "ns/spawn");
    for (int s = 1; s < systems; s++)
        if (opt->workers[s - 1] != 1) {
            snprintf(label, sizeof label, "Tseq/T%u", opt->workers[s - 1]);
            printf(" %8s", label);
        }
    printf(" %7s\n", "noise");

    for (int i = 0; i < n_rows; i++) {
        const row *r = &rows[i];
        printf("%-8s %-26s", r->w->name, r->size);
        if (r->failed) {
            printf(" FAILED %s\n", r->why);
            continue;
        }
        for (int s = 0; s < systems; s++)
            printf(" %8.4f", r->median[s]);
        /* What a spawn+join costs over a plain call, the kernel's own work
         * being the same on both sides.  Only for fine-grained kernels (a
         * spawn per microsecond or more): with coarse tasks the difference
         * is noise divided by a small number. */
        if (one > 0) {
            printf(" %8.2f", r->median[one] / r->median[0]);
            if (r->spawns[one] / r->median[0] >= 1e6)
                printf(" %8.1f",
                       (r->median[one] - r->median[0]) * 1e9 / r->spawns[one]);
            else
                printf(" %8s", "-");
        }
        for (int s = 1; s < systems; s++)
            if (opt->workers[s - 1] != 1)
                printf(" %8.2f", r->median[0] / r->median[s]);
        /* The widest (max - min) / median over the systems: how far to
         * trust the ratios on this machine. */
        double noise = 0;
        for (int s = 0; s < systems; s++) {
            double lo = r->runs[s][0], hi = lo;
            for (int k = 1; k < opt->reps; k++) {
                lo = r->runs[s][k] < lo ? r->runs[s][k] : lo;
                hi = r->runs[s][k] > hi ? r->runs[s][k] : hi;
            }
            double spread = (hi - lo) / r->median[s];
            noise = spread > noise ? spread : noise;
        }
        printf(" %6.0f%%\n", noise * 100);
    }
    printf("\nmedian seconds of %d runs each, interleaved; wN = weft with N "
           "workers.\nns/spawn = (T1-Tseq) / spawns per run, shown where "
           "tasks are fine (>= 1 spawn/us).\nnoise = widest (max-min)/median "
           "in the row.\n",
           opt->reps);
}

/* results.json goes next to the executable: <build>/bench/results.json. */
static void default_json_path(const char *argv0, char *buf, size_t n)
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
    snprintf(buf, n, "%s/results.json", exe);
}

static void write_record(FILE *f, const char *workload, const char *system,
                         unsigned workers, const row *r, int sys, int reps,
                         bool first)
{
    fprintf(f,
            "%s\n  {\"workload\": \"%s\", \"system\": \"%s\", \"workers\": "
            "%u, \"median_s\": %.9f, \"runs\": [",
            first ? "" : ",", workload, system, workers, r->median[sys]);
    for (int k = 0; k < reps; k++)
        fprintf(f, "%s%.9f", k ? ", " : "", r->runs[sys][k]);
    fprintf(f, "]}");
}

static int write_json(const options *opt, const char *path, const row *rows,
                      int n_rows)
{
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        fprintf(stderr, "run_bench: cannot write %s: %s\n", path,
                strerror(errno));
        return -1;
    }
    fprintf(f, "[");
    bool first = true;
    for (int i = 0; i < n_rows; i++) {
        write_record(f, rows[i].w->name, "seq", 1, &rows[i], 0, opt->reps,
                     first);
        first = false;
        for (int s = 1; s <= opt->n_workers; s++)
            write_record(f, rows[i].w->name, "weft", opt->workers[s - 1],
                         &rows[i], s, opt->reps, false);
    }
    fprintf(f, "\n]\n");
    if (fclose(f) != 0) {
        fprintf(stderr, "run_bench: error writing %s\n", path);
        return -1;
    }
    return 0;
}

/* ---- main ---------------------------------------------------------------- */

/* How busy the machine was, apart from us.  On a shared box another job
 * (a test suite, a build) takes CPUs from the weft runs and flattens the
 * speedups; this says so instead of leaving the reader to guess. */
typedef struct {
    double own_cpu; /* seconds of CPU this process used */
    unsigned long long busy, steal, total; /* all CPUs, clock ticks */
    bool have_stat;
} usage_mark;

static usage_mark usage_now(void)
{
    usage_mark m = {.have_stat = false};
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) == 0)
        m.own_cpu = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
                    (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
    FILE *f = fopen("/proc/stat", "r");
    unsigned long long v[8] = {0}; /* user nice system idle iowait irq
                                      softirq steal */
    if (f && fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0],
                    &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) == 8) {
        m.busy = v[0] + v[1] + v[2] + v[5] + v[6];
        m.steal = v[7];
        m.total = m.busy + v[3] + v[4] + v[7];
        m.have_stat = true;
    }
    if (f)
        fclose(f);
    return m;
}

static void report_usage(usage_mark a, usage_mark b)
{
    if (!a.have_stat || !b.have_stat || b.total <= a.total)
        return;
    double hz = (double)sysconf(_SC_CLK_TCK);
    double capacity = (double)(b.total - a.total) / hz; /* CPU-seconds */
    double others = (double)(b.busy - a.busy) / hz - (b.own_cpu - a.own_cpu);
    double share = (others > 0 ? others : 0) / capacity;
    double stolen = (double)(b.steal - a.steal) / hz / capacity;
    printf("other processes used %.0f%% of the CPUs during the runs",
           share * 100);
    if (stolen >= 0.01)
        printf(", the hypervisor took %.0f%%", stolen * 100);
    printf("%s\n", share >= 0.1 ? ": the ratios above are not reliable" : "");
}

/* The 1-minute load average, as text: a busy machine explains odd ratios. */
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

static int create_pools(const options *opt, wf_pool **pools)
{
    for (int i = 0; i < opt->n_workers; i++) {
        wf_pool_config cfg = WF_POOL_CONFIG_INIT;
        cfg.threads = opt->workers[i];
        int err = wf_pool_create(&pools[i], &cfg);
        if (err) {
            fprintf(stderr, "run_bench: pool of %u workers: %s\n",
                    opt->workers[i], wf_strerror(err));
            while (i-- > 0)
                wf_pool_destroy(pools[i]);
            return -1;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    options opt;
    if (parse_options(argc, argv, &opt) != 0)
        return 2;
    struct sigaction sa = {.sa_handler = on_alarm};
    sigaction(SIGALRM, &sa, NULL);

    /* Pools are made once and reused: a benchmark of spawn/join should not
     * time thread creation. */
    wf_pool *pools[MAX_SYSTEMS - 1];
    if (create_pools(&opt, pools) != 0)
        return 1;

    printf("weft bench: %d reps + %d warm-up, %s inputs, %ld CPUs online, "
           "load %s\n",
           opt.reps, opt.warmup, opt.quick ? "quick" : "full",
           sysconf(_SC_NPROCESSORS_ONLN), load_average());
    fflush(stdout);

    usage_mark start = usage_now();
    row rows[N_WORKLOADS];
    int n_rows = 0;
    bool failed = false;
    for (size_t i = 0; i < N_WORKLOADS; i++) {
        if (opt.only && !name_in_list(all_workloads[i]->name, opt.only))
            continue;
        row *r = &rows[n_rows++];
        *r = (row){.w = all_workloads[i]};
        for (int s = 0; s <= opt.n_workers; s++) {
            r->runs[s] = calloc((size_t)opt.reps, sizeof(double));
            if (r->runs[s] == NULL) {
                fprintf(stderr, "run_bench: out of memory\n");
                return 1;
            }
        }
        run_workload(&opt, pools, r);
        failed |= r->failed;
    }

    for (int i = 0; i < opt.n_workers; i++)
        wf_pool_destroy(pools[i]);
    usage_mark end = usage_now();
    print_table(&opt, rows, n_rows);
    report_usage(start, end);

    char path[PATH_LEN + 32];
    if (opt.json_path)
        snprintf(path, sizeof path, "%s", opt.json_path);
    else
        default_json_path(argv[0], path, sizeof path);
    if (failed) {
        /* A stale file from an earlier run must not pass for this one. */
        remove(path);
        fprintf(stderr, "\nrun_bench: FAILED: wrong results, %s not "
                        "written\n", path);
    } else if (write_json(&opt, path, rows, n_rows) == 0) {
        printf("results: %s\n", path);
    } else {
        failed = true;
    }

    for (int i = 0; i < n_rows; i++)
        for (int s = 0; s <= opt.n_workers; s++)
            free(rows[i].runs[s]);
    return failed ? 1 : 0;
}
