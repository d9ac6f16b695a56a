/* SPDX-License-Identifier: Apache-2.0 */
/* The progress engine: the one loop that receives, delivers, completes
 * sends, tells the other ranks of a failure and runs the collectives of
 * wf_mpi_graph_wait_all.
 *
 * MPI offers no wait that sleeps: a blocking MPI_Recv or MPI_Wait in Open
 * MPI polls the progress engine until the message comes (Open MPI's FAQ,
 * "mpi_yield_when_idle").  So the loop polls with MPI_Test, on the oldest
 * of the receives it keeps posted ("receiving" below) and, when a
 * poll finds nothing, it polls again for `poll_spin_us` (yielding the CPU
 * between polls, so that a thread that shares the core runs), then sleeps
 * for 1 us, 2 us, 4 us, ... up to `poll_max_us`: a quiet rank wakes up
 * less and less often, and a rank that was busy a moment ago answers
 * within about the time it has been quiet.  (Waking from a sleep, however
 * short, costs a timer and a context switch; the spin keeps a steady
 * stream of messages clear of them.)  Work that this rank makes
 * itself (a send to post, a collective, a cancel) wakes the loop at once.
 * After wf_mpi_graph_wait_all has found the whole computation over, the
 * sleeps go on doubling up to WEFT_MPI_POLL_IDLE_US (docs/mpi.md), so a
 * rank left idle costs next to nothing; the next message, or this rank's
 * own next send or collective, brings the short sleeps back. */
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "mpi_impl.h"

/* Sleep caps while something is in flight that only polling completes. */
#define CAP_SENDS_NS 200000       /* posted sends: their buffers come back */
#define CAP_COLLECTIVE_NS 1000000 /* an allreduce of wait_all */
#define RECEIVE_BATCH 64
#define FREE_BUFS_MAX 16   /* data buffers a channel keeps for reuse */
#define RUN_HERE_NS 250000 /* graph work per pass run on the engine's thread */
/* After the last event, the first polls do not yield, nor read the clock:
 * a message that comes meanwhile (some 10-20 us) is seen at once, not
 * after a system call. */
#define QUICK_POLLS 64

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* ---- sending ------------------------------------------------------------- */

/* A sent buffer back to its channel (under the channel's mu, so not with
 * m->lock held: mu comes first), or freed. */
static void recycle(wf__mpi_out *o)
{
    wf__mpi_send *ch = o->ch;
    if (ch == NULL) {
        free(o);
        return;
    }
    pthread_mutex_lock(&ch->mu);
    bool keep = ch->n_free < FREE_BUFS_MAX;
    if (keep) {
        o->next = ch->free_bufs;
        ch->free_bufs = o;
        ch->n_free++;
    }
    pthread_mutex_unlock(&ch->mu);
    if (!keep)
        free(o);
}

/* Room for one more posted send; false when memory ran out. */
static bool reserve_req(wf_mpi *m)
{
    if (m->n_reqs < m->cap_reqs)
        return true;
    int cap = m->cap_reqs ? m->cap_reqs * 2 : 64;
    MPI_Request *reqs = realloc(m->reqs, (size_t)cap * sizeof *reqs);
    if (reqs != NULL)
        m->reqs = reqs;
    wf__mpi_out **items = realloc(m->req_items, (size_t)cap * sizeof *items);
    if (items != NULL)
        m->req_items = items;
    int *idx = realloc(m->req_idx, (size_t)cap * sizeof *idx);
    if (idx != NULL)
        m->req_idx = idx;
    if (reqs == NULL || items == NULL || idx == NULL)
        return false;
    m->cap_reqs = cap;
    return true;
}

/* Post o now, on the calling thread (which may call MPI). */
static void post_now(wf_mpi *m, wf__mpi_out *o)
{
    MPI_Request req;
    bool bulk = o->ch != NULL && wf__mpi_bulk(o->ch); /* data, not control */
    int rc = MPI_Isend(o->data, o->count, MPI_BYTE, o->dest, o->tag,
                       bulk ? m->bulk : m->comm, &req);
    if (rc != MPI_SUCCESS) {
        free(o);
        wf__mpi_fail(m, WF_ESTATE);
        return;
    }
    pthread_mutex_lock(&m->lock);
    m->posted_to[o->dest]++;
    bool room = reserve_req(m);
    if (room) {
        m->reqs[m->n_reqs] = req;
        m->req_items[m->n_reqs++] = o;
        atomic_store_explicit(&m->any_reqs, 1, memory_order_relaxed);
    }
    pthread_mutex_unlock(&m->lock);
    if (!room) { /* no memory to track it: finish it here instead */
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        free(o); /* not recycled: the caller may hold its channel's mu */
    }
}

