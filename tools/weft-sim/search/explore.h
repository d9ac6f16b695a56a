/* SPDX-License-Identifier: Apache-2.0 */
/* The explorer: every execution of a scenario, replayed from the start.
 *
 * Under sc, tso and pso it is a stateless search with dynamic partial-order
 * reduction (Flanagan and Godefroid, POPL 2005) and sleep sets: two
 * schedules that differ only in the order of independent steps are
 * explored once.  Store buffers are processes of their own (as Abdulla et
 * al. do for TSO and PSO), so "drain this store now" is an ordinary
 * scheduling choice.  With a preemption bound, or --naive, it enumerates
 * schedules without reduction (the naive mode is what the tests compare
 * the reduction against).  Under arm, c11, c20 and c11std it enumerates
 * execution graphs instead (wmm_search.h).
 *
 * This header is what callers see: a job, its result, the search.  The
 * files of search/ build it bottom-up: strset.c (distinct outcomes),
 * checks.c (the checks at the end of an execution), execution.c (one
 * execution of a job), dpor.c (interleavings), wmm_replay.c and
 * wmm_explore.c (graphs), explore.c (which search a job runs). */
#ifndef WEFT_SIM_EXPLORE_H
#define WEFT_SIM_EXPLORE_H

#include "core/algo.h"

#define EXPLORE_MAX_DEPTH 1024

typedef struct explore_job {
    const sim_algo *algo;
    int model;
    int nthreads;
    int capacity;
    bool reuse;
    /* c11, c20, c11std: allow load buffering (po U rf cycles) in the
     * algorithms' code, that is, drop RC11's no-thin-air axiom. */
    bool lb;
    /* Queue each thread's operations (called after every reset). */
    void (*setup)(const struct explore_job *);
    const void *ctx;
    /* Deque checks at the end of each execution (tasks lost, duplicated,
     * final state).  Litmus tests turn them off. */
    bool deque_checks;
    /* More checks at the end of each complete execution (may fail it). */
    void (*final)(void);
    /* Describe the outcome of a complete execution; the explorer collects
     * the distinct ones when collect_outcomes is set. */
    void (*outcome)(char *buf, size_t n);
    bool collect_outcomes;
    int preemptions;       /* -1: unbounded                                 */
    bool naive;            /* no partial-order reduction                    */
    bool stop_first;       /* stop at the first failure                     */
    long max_execs;        /* 0: no limit                                   */
    bool check_duplicates; /* arm, c11: count graphs reached twice      */
    long extra_after_fail; /* executions to look for a shorter failure  */
} explore_job;

typedef struct explore_result {
    long execs;   /* complete executions                               */
    long blocked; /* executions cut short by the sleep sets            */
    long steps;   /* steps executed, replays included                  */
    double secs;
    bool exhausted; /* the whole space was searched (within the bound)   */
    bool failed;
    char fail[256];
    int sched[EXPLORE_MAX_DEPTH]; /* shortest failing schedule (pids)     */
    int nsched;
    char **outcomes; /* sorted, when collected                            */
    int noutcomes;
    void *graph;     /* arm, c11: the smallest failing execution graph     */
    long duplicates; /* with check_duplicates: graphs reached twice        */
} explore_result;

/* Run the search: dpor.c's under sc, tso and pso, wmm_explore.c's under
 * the graph models.  Returns 0, or -1 when the job cannot run. */
int explore_run(const explore_job *job, explore_result *res);
void explore_result_free(explore_result *res);

#endif
