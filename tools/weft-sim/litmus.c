/* SPDX-License-Identifier: Apache-2.0 */
/* Litmus tests of the memory machine.
 *
 * Each test is a few threads of loads and stores on x and y, run through
 * the same machine and the same explorer as the deque.  Its set of
 * outcomes under each model is known (Owens, Sarkar, Sewell for x86-TSO;
 * SPARC's PSO for the store-store reordering); a test whose outcome set
 * differs from the expected one, with or without partial-order reduction,
 * fails the suite.  LB's (1,1) and MP without acquire are the behaviours
 * these models cannot produce (no model here reorders loads), which is
 * why the "c11" mutants are out of their reach. */
#include <stdlib.h>
#include <string.h>

#include "explore.h"
#include "litmus.h"

static _Alignas(64) _Atomic int64_t x;
static _Alignas(64) _Atomic int64_t y;
static int64_t r[4];

typedef struct litmus {
    const char *name;
    int nthreads;
    void (*body)(int thread);
    int nregs;
    bool show_mem; /* the outcome includes the final x and y */
    /* allowed outcomes per model, ';'-separated: sc, tso, pso */
    const char *allowed[3];
    const char *note;
} litmus;

/* ---- the tests -------------------------------------------------------- */

static void sb(int t)
{
    if (t == 0) {
        wf_store_relaxed(&x, 1);
        r[0] = wf_load_relaxed(&y);
    } else {
        wf_store_relaxed(&y, 1);
        r[1] = wf_load_relaxed(&x);
    }
}

static void sb_fence(int t)
{
    if (t == 0) {
        wf_store_relaxed(&x, 1);
        wf_fence_seqcst();
        r[0] = wf_load_relaxed(&y);
    } else {
        wf_store_relaxed(&y, 1);
        wf_fence_seqcst();
        r[1] = wf_load_relaxed(&x);
    }
}

static void sb_rmw(int t)
{
    if (t == 0) {
        (void)wf_exchange_seqcst(&x, 1);
        r[0] = wf_load_relaxed(&y);
    } else {
        (void)wf_exchange_seqcst(&y, 1);
        r[1] = wf_load_relaxed(&x);
    }
}

/* SB with a read of one's own store in between: TSO forwards it. */
static void sb_fwd(int t)
{
    if (t == 0) {
        wf_store_relaxed(&x, 1);
        r[0] = wf_load_relaxed(&x);
        r[1] = wf_load_relaxed(&y);
    } else {
        wf_store_relaxed(&y, 1);
        r[2] = wf_load_relaxed(&y);
        r[3] = wf_load_relaxed(&x);
    }
}

static void mp(int t)
{
    if (t == 0) {
        wf_store_relaxed(&x, 1);
        wf_store_relaxed(&y, 1);
    } else {
        r[0] = wf_load_relaxed(&y);
        r[1] = wf_load_relaxed(&x);
    }
}

static void mp_rel(int t)
{
    if (t == 0) {
        wf_store_relaxed(&x, 1);
        wf_store_release(&y, 1);
    } else {
        r[0] = wf_load_acquire(&y);
        r[1] = wf_load_relaxed(&x);
    }
}

static void mp_fence(int t)
{
    if (t == 0) {
        wf_store_relaxed(&x, 1);
        wf_fence_release();
        wf_store_relaxed(&y, 1);
    } else {
        r[0] = wf_load_relaxed(&y);
        wf_fence_acquire();
        r[1] = wf_load_relaxed(&x);
    }
}

static void lb(int t)
{
    if (t == 0) {
        r[0] = wf_load_relaxed(&x);
        wf_store_relaxed(&y, 1);
    } else {
        r[1] = wf_load_relaxed(&y);
        wf_store_relaxed(&x, 1);
    }
}

static void w22(int t)
{
    if (t == 0) {
        wf_store_relaxed(&x, 1);
        wf_store_relaxed(&y, 2);
    } else {
        wf_store_relaxed(&y, 1);
        wf_store_relaxed(&x, 2);
    }
}

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

static void iriw(int t)
{
    switch (t) {
    case 0:
        wf_store_relaxed(&x, 1);
        break;
    case 1:
        wf_store_relaxed(&y, 1);
        break;
    case 2:
        r[0] = wf_load_acquire(&x);
        r[1] = wf_load_acquire(&y);
        break;
    default:
        r[2] = wf_load_acquire(&y);
        r[3] = wf_load_acquire(&x);
    }
}

#define SB_SC "r0=0 r1=1;r0=1 r1=0;r0=1 r1=1"
#define SB_WEAK SB_SC ";r0=0 r1=0"
#define MP_SC "r0=0 r1=0;r0=0 r1=1;r0=1 r1=1"
#define FWD_SC "r0=1 r1=0 r2=1 r3=1;r0=1 r1=1 r2=1 r3=0;r0=1 r1=1 r2=1 r3=1"
#define W22_SC "x=1 y=2;x=2 y=1;x=2 y=2"
#define CORR "r0=0 r1=0;r0=0 r1=1;r0=0 r1=2;r0=1 r1=1;r0=1 r1=2;r0=2 r1=2"
#define LB_ALL "r0=0 r1=0;r0=0 r1=1;r0=1 r1=0"

