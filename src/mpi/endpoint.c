/* SPDX-License-Identifier: Apache-2.0 */
/* The two ends of a channel.
 *
 * Sender (rank A): [queue_node ->] limiter_node -> function_node(serial).
 * The limiter starts full (no credit); each credit from the receiver
 * lowers its count by one, and a lowered limiter pulls the next message
 * from a predecessor in pull state (its own queue, or the user's buffer).
 * The serial function node's body copies the message and posts it, so
 * messages leave in the order the node took them; it is lightweight, so
 * the thread that forwards a message runs that body on it when the node
 * is idle (the one copy is then the body's).
 *
 * Receiver (rank B): an async_node whose gateway the engine puts into,
 * from a ring of `credits` slots that MPI receives into.  A message a
 * successor takes frees its slot and becomes a credit for the sender,
 * returned in batches of credits / 4, or at once when the sender has
 * used every credit it was given (it may be stalled).  So at most
 * `credits` messages of a channel are between the sender's limiter and
 * the receiver's successors, and a successor that rejects holds the
 * sender back.
 *
 * This is the credit scheme of flow control in networks-on-chip and of
 * InfiniBand's reliable connections (end-to-end credits), on top of MPI's
 * own ordering: two messages from one sender to one receiver on one
 * communicator, that both match the same receive, are received in order
 * (non-overtaking, MPI-3.1 section 3.5); the engine takes them in that
 * order (engine.c, "receiving"), and the sender's bodies post one at a
 * time. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_impl.h"

/* The limiter's threshold: the count starts there (no credit) and each
 * credit lowers it; far above any number of credits in flight. */
#define LIMIT ((int64_t)1 << 40)
#define DELIVER_BATCH 64 /* messages per receiver per pass of the engine */
/* Batches (engine.c): messages of at most BATCH_MSG_MAX bytes, up to
 * BATCH_MAX of them and BATCH_BYTES in all, so that a batch stays within
 * Open MPI's shared-memory eager limit (4 KiB, btl_vader_eager_limit):
 * one copy through the shared FIFO, no rendezvous. */
#define BATCH_MSG_MAX 256
#define BATCH_MAX 64
#define BATCH_BYTES 4000

static void count_received(wf_mpi *m)
{
    /* seq_cst: ordered with the other counter, read by wait_all. */
    atomic_fetch_add(&m->n_received, 1);
}

/* Give a sender n more credits (on the engine, or its creating thread). */
static void grant(wf__mpi_send *s, int64_t n)
{
    atomic_fetch_add_explicit(&s->granted, (uint64_t)n, memory_order_relaxed);
    wf_try_put(wf_input_port(s->limiter, 1), &n);
}

/* ---- the sender ---------------------------------------------------------- */

/* A data buffer of the channel's; s->mu is held. */
static wf__mpi_out *take_buffer(wf__mpi_send *s)
{
    wf__mpi_out *o = s->free_bufs;
    if (o != NULL) {
        s->free_bufs = o->next;
        s->n_free--;
    } else if ((o = malloc(sizeof *o + s->buf_size)) == NULL) {
        return NULL;
    }
    o->next = NULL;
    o->ch = s;
    o->dest = s->peer;
    o->tag = WF__MPI_TAG_DATA + s->channel;
    o->count = 0;
    return o;
}

/* Statistics of a message about to leave, and its count (wait.c). */
static void count_sent(wf__mpi_send *s)
{
    wf_mpi *m = s->m;
    /* Statistics: relaxed, read by nobody who acts on them.  One body at
     * a time sends on a channel (a serial node): `sent` has one writer. */
    uint64_t sent = atomic_load_explicit(&s->sent, memory_order_relaxed) + 1;
    atomic_store_explicit(&s->sent, sent, memory_order_relaxed);
    uint64_t granted = atomic_load_explicit(&s->granted, memory_order_relaxed);
    uint64_t window = atomic_load_explicit(&s->window, memory_order_relaxed);
    if (sent + window > granted)
        wf__mpi_stat_max(&m->st_max_in_flight, sent + window - granted);
    if (sent == granted)
        atomic_fetch_add_explicit(&m->st_credit_waits, 1, memory_order_relaxed);
    /* Counted before it can arrive anywhere (wait.c). */
    atomic_fetch_add(&m->n_sent, 1);
}

/* The function node's body: one message out, in order (serial node).
 * The message is copied and posted without waiting: the node's buffer is
 * gone when the body returns.  (A blocking MPI_Send from that buffer
 * would save the copy, but hold a worker in MPI's busy wait until the
 * receiver has taken the message.) */
/* A small message: into the channel's open batch (engine.c, "batches").
 * On the engine's thread the batch waits for the end of the pass (or
 * until it is full); on any other thread it leaves now. */
