/* SPDX-License-Identifier: Apache-2.0 */
/* The algorithms weft-sim can load: the shipped deque (src/deque.c built
 * with -DWF_SIM), its mutants, and two references written against the same
 * instrumented atomics.  Every one offers the same owner/thief interface. */
#ifndef WEFT_SIM_ALGO_H
#define WEFT_SIM_ALGO_H

#include "sim.h"

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
 * changes nothing is the shipped code under another name. */
#define SIM_MAX_OVERRIDES 8
extern long sim_override_hits[SIM_MAX_OVERRIDES];
/* "wf_deque_pop store relaxed \"top\" -> release" */
void sim_override_text(const sim_override *o, char *out, size_t n);
/* Parse FUNC:KIND:ORDER:TEXT:NEW (KIND load|store|cas|xchg|fadd|fence,
 * ORDER and NEW relaxed|acquire|release|acq_rel|seq_cst, NEW also skip,
 * TEXT * for any).  Returns 0 or -1. */
int sim_override_parse(const char *s, sim_override *o, char *err, size_t n);

/* NULL-terminated, the shipped deque first. */
const sim_algo *const *sim_algo_list(void);
const sim_algo *sim_algo_find(const char *name);

/* Adapters (weft.c, fjp.c, chaselev.c, variants.c). */
extern const sim_algo sim_algo_weft, sim_algo_fjp, sim_algo_chaselev;
int sim_weft_init(int capacity);
void sim_weft_destroy(void);
int sim_weft_push(void *x);
int sim_weft_push_n(void *const *xs, size_t n);
void *sim_weft_pop(void);
int sim_weft_poll(void **out);
int sim_weft_poll_cas_first(void **out);
void *sim_weft_pop_oldest(void);

/* Reference algorithms count the iterations of their retry loops through
 * this: true while another iteration is allowed.  The explorer bounds
 * spinning so that every execution ends (a poll that gives up returns
 * empty, which never loses a task). */
bool sim_spin_ok(int *iterations);
extern int sim_spin_limit; /* default 2 */

#endif
