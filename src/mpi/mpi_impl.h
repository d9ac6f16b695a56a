/* SPDX-License-Identifier: Apache-2.0 */
/* weft_mpi internals: the context, the two kinds of endpoint, the
 * progress engine.  Private to src/mpi/; built on weft's public API only.
 *
 * Locks.  `lock` guards the endpoint tables, the pending hellos, the
 * outbox, the list of posted sends and the per-peer send counts.
 * `wake_mu` guards the progress loop's sleep and the collective in
 * flight.  Neither is ever held while calling into weft (a put, a cancel,
 * a node operation) nor while blocking in MPI, so weft's own locks and
 * ours never nest.
 *
 * Threads.  The engine (engine.c) is run by one thread at a time, the
 * one holding `engine_mu`: the progress thread, or the main thread inside
 * wf_mpi_graph_wait_all (it takes the engine over for the collectives and
 * the pauses between rounds), and, without a progress thread (FUNNELED),
 * the main thread in wf_mpi_progress and wf_mpi_destroy too.  Fields
 * marked "engine" are touched only under `engine_mu` once the endpoint is
 * published. */
#ifndef WEFT_SRC_MPI_IMPL_H
#define WEFT_SRC_MPI_IMPL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "weft/mpi.h"

/* MPI tags: control messages share one tag; data of channel c uses
 * WF__MPI_TAG_DATA + c, so no message needs a header.
 *
 * Two duplicates of the user's communicator.  `comm` carries control
 * messages and data messages of at most WF__MPI_SMALL_MAX bytes, which
 * the engine receives with receives posted in advance (engine.c,
 * "receiving").  `bulk` carries larger data messages, each announced on
 * `comm` by a WF__CTRL_BULK and received by a receive for its sender and
 * tag. */
#define WF__MPI_TAG_CTRL 1
#define WF__MPI_TAG_DATA 16
#define WF__MPI_SMALL_MAX 4096
#define WF__MPI_RX_DEPTH 16 /* receives the engine keeps posted on comm */

enum {
    WF__CTRL_HELLO_SENDER = 1, /* a: message size                        */
    WF__CTRL_HELLO_RECEIVER,   /* a: message size, b: credits granted    */
    WF__CTRL_CREDIT,           /* a: credits returned                    */
    WF__CTRL_ABORT,            /* a: the failing rank, b: its error code */
    WF__CTRL_BULK              /* a: bytes of the data message on bulk   */
};

/* A control message, sent as 24 bytes. */
typedef struct wf__mpi_ctrl {
    int32_t kind, channel;
    int64_t a, b;
} wf__mpi_ctrl;

typedef struct wf__mpi_send wf__mpi_send;
typedef struct wf__mpi_recv wf__mpi_recv;

/* An outgoing message: a copy of a sender's message (or of several, a
 * batch), or a control message.  It lives until MPI has completed its
 * send. */
typedef struct wf__mpi_out {
    struct wf__mpi_out *next;
    wf__mpi_send *ch; /* data: its channel keeps the buffer for reuse */
    int dest, tag, count;
    _Alignas(max_align_t) unsigned char data[];
} wf__mpi_out;

/* The sending end of a channel.  Its node is a composite of
 * [queue_node ->] limiter_node -> function_node: the limiter lets a
 * message through per credit, the serial function node's body posts it. */
struct wf__mpi_send {
    wf_mpi *m;
    int peer, channel;
    size_t size;
    wf_node *face, *queue, *limiter, *body;
    /* Small messages go out in batches of up to batch_max (engine.c,
     * "batches"); buf_size = batch_max * size, the size of every data
     * buffer of the channel. */
    unsigned batch_max;
    size_t buf_size;
    pthread_mutex_t mu; /* guards `open` and the free buffers; taken
                           before m->lock */
    wf__mpi_out *open;  /* the batch being filled, or NULL */
    bool dirty;         /* engine: on m->dirty, to flush at the pass's end */
    wf__mpi_send *next_dirty;
    wf__mpi_out *free_bufs; /* under mu */
    unsigned n_free;
    bool peer_seen; /* under m->lock */
    /* Messages sent (by the body, one at a time: a serial node) and
     * credits granted (by the engine, or the creating thread), and the
     * receiver's first grant; for the statistics. */
    _Atomic uint64_t sent, granted, window;
};

