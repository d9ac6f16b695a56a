/* SPDX-License-Identifier: Apache-2.0 */
/* Failure.  A graph is cancelled by a body that failed, by
 * wf_graph_cancel, by weft_mpi itself (wf__mpi_fail), or because another
 * rank's graph failed (wf__mpi_on_abort).  The anchor's cancel hook
 * records which, and the engine tells the other ranks (engine.c) when the
 * failure began here.  The flags' handshake is M2 (docs/protocols.md). */
#include "internal/mpi/failure.h"
#include "internal/mpi/wake.h"

/* Runs on the cancelling thread with the graph's topology lock held: it
 * only records and wakes the engine. */
void wf__mpi_on_cancel(void *arg)
{
    wf_mpi *m = arg;
    /* M2: seq_cst: the engine stores `remote` before it cancels; either
     * it reads our `cancelled` first or we read its `remote`. */
    if (!wf_load_seqcst(&m->remote))
        wf_store_seqcst(&m->origin, 1); /* M2: before `cancelled` */
    wf_store_seqcst(&m->cancelled, 1);  /* M2; then the kick (M1) */
    wf__mpi_kick(m);
}

/* Sizes that differ, a message that breaks the protocol, no memory: keep
 * the first error, and cancel the graph, which the cancel hook turns into
 * an abort for every rank. */
void wf__mpi_fail(wf_mpi *m, int err)
{
    int none = 0;
    wf_cas_seqcst(&m->origin_err, &none, err); /* M2: the first one wins */
    wf_graph_cancel(m->g);
}

void wf__mpi_on_abort(wf_mpi *m)
{
    if (wf_load_seqcst(&m->cancelled)) /* M2 */
        return;
    /* M2: before the cancel: the hook then knows the failure is not
     * ours. */
    wf_store_seqcst(&m->remote, 1);
    wf_graph_cancel(m->g);
}
