/* SPDX-License-Identifier: Apache-2.0 */
/* weft_mpi's context: the state one graph's MPI edges share.  Private to
 * src/mpi/; weft_mpi is built on weft's public API only.
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
 * published.
 *
 * Atomics.  Every _Atomic field is accessed through the named orders of
 * src/internal/atomic.h; the rules M1-M7 of docs/protocols.md ("The MPI
 * edges") say why each order is enough. */
#ifndef WF_INTERNAL_MPI_CONTEXT_H
#define WF_INTERNAL_MPI_CONTEXT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "internal/atomic.h"
#include "internal/mpi/table.h"
#include "internal/mpi/wire.h"
#include "weft/mpi.h"

typedef struct wf__mpi_out wf__mpi_out;   /* outgoing.h */
typedef struct wf__mpi_send wf__mpi_send; /* sender.h */
typedef struct wf__mpi_recv wf__mpi_recv; /* receiver.h */

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
    struct wf_mpi *next_ctx; /* the registry (registry.c) */

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
    _Atomic int any_reqs; /* n_reqs > 0, for a look without the lock (M5) */
    uint64_t *posted_to;  /* per peer: sends posted, of every kind  */
    uint64_t *recvd_from; /* per peer: messages received (engine)   */

    /* who runs the engine; sleep and wake-up of the engine, collectives */
    pthread_mutex_t engine_mu;
    pthread_mutex_t wake_mu;
    pthread_cond_t wake_cv, done_cv;
    /* sleeping: how many threads sleep; kicked: work for the engine (M1) */
    _Atomic int sleeping, kicked;
    /* Set when wf_mpi_graph_wait_all has found the computation over;
     * cleared by the next traffic, here or from a worker's send.  Every
     * access is relaxed (M5): it only chooses how long the engine may
     * sleep, and a stale value costs at most one sleep of poll_idle_ns
     * (the documented bound), never a message. */
    _Atomic int quiet;
    /* Set (release) by wf_mpi_graph_wait_all, cleared by the engine when
     * done; read (acquire) without the lock (M4). */
    _Atomic(wf__mpi_coll *) coll;
    pthread_t thread;
    bool has_thread;
    _Atomic int stop; /* M7 */

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
     * read (relaxed, a hint for the next sleep: M5) after it let go. */
    _Atomic int64_t next_retry;
    void *scratch;
    size_t scratch_size;
    bool abort_sent;
    _Atomic uint64_t polls, sleeps; /* statistics: relaxed (M6) */

    /* Termination detection: counted messages sent and received (data,
     * credits, hellos: M3), and what happened to the graph (M2, M7).
     * cancelled: 0, WF__MPI_REMOTE (the failure began on another rank),
     * or the code this rank reports as the failure's origin (M2). */
    _Atomic uint64_t n_sent, n_received;
#define WF__MPI_REMOTE 1
    _Atomic int cancelled, remote, origin_err;
    _Atomic int closing;
    _Atomic int failed; /* the result of a failed wait_all, kept */

    /* statistics (M6) */
    _Atomic uint64_t st_delivered, st_ctrl_sent, st_ctrl_received,
        st_credit_waits, st_rejections, st_max_in_flight, st_max_queued,
        st_rounds;
};

#endif /* WF_INTERNAL_MPI_CONTEXT_H */
