/* SPDX-License-Identifier: Apache-2.0 */
/* The progress engine: the one loop that receives, delivers, completes
 * sends, tells the other ranks of a failure and runs the collectives of
 * wf_mpi_graph_wait_all.
 *
 * MPI offers no wait that sleeps: a blocking MPI_Recv or MPI_Wait in Open
 * MPI polls the progress engine until the message comes (Open MPI's FAQ,
 * "mpi_yield_when_idle").  So the loop polls with MPI_Test, on the oldest
 * of the receives it keeps posted (dispatch.c) and, when a poll finds
 * nothing, it polls again for `poll_spin_us` (yielding the CPU between
 * polls, so that a thread that shares the core runs), then sleeps for
 * 1 us, 2 us, 4 us, ... up to `poll_max_us`: a quiet rank wakes up less
 * and less often, and a rank that was busy a moment ago answers within
 * about the time it has been quiet.  (Waking from a sleep, however short,
 * costs a timer and a context switch; the spin keeps a steady stream of
 * messages clear of them.)  Work that this rank makes itself (a send to
 * post, a collective, a cancel) wakes the loop at once (wake.c).  After
 * wf_mpi_graph_wait_all has found the whole computation over, the sleeps
 * go on doubling up to WEFT_MPI_POLL_IDLE_US (docs/mpi.md), so a rank left
 * idle costs next to nothing; the next message, or this rank's own next
 * send or collective, brings the short sleeps back. */
#include <sched.h>
#include <signal.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "internal/mpi/batch.h"
#include "internal/mpi/dispatch.h"
#include "internal/mpi/engine.h"
#include "internal/mpi/outgoing.h"
#include "internal/mpi/receiver.h"
#include "internal/mpi/settings.h"
#include "internal/mpi/wake.h"
#include "internal/util.h"

/* Sleep caps while something is in flight that only polling completes. */
#define CAP_SENDS_NS 200000       /* posted sends: their buffers come back */
#define CAP_COLLECTIVE_NS 1000000 /* an allreduce of wait_all */
#define RUN_HERE_NS 250000 /* graph work per pass run on the engine's thread */
/* After the last event, the first polls do not yield, nor read the clock:
 * a message that comes meanwhile (some 10-20 us) is seen at once, not
 * after a system call. */
#define QUICK_POLLS 64

/* ---- one pass ------------------------------------------------------------ */

/* After a cancel: drop what waits for delivery and, if the failure began
 * here, tell every other rank (not counted: an abort makes no work). */
static bool handle_cancel(wf_mpi *m)
{
    /* M2: relaxed: the word holds all the engine needs (where the
     * failure began, its code); the kick that follows the hook's store
     * (M1) makes the pass it starts see it. */
    int why = m->abort_sent ? 0 : wf_load_relaxed(&m->cancelled);
    if (why == 0)
        return false;
    m->abort_sent = true;
    wf__mpi_drop_all(m);
    if (why == WF__MPI_REMOTE)
        return true;
    wf__mpi_ctrl c = {WF__CTRL_ABORT, 0, m->rank, why};
    for (int r = 0; r < m->size; r++)
        if (r != m->rank && wf__mpi_send_ctrl(m, r, &c, true) != 0)
            break; /* out of memory: wait_all's allreduce still tells them */
    return true;
}

static bool progress_coll(wf_mpi *m)
{
    /* M4: acquire, pairs with run_collective's release store
     * (termination.c); c's fields are read. */
    wf__mpi_coll *c = wf_load_acquire(&m->coll);
    if (c == NULL)
        return false;
    if (!c->posted) {
        c->posted = true;
        if (c->op == WF__COLL_SUM)
            MPI_Iallreduce(c->in, c->out, 4, MPI_INT64_T, MPI_SUM, m->comm,
                           &c->req);
        else
            MPI_Iallreduce(c->pin, c->pout, 1, MPI_2INT, MPI_MINLOC, m->comm,
                           &c->req);
        return true;
    }
    int done = 0;
    MPI_Test(&c->req, &done, MPI_STATUS_IGNORE);
    if (!done)
        return false;
    pthread_mutex_lock(&m->wake_mu);
    c->done = true;
    /* M4: relaxed; the waiter reads `done` under wake_mu. */
    wf_store_relaxed(&m->coll, NULL);
    pthread_cond_broadcast(&m->done_cv);
    pthread_mutex_unlock(&m->wake_mu);
    return true;
}

/* One pass over everything; true if anything happened. */
static bool step(wf_mpi *m)
{
    bool busy = false;
    if (m->mode != WF_MPI_MULTIPLE)
        busy |= wf__mpi_post_outbox(m);
    busy |= wf__mpi_receive(m);
    busy |= m->ready != NULL && wf__mpi_deliver(m);
    busy |= handle_cancel(m);
    /* M5: relaxed (quiet); read first, so that traffic while not quiet
     * writes nothing. */
    if (busy && wf_load_relaxed(&m->quiet))
        wf_store_relaxed(&m->quiet, 0);
    busy |= wf__mpi_test_sends(m);
    busy |= progress_coll(m);
    return busy;
}

typedef struct {
    wf_mpi *m;
    bool busy;
} step_arg;

static void step_here(void *ctx)
{
    step_arg *a = ctx;
    a->busy = step(a->m);
}

/* The pass runs as a thread of the graph's pool (wf_graph_run_here): the
 * work that a received message or a credit starts (a successor's body, a
 * sender's next message and its MPI_Isend) runs on this thread right
 * after, for up to RUN_HERE_NS, rather than on a worker woken for it; the
 * rest goes to the workers. */
