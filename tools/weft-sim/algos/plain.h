/* SPDX-License-Identifier: Apache-2.0 */
/* A protocol scenario's own data (rounds.c, scanfront.c, tracestep.c):
 * what the library's code publishes or reads around its atomics, a
 * body's datum, a prefix, an event.  Plain accesses under the graph
 * models (arm, c11, c20, c11std), so that a read the protocol leaves
 * unordered is reported as a data race; relaxed atomics under sc, tso and
 * pso, whose stale reads the scenario's checks then see. */
#ifndef WEFT_SIM_PLAIN_H
#define WEFT_SIM_PLAIN_H

#include <stdint.h>

#include "core/access.h"
#include "core/sim.h"
#include "internal/atomic.h"

static inline int64_t plain_read(_Atomic int64_t *p)
{
    return SIM_GRAPH_MODEL(S.model) ? (int64_t)sim_plain_load(p)
                                    : wf_load_relaxed(p);
}

static inline void plain_write(_Atomic int64_t *p, int64_t v)
{
    if (SIM_GRAPH_MODEL(S.model))
        sim_plain_store(p, (uint64_t)v);
    else
        wf_store_relaxed(p, v);
}

#endif /* WEFT_SIM_PLAIN_H */
