/* SPDX-License-Identifier: Apache-2.0 */
/* The receiving end of a channel (rank B): an async_node whose gateway
 * the engine puts into, from a ring of `credits` slots that MPI receives
 * into.  A message a successor takes frees its slot and becomes a credit
 * for the sender (sender.c), returned in batches of credits / 4, or at
 * once when the sender has used every credit it was given (it may be
 * stalled).  So at most `credits` messages of a channel are between the
 * sender's limiter and the receiver's successors, and a successor that
 * rejects holds the sender back. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal/mpi/counters.h"
#include "internal/mpi/endpoint.h"
#include "internal/mpi/failure.h"
#include "internal/mpi/landing.h"
#include "internal/mpi/outgoing.h"
#include "internal/mpi/receiver.h"
#include "internal/mpi/settings.h"
#include "internal/util.h"

#define DELIVER_BATCH 64 /* messages per receiver per pass of the engine */

/* ---- creation ------------------------------------------------------------ */

static int no_input(const void *in, wf_gateway *gw, void *ctx)
{
    (void)in;
    (void)gw;
    (void)ctx;
    return WF_EINVAL; /* the receiver's input port is not exposed */
}

static int make_receiver_nodes(wf__mpi_recv *r)
{
    wf_async_config a = WF_ASYNC_CONFIG_INIT;
    a.in_size = WF_SIGNAL;
    a.out_size = r->size;
    a.body = no_input;
    int err = wf_async_node_create(&r->node, r->m->g, &a);
    wf_port outp = wf_output_port(r->node, 0);
    if (!err)
        err = wf_composite_node_create(&r->face, r->m->g, 0, NULL, 1, &outp);
    if (!err) {
        r->gw = wf_async_node_gateway(r->node);
        char name[64];
        snprintf(name, sizeof name, "mpi_receiver(from %d, channel %d)",
                 r->peer, r->channel);
        wf_node_set_name(r->face, name);
    }
    return err;
}

int wf_mpi_receiver_create_with(wf_node **out, wf_mpi *m,
                                const wf_mpi_channel_config *cfg)
{
    int err = wf__mpi_check_args(out, m, cfg);
    if (err)
        return err;
    pthread_mutex_lock(&m->lock);
    err = wf__mpi_table_get(&m->recvs, cfg->peer, cfg->channel) ? WF_EEXIST : 0;
    pthread_mutex_unlock(&m->lock);
    wf__mpi_recv *r = err ? NULL : calloc(1, sizeof *r);
    if (r == NULL)
        return err ? err : WF_ENOMEM;
    r->m = m;
    r->peer = cfg->peer;
    r->channel = cfg->channel;
    r->size = cfg->msg_size;
    r->credits = wf__mpi_credits_for(m, cfg->credits, r->size);
    r->batch = r->credits / 4 ? r->credits / 4 : 1;
    r->granted = r->credits;
    r->ring = malloc((size_t)r->credits * r->size);
    err = r->ring ? make_receiver_nodes(r) : WF_ENOMEM;
    wf__mpi_hello *early = NULL;
    if (!err)
        err = wf__mpi_publish(m, false, r->peer, r->channel, r, &early);
    if (err) {
        wf_node *nodes[] = {r->face, r->node};
        wf__mpi_destroy_nodes(nodes, 2);
        free(r->ring);
        free(r);
        return err;
    }
    wf__mpi_ctrl hello = {WF__CTRL_HELLO_RECEIVER, cfg->channel,
                          (int64_t)r->size, (int64_t)r->credits};
    wf__mpi_count_sent(m); /* the hello, with the first credits (M3) */
    if (wf__mpi_send_ctrl(m, r->peer, &hello, false) != 0)
        wf__mpi_fail(m, WF_ENOMEM);
    if (early != NULL) {
        if ((size_t)early->c.a != r->size)
            wf__mpi_fail(m, WF_ESIZE);
        free(early);
    }
    *out = r->face;
    return 0;
}

