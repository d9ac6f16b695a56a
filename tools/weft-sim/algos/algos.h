/* SPDX-License-Identifier: Apache-2.0 */
/* The algorithms weft-sim can load: the shipped deque (src/deque.c built
 * with -DWF_SIM), its mutants, and two references written against the same
 * instrumented atomics.  Every one offers the same owner/thief interface
 * (core/algo.h). */
#ifndef WEFT_SIM_ALGOS_H
#define WEFT_SIM_ALGOS_H

#include "core/algo.h"

/* ---- the list (algos.c) ------------------------------------------------- */
/* NULL-terminated, the shipped deque first. */
const sim_algo *const *sim_algo_list(void);
const sim_algo *sim_algo_find(const char *name);

/* Its entries: the shipped deque and its mutants (mutants.c, ended by a
 * NULL name), the seed's WorkQueue (fjp.c), Chase-Lev (chaselev.c). */
extern const sim_algo sim_algo_weft, sim_algo_fjp, sim_algo_chaselev;
extern const sim_algo sim_weft_mutants[];

/* ---- ad-hoc mutants, --mutate (mutate.c) -------------------------------- */
/* "wf_deque_pop store relaxed \"top\" -> release" */
void sim_override_text(const sim_override *o, char *out, size_t n);
/* Parse FUNC:KIND:ORDER:TEXT:NEW (KIND load|store|cas|xchg|fadd|fence,
 * ORDER and NEW relaxed|acquire|release|acq_rel|seq_cst, NEW also skip,
 * TEXT * for any).  Returns 0 or -1. */
int sim_override_parse(const char *s, sim_override *o, char *err, size_t n);

#endif
