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
    /* M2: relaxed, the three: an abort stores `remote`, and wf__mpi_fail
     * its error, on the thread whose cancel then runs this hook (program
     * order); a cancel racing with an abort may read either value of
     * `remote`, and both are true, as is an error kept after the graph
     * was already cancelled, seen or not.  `cancelled` says in one word
     * whether the failure began here and with which code, so a reader
     * needs nothing published with it.  Then the kick (M1). */
    int why = WF__MPI_REMOTE;
    if (!wf_load_relaxed(&m->remote)) {
        int err = wf_load_relaxed(&m->origin_err);
        why = err ? err : WF_ECANCELED;
    }
    wf_store_relaxed(&m->cancelled, why);
    wf__mpi_kick(m);
}

/* Sizes that differ, a message that breaks the protocol, no memory: keep
 * the first error, and cancel the graph, which the cancel hook turns into
 * an abort for every rank. */
void wf__mpi_fail(wf_mpi *m, int err)
{
    int none = 0;
    /* M2: the first one wins, by the CAS's modification order.  Relaxed:
     * the cancel below runs the hook on this thread, which reads it
     * (program order); an error after the graph was cancelled may be
     * seen or not, as with any order. */
    wf_cas_relaxed(&m->origin_err, &none, err);
    wf_graph_cancel(m->g);
}

void wf__mpi_on_abort(wf_mpi *m)
{
    /* M2: relaxed: cancelling twice is harmless; this only skips it. */
    if (wf_load_relaxed(&m->cancelled))
        return;
    /* M2: before the cancel, on the thread whose cancel runs the hook
     * (program order): the hook then knows the failure is not ours. */
    wf_store_relaxed(&m->remote, 1);
    wf_graph_cancel(m->g);
}