/* Whether s's data messages go on the bulk communicator. */
static inline bool wf__mpi_bulk(const wf__mpi_send *s)
{
    return s->buf_size > WF__MPI_SMALL_MAX;
}

/* The receiving end: an async_node whose gateway the engine puts into,
 * in front of a ring of `credits` message slots. */
struct wf__mpi_recv {
    wf_mpi *m;
    int peer, channel;
    size_t size;
    unsigned credits, batch;
    wf_node *face, *node;
    wf_gateway *gw;
    unsigned char *ring;
    bool peer_seen; /* under m->lock */
    /* engine */
    uint64_t head, tail; /* delivered, received: slot = index % credits */
    uint64_t granted;    /* credits granted in all (the first included) */
    uint64_t pending;    /* delivered, not yet granted back           */
    bool blocked, ready; /* the head was rejected; on the ready list  */
    int64_t retry_at;    /* ns, CLOCK_MONOTONIC, when blocked         */
    int64_t retry_delay; /* ns, doubles while rejections go on        */
    wf__mpi_recv *next_ready;
};

/* A hello that arrived before its endpoint was made. */
typedef struct wf__mpi_hello {
    struct wf__mpi_hello *next;
    int peer;
    wf__mpi_ctrl c;
} wf__mpi_hello;

/* A collective the engine runs for wf_mpi_graph_wait_all. */
enum { WF__COLL_SUM, WF__COLL_MINLOC };
typedef struct wf__mpi_coll {
    int op;
    int64_t in[4], out[4]; /* WF__COLL_SUM over int64 */
    int pin[2], pout[2];   /* WF__COLL_MINLOC over MPI_2INT */
    MPI_Request req;
    bool posted; /* engine */
    bool done;   /* under wake_mu */
} wf__mpi_coll;

/* An endpoint table: open addressing on (peer, channel). */
typedef struct wf__mpi_table {
    uint64_t *keys;
    void **vals;
    size_t cap, n;
} wf__mpi_table;

struct wf_mpi {
    wf_graph *g;
    MPI_Comm user_comm, comm, bulk;
    int rank, size, max_channel;
    wf_mpi_mode mode;
    unsigned credits;
    int64_t poll_max_ns, poll_spin_ns;
    int64_t poll_idle_ns; /* longest sleep once the computation is over */
    wf_node *anchor;      /* private async node: reservations, cancel hook */
    wf_gateway *agw;
    struct wf_mpi *next_ctx; /* the registry (context.c) */

    pthread_mutex_t lock;
    wf__mpi_table sends, recvs;
    wf__mpi_send **send_list;
    wf__mpi_recv **recv_list;
    size_t n_send, n_recv, cap_send, cap_recv;
    wf__mpi_hello *hellos;
    wf__mpi_out *out_head, *out_tail; /* outbox: not MULTIPLE */
    MPI_Request *reqs;                /* posted sends                 */
    wf__mpi_out **req_items;
    int *req_idx;
    int n_reqs, cap_reqs;
    _Atomic int any_reqs; /* n_reqs > 0, for a look without the lock */
    uint64_t *posted_to;  /* per peer: sends posted, of every kind  */
    uint64_t *recvd_from; /* per peer: messages received (engine)   */

    /* who runs the engine; sleep and wake-up of the engine, collectives */
    pthread_mutex_t engine_mu;
    pthread_mutex_t wake_mu;
    pthread_cond_t wake_cv, done_cv;
    _Atomic int sleeping, kicked; /* sleeping: how many threads sleep */
    /* Set when wf_mpi_graph_wait_all has found the computation over;
     * cleared by the next traffic, here or from a worker's send.  Every
     * access is relaxed: it only chooses how long the engine may sleep,
     * and a stale value costs at most one sleep of poll_idle_ns (the
     * documented bound), never a message. */
    _Atomic int quiet;
    /* Set (release) by wf_mpi_graph_wait_all, cleared by the engine when
     * done; read (acquire) without the lock. */
    _Atomic(wf__mpi_coll *) coll;
    pthread_t thread;
    bool has_thread;
    _Atomic int stop;

