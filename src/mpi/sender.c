/* SPDX-License-Identifier: Apache-2.0 */
/* The sending end of a channel (rank A):
 * [queue_node ->] limiter_node -> function_node(serial).
 *
 * The limiter starts full (no credit); each credit from the receiver
 * (receiver.c) lowers its count by one, and a lowered limiter pulls the
 * next message from a predecessor in pull state (its own queue, or the
 * user's buffer).  The serial function node's body copies the message and
 * posts it, so messages leave in the order the node took them; it is
 * lightweight, so the thread that forwards a message runs that body on it
 * when the node is idle (the one copy is then the body's).
 *
 * This is the credit scheme of flow control in networks-on-chip and of
 * InfiniBand's reliable connections (end-to-end credits), on top of MPI's
 * own ordering: two messages from one sender to one receiver on one
 * communicator, that both match the same receive, are received in order
 * (non-overtaking, MPI-3.1 section 3.5); the engine takes them in that
 * order (dispatch.c), and the sender's bodies post one at a time. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal/mpi/batch.h"
#include "internal/mpi/counters.h"
#include "internal/mpi/endpoint.h"
#include "internal/mpi/failure.h"
#include "internal/mpi/outgoing.h"
#include "internal/mpi/sender.h"

/* The limiter's threshold: the count starts there (no credit) and each
 * credit lowers it; far above any number of credits in flight. */
#define LIMIT ((int64_t)1 << 40)
/* Batches (batch.c): messages of at most BATCH_MSG_MAX bytes, up to
 * BATCH_MAX of them and BATCH_BYTES in all, so that a batch stays within
 * Open MPI's shared-memory eager limit (4 KiB, btl_vader_eager_limit):
 * one copy through the shared FIFO, no rendezvous. */
#define BATCH_MSG_MAX 256
#define BATCH_MAX 64
#define BATCH_BYTES 4000

void wf__mpi_grant(wf__mpi_send *s, int64_t n)
{
    wf_fetch_add_relaxed(&s->granted, (uint64_t)n); /* M6: a statistic */
    wf_try_put(wf_input_port(s->limiter, 1), &n);
}

/* Statistics of a message about to leave, and its count (M3). */
static void count_sent(wf__mpi_send *s)
{
    wf_mpi *m = s->m;
    /* M6: relaxed statistics, read by nobody who acts on them.  One body
     * at a time sends on a channel (a serial node): `sent` has one
     * writer. */
    uint64_t sent = wf_load_relaxed(&s->sent) + 1;
    wf_store_relaxed(&s->sent, sent);
    uint64_t granted = wf_load_relaxed(&s->granted);
    uint64_t window = wf_load_relaxed(&s->window);
    if (sent + window > granted)
        wf__mpi_stat_max(&m->st_max_in_flight, sent + window - granted);
    if (sent == granted)
        wf_fetch_add_relaxed(&m->st_credit_waits, 1);
    /* Counted before it can arrive anywhere (termination.c). */
    wf__mpi_count_sent(m);
}

/* A small message: into the channel's open batch (batch.c).  On the
 * engine's thread the batch waits for the end of the pass (or until it
 * is full); on any other thread it leaves now. */
static int send_batched(wf__mpi_send *s, const void *in)
{
    wf_mpi *m = s->m;
    bool engine = wf__mpi_on_engine(m);
    pthread_mutex_lock(&s->mu);
    wf__mpi_out *o = s->open;
    if (o == NULL) {
        if ((o = wf__mpi_take_buffer(s)) == NULL) {
            pthread_mutex_unlock(&s->mu);
            return WF_ENOMEM;
        }
        s->open = o;
    }
    memcpy(o->data + o->count, in, s->size);
    o->count += (int)s->size;
    count_sent(s);
    if (!engine || (size_t)o->count == s->buf_size) {
        s->open = NULL; /* posted under mu: batches leave in order */
        wf__mpi_send_out(m, o, false);
    }
    bool mark = s->open != NULL && !s->dirty; /* engine: s->dirty is its */
    pthread_mutex_unlock(&s->mu);
    if (mark)
        wf__mpi_mark_dirty(m, s);
    return 0;
}

