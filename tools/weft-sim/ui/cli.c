/* SPDX-License-Identifier: Apache-2.0 */
/* The batch commands: explore, test (scenario files with a verdict), algos. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "algos/algos.h"
#include "algos/evcount.h"
#include "algos/scenario.h"
#include "core/machine.h"
#include "search/execution.h"
#include "search/wmm_search.h"
#include "ui/cli.h"
#include "ui/describe.h"
#include "ui/html.h"
#include "ui/picture.h"

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

static void record_note(const char *text)
{
    trace_rec_note(rec, text);
}

/* ---- a counterexample as a REPL script (--replay FILE) ------------------ */

static FILE *replay_out;
static int replay_started[SIM_MAX_THREADS]; /* ops started in the script */

/* Before a step of thread t: the commands that start its operations up
 * to the one the step belongs to (the REPL starts them by hand). */
static void replay_start_ops(int t, int upto)
{
    char vb[24];
    for (; replay_started[t] <= upto; replay_started[t]++) {
        const sim_op *op = &S.th[t].prog[replay_started[t]];
        if (op->kind == OP_PUSH)
            fprintf(replay_out, "push %s\n",
                    sim_value_name(SIM_VALUE(op->value), vb));
        else if (op->kind == OP_POP)
            fprintf(replay_out, "pop\n");
        else
            fprintf(replay_out, "poll %s\n", sim_thread_name(t));
    }
}

static void replay_step(const sim_step_info *info)
{
    char loc[32];
    if (info->kind == K_DRAIN) {
        sim_loc_name(info->acc.addr, loc, sizeof loc);
        fprintf(replay_out, "flush %s%s%s\n", sim_thread_name(info->thread),
                S.model == MODEL_PSO ? " " : "",
                S.model == MODEL_PSO ? loc : "");
        return;
    }
    fprintf(replay_out, "step %s\n", sim_thread_name(info->thread));
}

/* The op a thread is in when its next step runs: started before it. */
static void replay_before(const int *sched, int n)
{
    for (int i = 0; i < n; i++) {
        const sim_proc *p = &S.proc[sched[i]];
        if (!p->is_buf && S.th[p->thread].state == T_PENDING)
            replay_start_ops(p->thread, S.th[p->thread].pc);
        sim_step_info info;
        sim_step(sched[i], &info);
        replay_step(&info);
    }
}

