/* SPDX-License-Identifier: Apache-2.0 */
/* Typed tasks' frames (weft/task.h): per worker, one reservation of
 * address space cut into segments of WF_TASK_SEGMENT frames, used as a
 * stack of stacks.  A typed body that starts on a worker (stolen, run by
 * a slow path, or by WF_RUN) takes the next segment and gives it back
 * when it returns, so it never writes over the frames of the bodies it
 * interrupted; a body whose spawns fill its segment goes on in the next
 * one, which starts where the full one ends, and its sync comes back
 * (wf__tsync_slow, in join.c).  So no slow path moves a body's frame
 * top: the compiler can see a body's top come back to its first frame,
 * and the implicit sync at a body's end (wf__tsync_rest) costs nothing
 * where the spawns and syncs pair up.
 *
 * The frames of the segment in use from tbp up to the body's frame top
 * (a register of the body, not stored) are private: they are this
 * worker's private stack for typed tasks, as [bp, sp) is for wf_spawn's.
 * A thief's request (tlimit NULL, P2) makes the next typed spawn publish
 * the older half of them: a pointer to each frame's task goes to the
 * deque (its release publishes the frames' contents) and tbp moves past
 * them.  Frames below tbp are the thieves' to take; their syncs wait as
 * wf_join does.  A segment that fills is published whole before the next
 * one is taken, so no frame is left private in a segment that is not in
 * use.  The reservation is mapped when the worker first runs a typed body
 * and unmapped with the pool; like a thread's stack, it holds memory only
 * where frames were written.  Frames' task fields are zero between uses
 * but owner_, which holds the worker (a typed body needs only its frame
 * top to reach it), and the marks in flags_: WF__TSLOT_SLOW, which a
 * frame carries from its publication (or, the first of a segment entered
 * on overflow, from its spawn) to its sync's slow path, and in debug mode
 * WF__TSLOT_CHECK or WF__TSLOT_FREE (internal/pool/typed.h).  Only the
 * worker's own thread touches them but for the frames it has published. */
#include <string.h>
#include <sys/mman.h>

#include "internal/pool/notify.h"
#include "internal/pool/request.h"
#include "internal/pool/stack.h"
#include "internal/pool/thunk.h"
#include "internal/pool/typed.h"

/* Segments in a worker's reservation: as deep as typed bodies may nest
 * on one worker (each steal taken while a sync waits is one level) plus
 * the segments that deep spawning fills. */
#define TSEGS (UINTPTR_MAX > 0xffffffffu ? 2048u : 32u)

/* What a segment keeps while a newer one is in use. */
struct tseg_saved {
    wf__tslot *tbp;
    bool overflow; /* entered by a spawn that filled the one before */
};

struct wf__tstack {
    size_t bytes; /* mapped */
    struct tseg_saved saved[TSEGS];
    /* The frame before the first: a sync with nothing spawned in the
     * first segment reads its mark. */
    wf__tslot guard;
    /* The segments, and past them one frame that is never filled: a
     * spawn into a full segment reads its owner (WF__TSLOT_WORKER) before
     * its test. */
    wf__tslot slots[(size_t)TSEGS * WF_TASK_SEGMENT + 1];
};

static wf__tslot *seg_first(const wf__worker *w, unsigned k)
{
    return w->tstack->slots + (size_t)k * WF_TASK_SEGMENT;
}

/* Map w's reservation; abort without address space, since a spawn has no
 * error to return. */
static void tstack_map(wf__worker *w)
{
    size_t bytes = sizeof(struct wf__tstack);
    void *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) {
        fprintf(stderr,
                "weft: cannot map %zu bytes of address space for typed "
                "task frames\n",
                bytes);
        abort();
    }
    w->tstack = m; /* zero, as a fresh mapping is */
    w->tstack->bytes = bytes;
    w->tstack->guard.task.flags_ = wf__tslot_idle_mark(w);
    w->tready = 0;
}

/* Make segments up to k ready (every frame's owner and mark set), and the
 * frame past k's end, which a spawn reads before its test. */
static void tseg_ready(wf__worker *w, unsigned k)
{
    for (; w->tready <= k; w->tready++) {
        wf__tslot *s = seg_first(w, w->tready);
        for (size_t i = 0; i < WF_TASK_SEGMENT; i++) {
            s[i].task.owner_ = &w->fast;
            s[i].task.flags_ = wf__tslot_idle_mark(w);
        }
    }
    if (w->tready == k + 1) { /* the next segment is not ready yet */
        wf__tslot *past = seg_first(w, k + 1);
        past->task.owner_ = &w->fast;
        past->task.flags_ = wf__tslot_idle_mark(w);
    }
}

/* Work in segment k (tdepth k + 1): its end, its tbp, and what tlimit is
 * when no thief asks: the end, or in debug mode the first frame of all,
 * so that every spawn takes the slow path and marks its frame. */
