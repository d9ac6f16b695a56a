/* SPDX-License-Identifier: Apache-2.0 */
/* Receiving (src/mpi/dispatch.c): take the landed messages in order and
 * hand each to its handler. */
#ifndef WF_INTERNAL_MPI_DISPATCH_H
#define WF_INTERNAL_MPI_DISPATCH_H

#include <stdbool.h>

#include "internal/mpi/context.h"

enum { WF__RX_NONE, WF__RX_CTRL, WF__RX_DATA }; /* what a receive took */

/* Engine: take the oldest posted receive if it has completed and handle
 * its message (with drop, only receive what it announces); returns what
 * it took. */
int wf__mpi_receive_one(wf_mpi *m, bool drop);
/* Engine: receive until nothing is left or a data message was delivered;
 * true if anything came. */
bool wf__mpi_receive(wf_mpi *m);

#endif /* WF_INTERNAL_MPI_DISPATCH_H */
