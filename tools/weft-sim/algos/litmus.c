/* SPDX-License-Identifier: Apache-2.0 */
/* Litmus tests of the memory models.
 *
 * Each test is a few threads of loads and stores on x, y and z, run
 * through the same explorers as the deque.  Its outcomes under each model
 * are known: the outcomes of sequential consistency, plus a weak outcome
 * that some models allow.  Sources: Owens, Sarkar, Sewell (x86-TSO,
 * TPHOLs 2009) for tso; SPARC's PSO for the store-store reordering; the
 * ARMv8 model of Pulte et al. (POPL 2018) and herd7's aarch64.cat, whose
 * litmus collection names these shapes, for arm; RC11 (Lahav et al., PLDI
 * 2017, herd7's rc11.cat) for c11; P0982R1 for c20; ISO/IEC 9899:2011
 * 7.17.3 for c11std.  A test whose outcome set differs from
 * the expected one (with and without partial-order reduction for sc, tso
 * and pso) fails the suite. */
#include <stdlib.h>
#include <string.h>

#include "algos/litmus.h"
#include "core/machine.h"
#include "core/threads.h"
#include "search/explore.h"

static _Alignas(64) _Atomic int64_t x;
static _Alignas(64) _Atomic int64_t y;
static _Alignas(64) _Atomic int64_t z;
static int64_t r[4];

typedef struct litmus {
    const char *name;
    int nthreads;
    void (*body)(int thread);
    int nregs;
    const char *mem;  /* the outcome also shows these locations' final values */
    const char *sc;   /* its outcomes under sc, ';'-separated; NULL: every
                      * combination of four 0/1 registers but the weak one */
    const char *weak; /* the outcome(s) only weaker models allow */
    const char *allow; /* the models that allow them */
    const char *note;
} litmus;

/* ---- the tests -------------------------------------------------------- */

#define LOAD(p, o)                                                             \
    ((o) == 1   ? wf_load_acquire(p)                                           \
     : (o) == 2 ? wf_load_seqcst(p)                                            \
                : wf_load_relaxed(p))
#define STORE(p, v, o)                                                         \
    ((o) == 1   ? wf_store_release(p, v)                                       \
     : (o) == 2 ? wf_store_seqcst(p, v)                                        \
                : wf_store_relaxed(p, v))

/* A test that is a generator with fixed arguments (the orders, fences or
 * RMWs of one variant). */
#define VARIANT(name, gen, ...)                                                \
    static void name(int t)                                                    \
    {                                                                          \
        gen(t, __VA_ARGS__);                                                   \
    }

/* Store buffering; o: 0 relaxed, 1 release/acquire, 2 seq_cst; f: a
 * seq_cst fence between; rmw: the store is a seq_cst exchange. */
static void sb_gen(int t, int o, bool f, bool rmw)
{
    _Atomic int64_t *mine = t ? &y : &x, *other = t ? &x : &y;
    if (rmw)
        (void)wf_exchange_seqcst(mine, 1);
    else
        STORE(mine, 1, o);
    if (f)
        wf_fence_seqcst();
    r[t] = LOAD(other, o);
}

VARIANT(sb, sb_gen, 0, false, false)
VARIANT(sb_fences, sb_gen, 0, true, false)
VARIANT(sb_rmws, sb_gen, 0, false, true)
VARIANT(sb_scs, sb_gen, 2, false, false)
VARIANT(sb_relacq, sb_gen, 1, false, false)

/* SB with a read of one's own store in between: TSO forwards it. */
static void sb_fwd(int t)
{
    _Atomic int64_t *mine = t ? &y : &x, *other = t ? &x : &y;
    wf_store_relaxed(mine, 1);
    r[2 * t] = wf_load_relaxed(mine);
    r[2 * t + 1] = wf_load_relaxed(other);
}

/* Message passing; ws/rs: the order of the store and load of the flag y;
 * fences: a release fence and an acquire fence instead. */
