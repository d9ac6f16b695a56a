/* SPDX-License-Identifier: Apache-2.0 */
/* A worker thread: its slot's creation and thread, and the loop that
 * finds work when it has none (submissions, then stealing), spins,
 * yields, naps and parks; the same search for a thread that waits for a
 * condition and helps meanwhile, and the lingering of a worker that ran
 * a pipeline token.  Rule numbers refer to docs/protocols.md. */
#include <string.h>

#include "internal/pool/park.h"
#include "internal/pool/runner.h"
#include "internal/pool/spares.h"
#include "internal/pool/stack.h"
#include "internal/pool/steal.h"
#include "internal/pool/worker.h"

/* Allocate and initialise worker `index` (no thread yet).  The caller
 * publishes it by raising nslots. */
int wf__worker_create(wf_pool *p, unsigned index)
{
    void *raw;
    wf__worker *w = wf__alloc_aligned(&p->alloc, sizeof *w, &raw);
    if (w == NULL)
        return WF_ENOMEM;
    memset(w, 0, sizeof *w);
    w->mem = raw;
    w->pool = p;
    w->index = index;
    w->rng = 0x9E3779B97F4A7C15ull * (index + 1);
    w->spare = index >= p->first_spare;
    w->caller = index >= p->n && !w->spare;
    int err = wf__stack_init(w, p->cfg.deque_capacity);
    if (!err && (err = wf_deque_init(&w->deque, p->cfg.deque_capacity,
                                     p->cfg.alloc)) != 0)
        wf__stack_destroy(w);
    if (err) {
        wf__free_aligned(&p->alloc, raw, sizeof *w);
        return err;
    }
    p->workers[index] = w;
    return 0;
}

/* Start w's thread with the pool's stack size. */
int wf__worker_start(wf__worker *w)
{
    pthread_attr_t attr;
    if (pthread_attr_init(&attr) != 0)
        return WF_EAGAIN;
    int err = 0;
    size_t stack = w->pool->cfg.stack_size;
    if (stack && pthread_attr_setstacksize(&attr, stack) != 0)
        err = WF_ERANGE; /* below the system's minimum */
    else if (pthread_create(&w->thread, &attr, wf__worker_main, w) != 0)
        err = WF_EAGAIN;
    else
        w->started = true;
    pthread_attr_destroy(&attr);
    return err;
}

/* A spare (blocking.c) is needed while the spares running do not
 * outnumber the workers blocked; one that is not leaves its loop when
 * this returns true (spares.h's wf__spares_retire: a spare that finds
 * itself needed again after its CAS stays, P12). */
bool wf__spare_should_retire(wf__worker *w)
{
    wf_pool *p = w->pool;
    if (!wf__spares_retire(&p->blocked, &p->spares_running)) /* P12 */
        return false;
    /* Relaxed: spare_slot reuses the slot only after it joined this
     * thread, which orders everything the thread did (P12). */
    wf_store_relaxed(&w->retired, 1);
    return true;
}

void wf__help_until(wf__worker *w, wf__cond_fn done, const void *arg)
{
    wf__idle idle;
    wf__idle_init(&idle, w->pool->spin, WF__YIELDS);
    while (!done(arg)) {
        if (wf__find_and_run(w, true) != WF__RAN_NONE) {
            idle.round = 0;
        } else if (!wf__idle_step(&idle)) {
            wf__wait_park(w, done, arg);
            idle.round = 0;
        }
    }
}

/* The idle policy.  A worker that was idle, stole a detached task (a
 * graph's, as a rule) and ran out of work again within CRUMB_NS got a
 * crumb: less work than the hand-off cost the owner (a publish, often a
 * wake-up) and this thief (a steal, and lines that the owner's next tasks
 * write again), as a stolen task of a fine-grained graph is (a few
 * wavefront cells).  It then naps at once, asking no owner to publish
 * (P2), so that the owners keep such tasks and run them on warm lines;
 * after the nap it spins (asking, P2) for fewer rounds than before and,
 * finding nothing, naps again; it parks (asking, so that the next publish
 * wakes it) only after EMPTY_NAPS such naps in a row.  An owner then
 * answers the napper's requests while it spins, without the futex
 * wake-up that a parked asker costs it.  Each crumb in a row doubles the
 * nap (and halves the spin); any other busy stretch ends the naps.
 * Oversubscribed, napping matters most: a spinning or yielding worker
 * stays runnable and takes its share of a core from the one with work.
 * Joined (fork-join) tasks are not judged: a thief that got a small one
 * usually gets a larger one next, since owners publish their oldest.  Nor
 * are submitted tasks: no owner could have kept those, and a nap would
 * only delay the next submission's start by a wake-up. */
#define CRUMB_NS 50000u
#define NAP_NS 25000u
#define MAX_NAPS 7u /* crumbs counted; the nap is NAP_NS << (naps - 1) */
#define EMPTY_NAPS 3u

/* A spare that is surplus (more threads run than the pool's size) leaves
 * after the task it just ran, once its own tasks are done too: a stream
 * of work would keep it from ever reaching its idle point. */
