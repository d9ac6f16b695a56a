/* SPDX-License-Identifier: Apache-2.0 */
/* A weft_mpi context: one per graph, over two duplicates of the user's
 * communicator (wire.h).  Creation and destruction; everything else is
 * in the files below it (docs/protocols.md, "The MPI edges", lists the
 * floors). */
#include <stdlib.h>
#include <time.h>

#include "internal/mpi/context.h"
#include "internal/mpi/drain.h"
#include "internal/mpi/engine.h"
#include "internal/mpi/failure.h"
#include "internal/mpi/landing.h"
#include "internal/mpi/outgoing.h"
#include "internal/mpi/receiver.h"
#include "internal/mpi/registry.h"
#include "internal/mpi/sender.h"
#include "internal/mpi/settings.h"

static void free_context(wf_mpi *m)
{
    free(m->posted_to);
    free(m->recvd_from);
    free(m->reqs);
    free(m->req_items);
    free(m->req_idx);
    free(m->send_list);
    free(m->recv_list);
    free(m->scratch);
    free(m->landing);
    wf__mpi_table_free(&m->sends);
    wf__mpi_table_free(&m->recvs);
    pthread_mutex_destroy(&m->lock);
    pthread_mutex_destroy(&m->wake_mu);
    pthread_mutex_destroy(&m->engine_mu);
    pthread_cond_destroy(&m->wake_cv);
    pthread_cond_destroy(&m->done_cv);
    free(m);
}

static int reject_input(const void *in, wf_gateway *gw, void *ctx)
{
    (void)in;
    (void)gw;
    (void)ctx;
    return WF_EINVAL; /* nothing is ever put into the anchor */
}

/* The private node: its gateway holds the graph open while the engine
 * delivers (reservations), and its cancel hook tells us of a cancel. */
static int make_anchor(wf_mpi *m)
{
    wf_async_config c = WF_ASYNC_CONFIG_INIT;
    c.in_size = WF_SIGNAL;
    c.out_size = 1;
    c.body = reject_input;
    int err = wf_async_node_create(&m->anchor, m->g, &c);
    if (err)
        return err;
    m->agw = wf_async_node_gateway(m->anchor);
    wf_node_set_name(m->anchor, "mpi_anchor");
    err = wf_node_set_cancel(m->anchor, wf__mpi_on_cancel, m);
    if (err) {
        wf_node_destroy(m->anchor);
        m->anchor = NULL;
    }
    return err;
}

static int init_context(wf_mpi *m, wf_graph *g, MPI_Comm comm,
                        const wf_mpi_config *cfg)
{
    m->g = g;
    m->user_comm = comm;
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_mutex_init(&m->lock, NULL);
    pthread_mutex_init(&m->wake_mu, NULL);
    pthread_mutex_init(&m->engine_mu, NULL);
    pthread_cond_init(&m->wake_cv, &ca);
    pthread_cond_init(&m->done_cv, &ca);
    pthread_condattr_destroy(&ca);
    int err = wf__mpi_configure(m, cfg);
    if (err)
        return err;
    MPI_Comm_size(comm, &m->size);
    MPI_Comm_rank(comm, &m->rank);
    m->posted_to = calloc((size_t)m->size, sizeof *m->posted_to);
    m->recvd_from = calloc((size_t)m->size, sizeof *m->recvd_from);
    if (m->posted_to == NULL || m->recvd_from == NULL)
        return WF_ENOMEM;
    return 0;
}

/* The collective part of wf_mpi_create: the communicators, the posted
 * receives, the progress thread; undone on failure. */
static int start_context(wf_mpi *m, MPI_Comm comm)
{
    MPI_Comm_dup(comm, &m->comm);
    MPI_Comm_dup(comm, &m->bulk);
    int flag = 0, *tag_ub = NULL;
    MPI_Comm_get_attr(m->comm, MPI_TAG_UB, &tag_ub, &flag);
    /* MPI guarantees MPI_TAG_UB >= 32767 (MPI-3.1, section 8.1.2). */
    m->max_channel = (flag ? *tag_ub : 32767) - WF__MPI_TAG_DATA;
    int err = wf__mpi_post_receives(m);
    if (!err && m->mode != WF_MPI_FUNNELED)
        err = wf__mpi_engine_start(m);
    if (err) {
        wf__mpi_cancel_receives(m);
        MPI_Comm_free(&m->bulk);
        MPI_Comm_free(&m->comm);
        wf_node_destroy(m->anchor);
        wf__mpi_unregister(m);
        free_context(m);
    }
    return err;
}

int wf_mpi_create(wf_mpi **out, wf_graph *g, MPI_Comm comm,
                  const wf_mpi_config *cfg)
{
    if (out == NULL || g == NULL || comm == MPI_COMM_NULL)
        return WF_EINVAL;
    int init = 0, fin = 0;
    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    if (!init || fin)
        return WF_ESTATE;
    wf_mpi *m = calloc(1, sizeof *m);
    if (m == NULL)
        return WF_ENOMEM;
    /* Set up everything that can fail before the collective call, so a
     * rank that fails here does not leave the others in MPI_Comm_dup... */
    int err = init_context(m, g, comm, cfg);
    if (!err)
        err = wf__mpi_check_caller(m);
    if (!err) /* ...and claim g at once, so a second create fails */
        err = wf__mpi_register(m);
    if (!err)
        err = make_anchor(m);
    if (err) {
        if (err != WF_EEXIST)
            wf__mpi_unregister(m);
        free_context(m);
        return err;
    }
    err = start_context(m, comm);
    if (err)
        return err;
    *out = m;
    return 0;
}

static void free_endpoints(wf_mpi *m)
{
    for (size_t i = 0; i < m->n_send; i++)
        wf__mpi_sender_free(m->send_list[i]);
    for (size_t i = 0; i < m->n_recv; i++)
        wf__mpi_receiver_free(m->recv_list[i]);
    m->n_send = m->n_recv = 0;
}

/* The hellos that found no endpoint, and what is left in the outbox. */
static void free_leftovers(wf_mpi *m)
{
    for (wf__mpi_hello *h = m->hellos, *next; h != NULL; h = next) {
        next = h->next;
        free(h);
    }
    for (wf__mpi_out *o = m->out_head, *next; o != NULL; o = next) {
        next = o->next;
        free(o);
    }
}

int wf_mpi_destroy(wf_mpi *m)
{
    if (m == NULL)
        return 0;
    int err = wf__mpi_check_caller(m);
    if (err)
        return err;
    /* Local work first: bodies may still be sending. */
    if (wf_graph_wait_for_all(m->g) == WF_EPERM)
        return WF_EPERM;
    /* M7: relaxed: the flag publishes nothing but itself; an endpoint
     * made while the context is destroyed is the caller's race. */
    wf_store_relaxed(&m->closing, 1);
    if (m->has_thread)
        wf__mpi_engine_stop(m);
    wf_graph_wait_for_all(m->g); /* what the engine started before it stopped */
    wf__mpi_drain(m);            /* collective */
    wf__mpi_cancel_receives(m);
    MPI_Comm_free(&m->bulk);
    MPI_Comm_free(&m->comm);
    wf__mpi_unregister(m);
    free_endpoints(m);
    wf_node_destroy(m->anchor);
    free_leftovers(m);
    free_context(m);
    return 0;
}