static void mp_gen(int t, int ws, int rs, bool fences)
{
    if (t == 0) {
        wf_store_relaxed(&x, 1);
        if (fences)
            wf_fence_release();
        STORE(&y, 1, ws);
    } else {
        r[0] = LOAD(&y, rs);
        if (fences)
            wf_fence_acquire();
        r[1] = wf_load_relaxed(&x);
    }
}

VARIANT(mp, mp_gen, 0, 0, false)
VARIANT(mp_relacq, mp_gen, 1, 1, false)
VARIANT(mp_fences, mp_gen, 0, 0, true)
VARIANT(mp_rel, mp_gen, 1, 0, false)
VARIANT(mp_acq, mp_gen, 0, 1, false)

/* MP where the writer overwrites its release store of the flag with a
 * relaxed one, which the reader acquires: C11's release sequence includes
 * later stores of the same thread, C++20's does not (P0982R1); ARMv8
 * orders it (po;[L];coi). */
static void mp_rs(int t)
{
    if (t == 0) {
        wf_store_relaxed(&x, 1);
        wf_store_release(&y, 1);
        wf_store_relaxed(&y, 2);
    } else {
        r[0] = wf_load_acquire(&y);
        r[1] = wf_load_relaxed(&x);
    }
}

/* MP through a pointer: the reader loads z, a pointer to x, relaxed, and
 * reads through it; ARM orders the two loads by the address dependency,
 * C11 does not (only an acquire, or consume, would). */
static void mp_addr(int t)
{
    if (t == 0) {
        wf_store_relaxed(&x, 1);
        wf_store_release(&z, (int64_t)(intptr_t)&x);
    } else {
        int64_t p = wf_load_relaxed(&z);
        r[0] = p != 0;
        r[1] = p ? wf_load_relaxed((_Atomic int64_t *)(intptr_t)p) : -1;
    }
}

static void lb_gen(int t, int o)
{
    _Atomic int64_t *mine = t ? &x : &y, *other = t ? &y : &x;
    r[t] = LOAD(other, o);
    STORE(mine, 1, o);
}

VARIANT(lb, lb_gen, 0)
VARIANT(lb_acqrel, lb_gen, 1)

static void w22_gen(int t, int o)
{
    STORE(t ? &y : &x, 1, 0);
    STORE(t ? &x : &y, 2, o);
}

VARIANT(w22, w22_gen, 0)
VARIANT(w22_rels, w22_gen, 1)

static void corr(int t)
{
    if (t == 0) {
        wf_store_relaxed(&x, 1);
        wf_store_relaxed(&x, 2);
    } else {
        r[0] = wf_load_relaxed(&x);
        r[1] = wf_load_relaxed(&x);
    }
}

/* IRIW; o: the order of every access. */
static void iriw_gen(int t, int o)
{
    switch (t) {
    case 0: STORE(&x, 1, o); break;
    case 1: STORE(&y, 1, o); break;
    case 2:
        r[0] = LOAD(&x, o);
        r[1] = LOAD(&y, o);
        break;
    default: r[2] = LOAD(&y, o); r[3] = LOAD(&x, o);
    }
}

VARIANT(iriw, iriw_gen, 0)
static void iriw_acqs(int t)
{
    if (t < 2)
        iriw_gen(t, 0); /* relaxed writers, acquire readers */
    else
        iriw_gen(t, 1);
}
VARIANT(iriw_scs, iriw_gen, 2)

/* WRC: T1 passes on what it read from T0; o: T1's store is a release
 * and T2's first load an acquire. */
static void wrc_gen(int t, int o)
{
    if (t == 0) {
        wf_store_relaxed(&x, 1);
    } else if (t == 1) {
        r[0] = wf_load_relaxed(&x);
        STORE(&y, 1, o);
    } else {
        r[1] = LOAD(&y, o);
        r[2] = wf_load_relaxed(&x);
    }
}

VARIANT(wrc, wrc_gen, 0)
VARIANT(wrc_relacq, wrc_gen, 1)

/* RWC with seq_cst fences: T1 reads T0's x, fences and misses y; T2
 * writes y, fences and misses x.  o: T0's store is a release (1) or
 * seq_cst (2) store.  RC11 orders the two fences through T0's write (a
 * psc path hb;eco;hb); C11's fence rules (7.17.3) reach a write of another
 * thread only through S, so only when it is seq_cst. */
