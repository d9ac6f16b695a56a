/* SPDX-License-Identifier: Apache-2.0 */
/* Scenarios: parsing, and turning one into an explorer job. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "algos/algos.h"
#include "algos/scenario.h"
#include "core/threads.h"
#include "weft/deque.h"

void scenario_defaults(scenario *sc)
{
    memset(sc, 0, sizeof *sc);
    sc->algo = sim_algo_find("weft");
    sc->model = MODEL_SC;
    sc->thieves = 1;
    sc->polls = 1;
    sc->capacity = 2;
    sc->preemptions = -1;
    sc->expect = -1;
    sc->spins = 2;
    sc->handoff = -1;
}

static int parse_int(const char *v, int lo, int hi, int *out)
{
    char *end;
    long x = strtol(v, &end, 10);
    if (!*v || *end || x < lo || x > hi)
        return -1;
    *out = (int)x;
    return 0;
}

static int parse_owner(scenario *sc, const char *v, char *err, size_t n)
{
    sc->nowner = 0;
    sc->handoff = -1;
    const char *p = v;
    while (*p) {
        while (isspace((unsigned char)*p) || *p == ',')
            p++;
        if (!*p)
            break;
        size_t k = strcspn(p, " \t,");
        if (sc->nowner == SIM_MAX_OPS) {
            snprintf(err, n, "owner: at most %d operations", SIM_MAX_OPS);
            return -1;
        }
        if (k == 1 && *p == '|') {
            if (sc->handoff >= 0) {
                snprintf(err, n, "owner: one '|' (change of owner) at most");
                return -1;
            }
            sc->handoff = sc->nowner;
        } else if (k == 4 && strncmp(p, "push", 4) == 0) {
            sc->owner_count[sc->nowner] = 1;
            sc->owner_ops[sc->nowner++] = OP_PUSH;
        } else if (k == 5 && strncmp(p, "push", 4) == 0 && p[4] >= '2' &&
                   p[4] <= '0' + SIM_MAX_PUSH_N) {
            sc->owner_count[sc->nowner] = p[4] - '0';
            sc->owner_ops[sc->nowner++] = OP_PUSH;
        } else if (k == 3 && strncmp(p, "pop", 3) == 0)
            sc->owner_ops[sc->nowner++] = OP_POP;
        else {
            snprintf(err, n,
                     "owner: '%.*s' is not push, push2..push%d, pop or |",
                     (int)k, p, SIM_MAX_PUSH_N);
            return -1;
        }
        p += k;
    }
    return 0;
}

static const char *const flags[] = {"reuse", "naive",      "first", "outcomes",
                                    "reads", "duplicates", "lb"};

bool scenario_key_has_value(const char *key)
{
    for (size_t i = 0; i < sizeof flags / sizeof *flags; i++)
        if (strcmp(key, flags[i]) == 0)
            return false;
    return true;
}

/* A key without a value: false when key is not one. */
static bool set_flag(scenario *sc, const char *key)
{
    if (strcmp(key, "reuse") == 0)
        sc->reuse = true;
    else if (strcmp(key, "naive") == 0)
        sc->naive = true;
    else if (strcmp(key, "first") == 0)
        sc->first = true;
    else if (strcmp(key, "outcomes") == 0)
        sc->outcomes = true;
    else if (strcmp(key, "reads") == 0)
        sc->outcomes = sc->reads = true;
    else if (strcmp(key, "duplicates") == 0)
        sc->duplicates = true;
    else if (strcmp(key, "lb") == 0)
        sc->lb = true;
    else
        return false;
    return true;
}

/* A key whose value is a number: 0, -1 with a message in err, or 1 when
 * key is not one. */
