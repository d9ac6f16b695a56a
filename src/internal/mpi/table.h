/* SPDX-License-Identifier: Apache-2.0 */
/* An endpoint table (src/mpi/table.c): open addressing on (peer,
 * channel).  Not thread-safe: the context's `lock` guards its two. */
#ifndef WF_INTERNAL_MPI_TABLE_H
#define WF_INTERNAL_MPI_TABLE_H

#include <stddef.h>
#include <stdint.h>

typedef struct wf__mpi_table {
    uint64_t *keys;
    void **vals;
    size_t cap, n;
} wf__mpi_table;

/* The value of (peer, channel), or NULL. */
void *wf__mpi_table_get(const wf__mpi_table *t, int peer, int channel);
/* Insert; WF_EEXIST if the key is there, WF_ENOMEM. */
int wf__mpi_table_put(wf__mpi_table *t, int peer, int channel, void *v);
/* Free the table's memory (not the values); leaves it empty. */
void wf__mpi_table_free(wf__mpi_table *t);

#endif /* WF_INTERNAL_MPI_TABLE_H */