static void rwc_gen(int t, int o)
{
    if (t == 0) {
        STORE(&x, 1, o);
    } else if (t == 1) {
        r[0] = wf_load_relaxed(&x);
        wf_fence_seqcst();
        r[1] = wf_load_relaxed(&y);
    } else {
        wf_store_relaxed(&y, 1);
        wf_fence_seqcst();
        r[2] = wf_load_relaxed(&x);
    }
}

VARIANT(rwc_fences, rwc_gen, 1)
VARIANT(rwc_sc_fences, rwc_gen, 2)

/* ISA2: a chain of two flags; o: releases and acquires on the flags. */
static void isa2_gen(int t, int o)
{
    if (t == 0) {
        wf_store_relaxed(&x, 1);
        STORE(&y, 1, o);
    } else if (t == 1) {
        r[0] = LOAD(&y, o);
        STORE(&z, 1, o);
    } else {
        r[1] = LOAD(&z, o);
        r[2] = wf_load_relaxed(&x);
    }
}

VARIANT(isa2, isa2_gen, 0)
VARIANT(isa2_relacqs, isa2_gen, 1)

/* R: T0 writes x then y; T1 overwrites y and reads x. */
static void r_gen(int t, bool f)
{
    if (t == 0) {
        wf_store_relaxed(&x, 1);
        if (f)
            wf_fence_seqcst();
        wf_store_relaxed(&y, 1);
    } else {
        wf_store_relaxed(&y, 2);
        if (f)
            wf_fence_seqcst();
        r[0] = wf_load_relaxed(&x);
    }
}

VARIANT(r_, r_gen, false)
VARIANT(r_fences, r_gen, true)

/* S: T1 reads T0's second write and then writes T0's first location. */
static void s_gen(int t, int o)
{
    if (t == 0) {
        wf_store_relaxed(&x, 2);
        STORE(&y, 1, o);
    } else {
        r[0] = LOAD(&y, o);
        wf_store_relaxed(&x, 1);
    }
}

VARIANT(s_, s_gen, 0)
VARIANT(s_relacq, s_gen, 1)

#define SB_SC "r0=0 r1=1;r0=1 r1=0;r0=1 r1=1"
#define MP_SC "r0=0 r1=0;r0=0 r1=1;r0=1 r1=1"
#define FWD_SC "r0=1 r1=0 r2=1 r3=1;r0=1 r1=1 r2=1 r3=0;r0=1 r1=1 r2=1 r3=1"
#define W22_SC "x=1 y=2;x=2 y=1;x=2 y=2"
#define CORR "r0=0 r1=0;r0=0 r1=1;r0=0 r1=2;r0=1 r1=1;r0=1 r1=2;r0=2 r1=2"
#define LB_SC "r0=0 r1=0;r0=0 r1=1;r0=1 r1=0"
#define WRC_SC                                                                 \
    "r0=0 r1=0 r2=0;r0=0 r1=0 r2=1;r0=0 r1=1 r2=0;"                            \
    "r0=0 r1=1 r2=1;r0=1 r1=0 r2=0;r0=1 r1=0 r2=1;r0=1 r1=1 r2=1"
#define RWC_SC                                                                 \
    "r0=0 r1=0 r2=0;r0=0 r1=0 r2=1;r0=0 r1=1 r2=0;r0=0 r1=1 r2=1;"             \
    "r0=1 r1=0 r2=1;r0=1 r1=1 r2=0;r0=1 r1=1 r2=1"
#define R_SC "r0=0 y=1;r0=1 y=1;r0=1 y=2"
#define S_SC "r0=0 x=1;r0=0 x=2;r0=1 x=1"
#define IRIW_WEAK "r0=1 r1=0 r2=1 r3=0"
#define WEAK_ALL "tso pso arm c11 c20 c11std"

