/* SPDX-License-Identifier: Apache-2.0 */
/* The search over interleavings, for sc, tso and pso (dpor.c; the method
 * is explore.h's). */
#ifndef WEFT_SIM_DPOR_H
#define WEFT_SIM_DPOR_H

#include "search/explore.h"

/* Returns 0, or -1 when the job cannot run. */
int explore_dpor(const explore_job *job, explore_result *res);

#endif
