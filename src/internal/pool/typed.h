/* SPDX-License-Identifier: Apache-2.0 */
/* Typed tasks' frames (src/pool/typed.c): each worker's segments of
 * frames, and the marks debug mode gives them.  The spawn and sync fast
 * paths are inline in weft/task.h; the sync's slow paths are in
 * src/pool/join.c.  Never installed. */
#ifndef WF_INTERNAL_POOL_TYPED_H
#define WF_INTERNAL_POOL_TYPED_H

#include "internal/pool/types.h"

/* A frame's flags_ (beside the task flags of types.h): 8u is
 * WF__TSLOT_SLOW (weft/task.h).  In debug mode a private frame carries it
 * too, with one of these, so that every sync takes the slow path and is
 * checked there: */
#define WF__TSLOT_CHECK 16u /* spawned and not synced */
#define WF__TSLOT_FREE 32u  /* no spawn pending */

/* Is s the first frame of a segment entered because the one before was
 * full (a frame never published)? */
bool wf__tseg_overflow_first(wf__worker *w, wf__tslot *s);
void wf__tseg_destroy(wf__worker *w);
/* The mark of w's private frames between uses: none, or in debug mode
 * WF__TSLOT_FREE (with WF__TSLOT_SLOW). */
static inline unsigned wf__tslot_idle_mark(const wf__worker *w)
{
    return w->pool->debug ? WF__TSLOT_SLOW | WF__TSLOT_FREE : 0;
}
/* The mark of w's private frames spawned and not synced: none, or in
 * debug mode WF__TSLOT_CHECK (with WF__TSLOT_SLOW). */
static inline unsigned wf__tslot_live_mark(const wf__worker *w)
{
    return w->pool->debug ? WF__TSLOT_SLOW | WF__TSLOT_CHECK : 0;
}

#endif /* WF_INTERNAL_POOL_TYPED_H */