static int set_number(scenario *sc, const char *key, const char *v, char *err,
                      size_t n)
{
    if (strcmp(key, "thieves") == 0) {
        if (parse_int(v, 0, SIM_MAX_THREADS - 1, &sc->thieves)) {
            snprintf(err, n, "thieves: 0 to %d", SIM_MAX_THREADS - 1);
            return -1;
        }
    } else if (strcmp(key, "polls") == 0) {
        if (parse_int(v, 0, SIM_MAX_OPS, &sc->polls)) {
            snprintf(err, n, "polls: 0 to %d", SIM_MAX_OPS);
            return -1;
        }
    } else if (strcmp(key, "capacity") == 0) {
        if (parse_int(v, 2, 64, &sc->capacity)) {
            snprintf(err, n, "capacity: 2 to 64");
            return -1;
        }
    } else if (strcmp(key, "spins") == 0) {
        if (parse_int(v, 1, 100, &sc->spins)) {
            snprintf(err, n, "spins: 1 to 100");
            return -1;
        }
    } else if (strcmp(key, "preemptions") == 0) {
        if (parse_int(v, 0, 100, &sc->preemptions)) {
            snprintf(err, n, "preemptions: 0 to 100");
            return -1;
        }
    } else if (strcmp(key, "max-execs") == 0) {
        char *end;
        sc->max_execs = strtol(v, &end, 10);
        if (*end || sc->max_execs < 0) {
            snprintf(err, n, "max-execs: a count");
            return -1;
        }
    } else {
        return 1;
    }
    return 0;
}

/* A key whose value is a name (algo, model, expect, mutate): 0, -1 with
 * a message in err, or 1 when key is not one. */
static int set_name(scenario *sc, const char *key, const char *v, char *err,
                    size_t n)
{
    if (strcmp(key, "algo") == 0) {
        if (!(sc->algo = sim_algo_find(v))) {
            snprintf(err, n, "unknown algorithm '%s' (see weft-sim algos)", v);
            return -1;
        }
    } else if (strcmp(key, "protocol") == 0) {
        if (!(sc->protocol = sim_protocol_find(v))) {
            snprintf(err, n, "unknown protocol '%s' (see weft-sim algos)", v);
            return -1;
        }
    } else if (strcmp(key, "model") == 0) {
        if ((sc->model = sim_model_parse(v)) < 0) {
            snprintf(err, n,
                     "model must be sc, tso, pso, arm, c11, c20 or c11std, not "
                     "'%s'",
                     v);
            return -1;
        }
    } else if (strcmp(key, "expect") == 0) {
        if (strcmp(v, "pass") == 0 || strcmp(v, "correct") == 0)
            sc->expect = 0;
        else if (strcmp(v, "fail") == 0 || strcmp(v, "counterexample") == 0)
            sc->expect = 1;
        else {
            snprintf(err, n, "expect: pass or fail");
            return -1;
        }
    } else if (strcmp(key, "mutate") == 0) {
        if (sc->nmutate == SIM_MAX_OVERRIDES - 1) {
            snprintf(err, n, "mutate: at most %d", SIM_MAX_OVERRIDES - 1);
            return -1;
        }
        if (sim_override_parse(v, &sc->mutate[sc->nmutate], err, n) != 0)
            return -1;
        sc->nmutate++;
    } else {
        return 1;
    }
    return 0;
}

int scenario_set(scenario *sc, const char *key, const char *v, char *err,
                 size_t n)
{
    if (set_flag(sc, key))
        return 0;
    if (v == NULL) {
        snprintf(err, n, "%s needs a value", key);
        return -1;
    }
    int rc = set_number(sc, key, v, err, n);
    if (rc <= 0)
        return rc;
    if ((rc = set_name(sc, key, v, err, n)) <= 0)
        return rc;
    if (strcmp(key, "owner") == 0) {
        return parse_owner(sc, v, err, n);
    } else if (strcmp(key, "html") == 0) {
        sc->html = strdup(v);
    } else if (strcmp(key, "replay") == 0) {
        sc->replay = strdup(v);
    } else if (strcmp(key, "name") == 0) {
        snprintf(sc->name, sizeof sc->name, "%s", v);
    } else {
        snprintf(err, n, "unknown option '%s'", key);
        return -1;
    }
    return 0;
}

