/* SPDX-License-Identifier: Apache-2.0 */
/* mpi_edges: cross-rank graph edges (weft/mpi.h) under mpirun.
 *
 *   mpirun -np P test_mpi_edges [SCENARIO [LEVEL [ARGS...]]]
 *
 * SCENARIO is one of those below, or all (the default): each in turn.
 * LEVEL is the thread level asked of MPI_Init_thread: multiple (default),
 * serialized or funneled, which selects the context's mode.  Every rank
 * checks its own oracle and exits 1 on the first broken one (mpirun then
 * fails the job); rank 0 prints one line when every rank passed.
 *
 * Scenarios:
 *   counts N SIZE   every rank sends N messages of SIZE bytes to every rank
 *                   (itself included), twice (two wait_all rounds); each
 *                   receiver checks the exact count, the order (sequence
 *                   numbers 0, 1, 2, ... per channel) and every byte;
 *   backpressure N  rank 0 -> every other rank, 4 credits per channel,
 *                   through a successor that rejects while its
 *                   slow body runs; the sender's in-flight maximum stays
 *                   within the credits, the receiver's queue too, and all
 *                   N arrive in order (a rejecting sender fed by an
 *                   input_node, and a queueing one fed by puts);
 *   potato K H      every rank starts K messages that hop H times from
 *                   rank to rank (a body forwards each to a rank picked by
 *                   a hash): right after wait_all, the sum of hops over
 *                   all ranks is exactly P*K*(H+1), twice;
 *   destroy_busy [SIZE]  contexts destroyed while messages (of SIZE
 *                   bytes) are in flight drain and return; a new one on
 *                   the same graph works;
 *   fail            a body on rank 1 fails with -1000 mid-stream: every
 *                   rank's wf_mpi_graph_wait_all returns -1000, every
 *                   rank's local wait an error, and destroy drains;
 *   cancel          the last rank calls wf_graph_cancel: WF_ECANCELED
 *                   everywhere;
 *   badargs         bad arguments to every call get their error codes;
 *   mismatch        two ends disagree on the message size: WF_ESIZE on
 *                   every rank;
 *   unmatched       a sender whose receiver is never made: WF_ENOENT on
 *                   every rank;
 *   idle            after traffic, each of two seconds of idleness costs
 *                   each rank less than IDLE_CPU seconds of CPU
 *                   (getrusage). */
#include <limits.h>
#include <mpi.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <weft.h>
#include <weft/mpi.h>

#include "check.h"

static int rank, nranks;

/* check.h's checks, with the rank in front of each message. */
#undef CHECK
#undef CHECK_EQ
#undef CHECK_ERR

