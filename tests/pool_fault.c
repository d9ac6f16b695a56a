/* SPDX-License-Identifier: Apache-2.0 */
/* pool_fault: the pool when memory or threads run out.
 *
 *   usage: test_pool_fault SCENARIO
 *
 * create_sweep      fail the k-th allocation of wf_pool_create (only that
 *                   one, then every one from k on), k = 0, 1, ... until the
 *                   pool is created: each failure is WF_ENOMEM/WF_EAGAIN and
 *                   frees everything (live bytes 0, sizes match).  Each k
 *                   runs in a forked child, so a crash names its k and the
 *                   sweep goes on.
 * thread_start      a 64 TiB thread stack: creation fails with WF_EAGAIN,
 *                   leak-free; stack_size 1 gives WF_ERANGE; (normal build)
 *                   an address-space limit that lets a few workers start
 *                   before one fails.
 * grow_failure      memory runs out after creation; 10000 spawns before
 *                   the first join, and fib, still run every task once.
 * env_junk          WEFT_NUM_THREADS / WEFT_SPIN out of range or not a
 *                   number ("100000", "4x", "-3", " 2"): one warning on
 *                   stderr per variable, however many pools read it, and
 *                   the default applies (the default pool exists).
 * fork              after fork(), the child gets a default pool of its
 *                   own (wf_spawn, graphs on it work) and the parent's
 *                   pools and graphs answer WF_ESTATE instead of hanging;
 *                   the parent's pools are unaffected (normal build:
 *                   the sanitizers' runtimes are not fork-safe with
 *                   threads).
 * no_default_pool   the default pool cannot be created (its threads do
 *                   not fit an address-space limit; normal build only):
 *                   wf_pool_default() is NULL, and wf_spawn from outside
 *                   runs the task inline.
 * The submission queue's failure and the pool under load are in
 * pool_load.c. */
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fib_task.h"
#include "test_alloc.h"

#ifdef WF_TEST_SANITIZED
#define SCALE 5
#else
#define SCALE 1
#endif

/* Forked children end with _exit (no atexit leak check): ask LSan now. */
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#define LSAN_CHECK() CHECK_MSG(__lsan_do_recoverable_leak_check() == 0, "LSan")
#else
#define LSAN_CHECK() ((void)0)
#endif

static test_alloc ta;

#define check_no_leak(when) ta_check_no_leak(&ta, (when))

/* ---- create_sweep ------------------------------------------------------- */
/* Child: 0 when creation failed cleanly, 2 when it succeeded without
 * meeting the failure (the sweep is past the last allocation), 3 when it
 * succeeded although an allocation failed (a tolerated failure). */
static int create_once(int mode, long k)
{
    ta_init(&ta, mode, k);
    wf_pool_config cfg = WF_POOL_CONFIG_INIT;
    cfg.threads = 3;
    cfg.deque_capacity = 4;
    cfg.alloc = &ta.iface;
    wf_pool *sentinel = (wf_pool *)&sentinel, *p = sentinel;
    int err = wf_pool_create(&p, &cfg);
    if (err == 0) {
        /* Created: it must work and give everything back. */
        int tolerated = atomic_load(&ta.failures) > 0;
        ta_fail_from_now(&ta, 0);
        check_fib_on(p, 12);
        CHECK_OK(wf_pool_destroy(p));
        check_no_leak("after wf_pool_destroy");
        return tolerated ? 3 : 2;
    }
    CHECK_MSG(err == WF_ENOMEM || err == WF_EAGAIN, "k=%ld: %s", k,
              wf_err_name(err));
    CHECK(p == sentinel);
    check_no_leak("after a failed wf_pool_create");
    return 0;
}