int wf_mpi_receiver_create(wf_node **out, wf_mpi *m, int source, int channel,
                           size_t msg_size)
{
    wf_mpi_channel_config c = WF_MPI_CHANNEL_CONFIG_INIT;
    c.peer = source;
    c.channel = channel;
    c.msg_size = msg_size;
    return wf_mpi_receiver_create_with(out, m, &c);
}

void wf__mpi_receiver_free(wf__mpi_recv *r)
{
    wf_node *nodes[] = {r->face, r->node};
    wf__mpi_destroy_nodes(nodes, 2);
    free(r->ring);
    free(r);
}

/* ---- arrival (engine) ---------------------------------------------------- */

/* The receiver of (peer, channel), or NULL.  Endpoints live as long as
 * the context: the last one found is kept (engine), which spares the
 * lock on a stream. */
static wf__mpi_recv *find_receiver(wf_mpi *m, int peer, int channel)
{
    wf__mpi_recv *r = m->last_recv;
    if (r == NULL || r->peer != peer || r->channel != channel) {
        pthread_mutex_lock(&m->lock);
        r = wf__mpi_table_get(&m->recvs, peer, channel);
        pthread_mutex_unlock(&m->lock);
        if (r != NULL)
            m->last_recv = r;
    }
    return r;
}

/* Why k messages of `count` bytes in all cannot enter r's ring, or 0. */
static int check_data(const wf__mpi_recv *r, int count, uint64_t k)
{
    return r == NULL                                      ? WF_ESTATE
           : k == 0 || (size_t)count != k * r->size       ? WF_ESIZE
           : r->tail - r->head + k > (uint64_t)r->credits ? WF_ESTATE
                                                          : 0;
}

/* Whether a data message is to be dropped: the graph was cancelled, or
 * the message breaks the protocol (bad), which fails the context. */
static bool drop_data(wf_mpi *m, int bad)
{
    /* M2: relaxed, a hint: a load that misses the cancel hook's store
     * lets a message into the ring of a cancelled graph, whose delivery
     * then finds the graph cancelled and drops it. */
    if (wf_load_relaxed(&m->cancelled))
        return true;
    if (bad)
        wf__mpi_fail(m, bad);
    return bad != 0;
}

static void mark_ready(wf_mpi *m, wf__mpi_recv *r, uint64_t k)
{
    r->tail += k;
    wf__mpi_stat_max(&m->st_max_queued, r->tail - r->head);
    if (!r->ready) {
        r->ready = true;
        r->next_ready = m->ready;
        m->ready = r;
    }
}

/* One message, or a batch of k (batch.c), copied into its channel's ring;
 * or dropped (after a cancel; or a message that breaks the protocol). */
void wf__mpi_on_data(wf_mpi *m, int peer, int channel, int count,
                     const void *data)
{
    wf__mpi_recv *r = find_receiver(m, peer, channel);
    uint64_t k = r != NULL && count > 0 ? (uint64_t)count / r->size : 0;
    if (drop_data(m, check_data(r, count, k)))
        return;
    uint64_t slot = r->tail % r->credits;
    size_t first = (size_t)count; /* bytes before the ring's end */
    if (slot + k > r->credits)
        first = (size_t)(r->credits - slot) * r->size;
    memcpy(r->ring + slot * r->size, data, first);
    memcpy(r->ring, (const unsigned char *)data + first, (size_t)count - first);
    mark_ready(m, r, k);
}

/* Received into its slot of the ring. */
void wf__mpi_on_bulk(wf_mpi *m, int peer, const wf__mpi_ctrl *c)
{
    wf__mpi_recv *r = find_receiver(m, peer, c->channel);
    int count = c->a > 0 && c->a <= INT_MAX ? (int)c->a : 0;
    uint64_t k = r != NULL && r->size == (size_t)count; /* one message */
    if (drop_data(m, check_data(r, count, k))) {
        wf__mpi_discard_bulk(m, peer, c->channel, count);
        return;
    }
    MPI_Recv(r->ring + (r->tail % r->credits) * r->size, count, MPI_BYTE, peer,
             WF__MPI_TAG_DATA + c->channel, m->bulk, MPI_STATUS_IGNORE);
    m->recvd_from[peer]++;
    mark_ready(m, r, 1);
}

