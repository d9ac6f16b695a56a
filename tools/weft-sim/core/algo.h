/* SPDX-License-Identifier: Apache-2.0 */
/* What an algorithm gives the simulator (its owner/thief operations and a
 * mutant's overrides), and what the simulator offers it: memory from the
 * arena, its rings and its deque fields registered (memory.h, access.h),
 * and bounded retry loops.  The algorithms themselves are in algos/. */
#ifndef WEFT_SIM_ALGO_H
#define WEFT_SIM_ALGO_H

#include "core/access.h"
#include "core/memory.h"
#include "core/sim.h"

/* A mutant weakens one access of the unchanged source: the access of kind
 * `kind` with order `order` in function `func` whose address expression
 * contains `expr` (NULL: any) runs with `new_order`, or is skipped when
 * new_order is -1 (fences). */
typedef struct sim_override {
    const char *func;
    int kind;
    int order;
    const char *expr;
    int new_order;
} sim_override;

struct sim_algo {
    const char *name;
    /* The model expected to catch it: "sc", "tso", "pso", "arm" or
     * "c11" (each weaker model catches it too, but arm and c11 are not
     * ordered: a c11 mutant may be correct on ARMv8); "-": correct under
     * every model (the shipped deque, or an order none of them needs). */
    const char *catch_model;
    const char *desc;
    /* Direct-mode setup and teardown (run outside any simulated thread). */
    int (*init)(int capacity);
    void (*destroy)(void);
    int (*push)(void *x);
    /* Several tasks at once (wf_deque_push_n), or NULL. */
    int (*push_n)(void *const *xs, size_t n);
    void *(*pop)(void);
    int (*poll)(void **out); /* WF_POLL_EMPTY / TAKEN / RETRY */
    const sim_override *ovr; /* NULL-terminated by func == NULL, or NULL */
};

/* How many accesses each override of the loaded algorithm changed (or
 * removed) since the counts were last cleared: a mutant whose override
 * changes nothing is the shipped code under another name (access.c). */
#define SIM_MAX_OVERRIDES 8
extern long sim_override_hits[SIM_MAX_OVERRIDES];
/* Reference algorithms count the iterations of their retry loops through
 * this: true while another iteration is allowed.  The explorer bounds
 * spinning so that every execution ends (a poll that gives up returns
 * empty, which never loses a task). */
bool sim_spin_ok(int *iterations);
extern int sim_spin_limit; /* default 2 (threads.c) */

#endif
