/* SPDX-License-Identifier: Apache-2.0 */
/* weft-sim isa: for every atomic access in src/deque.c, the x86-64 and
 * ARM64 instruction weft-sim prints for it in its log (the C11 mapping of
 * Sewell et al.'s "C/C++11 mappings to processors" table), so that a test
 * can hold it against what compilers emit (tests/sim/isa_check.sh).
 *
 * The accesses are collected by running the shipped deque through
 * scenarios that take every path (growth, push_n, pop's empty, last and
 * plain cases, poll's empty, retry and taken cases) and its set-up and
 * teardown; each site (line, kind, order) is listed once. */
#include <stdlib.h>
#include <string.h>

#include "algos/scenario.h"
#include "algos/weft_deque.h"
#include "core/threads.h"
#include "ui/describe.h"
#include "ui/isa.h"
#include "weft/deque.h"

#define MAX_SITES 64

typedef struct site {
    const char *file, *func;
    int line, kind, order;
} site;

static site sites[MAX_SITES];
static int nsites;

static void collect(const sim_access *a)
{
    const char *f = a->site.file;
    size_t n = strlen(f);
    if (n < 7 || strcmp(f + n - 7, "deque.c") != 0 ||
        (n > 7 && f[n - 8] != '/'))
        return; /* deque.c itself, not the simulator's files */
    for (int i = 0; i < nsites; i++)
        if (sites[i].line == a->site.line && sites[i].kind == a->kind &&
            sites[i].order == a->order)
            return;
    if (nsites < MAX_SITES)
        sites[nsites++] =
            (site){f, a->site.func, a->site.line, a->kind, a->order};
}

static int by_line(const void *x, const void *y)
{
    const site *a = x, *b = y;
    return a->line != b->line ? a->line - b->line : a->kind - b->kind;
}

static const char *const kinds[] = {"load", "store", "cas",
                                    "xchg", "fadd",  "fence"};

static void run(const char *owner, int thieves, int polls)
{
    scenario sc;
    char err[128];
    scenario_defaults(&sc);
    scenario_set(&sc, "owner", owner, err, sizeof err);
    sc.thieves = thieves;
    sc.polls = polls;
    explore_job job;
    explore_result res;
    scenario_job(&sc, &job);
    explore_run(&job, &res);
    explore_result_free(&res);
}

int cmd_isa(void)
{
    sim_site_hook = collect;
    run("push push push pop pop pop pop", 1, 2);
    run("push2 pop pop", 1, 1);
    run("push pop", 0, 1);
    (void)wf_deque_size(&sim_weft_dq); /* direct mode: its loads too */
    sim_reset(NULL, MODEL_SC, 1, 2);   /* tears the deque down */
    sim_site_hook = NULL;
    qsort(sites, (size_t)nsites, sizeof *sites, by_line);
    for (int i = 0; i < nsites; i++) {
        const site *s = &sites[i];
        printf("deque.c:%d %s %s %s | x86-64: %s | ARM64: %s\n", s->line,
               s->func, kinds[s->kind], sim_order_name(s->order),
               describe_x86(s->kind, s->order),
               describe_arm64(s->kind, s->order));
    }
    return nsites ? 0 : 1;
}
