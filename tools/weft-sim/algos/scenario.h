/* SPDX-License-Identifier: Apache-2.0 */
/* A scenario for the explorer: an algorithm, a model, the owner's
 * operations and the thieves' polls, and (in a scenario file) the verdict
 * expected.  The same keys work on the command line (--key value) and in a
 * file (one "key value" per line, # starts a comment). */
#ifndef WEFT_SIM_SCENARIO_H
#define WEFT_SIM_SCENARIO_H

#include "algos/evcount.h"
#include "search/explore.h"

typedef struct scenario {
    char name[128];
    const sim_algo *algo;
    /* a protocol of the event counts (evcount.h) in place of owner and
     * thieves, or NULL */
    const sim_protocol *protocol;
    int model;
    int owner_ops[SIM_MAX_OPS];   /* OP_PUSH / OP_POP */
    int owner_count[SIM_MAX_OPS]; /* push: tasks at once ("push2": 2) */
    int nowner;
    int handoff; /* "|" in owner: ops from here run on a new owner; -1 */
    int thieves, polls, capacity;
    bool reuse, naive, first, outcomes;
    bool reads;      /* outcomes include a hash of every value read */
    bool duplicates; /* arm, c11, c20: count graphs reached twice */
    bool lb;         /* c11, c20, c11std: no no-thin-air axiom      */
    int spins; /* iterations a reference algorithm's retry loop may make */
    int preemptions; /* -1: none */
    long max_execs;
    const char *html;
    const char *replay; /* write the counterexample as a REPL script here */
    int expect;         /* -1: none; 0: correct; 1: counterexample */
    /* --mutate: overrides applied to algo (an ad-hoc mutant) */
    sim_override mutate[SIM_MAX_OVERRIDES];
    int nmutate;
} scenario;

void scenario_defaults(scenario *sc);
/* Set one key ("algo", "protocol", "model", "owner", "thieves", "polls", "capacity",
 * "reuse", "naive", "first", "preemptions", "max-execs", "expect",
 * "outcomes", "html").  Returns 0, or -1 with a message in err. */
int scenario_set(scenario *sc, const char *key, const char *value, char *err,
                 size_t n);
/* Does key take a value? */
bool scenario_key_has_value(const char *key);
int scenario_load(scenario *sc, const char *path, char *err, size_t n);
/* The algorithm a scenario runs: algo, or with --mutate an ad-hoc mutant
 * of it (valid until the next call). */
const sim_algo *scenario_algo(const scenario *sc);
/* The explorer job of a scenario. */
void scenario_job(const scenario *sc, explore_job *job);
/* One line: "weft, tso, owner "push push pop", 2 thieves x 2 polls, ..." */
void scenario_describe(const scenario *sc, char *out, size_t n);

#endif
