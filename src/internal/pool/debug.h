/* SPDX-License-Identifier: Apache-2.0 */
/* Debug mode (src/pool/debug.c): WEFT_DEBUG, read once, and the check
 * that a task body joined what it spawned.  Never installed. */
#ifndef WF_INTERNAL_POOL_DEBUG_H
#define WF_INTERNAL_POOL_DEBUG_H

#include "internal/pool/types.h"

/* Debug mode: WEFT_DEBUG, read once. */
bool wf__debug(void);
/* The newest private task of w, or NULL: what a body about to run finds
 * (debug mode). */
wf_task *wf__debug_top(wf__worker *w);
/* A task body or wf_run's function (body) returned on w, whose newest
 * private task was `top` when it began: abort, saying so, if it left a
 * task it spawned unjoined on w's private stack (debug mode).  floor: the
 * frame of the caller of body (__builtin_frame_address(0)). */
void wf__debug_frame_exit(wf__worker *w, wf_task *top, const void *body,
                          const void *floor);

#endif /* WF_INTERNAL_POOL_DEBUG_H */