static bool spare_done(wf__worker *w)
{
    if (!w->spare || !wf__spares_surplus(w->pool))
        return false;
    for (wf_task *t; (t = wf__pop_own(w)) != NULL;)
        wf__run_own(w, t);
    return wf__spare_should_retire(w);
}

void *wf__worker_main(void *arg)
{
    wf__worker *w = arg;
    wf_pool *p = w->pool;
    wf__self = &w->fast;
    unsigned naps = 0, empty = 0;
    wf__idle idle;
    wf__idle_init(&idle, p->spin, WF__YIELDS);
    bool busy = false;  /* in a busy stretch (found work since idle) */
    uint64_t since = 0; /* its start, if it began with a stolen detached
                           task (else 0: it is not judged, no clock read) */
    /* Relaxed: seeing it, the worker only stops (P11). */
    while (!wf_load_relaxed(&p->shutdown)) {
        int r = wf__find_and_run(w, true);
        if (r != WF__RAN_NONE) {
            if (!busy)
                since = r == WF__RAN_STOLEN_DETACHED ? wf__now_ns() : 0;
            busy = true;
            idle.round = 0;
            if (spare_done(w))
                break;
            continue;
        }
        if (busy) { /* the stretch is over: was it a crumb? */
            bool crumb = since != 0 && wf__now_ns() - since < CRUMB_NS;
            naps = !crumb ? 0 : naps < MAX_NAPS ? naps + 1 : naps;
            busy = false;
            empty = 0;
            /* A napper spins less and does not yield (see above). */
            wf__idle_init(&idle, p->spin >> naps, naps ? 0 : WF__YIELDS);
            if (crumb) {
                wf__nap(w, (uint64_t)NAP_NS << (naps - 1));
                continue;
            }
        }
        if (wf__idle_step(&idle)) {
            continue;
        } else if (w->spare && wf__spare_should_retire(w)) {
            break; /* a spare nobody needs any more */
        } else if (naps != 0 && ++empty < EMPTY_NAPS) {
            wf__nap(w, (uint64_t)NAP_NS << (naps - 1));
            idle.round = 0;
        } else {
            wf__park(w);
            idle.round = 0;
        }
    }
    wf__self = &wf__no_worker;
    return NULL;
}

/* ---- lingering after a pipeline token --------------------------------- */

/* A background worker that ran a pipeline token keeps helping for a while
 * before it goes back to its loop (wf__linger): until it has found nothing
 * to do for LINGER_NS, longer than the loop's crumb threshold (CRUMB_NS
 * above), and for LINGER_MAX_NS at most. */
#define LINGER_NS 60000u
#define LINGER_MAX_NS 500000u
#define LINGER_SPIN_NS 10000u /* idle longer: nap between looks, */
#define LINGER_NAP_NS 20000u  /* for this long, woken by no publish */

static _Thread_local bool lingering;

/* A background worker whose token has parked or finished helps the pool
 * here, as its loop would, until it has been idle for LINGER_NS (or has
 * lingered LINGER_MAX_NS).  Its loop naps when a stretch of work that
 * began with a stolen detached task ends within the crumb threshold:
 * right for a fine-grained graph, whose tasks are better left with their
 * owner, but a pipeline's stretches end whenever its one input token runs
 * on another thread, so its workers would nap nearly all the time and the
 * pipeline run on the caller alone.  A stretch that lingered is never that
 * short.  Idle, it spins for LINGER_SPIN_NS, then naps LINGER_NAP_NS at a
 * time: on an oversubscribed machine a spinning helper takes the CPU from
 * the thread whose work it waits for, and yielding does not give it back
 * reliably (docs/pipeline.md).  Its looks poll only deques that look
 * non-empty, asking no owner (P2): tokens are published as they are
 * spawned, but for an input token kept while hand-offs cost more than
 * its items (src/algo/pipeline.c, input_keep), and an idle look then
 * only reads the victims' lines, which their owners keep writing.  The
 * wait is bounded and touches no pipeline state (the pipeline may be
 * gone).  Callers (caller slots) help
 * in wf__help_until already and do not nap; tokens run while lingering do
 * not linger again. */
void wf__linger(void)
{
    wf__worker *w = wf__current();
    if (w == NULL || w->caller || lingering)
        return;
    lingering = true;
    uint64_t start = wf__now_ns(), busy_at = start, now = start;
    bool ran = false;
    for (unsigned i = 1;; i++) {
        bool napping = now - busy_at > LINGER_SPIN_NS;
        if (wf__find_and_run(w, false) != WF__RAN_NONE)
            ran = true;
        else if (napping)
            wf__nap(w, LINGER_NAP_NS); /* leave the CPU to threads with work */
        else
            wf__cpu_relax();
        if (i % 16 != 0 && !napping)
            continue; /* spinning: the clock every 16 looks */
        now = wf__now_ns();
        busy_at = ran ? now : busy_at;
        ran = false;
        if (now - busy_at > LINGER_NS || now - start > LINGER_MAX_NS)
            break;
    }
    lingering = false;
}
