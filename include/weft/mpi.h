/* SPDX-License-Identifier: Apache-2.0 */
/* weft — graph edges between MPI ranks (the optional weft_mpi library).
 *
 * One MPI process per node and a weft pool inside each ("MPI + X"); a flow
 * graph on every rank, and edges that cross ranks.  A sender node on rank
 * A and a receiver node on rank B, made by matching calls on both ranks
 * with the same channel id and message size, carry messages from A's
 * graph into B's:
 *
 *     // every rank, after MPI_Init_thread:
 *     wf_graph *g;  wf_graph_create(&g, NULL);
 *     wf_mpi *m;    wf_mpi_create(&m, g, MPI_COMM_WORLD, NULL);  // collective
 *     if (rank == 0) {
 *         wf_node *out;  wf_mpi_sender_create(&out, m, 1, 7, sizeof(long));
 *         wf_make_edge(producer, out);                // local node -> rank 1
 *     } else if (rank == 1) {
 *         wf_node *in;   wf_mpi_receiver_create(&in, m, 0, 7, sizeof(long));
 *         wf_make_edge(in, consumer);                 // from rank 0 -> local
 *     }
 *     ... put messages ...
 *     int rc = wf_mpi_graph_wait_all(MPI_COMM_WORLD, g);  // collective
 *     wf_mpi_destroy(m);                                  // collective
 *     wf_graph_destroy(g);
 *
 * Semantics (docs/mpi.md has the whole story):
 *  - per channel, messages arrive in the order the sender node took them;
 *  - credits bound the messages in flight per channel: a receiver grants
 *    `credits` at first and one more for each message a successor took, so
 *    a receiver whose successor rejects (or is slow) stops the sender
 *    after `credits` messages, and the sender's own predecessors then see
 *    rejections (the edge turns to pull) or a local queue, as chosen;
 *  - wf_mpi_graph_wait_all returns when no work is left on any rank and no
 *    message is in flight (termination detection by message counting);
 *  - a body that fails on one rank cancels the graph on every rank, and
 *    wf_mpi_graph_wait_all returns that error on every rank;
 *  - a message is copied once into a send buffer; a receiver's successor
 *    that is lightweight (WF_LIGHTWEIGHT) reads it where MPI put it, any
 *    other successor gets a copy.
 *
 * Threads.  MPI must be initialised (MPI_Init_thread) before wf_mpi_create
 * and finalised after wf_mpi_destroy.  With MPI_THREAD_MULTIPLE, weft's
 * workers post the sends themselves and one progress thread receives;
 * with MPI_THREAD_SERIALIZED the progress thread makes every MPI call;
 * with MPI_THREAD_FUNNELED (and SINGLE) no other thread may call MPI, so
 * messages move only while the main thread is inside wf_mpi_graph_wait_all
 * or wf_mpi_progress.  Inside wf_mpi_graph_wait_all the calling thread
 * does the progress thread's work meanwhile.  The thread that receives a
 * message runs the work it starts (the successors' bodies, and the sends
 * they make) before it polls again, so bodies may run on it.  The
 * progress thread sleeps when nothing happens, polling less and less
 * often (MPI has no blocking wait that sleeps).
 *
 * Errors.  0 or a negative WF_E... code, as everywhere in weft.  MPI errors
 * are handled by the communicator's error handler (by default, MPI aborts);
 * with MPI_ERRORS_RETURN a failed MPI call fails the graph with WF_ESTATE. */
#ifndef WEFT_MPI_H
#define WEFT_MPI_H

#include <mpi.h>
#include <stdint.h>

#include "common.h"
#include "graph.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct wf_mpi wf_mpi;

/* How communication runs.  WF_MPI_AUTO picks what MPI_Query_thread
 * grants; a lower mode than the granted one may be asked for, not a
 * higher one. */
typedef enum wf_mpi_mode {
    WF_MPI_AUTO = 0,
    WF_MPI_FUNNELED = 1,   /* only the main thread calls MPI: in
                              wf_mpi_graph_wait_all and wf_mpi_progress */
    WF_MPI_SERIALIZED = 2, /* one progress thread makes every MPI call */
    WF_MPI_MULTIPLE = 3    /* workers send; a progress thread receives */
} wf_mpi_mode;

