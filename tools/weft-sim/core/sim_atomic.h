/* SPDX-License-Identifier: Apache-2.0 */
/* weft-sim's side of the library's simulator hook.
 *
 * src/internal/sim_hook.h declares the functions every atomic access of a
 * -DWF_SIM build calls (access.c implements them) and maps
 * atomic.h's names onto them; src/deque.c is compiled that way.  This file
 * adds the few orders that only weft-sim's reference algorithms and litmus
 * tests use. */
#ifndef WF_SIM_ATOMIC_H
#define WF_SIM_ATOMIC_H

#include "internal/sim_hook.h"

/* ---- extra names: OpenJDK's WorkQueue (fjp.c) and the litmus tests need
 * seq_cst loads, stores and exchanges and the one-sided fences. -------- */
#define wf_store_seqcst(p, v) WF__SIM_STORE(p, v, WF_SIM_SEQ_CST)
#define wf_exchange_seqcst(p, v) WF__SIM_RMW(wf__sim_xchg, p, v, WF_SIM_SEQ_CST)
#define wf_fence_release() wf__sim_fence(WF_SIM_RELEASE, WF__SIM_SITE(""))
#define wf_fence_acquire() wf__sim_fence(WF_SIM_ACQUIRE, WF__SIM_SITE(""))

#endif /* WF_SIM_ATOMIC_H */