static void scenario_create_sweep(void)
{
    const char *names[] = {"only the k-th", "every one from k on"};
    int modes[] = {TA_ONE, TA_FROM}, bad = 0;
    for (int m = 0; m < 2; m++) {
        long k;
        for (k = 0; k < 1000; k++) {
            fflush(NULL);
            pid_t pid = fork();
            CHECK(pid >= 0);
            if (pid == 0) {
                int r = create_once(modes[m], k);
                LSAN_CHECK();
                fflush(NULL);
                _exit(r);
            }
            int st;
            CHECK(waitpid(pid, &st, 0) == pid);
            if (WIFEXITED(st) && WEXITSTATUS(st) == 2)
                break; /* the pool was created: the sweep is complete */
            if (!WIFEXITED(st) ||
                (WEXITSTATUS(st) != 0 && WEXITSTATUS(st) != 3)) {
                bad++;
                fprintf(stderr,
                        "create_sweep: failing %s allocation, k=%ld: "
                        "%s %d\n",
                        names[m], k,
                        WIFSIGNALED(st) ? "killed by signal" : "exit status",
                        WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
            }
        }
        CHECK_MSG(k < 1000, "pool never created");
        printf("create_sweep (%s): %ld allocations before success\n", names[m],
               k);
    }
    CHECK_MSG(bad == 0, "%d failing allocation points mishandled", bad);
    /* And a pool made with this allocator frees all it took. */
    ta_init(&ta, TA_NEVER, -1);
    wf_pool *p = make_pool(3, 4, &ta.iface);
    check_fib_on(p, 15);
    CHECK_OK(wf_pool_destroy(p));
    check_no_leak("after wf_pool_destroy");
}

/* ---- thread_start ------------------------------------------------------- */
static void scenario_thread_start(void)
{
    ta_init(&ta, TA_NEVER, -1);
    wf_pool_config cfg = WF_POOL_CONFIG_INIT;
    cfg.threads = 2;
    cfg.stack_size = (size_t)1 << 46;
    cfg.alloc = &ta.iface;
    wf_pool *sentinel = (wf_pool *)&sentinel, *p = sentinel;
    int err = wf_pool_create(&p, &cfg);
    CHECK_MSG(err == WF_EAGAIN, "got %s", wf_err_name(err));
    CHECK(p == sentinel);
    check_no_leak("after a failed thread start");
    /* A stack below the system minimum cannot be set at all. */
    cfg.stack_size = 1;
    err = wf_pool_create(&p, &cfg);
    CHECK_MSG(err == WF_ERANGE, "stack_size 1: got %s", wf_err_name(err));
    CHECK(p == sentinel);
    check_no_leak("after stack_size 1");
#ifndef WF_TEST_SANITIZED
    /* Some workers start, then one cannot: those that started must be
     * stopped and joined.  An address-space limit (not usable under the
     * sanitizers' shadow memory) makes the 4th 64 MiB stack fail. */
    fflush(NULL);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        long pages = 0;
        FILE *f = fopen("/proc/self/statm", "r");
        CHECK(f && fscanf(f, "%ld", &pages) == 1);
        fclose(f);
        rlim_t vm = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE);
        struct rlimit rl = {vm + (200u << 20), vm + (200u << 20)};
        CHECK(setrlimit(RLIMIT_AS, &rl) == 0);
        cfg.stack_size = (size_t)64 << 20;
        cfg.threads = 2; /* two such stacks fit under the limit... */
        CHECK_OK(wf_pool_create(&p, &cfg));
        check_fib_on(p, 12);
        CHECK_OK(wf_pool_destroy(p));
        check_no_leak("after wf_pool_destroy under the limit");
        cfg.threads = 8; /* ...eight do not: some start, then one fails */
        p = sentinel;
        err = wf_pool_create(&p, &cfg);
        CHECK_MSG(err == WF_EAGAIN || err == WF_ENOMEM, "got %s",
                  wf_err_name(err));
        CHECK(p == sentinel);
        check_no_leak("after a partial thread start");
        LSAN_CHECK();
        fflush(NULL);
        _exit(0);
    }
    int st;
    CHECK(waitpid(pid, &st, 0) == pid);
    CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0,
              "partial thread start: child status %#x", st);
#endif
    p = make_pool(2, 0, &ta.iface); /* and a normal pool works after */
    check_fib_on(p, 12);
    CHECK_OK(wf_pool_destroy(p));
    check_no_leak("after wf_pool_destroy");
}