/* Context configuration.  Zero means "default" in every field. */
typedef struct wf_mpi_config {
    unsigned credits;      /* messages in flight per channel, granted by the
                             receiver; 0: 64, fewer for large messages (at
                             most 2 MiB of receive buffer), at least 2 */
    unsigned poll_max_us;  /* longest sleep of the idle progress loop
                             while a computation runs; 0:
                             WEFT_MPI_POLL_MAX_US, else 10000 (once
                             wf_mpi_graph_wait_all has found it over, up
                             to WEFT_MPI_POLL_IDLE_US, else 1 s) */
    unsigned poll_spin_us; /* after the last event, microseconds of
                             polling (back to back at first, then
                             yielding the CPU between polls) before the
                             first sleep; 0: WEFT_MPI_POLL_SPIN_US, else
                             100 */
    wf_mpi_mode mode;      /* WF_MPI_AUTO (0) or a lower mode */
} wf_mpi_config;

#define WF_MPI_CONFIG_INIT                                                     \
    {                                                                          \
        0, 0, 0, WF_MPI_AUTO                                                   \
    }

/* Largest accepted credits per channel; larger ones give WF_ERANGE. */
#define WF_MPI_MAX_CREDITS 65536u

/* Attach cross-rank edges to graph g over communicator comm (duplicated,
 * so weft's messages never meet the application's).  Collective over
 * comm: every rank calls it, each with its own graph.  cfg may be NULL.
 * One context per graph.  Returns 0 and sets *out; WF_EINVAL (out or g
 * NULL, comm MPI_COMM_NULL, an unknown mode), WF_ERANGE (credits above
 * WF_MPI_MAX_CREDITS, a mode above what MPI granted), WF_ESTATE (MPI not
 * initialised, or finalised), WF_EPERM (FUNNELED or SINGLE granted, and
 * this is not the thread that initialised MPI), WF_EEXIST (g has a
 * context already), WF_ENOMEM, WF_EAGAIN (no progress thread).  These are
 * found before the collective duplication of comm, except WF_EAGAIN: a
 * rank that fails does not join it, so give every rank the same
 * arguments, or the others wait there. */
WF_API int wf_mpi_create(wf_mpi **out, wf_graph *g, MPI_Comm comm,
                         const wf_mpi_config *cfg);

/* Tear the context down: wait for the local graph, stop the progress
 * thread, receive and drop every message still addressed to this rank
 * (each rank tells the others how many it sent), free the communicator
 * and the endpoint nodes.  Collective over the context's communicator;
 * call it after wf_mpi_graph_wait_all (or after it failed) and before
 * wf_graph_destroy.  NULL is accepted.  Returns 0, WF_EPERM (from a pool
 * worker of the graph, or not from the main thread in FUNNELED mode:
 * nothing is done). */
WF_API int wf_mpi_destroy(wf_mpi *m);

/* Endpoint configuration. */
typedef struct wf_mpi_channel_config {
    int peer;            /* the other end's rank in the context's
                            communicator; may be this rank */
    int channel;         /* 0 .. wf_mpi_max_channel(m); one sender and one
                            receiver per (sender rank, receiver rank,
                            channel) */
    size_t msg_size;     /* bytes per message, > 0, the same at both ends */
    unsigned credits;    /* receiver only: messages in flight; 0: the
                            context's */
    wf_fn_policy policy; /* sender only: WF_QUEUEING (default): the sender
                            takes every message and keeps those it has no
                            credit for in a local queue; WF_REJECTING: it
                            rejects them, so the edge from a buffering
                            predecessor turns to pull (a non-buffering
                            predecessor drops what is rejected, as with
                            any node that rejects) */
} wf_mpi_channel_config;

#define WF_MPI_CHANNEL_CONFIG_INIT                                             \
    {                                                                          \
        0, 0, 0, 0, WF_QUEUEING                                                \
    }

/* A node of the context's graph with one input port of cfg->msg_size
 * bytes and no output: every message it takes goes to the receiver of
 * cfg->channel on rank cfg->peer, in the order taken.  The sender learns
 * the receiver's size and credits when that receiver exists; before that,
 * and whenever the credits are used up, messages wait (or are rejected,
 * WF_REJECTING).  The context owns the node: wf_mpi_destroy frees it; do
 * not pass it to wf_node_destroy.  Any thread; not collective.  Returns 0
 * and sets *out; WF_EINVAL (out, m or cfg NULL, msg_size 0, peer out of
 * range, an unknown policy), WF_ERANGE (channel below 0 or above
 * wf_mpi_max_channel, msg_size above INT_MAX), WF_EEXIST (this rank has
 * that sender already), WF_ESTATE (the context failed or is being
 * destroyed), WF_ENOMEM.  A receiver whose size differs fails the graph
 * on both ranks with WF_ESIZE; one that is never made makes
 * wf_mpi_graph_wait_all return WF_ENOENT. */
WF_API int wf_mpi_sender_create_with(wf_node **out, wf_mpi *m,
                                     const wf_mpi_channel_config *cfg);

