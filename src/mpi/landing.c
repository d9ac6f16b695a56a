/* SPDX-License-Identifier: Apache-2.0 */
/* The receives the engine keeps posted on `comm`: WF__MPI_RX_DEPTH of
 * them, from any source with any tag, each into a landing buffer of
 * WF__MPI_SMALL_MAX bytes.  A message that comes then lands at once, on
 * MPI's path for an expected message, and a poll is one MPI_Test of the
 * oldest receive (dispatch.c); a matched probe (MPI_Improbe) costs more,
 * both when it finds nothing and when it finds a message that a second
 * call must then receive.  Also the receive that drops a bulk message. */
#include <stdlib.h>

#include "internal/mpi/failure.h"
#include "internal/mpi/landing.h"

void wf__mpi_post_receive(wf_mpi *m, unsigned i)
{
    if (MPI_Irecv(m->landing[i], WF__MPI_SMALL_MAX, MPI_BYTE, MPI_ANY_SOURCE,
                  MPI_ANY_TAG, m->comm, &m->rx[i]) != MPI_SUCCESS) {
        m->rx[i] = MPI_REQUEST_NULL;
        wf__mpi_fail(m, WF_ESTATE);
    }
}

int wf__mpi_post_receives(wf_mpi *m)
{
    m->landing = malloc(WF__MPI_RX_DEPTH * sizeof *m->landing);
    if (m->landing == NULL)
        return WF_ENOMEM;
    for (unsigned i = 0; i < WF__MPI_RX_DEPTH; i++)
        wf__mpi_post_receive(m, i);
    m->rx_posted = true;
    return 0;
}

/* The drain has received every message sent here, so none of these can
 * match. */
void wf__mpi_cancel_receives(wf_mpi *m)
{
    if (!m->rx_posted)
        return;
    for (unsigned i = 0; i < WF__MPI_RX_DEPTH; i++) {
        if (m->rx[i] == MPI_REQUEST_NULL)
            continue;
        MPI_Cancel(&m->rx[i]);
        MPI_Wait(&m->rx[i], MPI_STATUS_IGNORE);
    }
    m->rx_posted = false;
}

void wf__mpi_discard_bulk(wf_mpi *m, int peer, int channel, int count)
{
    size_t need = count > 0 ? (size_t)count : 1;
    if (m->scratch_size < need) {
        void *p = realloc(m->scratch, need);
        if (p != NULL) {
            m->scratch = p;
            m->scratch_size = need;
        }
    }
    if (m->scratch_size < need) {
        /* No memory even to drop it.  The message must still be taken;
         * MPI reports the truncation to the communicator's handler. */
        wf__mpi_fail(m, WF_ENOMEM);
        count = 0;
    }
    MPI_Recv(m->scratch, count, MPI_BYTE, peer, WF__MPI_TAG_DATA + channel,
             m->bulk, MPI_STATUS_IGNORE);
    m->recvd_from[peer]++;
}
