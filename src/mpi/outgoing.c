/* SPDX-License-Identifier: Apache-2.0 */
/* Outgoing messages: a channel's data buffers, the posting of a message
 * (at once where this thread may call MPI, else through the outbox, which
 * the engine posts in order), and the completion of posted sends, whose
 * buffers go back to their channels. */
#include <stdlib.h>
#include <string.h>

#include "internal/mpi/failure.h"
#include "internal/mpi/outgoing.h"
#include "internal/mpi/sender.h"
#include "internal/mpi/wake.h"

#define FREE_BUFS_MAX 16 /* data buffers a channel keeps for reuse */

wf__mpi_out *wf__mpi_take_buffer(wf__mpi_send *s)
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
        wf_store_relaxed(&m->any_reqs, 1); /* M5: a hint, under m->lock */
    }
    pthread_mutex_unlock(&m->lock);
    if (!room) { /* no memory to track it: finish it here instead */
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        free(o); /* not recycled: the caller may hold its channel's mu */
    }
}

/* A chain enters the outbox whole, so the engine posts a bulk message and
 * its announcement in the same pass. */
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
    wf_fetch_add_relaxed(&m->st_ctrl_sent, 1); /* M6: a statistic */
    wf__mpi_send_out(m, o, from_engine);
    return 0;
}

bool wf__mpi_post_outbox(wf_mpi *m)
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

/* Their buffers go back to their channels once m->lock is released. */
bool wf__mpi_test_sends(wf_mpi *m)
{
    /* M5: relaxed, a hint; a send posted after this look is tested at
     * the next pass (and the loop sleeps no longer than CAP_SENDS_NS). */
    if (!wf_load_relaxed(&m->any_reqs))
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
    wf_store_relaxed(&m->any_reqs, j > 0); /* M5: a hint, under m->lock */
    pthread_mutex_unlock(&m->lock);
    for (wf__mpi_out *next; sent != NULL; sent = next) {
        next = sent->next;
        recycle(sent);
    }
    return true;
}
