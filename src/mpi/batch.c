/* SPDX-License-Identifier: Apache-2.0 */
/* Batches of small messages.
 *
 * A sender's body that runs on the engine's thread (the work a credit
 * started, wf_graph_run_here) does not post a small message at once: it
 * appends it to its channel's open batch, and the engine posts every open
 * batch as one MPI message when the data message that started the work
 * has been delivered, at the end of the pass, or at once when it is
 * full.  A stream of small messages then costs one MPI send and one
 * receive per batch, not per message (as MPI's own small-message
 * coalescing and TCP's Nagle algorithm trade a little latency for it);
 * the latency does not grow, as the batch leaves before the engine polls
 * again.  A body on any other thread flushes the open batch with its own
 * message at once.  The channel's lock `mu` orders the posts, so the
 * batches leave in the order their messages were taken. */
#include "internal/mpi/batch.h"
#include "internal/mpi/outgoing.h"
#include "internal/mpi/sender.h"

static _Thread_local const wf_mpi *engine_here; /* set during a pass */

bool wf__mpi_on_engine(const wf_mpi *m)
{
    return engine_here == m;
}

const wf_mpi *wf__mpi_enter_engine(const wf_mpi *m)
{
    const wf_mpi *outer = engine_here;
    engine_here = m;
    return outer;
}

void wf__mpi_leave_engine(const wf_mpi *outer)
{
    engine_here = outer;
}

/* s->dirty is the engine's: only a body on its thread gets here. */
void wf__mpi_mark_dirty(wf_mpi *m, wf__mpi_send *s)
{
    s->dirty = true;
    s->next_dirty = m->dirty;
    m->dirty = s;
}

void wf__mpi_flush_batches(wf_mpi *m)
{
    wf__mpi_send *s = m->dirty;
    m->dirty = NULL;
    bool any = s != NULL;
    for (wf__mpi_send *next; s != NULL; s = next) {
        next = s->next_dirty;
        s->dirty = false;
        pthread_mutex_lock(&s->mu);
        wf__mpi_out *o = s->open;
        s->open = NULL;
        if (o != NULL)
            wf__mpi_send_out(m, o, false);
        pthread_mutex_unlock(&s->mu);
    }
    /* Not MULTIPLE: they went to the outbox; this is the engine. */
    if (any && m->mode != WF_MPI_MULTIPLE)
        wf__mpi_post_outbox(m);
}