static const litmus tests[] = {
    {"SB", 2, sb, 2, NULL, SB_SC, "r0=0 r1=0", WEAK_ALL,
     "store buffering: each load passes the other thread's store"},
    {"SB+fences", 2, sb_fences, 2, NULL, SB_SC, "r0=0 r1=0", "",
     "a seq_cst fence (mfence, dmb ish) between store and load forbids 0,0"},
    {"SB+rmws", 2, sb_rmws, 2, NULL, SB_SC, "r0=0 r1=0", "arm c11 c20 c11std",
     "a locked RMW drains the x86 store buffer; swpal orders neither its "
     "write before a later ldr, nor does C11 (the loads are relaxed)"},
    {"SB+scs", 2, sb_scs, 2, NULL, SB_SC, "r0=0 r1=0", "",
     "seq_cst stores and loads (xchg / stlr;ldar) forbid 0,0"},
    {"SB+rel+acq", 2, sb_relacq, 2, NULL, SB_SC, "r0=0 r1=0",
     "tso pso c11 c20 c11std",
     "release/acquire allows 0,0 in C11 and on x86; ARMv8's stlr;ldar "
     "([L];po;[A]) does not"},
    {"SB+fwd", 2, sb_fwd, 4, NULL, FWD_SC, "r0=1 r1=0 r2=1 r3=0", WEAK_ALL,
     "a thread reads its own store early (TSO's n6)"},
    {"MP", 2, mp, 2, NULL, MP_SC, "r0=1 r1=0", "pso arm c11 c20 c11std",
     "message passing, all relaxed: stores (PSO) or loads (ARM) reorder"},
    {"MP+rel+acq", 2, mp_relacq, 2, NULL, MP_SC, "r0=1 r1=0", "",
     "a release store of the flag and an acquire load of it forbid 1,0"},
    {"MP+fences", 2, mp_fences, 2, NULL, MP_SC, "r0=1 r1=0", "",
     "a release fence (dmb ish) and an acquire fence (dmb ishld)"},
    {"MP+rel", 2, mp_rel, 2, NULL, MP_SC, "r0=1 r1=0", "arm c11 c20 c11std",
     "a release store alone: the reader's two loads may still reorder"},
    {"MP+acq", 2, mp_acq, 2, NULL, MP_SC, "r0=1 r1=0", "pso arm c11 c20 c11std",
     "an acquire load alone: the writer's two stores may still reorder"},
    {"MP+rel+rs", 2, mp_rs, 2, NULL, "r0=0 r1=0;r0=0 r1=1;r0=1 r1=1;r0=2 r1=1",
     "r0=2 r1=0", "c20",
     "the acquire reads a relaxed store after the release store: still "
     "synchronised in C11 and on ARMv8, not with C++20's release sequences"},
    {"MP+rel+addr", 2, mp_addr, 2, NULL, "r0=0 r1=-1;r0=1 r1=1", "r0=1 r1=0",
     "c11 c20 c11std",
     "a release store of a pointer read relaxed: ARM keeps the address "
     "dependency in order, C11 needs an acquire"},
    {"LB", 2, lb, 2, NULL, LB_SC, "r0=1 r1=1", "arm",
     "load buffering: ARM may perform a store before an earlier load; "
     "RC11 forbids it (no po U rf cycle), as do sc, tso, pso"},
    {"LB+acq+rel", 2, lb_acqrel, 2, NULL, LB_SC, "r0=1 r1=1", "",
     "acquire loads and release stores forbid load buffering"},
    {"2+2W", 2, w22, 0, "xy", W22_SC, "x=1 y=1", "pso arm c11 c20 c11std",
     "two writes each: only stores that reorder give x=1, y=1"},
    {"2+2W+rels", 2, w22_rels, 0, "xy", W22_SC, "x=1 y=1", "c11 c20 c11std",
     "with the second stores release, ARM (po;[L]) and PSO keep them in "
     "order; C11 does not (coherence needs happens-before)"},
    {"CoRR", 2, corr, 2, NULL, CORR, "r0=2 r1=1", "",
     "coherence: a later read never sees an older store of the location"},
    {"IRIW", 4, iriw, 4, NULL, NULL, IRIW_WEAK, "arm c11 c20 c11std",
     "independent reads of independent writes, relaxed: ARM's loads "
     "reorder, C11 is not multi-copy atomic"},
    {"IRIW+acqs", 4, iriw_acqs, 4, NULL, NULL, IRIW_WEAK, "c11 c20 c11std",
     "acquire loads: ARMv8 is multi-copy atomic, so the readers agree; "
     "RC11 lets them disagree"},
    {"IRIW+scs", 4, iriw_scs, 4, NULL, NULL, IRIW_WEAK, "",
     "seq_cst everywhere: one order"},
    {"WRC", 3, wrc, 3, NULL, WRC_SC, "r0=1 r1=1 r2=0", "arm c11 c20 c11std",
     "write-to-read causality, relaxed"},
    {"WRC+rel+acq", 3, wrc_relacq, 3, NULL, WRC_SC, "r0=1 r1=1 r2=0", "",
     "a release store and an acquire load pass causality on"},
    {"RWC+fences", 3, rwc_fences, 3, NULL, RWC_SC, "r0=1 r1=0 r2=0", "c11std",
     "seq_cst fences in the readers, T0's store a release: RC11 orders the "
     "fences through it, C11's fence rules do not (it is not in S)"},
    {"RWC+sc+fences", 3, rwc_sc_fences, 3, NULL, RWC_SC, "r0=1 r1=0 r2=0", "",
     "T0's store seq_cst: in S before T1's fence, so T2's read after its "
     "fence sees it (C11 7.17.3)"},
    {"ISA2", 3, isa2, 3, NULL, WRC_SC, "r0=1 r1=1 r2=0",
     "pso arm c11 c20 c11std", "a chain of two relaxed flags"},
    {"ISA2+rel+acqs", 3, isa2_relacqs, 3, NULL, WRC_SC, "r0=1 r1=1 r2=0", "",
     "a chain of two release/acquire flags: happens-before is transitive"},
    {"R", 2, r_, 1, "y", R_SC, "r0=0 y=2", WEAK_ALL,
     "a store (y=2) coherence-after T0's y=1, yet T1 misses T0's x=1"},
    {"R+fences", 2, r_fences, 1, "y", R_SC, "r0=0 y=2", "",
     "seq_cst fences on both sides forbid it"},
    {"S", 2, s_, 1, "x", S_SC, "r0=1 x=2", "pso arm c11 c20 c11std",
     "T1 reads T0's second store, yet its own store to x is overwritten by "
     "T0's first"},
    {"S+rel+acq", 2, s_relacq, 1, "x", S_SC, "r0=1 x=2", "",
     "release/acquire on y forbids it"},
};