static const litmus tests[] = {
    {"SB", 2, sb, 2, false, {SB_SC, SB_WEAK, SB_WEAK},
     "store buffering: both loads pass the other's buffered store"},
    {"SB+mfences", 2, sb_fence, 2, false, {SB_SC, SB_SC, SB_SC},
     "a seq_cst fence (mfence) between store and load forbids 0,0"},
    {"SB+rmws", 2, sb_rmw, 2, false, {SB_SC, SB_SC, SB_SC},
     "a locked RMW drains the buffer like mfence"},
    {"SB+fwd", 2, sb_fwd, 4, false,
     {FWD_SC, FWD_SC ";r0=1 r1=0 r2=1 r3=0", FWD_SC ";r0=1 r1=0 r2=1 r3=0"},
     "a thread reads its own buffered store early (TSO's n6)"},
    {"MP", 2, mp, 2, false, {MP_SC, MP_SC, MP_SC ";r0=1 r1=0"},
     "message passing: only PSO lets y's store overtake x's"},
    {"MP+rel+acq", 2, mp_rel, 2, false, {MP_SC, MP_SC, MP_SC},
     "a release store of y waits for x's store under PSO"},
    {"MP+fences", 2, mp_fence, 2, false, {MP_SC, MP_SC, MP_SC},
     "a release fence orders the stores under PSO"},
    {"LB", 2, lb, 2, false, {LB_ALL, LB_ALL, LB_ALL},
     "load buffering: 1,1 needs a load to be delayed past a later store, "
     "which none of these models does (ARM and POWER allow it)"},
    {"2+2W", 2, w22, 0, true, {W22_SC, W22_SC, W22_SC ";x=1 y=1"},
     "two writes each: only PSO reorders a thread's stores"},
    {"CoRR", 2, corr, 2, false, {CORR, CORR, CORR},
     "coherence: a later read never sees an older store of the location"},
    {"IRIW+acqs", 4, iriw, 4, false, {NULL, NULL, NULL},
     "independent reads of independent writes: all three models are "
     "multi-copy atomic, so readers never disagree on the order"},
};

/* ---- running one test --------------------------------------------------- */

static const litmus *cur;

static void setup(const explore_job *job)
{
    (void)job;
    wf_store_relaxed(&x, 0); /* direct mode: no step */
    wf_store_relaxed(&y, 0);
    memset(r, 0, sizeof r);
    sim_register_name(&x, "x");
    sim_register_name(&y, "y");
    for (int t = 0; t < cur->nthreads; t++)
        sim_add_op(t, (sim_op){.kind = OP_CALL, .call = cur->body});
}

static void outcome(char *buf, size_t n)
{
    size_t k = 0;
    buf[0] = 0;
    for (int i = 0; i < cur->nregs && k < n; i++)
        k += (size_t)snprintf(buf + k, n - k, "%sr%d=%lld", i ? " " : "", i,
                              (long long)r[i]);
    if (cur->show_mem && k < n)
        snprintf(buf + k, n - k, "x=%lld y=%lld",
                 (long long)sim_mem_read(&x), (long long)sim_mem_read(&y));
}

/* The expected set as a sorted array; IRIW's is generated: every outcome
 * but the one where the readers disagree. */
static int expected(const litmus *t, int model, char out[][64], int max)
{
    int n = 0;
    if (!t->allowed[model]) {
        for (int v = 0; v < 16 && n < max; v++)
            if (v != 0xA) /* r0=1 r1=0 r2=1 r3=0 */
                snprintf(out[n++], 64, "r0=%d r1=%d r2=%d r3=%d", v >> 3 & 1,
                         v >> 2 & 1, v >> 1 & 1, v & 1);
    } else {
        const char *p = t->allowed[model];
        while (*p && n < max) {
            size_t k = strcspn(p, ";");
            snprintf(out[n++], 64, "%.*s", (int)k, p);
            p += k + (p[k] == ';');
        }
    }
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

int litmus_main(int argc, char **argv)
{
    bool verbose = argc > 0 && strcmp(argv[0], "-v") == 0;
    static const char *const mn[] = {"sc", "tso", "pso"};
    int bad = 0, runs = 0;
    for (size_t i = 0; i < sizeof tests / sizeof *tests; i++) {
        cur = &tests[i];
        for (int m = MODEL_SC; m <= MODEL_PSO; m++) {
            char exp[32][64];
            int ne = expected(cur, m, exp, 32);
            for (int naive = 0; naive <= 1; naive++) {
                explore_job job = {.model = m, .nthreads = cur->nthreads,
                                   .setup = setup, .outcome = outcome,
                                   .collect_outcomes = true,
                                   .preemptions = -1, .naive = naive};
                explore_result res;
                if (explore_run(&job, &res) != 0)
                    return 2;
                bool ok = res.exhausted && same_set(exp, ne, &res);
                runs++;
                if (!ok || verbose) {
                    printf("%s %-10s %-3s %-7s %d outcomes, %ld executions\n",
                           ok ? "ok  " : "FAIL", cur->name, mn[m],
                           naive ? "full" : "reduced", res.noutcomes,
                           res.execs);
                    for (int k = 0; !ok && k < res.noutcomes; k++)
                        printf("       got      %s\n", res.outcomes[k]);
                    for (int k = 0; !ok && k < ne; k++)
                        printf("       expected %s\n", exp[k]);
                }
                bad += !ok;
                explore_result_free(&res);
            }
        }
        if (verbose)
            printf("     %s: %s\n", cur->name, cur->note);
    }
    printf("litmus: %d of %d runs as expected (%zu tests x 3 models x "
           "reduced/full search)\n", runs - bad, runs,
           sizeof tests / sizeof *tests);
    return bad ? 1 : 0;
}