/* Send o, and the messages linked after it, in order: at once where this
 * thread may call MPI (MULTIPLE, or the engine itself), else through the
 * outbox, which the engine posts in order.  A chain enters the outbox
 * whole, so the engine posts a bulk message and its announcement in the
 * same pass. */
void wf__mpi_send_out(wf_mpi *m, wf__mpi_out *o, bool from_engine)
{
    if (m->mode == WF_MPI_MULTIPLE || from_engine) {
        for (wf__mpi_out *next; o != NULL; o = next) {
            next = o->next; /* o may be sent and recycled once posted */
            post_now(m, o);
        }
        if (!from_engine)
            wf__mpi_wake_if_quiet(m);
        return;
    }
    wf__mpi_out *last = o;
    while (last->next != NULL)
        last = last->next;
    pthread_mutex_lock(&m->lock);
    if (m->out_tail)
        m->out_tail->next = o;
    else
        m->out_head = o;
    m->out_tail = last;
    pthread_mutex_unlock(&m->lock);
    wf__mpi_kick(m);
}

int wf__mpi_send_ctrl(wf_mpi *m, int dest, const wf__mpi_ctrl *c,
                      bool from_engine)
{
    wf__mpi_out *o = malloc(sizeof *o + sizeof *c);
    if (o == NULL)
        return WF_ENOMEM;
    o->next = NULL;
    o->ch = NULL;
    o->dest = dest;
    o->tag = WF__MPI_TAG_CTRL;
    o->count = (int)sizeof *c;
    memcpy(o->data, c, sizeof *c);
    atomic_fetch_add_explicit(&m->st_ctrl_sent, 1, memory_order_relaxed);
    wf__mpi_send_out(m, o, from_engine);
    return 0;
}

static bool post_outbox(wf_mpi *m)
{
    pthread_mutex_lock(&m->lock);
    wf__mpi_out *o = m->out_head;
    m->out_head = m->out_tail = NULL;
    pthread_mutex_unlock(&m->lock);
    bool any = o != NULL;
    while (o != NULL) {
        wf__mpi_out *next = o->next;
        post_now(m, o);
        o = next;
    }
    return any;
}

/* Complete the posted sends that are done; their buffers go back to
 * their channels.  True if any completed. */
bool wf__mpi_test_sends(wf_mpi *m)
{
    /* Relaxed: a hint; a send posted after this look is tested at the
     * next pass (and the loop sleeps no longer than CAP_SENDS_NS). */
    if (!atomic_load_explicit(&m->any_reqs, memory_order_relaxed))
        return false;
    pthread_mutex_lock(&m->lock);
    int done = 0;
    if (m->n_reqs > 0)
        MPI_Testsome(m->n_reqs, m->reqs, &done, m->req_idx,
                     MPI_STATUSES_IGNORE);
    if (done == MPI_UNDEFINED || done <= 0) {
        pthread_mutex_unlock(&m->lock);
        return false;
    }
    wf__mpi_out *sent = NULL; /* recycled once m->lock is released */
    for (int i = 0; i < done; i++) {
        wf__mpi_out *o = m->req_items[m->req_idx[i]];
        o->next = sent;
        sent = o;
        m->req_items[m->req_idx[i]] = NULL;
    }
    int j = 0; /* MPI_Testsome set the completed handles to NULL */
    for (int i = 0; i < m->n_reqs; i++) {
        if (m->req_items[i] != NULL) {
            m->reqs[j] = m->reqs[i];
            m->req_items[j++] = m->req_items[i];
        }
    }
    m->n_reqs = j;
    atomic_store_explicit(&m->any_reqs, j > 0, memory_order_relaxed);
    pthread_mutex_unlock(&m->lock);
    for (wf__mpi_out *next; sent != NULL; sent = next) {
        next = sent->next;
        recycle(sent);
    }
    return true;
}

