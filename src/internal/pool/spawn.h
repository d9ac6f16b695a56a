/* SPDX-License-Identifier: Apache-2.0 */
/* Spawning on a worker's private stack off the inline fast path
 * (src/pool/spawn.c).  (wf__spawn_detached, which the other components
 * call too, is in pool_hooks.h.)  Never installed. */
#ifndef WF_INTERNAL_POOL_SPAWN_H
#define WF_INTERNAL_POOL_SPAWN_H

#include "internal/pool/types.h"

/* Push t, whose fields are set, on w's private stack: the spawn's slow
 * path (a full stack, or a thief's request to answer).  If no room can be
 * found t runs at once rather than be lost. */
void wf__push_private(wf__worker *w, wf_task *t);

#endif /* WF_INTERNAL_POOL_SPAWN_H */
