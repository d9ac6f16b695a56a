/* SPDX-License-Identifier: Apache-2.0 */
/* The batch commands: explore, test (scenario files with a verdict), algos. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "describe.h"
#include "html.h"
#include "picture.h"
#include "scenario.h"

/* ---- printing a counterexample ------------------------------------------ */

static trace_rec *rec; /* where the replayed steps go */

static void record_step(const sim_step_info *info)
{
    char line[512];
    describe_step(info, S.pos, line, sizeof line);
    trace_rec_step(rec, line);
}

static void record_skip(int thread, const sim_access *a)
{
    char line[512];
    describe_skip(thread, a, line, sizeof line);
    trace_rec_note(rec, line);
}

/* Replay a failing schedule with the log on; print the log and the picture
 * at the failure, and write the HTML page if asked. */
static void show_counterexample(const scenario *sc, const explore_job *job,
                                const explore_result *res, bool color)
{
    trace_rec r;
    char title[256];
    scenario_describe(sc, title, sizeof title);
    trace_rec_init(&r, title);
    rec = &r;
    /* the initial state: reset without steps */
    S.on_step = NULL;
    explore_replay(job, res->sched, 0, false);
    trace_rec_initial(&r);
    S.on_step = record_step;
    S.on_skip = record_skip;
    /* no final check: it drains the deque, and the picture must show the
     * state the execution ended in; the message is the one recorded */
    explore_replay(job, res->sched, res->nsched, false);
    S.on_step = NULL;
    S.on_skip = NULL;
    printf("shortest failing trace found (%d steps):\n", res->nsched);
    for (int i = 0; i < r.n; i++) {
        printf("%s\n", r.lines[i]);
        if (r.notes[i])
            printf("%s\n", r.notes[i]);
    }
    printf("FAILED: %s\n", res->fail);
    printf("state at the failure:\n");
    sbuf b = {0};
    picture_draw(&b, color);
    printf("%s", b.s ? b.s : "");
    sb_free(&b);
    if (sc->html) {
        if (html_write(&r, sc->html, res->fail) == 0)
            printf("wrote %s\n", sc->html);
        else
            fprintf(stderr, "weft-sim: cannot write %s\n", sc->html);
    }
    trace_rec_free(&r);
}

static void print_stats(const explore_result *res)
{
    double rate = res->secs > 0 ? (double)res->execs / res->secs : 0;
    printf("explored %ld executions (%ld more cut short by sleep sets, %ld "
           "steps) in %.2f s: %.0f executions/s, %s\n",
           res->execs, res->blocked, res->steps, res->secs, rate,
           res->exhausted ? "search exhausted"
           : res->failed  ? "search stopped after the failure"
                          : "search stopped at max-execs");
}

static int run_scenario(const scenario *sc, bool quiet, explore_result *res)
{
    explore_job job;
    scenario_job(sc, &job);
    char d[256];
    scenario_describe(sc, d, sizeof d);
    if (!quiet)
        printf("weft-sim explore: %s%s\n", d,
               sc->preemptions >= 0 ? " (preemption-bounded, no reduction)"
               : sc->naive ? "" : " (partial-order reduction)");
    if (explore_run(&job, res) != 0) {
        fprintf(stderr, "weft-sim: the scenario could not run\n");
        return 2;
    }
    if (!quiet) {
        print_stats(res);
        for (int i = 0; i < res->noutcomes; i++)
            printf("outcome: %s\n", res->outcomes[i]);
        if (res->failed)
            show_counterexample(sc, &job, res, isatty(1));
        else
            printf("verdict: correct (every task taken once or still in the "
                   "deque, base never moved back)\n");
    }
    return res->failed ? 1 : 0;
}

static int parse_args(scenario *sc, int argc, char **argv)
{
    char err[256];
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (strncmp(a, "--", 2) != 0) {
            fprintf(stderr, "weft-sim: unexpected argument '%s'\n", a);
            return -1;
        }
        a += 2;
        const char *v = NULL;
        if (strcmp(a, "scenario") == 0) {
            if (i + 1 >= argc || scenario_load(sc, argv[++i], err, sizeof err)) {
                fprintf(stderr, "weft-sim: %s\n",
                        i < argc ? err : "--scenario needs a file");
                return -1;
            }
            continue;
        }
        if (scenario_key_has_value(a)) {
            if (i + 1 >= argc) {
                fprintf(stderr, "weft-sim: --%s needs a value\n", a);
                return -1;
            }
            v = argv[++i];
        }
        if (scenario_set(sc, a, v, err, sizeof err) != 0) {
            fprintf(stderr, "weft-sim: %s\n", err);
            return -1;
        }
    }
    return 0;
}

