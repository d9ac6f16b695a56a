/* SPDX-License-Identifier: Apache-2.0 */
/* wf_mpi_graph_wait_all: termination detection, and the agreement on an
 * error.
 *
 * Termination detection is Mattern's four-counter method (F. Mattern,
 * "Algorithms for distributed termination detection", Distributed
 * Computing 2(3), 1987), with an allreduce as the wave.  Every rank counts
 * the messages it sends (S) and those it receives (R) that can start work
 * somewhere: data, credits (a credit lets a sender's limiter pull a
 * message it held back) and hellos (the first credits).  Aborts are not
 * counted: they start no work.  A round is:
 *
 *   1. the local graph is idle at some instant: wf_graph_wait_for_all(g)
 *      in the first round; in the others this thread runs the engine
 *      until wf_graph_is_idle(g) (local_wait);
 *   2. read S_i and R_i; allreduce their sums, and whether any graph was
 *      cancelled.
 *
 * The computation is over when two rounds in a row give the same sums and
 * S = R.  Why that is enough: let t1 be the end of the first of the two
 * rounds (every rank's second reading comes after it, as the allreduce
 * returns on no rank before every rank has contributed).  Counters only
 * grow, so the first round's R* is at most R(t1), the true count at t1,
 * and the second round's S' is at least S(t1); and R(t) <= S(t) always.
 * From R* = S' follows S(t1) <= R(t1), hence S(t1) = R(t1): at t1 every
 * message ever sent has been received, and no rank received anything
 * between its first reading and t1.  Equal sums in both rounds, with each
 * counter monotone, mean no rank sent or received anything between its
 * two readings; a rank's second reading follows a local wait, so the work
 * of everything it received before its first reading is done by then.
 * After the second round nothing is running and nothing is in flight, and
 * only a message could start work again: the computation has terminated.
 *
 * The local counts.  A message is counted as sent before it can arrive
 * anywhere (the sender's body, or the engine, counts it before posting
 * it), and as received only once the work it starts has started, so the
 * local wait after a reading covers the work of every receipt counted by
 * then.  A data message is counted after a successor took it (the put
 * starts its work; a message waiting in a ring for a successor is still
 * "in flight").  A credit or a hello is counted before the grant that
 * starts its work (the limiter's next message), so the engine does both
 * under a reservation of the graph (wf_gateway_reserve_wait), and the
 * local wait cannot return between the two.  A receipt counted after its
 * work only delays the end: until it is counted, S exceeds R.
 *
 * Failure.  A cancel anywhere shows in the next round's sum; then every
 * rank cancels its own graph, waits for it, and a second allreduce
 * (MPI_MINLOC over (rank, code)) picks the error of the lowest rank where
 * the failure began, so every rank returns the same code. */
#include <limits.h>

#include "internal/mpi/count_steps.h"
#include "internal/mpi/endpoint.h"
#include "internal/mpi/engine.h"
#include "internal/mpi/registry.h"
#include "internal/mpi/settings.h"
#include "internal/util.h"

/* Run one collective through the engine and wait for it.  This thread
 * runs the engine meanwhile, with or without a progress thread (which
 * waits for it in the meantime): a rank then has one thread that polls,
 * not two that take turns on its core, and the graph work that messages
 * start runs here (wf_graph_run_here), so this thread still takes part
 * in the local graph's work. */
static void run_collective(wf_mpi *m, wf__mpi_coll *c)
{
    c->posted = false;
    c->done = false;
    /* M4: release; the engine reads c's fields after its acquire load
     * (engine.c, progress_coll). */
    wf_store_release(&m->coll, c);
    pthread_mutex_lock(&m->engine_mu);
    int64_t idle_since = 0, delay = 0;
    for (;;) {
        pthread_mutex_lock(&m->wake_mu);
        bool done = c->done;
        pthread_mutex_unlock(&m->wake_mu);
        if (done)
            break;
        if (wf__mpi_engine_step(m)) {
            idle_since = 0;
            delay = 0;
        } else {
            wf__mpi_engine_wait(m, &idle_since, &delay, 0);
        }
    }
    pthread_mutex_unlock(&m->engine_mu);
}