int scenario_load(scenario *sc, const char *path, char *err, size_t n)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, n, "cannot open %s", path);
        return -1;
    }
    const char *slash = strrchr(path, '/');
    snprintf(sc->name, sizeof sc->name, "%s", slash ? slash + 1 : path);
    char line[512];
    int ln = 0, rc = 0;
    while (rc == 0 && fgets(line, sizeof line, f)) {
        ln++;
        char *h = strchr(line, '#');
        if (h)
            *h = 0;
        char *k = line;
        while (isspace((unsigned char)*k))
            k++;
        if (!*k)
            continue;
        char *v = k + strcspn(k, " \t\r\n");
        if (*v)
            *v++ = 0;
        while (isspace((unsigned char)*v))
            v++;
        char *e = v + strlen(v);
        while (e > v && isspace((unsigned char)e[-1]))
            *--e = 0;
        char msg[200];
        if (scenario_set(sc, k, *v ? v : NULL, msg, sizeof msg) != 0) {
            snprintf(err, n, "%s:%d: %s", path, ln, msg);
            rc = -1;
        }
    }
    fclose(f);
    return rc;
}

/* With a change of owner ("|" in owner), the owner's operations after it
 * run on one more thread, owner2, once its acquire load of the handoff
 * word reads the owner's release store of it (after its last operation);
 * when it reads the initial value, the deque never reached owner2 and its
 * operations do nothing. */
static void setup(const explore_job *job)
{
    const scenario *sc = job->ctx;
    int h = sc->handoff >= 0 ? sc->thieves + 1 : 0;
    S.handoff_thread = h;
    for (int i = 0; i < sc->nowner; i++) {
        if (h && i == sc->handoff)
            sim_add_op(h, (sim_op){.kind = OP_CALL, .call = sim_handoff_take});
        sim_add_op(h && i >= sc->handoff ? h : 0,
                   (sim_op){.kind = sc->owner_ops[i],
                            .value = -1,
                            .count = sc->owner_count[i],
                            .if_owner = h && i >= sc->handoff});
    }
    if (h && sc->handoff == sc->nowner)
        sim_add_op(h, (sim_op){.kind = OP_CALL, .call = sim_handoff_take});
    if (h)
        sim_add_op(0, (sim_op){.kind = OP_CALL, .call = sim_handoff_give});
    for (int t = 1; t <= sc->thieves; t++)
        for (int i = 0; i < sc->polls; i++)
            sim_add_op(t, (sim_op){.kind = OP_POLL});
}

/* The outcome of an execution: what each operation returned, and what is
 * left in the deque (the final check has drained it by then, so the
 * outcome is recorded from the operations only). */
static bool outcome_reads;

static void outcome(char *buf, size_t n)
{
    size_t k = 0;
    char vb[24];
    for (int t = 0; t < S.nthreads && k < n; t++) {
        k += (size_t)snprintf(buf + k, n - k, "%s%s:", t ? " | " : "",
                              sim_thread_name(t));
        if (outcome_reads && k < n)
            k += (size_t)snprintf(buf + k, n - k, " reads#%016llx",
                                  (unsigned long long)S.th[t].reads_hash);
        for (int i = 0; i < S.th[t].nprog && k < n; i++) {
            const sim_op *op = &S.th[t].prog[i];
            if (op->kind == OP_CALL)
                k += (size_t)snprintf(buf + k, n - k, " %s",
                                      op->call == sim_handoff_give ? "hand-over"
                                      : S.handed                   ? "took-over"
                                                 : "not-handed");
            else if (op->if_owner && !S.handed)
                continue;
            else if (op->kind == OP_PUSH)
                for (int j = 0; j < (op->count > 1 ? op->count : 1) && k < n;
                     j++)
                    k += (size_t)snprintf(buf + k, n - k, "%s%c",
                                          j ? "," : " push ",
                                          'A' + sim_op_value(op, j));
            else if (op->kind == OP_POP)
                k += (size_t)snprintf(buf + k, n - k, " pop=%s",
                                      sim_value_name(op->got, vb));
            else
                k += (size_t)snprintf(buf + k, n - k, " poll=%s",
                                      op->status == WF_POLL_TAKEN
                                          ? sim_value_name(op->got, vb)
                                      : op->status == WF_POLL_EMPTY ? "empty"
                                                                    : "retry");
        }
    }
}