#define NTESTS (sizeof tests / sizeof *tests)

/* ---- running one test --------------------------------------------------- */

static const litmus *cur;

static void setup(const explore_job *job)
{
    (void)job;
    wf_store_relaxed(&x, 0); /* direct mode: no step */
    wf_store_relaxed(&y, 0);
    wf_store_relaxed(&z, 0);
    memset(r, 0, sizeof r);
    sim_register_name(&x, "x");
    sim_register_name(&y, "y");
    sim_register_name(&z, "z");
    sim_register_object((uint64_t)(uintptr_t)&x, &x, sizeof x);
    for (int t = 0; t < cur->nthreads; t++)
        sim_add_op(
            t, (sim_op){.kind = OP_CALL, .call = cur->body, .straight = true});
}

static void outcome(char *buf, size_t n)
{
    size_t k = 0;
    buf[0] = 0;
    for (int i = 0; i < cur->nregs && k < n; i++)
        k += (size_t)snprintf(buf + k, n - k, "%sr%d=%lld", i ? " " : "", i,
                              (long long)r[i]);
    for (const char *m = cur->mem; m && *m && k < n; m++) {
        _Atomic int64_t *p = *m == 'x' ? &x : *m == 'y' ? &y : &z;
        k += (size_t)snprintf(buf + k, n - k, "%s%c=%lld", k ? " " : "", *m,
                              (long long)sim_mem_read(p));
    }
}

static int split(const char *p, char out[][64], int n, int max)
{
    while (p && *p && n < max) {
        size_t k = strcspn(p, ";");
        snprintf(out[n++], 64, "%.*s", (int)k, p);
        p += k + (p[k] == ';');
    }
    return n;
}