/* ---- receiving ----------------------------------------------------------- *
 *
 * The engine keeps WF__MPI_RX_DEPTH receives posted on `comm`, from any
 * source with any tag, each into a landing buffer of WF__MPI_SMALL_MAX
 * bytes.  A message that comes then lands at once, on MPI's path for an
 * expected message, and a poll is one MPI_Test of the oldest receive;
 * a matched probe (MPI_Improbe) costs more, both when it finds nothing
 * and when it finds a message that a second call must then receive.
 *
 * Order.  MPI matches an incoming message with the first posted receive
 * that fits, and two messages from one sender on one communicator that
 * fit the same receive are matched in the order they were sent
 * (non-overtaking, MPI-3.1 section 3.5).  Every posted receive fits every
 * message, so the receives are matched in the order they were posted,
 * and the engine takes them in that order too, the oldest first, and
 * posts each again once its message is handled.  So each sender's
 * messages are handled in the order they were sent, whatever order MPI
 * completes the receives in.
 *
 * A data message larger than WF__MPI_SMALL_MAX travels on `bulk`, and an
 * announcement on `comm` (WF__CTRL_BULK) follows it at once.  The
 * announcement is handled in order with the rest, and the engine then
 * receives the message it announces, with a receive for that sender and
 * tag, straight into the receiver's ring: the message was posted before
 * its announcement, so the receive waits only for its transfer. */

/* Post the receive of landing buffer i. */
static void post_receive(wf_mpi *m, unsigned i)
{
    if (MPI_Irecv(m->landing[i], WF__MPI_SMALL_MAX, MPI_BYTE, MPI_ANY_SOURCE,
                  MPI_ANY_TAG, m->comm, &m->rx[i]) != MPI_SUCCESS) {
        m->rx[i] = MPI_REQUEST_NULL;
        wf__mpi_fail(m, WF_ESTATE);
    }
}

int wf__mpi_post_receives(wf_mpi *m)
{
    m->landing = malloc(WF__MPI_RX_DEPTH * sizeof *m->landing);
    if (m->landing == NULL)
        return WF_ENOMEM;
    for (unsigned i = 0; i < WF__MPI_RX_DEPTH; i++)
        post_receive(m, i);
    m->rx_posted = true;
    return 0;
}

/* Before the communicator is freed, with the engine stopped (the drain
 * has received every message sent here, so none of these can match). */
void wf__mpi_cancel_receives(wf_mpi *m)
{
    if (!m->rx_posted)
        return;
    for (unsigned i = 0; i < WF__MPI_RX_DEPTH; i++) {
        if (m->rx[i] == MPI_REQUEST_NULL)
            continue;
        MPI_Cancel(&m->rx[i]);
        MPI_Wait(&m->rx[i], MPI_STATUS_IGNORE);
    }
    m->rx_posted = false;
}

/* Receive a bulk message into scratch memory and drop it. */
void wf__mpi_discard_bulk(wf_mpi *m, int peer, int channel, int count)
{
    size_t need = count > 0 ? (size_t)count : 1;
    if (m->scratch_size < need) {
        void *p = realloc(m->scratch, need);
        if (p != NULL) {
            m->scratch = p;
            m->scratch_size = need;
        }
    }
    if (m->scratch_size < need) {
        /* No memory even to drop it.  The message must still be taken;
         * MPI reports the truncation to the communicator's handler. */
        wf__mpi_fail(m, WF_ENOMEM);
        count = 0;
    }
    MPI_Recv(m->scratch, count, MPI_BYTE, peer, WF__MPI_TAG_DATA + channel,
             m->bulk, MPI_STATUS_IGNORE);
    m->recvd_from[peer]++;
}

static void on_abort(wf_mpi *m)
{
    if (atomic_load(&m->cancelled))
        return;
    /* Before the cancel: the hook then knows the failure is not ours. */
    atomic_store(&m->remote, 1);
    wf_graph_cancel(m->g);
}

static _Thread_local const wf_mpi *engine_here; /* set during a pass */