/* ---- env_junk ---------------------------------------------------------- */
/* In a child (the default pool is made once per process): set name=value,
 * make the default pool and two more pools that read the environment, and
 * return what the child wrote on stderr. */
typedef struct {
    const char *name, *value;
} env_setting;

static void env_child_main(void *arg)
{
    const env_setting *e = arg;
    CHECK(setenv(e->name, e->value, 1) == 0);
    wf_pool *def = wf_pool_default();
    CHECK_MSG(def != NULL, "%s=%s: no default pool", e->name, e->value);
    CHECK(wf_pool_threads(def) >= 2);
    for (int i = 0; i < 2; i++) {
        wf_pool *p = NULL;
        CHECK_OK(wf_pool_create(&p, NULL));
        check_fib_on(p, 10);
        CHECK_OK(wf_pool_destroy(p));
    }
}

static void env_child(const char *name, const char *value, char *err, size_t n)
{
    env_setting e = {name, value};
    int st = check_child_stderr(env_child_main, &e, err, n);
    CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0,
              "%s=%s: child status %#x: %s", name, value, st, err);
}

static int count_lines_with(const char *text, const char *what)
{
    int n = 0;
    for (const char *p = text; (p = strstr(p, what)) != NULL; p++)
        n++;
    return n;
}

static void scenario_env_junk(void)
{
    static const char *const bad[] = {"100000", "4x", "-3", " 2"};
    static const char *const names[] = {"WEFT_NUM_THREADS", "WEFT_SPIN"};
    for (size_t k = 0; k < 2; k++)
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            if (k == 1 && strcmp(bad[i], "100000") == 0)
                continue; /* a valid spin */
            char err[4096], want[128];
            env_child(names[k], bad[i], err, sizeof err);
            snprintf(want, sizeof want, "weft: %s=%s ignored", names[k],
                     bad[i]);
            CHECK_MSG(count_lines_with(err, want) == 1,
                      "%s=%s: expected one warning, stderr was: \"%s\"",
                      names[k], bad[i], err);
        }
    char err[4096];
    env_child("WEFT_NUM_THREADS", "3", err, sizeof err);
    CHECK_MSG(err[0] == '\0', "a valid value warned: %s", err);
}

/* ---- no_default_pool ---------------------------------------------------- */
/* The default pool cannot be created: wf_pool_default() is then NULL, and
 * wf_spawn from a thread that is not a worker runs the task at once,
 * inline, instead of losing it. */
#ifndef WF_TEST_SANITIZED
static void no_default_pool_child(void)
{
    /* No room for the default pool's thread stacks (8 MiB each). */
    long pages = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    CHECK(f && fscanf(f, "%ld", &pages) == 1);
    fclose(f);
    rlim_t vm = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE);
    struct rlimit old, rl;
    CHECK(getrlimit(RLIMIT_AS, &old) == 0);
    rl = old;
    rl.rlim_cur = vm + (4u << 20);
    CHECK(setrlimit(RLIMIT_AS, &rl) == 0);
    CHECK(wf_pool_default() == NULL);
    CHECK(setrlimit(RLIMIT_AS, &old) == 0);
    CHECK(wf_pool_default() == NULL); /* and stays so, quietly */
    fib_frame fr = {.n = 15};
    CHECK_OK(wf_spawn(&fr.task, fib_body));
    CHECK_EQ(fr.out, 610); /* ran inline */
    CHECK_OK(wf_join(&fr.task));
    CHECK_ERR(wf_join(&fr.task), WF_EJOINED);
    fib_job j = {.n = 5};
    CHECK_ERR(wf_run(wf_pool_default(), fib_root, &j), WF_EINVAL);
    /* An explicit pool still works. */
    wf_pool *p = make_pool(2, 0, NULL);
    check_fib_on(p, 15);
    CHECK_OK(wf_pool_destroy(p));
}
#endif

static void scenario_no_default_pool(void)
{
#ifdef WF_TEST_SANITIZED
    printf("no_default_pool: skipped under the sanitizers (address-space "
           "limit)\n");
#else
    check_in_child("no_default_pool", no_default_pool_child);
#endif
}

