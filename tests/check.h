/* SPDX-License-Identifier: Apache-2.0 */
/* Tiny assertion helpers shared by weft's tests.
 *
 * CHECK(cond)            fail the test if cond is false
 * CHECK_EQ(a, b)         compare two integers, print both on failure
 * CHECK_ERR(expr, code)  expr must return the WF_E... code `code`
 *
 * A failed check prints file:line and the expression, then exits 1 at once:
 * a test that continues after a broken invariant mostly prints noise.  Under
 * the sanitizers exit() still runs LeakSanitizer, so leaks are reported too.
 * Every test program ends with CHECK_DONE(), which prints a one-line
 * verdict. */
#ifndef WEFT_TEST_CHECK_H
#define WEFT_TEST_CHECK_H

#include <spawn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <weft.h>

#define CHECK(cond)                                                            \
    do {                                                                       \
        if (!(cond)) {                                                         \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__,   \
                    #cond);                                                    \
            exit(1);                                                           \
        }                                                                      \
    } while (0)

#define CHECK_MSG(cond, ...)                                                   \
    do {                                                                       \
        if (!(cond)) {                                                         \
            fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__,   \
                    #cond);                                                    \
            fprintf(stderr, __VA_ARGS__);                                      \
            fputc('\n', stderr);                                               \
            exit(1);                                                           \
        }                                                                      \
    } while (0)

#define CHECK_EQ(a, b)                                                         \
    do {                                                                       \
        long long check_a_ = (long long)(a), check_b_ = (long long)(b);        \
        if (check_a_ != check_b_) {                                            \
            fprintf(stderr,                                                    \
                    "%s:%d: CHECK_EQ failed: %s == %s (%lld vs %lld)\n",       \
                    __FILE__, __LINE__, #a, #b, check_a_, check_b_);           \
            exit(1);                                                           \
        }                                                                      \
    } while (0)

/* expr returns an int error code; it must be `want` (0 or a WF_E... code). */
#define CHECK_ERR(expr, want)                                                  \
    do {                                                                       \
        int check_got_ = (expr), check_want_ = (want);                         \
        if (check_got_ != check_want_) {                                       \
            fprintf(stderr, "%s:%d: %s returned %d (%s), expected %d (%s)\n",  \
                    __FILE__, __LINE__, #expr, check_got_,                     \
                    wf_err_name(check_got_), check_want_,                      \
                    wf_err_name(check_want_));                                 \
            exit(1);                                                           \
        }                                                                      \
    } while (0)

#define CHECK_OK(expr) CHECK_ERR(expr, 0)

#define CHECK_DONE(name)                                                       \
    do {                                                                       \
        printf("%s: all checks passed\n", (name));                             \
        return 0;                                                              \
    } while (0)

/* Sanitizer builds are ~10x slower: tests use this to scale defaults. */
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define WF_TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define WF_TEST_SANITIZED 1
#endif
#endif

/* Monotonic seconds, for time-outs and reports. */
static inline double check_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A test program's scenarios, run by name from argv[1] ("all" or no
 * argument: every one, in the table's order), each timed.  The arguments
 * after the name are the scenario's own (check_arg).  An unknown name
 * fails and lists the known ones. */
typedef struct {
    const char *name;
    void (*run)(void);
} check_scenario;

/* The program's argv, kept by check_run_scenarios (NULL-terminated). */
static inline char **check_argv_(char **set)
{
    static char *none[] = {NULL};
    static char **argv = none;
    if (set != NULL)
        argv = set;
    return argv;
}

/* The path this program was started as, for a scenario that runs it
 * again (check_spawn_self). */
static inline const char *check_self(void)
{
    return check_argv_(NULL)[0];
}

/* The i-th argument after the scenario's name (0: the first), or NULL. */
static inline const char *check_arg(int i)
{
    char **a = check_argv_(NULL);
    if (a[0] == NULL || a[1] == NULL)
        return NULL;
    for (a += 2; i > 0 && *a != NULL; i--)
        a++;
    return *a;
}

/* The i-th argument after the scenario's name as a number, or dflt when
 * there is none; anything else than a number fails. */
static inline long check_arg_long(int i, long dflt)
{
    const char *s = check_arg(i);
    if (s == NULL)
        return dflt;
    char *end;
    long v = strtol(s, &end, 10);
    CHECK_MSG(*s != '\0' && *end == '\0', "argument '%s' is not a number", s);
    return v;
}

/* Run fn in a forked child (limits and forks stay there) and check that
 * it exited with 0; a signal or a failed CHECK in it names `what`. */
static inline void check_in_child(const char *what, void (*fn)(void))
{
    fflush(NULL);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        fn();
        fflush(NULL);
        _exit(0);
    }
    int st;
    CHECK(waitpid(pid, &st, 0) == pid);
    CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: child %s %d", what,
              WIFSIGNALED(st) ? "killed by signal" : "exited with",
              WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
}

/* Run fn(arg) in a forked child whose stderr goes to err (up to n - 1
 * bytes, NUL-terminated); returns the child's wait status. */
