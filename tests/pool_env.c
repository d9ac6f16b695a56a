/* SPDX-License-Identifier: Apache-2.0 */
/* pool_env: what WEFT_DISPLAY_ENV=1 prints, each case in a child process
 * (the environment is read once per process) whose stderr is read back.
 *
 *   display_on   WEFT_DEBUG=1, WEFT_STATS=1, WEFT_TRACE=file and
 *                WEFT_GRAPH_COUNTS=1: the display says each is on, with
 *                the variable's value, besides the threads and the sizes.
 *   display_off  WEFT_DEBUG=0 and the others unset: each is said off.
 *   silent       WEFT_DISPLAY_ENV unset: nothing is printed.
 *
 * The parent never makes a pool: its once-read settings would carry into
 * the children.
 *
 * Usage: test_pool_env SCENARIO */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

/* Each "NAME=value" is set, each "NAME" unset, in the child. */
typedef struct {
    const char *env[8];
} child_env;

static void make_pool_child(void *arg)
{
    child_env *e = arg;
    for (int i = 0; i < 8 && e->env[i]; i++) {
        const char *eq = strchr(e->env[i], '=');
        if (eq == NULL) {
            CHECK(unsetenv(e->env[i]) == 0);
            continue;
        }
        char name[64];
        size_t n = (size_t)(eq - e->env[i]);
        CHECK(n < sizeof name);
        memcpy(name, e->env[i], n);
        name[n] = '\0';
        CHECK(setenv(name, eq + 1, 1) == 0);
    }
    wf_pool *p = check_pool(3);
    CHECK_OK(wf_pool_destroy(p));
}

/* Run the child with env; it must exit 0, and its stderr hold each of
 * the NULL-terminated `said` strings. */
static void expect(child_env *env, const char *const *said, char *err, size_t n)
{
    int st = check_child_stderr(make_pool_child, env, err, n);
    CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0,
              "the child failed (status %#x): %s", st, err);
    for (; *said; said++) {
        CHECK_MSG(strstr(err, *said) != NULL,
                  "expected \"%s\" on stderr, got:\n%s", *said, err);
        printf("  %s\n", *said);
    }
}

static void display_on(void)
{
    char dir[] = "/tmp/weft_pool_env.XXXXXX", trace[64], want[96];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(trace, sizeof trace, "WEFT_TRACE=%s/t.json", dir);
    snprintf(want, sizeof want, "trace=on (%s)", trace);
    child_env env = {{"WEFT_DISPLAY_ENV=1", "WEFT_DEBUG=1", "WEFT_STATS=1",
                      trace, "WEFT_GRAPH_COUNTS=1", "WEFT_NUM_THREADS"}};
    const char *said[] = {"threads=3 (WEFT_NUM_THREADS=unset",
                          "deque_capacity=",
                          "debug=on (WEFT_DEBUG=1)",
                          "stats=on (WEFT_STATS=1)",
                          want,
                          "graph_counts=on (WEFT_GRAPH_COUNTS=1)",
                          NULL};
    char err[8192];
    expect(&env, said, err, sizeof err);
    /* The child ended with _exit: no trace was written; the directory
     * may hold nothing else. */
    char path[96];
    snprintf(path, sizeof path, "%s/t.json", dir);
    unlink(path);
    CHECK(rmdir(dir) == 0);
}

static void display_off(void)
{
    child_env env = {{"WEFT_DISPLAY_ENV=1", "WEFT_DEBUG=0", "WEFT_STATS",
                      "WEFT_TRACE", "WEFT_GRAPH_COUNTS"}};
    const char *said[] = {"debug=off (WEFT_DEBUG=0)",
                          "stats=off (WEFT_STATS=unset)",
                          "trace=off (WEFT_TRACE=unset)",
                          "graph_counts=off (WEFT_GRAPH_COUNTS=unset)", NULL};
    char err[8192];
    expect(&env, said, err, sizeof err);
}

static void silent(void)
{
    child_env env = {
        {"WEFT_DISPLAY_ENV", "WEFT_DEBUG=0", "WEFT_STATS", "WEFT_TRACE"}};
    const char *said[] = {NULL};
    char err[8192];
    expect(&env, said, err, sizeof err);
    CHECK_MSG(strstr(err, "weft:") == NULL, "expected silence, got: %s", err);
}

static const check_scenario scenarios[] = {
    {"display_on", display_on},
    {"display_off", display_off},
    {"silent", silent},
};

int main(int argc, char **argv)
{
    return CHECK_RUN_SCENARIOS("pool_env", argc, argv, scenarios);
}