#define ROUND_PAUSE_MIN_NS 50000

/* Let time pass between two rounds, running the engine here (as in
 * run_collective).  A cancel ends the pause: the next round tells every
 * rank.  So does a quiet rank: once this rank has sent and received
 * nothing for ROUND_PAUSE_MIN_NS, with its graph idle and no message
 * waiting for a successor that rejected it, the computation may be over,
 * and the next round may tell.  That round still needs every other
 * rank's turn, so a busy rank paces the rounds with its own pause.  The
 * end of a stream is then seen within about ROUND_PAUSE_MIN_NS, not
 * within a share of the whole wait. */
static void pause_between_rounds(wf_mpi *m, int64_t ns)
{
    if (ns < ROUND_PAUSE_MIN_NS)
        ns = ROUND_PAUSE_MIN_NS;
    if (ns > m->poll_max_ns)
        ns = m->poll_max_ns;
    int64_t quiet_since = (int64_t)wf__now_ns(), until = quiet_since + ns;
    /* M3: relaxed, here and below (wf__mpi_count_peek): the counts only
     * decide when the pause ends; the round reads them itself. */
    uint64_t sent = wf__mpi_count_peek(&m->n_sent);
    uint64_t recvd = wf__mpi_count_peek(&m->n_received);
    pthread_mutex_lock(&m->engine_mu);
    int64_t idle_since = 0, delay = 0;
    /* The clock every 8th pass: a pause may end a few polls late. */
    /* M2: relaxed: a cancel only ends the pause early. */
    for (unsigned i = 0; !wf_load_relaxed(&m->cancelled); i++) {
        if (i % 8 == 0) {
            int64_t now = (int64_t)wf__now_ns();
            if (now >= until)
                break;
            uint64_t s = wf__mpi_count_peek(&m->n_sent);
            uint64_t r = wf__mpi_count_peek(&m->n_received);
            /* m->ready: messages a successor rejected wait here; this
             * thread runs the engine, so it may read it. */
            if (s != sent || r != recvd || m->ready != NULL ||
                !wf_graph_is_idle(m->g)) {
                sent = s;
                recvd = r;
                quiet_since = now;
            } else if (now - quiet_since >= ROUND_PAUSE_MIN_NS) {
                break;
            }
        }
        if (wf__mpi_engine_step(m)) {
            idle_since = 0;
            delay = 0;
        } else {
            wf__mpi_engine_wait(m, &idle_since, &delay, until);
        }
    }
    pthread_mutex_unlock(&m->engine_mu);
}

/* Step 1 of a round after the first: wait until the local graph is idle,
 * running the engine here meanwhile (as in run_collective), so that the
 * work messages start runs on this thread and no other thread polls.
 * When the engine has had nothing to do for poll_spin_us while the graph
 * is still busy (its work is on the pool's workers, or waits for a thread
 * of the pool), it gives the engine back to the progress thread and waits
 * for the graph as wf_graph_wait_for_all does, taking part in its work. */
static void local_wait(wf_mpi *m)
{
    bool fallback = false;
    pthread_mutex_lock(&m->engine_mu);
    int64_t idle_since = 0, delay = 0;
    while (!wf_graph_is_idle(m->g)) {
        if (wf__mpi_engine_step(m)) {
            idle_since = 0;
            delay = 0;
            continue;
        }
        if (idle_since != 0 &&
            (int64_t)wf__now_ns() - idle_since >= m->poll_spin_ns) {
            fallback = true;
            break;
        }
        wf__mpi_engine_wait(m, &idle_since, &delay, 0);
    }
    pthread_mutex_unlock(&m->engine_mu);
    if (fallback)
        wf_graph_wait_for_all(m->g);
}

/* Some rank's graph was cancelled: cancel here too, wait, agree on the
 * error. */