/* A data message has come: hand it to its successors now, and post what
 * their lightweight bodies sent, before the next poll; a reply then
 * leaves without waiting for the rest of the pass. */
static void deliver_now(wf_mpi *m)
{
    wf__mpi_deliver(m);
    if (engine_here == m)
        wf__mpi_flush_batches(m);
}

static void on_ctrl(wf_mpi *m, int peer, const wf__mpi_ctrl *c)
{
    if (c->kind == WF__CTRL_BULK) { /* data, not counted as control */
        wf__mpi_on_bulk(m, peer, c);
        deliver_now(m);
        return;
    }
    atomic_fetch_add_explicit(&m->st_ctrl_received, 1, memory_order_relaxed);
    switch (c->kind) {
    case WF__CTRL_HELLO_SENDER:
    case WF__CTRL_HELLO_RECEIVER: wf__mpi_on_hello(m, peer, c); break;
    case WF__CTRL_CREDIT: wf__mpi_on_credit(m, peer, c); break;
    case WF__CTRL_ABORT: on_abort(m); break;
    default: wf__mpi_fail(m, WF_ESTATE); break;
    }
}

/* Take the oldest posted receive if it has completed: handle its message
 * (or, with drop, only receive what it announces), and post it again.
 * Returns what it took. */
int wf__mpi_receive_one(wf_mpi *m, bool drop)
{
    unsigned i = m->rx_head;
    int done = 0, count = 0;
    MPI_Status st;
    if (m->rx[i] == MPI_REQUEST_NULL) {
        /* Its post failed, and the graph was cancelled: post it again,
         * out of order (what comes now is dropped), so that the drain
         * at destroy can still take every message. */
        post_receive(m, i);
        if (m->rx[i] == MPI_REQUEST_NULL)
            return WF__RX_NONE;
    }
    MPI_Test(&m->rx[i], &done, &st);
    if (!done)
        return WF__RX_NONE;
    m->rx_head = (i + 1) % WF__MPI_RX_DEPTH;
    m->recvd_from[st.MPI_SOURCE]++;
    MPI_Get_count(&st, MPI_BYTE, &count);
    wf__mpi_ctrl c;
    bool ctrl = st.MPI_TAG == WF__MPI_TAG_CTRL && count == (int)sizeof c;
    if (ctrl)
        memcpy(&c, m->landing[i], sizeof c);
    int took = ctrl && c.kind != WF__CTRL_BULK ? WF__RX_CTRL : WF__RX_DATA;
    if (drop) {
        if (ctrl && c.kind == WF__CTRL_BULK)
            wf__mpi_discard_bulk(m, st.MPI_SOURCE, c.channel, (int)c.a);
    } else if (ctrl) {
        on_ctrl(m, st.MPI_SOURCE, &c);
    } else if (st.MPI_TAG >= WF__MPI_TAG_DATA) {
        wf__mpi_on_data(m, st.MPI_SOURCE, st.MPI_TAG - WF__MPI_TAG_DATA, count,
                        m->landing[i]);
        deliver_now(m);
    } else {
        wf__mpi_fail(m, WF_ESTATE);
    }
    post_receive(m, i);
    return took;
}

/* Receive until nothing is left, or a data message was delivered: the
 * pass then ends, and the work the message started runs on this thread
 * (wf_graph_run_here) before the next is taken.  Taking on, while other
 * threads run that work, would let the engine run ahead of a queueing
 * successor, whose queue would then grow without bound. */
static bool receive(wf_mpi *m)
{
    bool any = false;
    for (int k = 0; k < RECEIVE_BATCH; k++) {
        int took = wf__mpi_receive_one(m, false);
        any |= took != WF__RX_NONE;
        if (took != WF__RX_CTRL)
            break;
    }
    return any;
}

/* ---- failure and collectives --------------------------------------------- */

/* After a cancel: drop what waits for delivery and, if the failure began
 * here, tell every other rank (not counted: an abort makes no work). */