/* The function node's body: one message out, in order (serial node).
 * The message is copied and posted without waiting: the node's buffer is
 * gone when the body returns.  (A blocking MPI_Send from that buffer
 * would save the copy, but hold a worker in MPI's busy wait until the
 * receiver has taken the message.) */
static int send_body(const void *in, void *out, void *ctx)
{
    (void)out;
    wf__mpi_send *s = ctx;
    wf_mpi *m = s->m;
    if (s->batch_max > 1)
        return send_batched(s, in);
    pthread_mutex_lock(&s->mu);
    wf__mpi_out *o = wf__mpi_take_buffer(s);
    pthread_mutex_unlock(&s->mu);
    if (o == NULL)
        return WF_ENOMEM;
    memcpy(o->data, in, s->size);
    o->count = (int)s->size;
    if (wf__mpi_bulk(s)) {
        /* Announced on comm (wire.h, the communicators), after it is
         * posted: the receiving engine, which waits on it as soon as the
         * announcement comes, never waits for a post. */
        wf__mpi_out *a = malloc(sizeof *a + sizeof(wf__mpi_ctrl));
        if (a == NULL) {
            free(o);
            return WF_ENOMEM;
        }
        wf__mpi_ctrl c = {WF__CTRL_BULK, s->channel, o->count, 0};
        *a = (wf__mpi_out){
            .dest = s->peer, .tag = WF__MPI_TAG_CTRL, .count = (int)sizeof c};
        memcpy(a->data, &c, sizeof c);
        o->next = a;
    }
    count_sent(s);
    wf__mpi_send_out(m, o, false);
    return 0;
}

static int make_sender_nodes(wf__mpi_send *s, wf_fn_policy policy)
{
    wf_graph *g = s->m->g;
    int err =
        wf_limiter_node_create_counted(&s->limiter, g, s->size, (size_t)LIMIT);
    wf_function_config f = WF_FUNCTION_CONFIG_INIT;
    f.in_size = s->size;
    f.concurrency = WF_SERIAL;
    /* Lightweight: the thread that forwards a message through the limiter
     * posts it, from its own buffer, with no copy into the node's. */
    f.policy = WF_LIGHTWEIGHT;
    f.body = send_body;
    f.ctx = s;
    if (!err)
        err = wf_function_node_create(&s->body, g, &f);
    if (!err && policy == WF_QUEUEING)
        err = wf_queue_node_create(&s->queue, g, s->size);
    int64_t full = -LIMIT; /* raise the count to the threshold: no credit */
    if (!err && wf_try_put(wf_input_port(s->limiter, 1), &full) != 1)
        err = WF_ESTATE;
    if (!err)
        err = wf_make_edge_ports(wf_output_port(s->limiter, 0),
                                 wf_input_port(s->body, 0));
    if (!err && s->queue)
        err = wf_make_edge_ports(wf_output_port(s->queue, 0),
                                 wf_input_port(s->limiter, 0));
    wf_port in = wf_input_port(s->queue ? s->queue : s->limiter, 0);
    if (!err)
        err = wf_composite_node_create(&s->face, g, 1, &in, 0, NULL);
    if (!err) {
        char name[64];
        snprintf(name, sizeof name, "mpi_sender(to %d, channel %d)", s->peer,
                 s->channel);
        wf_node_set_name(s->face, name);
    }
    return err;
}

/* A new sender of cfg's, not yet published (NULL: no memory). */
static wf__mpi_send *new_sender(wf_mpi *m, const wf_mpi_channel_config *cfg)
{
    wf__mpi_send *s = calloc(1, sizeof *s);
    if (s == NULL)
        return NULL;
    s->m = m;
    s->peer = cfg->peer;
    s->channel = cfg->channel;
    s->size = cfg->msg_size;
    s->batch_max = 1;
    if (s->size <= BATCH_MSG_MAX) {
        size_t n = BATCH_BYTES / s->size;
        s->batch_max = n > BATCH_MAX ? BATCH_MAX : (unsigned)n;
    }
    s->buf_size = s->batch_max * s->size;
    pthread_mutex_init(&s->mu, NULL);
    return s;
}

