/* SPDX-License-Identifier: Apache-2.0 */
/* debug_mode: what WEFT_DEBUG=1 reports, each case in a child process
 * whose stderr is read back.
 *
 *   forgotten_join  wf_run's function spawns a task and returns without
 *                   joining it: the child aborts with a message naming the
 *                   mistake (without debug mode the task would run on a
 *                   dead frame, a crash far from its cause).
 *   nested_join     the same, two levels down, in a task's body.
 * Both on a pool of 1 thread: the check sees the tasks still on the
 * thread's own stack, and with no other thread none is stolen first.
 *   joined          every task joined, deep recursion: no report.
 *   typed_sync_none a typed body syncs with nothing spawned, and
 *   typed_sync_caller one syncs its caller's spawn: each aborts with a
 *                   message naming the task type (this file is built
 *                   without WF_TASK_CHECKS, so debug mode's slow-path
 *                   check is what catches them); typed_joined, fib and a
 *                   body that leaves spawns to the implicit sync: no report.
 *   sequencer       a sequencer whose numbers start at 1: wait_for_all
 *                   returns 0 and says the node holds its messages.
 *   input           an input node never activated: said at wait_for_all.
 *   quiet           the sequencer case with WEFT_DEBUG=0: nothing said.
 *   no_default      the default pool cannot be made: why is said once
 *                   (normal build only: it limits the address space).
 *   stats           WEFT_STATS=1: a destroyed pool prints its counters,
 *                   whose total counts every spawn of the run.
 *
 * Usage: test_debug_mode SCENARIO */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fib_task.h"
#include "graph_test.h"

static void expect(void (*fn)(void), const char *debug, bool aborts,
                   const char *said)
{
    char err[8192];
    int st = check_child_debug(fn, debug, err, sizeof err);
    if (aborts)
        CHECK_MSG(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT,
                  "the child did not abort (status %#x); it said: %s", st, err);
    else
        CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0,
                  "the child failed (status %#x): %s", st, err);
    if (said)
        CHECK_MSG(strstr(err, said) != NULL,
                  "expected \"%s\" on stderr, "
                  "got: %s",
                  said, err);
    else
        CHECK_MSG(strstr(err, "weft:") == NULL, "expected silence, got: %s",
                  err);
    printf("  %s\n", said ? said : "(nothing said)");
}

/* ---- fork-join -------------------------------------------------------- */

static void leaf(wf_task *t)
{
    (void)t;
}

static void forget(void *arg)
{
    (void)arg;
    wf_task t = {0};
    CHECK_OK(wf_spawn(&t, leaf));
    /* returns: no wf_join(&t) */
}

static void forgotten_join_child(void)
{
    wf_pool *p = check_pool(1);
    wf_run(p, forget, NULL);
    CHECK_MSG(false, "wf_run returned: the forgotten join went unnoticed");
}

/* A stolen task's body forgets its child's join. */
static void forgetful_body(wf_task *t)
{
    (void)t;
    forget(NULL);
}

static void nested(void *arg)
{
    (void)arg;
    for (int i = 0; i < 4; i++) {
        wf_task t = {0};
        CHECK_OK(wf_spawn(&t, forgetful_body));
        fib_frame f = {.n = 18};
        fib_body(&f.task);
        wf_join(&t);
    }
}

static void nested_join_child(void)
{
    wf_pool *p = check_pool(1);
    wf_run(p, nested, NULL);
    CHECK_MSG(false, "wf_run returned: the forgotten join went unnoticed");
}

static void joined_child(void)
{
    wf_pool *p = check_pool(2);
    check_fib_on(p, 22);
    CHECK_OK(wf_pool_destroy(p));
}

/* ---- typed tasks ------------------------------------------------------ */

WF_TASK(long, tleaf, long, x)
{
    return x;
}

/* Syncs with nothing spawned: without the check, the body runs on a frame
 * that holds no arguments. */
WF_TASK(long, tsync_none, int, n)
{
    (void)n;
    return WF_SYNC(tleaf);
}

/* Spawns, then calls a body that syncs that spawn: without the check the
 * task would run twice, there and at this body's own sync. */
