/* SPDX-License-Identifier: Apache-2.0 */
/* The registry: graph -> context, one context per graph.
 * wf_mpi_graph_wait_all is given the graph, and looks its context up
 * here. */
#include <pthread.h>

#include "internal/mpi/registry.h"

static pthread_mutex_t registry_mu = PTHREAD_MUTEX_INITIALIZER;
static wf_mpi *registry;

static wf_mpi *registry_find_locked(const wf_graph *g)
{
    for (wf_mpi *m = registry; m != NULL; m = m->next_ctx)
        if (m->g == g)
            return m;
    return NULL;
}

/* Under one lock, so that a second create for the same graph fails. */
int wf__mpi_register(wf_mpi *m)
{
    int err = 0;
    pthread_mutex_lock(&registry_mu);
    if (registry_find_locked(m->g) != NULL)
        err = WF_EEXIST;
    if (!err) {
        m->next_ctx = registry;
        registry = m;
    }
    pthread_mutex_unlock(&registry_mu);
    return err;
}

wf_mpi *wf__mpi_find(const wf_graph *g)
{
    pthread_mutex_lock(&registry_mu);
    wf_mpi *m = registry_find_locked(g);
    pthread_mutex_unlock(&registry_mu);
    return m;
}

void wf__mpi_unregister(wf_mpi *m)
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