bool wf__mpi_engine_step(wf_mpi *m)
{
    wf_fetch_add_relaxed(&m->polls, 1); /* M6: a statistic */
    step_arg a = {m, false};
    const wf_mpi *outer = wf__mpi_enter_engine(m);
    int ran = wf_graph_run_here(m->g, step_here, &a, RUN_HERE_NS);
    wf__mpi_flush_batches(m);
    wf__mpi_leave_engine(outer);
    return a.busy || ran > 0;
}

int wf_mpi_progress(wf_mpi *m)
{
    if (m == NULL)
        return WF_EINVAL;
    if (m->has_thread)
        return 0;
    int err = wf__mpi_check_caller(m);
    if (err)
        return err;
    return wf__mpi_engine_step(m) ? 1 : 0;
}

/* ---- between passes ------------------------------------------------------ */

/* The longest the next sleep may be: the backoff's cap, shortened by what
 * only polling completes. */
static int64_t sleep_cap(wf_mpi *m)
{
    /* Once wf_mpi_graph_wait_all has seen the computation end, nothing
     * is in flight anywhere: only new work on another rank can send
     * here, and the sleeps may grow longer (this rank's own sends and
     * collectives wake the loop).  M5: relaxed, these only pick the
     * length of a sleep. */
    int64_t cap = wf_load_relaxed(&m->quiet) ? m->poll_idle_ns : m->poll_max_ns;
    if (wf_load_relaxed(&m->any_reqs) && cap > CAP_SENDS_NS)
        cap = CAP_SENDS_NS;
    /* M4: relaxed, only whether a collective is in flight. */
    if (wf_load_relaxed(&m->coll) != NULL && cap > CAP_COLLECTIVE_NS)
        cap = CAP_COLLECTIVE_NS;
    return cap;
}

/* *idle_since (0: not idle yet) and *delay are the caller's backoff
 * state; the caller zeroes both after an event. */
void wf__mpi_engine_wait(wf_mpi *m, int64_t *idle_since, int64_t *delay,
                         int64_t wake_at)
{
    static _Thread_local unsigned quick; /* polls since the last event */
    if (*idle_since == 0) {
        *idle_since = (int64_t)wf__now_ns();
        quick = 0;
    }
    if (quick < QUICK_POLLS) {
        quick++;
        wf__cpu_relax(); /* and poll again: a poll costs less than a yield */
        return;
    }
    int64_t now = (int64_t)wf__now_ns();
    if (now - *idle_since < m->poll_spin_ns) {
        sched_yield(); /* let a thread that shares this core take its turn */
        return;
    }
    int64_t cap = sleep_cap(m);
    *delay = *delay ? *delay * 2 : 1000;
    if (*delay > cap)
        *delay = cap;
    int64_t ns = *delay;
    if (wake_at != 0) { /* the caller's deadline (wait_all's pause) */
        int64_t until = wake_at - (int64_t)wf__now_ns();
        if (until < ns)
            ns = until > 0 ? until : 0;
    }
    /* M5: relaxed, a hint; a blocked receiver offers its head again
     * then. */
    int64_t retry = wf_load_relaxed(&m->next_retry);
    if (retry) {
        int64_t until = retry - (int64_t)wf__now_ns();
        if (until < ns)
            ns = until > 0 ? until : 0;
    }
    if (wf__mpi_sleep(m, ns)) {
        *idle_since = 0;
        *delay = 0;
    }
}

/* ---- the progress thread ------------------------------------------------- */

static void *engine_main(void *arg)
{
    wf_mpi *m = arg;
#if defined(__linux__) && defined(PR_SET_TIMERSLACK)
    /* Linux rounds sleeps up by the timer slack, 50 us by default; the
     * short sleeps of the backoff need it near 1 us. */
    prctl(PR_SET_TIMERSLACK, 1000UL, 0UL, 0UL, 0UL);
#endif
#if defined(__linux__) && defined(PR_SET_NAME)
    prctl(PR_SET_NAME, "weft-mpi", 0UL, 0UL, 0UL); /* for top, perf, gdb */
#endif
    int64_t idle_since = 0, delay = 0;
    /* M7: relaxed: a stop stored while this thread runs is seen at a
     * later pass; one stored while it sleeps comes with a kick (M1), whose
     * exchange in wf__mpi_sleep synchronises with it. */
    while (!wf_load_relaxed(&m->stop)) {
        /* While wf_mpi_graph_wait_all has the engine, this blocks here. */
        pthread_mutex_lock(&m->engine_mu);
        bool busy = wf__mpi_engine_step(m);
        pthread_mutex_unlock(&m->engine_mu);
        if (busy) {
            idle_since = 0;
            delay = 0;
        } else {
            wf__mpi_engine_wait(m, &idle_since, &delay, 0);
        }
    }
    return NULL;
}

int wf__mpi_engine_start(wf_mpi *m)
{
    /* Signals go to the application's threads, not to this one. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(&m->thread, NULL, engine_main, m);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0)
        return WF_EAGAIN;
    m->has_thread = true;
    return 0;
}

void wf__mpi_engine_stop(wf_mpi *m)
{
    /* M7: relaxed; the kick's seq_cst store of `kicked` (M1), after it,
     * releases it to the engine, and pthread_join orders the rest. */
    wf_store_relaxed(&m->stop, 1);
    wf__mpi_kick(m);
    pthread_join(m->thread, NULL);
    m->has_thread = false;
}