static void tseg_use(wf__worker *w, unsigned k, wf__tslot *tbp)
{
    w->tdepth = k + 1;
    w->tend = seg_first(w, k) + WF_TASK_SEGMENT;
    w->tbp = tbp;
    w->tstop = w->pool->debug ? w->tstack->slots : w->tend;
    /* P9: tlimit to the new stop, a pending request kept (request.h). */
    wf__request_set_tlimit(&w->fast.tlimit, w->tstop);
}

/* Take the next segment.  One entered on overflow keeps its first frame
 * out of tbp's reach, never published: its sync comes back to the
 * segment before (wf__tsync_slow). */
static wf__tslot *tseg_next(wf__worker *w, bool overflow)
{
    if (w->tstack == NULL)
        tstack_map(w);
    unsigned k = w->tdepth;
    if (k == TSEGS) {
        fprintf(stderr,
                "weft: typed tasks nested %u segments deep on one worker "
                "(%u frames each)\n",
                TSEGS, (unsigned)WF_TASK_SEGMENT);
        abort();
    }
    if (k > 0)
        w->tstack->saved[k - 1].tbp = w->tbp;
    tseg_ready(w, k);
    w->tstack->saved[k].overflow = overflow;
    tseg_use(w, k, seg_first(w, k) + overflow);
    return seg_first(w, k);
}

wf__tslot *wf__tseg_enter(struct wf__fast *f)
{
    return tseg_next((wf__worker *)f, false);
}

void wf__tseg_leave(struct wf__fast *f)
{
    wf__worker *w = (wf__worker *)f;
    unsigned k = --w->tdepth;
    if (k > 0)
        tseg_use(w, k - 1, w->tstack->saved[k - 1].tbp);
    else /* no typed body runs: tlimit is not read */
        w->tend = w->tbp = w->tstop = NULL;
}

bool wf__tseg_overflow_first(wf__worker *w, wf__tslot *s)
{
    unsigned k = w->tdepth - 1;
    return s == seg_first(w, k) && w->tstack->saved[k].overflow;
}

void wf__tseg_destroy(wf__worker *w)
{
    if (w->tstack != NULL)
        munmap(w->tstack, w->tstack->bytes);
    w->tstack = NULL;
    w->tdepth = 0;
}

/* Publish the k frames from tbp on (P2, P6: the oldest first), and wake
 * a sleeper.  On allocation failure they stay private. */
static void publish_frames(wf__worker *w, size_t k)
{
    wf__tslot *s = w->tbp;
    void *batch[64];
    size_t done = 0;
    while (done < k) {
        size_t n = k - done < 64 ? k - done : 64;
        for (size_t i = 0; i < n; i++) {
            /* Its sync now takes the slow path; the push's release
             * publishes the mark with the frame. */
            s[done + i].task.flags_ = WF__TSLOT_SLOW;
            batch[i] = &s[done + i].task;
        }
        if (wf_deque_push_n(&w->deque, batch, n) != 0) {
            for (size_t i = 0; i < n; i++) /* no memory: these stay private */
                s[done + i].task.flags_ = wf__tslot_live_mark(w);
            break;
        }
        done += n;
    }
    if (done == 0)
        return;
    w->tbp = s + done;
    /* A typed spawn is counted when it is published: one its own sync
     * calls was a function call, and counting it would cost every spawn
     * a store. */
    wf_store_relaxed(&w->stats.spawns,
                     wf_load_relaxed(&w->stats.spawns) + done);
    wf_counter_inc(&w->stats.publishes); /* owner-only (P4) */
    wf__wake_one(w->pool, w);
}

#ifdef WF__HAVE_THUNKS /* internal/pool/thunk.h */
THUNK(wf__tspawn_thunk, wf__tspawn_slow);
#endif

void wf__tspawn_slow(wf__tslot *s)
{
    wf__worker *w = (wf__worker *)WF__TSLOT_WORKER(s);
    if (s >= w->tend) { /* full: publish what is left, go on in the next */
        publish_frames(w, (size_t)(s - w->tbp));
        tseg_next(w, true);              /* whose first frame is s */
        s->task.flags_ = WF__TSLOT_SLOW; /* its sync goes back (tbp too) */
    } else {
        s->task.flags_ = wf__tslot_live_mark(w);
    }
    /* A request is taken only with a frame to answer it (the asker may be
     * parked, and only a publish wakes it); the spawn after this one has
     * one. */
    size_t priv = s > w->tbp ? (size_t)(s - w->tbp) : 0;
    /* Relaxed: hints, read first so that no request costs no RMW. */
    if (priv > 0 && wf__request_seen(&w->fast.limit, &w->fast.tlimit) &&
        wf__take_request(&w->fast))
        publish_frames(w, (priv + 1) / 2);
}
