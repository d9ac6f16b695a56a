/* SPDX-License-Identifier: Apache-2.0 */
/* The hellos: each end of a channel, once made, tells the other its
 * message size, and the receiver's hello carries the sender's first
 * credits.  A hello that comes before its endpoint is made waits in the
 * context (endpoint.c takes it when the endpoint is published). */
#include <stdlib.h>

#include "internal/mpi/counters.h"
#include "internal/mpi/failure.h"
#include "internal/mpi/hello.h"
#include "internal/mpi/receiver.h"
#include "internal/mpi/sender.h"

/* Counted as received whatever happens to it. */
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
     * the limiter can start work (M3, termination.c). */
    wf_gateway_reserve_wait(m->agw);
    wf__mpi_count_received(m);
    if (ep != NULL && !from_sender) {
        wf__mpi_send *s = ep;
        /* M6: a statistic's input, read relaxed by the sender's body. */
        wf_store_relaxed(&s->window, (uint64_t)c->b);
        wf__mpi_grant(s, c->b);
    }
    wf_gateway_release_wait(m->agw);
}
