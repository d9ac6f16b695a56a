/* SPDX-License-Identifier: Apache-2.0 */
/* The pool's event counts (src/pool/evcount.c, compiled unchanged) under
 * the explorer: the protocols of rules P3 and P8 of docs/protocols.md, as
 * scenarios (`protocol p3` in a scenario file, evcount.c). */
#ifndef WEFT_SIM_EVCOUNT_H
#define WEFT_SIM_EVCOUNT_H

#include "search/explore.h"

/* Who runs what against the event counts, and the check that no wake-up
 * was lost.  Thread 0 ("owner") makes the change and wakes; the others
 * sleep or wait. */
typedef struct sim_protocol {
    const char *name;
    const char *desc;
    int nthreads;
    void (*setup)(const explore_job *);
    void (*final)(void);
    void (*outcome)(char *buf, size_t n);
} sim_protocol;

/* NULL-terminated. */
extern const sim_protocol *const sim_protocols[];
const sim_protocol *sim_protocol_find(const char *name);

#endif