int cmd_explore(int argc, char **argv)
{
    scenario sc;
    scenario_defaults(&sc);
    if (parse_args(&sc, argc, argv) != 0)
        return 2;
    if (sc.nowner == 0) {
        fprintf(stderr, "weft-sim: explore needs --owner \"push pop ...\"\n");
        return 2;
    }
    explore_result res;
    int rc = run_scenario(&sc, false, &res);
    explore_result_free(&res);
    return rc;
}

/* Scenario files with `expect pass|fail`: one line per file, exit 0 when
 * every verdict is the expected one. */
int cmd_test(int argc, char **argv)
{
    int bad = 0;
    bool verbose = false;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "-v") == 0) {
            verbose = true;
            continue;
        }
        scenario sc;
        char err[256];
        scenario_defaults(&sc);
        if (scenario_load(&sc, argv[i], err, sizeof err) != 0) {
            fprintf(stderr, "weft-sim: %s\n", err);
            return 2;
        }
        if (sc.expect < 0 || sc.nowner == 0) {
            fprintf(stderr, "weft-sim: %s: needs 'owner' and 'expect'\n",
                    argv[i]);
            return 2;
        }
        explore_result res;
        int rc = run_scenario(&sc, !verbose, &res);
        if (rc == 2)
            return 2;
        bool ok = rc == sc.expect;
        bad += !ok;
        printf("%s %s: expected %s, got %s (%ld executions in %.2f s%s)",
               ok ? "ok  " : "FAIL", sc.name, sc.expect ? "fail" : "pass",
               rc ? "fail" : "pass", res.execs, res.secs,
               res.exhausted ? ", exhausted" : "");
        if (res.failed)
            printf(": %d-step counterexample: %s", res.nsched, res.fail);
        printf("\n");
        explore_result_free(&res);
    }
    return bad ? 1 : 0;
}

/* The reduced search against the full one: both must find the same set of
 * outcomes, where an outcome includes a hash of every value each thread
 * read.  Executions that differ only in the order of independent steps
 * read the same values, so a reduction that skipped a class of executions
 * would show here as a missing outcome. */
int cmd_crosscheck(int argc, char **argv)
{
    int bad = 0;
    for (int i = 0; i < argc; i++) {
        scenario sc;
        char err[256];
        scenario_defaults(&sc);
        if (scenario_load(&sc, argv[i], err, sizeof err) != 0) {
            fprintf(stderr, "weft-sim: %s\n", err);
            return 2;
        }
        sc.outcomes = sc.reads = true;
        explore_result red, full;
        sc.naive = false;
        if (run_scenario(&sc, true, &red) == 2)
            return 2;
        sc.naive = true;
        if (run_scenario(&sc, true, &full) == 2)
            return 2;
        bool same = red.noutcomes == full.noutcomes;
        for (int k = 0; same && k < red.noutcomes; k++)
            same = strcmp(red.outcomes[k], full.outcomes[k]) == 0;
        bool ok = same && red.exhausted && full.exhausted;
        bad += !ok;
        printf("%s %s: %d outcomes; reduced search %ld executions, full "
               "search %ld executions%s%s\n", ok ? "ok  " : "FAIL", sc.name,
               red.noutcomes, red.execs, full.execs,
               full.exhausted ? "" : " (full search not exhausted)",
               same ? "" : " -- OUTCOME SETS DIFFER");
        for (int k = 0; !same && k < full.noutcomes; k++)
            printf("   full:    %s\n", full.outcomes[k]);
        for (int k = 0; !same && k < red.noutcomes; k++)
            printf("   reduced: %s\n", red.outcomes[k]);
        explore_result_free(&red);
        explore_result_free(&full);
    }
    return bad ? 1 : 0;
}

int cmd_algos(void)
{
    const sim_algo *const *l = sim_algo_list();
    for (int i = 0; l[i]; i++)
        printf("%-26s %-4s %s\n", l[i]->name, l[i]->catch_model, l[i]->desc);
    return 0;
}
