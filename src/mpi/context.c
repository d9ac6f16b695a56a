/* SPDX-License-Identifier: Apache-2.0 */
/* A weft_mpi context: one per graph, over a duplicate of the user's
 * communicator.  Creation, the registry that wf_mpi_graph_wait_all looks
 * graphs up in, configuration, failure, destruction, statistics. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mpi_impl.h"

#define DEFAULT_CREDITS 64u
#define DEFAULT_POLL_MAX_US 10000u
#define DEFAULT_POLL_SPIN_US 100u
#define DEFAULT_POLL_IDLE_US 1000000u
/* The receive ring of a default channel.  Small: a message is copied out
 * of the ring soon after it lands, and the sender's buffers cycle as the
 * credits do, so a ring that stays in the cache streams large messages
 * faster than a deep one (docs/mpi.md, "Measured"). */
#define CREDIT_BUFFER_BYTES (2u << 20)

/* ---- small helpers ------------------------------------------------------- */

int64_t wf__mpi_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void wf__mpi_stat_max(_Atomic uint64_t *stat, uint64_t v)
{
    /* Relaxed: a statistic, read by nobody who acts on it. */
    uint64_t old = atomic_load_explicit(stat, memory_order_relaxed);
    while (v > old &&
           !atomic_compare_exchange_weak_explicit(
               stat, &old, v, memory_order_relaxed, memory_order_relaxed)) {
    }
}

/* Keys are (peer, channel), both non-negative ints. */
static uint64_t table_key(int peer, int channel)
{
    return ((uint64_t)(uint32_t)peer << 32 | (uint32_t)channel) +
           1; /* 0: empty */
}

static size_t table_slot(uint64_t key, size_t cap)
{
    key ^= key >> 29;
    key *= 0xbf58476d1ce4e5b9u;
    key ^= key >> 32;
    return (size_t)key & (cap - 1);
}

void *wf__mpi_table_get(const wf__mpi_table *t, int peer, int channel)
{
    if (t->cap == 0)
        return NULL;
    uint64_t key = table_key(peer, channel);
    for (size_t i = table_slot(key, t->cap);; i = (i + 1) & (t->cap - 1)) {
        if (t->keys[i] == key)
            return t->vals[i];
        if (t->keys[i] == 0)
            return NULL;
    }
}

static int table_grow(wf__mpi_table *t)
{
    size_t cap = t->cap ? t->cap * 2 : 16;
    uint64_t *keys = calloc(cap, sizeof *keys);
    void **vals = calloc(cap, sizeof *vals);
    if (keys == NULL || vals == NULL) {
        free(keys);
        free(vals);
        return WF_ENOMEM;
    }
    for (size_t i = 0; i < t->cap; i++) {
        if (t->keys[i] == 0)
            continue;
        size_t j = table_slot(t->keys[i], cap);
        while (keys[j] != 0)
            j = (j + 1) & (cap - 1);
        keys[j] = t->keys[i];
        vals[j] = t->vals[i];
    }
    free(t->keys);
    free(t->vals);
    t->keys = keys;
    t->vals = vals;
    t->cap = cap;
    return 0;
}

/* Insert; WF_EEXIST if the key is there, WF_ENOMEM. */
int wf__mpi_table_put(wf__mpi_table *t, int peer, int channel, void *v)
{
    if (wf__mpi_table_get(t, peer, channel) != NULL)
        return WF_EEXIST;
    if ((t->n + 1) * 2 > t->cap) { /* at most half full */
        int err = table_grow(t);
        if (err)
            return err;
    }
    uint64_t key = table_key(peer, channel);
    size_t i = table_slot(key, t->cap);
    while (t->keys[i] != 0)
        i = (i + 1) & (t->cap - 1);
    t->keys[i] = key;
    t->vals[i] = v;
    t->n++;
    return 0;
}

static void table_free(wf__mpi_table *t)
{
    free(t->keys);
    free(t->vals);
    memset(t, 0, sizeof *t);
}

/* ---- the registry: graph -> context -------------------------------------- */

static pthread_mutex_t registry_mu = PTHREAD_MUTEX_INITIALIZER;
static wf_mpi *registry;

static wf_mpi *registry_find_locked(const wf_graph *g)
{
    for (wf_mpi *m = registry; m != NULL; m = m->next_ctx)
        if (m->g == g)
            return m;
    return NULL;
}