WF_TASK(long, tsync_caller, int, n)
{
    WF_SPAWN(tleaf, n);
    long r = WF_CALL(tsync_none, n);
    return r + WF_SYNC(tleaf);
}

WF_TASK(long, tfib, int, n)
{
    if (n < 2)
        return n;
    WF_SPAWN(tfib, n - 1);
    WF_SPAWN(tleaf, 0); /* left to the implicit sync */
    long b = WF_CALL(tfib, n - 2);
    return WF_SYNC(tfib) + b; /* syncs tleaf, newest first: a misuse */
}

WF_TASK(long, tfib_ok, int, n)
{
    if (n < 2)
        return n;
    WF_SPAWN(tleaf, 0); /* left to the implicit sync */
    WF_SPAWN(tfib_ok, n - 1);
    long b = WF_CALL(tfib_ok, n - 2);
    return WF_SYNC(tfib_ok) + b;
}

static void typed_sync_none_child(void)
{
    wf_pool *p = check_pool(1);
    long r;
    (void)WF_RUN(p, tsync_none, &r, 1);
    CHECK_MSG(false, "WF_RUN returned: the sync went unnoticed");
}

static void typed_sync_caller_child(void)
{
    wf_pool *p = check_pool(1);
    long r;
    (void)WF_RUN(p, tsync_caller, &r, 1);
    CHECK_MSG(false, "WF_RUN returned: the sync went unnoticed");
}

static void typed_wrong_type_child(void)
{
    wf_pool *p = check_pool(2);
    long r;
    (void)WF_RUN(p, tfib, &r, 10);
    CHECK_MSG(false, "WF_RUN returned: the sync went unnoticed");
}

static void typed_joined_child(void)
{
    wf_pool *p = check_pool(2);
    long r = 0;
    CHECK_OK(WF_RUN(p, tfib_ok, &r, 20));
    CHECK_EQ(r, fib_seq(20));
    CHECK_OK(wf_pool_destroy(p));
}

/* ---- graphs ----------------------------------------------------------- */

static size_t seq_from_1(const void *msg, void *ctx)
{
    (void)ctx;
    return (size_t) * (const int *)msg; /* 1, 2, 3: 0 never comes */
}

static int count_body(const void *in, void *out, void *ctx)
{
    (void)in, (void)out;
    atomic_fetch_add((_Atomic int *)ctx, 1);
    return 0;
}

static void sequencer_child(void)
{
    wf_pool *p = gt_pool(2);
    wf_graph *g = gt_graph(p);
    wf_node *s = NULL;
    CHECK_OK(wf_sequencer_node_create(&s, g, sizeof(int), seq_from_1, NULL));
    _Atomic int ran = 0;
    wf_node *f = gt_function(g, sizeof(int), 0, WF_SERIAL, WF_QUEUEING,
                             count_body, &ran);
    CHECK_OK(wf_make_edge(s, f));
    for (int i = 1; i <= 3; i++)
        gt_put(s, i);
    CHECK_OK(wf_graph_wait_for_all(g));
    CHECK_OK(wf_graph_wait_for_all(g)); /* said once per node */
    CHECK_EQ(atomic_load(&ran), 0);
    GT_DESTROY(g, s, f);
    CHECK_OK(wf_pool_destroy(p));
}

static int produce(void *out, void *ctx)
{
    (void)ctx;
    *(int *)out = 1;
    return WF_INPUT_DONE;
}

static void input_child(void)
{
    wf_pool *p = gt_pool(2);
    wf_graph *g = gt_graph(p);
    wf_input_config ic = {.out_size = sizeof(int), .body = produce};
    wf_node *in = NULL;
    CHECK_OK(wf_input_node_create(&in, g, &ic));
    _Atomic int ran = 0;
    wf_node *f = gt_function(g, sizeof(int), 0, WF_SERIAL, WF_QUEUEING,
                             count_body, &ran);
    CHECK_OK(wf_make_edge(in, f));
    CHECK_OK(wf_graph_wait_for_all(g)); /* wf_input_node_activate forgotten */
    CHECK_EQ(atomic_load(&ran), 0);
    GT_DESTROY(g, in, f);
    CHECK_OK(wf_pool_destroy(p));
}

/* ---- the default pool --------------------------------------------------- */