#define CHECK(cond)                                                            \
    do {                                                                       \
        if (!(cond)) {                                                         \
            fprintf(stderr, "rank %d: %s:%d: CHECK failed: %s\n", rank,        \
                    __FILE__, __LINE__, #cond);                                \
            exit(1);                                                           \
        }                                                                      \
    } while (0)

#define CHECK_EQ(a, b)                                                         \
    do {                                                                       \
        long long a_ = (long long)(a), b_ = (long long)(b);                    \
        if (a_ != b_) {                                                        \
            fprintf(stderr,                                                    \
                    "rank %d: %s:%d: CHECK_EQ failed: %s == %s "               \
                    "(%lld vs %lld)\n",                                        \
                    rank, __FILE__, __LINE__, #a, #b, a_, b_);                 \
            exit(1);                                                           \
        }                                                                      \
    } while (0)

#define CHECK_ERR(expr, want)                                                  \
    do {                                                                       \
        int got_ = (expr), want_ = (want);                                     \
        if (got_ != want_) {                                                   \
            fprintf(stderr,                                                    \
                    "rank %d: %s:%d: %s returned %d (%s), expected "           \
                    "%d (%s)\n",                                               \
                    rank, __FILE__, __LINE__, #expr, got_, wf_err_name(got_),  \
                    want_, wf_err_name(want_));                                \
            exit(1);                                                           \
        }                                                                      \
    } while (0)

#define MAX_RANKS 16
#define CHANNEL 3

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Every rank's pool has 2 threads: the ranks share this machine's cores. */
static wf_pool *pool;

static wf_graph *new_graph(void)
{
    wf_graph *g;
    CHECK_ERR(wf_graph_create(&g, pool), 0);
    return g;
}

static wf_mpi *new_context(wf_graph *g, unsigned credits)
{
    wf_mpi_config c = WF_MPI_CONFIG_INIT;
    c.credits = credits;
    wf_mpi *m;
    CHECK_ERR(wf_mpi_create(&m, g, MPI_COMM_WORLD, &c), 0);
    return m;
}

/* ---- messages: a header and a payload whose bytes depend on the header - */

typedef struct {
    int32_t src, dst;
    int64_t seq;
} msg_head;

static unsigned char pattern(const msg_head *h, size_t i)
{
    return (unsigned char)(h->seq * 131 + h->src * 17 + h->dst * 7 + i);
}

static void fill(unsigned char *buf, size_t size, int src, int dst, int64_t seq)
{
    msg_head h = {src, dst, seq};
    memcpy(buf, &h, sizeof h);
    for (size_t i = sizeof h; i < size; i++)
        buf[i] = pattern(&h, i);
}

/* What one receiver's successor saw. */
typedef struct {
    int src;
    size_t size;
    int64_t next; /* the sequence number expected next */
    _Atomic int bad;
    unsigned sleep_us; /* a slow body */
    int fail_at;       /* fail with -1000 at this sequence number, or -1 */
    _Atomic int running;
    _Atomic long seen; /* bodies run so far, for a look while it runs */
} checker;

static int check_body(const void *in, void *out, void *ctx)
{
    (void)out;
    checker *c = ctx;
    CHECK(atomic_fetch_add(&c->running, 1) == 0); /* serial */
    msg_head h;
    memcpy(&h, in, sizeof h);
    if (h.src != c->src || h.dst != rank || h.seq != c->next)
        atomic_store(&c->bad, 1);
    const unsigned char *b = in;
    for (size_t i = sizeof h; i < c->size; i++)
        if (b[i] != pattern(&h, i)) {
            atomic_store(&c->bad, 2);
            break;
        }
    c->next++;
    atomic_fetch_add(&c->seen, 1);
    if (c->sleep_us)
        usleep(c->sleep_us);
    atomic_fetch_sub(&c->running, 1);
    if (c->fail_at >= 0 && h.seq == c->fail_at)
        return -1000;
    return 0;
}

static wf_node *checker_node(wf_graph *g, checker *c, wf_fn_policy policy)
{
    wf_function_config f = WF_FUNCTION_CONFIG_INIT;
    f.in_size = c->size;
    f.concurrency = WF_SERIAL;
    f.policy = policy;
    f.body = check_body;
    f.ctx = c;
    wf_node *n;
    CHECK_ERR(wf_function_node_create(&n, g, &f), 0);
    return n;
}

/* ---- counts: exact counts, order and content, all to all ----------------- */

static void scenario_counts(long n, size_t size)
{
    if (size < sizeof(msg_head))
        size = sizeof(msg_head);
    wf_graph *g = new_graph();
    wf_mpi *m = new_context(g, 0);
    wf_node *send[MAX_RANKS], *recv[MAX_RANKS], *chk[MAX_RANKS];
    checker c[MAX_RANKS];
    for (int p = 0; p < nranks; p++) {
        CHECK_ERR(wf_mpi_sender_create(&send[p], m, p, CHANNEL, size), 0);
        CHECK_ERR(wf_mpi_receiver_create(&recv[p], m, p, CHANNEL, size), 0);
        memset(&c[p], 0, sizeof c[p]);
        c[p].src = p;
        c[p].size = size;
        c[p].fail_at = -1;
        chk[p] = checker_node(g, &c[p], WF_QUEUEING);
        CHECK_ERR(wf_make_edge(recv[p], chk[p]), 0);
    }
    unsigned char *buf = malloc(size);
    CHECK(buf != NULL);
    for (int round = 0; round < 2; round++) {
        for (long i = 0; i < n; i++)
            for (int p = 0; p < nranks; p++) {
                fill(buf, size, rank, p, round * n + i);
                CHECK_ERR(wf_try_put(send[p], buf), 1);
            }
        CHECK_ERR(wf_mpi_graph_wait_all(MPI_COMM_WORLD, g), 0);
        for (int p = 0; p < nranks; p++) {
            CHECK_EQ(atomic_load(&c[p].bad), 0);
            CHECK_EQ(c[p].next, (round + 1) * n); /* exactly, after wait_all */
        }
        /* Another rank may leave wait_all first and start the next round:
         * its messages must not reach us before we have counted. */
        MPI_Barrier(MPI_COMM_WORLD);
    }
    wf_mpi_stats st;
    CHECK_ERR(wf_mpi_get_stats(m, &st), 0);
    static const char *modes[] = {"auto", "funneled", "serialized", "multiple"};
    const char *mode = modes[wf_mpi_get_mode(m)];
    CHECK_EQ(st.data_sent, 2 * n * nranks);
    CHECK_EQ(st.data_delivered, 2 * n * nranks);
    CHECK(st.rounds >= 4); /* at least two rounds per wait_all */
    long long mine = (long long)st.data_delivered, all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    CHECK_EQ(all, 2LL * n * nranks * nranks);
    CHECK_ERR(wf_mpi_destroy(m), 0);
    for (int p = 0; p < nranks; p++)
        wf_node_destroy(chk[p]);
    CHECK_ERR(wf_graph_destroy(g), 0);
    free(buf);
    if (rank == 0)
        printf("mpi_edges counts: %d ranks x %d ranks x %ld messages of %zu "
               "bytes x 2 rounds, in order, every byte, %s mode (ok)\n",
               nranks, nranks, n, size, mode);
}

/* ---- backpressure -------------------------------------------------------- */

typedef struct {
    int dst;
    long n, made;
} source_ctx;

static int source_body(void *out, void *ctx)
{
    source_ctx *s = ctx;
    if (s->made == s->n)
        return WF_INPUT_DONE;
    fill(out, sizeof(msg_head) + 8, rank, s->dst, s->made++);
    return 0;
}

static void scenario_backpressure(long n)
{
    const unsigned credits = 4;
    const size_t size = sizeof(msg_head) + 8;
    wf_graph *g = new_graph();
    wf_mpi *m = new_context(g, credits);
    /* rank 0 -> every other rank: channel 1 rejecting (fed by an
     * input_node, whose edge turns to pull), channel 2 queueing (fed by
     * puts from here). */
    wf_node *src[MAX_RANKS] = {0}, *snd[MAX_RANKS] = {0},
            *snd2[MAX_RANKS] = {0};
    source_ctx sc[MAX_RANKS];
    wf_node *rcv = NULL, *rcv2 = NULL, *chk = NULL, *chk2 = NULL;
    checker c = {0}, c2 = {0};
    if (rank == 0) {
        for (int p = 1; p < nranks; p++) {
            wf_mpi_channel_config cc = WF_MPI_CHANNEL_CONFIG_INIT;
            cc.peer = p;
            cc.channel = 1;
            cc.msg_size = size;
            cc.policy = WF_REJECTING;
            CHECK_ERR(wf_mpi_sender_create_with(&snd[p], m, &cc), 0);
            CHECK_ERR(wf_mpi_sender_create(&snd2[p], m, p, 2, size), 0);
            sc[p] = (source_ctx){p, n, 0};
            wf_input_config ic = WF_INPUT_CONFIG_INIT;
            ic.out_size = size;
            ic.body = source_body;
            ic.ctx = &sc[p];
            CHECK_ERR(wf_input_node_create(&src[p], g, &ic), 0);
            CHECK_ERR(wf_make_edge(src[p], snd[p]), 0);
        }
    } else {
        CHECK_ERR(wf_mpi_receiver_create(&rcv, m, 0, 1, size), 0);
        CHECK_ERR(wf_mpi_receiver_create(&rcv2, m, 0, 2, size), 0);
        c = (checker){.src = 0, .size = size, .sleep_us = 300, .fail_at = -1};
        c2 = (checker){.src = 0, .size = size, .sleep_us = 300, .fail_at = -1};
        chk = checker_node(g, &c, WF_REJECTING);
        chk2 = checker_node(g, &c2, WF_REJECTING);
        CHECK_ERR(wf_make_edge(rcv, chk), 0);
        CHECK_ERR(wf_make_edge(rcv2, chk2), 0);
    }
    unsigned char buf[sizeof(msg_head) + 8];
    if (rank == 0) {
        for (int p = 1; p < nranks; p++)
            CHECK_ERR(wf_input_node_activate(src[p]), 0);
        for (long i = 0; i < n; i++)
            for (int p = 1; p < nranks; p++) {
                fill(buf, size, 0, p, i);
                CHECK_ERR(wf_try_put(snd2[p], buf), 1); /* queueing: taken */
            }
    }
    double t0 = now_s();
    CHECK_ERR(wf_mpi_graph_wait_all(MPI_COMM_WORLD, g), 0);
    double secs = now_s() - t0;
    wf_mpi_stats st;
    CHECK_ERR(wf_mpi_get_stats(m, &st), 0);
    if (rank == 0) {
        /* The oracle of the credits: never more in flight than granted. */
        CHECK(st.max_in_flight >= 1 && st.max_in_flight <= credits);
        CHECK(st.credit_waits > 0); /* the senders did run out */
        for (int p = 1; p < nranks; p++)
            CHECK_EQ(sc[p].made, n);
    } else {
        CHECK_EQ(atomic_load(&c.bad), 0);
        CHECK_EQ(atomic_load(&c2.bad), 0);
        CHECK_EQ(c.next, n);
        CHECK_EQ(c2.next, n);
        CHECK(st.max_queued >= 1 && st.max_queued <= credits);
        CHECK(st.rejections > 0); /* the slow successor did reject */
        /* 2n bodies of 300 us, serial per channel: it took that long. */
        CHECK(secs >= n * 300e-6 * 0.9);
    }
    CHECK_ERR(wf_mpi_destroy(m), 0);
    if (chk) {
        wf_node_destroy(chk);
        wf_node_destroy(chk2);
    }
    for (int p = 1; p < nranks && rank == 0; p++)
        wf_node_destroy(src[p]);
    CHECK_ERR(wf_graph_destroy(g), 0);
    unsigned long long mx = st.max_in_flight, qx = st.max_queued, gx[2];
    unsigned long long mine[2] = {mx, qx};
    MPI_Reduce(mine, gx, 2, MPI_UNSIGNED_LONG_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("mpi_edges backpressure: %ld messages per channel to %d slow "
               "ranks, at most %llu in flight and %llu queued with %u "
               "credits, in order (ok)\n",
               n, nranks - 1, gx[0], gx[1], credits);
}

/* ---- failure: a body fails on one rank; cancel --------------------------- */

static void scenario_fail(bool cancel)
{
    const size_t size = sizeof(msg_head);
    const long n = 2000;
    int culprit = cancel ? nranks - 1 : 1 % nranks;
    wf_graph *g = new_graph();
    wf_mpi *m = new_context(g, 8);
    /* A ring: every rank sends n messages to the next one. */
    int next = (rank + 1) % nranks, prev = (rank + nranks - 1) % nranks;
    wf_node *snd, *rcv;
    CHECK_ERR(wf_mpi_sender_create(&snd, m, next, 0, size), 0);
    CHECK_ERR(wf_mpi_receiver_create(&rcv, m, prev, 0, size), 0);
    checker c = {.src = prev, .size = size, .fail_at = -1, .sleep_us = 20};
    if (!cancel && rank == culprit)
        c.fail_at = 10;
    wf_node *chk = checker_node(g, &c, WF_QUEUEING);
    CHECK_ERR(wf_make_edge(rcv, chk), 0);
    unsigned char buf[sizeof(msg_head)];
    for (long i = 0; i < n; i++) {
        fill(buf, size, rank, next, i);
        int rc = wf_try_put(snd, buf);
        if (rc == WF_ECANCELED)
            break; /* the failure (here or elsewhere) came first */
        CHECK_ERR(rc, 1);
    }
    if (cancel && rank == culprit) {
        usleep(20000);
        CHECK_ERR(wf_graph_cancel(g), 0);
    }
    double t0 = now_s();
    int want = cancel ? WF_ECANCELED : -1000;
    CHECK_ERR(wf_mpi_graph_wait_all(MPI_COMM_WORLD, g), want);
    double secs = now_s() - t0;
    /* The local wait: the body's error where it failed, else cancelled. */
    int local = wf_graph_wait_for_all(g);
    if (!cancel && rank == culprit)
        CHECK_ERR(local, -1000);
    else
        CHECK_ERR(local, WF_ECANCELED);
    CHECK(wf_graph_is_cancelled(g));
    CHECK(c.next < n); /* it stopped early: 2000 bodies of 20 us were not run */
    /* The context keeps the error, and refuses new endpoints. */
    CHECK_ERR(wf_mpi_graph_wait_all(MPI_COMM_WORLD, g), want);
    wf_node *x;
    CHECK_ERR(wf_mpi_sender_create(&x, m, next, 1, size), WF_ESTATE);
    CHECK_ERR(wf_mpi_destroy(m), 0);
    wf_node_destroy(chk);
    CHECK_ERR(wf_graph_destroy(g), 0);
    double worst;
    MPI_Reduce(&secs, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("mpi_edges %s: rank %d %s; wf_mpi_graph_wait_all returned %d "
               "on all %d ranks within %.2f s (ok)\n",
               cancel ? "cancel" : "fail", culprit,
               cancel ? "called wf_graph_cancel" : "failed with -1000", want,
               nranks, worst);
}

/* ---- potato: work made by work, on any rank ------------------------------ */

/* A message that every rank forwards to another until its hops run out:
 * work created remotely by work, the case termination detection exists
 * for.  wait_all must return exactly when the last hop is done. */
typedef struct {
    int64_t id;
    int32_t hops, origin;
} potato;

static _Atomic long long potato_hops;

static int potato_body(const void *in, wf_output_ports *ports, void *ctx)
{
    (void)ctx;
    potato p;
    memcpy(&p, in, sizeof p);
    atomic_fetch_add(&potato_hops, 1);
    if (p.hops-- == 0)
        return 0;
    uint64_t h = (uint64_t)p.id * 0x9e3779b97f4a7c15u + (uint64_t)p.hops * 31u;
    int dest = (int)((h >> 33) % (uint64_t)nranks);
    return wf_output_put(ports, (unsigned)dest, &p) == 1 ? 0 : -2000;
}

static void scenario_potato(long k, int hops)
{
    wf_graph *g = new_graph();
    wf_mpi *m = new_context(g, 4); /* few credits: senders stall often */
    size_t sizes[MAX_RANKS];
    for (int p = 0; p < nranks; p++)
        sizes[p] = sizeof(potato);
    wf_multifunction_config mc = WF_MULTIFUNCTION_CONFIG_INIT;
    mc.in_size = sizeof(potato);
    mc.out_ports = (unsigned)nranks;
    mc.out_sizes = sizes;
    mc.body = potato_body;
    wf_node *router, *snd, *rcv;
    CHECK_ERR(wf_multifunction_node_create(&router, g, &mc), 0);
    for (int p = 0; p < nranks; p++) {
        CHECK_ERR(wf_mpi_sender_create(&snd, m, p, 9, sizeof(potato)), 0);
        CHECK_ERR(wf_mpi_receiver_create(&rcv, m, p, 9, sizeof(potato)), 0);
        CHECK_ERR(wf_make_edge_ports(wf_output_port(router, (unsigned)p),
                                     wf_input_port(snd, 0)),
                  0);
        CHECK_ERR(wf_make_edge(rcv, router), 0);
    }
    for (int round = 1; round <= 2; round++) {
        for (long i = 0; i < k; i++) {
            potato p = {rank * 1000000L + round * 100000L + i, hops, rank};
            CHECK_ERR(wf_try_put(router, &p), 1);
        }
        CHECK_ERR(wf_mpi_graph_wait_all(MPI_COMM_WORLD, g), 0);
        /* Right after wait_all, every hop of every potato is done. */
        long long mine = atomic_load(&potato_hops), all = 0;
        MPI_Allreduce(&mine, &all, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
        CHECK_EQ(all, (long long)round * nranks * k * (hops + 1));
    }
    wf_mpi_stats st;
    CHECK_ERR(wf_mpi_get_stats(m, &st), 0);
    CHECK_ERR(wf_mpi_destroy(m), 0);
    wf_node_destroy(router);
    CHECK_ERR(wf_graph_destroy(g), 0);
    if (rank == 0)
        printf("mpi_edges potato: %d ranks x %ld messages x %d hops x 2 "
               "rounds, every hop done when wait_all returned (ok)\n",
               nranks, k, hops);
}

/* ---- destroy while messages are in flight; progress by hand -------------- */

/* Every rank streams to the next one and destroys its context at once,
 * without wait_all: destroy must drain what was posted and return on
 * every rank; what arrived came in order.  Then a new context on the same
 * graph carries a full exchange, untouched by the old one's messages.  In
 * funneled mode the main thread also moves messages with
 * wf_mpi_progress while it waits. */
static void scenario_destroy_busy(size_t size)
{
    if (size < sizeof(msg_head))
        size = sizeof(msg_head);
    const long n = size > 4096 ? 300 : 3000;
    int next = (rank + 1) % nranks, prev = (rank + nranks - 1) % nranks;
    wf_graph *g = new_graph();
    unsigned char *buf = malloc(size);
    CHECK(buf != NULL);
    for (int round = 0; round < 2; round++) {
        wf_mpi *m = new_context(g, 8);
        wf_node *snd, *rcv;
        CHECK_ERR(wf_mpi_sender_create(&snd, m, next, 2, size), 0);
        CHECK_ERR(wf_mpi_receiver_create(&rcv, m, prev, 2, size), 0);
        checker c = {.src = prev, .size = size, .fail_at = -1};
        wf_node *chk = checker_node(g, &c, WF_QUEUEING);
        CHECK_ERR(wf_make_edge(rcv, chk), 0);
        for (long i = 0; i < n; i++) {
            fill(buf, size, rank, next, i);
            CHECK_ERR(wf_try_put(snd, buf), 1);
        }
        if (wf_mpi_get_mode(m) == WF_MPI_FUNNELED) {
            /* Only this thread moves messages: do so until some came
             * here, and then until they came everywhere (every rank goes
             * on moving its own until the barrier). */
            double until = now_s() + 20;
            while (atomic_load(&c.seen) == 0 && now_s() < until)
                CHECK(wf_mpi_progress(m) >= 0);
            CHECK(atomic_load(&c.seen) > 0);
            MPI_Request all;
            MPI_Ibarrier(MPI_COMM_WORLD, &all);
            for (int done = 0; !done;) {
                CHECK(wf_mpi_progress(m) >= 0);
                MPI_Test(&all, &done, MPI_STATUS_IGNORE);
            }
        } else {
            CHECK_ERR(wf_mpi_progress(m), 0); /* nothing to do by hand */
        }
        if (round == 0) {
            double t0 = now_s();
            CHECK_ERR(wf_mpi_destroy(m), 0); /* no wait_all */
            CHECK(now_s() - t0 < 10);
            CHECK(c.next <= n);
        } else {
            CHECK_ERR(wf_mpi_graph_wait_all(MPI_COMM_WORLD, g), 0);
            CHECK_EQ(c.next, n);
            CHECK_ERR(wf_mpi_destroy(m), 0);
        }
        CHECK_EQ(atomic_load(&c.bad), 0);
        wf_node_destroy(chk);
    }
    CHECK_ERR(wf_graph_destroy(g), 0);
    free(buf);
    if (rank == 0)
        printf("mpi_edges destroy_busy: a context destroyed with messages of "
               "%zu bytes in flight drained on all %d ranks; the next one "
               "carried all %ld (ok)\n",
               size, nranks, n);
}

/* ---- bad arguments, size mismatch, unmatched endpoints ------------------- */

static void scenario_badargs(void)
{
    wf_graph *g = new_graph(), *other = new_graph();
    wf_mpi *m, *m2;
    wf_mpi_config bad = WF_MPI_CONFIG_INIT;
    CHECK_ERR(wf_mpi_create(NULL, g, MPI_COMM_WORLD, NULL), WF_EINVAL);
    CHECK_ERR(wf_mpi_create(&m, NULL, MPI_COMM_WORLD, NULL), WF_EINVAL);
    CHECK_ERR(wf_mpi_create(&m, g, MPI_COMM_NULL, NULL), WF_EINVAL);
    bad.credits = WF_MPI_MAX_CREDITS + 1;
    CHECK_ERR(wf_mpi_create(&m, g, MPI_COMM_WORLD, &bad), WF_ERANGE);
    bad.credits = 0;
    bad.mode = (wf_mpi_mode)7;
    CHECK_ERR(wf_mpi_create(&m, g, MPI_COMM_WORLD, &bad), WF_EINVAL);
    CHECK_ERR(wf_mpi_create(&m, g, MPI_COMM_WORLD, NULL), 0);
    CHECK_ERR(wf_mpi_create(&m2, g, MPI_COMM_WORLD, NULL), WF_EEXIST);
    CHECK(wf_mpi_max_channel(m) >= 32767 - 16);
    CHECK_EQ(wf_mpi_max_channel(NULL), -1);
    CHECK(wf_mpi_get_mode(m) != WF_MPI_AUTO);

    wf_node *n;
    wf_mpi_channel_config c = WF_MPI_CHANNEL_CONFIG_INIT;
    c.peer = (rank + 1) % nranks;
    c.channel = 4;
    c.msg_size = 8;
    CHECK_ERR(wf_mpi_sender_create_with(NULL, m, &c), WF_EINVAL);
    CHECK_ERR(wf_mpi_sender_create_with(&n, NULL, &c), WF_EINVAL);
    CHECK_ERR(wf_mpi_sender_create_with(&n, m, NULL), WF_EINVAL);
    CHECK_ERR(wf_mpi_sender_create(&n, m, -1, 4, 8), WF_EINVAL);
    CHECK_ERR(wf_mpi_sender_create(&n, m, nranks, 4, 8), WF_EINVAL);
    CHECK_ERR(wf_mpi_sender_create(&n, m, 0, 4, 0), WF_EINVAL);
    CHECK_ERR(wf_mpi_sender_create(&n, m, 0, -1, 8), WF_ERANGE);
    CHECK_ERR(wf_mpi_sender_create(&n, m, 0, wf_mpi_max_channel(m) + 1, 8),
              WF_ERANGE);
    CHECK_ERR(wf_mpi_sender_create(&n, m, 0, 4, (size_t)INT_MAX + 1),
              WF_ERANGE);
    CHECK_ERR(wf_mpi_receiver_create(&n, m, nranks, 4, 8), WF_EINVAL);
    CHECK_ERR(wf_mpi_receiver_create(&n, m, 0, 4, 0), WF_EINVAL);
    CHECK_ERR(wf_mpi_receiver_create(&n, m, 0, INT_MIN, 8), WF_ERANGE);
    c.policy = (wf_fn_policy)5;
    CHECK_ERR(wf_mpi_sender_create_with(&n, m, &c), WF_EINVAL);
    c.policy = WF_QUEUEING;
    c.credits = WF_MPI_MAX_CREDITS + 1;
    CHECK_ERR(wf_mpi_receiver_create_with(&n, m, &c), WF_ERANGE);
    c.credits = 0;

    /* A ring of channel 4, with a duplicate of each end refused. */
    wf_node *s, *r, *q;
    int prev = (rank + nranks - 1) % nranks;
    CHECK_ERR(wf_mpi_sender_create_with(&s, m, &c), 0);
    CHECK_ERR(wf_mpi_sender_create_with(&n, m, &c), WF_EEXIST);
    CHECK_ERR(wf_mpi_receiver_create(&r, m, prev, 4, 8), 0);
    CHECK_ERR(wf_mpi_receiver_create(&n, m, prev, 4, 8), WF_EEXIST);
    /* The faces: the sender has one input and no output, the receiver the
     * opposite; putting into a receiver is refused. */
    CHECK_EQ(wf_port_msg_size(wf_input_port(s, 0)), 8);
    CHECK_EQ(wf_port_msg_size(wf_output_port(r, 0)), 8);
    long v = 1;
    CHECK(wf_try_put_port(wf_input_port(r, 0), &v) < 0);
    CHECK_ERR(wf_queue_node_create(&q, g, sizeof v), 0);
    CHECK(wf_make_edge(s, q) < 0); /* no output port */
    CHECK_ERR(wf_make_edge(r, q), 0);
    CHECK_ERR(wf_try_put(s, &v), 1);

    CHECK_ERR(wf_mpi_graph_wait_all(MPI_COMM_WORLD, NULL), WF_EINVAL);
    CHECK_ERR(wf_mpi_graph_wait_all(MPI_COMM_NULL, g), WF_EINVAL);
    /* Not the communicator the context was made with (with one rank,
     * MPI_COMM_SELF is congruent to MPI_COMM_WORLD, not the same). */
    CHECK_ERR(wf_mpi_graph_wait_all(MPI_COMM_SELF, g), WF_EINVAL);
    CHECK_ERR(wf_mpi_graph_wait_all(MPI_COMM_WORLD, other), WF_ENOENT);
    CHECK_ERR(wf_mpi_progress(NULL), WF_EINVAL);
    wf_mpi_stats st;
    CHECK_ERR(wf_mpi_get_stats(NULL, &st), WF_EINVAL);
    CHECK_ERR(wf_mpi_get_stats(m, NULL), WF_EINVAL);

    CHECK_ERR(wf_mpi_graph_wait_all(MPI_COMM_WORLD, g), 0);
    long got = 0;
    CHECK_ERR(wf_try_get(q, &got), 1);
    CHECK_EQ(got, 1);
    CHECK_ERR(wf_mpi_destroy(m), 0);
    CHECK_ERR(wf_mpi_destroy(NULL), 0);
    wf_node_destroy(q);
    /* After destroy the graph may get a new context. */
    CHECK_ERR(wf_mpi_create(&m, g, MPI_COMM_WORLD, NULL), 0);
    CHECK_ERR(wf_mpi_graph_wait_all(MPI_COMM_WORLD, g), 0);
    CHECK_ERR(wf_mpi_destroy(m), 0);
    CHECK_ERR(wf_graph_destroy(g), 0);
    CHECK_ERR(wf_graph_destroy(other), 0);
    if (rank == 0)
        printf("mpi_edges badargs: every bad argument refused with its code "
               "(ok)\n");
}

/* A ring on channel 6.  mismatch: rank 0 sends 16-byte messages, every
 * receiver expects 8.  unmatched: all 8 bytes, but rank 1 (rank 0 alone:
 * rank 0) makes no receiver. */
static void scenario_mismatch(bool unmatched)
{
    wf_graph *g = new_graph();
    wf_mpi *m = new_context(g, 0);
    int next = (rank + 1) % nranks, prev = (rank + nranks - 1) % nranks;
    wf_node *s, *r;
    size_t mine = !unmatched && rank == 0 ? 16 : 8;
    /* With mismatched sizes, ranks 0 and 1 may find the mismatch, and
     * cancel every rank's graph, before a slower rank has made its own
     * endpoints: a context whose graph is cancelled makes none
     * (WF_ESTATE), and that rank's wait_all still returns the origin's
     * WF_ESIZE. */
    int late = unmatched ? 0 : WF_ESTATE;
    int err = wf_mpi_sender_create(&s, m, next, 6, mine);
    CHECK(err == 0 || err == late);
    if (!unmatched || rank != 1 % nranks) {
        err = wf_mpi_receiver_create(&r, m, prev, 6, 8);
        CHECK(err == 0 || err == late);
    }
    int want = unmatched ? WF_ENOENT : WF_ESIZE;
    CHECK_ERR(wf_mpi_graph_wait_all(MPI_COMM_WORLD, g), want);
    CHECK_ERR(wf_mpi_destroy(m), 0);
    CHECK_ERR(wf_graph_destroy(g), 0);
    if (rank == 0)
        printf("mpi_edges %s: wf_mpi_graph_wait_all returned %s on all %d "
               "ranks (ok)\n",
               unmatched ? "unmatched" : "mismatch", wf_err_name(want), nranks);
}

/* ---- idle: no CPU when nothing happens ----------------------------------- */

#define IDLE_CPU 0.05

static double cpu_seconds(void)
{
    struct rusage ru;
    CHECK(getrusage(RUSAGE_SELF, &ru) == 0);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
           (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
}

static void scenario_idle(void)
{
    const size_t size = sizeof(msg_head);
    wf_graph *g = new_graph();
    wf_mpi *m = new_context(g, 0);
    int next = (rank + 1) % nranks, prev = (rank + nranks - 1) % nranks;
    wf_node *s, *r;
    CHECK_ERR(wf_mpi_sender_create(&s, m, next, 0, size), 0);
    CHECK_ERR(wf_mpi_receiver_create(&r, m, prev, 0, size), 0);
    checker c = {.src = prev, .size = size, .fail_at = -1};
    wf_node *chk = checker_node(g, &c, WF_QUEUEING);
    CHECK_ERR(wf_make_edge(r, chk), 0);
    unsigned char buf[sizeof(msg_head)];
    for (long i = 0; i < 1000; i++) {
        fill(buf, size, rank, next, i);
        CHECK_ERR(wf_try_put(s, buf), 1);
    }
    CHECK_ERR(wf_mpi_graph_wait_all(MPI_COMM_WORLD, g), 0);
    CHECK_EQ(c.next, 1000);
    /* Nothing moves now: the engine and the pool should sleep.  The first
     * second, while the engine's sleeps grow, then the next one. */
    double c0 = cpu_seconds(), t0 = now_s();
    usleep(1000000);
    double c1 = cpu_seconds(), t1 = now_s();
    usleep(1000000);
    double cpu = c1 - c0, wall = t1 - t0;
    double cpu2 = cpu_seconds() - c1, wall2 = now_s() - t1;
    wf_mpi_stats st;
    CHECK_ERR(wf_mpi_get_stats(m, &st), 0);
    double worst, worst2;
    MPI_Reduce(&cpu, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&cpu2, &worst2, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    CHECK(cpu < IDLE_CPU);
    CHECK(cpu2 < IDLE_CPU);
    /* And it still works after the pause. */
    fill(buf, size, rank, next, 1000);
    CHECK_ERR(wf_try_put(s, buf), 1);
    CHECK_ERR(wf_mpi_graph_wait_all(MPI_COMM_WORLD, g), 0);
    CHECK_EQ(c.next, 1001);
    CHECK_ERR(wf_mpi_destroy(m), 0);
    wf_node_destroy(chk);
    CHECK_ERR(wf_graph_destroy(g), 0);
    if (rank == 0)
        printf("mpi_edges idle: at most %.4f s of CPU per rank in the first "
               "%.2f s idle, %.5f s in the next %.2f s (limit %.2f) (ok)\n",
               worst, wall, worst2, wall2, IDLE_CPU);
}

/* The scenarios' arguments come after LEVEL (check_arg(0)). */
static void run_counts(void)
{
    scenario_counts(check_arg_long(1, 1000), (size_t)check_arg_long(2, 32));
}

static void run_backpressure(void)
{
    scenario_backpressure(check_arg_long(1, 200));
}

static void run_fail(void)
{
    scenario_fail(false);
}

static void run_cancel(void)
{
    scenario_fail(true);
}

static void run_potato(void)
{
    scenario_potato(check_arg_long(1, 200), (int)check_arg_long(2, 20));
}

static void run_destroy_busy(void)
{
    scenario_destroy_busy((size_t)check_arg_long(1, 0));
}

static void run_mismatch(void)
{
    scenario_mismatch(false);
}

static void run_unmatched(void)
{
    scenario_mismatch(true);
}

int main(int argc, char **argv)
{
    static const check_scenario scenarios[] = {
        {"counts", run_counts},
        {"backpressure", run_backpressure},
        {"fail", run_fail},
        {"cancel", run_cancel},
        {"potato", run_potato},
        {"destroy_busy", run_destroy_busy},
        {"badargs", scenario_badargs},
        {"mismatch", run_mismatch},
        {"unmatched", run_unmatched},
        {"idle", scenario_idle},
    };
    const char *level = argc > 2 ? argv[2] : "multiple";
    int want = MPI_THREAD_MULTIPLE, got;
    if (strcmp(level, "serialized") == 0)
        want = MPI_THREAD_SERIALIZED;
    else if (strcmp(level, "funneled") == 0)
        want = MPI_THREAD_FUNNELED;
    MPI_Init_thread(&argc, &argv, want, &got);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    CHECK(nranks <= MAX_RANKS);
    wf_pool_config pc = WF_POOL_CONFIG_INIT;
    pc.threads = 2;
    CHECK_ERR(wf_pool_create(&pool, &pc), 0);
    int rc = CHECK_RUN_SCENARIOS("mpi_edges", argc, argv, scenarios);
    CHECK_ERR(wf_pool_destroy(pool), 0);
    MPI_Finalize();
    return rc;
}