/* The context of g, or NULL (for wf_mpi_graph_wait_all). */
wf_mpi *wf__mpi_find(const wf_graph *g)
{
    pthread_mutex_lock(&registry_mu);
    wf_mpi *m = registry_find_locked(g);
    pthread_mutex_unlock(&registry_mu);
    return m;
}

static void registry_remove(wf_mpi *m)
{
    pthread_mutex_lock(&registry_mu);
    for (wf_mpi **p = &registry; *p != NULL; p = &(*p)->next_ctx) {
        if (*p == m) {
            *p = m->next_ctx;
            break;
        }
    }
    pthread_mutex_unlock(&registry_mu);
}

/* ---- configuration ------------------------------------------------------- */

/* A whole number in [1, max] from the environment, else 0 (with one
 * warning on stderr for a value that is set but unusable). */
static unsigned env_unsigned(const char *name, unsigned max)
{
    const char *s = getenv(name);
    if (s == NULL || *s == '\0')
        return 0;
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (errno || *end != '\0' || v == 0 || v > max || s[0] == '-') {
        fprintf(stderr, "weft_mpi: ignoring %s=%s (a whole number 1..%u)\n",
                name, s, max);
        return 0;
    }
    return (unsigned)v;
}

static int granted_mode(void)
{
    int level;
    MPI_Query_thread(&level);
    if (level == MPI_THREAD_MULTIPLE)
        return WF_MPI_MULTIPLE;
    if (level == MPI_THREAD_SERIALIZED)
        return WF_MPI_SERIALIZED;
    return WF_MPI_FUNNELED; /* SINGLE too: only this thread calls MPI */
}

static int configure(wf_mpi *m, const wf_mpi_config *cfg)
{
    wf_mpi_config c = WF_MPI_CONFIG_INIT;
    if (cfg)
        c = *cfg;
    if ((int)c.mode < WF_MPI_AUTO || c.mode > WF_MPI_MULTIPLE)
        return WF_EINVAL;
    if (c.credits > WF_MPI_MAX_CREDITS)
        return WF_ERANGE;
    int granted = granted_mode();
    if ((int)c.mode > granted)
        return WF_ERANGE;
    m->mode = c.mode == WF_MPI_AUTO ? (wf_mpi_mode)granted : c.mode;
    m->credits = c.credits;
    unsigned poll = c.poll_max_us
                        ? c.poll_max_us
                        : env_unsigned("WEFT_MPI_POLL_MAX_US", 1000000);
    m->poll_max_ns = (int64_t)(poll ? poll : DEFAULT_POLL_MAX_US) * 1000;
    unsigned spin = c.poll_spin_us
                        ? c.poll_spin_us
                        : env_unsigned("WEFT_MPI_POLL_SPIN_US", 1000000);
    m->poll_spin_ns = (int64_t)(spin ? spin : DEFAULT_POLL_SPIN_US) * 1000;
    unsigned idle = env_unsigned("WEFT_MPI_POLL_IDLE_US", 60000000);
    m->poll_idle_ns = (int64_t)(idle ? idle : DEFAULT_POLL_IDLE_US) * 1000;
    if (m->poll_idle_ns < m->poll_max_ns)
        m->poll_idle_ns = m->poll_max_ns;
    return 0;
}

/* Credits of a new receiving channel: its own, the context's, or enough
 * to keep the default ring near CREDIT_BUFFER_BYTES. */
unsigned wf__mpi_credits_for(const wf_mpi *m, unsigned own, size_t size)
{
    if (own)
        return own < 2 ? 2 : own;
    if (m->credits)
        return m->credits < 2 ? 2 : m->credits;
    size_t fit = CREDIT_BUFFER_BYTES / size;
    if (fit > DEFAULT_CREDITS)
        fit = DEFAULT_CREDITS;
    return fit < 2 ? 2 : (unsigned)fit;
}

/* ---- failure ------------------------------------------------------------- */

/* The graph was cancelled, by a body that failed, by wf_graph_cancel, or
 * by us.  Runs on the cancelling thread with the graph's topology lock
 * held: it only records and wakes the engine, which tells the other
 * ranks. */
static void on_cancel(void *arg)
{
    wf_mpi *m = arg;
    /* seq_cst: the engine stores `remote` before it cancels; either it
     * reads our `cancelled` first or we read its `remote`. */
    if (!atomic_load(&m->remote))
        atomic_store(&m->origin, 1);
    atomic_store(&m->cancelled, 1);
    wf__mpi_kick(m);
}

/* weft_mpi itself found an error (sizes that differ, a message that
 * breaks the protocol): keep the first, and cancel the graph, which the
 * cancel hook turns into an abort for every rank. */