static inline int check_child_stderr(void (*fn)(void *), void *arg, char *err,
                                     size_t n)
{
    fflush(NULL);
    int fds[2];
    CHECK(pipe(fds) == 0);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        dup2(fds[1], 2);
        close(fds[0]);
        fn(arg);
        fflush(NULL);
        _exit(0);
    }
    close(fds[1]);
    size_t got = 0;
    for (ssize_t r;
         got + 1 < n && (r = read(fds[0], err + got, n - 1 - got)) > 0;)
        got += (size_t)r;
    err[got] = '\0';
    close(fds[0]);
    int st;
    CHECK(waitpid(pid, &st, 0) == pid);
    return st;
}

/* check_child_stderr for fn() run with WEFT_DEBUG=debug in the child's
 * environment (set before the child makes its first pool). */
typedef struct {
    void (*fn)(void);
    const char *debug;
} check_debug_job;

static inline void check_debug_child_main(void *arg)
{
    check_debug_job *j = (check_debug_job *)arg;
    CHECK(setenv("WEFT_DEBUG", j->debug, 1) == 0);
    j->fn();
}

static inline int check_child_debug(void (*fn)(void), const char *debug,
                                    char *err, size_t n)
{
    check_debug_job j = {fn, debug};
    return check_child_stderr(check_debug_child_main, &j, err, n);
}

/* How many events of a Chrome trace's text are named `name` exactly. */
static inline long check_trace_count(const char *text, const char *name)
{
    char key[96];
    snprintf(key, sizeof key, "\"name\":\"%s\"", name);
    long n = 0;
    for (const char *p = text; (p = strstr(p, key)) != NULL; p += strlen(key))
        n++;
    return n;
}

/* A pool of `threads` threads, all else default. */
static inline wf_pool *check_pool(unsigned threads)
{
    wf_pool_config cfg = WF_POOL_CONFIG_INIT;
    cfg.threads = threads;
    wf_pool *p = NULL;
    CHECK_OK(wf_pool_create(&p, &cfg));
    return p;
}

static inline int check_run_scenarios(const char *test, int argc, char **argv,
                                      const check_scenario *sc, size_t n)
{
    check_argv_(argv);
    const char *name = argc > 1 ? argv[1] : "all";
    bool all = strcmp(name, "all") == 0, found = false;
    for (size_t i = 0; i < n; i++) {
        if (!all && strcmp(name, sc[i].name) != 0)
            continue;
        double t0 = check_now();
        sc[i].run();
        printf("  %s: %.2f s\n", sc[i].name, check_now() - t0);
        found = true;
    }
    if (!found) {
        fprintf(stderr, "%s: unknown scenario '%s'; the scenarios are:", test,
                name);
        for (size_t i = 0; i < n; i++)
            fprintf(stderr, " %s", sc[i].name);
        fprintf(stderr, " (or all)\n");
        exit(2);
    }
    CHECK_DONE(test);
}

/* main() of a test program with scenarios: table is an array of
 * check_scenario, test the program's name for the verdict. */
#define CHECK_RUN_SCENARIOS(test, argc, argv, table)                           \
    check_run_scenarios((test), (argc), (argv), (table),                       \
                        sizeof(table) / sizeof((table)[0]))

/* Set by check_spawn_self in the child's environment: the scenario it
 * runs. */
#define CHECK_CHILD_ENV "WEFT_TEST_CHILD"

/* Whether this process is the child a scenario started with
 * check_spawn_self. */
static inline bool check_is_child(void)
{
    return getenv(CHECK_CHILD_ENV) != NULL;
}

extern char **environ;

/* Run this program again as `check_self() scenario`, with this process's
 * environment plus env ("NAME=value" strings, NULL-terminated), and check
 * that it exits with 0.  For what a process reads once, when it starts or
 * when it first needs it (WEFT_TRACE, WEFT_GRAPH_COUNTS): the scenario
 * sees check_is_child() true in the child. */
static inline void check_spawn_self(const char *scenario, char *const env[])
{
    size_t n = 0, k = 0;
    while (environ[n] != NULL)
        n++;
    while (env[k] != NULL)
        k++;
    char **envp = (char **)calloc(n + k + 2, sizeof *envp);
    CHECK(envp != NULL);
    char child[128];
    snprintf(child, sizeof child, "%s=%s", CHECK_CHILD_ENV, scenario);
    memcpy(envp, environ, n * sizeof *envp);
    memcpy(envp + n, env, k * sizeof *envp);
    envp[n + k] = child;
    char *args[] = {(char *)check_self(), (char *)scenario, NULL};
    fflush(NULL);
    pid_t pid;
    CHECK_EQ(posix_spawn(&pid, args[0], NULL, NULL, args, envp), 0);
    free(envp);
    int st;
    CHECK(waitpid(pid, &st, 0) == pid);
    CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: child %s %d",
              scenario, WIFSIGNALED(st) ? "killed by signal" : "exited with",
              WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
}

/* Small fast PRNG for randomised tests (xorshift64*). */
static inline uint64_t check_rand(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1Dull;
}

#endif /* WEFT_TEST_CHECK_H */