    /* engine: the receives posted on comm, each into its landing
     * buffer, taken in posting order from rx_head */
    MPI_Request rx[WF__MPI_RX_DEPTH];
    unsigned char (*landing)[WF__MPI_SMALL_MAX];
    unsigned rx_head;
    bool rx_posted;
    wf__mpi_recv *ready;     /* receivers holding undelivered messages */
    wf__mpi_send *dirty;     /* senders with a batch to flush */
    wf__mpi_recv *last_recv; /* the endpoints last looked up */
    wf__mpi_send *last_send;
    /* Earliest retry of a blocked receiver, or 0; written by the engine,
     * read (relaxed, a hint for the next sleep) after it let go. */
    _Atomic int64_t next_retry;
    void *scratch;
    size_t scratch_size;
    bool abort_sent;
    _Atomic uint64_t polls, sleeps; /* statistics: relaxed */

    /* Termination detection: counted messages sent and received (data,
     * credits, hellos), and what happened to the graph. */
    _Atomic uint64_t n_sent, n_received;
    _Atomic int cancelled, remote, origin, origin_err;
    _Atomic int closing;
    _Atomic int failed; /* the result of a failed wait_all, kept */

    /* statistics */
    _Atomic uint64_t st_delivered, st_ctrl_sent, st_ctrl_received,
        st_credit_waits, st_rejections, st_max_in_flight, st_max_queued,
        st_rounds;
};

/* ---- context.c ---- */
int64_t wf__mpi_now_ns(void);
void wf__mpi_fail(wf_mpi *m, int err);
void wf__mpi_stat_max(_Atomic uint64_t *stat, uint64_t v);
void *wf__mpi_table_get(const wf__mpi_table *t, int peer, int channel);
int wf__mpi_table_put(wf__mpi_table *t, int peer, int channel, void *v);
wf_mpi *wf__mpi_find(const wf_graph *g);
unsigned wf__mpi_credits_for(const wf_mpi *m, unsigned own, size_t size);
int wf__mpi_check_caller(const wf_mpi *m);

/* ---- engine.c ---- */
bool wf__mpi_engine_step(wf_mpi *m);
bool wf__mpi_on_engine(const wf_mpi *m);
void wf__mpi_flush_batches(wf_mpi *m);
void wf__mpi_engine_wait(wf_mpi *m, int64_t *idle_since, int64_t *delay,
                         int64_t wake_at);
bool wf__mpi_test_sends(wf_mpi *m);
int wf__mpi_post_receives(wf_mpi *m);
enum { WF__RX_NONE, WF__RX_CTRL, WF__RX_DATA }; /* what a receive took */
int wf__mpi_receive_one(wf_mpi *m, bool drop);
void wf__mpi_cancel_receives(wf_mpi *m);
void wf__mpi_discard_bulk(wf_mpi *m, int peer, int channel, int count);
void wf__mpi_kick(wf_mpi *m);
void wf__mpi_wake_if_quiet(wf_mpi *m);
int wf__mpi_engine_start(wf_mpi *m);
void wf__mpi_engine_stop(wf_mpi *m);
void wf__mpi_send_out(wf_mpi *m, wf__mpi_out *o, bool from_engine);
int wf__mpi_send_ctrl(wf_mpi *m, int dest, const wf__mpi_ctrl *c,
                      bool from_engine);

/* ---- endpoint.c ---- */
void wf__mpi_on_hello(wf_mpi *m, int peer, const wf__mpi_ctrl *c);
void wf__mpi_on_credit(wf_mpi *m, int peer, const wf__mpi_ctrl *c);
void wf__mpi_on_data(wf_mpi *m, int peer, int channel, int count,
                     const void *data);
void wf__mpi_on_bulk(wf_mpi *m, int peer, const wf__mpi_ctrl *c);
bool wf__mpi_deliver(wf_mpi *m);
void wf__mpi_drop_all(wf_mpi *m);
unsigned wf__mpi_unmatched(wf_mpi *m);
void wf__mpi_endpoints_destroy(wf_mpi *m);

/* ---- wait.c ---- */
int wf__mpi_drain(wf_mpi *m);

#endif /* WEFT_SRC_MPI_IMPL_H */