void wf__mpi_fail(wf_mpi *m, int err)
{
    int none = 0;
    atomic_compare_exchange_strong(&m->origin_err, &none, err);
    wf_graph_cancel(m->g);
}

/* ---- create / destroy ---------------------------------------------------- */

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
    table_free(&m->sends);
    table_free(&m->recvs);
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
    err = wf_node_set_cancel(m->anchor, on_cancel, m);
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
    int err = configure(m, cfg);
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
    pthread_mutex_lock(&registry_mu);
    if (!err && registry_find_locked(g) != NULL)
        err = WF_EEXIST;
    if (!err) { /* ...and claim g at once, so a second create fails */
        m->next_ctx = registry;
        registry = m;
    }
    pthread_mutex_unlock(&registry_mu);
    if (!err)
        err = make_anchor(m);
    if (err) {
        if (err != WF_EEXIST)
            registry_remove(m);
        free_context(m);
        return err;
    }
    MPI_Comm_dup(comm, &m->comm);
    MPI_Comm_dup(comm, &m->bulk);
    int flag = 0, *tag_ub = NULL;
    MPI_Comm_get_attr(m->comm, MPI_TAG_UB, &tag_ub, &flag);
    /* MPI guarantees MPI_TAG_UB >= 32767 (MPI-3.1, section 8.1.2). */
    m->max_channel = (flag ? *tag_ub : 32767) - WF__MPI_TAG_DATA;
    err = wf__mpi_post_receives(m);
    if (!err && m->mode != WF_MPI_FUNNELED)
        err = wf__mpi_engine_start(m);
    if (err) {
        wf__mpi_cancel_receives(m);
        MPI_Comm_free(&m->bulk);
        MPI_Comm_free(&m->comm);
        wf_node_destroy(m->anchor);
        registry_remove(m);
        free_context(m);
        return err;
    }
    *out = m;
    return 0;
}

/* WF_EPERM when this thread may not call MPI (FUNNELED, not main). */
int wf__mpi_check_caller(const wf_mpi *m)
{
    if (m->mode == WF_MPI_FUNNELED) {
        int is_main = 0;
        MPI_Is_thread_main(&is_main);
        if (!is_main)
            return WF_EPERM;
    }
    return 0;
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
    atomic_store(&m->closing, 1);
    if (m->has_thread)
        wf__mpi_engine_stop(m);
    wf_graph_wait_for_all(m->g); /* what the engine started before it stopped */
    wf__mpi_drain(m);            /* collective */
    wf__mpi_cancel_receives(m);
    MPI_Comm_free(&m->bulk);
    MPI_Comm_free(&m->comm);
    registry_remove(m);
    wf__mpi_endpoints_destroy(m);
    wf_node_destroy(m->anchor);
    for (wf__mpi_hello *h = m->hellos, *next; h != NULL; h = next) {
        next = h->next;
        free(h);
    }
    for (wf__mpi_out *o = m->out_head, *next; o != NULL; o = next) {
        next = o->next;
        free(o);
    }
    free_context(m);
    return 0;
}

/* ---- queries ------------------------------------------------------------- */

wf_mpi_mode wf_mpi_get_mode(const wf_mpi *m)
{
    return m ? m->mode : WF_MPI_AUTO;
}

int wf_mpi_max_channel(const wf_mpi *m)
{
    return m ? m->max_channel : -1;
}

int wf_mpi_get_stats(const wf_mpi *m, wf_mpi_stats *out)
{
    if (m == NULL || out == NULL)
        return WF_EINVAL;
    wf_mpi *w = (wf_mpi *)m;
    /* Relaxed loads: counters, documented as not one snapshot. */
#define LD(x) atomic_load_explicit(&w->x, memory_order_relaxed)
    out->data_sent = 0; /* the channels' own counts */
    pthread_mutex_lock(&w->lock);
    for (size_t i = 0; i < w->n_send; i++)
        out->data_sent += LD(send_list[i]->sent);
    pthread_mutex_unlock(&w->lock);
    out->data_delivered = LD(st_delivered);
    out->ctrl_sent = LD(st_ctrl_sent);
    out->ctrl_received = LD(st_ctrl_received);
    out->credit_waits = LD(st_credit_waits);
    out->rejections = LD(st_rejections);
    out->max_in_flight = LD(st_max_in_flight);
    out->max_queued = LD(st_max_queued);
    out->rounds = LD(st_rounds);
    out->polls = LD(polls);
    out->sleeps = LD(sleeps);
#undef LD
    return 0;
}