/* wf_mpi_sender_create_with for {dest, channel, msg_size} and defaults. */
WF_API int wf_mpi_sender_create(wf_node **out, wf_mpi *m, int dest, int channel,
                                size_t msg_size);

/* A node of the context's graph with no input and one output port of
 * cfg->msg_size bytes: it broadcasts, in order, the messages that the
 * sender of cfg->channel on rank cfg->peer took.  It grants the sender
 * cfg->credits (or the context's) at first, and one more each time a
 * successor takes a message; a message every successor rejects waits,
 * and is offered again later (polling, less and less often), so a
 * successor that never takes it again stalls the channel (put a queue
 * node before a reserving join).  Owned by the context as a sender is.
 * Any thread; not collective.  Returns 0 and sets *out; the errors of
 * wf_mpi_sender_create_with, and WF_ERANGE for credits above
 * WF_MPI_MAX_CREDITS. */
WF_API int wf_mpi_receiver_create_with(wf_node **out, wf_mpi *m,
                                       const wf_mpi_channel_config *cfg);

/* wf_mpi_receiver_create_with for {source, channel, msg_size} and
 * defaults. */
WF_API int wf_mpi_receiver_create(wf_node **out, wf_mpi *m, int source,
                                  int channel, size_t msg_size);

/* Wait until the computation is over on every rank of comm: no body
 * running or queued on any rank, no message in flight between them.
 * Collective over comm (the communicator given to wf_mpi_create for g;
 * every rank calls it with its own graph), called after this rank's own
 * puts from outside the graph.  The calling thread takes part in the
 * local graph's work: it receives and runs what messages start (the
 * progress thread waits meanwhile), and waits as wf_graph_wait_for_all
 * does while the graph is busy with other work.  Returns 0, or the same
 * error on every rank: the first error of a body on the lowest rank that
 * failed (a rank whose graph was cancelled by wf_graph_cancel: WF_ECANCELED),
 * WF_ESIZE (two ends of a channel disagree on the message size), WF_ENOENT
 * (an endpoint whose other end was never made); after a failure the
 * context only answers that error and must be destroyed.  Also, on this
 * rank only: WF_EINVAL (g NULL, or comm is not the one g's context was
 * made with), WF_ENOENT (g has no context), WF_EPERM (from a body of g, or
 * not from the main thread in FUNNELED mode). */
WF_API int wf_mpi_graph_wait_all(MPI_Comm comm, wf_graph *g);

/* Move messages now, without waiting: post queued sends, complete
 * finished ones, receive and deliver what has arrived.  Needed only in
 * FUNNELED mode, by the main thread, to keep messages moving while it
 * does something else than wf_mpi_graph_wait_all; in the other modes it
 * does nothing.  Returns 1 if anything moved, 0 if not, WF_EINVAL (m
 * NULL), WF_EPERM (FUNNELED mode, not the main thread). */
WF_API int wf_mpi_progress(wf_mpi *m);

/* The mode the context runs in (never WF_MPI_AUTO); WF_MPI_AUTO for m
 * NULL. */
WF_API wf_mpi_mode wf_mpi_get_mode(const wf_mpi *m);

/* The largest channel id of the context (from the communicator's
 * MPI_TAG_UB); -1 for m NULL. */
WF_API int wf_mpi_max_channel(const wf_mpi *m);

/* Counters of one context, since it was made. */
typedef struct wf_mpi_stats {
    uint64_t data_sent;      /* messages the sender nodes sent */
    uint64_t data_delivered; /* messages receivers passed to a successor */
    uint64_t ctrl_sent;      /* credit, hello and abort messages */
    uint64_t ctrl_received;
    uint64_t credit_waits;  /* times a sender ran out of credits */
    uint64_t rejections;    /* deliveries that every successor rejected */
    uint64_t max_in_flight; /* most messages of one channel sent and not
                                yet credited back, seen by its sender */
    uint64_t max_queued;    /* most messages of one channel received and
                                not yet delivered, seen by its receiver */
    uint64_t polls;         /* iterations of the progress loop */
    uint64_t sleeps;        /* of which ended in a sleep */
    uint64_t rounds;        /* termination-detection rounds (allreduces) */
} wf_mpi_stats;

/* Copy the context's counters into *out.  Any thread; the counters are
 * read one at a time, not as one snapshot.  Returns 0 or WF_EINVAL. */
WF_API int wf_mpi_get_stats(const wf_mpi *m, wf_mpi_stats *out);

#ifdef __cplusplus
}
#endif
#endif /* WEFT_MPI_H */
