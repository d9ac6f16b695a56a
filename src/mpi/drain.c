/* SPDX-License-Identifier: Apache-2.0 */
/* The drain of wf_mpi_destroy. */
#include <sched.h>
#include <stdlib.h>

#include "internal/mpi/dispatch.h"
#include "internal/mpi/drain.h"
#include "internal/mpi/outgoing.h"

/* Before the communicator is freed, every message posted on it must be
 * received and every send completed (MPI-3.1 section 6.4.3 lets
 * MPI_Comm_free return with operations pending, but a message nobody
 * receives would keep its sender's request open).  Each rank tells every
 * other how many messages it posted to it (MPI_Alltoall), and receives
 * until it has them all.  The engine is stopped: this thread alone calls
 * MPI here, whatever the thread level. */
int wf__mpi_drain(wf_mpi *m)
{
    uint64_t *expect = calloc((size_t)m->size, sizeof *expect);
    if (expect == NULL)
        return WF_ENOMEM;
    MPI_Alltoall(m->posted_to, 1, MPI_UINT64_T, expect, 1, MPI_UINT64_T,
                 m->comm);
    for (;;) {
        bool missing = false;
        for (int p = 0; p < m->size; p++)
            missing |= m->recvd_from[p] < expect[p];
        pthread_mutex_lock(&m->lock);
        int sends = m->n_reqs;
        pthread_mutex_unlock(&m->lock);
        if (!missing && sends == 0)
            break;
        bool moved = missing && wf__mpi_receive_one(m, true) != WF__RX_NONE;
        moved |= wf__mpi_test_sends(m);
        if (!moved)
            sched_yield(); /* the peers are draining too: not for long */
    }
    free(expect);
    return 0;
}