/* ---- delivery (engine) --------------------------------------------------- */

/* A message was taken: its slot is free.  Grant it back in batches, or at
 * once when the sender has used all it was granted. */
static void credit_back(wf_mpi *m, wf__mpi_recv *r)
{
    r->pending++;
    if (r->pending < r->batch && r->tail != r->granted)
        return;
    wf__mpi_ctrl c = {WF__CTRL_CREDIT, r->channel, (int64_t)r->pending, 0};
    wf__mpi_count_sent(m); /* M3: counted, it lets the sender go on */
    r->granted += r->pending;
    r->pending = 0;
    if (wf__mpi_send_ctrl(m, r->peer, &c, true) != 0)
        wf__mpi_fail(m, WF_ENOMEM);
}

/* The clock, read at most once a pass and only when a blocked receiver
 * needs it: *now is 0 until then. */
static int64_t clock_once(int64_t *now)
{
    if (*now == 0)
        *now = (int64_t)wf__now_ns();
    return *now;
}

/* Offer a receiver's messages to its successors, in order, until one is
 * rejected.  Returns how many were taken. */
static int deliver_one(wf_mpi *m, wf__mpi_recv *r, int64_t *now)
{
    int n = 0;
    /* No reservation: the put starts the message's work before the count
     * (termination.c, "the local counts"). */
    while (r->head != r->tail && n < DELIVER_BATCH) {
        int rc = wf_gateway_try_put(r->gw,
                                    r->ring + (r->head % r->credits) * r->size);
        if (rc == 1) {
            r->head++;
            n++;
            wf__mpi_count_received(m);
            /* M6: relaxed statistics with one writer, the engine (one
             * thread has it at a time): a load and a store, not an RMW. */
            wf_counter_inc(&m->st_delivered);
            r->blocked = false;
            r->retry_delay = 0;
            credit_back(m, r);
        } else if (rc == 0) { /* every successor rejected: later, again */
            wf_fetch_add_relaxed(&m->st_rejections, 1); /* M6 */
            r->blocked = true;
            r->retry_delay = r->retry_delay ? r->retry_delay * 2 : 1000;
            if (r->retry_delay > m->poll_max_ns)
                r->retry_delay = m->poll_max_ns;
            r->retry_at = clock_once(now) + r->retry_delay;
            break;
        } else { /* cancelled or destroyed: nobody will take them */
            r->head = r->tail;
            break;
        }
    }
    return n;
}

bool wf__mpi_deliver(wf_mpi *m)
{
    bool any = false;
    int64_t next = 0, now = 0;
    for (wf__mpi_recv **p = &m->ready; *p != NULL;) {
        wf__mpi_recv *r = *p;
        if (!r->blocked || clock_once(&now) >= r->retry_at)
            any |= deliver_one(m, r, &now) > 0;
        if (r->head == r->tail) { /* nothing left: off the list */
            *p = r->next_ready;
            r->ready = false;
            r->blocked = false;
            continue;
        }
        if (r->blocked && (next == 0 || r->retry_at < next))
            next = r->retry_at;
        p = &r->next_ready;
    }
    wf_store_relaxed(&m->next_retry, next); /* M5: a hint for the sleep */
    return any;
}

void wf__mpi_drop_all(wf_mpi *m)
{
    for (wf__mpi_recv *r = m->ready; r != NULL; r = r->next_ready) {
        r->head = r->tail;
        r->ready = r->blocked = false;
    }
    m->ready = NULL;
    wf_store_relaxed(&m->next_retry, 0); /* M5: a hint for the sleep */
}