int wf_mpi_sender_create_with(wf_node **out, wf_mpi *m,
                              const wf_mpi_channel_config *cfg)
{
    int err = wf__mpi_check_args(out, m, cfg);
    if (err)
        return err;
    pthread_mutex_lock(&m->lock);
    err = wf__mpi_table_get(&m->sends, cfg->peer, cfg->channel) ? WF_EEXIST : 0;
    pthread_mutex_unlock(&m->lock);
    wf__mpi_send *s = err ? NULL : new_sender(m, cfg);
    if (s == NULL)
        return err ? err : WF_ENOMEM;
    wf__mpi_hello *early = NULL;
    wf__mpi_ctrl hello = {WF__CTRL_HELLO_SENDER, cfg->channel,
                          (int64_t)cfg->msg_size, 0};
    err = make_sender_nodes(s, cfg->policy);
    if (!err)
        err = wf__mpi_publish(m, true, s->peer, s->channel, s, &early);
    if (err) {
        wf_node *nodes[] = {s->face, s->queue, s->limiter, s->body};
        wf__mpi_destroy_nodes(nodes, 4);
        pthread_mutex_destroy(&s->mu);
        free(s);
        return err;
    }
    wf__mpi_count_sent(m); /* the hello is counted (M3) */
    if (wf__mpi_send_ctrl(m, s->peer, &hello, false) != 0)
        wf__mpi_fail(m, WF_ENOMEM);
    if (early != NULL) { /* the receiver was first: its credits are here */
        if ((size_t)early->c.a != s->size) {
            wf__mpi_fail(m, WF_ESIZE);
        } else {
            /* M6: a statistic's input, read relaxed by count_sent. */
            wf_store_relaxed(&s->window, (uint64_t)early->c.b);
            wf__mpi_grant(s, early->c.b);
        }
        free(early);
    }
    *out = s->face;
    return 0;
}

int wf_mpi_sender_create(wf_node **out, wf_mpi *m, int dest, int channel,
                         size_t msg_size)
{
    wf_mpi_channel_config c = WF_MPI_CHANNEL_CONFIG_INIT;
    c.peer = dest;
    c.channel = channel;
    c.msg_size = msg_size;
    return wf_mpi_sender_create_with(out, m, &c);
}

/* Endpoints live as long as the context: the last one found is kept
 * (engine), which spares the lock on a stream's credits. */
void wf__mpi_on_credit(wf_mpi *m, int peer, const wf__mpi_ctrl *c)
{
    wf__mpi_send *s = m->last_send;
    if (s == NULL || s->peer != peer || s->channel != c->channel) {
        pthread_mutex_lock(&m->lock);
        s = wf__mpi_table_get(&m->sends, peer, c->channel);
        pthread_mutex_unlock(&m->lock);
        if (s != NULL)
            m->last_send = s;
    }
    /* Counted before the grant, under a reservation (termination.c). */
    wf_gateway_reserve_wait(m->agw);
    wf__mpi_count_received(m);
    if (s != NULL && c->a > 0)
        wf__mpi_grant(s, c->a);
    wf_gateway_release_wait(m->agw);
    if (s == NULL || c->a <= 0)
        wf__mpi_fail(m, WF_ESTATE); /* credits for a channel we lack */
}

void wf__mpi_sender_free(wf__mpi_send *s)
{
    wf_node *nodes[] = {s->face, s->queue, s->limiter, s->body};
    wf__mpi_destroy_nodes(nodes, 4);
    for (wf__mpi_out *o = s->free_bufs, *next; o != NULL; o = next) {
        next = o->next;
        free(o);
    }
    pthread_mutex_destroy(&s->mu);
    free(s);
}