/* ---- fork -------------------------------------------------------------- */
/* A child of fork() gets a default pool of its own on first use, and a pool
 * of the parent answers WF_ESTATE instead of hanging (its workers are not
 * in the child).  ctest runs it in the normal build only (CMakeLists.txt
 * says why); the guard below keeps a TSan build from trying. */
#if !defined(__SANITIZE_THREAD__)
static int fork_body(const void *in, void *out, void *ctx)
{
    (void)out;
    atomic_fetch_add((_Atomic int *)ctx, *(const int *)in);
    return 0;
}

static wf_pool *parents;
static wf_graph *parents_graph;

static void fork_child(void)
{
    fib_frame f = {.n = 20};
    CHECK_OK(wf_spawn(&f.task, fib_body)); /* the child's default pool */
    CHECK_OK(wf_join(&f.task));
    CHECK_EQ(f.out, 6765);
    CHECK(wf_pool_default() != NULL);
    fib_job j = {.n = 5};
    CHECK_ERR(wf_run(parents, fib_root, &j), WF_ESTATE);
    wf_task t = {0};
    CHECK_ERR(wf_submit(parents, &t, fib_body), WF_ESTATE);
    CHECK_ERR(wf_pool_wait_idle(parents), WF_ESTATE);
    CHECK_ERR(wf_pool_destroy(parents), WF_ESTATE);
    wf_graph *g = NULL;
    CHECK_ERR(wf_graph_create(&g, parents), WF_ESTATE);
    CHECK_ERR(wf_graph_wait_for_all(parents_graph), WF_ESTATE);
    /* A graph on the child's default pool works. */
    _Atomic int sum = 0;
    CHECK_OK(wf_graph_create(&g, NULL));
    wf_function_config fc = WF_FUNCTION_CONFIG_INIT;
    fc.in_size = sizeof(int);
    fc.body = fork_body;
    fc.ctx = &sum;
    wf_node *fn = NULL;
    CHECK_OK(wf_function_node_create(&fn, g, &fc));
    for (int i = 1; i <= 100; i++)
        CHECK_EQ(wf_try_put(fn, &i), 1);
    CHECK_OK(wf_graph_wait_for_all(g));
    CHECK_EQ(atomic_load(&sum), 5050);
    CHECK_OK(wf_graph_destroy(g));
    CHECK_OK(wf_node_destroy(fn));
    /* And a pool made in the child. */
    wf_pool *p = make_pool(2, 0, NULL);
    check_fib_on(p, 15);
    CHECK_OK(wf_pool_destroy(p));
}
#endif

static void scenario_fork(void)
{
#if defined(__SANITIZE_THREAD__)
    printf(
        "fork: skipped under TSan (no threads after a multi-threaded fork)\n");
#else
    /* The parent uses its default pool, a pool of its own and a graph. */
    fib_frame f = {.n = 15};
    CHECK_OK(wf_spawn(&f.task, fib_body));
    CHECK_OK(wf_join(&f.task));
    wf_pool *p = parents = make_pool(2, 0, NULL);
    check_fib_on(p, 12);
    wf_graph *g = NULL;
    CHECK_OK(wf_graph_create(&g, p));
    parents_graph = g;
    check_in_child("fork", fork_child);
    /* The parent's pools are unaffected. */
    check_fib_on(p, 12);
    CHECK_OK(wf_graph_wait_for_all(g));
    CHECK_OK(wf_graph_destroy(g));
    CHECK_OK(wf_pool_destroy(p));
#endif
}

/* ---- grow_failure ------------------------------------------------------- */
enum { WIDE = 10000 };

typedef struct {
    wf_task task;
    _Atomic int *hit;
} wide_frame;

static void wide_body(wf_task *t)
{
    wide_frame *f = (wide_frame *)t;
    atomic_fetch_add(f->hit, 1);
}

typedef struct {
    wide_frame *frames;
    _Atomic int *hits;
    int forward; /* join oldest first (out of order) or newest first */
} wide_job;