static bool handle_cancel(wf_mpi *m)
{
    if (m->abort_sent || !atomic_load(&m->cancelled))
        return false;
    m->abort_sent = true;
    wf__mpi_drop_all(m);
    if (!atomic_load(&m->origin) && !atomic_load(&m->origin_err))
        return true;
    int err = atomic_load(&m->origin_err);
    wf__mpi_ctrl c = {WF__CTRL_ABORT, 0, m->rank, err ? err : WF_ECANCELED};
    for (int r = 0; r < m->size; r++)
        if (r != m->rank && wf__mpi_send_ctrl(m, r, &c, true) != 0)
            break; /* out of memory: wait_all's allreduce still tells them */
    return true;
}

static bool progress_coll(wf_mpi *m)
{
    /* Acquire: pairs with wait.c's release store; c's fields are read. */
    wf__mpi_coll *c = atomic_load_explicit(&m->coll, memory_order_acquire);
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
    atomic_store_explicit(&m->coll, NULL, memory_order_relaxed);
    pthread_cond_broadcast(&m->done_cv);
    pthread_mutex_unlock(&m->wake_mu);
    return true;
}

/* ---- the loop ------------------------------------------------------------ */

/* One pass over everything; true if anything happened. */
static bool step(wf_mpi *m)
{
    bool busy = false;
    if (m->mode != WF_MPI_MULTIPLE)
        busy |= post_outbox(m);
    busy |= receive(m);
    busy |= m->ready != NULL && wf__mpi_deliver(m);
    busy |= handle_cancel(m);
    /* Relaxed (mpi_impl.h, quiet); read first, so that traffic while
     * not quiet writes nothing. */
    if (busy && atomic_load_explicit(&m->quiet, memory_order_relaxed))
        atomic_store_explicit(&m->quiet, 0, memory_order_relaxed);
    busy |= wf__mpi_test_sends(m);
    busy |= progress_coll(m);
    return busy;
}

/* ---- batches ------------------------------------------------------------- *
 *
 * A sender's body that runs on the engine's thread (the work a credit
 * started, wf_graph_run_here) does not post a small message at once: it
 * appends it to its channel's open batch, and the engine posts every open
 * batch as one MPI message when the data message that started the work
 * has been delivered, at the end of the pass, or at once when it is
 * full.  A stream of small messages then costs one MPI send and one
 * receive per batch, not per message (as MPI's own small-message
 * coalescing and TCP's Nagle algorithm trade a little latency for it);
 * the latency does not grow, as the batch leaves before the engine polls
 * again.  A body on any other thread flushes the open batch with its own
 * message at once.  The channel's lock `mu` orders the posts, so the
 * batches leave in the order their messages were taken. */

bool wf__mpi_on_engine(const wf_mpi *m)
{
    return engine_here == m;
}

void wf__mpi_flush_batches(wf_mpi *m)
{
    wf__mpi_send *s = m->dirty;
    m->dirty = NULL;
    bool any = s != NULL;
    for (wf__mpi_send *next; s != NULL; s = next) {
        next = s->next_dirty;
        s->dirty = false;
        pthread_mutex_lock(&s->mu);
        wf__mpi_out *o = s->open;
        s->open = NULL;
        if (o != NULL)
            wf__mpi_send_out(m, o, false);
        pthread_mutex_unlock(&s->mu);
    }
    /* Not MULTIPLE: they went to the outbox; this is the engine. */
    if (any && m->mode != WF_MPI_MULTIPLE)
        post_outbox(m);
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
    atomic_fetch_add_explicit(&m->polls, 1, memory_order_relaxed);
    step_arg a = {m, false};
    const wf_mpi *outer = engine_here;
    engine_here = m;
    int ran = wf_graph_run_here(m->g, step_here, &a, RUN_HERE_NS);
    wf__mpi_flush_batches(m);
    engine_here = outer;
    return a.busy || ran > 0;
}

/* Sleep up to ns, or until kicked.  True if kicked. */
static bool sleep_for(wf_mpi *m, int64_t ns)
{
    atomic_fetch_add_explicit(&m->sleeps, 1, memory_order_relaxed);
    pthread_mutex_lock(&m->wake_mu);
    /* seq_cst store, then exchange: pairs with wf__mpi_kick's store of
     * `kicked`, then load of `sleeping`; one of the two sees the other. */
    atomic_fetch_add(&m->sleeping, 1);
    bool kicked = atomic_exchange(&m->kicked, 0);
    if (!kicked && !atomic_load(&m->stop)) {
        int64_t until = wf__mpi_now_ns() + ns;
        struct timespec ts = {(time_t)(until / 1000000000),
                              (long)(until % 1000000000)};
        pthread_cond_timedwait(&m->wake_cv, &m->wake_mu, &ts);
        kicked = atomic_exchange(&m->kicked, 0);
    }
    atomic_fetch_sub(&m->sleeping, 1);
    pthread_mutex_unlock(&m->wake_mu);
    return kicked;
}

