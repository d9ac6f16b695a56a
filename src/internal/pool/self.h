/* SPDX-License-Identifier: Apache-2.0 */
/* Who this thread is (src/pool/self.c): the pool's lowest floor.  The
 * identity itself (wf__self, wf__no_worker, wf__current) is declared in
 * weft/pool.h and internal/pool_hooks.h; here, what only the pool reads.
 * Never installed. */
#ifndef WF_INTERNAL_POOL_SELF_H
#define WF_INTERNAL_POOL_SELF_H

#include "internal/pool/types.h"

/* How many fork()s this process is away from the one that made a pool
 * with a smaller generation: such a pool's threads are not here. */
extern unsigned wf__fork_gen;

#endif /* WF_INTERNAL_POOL_SELF_H */