static bool allows(const litmus *t, int model)
{
    const char *name = sim_model_name(model), *p = t->allow;
    size_t k = strlen(name);
    for (; (p = strstr(p, name)) != NULL; p += k)
        if ((p == t->allow || p[-1] == ' ') && (p[k] == 0 || p[k] == ' '))
            return true;
    return false;
}

/* The expected set, sorted. */
static int expected(const litmus *t, int model, char out[][64], int max)
{
    int n = 0;
    if (!t->sc) {
        for (int v = 0; v < 16 && n < max; v++) {
            snprintf(out[n], 64, "r0=%d r1=%d r2=%d r3=%d", v >> 3 & 1,
                     v >> 2 & 1, v >> 1 & 1, v & 1);
            n += strcmp(out[n], t->weak) != 0;
        }
    } else {
        n = split(t->sc, out, 0, max);
    }
    if (allows(t, model))
        n = split(t->weak, out, n, max);
    qsort(out, (size_t)n, 64, (int (*)(const void *, const void *))strcmp);
    return n;
}

static bool same_set(char exp[][64], int ne, const explore_result *res)
{
    if (ne != res->noutcomes)
        return false;
    for (int i = 0; i < ne; i++)
        if (strcmp(exp[i], res->outcomes[i]) != 0)
            return false;
    return true;
}

/* One test under one model, with or without reduction; 1 when wrong. */
static int run_one(int m, bool naive, bool verbose)
{
    char exp[32][64];
    int ne = expected(cur, m, exp, 32);
    explore_job job = {.model = m,
                       .nthreads = cur->nthreads,
                       .setup = setup,
                       .outcome = outcome,
                       .collect_outcomes = true,
                       .preemptions = -1,
                       .naive = naive};
    explore_result res;
    if (explore_run(&job, &res) != 0)
        return 2;
    bool ok = res.exhausted && same_set(exp, ne, &res);
    if (!ok || verbose) {
        printf("%s %-13s %-3s %-7s %d outcomes, %ld executions\n",
               ok ? "ok  " : "FAIL", cur->name, sim_model_name(m),
               SIM_GRAPH_MODEL(m) ? "graphs"
               : naive            ? "full"
                                  : "reduced",
               res.noutcomes, res.execs);
        for (int k = 0; !ok && k < res.noutcomes; k++)
            printf("       got      %s\n", res.outcomes[k]);
        for (int k = 0; !ok && k < ne; k++)
            printf("       expected %s\n", exp[k]);
    }
    explore_result_free(&res);
    return !ok;
}

int litmus_main(int argc, char **argv)
{
    bool verbose = false;
    const char *only_model = NULL, *only_test = NULL;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "-v") == 0)
            verbose = true;
        else if (strcmp(argv[i], "--model") == 0 && i + 1 < argc)
            only_model = argv[++i];
        else if (strcmp(argv[i], "--test") == 0 && i + 1 < argc)
            only_test = argv[++i];
        else {
            fprintf(stderr, "usage: weft-sim litmus [-v] [--model M] "
                            "[--test NAME]\n");
            return 2;
        }
    }
    int bad = 0, runs = 0;
    for (size_t i = 0; i < NTESTS; i++) {
        cur = &tests[i];
        if (only_test && strcmp(only_test, cur->name) != 0)
            continue;
        for (int m = 0; m < MODEL_COUNT; m++) {
            if (only_model && strcmp(only_model, sim_model_name(m)) != 0)
                continue;
            for (int naive = 0; naive <= !SIM_GRAPH_MODEL(m); naive++) {
                int rc = run_one(m, naive, verbose);
                if (rc == 2)
                    return 2;
                bad += rc;
                runs++;
            }
        }
        if (verbose)
            printf("     %s: %s\n", cur->name, cur->note);
    }
    printf("litmus: %d of %d runs as expected (%d tests; sc, tso, pso with "
           "and without reduction; arm, c11, c20, c11std)\n",
           runs - bad, runs, only_test ? 1 : (int)NTESTS);
    return bad ? 1 : 0;
}
