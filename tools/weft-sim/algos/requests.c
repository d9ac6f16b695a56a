/* SPDX-License-Identifier: Apache-2.0 */
/* A thief's request to a typed body's worker (rules P2 and P9 of
 * docs/protocols.md) on the library's own code: the steps on the two
 * request words, src/internal/pool/request.h (wf__request_ask_limit,
 * _ask_tlimit, _set_tlimit, _seen, _take_limit, _take_tlimit), and the
 * deque's push, compiled unchanged with -DWF_SIM.  They are driven as
 * stack.c (wf__ask_for_work, wf__take_request), typed.c (tseg_use's
 * wf__request_set_tlimit, wf__tspawn_slow, publish_frames) and the typed spawn's
 * test (WF__TSPAWN_CHECK in include/weft/detail/task.h: a relaxed load
 * of tlimit, one compare) drive them:
 *
 *   p9-request  owner: a typed body enters a segment (wf__request_set_tlimit to its
 *               end), then spawns three frames: each tests its frame
 *               against tlimit; at or past it (NULL: a request), the slow
 *               path takes the request if a private frame is there to
 *               give (wf__request_seen, then wf__take_request's
 *               exchanges) and publishes the older half (wf_deque_push_n).
 *               T1, a thief, asks: NULL in limit, then in tlimit
 *               (wf__ask_for_work).
 *
 * The request is never lost: at the end the owner has published, or
 * tlimit is NULL, so that its next typed spawn takes the slow path.  A
 * NULL left in limit alone does not count: a typed spawn tests tlimit
 * only. */
#include <string.h>

#include "algos/evcount.h"
#include "algos/weft_deque.h"
#include "core/threads.h"
#include "weft/task.h"

#include "internal/pool/request.h"

#define FRAMES 3 /* the owner's spawns */

static struct wf__fast fast;         /* the owner's request words */
static wf_task *stack[4];            /* [bp, end): only end is used */
static wf__tslot frames[FRAMES + 2]; /* the segment, and a stop past it */
static wf__tslot *tbp;               /* the oldest private frame */
static wf__tslot *const tstop = &frames[FRAMES]; /* the segment's end */
static int published, spawned_slow; /* frames pushed; slow spawns */
static wf__tslot *end_tlimit;       /* the words at the end (final) */
static wf_task **end_limit;

/* wf__take_request (stack.c), on request.h's steps. */
static bool take_request(void)
{
    bool asked = wf__request_take_limit(&fast.limit, fast.end);
    asked |= wf__request_take_tlimit(&fast.tlimit, tstop);
    return asked;
}

/* publish_frames (typed.c): the oldest k private frames to the deque. */
static void publish_frames(size_t k)
{
    void *batch[FRAMES];
    for (size_t i = 0; i < k; i++)
        batch[i] = &tbp[i].task;
    if (wf_deque_push_n(&sim_weft_dq, batch, k) != 0) {
        sim_failf("the push of %zu frames failed", k);
        return;
    }
    tbp += k;
    published += (int)k;
}

/* The typed spawn into frame s: its test, and wf__tspawn_slow (the
 * segment never fills here). */
static void spawn(wf__tslot *s)
{
    if ((uintptr_t)s < (uintptr_t)wf_load_relaxed(&fast.tlimit))
        return; /* fast path: fill the frame, nothing shared */
    spawned_slow++;
    size_t priv = s > tbp ? (size_t)(s - tbp) : 0;
    if (priv > 0 && wf__request_seen(&fast.limit, &fast.tlimit) &&
        take_request())
        publish_frames((priv + 1) / 2);
}

static void owner(int t)
{
    (void)t;
    wf__request_set_tlimit(&fast.tlimit, tstop); /* tseg_use */
    for (int i = 0; i < FRAMES && !S.fail[0]; i++)
        spawn(&frames[i]);
}

/* wf__ask_for_work. */
static void thief(int t)
{
    (void)t;
    wf__request_ask_limit(&fast.limit);
    wf__request_ask_tlimit(&fast.tlimit);
}

static void setup_request(const explore_job *job)
{
    (void)job;
    memset(&fast, 0, sizeof fast);
    fast.end = stack + 4;
    /* Before the body: what tlimit held (wf__stack_init: the stack's end;
     * here the slot past the stop, not NULL, which is a request). */
    wf_store_relaxed(&fast.limit, fast.end);
    wf_store_relaxed(&fast.tlimit, &frames[FRAMES + 1]);
    tbp = frames;
    published = spawned_slow = 0;
    sim_register_name(&fast.limit, "limit");
    sim_register_name(&fast.tlimit, "tlimit");
    sim_add_op(0, (sim_op){.kind = OP_CALL, .call = owner});
    sim_add_op(1, (sim_op){.kind = OP_CALL, .call = thief});
}

/* The request answered, or left in tlimit for the next spawn. */
static void final(void)
{
    wf__tslot *tl = end_tlimit = wf_load_relaxed(&fast.tlimit);
    end_limit = wf_load_relaxed(&fast.limit);
    if (published == 0 && tl != NULL)
        sim_failf("lost request: T1 asked, the owner published nothing and "
                  "tlimit ends at %s, not NULL: its next typed spawn takes "
                  "the fast path",
                  tl == tstop ? "the segment's end" : "its old value");
}

static void outcome(char *buf, size_t n)
{
    wf__tslot *tl = end_tlimit;
    wf_task **l = end_limit;
    snprintf(buf, n,
             "owner: %d slow spawn%s, published %d | tlimit %s, "
             "limit %s",
             spawned_slow, spawned_slow == 1 ? "" : "s", published,
             tl == NULL    ? "NULL"
             : tl == tstop ? "stop"
                           : "old",
             l == NULL ? "NULL" : "end");
}

const sim_protocol sim_proto_p9_request = {
    "p9-request",
    "a thief asks (NULL in limit and tlimit) while the owner enters a "
    "segment (wf__request_set_tlimit) and makes three typed spawns, which take "
    "the "
    "request and publish",
    2,
    setup_request,
    final,
    outcome,
    "no request is lost: the owner publishes, or tlimit ends NULL"};
