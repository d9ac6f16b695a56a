/* SPDX-License-Identifier: Apache-2.0 */
/* What the two ends of a channel share: the check of a channel's
 * configuration, the publication of an endpoint (its table, its list, a
 * hello from its other end that came first), and the count of endpoints
 * that never met their other end (wf_mpi_graph_wait_all). */
#include <limits.h>
#include <stdlib.h>

#include "internal/mpi/endpoint.h"
#include "internal/mpi/receiver.h"
#include "internal/mpi/sender.h"

int wf__mpi_check_args(wf_node **out, wf_mpi *m, const wf_mpi_channel_config *c)
{
    if (out == NULL || m == NULL || c == NULL || c->msg_size == 0 ||
        c->peer < 0 || c->peer >= m->size ||
        (c->policy != WF_QUEUEING && c->policy != WF_REJECTING))
        return WF_EINVAL;
    if (c->channel < 0 || c->channel > m->max_channel ||
        c->msg_size > (size_t)INT_MAX || c->credits > WF_MPI_MAX_CREDITS)
        return WF_ERANGE;
    /* M7 (closing, failed) and M2 (cancelled): relaxed, flags that
     * publish nothing but themselves; a make racing with a destroy, a
     * failed wait_all or a cancel may see them or not. */
    if (wf_load_relaxed(&m->closing) || wf_load_relaxed(&m->failed) ||
        wf_load_relaxed(&m->cancelled))
        return WF_ESTATE;
    return 0;
}

void wf__mpi_destroy_nodes(wf_node **nodes, int n)
{
    for (int i = 0; i < n; i++) /* the composite first: it aliases the rest */
        if (nodes[i] != NULL)
            wf_node_destroy(nodes[i]);
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

int wf__mpi_publish(wf_mpi *m, bool sender, int peer, int channel, void *ep,
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