/* A worker's send after the end of a computation: the engine may be in
 * its long idle sleep, and must take the credits that come back. */
void wf__mpi_wake_if_quiet(wf_mpi *m)
{
    /* Relaxed (mpi_impl.h, quiet): the exchange only picks the one sender
     * that kicks; the kick has its own handshake (sleep_for). */
    if (atomic_load_explicit(&m->quiet, memory_order_relaxed) &&
        atomic_exchange_explicit(&m->quiet, 0, memory_order_relaxed))
        wf__mpi_kick(m);
}

void wf__mpi_kick(wf_mpi *m)
{
    atomic_store(&m->kicked, 1);
    if (atomic_load(&m->sleeping)) {
        pthread_mutex_lock(&m->wake_mu);
        pthread_cond_broadcast(&m->wake_cv); /* the thread with the engine */
        pthread_mutex_unlock(&m->wake_mu);
    }
}

/* After a step that found nothing: poll again, or sleep a little longer
 * than last time.  *idle_since (0: not idle yet) and *delay are the
 * caller's backoff state; the caller zeroes both after an event. */
void wf__mpi_engine_wait(wf_mpi *m, int64_t *idle_since, int64_t *delay,
                         int64_t wake_at)
{
    static _Thread_local unsigned quick; /* polls since the last event */
    if (*idle_since == 0) {
        *idle_since = wf__mpi_now_ns();
        quick = 0;
    }
    if (quick < QUICK_POLLS) {
        quick++;
        cpu_relax(); /* and poll again: a poll costs less than a yield */
        return;
    }
    int64_t now = wf__mpi_now_ns();
    if (now - *idle_since < m->poll_spin_ns) {
        sched_yield(); /* let a thread that shares this core take its turn */
        return;
    }
    /* Once wf_mpi_graph_wait_all has seen the computation end, nothing
     * is in flight anywhere: only new work on another rank can send
     * here, and the sleeps may grow longer (this rank's own sends and
     * collectives wake the loop). */
    int64_t cap = atomic_load_explicit(&m->quiet, memory_order_relaxed)
                      ? m->poll_idle_ns
                      : m->poll_max_ns; /* relaxed: mpi_impl.h, quiet */
    /* Relaxed: they only pick the length of a sleep. */
    if (atomic_load_explicit(&m->any_reqs, memory_order_relaxed) &&
        cap > CAP_SENDS_NS)
        cap = CAP_SENDS_NS;
    if (atomic_load_explicit(&m->coll, memory_order_relaxed) != NULL &&
        cap > CAP_COLLECTIVE_NS)
        cap = CAP_COLLECTIVE_NS;
    *delay = *delay ? *delay * 2 : 1000;
    if (*delay > cap)
        *delay = cap;
    int64_t ns = *delay;
    if (wake_at != 0) { /* the caller's deadline (wait_all's pause) */
        int64_t until = wake_at - wf__mpi_now_ns();
        if (until < ns)
            ns = until > 0 ? until : 0;
    }
    /* Relaxed: a hint (mpi_impl.h); a blocked receiver offers its head
     * again then. */
    int64_t retry = atomic_load_explicit(&m->next_retry, memory_order_relaxed);
    if (retry) {
        int64_t until = retry - wf__mpi_now_ns();
        if (until < ns)
            ns = until > 0 ? until : 0;
    }
    if (sleep_for(m, ns)) {
        *idle_since = 0;
        *delay = 0;
    }
}

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
    while (!atomic_load(&m->stop)) {
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
    atomic_store(&m->stop, 1);
    wf__mpi_kick(m);
    pthread_join(m->thread, NULL);
    m->has_thread = false;
}