/* Write the shortest failing schedule as commands for `weft-sim run`. */
static int write_replay(const scenario *sc, const explore_job *job,
                        const explore_result *res)
{
    if (SIM_GRAPH_MODEL(sc->model) || !(replay_out = fopen(sc->replay, "w"))) {
        fprintf(stderr, "weft-sim: %s\n",
                SIM_GRAPH_MODEL(sc->model)
                    ? "--replay: the REPL steps sc, tso and pso only"
                    : "--replay: cannot write the file");
        return -1;
    }
    fprintf(replay_out, "# weft-sim run %s: the counterexample of\n# ",
            sc->replay);
    char d[256];
    scenario_describe(sc, d, sizeof d);
    fprintf(replay_out,
            "%s\n# step by step (%d steps).\nalgo %s\nmodel "
            "%s\nreset %d\n",
            d, res->nsched, job->algo->name, sim_model_name(sc->model),
            sc->capacity);
    memset(replay_started, 0, sizeof replay_started);
    S.on_step = NULL;
    explore_replay(job, res->sched, 0, false); /* the start, no steps */
    for (int t = 0; t < S.nthreads; t++)       /* ops sim_start_ops began */
        if (S.th[t].state == T_PENDING)
            replay_start_ops(t, S.th[t].pc);
    replay_before(res->sched, res->nsched);
    fprintf(replay_out, "show\n");
    return fclose(replay_out) == 0 ? 0 : -1;
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
    S.on_note = record_note;
    /* no final check: it drains the deque, and the picture must show the
     * state the execution ended in; the message is the one recorded */
    if (SIM_GRAPH_MODEL(job->model))
        wmm_replay_failure(job, res);
    else
        explore_replay(job, res->sched, res->nsched, false);
    S.on_step = NULL;
    S.on_skip = NULL;
    S.on_note = NULL;
    if (SIM_GRAPH_MODEL(job->model))
        printf("smallest failing execution found (%d events), in an order "
               "where each read comes after the write it reads from:\n",
               res->nsched);
    else
        printf("shortest failing trace found (%d steps):\n", res->nsched);
    for (int i = 0; i < r.n; i++) {
        printf("%s\n", r.lines[i]);
        if (r.notes[i])
            printf("%s\n", r.notes[i]);
    }
    if (r.pending)
        printf("%s\n", r.pending);
    printf("FAILED: %s\n", res->fail);
    printf(SIM_GRAPH_MODEL(job->model)
               ? "state at the failure (each location's coherence-last "
                 "value):\n"
               : "state at the failure:\n");
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

static void print_stats(const scenario *sc, const explore_result *res)
{
    double rate = res->secs > 0 ? (double)res->execs / res->secs : 0;
    if (SIM_GRAPH_MODEL(sc->model)) {
        char dup[64] = "";
        if (sc->duplicates)
            snprintf(dup, sizeof dup, "; %ld reached twice", res->duplicates);
        printf("explored %ld executions (consistent %s graphs; %ld backward "
               "revisits%s) in %.2f s: %.0f executions/s, %s\n",
               res->execs, sim_model_name(sc->model), res->blocked, dup,
               res->secs, rate,
               res->exhausted ? "search exhausted"
               : res->failed  ? "search stopped after the failure"
                              : "search stopped at max-execs");
        return;
    }
    printf("explored %ld executions (%ld more cut short by sleep sets, %ld "
           "steps) in %.2f s: %.0f executions/s, %s\n",
           res->execs, res->blocked, res->steps, res->secs, rate,
           res->exhausted ? "search exhausted"
           : res->failed  ? "search stopped after the failure"
                          : "search stopped at max-execs");
}

/* A mutant whose override matched no access in the whole search is the
 * shipped code under another name: say so, and fail. */
static bool mutant_changed_nothing(const sim_algo *al,
                                   const explore_result *res)
{
    bool bad = false;
    for (int i = 0; al->ovr && al->ovr[i].func && i < SIM_MAX_OVERRIDES; i++)
        if (sim_override_hits[i] == 0) {
            char t[256];
            sim_override_text(&al->ovr[i], t, sizeof t);
            fprintf(stderr,
                    "weft-sim: mutant %s: the override %s changed no "
                    "access in %ld executions: this scenario runs the "
                    "unmutated code\n",
                    al->name, t, res->execs);
            bad = true;
        }
    return bad;
}

/* The statistics, the outcomes and the verdict of a finished search. */
static void print_verdict(const scenario *sc, const explore_job *job,
                          explore_result *res)
{
    print_stats(sc, res);
    for (int i = 0; i < res->noutcomes; i++)
        printf("outcome: %s\n", res->outcomes[i]);
    if (res->failed) {
        show_counterexample(sc, job, res, isatty(1));
        if (sc->replay && write_replay(sc, job, res) == 0)
            printf("wrote %s (weft-sim run %s steps through it)\n", sc->replay,
                   sc->replay);
    } else if (!res->exhausted || sc->preemptions >= 0)
        printf("verdict: bounded, no counterexample in %ld executions "
               "(%s; not a proof)\n",
               res->execs,
               sc->preemptions >= 0 ? "schedules with at most the given "
                                      "preemptions"
                                    : "the search stopped at max-execs");
    else if (sc->protocol && sc->protocol->correct)
        printf("verdict: correct (%s)\n", sc->protocol->correct);
    else if (sc->protocol)
        printf("verdict: correct (no lost wake-up: every thread that "
               "slept for good slept with nothing to wait for)\n");
    else
        printf("verdict: correct (every task taken once or still in the "
               "deque, in LIFO order for the owner and FIFO for thieves, "
               "base never moved back)\n");
}

static int run_scenario(const scenario *sc, bool quiet, explore_result *res)
{
    explore_job job;
    scenario_job(sc, &job);
    if (job.nthreads > SIM_MAX_THREADS) {
        fprintf(stderr,
                "weft-sim: a change of owner (|) takes a thread: at most %d "
                "thieves with it\n",
                SIM_MAX_THREADS - 2);
        memset(res, 0, sizeof *res);
        return 2;
    }
    if (sc->lb && (!SIM_GRAPH_MODEL(sc->model) || sc->model == MODEL_ARM)) {
        fprintf(stderr, "weft-sim: --lb: only under c11, c20 or c11std\n");
        memset(res, 0, sizeof *res);
        return 2;
    }
    if (sc->replay && sc->handoff >= 0) { /* the REPL has one owner */
        fprintf(stderr, "weft-sim: --replay: the REPL cannot change owner\n");
        memset(res, 0, sizeof *res);
        return 2;
    }
    char d[256];
    scenario_describe(sc, d, sizeof d);
    if (!quiet)
        printf("weft-sim explore: %s%s\n", d,
               SIM_GRAPH_MODEL(sc->model) ? " (execution graphs)"
               : sc->preemptions >= 0 ? " (preemption-bounded, no reduction)"
               : sc->naive            ? ""
                                      : " (partial-order reduction)");
    memset(sim_override_hits, 0, sizeof sim_override_hits);
    if (explore_run(&job, res) != 0) {
        fprintf(stderr, "weft-sim: the scenario could not run\n");
        return 2;
    }
    if (mutant_changed_nothing(job.algo, res))
        return 2;
    if (!quiet)
        print_verdict(sc, &job, res);
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
            if (i + 1 >= argc ||
                scenario_load(sc, argv[++i], err, sizeof err)) {
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
    if (sc.nowner == 0 && !sc.protocol) {
        fprintf(stderr, "weft-sim: explore needs --owner \"push pop ...\" "
                        "or --protocol NAME (weft-sim algos)\n");
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
        if (sc.expect < 0 || (sc.nowner == 0 && !sc.protocol)) {
            fprintf(stderr,
                    "weft-sim: %s: needs 'owner' (or 'protocol') and "
                    "'expect'\n",
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
               res.failed                            ? ""
               : res.exhausted && sc.preemptions < 0 ? ", exhausted"
                                                     : ", bounded");
        if (res.failed)
            printf(": %d-%s counterexample: %s", res.nsched,
                   SIM_GRAPH_MODEL(sc.model) ? "event" : "step", res.fail);
        printf("\n");
        explore_result_free(&res);
    }
    return bad ? 1 : 0;
}

static int strcmp_ptr(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool same_outcomes(const explore_result *a, const explore_result *b)
{
    bool same = a->noutcomes == b->noutcomes;
    for (int k = 0; same && k < a->noutcomes; k++)
        same = strcmp(a->outcomes[k], b->outcomes[k]) == 0;
    return same;
}

/* Every outcome of sub among those of super (both sorted)? */
static bool included(const explore_result *sub, const explore_result *super)
{
    int j = 0;
    for (int i = 0; i < sub->noutcomes; i++) {
        while (j < super->noutcomes &&
               strcmp(super->outcomes[j], sub->outcomes[i]) < 0)
            j++;
        if (j == super->noutcomes ||
            strcmp(super->outcomes[j], sub->outcomes[i]) != 0)
            return false;
    }
    return true;
}

/* A graph model: no graph reached twice, and every outcome of the full
 * interleaving search under sc (every value each thread read included)
 * is an outcome of the model. */
static int crosscheck_graphs(scenario *sc)
{
    explore_result g, full;
    int model = sc->model;
    explore_job job;
    scenario_job(sc, &job);
    job.check_duplicates = true;
    if (explore_run(&job, &g) != 0)
        return 2;
    sc->model = MODEL_SC;
    sc->naive = true;
    if (run_scenario(sc, true, &full) == 2)
        return 2;
    bool inc = included(&full, &g);
    bool ok = inc && g.duplicates == 0 && g.exhausted && full.exhausted;
    printf("%s %s: %s: %d outcomes in %ld graphs (%ld reached twice); sc "
           "(full search): %d outcomes%s\n",
           ok ? "ok  " : "FAIL", sc->name, sim_model_name(model), g.noutcomes,
           g.execs, g.duplicates, full.noutcomes,
           inc ? ", all among them" : " -- SOME MISSING");
    for (int k = 0; !inc && k < full.noutcomes; k++)
        if (!bsearch(&full.outcomes[k], g.outcomes, (size_t)g.noutcomes,
                     sizeof(char *), strcmp_ptr))
            printf("   missing: %s\n", full.outcomes[k]);
    explore_result_free(&g);
    explore_result_free(&full);
    return ok ? 0 : 1;
}

/* The reduced search against the full one: both must find the same set of
 * outcomes, where an outcome includes a hash of every value each thread
 * read.  Executions that differ only in the order of independent steps
 * read the same values, so a reduction that skipped a class of executions
 * would show here as a missing outcome.  Graph models: see above. */
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
        if (SIM_GRAPH_MODEL(sc.model)) {
            int rc = crosscheck_graphs(&sc);
            if (rc == 2)
                return 2;
            bad += rc;
            continue;
        }
        explore_result red, full;
        sc.naive = false;
        if (run_scenario(&sc, true, &red) == 2)
            return 2;
        sc.naive = true;
        if (run_scenario(&sc, true, &full) == 2)
            return 2;
        bool same = same_outcomes(&red, &full);
        bool ok = same && red.exhausted && full.exhausted;
        bad += !ok;
        printf("%s %s: %d outcomes; reduced search %ld executions, full "
               "search %ld executions%s%s\n",
               ok ? "ok  " : "FAIL", sc.name, red.noutcomes, red.execs,
               full.execs, full.exhausted ? "" : " (full search not exhausted)",
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
        printf("%-33s %-6s %s\n", l[i]->name, l[i]->catch_model, l[i]->desc);
    /* The library's other protocols, run with --protocol NAME. */
    for (int i = 0; sim_protocols[i]; i++)
        printf("protocol %-24s %s\n", sim_protocols[i]->name,
               sim_protocols[i]->desc);
    return 0;
}
