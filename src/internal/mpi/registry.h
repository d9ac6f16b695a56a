/* SPDX-License-Identifier: Apache-2.0 */
/* The registry: graph -> context (src/mpi/registry.c), for
 * wf_mpi_graph_wait_all, which is given the graph. */
#ifndef WF_INTERNAL_MPI_REGISTRY_H
#define WF_INTERNAL_MPI_REGISTRY_H

#include "internal/mpi/context.h"

/* Claim m->g for m: WF_EEXIST when g has a context already. */
int wf__mpi_register(wf_mpi *m);
/* Take m out (safe when it is not in). */
void wf__mpi_unregister(wf_mpi *m);
/* The context of g, or NULL. */
wf_mpi *wf__mpi_find(const wf_graph *g);

#endif /* WF_INTERNAL_MPI_REGISTRY_H */