static void wide_root(void *arg)
{
    wide_job *j = arg;
    for (int i = 0; i < WIDE; i++) {
        j->frames[i] = (wide_frame){.hit = &j->hits[i]};
        CHECK_OK(wf_spawn(&j->frames[i].task, wide_body));
    }
    for (int i = 0; i < WIDE; i++)
        CHECK_OK(wf_join(&j->frames[j->forward ? i : WIDE - 1 - i].task));
}

static void scenario_grow_failure(void)
{
    ta_init(&ta, TA_NEVER, -1);
    wf_pool *p = make_pool(2, 4, &ta.iface);
    check_fib_on(p, 10); /* the submission queue exists from here on */
    ta_fail_from_now(&ta, 1);
    wide_job j = {.frames = malloc(WIDE * sizeof(wide_frame)),
                  .hits = calloc(WIDE, sizeof(_Atomic int))};
    CHECK(j.frames && j.hits);
    for (j.forward = 0; j.forward < 2; j.forward++) {
        memset(j.hits, 0, WIDE * sizeof(_Atomic int));
        CHECK_OK(wf_run(p, wide_root, &j));
        for (int i = 0; i < WIDE; i++)
            CHECK_MSG(atomic_load(&j.hits[i]) == 1, "task %d ran %d times", i,
                      atomic_load(&j.hits[i]));
    }
    check_fib_on(p, 20 - SCALE / 2);
    long failed = atomic_load(&ta.failures);
    printf("grow_failure: %ld allocations refused while running\n", failed);
    CHECK_MSG(failed > 0, "the failure path was never taken");
    ta_fail_from_now(&ta, 0);
    CHECK_OK(wf_pool_destroy(p));
    check_no_leak("after wf_pool_destroy");
    free(j.frames);
    free(j.hits);
}

/* A reduction whose accumulator is larger than a frame holds takes a
 * block per split from the pool's allocator: when none can be had it
 * returns WF_ENOMEM and leaves the result alone; then it works again. */
enum { BIG_ACC = 64 };
typedef struct {
    uint64_t bin[BIG_ACC];
} big_acc;

static void big_body(size_t b, size_t e, void *acc, void *ctx)
{
    (void)ctx;
    for (size_t i = b; i < e; i++)
        ((big_acc *)acc)->bin[i % BIG_ACC] += i;
}

static void big_combine(void *l, const void *r, void *ctx)
{
    (void)ctx;
    for (int k = 0; k < BIG_ACC; k++)
        ((big_acc *)l)->bin[k] += ((const big_acc *)r)->bin[k];
}

static void scenario_reduce_oom(void)
{
    ta_init(&ta, TA_NEVER, -1);
    wf_pool *p = make_pool(2, 0, &ta.iface);
    enum { N = 100000 };
    big_acc zero = {{0}}, got = {{1}};
    ta_fail_from_now(&ta, 1);
    CHECK_ERR(wf_parallel_reduce(p, 0, N, 0, &got, sizeof got, &zero, big_body,
                                 big_combine, NULL),
              WF_ENOMEM);
    CHECK_EQ(got.bin[0], 1u); /* unchanged */
    ta_fail_from_now(&ta, 0);
    CHECK_OK(wf_parallel_reduce(p, 0, N, 0, &got, sizeof got, &zero, big_body,
                                big_combine, NULL));
    for (int k = 0; k < BIG_ACC; k++) { /* k + (k + 64) + ... below N */
        uint64_t m = (N - 1 - (uint64_t)k) / BIG_ACC + 1;
        CHECK_EQ(got.bin[k], m * (uint64_t)k + BIG_ACC * m * (m - 1) / 2);
    }
    CHECK_OK(wf_pool_destroy(p));
    check_no_leak("after wf_pool_destroy");
}

int main(int argc, char **argv)
{
    static const check_scenario scenarios[] = {
        {"create_sweep", scenario_create_sweep},
        {"thread_start", scenario_thread_start},
        {"grow_failure", scenario_grow_failure},
        {"reduce_oom", scenario_reduce_oom},
        {"no_default_pool", scenario_no_default_pool},
        {"env_junk", scenario_env_junk},
        {"fork", scenario_fork},
    };
    return CHECK_RUN_SCENARIOS("pool_fault", argc, argv, scenarios);
}