static int send_batched(wf__mpi_send *s, const void *in)
{
    wf_mpi *m = s->m;
    bool engine = wf__mpi_on_engine(m);
    pthread_mutex_lock(&s->mu);
    wf__mpi_out *o = s->open;
    if (o == NULL) {
        if ((o = take_buffer(s)) == NULL) {
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
    if (mark) {
        s->dirty = true;
        s->next_dirty = m->dirty;
        m->dirty = s;
    }
    return 0;
}

static int send_body(const void *in, void *out, void *ctx)
{
    (void)out;
    wf__mpi_send *s = ctx;
    wf_mpi *m = s->m;
    if (s->batch_max > 1)
        return send_batched(s, in);
    pthread_mutex_lock(&s->mu);
    wf__mpi_out *o = take_buffer(s);
    pthread_mutex_unlock(&s->mu);
    if (o == NULL)
        return WF_ENOMEM;
    memcpy(o->data, in, s->size);
    o->count = (int)s->size;
    if (wf__mpi_bulk(s)) {
        /* Announced on comm (mpi_impl.h, the communicators), after it is
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

static int check_args(wf_node **out, wf_mpi *m, const wf_mpi_channel_config *c)
{
    if (out == NULL || m == NULL || c == NULL || c->msg_size == 0 ||
        c->peer < 0 || c->peer >= m->size ||
        (c->policy != WF_QUEUEING && c->policy != WF_REJECTING))
        return WF_EINVAL;
    if (c->channel < 0 || c->channel > m->max_channel ||
        c->msg_size > (size_t)INT_MAX || c->credits > WF_MPI_MAX_CREDITS)
        return WF_ERANGE;
    if (atomic_load(&m->closing) || atomic_load(&m->failed) ||
        atomic_load(&m->cancelled))
        return WF_ESTATE;
    return 0;
}

static void destroy_nodes(wf_node **nodes, int n)
{
    for (int i = 0; i < n; i++) /* the composite first: it aliases the rest */
        if (nodes[i] != NULL)
            wf_node_destroy(nodes[i]);
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

/* Append p to a growing array of pointers; under m->lock. */
static int list_add(void ***list, size_t *n, size_t *cap, void *p)
{
    if (*n == *cap) {
        size_t c = *cap ? *cap * 2 : 8;
        void **l = realloc(*list, c * sizeof *l);
        if (l == NULL)
            return WF_ENOMEM;
        *list = l;
        *cap = c;
    }
    (*list)[(*n)++] = p;
    return 0;
}

/* Take the hello of `kind` from (peer, channel) that came early; under
 * m->lock. */
static wf__mpi_hello *take_hello(wf_mpi *m, int kind, int peer, int channel)
{
    for (wf__mpi_hello **p = &m->hellos; *p != NULL; p = &(*p)->next) {
        wf__mpi_hello *h = *p;
        if (h->c.kind == kind && h->peer == peer && h->c.channel == channel) {
            *p = h->next;
            return h;
        }
    }
    return NULL;
}

/* Publish an endpoint in its table and list, and take an early hello. */
static int publish(wf_mpi *m, bool sender, int peer, int channel, void *ep,
                   wf__mpi_hello **early)
{
    pthread_mutex_lock(&m->lock);
    wf__mpi_table *t = sender ? &m->sends : &m->recvs;
    int err = wf__mpi_table_get(t, peer, channel) ? WF_EEXIST : 0;
    if (!err)
        err = sender ? list_add((void ***)&m->send_list, &m->n_send,
                                &m->cap_send, ep)
                     : list_add((void ***)&m->recv_list, &m->n_recv,
                                &m->cap_recv, ep);
    if (!err) {
        err = wf__mpi_table_put(t, peer, channel, ep);
        if (err)
            sender ? m->n_send-- : m->n_recv--;
    }
    if (!err) {
        *early = take_hello(
            m, sender ? WF__CTRL_HELLO_RECEIVER : WF__CTRL_HELLO_SENDER, peer,
            channel);
        if (*early != NULL) {
            if (sender)
                ((wf__mpi_send *)ep)->peer_seen = true;
            else
                ((wf__mpi_recv *)ep)->peer_seen = true;
        }
    }
    pthread_mutex_unlock(&m->lock);
    return err;
}

int wf_mpi_sender_create_with(wf_node **out, wf_mpi *m,
                              const wf_mpi_channel_config *cfg)
{
    int err = check_args(out, m, cfg);
    if (err)
        return err;
    pthread_mutex_lock(&m->lock);
    err = wf__mpi_table_get(&m->sends, cfg->peer, cfg->channel) ? WF_EEXIST : 0;
    pthread_mutex_unlock(&m->lock);
    wf__mpi_send *s = err ? NULL : calloc(1, sizeof *s);
    if (s == NULL)
        return err ? err : WF_ENOMEM;
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
    wf__mpi_hello *early = NULL;
    wf__mpi_ctrl hello = {WF__CTRL_HELLO_SENDER, cfg->channel,
                          (int64_t)cfg->msg_size, 0};
    err = make_sender_nodes(s, cfg->policy);
    if (!err)
        err = publish(m, true, s->peer, s->channel, s, &early);
    if (err) {
        wf_node *nodes[] = {s->face, s->queue, s->limiter, s->body};
        destroy_nodes(nodes, 4);
        pthread_mutex_destroy(&s->mu);
        free(s);
        return err;
    }
    atomic_fetch_add(&m->n_sent, 1); /* the hello is counted (wait.c) */
    if (wf__mpi_send_ctrl(m, s->peer, &hello, false) != 0)
        wf__mpi_fail(m, WF_ENOMEM);
    if (early != NULL) { /* the receiver was first: its credits are here */
        if ((size_t)early->c.a != s->size) {
            wf__mpi_fail(m, WF_ESIZE);
        } else {
            atomic_store_explicit(&s->window, (uint64_t)early->c.b,
                                  memory_order_relaxed);
            grant(s, early->c.b);
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

/* ---- the receiver -------------------------------------------------------- */

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
    int err = check_args(out, m, cfg);
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
        err = publish(m, false, r->peer, r->channel, r, &early);
    if (err) {
        wf_node *nodes[] = {r->face, r->node};
        destroy_nodes(nodes, 2);
        free(r->ring);
        free(r);
        return err;
    }
    wf__mpi_ctrl hello = {WF__CTRL_HELLO_RECEIVER, cfg->channel,
                          (int64_t)r->size, (int64_t)r->credits};
    atomic_fetch_add(&m->n_sent, 1); /* the hello, with the first credits */
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

/* ---- the engine's side --------------------------------------------------- */

/* A hello: match it with its endpoint, or keep it for when that is made.
 * Counted as received whatever happens to it. */
void wf__mpi_on_hello(wf_mpi *m, int peer, const wf__mpi_ctrl *c)
{
    bool from_sender = c->kind == WF__CTRL_HELLO_SENDER;
    pthread_mutex_lock(&m->lock);
    void *ep = wf__mpi_table_get(from_sender ? &m->recvs : &m->sends, peer,
                                 c->channel);
    size_t size = 0;
    if (ep != NULL && from_sender) {
        ((wf__mpi_recv *)ep)->peer_seen = true;
        size = ((wf__mpi_recv *)ep)->size;
    } else if (ep != NULL) {
        ((wf__mpi_send *)ep)->peer_seen = true;
        size = ((wf__mpi_send *)ep)->size;
    }
    wf__mpi_hello *h = ep ? NULL : malloc(sizeof *h);
    if (h != NULL) {
        h->peer = peer;
        h->c = *c;
        h->next = m->hellos;
        m->hellos = h;
    }
    pthread_mutex_unlock(&m->lock);
    if (ep == NULL && h == NULL)
        wf__mpi_fail(m, WF_ENOMEM);
    if (ep != NULL && size != (size_t)c->a) {
        wf__mpi_fail(m, WF_ESIZE);
        ep = NULL;
    }
    /* The first credits take effect under a reservation, counted before
     * the limiter can start work (wait.c). */
    wf_gateway_reserve_wait(m->agw);
    count_received(m);
    if (ep != NULL && !from_sender) {
        wf__mpi_send *s = ep;
        atomic_store_explicit(&s->window, (uint64_t)c->b, memory_order_relaxed);
        grant(s, c->b);
    }
    wf_gateway_release_wait(m->agw);
}

void wf__mpi_on_credit(wf_mpi *m, int peer, const wf__mpi_ctrl *c)
{
    /* Endpoints live as long as the context: the last one found is kept
     * (engine), which spares the lock on a stream's credits. */
    wf__mpi_send *s = m->last_send;
    if (s == NULL || s->peer != peer || s->channel != c->channel) {
        pthread_mutex_lock(&m->lock);
        s = wf__mpi_table_get(&m->sends, peer, c->channel);
        pthread_mutex_unlock(&m->lock);
        if (s != NULL)
            m->last_send = s;
    }
    wf_gateway_reserve_wait(m->agw);
    count_received(m);
    if (s != NULL && c->a > 0)
        grant(s, c->a);
    wf_gateway_release_wait(m->agw);
    if (s == NULL || c->a <= 0)
        wf__mpi_fail(m, WF_ESTATE); /* credits for a channel we lack */
}

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
 * the message breaks the protocol (bad), which fails the context.  The
 * load pairs with on_cancel's store (context.c); one that misses it lets
 * a message into the ring of a cancelled graph, whose delivery then
 * finds the graph cancelled and drops it. */
static bool drop_data(wf_mpi *m, int bad)
{
    if (atomic_load(&m->cancelled))
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

/* A data message that landed on comm: one message, or a batch of k
 * (engine.c, "batches"), copied into its channel's ring; or dropped
 * (after a cancel; or a message that breaks the protocol). */
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

/* A bulk message announced: receive it into its slot of the ring. */
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

/* A message was taken: its slot is free.  Grant it back in batches, or at
 * once when the sender has used all it was granted. */
static void credit_back(wf_mpi *m, wf__mpi_recv *r)
{
    r->pending++;
    if (r->pending < r->batch && r->tail != r->granted)
        return;
    wf__mpi_ctrl c = {WF__CTRL_CREDIT, r->channel, (int64_t)r->pending, 0};
    atomic_fetch_add(&m->n_sent, 1); /* counted: it lets the sender go on */
    r->granted += r->pending;
    r->pending = 0;
    if (wf__mpi_send_ctrl(m, r->peer, &c, true) != 0)
        wf__mpi_fail(m, WF_ENOMEM);
}

/* Offer a receiver's messages to its successors, in order, until one is
 * rejected.  Returns how many were taken. */
/* The clock, read at most once a pass and only when a blocked receiver
 * needs it: *now is 0 until then. */
static int64_t clock_once(int64_t *now)
{
    if (*now == 0)
        *now = wf__mpi_now_ns();
    return *now;
}

static int deliver_one(wf_mpi *m, wf__mpi_recv *r, int64_t *now)
{
    int n = 0;
    /* No reservation: the put starts the message's work before the count
     * (wait.c, "the local counts"). */
    while (r->head != r->tail && n < DELIVER_BATCH) {
        int rc = wf_gateway_try_put(r->gw,
                                    r->ring + (r->head % r->credits) * r->size);
        if (rc == 1) {
            r->head++;
            n++;
            count_received(m);
            /* Relaxed statistics with one writer, the engine (one thread
             * has it at a time): a load and a store, not an RMW. */
            uint64_t d =
                atomic_load_explicit(&m->st_delivered, memory_order_relaxed);
            atomic_store_explicit(&m->st_delivered, d + 1,
                                  memory_order_relaxed);
            r->blocked = false;
            r->retry_delay = 0;
            credit_back(m, r);
        } else if (rc == 0) { /* every successor rejected: later, again */
            atomic_fetch_add_explicit(&m->st_rejections, 1,
                                      memory_order_relaxed);
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
    atomic_store_explicit(&m->next_retry, next, memory_order_relaxed);
    return any;
}

void wf__mpi_drop_all(wf_mpi *m)
{
    for (wf__mpi_recv *r = m->ready; r != NULL; r = r->next_ready) {
        r->head = r->tail;
        r->ready = r->blocked = false;
    }
    m->ready = NULL;
    atomic_store_explicit(&m->next_retry, 0, memory_order_relaxed);
}

/* Endpoints whose other end has not said hello, and hellos that found no
 * endpoint. */
unsigned wf__mpi_unmatched(wf_mpi *m)
{
    unsigned n = 0;
    pthread_mutex_lock(&m->lock);
    for (size_t i = 0; i < m->n_send; i++)
        n += !m->send_list[i]->peer_seen;
    for (size_t i = 0; i < m->n_recv; i++)
        n += !m->recv_list[i]->peer_seen;
    for (wf__mpi_hello *h = m->hellos; h != NULL; h = h->next)
        n++;
    pthread_mutex_unlock(&m->lock);
    return n;
}

void wf__mpi_endpoints_destroy(wf_mpi *m)
{
    for (size_t i = 0; i < m->n_send; i++) {
        wf__mpi_send *s = m->send_list[i];
        wf_node *nodes[] = {s->face, s->queue, s->limiter, s->body};
        destroy_nodes(nodes, 4);
        for (wf__mpi_out *o = s->free_bufs, *next; o != NULL; o = next) {
            next = o->next;
            free(o);
        }
        pthread_mutex_destroy(&s->mu);
        free(s);
    }
    for (size_t i = 0; i < m->n_recv; i++) {
        wf__mpi_recv *r = m->recv_list[i];
        wf_node *nodes[] = {r->face, r->node};
        destroy_nodes(nodes, 2);
        free(r->ring);
        free(r);
    }
    m->n_send = m->n_recv = 0;
}