static int fail_everywhere(wf_mpi *m)
{
    /* M2: relaxed, both loads: the word says all (where the failure
     * began, its code).  Unseen, this thread cancels, and its own hook
     * stores it before wf_graph_cancel returns, unless another thread's
     * cancel came first: that one's hook may read `remote` or not, and be
     * seen by the second load or not (as it was under the old orders):
     * the failure began on both ranks, and MINLOC picks one code. */
    if (!wf_load_relaxed(&m->cancelled)) {
        /* M2: before the cancel: see the cancel hook (failure.c). */
        wf_store_relaxed(&m->remote, 1);
        wf_graph_cancel(m->g);
    }
    int local = wf_graph_wait_for_all(m->g);
    int why = wf_load_relaxed(&m->cancelled); /* M2: see above */
    bool began_here = why != 0 && why != WF__MPI_REMOTE;
    int own = began_here && why != WF_ECANCELED ? why : 0; /* weft_mpi's */
    bool body_error = local != 0 && local != WF_ECANCELED;
    bool origin = began_here || body_error;
    int code = own ? own : body_error ? local : WF_ECANCELED;
    wf__mpi_coll c = {.op = WF__COLL_MINLOC,
                      .pin = {origin ? m->rank : INT_MAX, code}};
    run_collective(m, &c);
    int rc = c.pout[0] == INT_MAX ? WF_ECANCELED : c.pout[1];
    wf_store_relaxed(&m->failed, rc); /* M7: publishes only itself */
    return rc;
}

int wf_mpi_graph_wait_all(MPI_Comm comm, wf_graph *g)
{
    if (g == NULL || comm == MPI_COMM_NULL)
        return WF_EINVAL;
    wf_mpi *m = wf__mpi_find(g);
    if (m == NULL)
        return WF_ENOENT;
    int same = MPI_UNEQUAL;
    MPI_Comm_compare(comm, m->user_comm, &same);
    if (same != MPI_IDENT)
        return WF_EINVAL;
    int err = wf__mpi_check_caller(m);
    if (err)
        return err;
    if ((err = wf_load_relaxed(&m->failed)) != 0) /* M7, as above */
        return err;
    wf_store_relaxed(&m->quiet, 0); /* M5: the short sleeps again */
    int64_t prev_sent = -1, prev_received = -1, start = (int64_t)wf__now_ns();
    for (bool first = true;; first = false) {
        if (!first)
            local_wait(m);
        else if (wf_graph_wait_for_all(g) == WF_EPERM)
            return WF_EPERM; /* from a body of g: it would wait for itself */
        wf__mpi_coll c = {.op = WF__COLL_SUM};
        /* M3: S relaxed, then R acquire (count_steps.h: R's acquire
         * carries the sends its receipts answer, and their work, into the
         * collective and the next local wait); M2. */
        uint64_t sent, received;
        wf__mpi_counts_round(&m->n_sent, &m->n_received, &sent, &received);
        c.in[0] = (int64_t)sent;
        c.in[1] = (int64_t)received;
        /* M2: relaxed: fail_everywhere loads it again. */
        c.in[2] = wf_load_relaxed(&m->cancelled) != 0;
        c.in[3] = wf__mpi_unmatched(m);
        run_collective(m, &c);
        wf_fetch_add_relaxed(&m->st_rounds, 1); /* M6: a statistic */
        if (c.out[2] > 0)
            return fail_everywhere(m);
        if (c.out[0] == c.out[1] && c.out[0] == prev_sent &&
            c.out[1] == prev_received) {
            if (c.out[3] == 0) {
                /* The engine's long sleeps; M5: relaxed, as above. */
                wf_store_relaxed(&m->quiet, 1);
                return 0;
            }
            /* Over, but an endpoint never met its other end. */
            wf_store_relaxed(&m->failed, WF_ENOENT); /* M7 */
            return WF_ENOENT;
        }
        /* Messages are in flight: the next round cannot succeed before
         * they arrive.  Pause before it, for a sixteenth of the time
         * waited so far (so rounds cost a bounded share of the run), or
         * until this rank is quiet, unless this round may be the first
         * of the two that end it. */
        if (c.out[0] != c.out[1])
            pause_between_rounds(m, ((int64_t)wf__now_ns() - start) / 16);
        prev_sent = c.out[0];
        prev_received = c.out[1];
    }
}
