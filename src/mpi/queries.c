/* SPDX-License-Identifier: Apache-2.0 */
/* What a context tells its user: its mode, its largest channel, its
 * statistics. */
#include "internal/mpi/context.h"
#include "internal/mpi/sender.h"

wf_mpi_mode wf_mpi_get_mode(const wf_mpi *m)
{
    return m ? m->mode : WF_MPI_AUTO;
}

int wf_mpi_max_channel(const wf_mpi *m)
{
    return m ? m->max_channel : -1;
}

int wf_mpi_get_stats(const wf_mpi *m, wf_mpi_stats *out)
{
    if (m == NULL || out == NULL)
        return WF_EINVAL;
    wf_mpi *w = (wf_mpi *)m;
    /* M6: relaxed loads: counters, documented as not one snapshot. */
#define LD(x) wf_load_relaxed(&w->x)
    out->data_sent = 0; /* the channels' own counts */
    pthread_mutex_lock(&w->lock);
    for (size_t i = 0; i < w->n_send; i++)
        out->data_sent += LD(send_list[i]->sent);
    pthread_mutex_unlock(&w->lock);
    out->data_delivered = LD(st_delivered);
    out->ctrl_sent = LD(st_ctrl_sent);
    out->ctrl_received = LD(st_ctrl_received);
    out->credit_waits = LD(st_credit_waits);
    out->rejections = LD(st_rejections);
    out->max_in_flight = LD(st_max_in_flight);
    out->max_queued = LD(st_max_queued);
    out->rounds = LD(st_rounds);
    out->polls = LD(polls);
    out->sleeps = LD(sleeps);
#undef LD
    return 0;
}