#ifndef WF_TEST_SANITIZED
static void no_default_child(void)
{
    /* No room for the default pool's thread stacks. */
    long pages = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    CHECK(f && fscanf(f, "%ld", &pages) == 1);
    fclose(f);
    struct rlimit rl;
    CHECK(getrlimit(RLIMIT_AS, &rl) == 0);
    rl.rlim_cur = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + (4u << 20);
    CHECK(setrlimit(RLIMIT_AS, &rl) == 0);
    CHECK(wf_pool_default() == NULL);
    CHECK(wf_pool_default() == NULL); /* said once */
}
#endif

/* ---- WEFT_STATS -------------------------------------------------------- */

static void stats_child(void)
{
    CHECK(setenv("WEFT_STATS", "1", 1) == 0);
    wf_pool *p = check_pool(2);
    check_fib_on(p, 20);
    CHECK_OK(wf_pool_destroy(p));
}

static void scenario_stats(void)
{
    char err[8192];
    int st = check_child_debug(stats_child, "0", err, sizeof err);
    CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child: %#x: %s", st, err);
    CHECK_MSG(strstr(err, "weft: a pool of 2 threads (WEFT_STATS)"), "%s", err);
    const char *total = strstr(err, "weft:   total");
    unsigned long long spawns = 0, run = 0;
    CHECK_MSG(total &&
                  sscanf(total, "weft:   total %llu %llu", &spawns, &run) == 2,
              "no total row: %s", err);
    /* fib(20) spawns fib(21) - 1 tasks; those published are counted, and
     * each of them ran once. */
    CHECK(spawns <= (unsigned long long)fib_seq(21) - 1);
    CHECK_EQ(run, spawns);
    printf("  %.*s", (int)(strchr(total, '\n') - total + 1), total);
}

static void scenario_forgotten_join(void)
{
    expect(forgotten_join_child, "1", true, "spawned and never joined");
}

static void scenario_nested_join(void)
{
    expect(nested_join_child, "1", true, "spawned and never joined");
}

static void scenario_joined(void)
{
    expect(joined_child, "1", false, NULL);
}

static void scenario_typed_sync_none(void)
{
    expect(typed_sync_none_child, "1", true,
           "WF_SYNC(tleaf) in a body with no spawn of its own left to sync");
}

static void scenario_typed_sync_caller(void)
{
    expect(typed_sync_caller_child, "1", true,
           "WF_SYNC(tleaf) in a body with no spawn of its own left to sync");
}

static void scenario_typed_wrong_type(void)
{
    expect(typed_wrong_type_child, "1", true,
           "WF_SYNC(tfib) found a frame of another task type");
}

static void scenario_typed_joined(void)
{
    expect(typed_joined_child, "1", false, NULL);
}

static void scenario_sequencer(void)
{
    expect(sequencer_child, "1", false,
           "sequencer_node#0 holding 3 message(s) it has not passed on to "
           "its successors: its messages wait for a smaller sequence number");
}

static void scenario_input(void)
{
    expect(input_child, "1", false,
           "input_node#0 holding 0 message(s) it "
           "has not passed on to its successors: never activated");
}

static void scenario_quiet(void)
{
    expect(sequencer_child, "0", false, NULL);
}

static void scenario_no_default(void)
{
#ifdef WF_TEST_SANITIZED
    printf("no_default: skipped under the sanitizers (address-space "
           "limit)\n");
#else
    expect(no_default_child, "0", false,
           "weft: the default pool could not be made: ");
#endif
}

int main(int argc, char **argv)
{
    static const check_scenario scenarios[] = {
        {"forgotten_join", scenario_forgotten_join},
        {"nested_join", scenario_nested_join},
        {"joined", scenario_joined},
        {"typed_sync_none", scenario_typed_sync_none},
        {"typed_sync_caller", scenario_typed_sync_caller},
        {"typed_wrong_type", scenario_typed_wrong_type},
        {"typed_joined", scenario_typed_joined},
        {"sequencer", scenario_sequencer},
        {"input", scenario_input},
        {"quiet", scenario_quiet},
        {"no_default", scenario_no_default},
        {"stats", scenario_stats},
    };
    return CHECK_RUN_SCENARIOS("debug_mode", argc, argv, scenarios);
}
