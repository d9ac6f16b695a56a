/* SPDX-License-Identifier: Apache-2.0 */
/* Typed tasks' frames (weft/task.h): per worker, a chain of segments of
 * WF_TASK_SEGMENT frames, used as a stack of stacks.  A typed body that
 * starts on a worker (stolen, run by a slow path, or by WF_RUN) takes the
 * next segment and gives it back when it returns, so it never writes over
 * the frames of the bodies it interrupted; a body whose spawns fill its
 * segment goes on in the next one, and its sync comes back
 * (wf__tsync_slow).  Segments stay allocated, zeroed between uses but for
 * the arguments, until the pool is destroyed.  Only the worker's own
 * thread touches them, and a frame it has published reaches a thief with
 * the deque's release and acquire (P1-P6). */
#include <string.h>

#include "internal/pool.h"

struct wf__tseg {
    WF__ALIGNAS(64) struct wf__tseg *prev, *next;
    wf__tslot *end;
    void *raw; /* what the allocator returned */
    wf__tslot slots[WF_TASK_SEGMENT];
};

/* Allocate the segment after prev (NULL: the first); abort without
 * memory, since a spawn has no error to return. */
static struct wf__tseg *tseg_new(wf__worker *w, struct wf__tseg *prev)
{
    void *raw;
    struct wf__tseg *g = wf__alloc_aligned(&w->pool->alloc, sizeof *g, &raw);
    if (g == NULL) {
        fprintf(stderr, "weft: out of memory for %u typed task frames\n",
                (unsigned)WF_TASK_SEGMENT);
        abort();
    }
    memset(g, 0, sizeof *g); /* frames' task fields start at zero */
    g->prev = prev;
    g->end = g->slots + WF_TASK_SEGMENT;
    g->raw = raw;
    if (prev != NULL)
        prev->next = g;
    else
        w->tfirst = g;
    return g;
}

wf__tslot *wf__tseg_enter(struct wf__fast *f)
{
    wf__worker *w = (wf__worker *)f;
    struct wf__tseg *g = w->tseg ? w->tseg->next : w->tfirst;
    if (g == NULL)
        g = tseg_new(w, w->tseg);
    w->tseg = g;
    f->tend = g->end;
    return g->slots;
}

void wf__tseg_leave(struct wf__fast *f)
{
    wf__worker *w = (wf__worker *)f;
    w->tseg = w->tseg->prev;
    f->tend = w->tseg ? w->tseg->end : NULL;
}

wf__tslot *wf__tseg_first(wf__worker *w)
{
    return w->tseg->slots;
}

wf__tslot *wf__tseg_back(wf__worker *w)
{
    wf__tseg_leave(&w->fast);
    return w->tseg->end - 1;
}

void wf__tseg_destroy(wf__worker *w)
{
    for (struct wf__tseg *g = w->tfirst, *next; g != NULL; g = next) {
        next = g->next;
        wf__free_aligned(&w->pool->alloc, g->raw, sizeof *g);
    }
    w->tfirst = w->tseg = NULL;
}