/* A protocol's outcome, with (for crosscheck) every value each thread read. */
static void (*protocol_outcome)(char *buf, size_t n);

static void outcome_with_reads(char *buf, size_t n)
{
    protocol_outcome(buf, n);
    size_t k = strlen(buf);
    for (int t = 0; t < S.nthreads && k < n; t++)
        k += (size_t)snprintf(buf + k, n - k, " %s:reads#%016llx",
                              sim_thread_name(t),
                              (unsigned long long)S.th[t].reads_hash);
}

const sim_algo *scenario_algo(const scenario *sc)
{
    static sim_algo adhoc;
    static char name[64];
    if (sc->nmutate == 0)
        return sc->algo;
    adhoc = *sc->algo;
    snprintf(name, sizeof name, "%s+mutate", sc->algo->name);
    adhoc.name = name;
    adhoc.catch_model = "?";
    adhoc.desc = "an ad-hoc mutant (--mutate)";
    adhoc.ovr = sc->mutate; /* zeroed after the last: func == NULL */
    return &adhoc;
}

void scenario_job(const scenario *sc, explore_job *job)
{
    memset(job, 0, sizeof *job);
    job->algo = scenario_algo(sc);
    job->model = sc->model;
    job->nthreads = 1 + sc->thieves + (sc->handoff >= 0);
    job->capacity = sc->capacity;
    job->reuse = sc->reuse;
    job->lb = sc->lb;
    job->setup = setup;
    job->ctx = sc;
    job->deque_checks = true;
    job->outcome = outcome;
    job->collect_outcomes = sc->outcomes;
    job->preemptions = sc->preemptions;
    job->naive = sc->naive;
    job->stop_first = sc->first;
    job->max_execs = sc->max_execs;
    job->check_duplicates = sc->duplicates;
    job->extra_after_fail = 20000;
    outcome_reads = sc->reads;
    sim_spin_limit = sc->spins;
    if (sc->protocol) { /* the event counts: no deque checks (evcount.c) */
        job->nthreads = sc->protocol->nthreads;
        job->setup = sc->protocol->setup;
        job->final = sc->protocol->final;
        job->outcome = sc->protocol->outcome;
        protocol_outcome = sc->protocol->outcome;
        if (sc->reads)
            job->outcome = outcome_with_reads;
        job->deque_checks = false;
    }
}

void scenario_describe(const scenario *sc, char *out, size_t n)
{
    if (sc->protocol) {
        snprintf(out, n, "algo %s, model %s, protocol %s: %s",
                 scenario_algo(sc)->name, sim_model_name(sc->model),
                 sc->protocol->name, sc->protocol->desc);
        return;
    }
    size_t k =
        (size_t)snprintf(out, n, "algo %s, model %s, owner \"",
                         scenario_algo(sc)->name, sim_model_name(sc->model));
    for (int i = 0; i < sc->nowner && k < n; i++)
        k += (size_t)snprintf(
            out + k, n - k, "%s%s%s", i ? " " : "",
            i == sc->handoff ? "| " : "",
            sc->owner_ops[i] == OP_PUSH
                ? (sc->owner_count[i] > 1
                       ? (const char *[]){"", "", "push2", "push3",
                                          "push4"}[sc->owner_count[i]]
                       : "push")
                : "pop");
    if (k < n && sc->handoff == sc->nowner)
        k += (size_t)snprintf(out + k, n - k, " |");
    if (k < n)
        snprintf(out + k, n - k, "\", %d thie%s x %d poll%s, capacity %d%s%s%s",
                 sc->thieves, sc->thieves == 1 ? "f" : "ves", sc->polls,
                 sc->polls == 1 ? "" : "s", sc->capacity,
                 sc->reuse ? ", reuse" : "", sc->naive ? ", no reduction" : "",
                 sc->lb ? ", load buffering" : "");
}
