/* SPDX-License-Identifier: Apache-2.0 */
/* The engine's sleep and its wake-up.  The thread with the engine sleeps
 * on wake_cv when a pass found nothing (engine.c, the backoff); whoever
 * makes work for it (a send to post, a collective, a cancel, the stop)
 * kicks it.  The handshake is M1 (docs/protocols.md): no kick is lost. */
#include <time.h>

#include "internal/mpi/wake.h"
#include "internal/util.h"

bool wf__mpi_sleep(wf_mpi *m, int64_t ns)
{
    wf_fetch_add_relaxed(&m->sleeps, 1); /* M6: a statistic */
    pthread_mutex_lock(&m->wake_mu);
    /* M1: seq_cst increment of `sleeping`, then exchange of `kicked`;
     * pairs with wf__mpi_kick's store of `kicked`, then load of
     * `sleeping`: one of the two sees the other. */
    wf_fetch_add_seqcst(&m->sleeping, 1);
    bool kicked = wf_exchange_seqcst(&m->kicked, 0); /* M1 */
    /* M7: seq_cst (kept); engine_stop stores `stop`, then kicks. */
    if (!kicked && !wf_load_seqcst(&m->stop)) {
        int64_t until = (int64_t)wf__now_ns() + ns;
        struct timespec ts = {(time_t)(until / 1000000000),
                              (long)(until % 1000000000)};
        pthread_cond_timedwait(&m->wake_cv, &m->wake_mu, &ts);
        kicked = wf_exchange_seqcst(&m->kicked, 0); /* M1, as above */
    }
    /* M1: seq_cst (kept); after it a kicker may skip the broadcast, as
     * nobody sleeps. */
    wf_fetch_add_seqcst(&m->sleeping, -1);
    pthread_mutex_unlock(&m->wake_mu);
    return kicked;
}

void wf__mpi_wake_if_quiet(wf_mpi *m)
{
    /* M5: relaxed: the exchange only picks the one sender that kicks; the
     * kick has its own handshake (M1). */
    if (wf_load_relaxed(&m->quiet) && wf_exchange_relaxed(&m->quiet, 0))
        wf__mpi_kick(m);
}

void wf__mpi_kick(wf_mpi *m)
{
    /* M1: seq_cst store of `kicked`, then seq_cst load of `sleeping`;
     * pairs with wf__mpi_sleep's increment, then exchange. */
    wf_store_seqcst(&m->kicked, 1);
    if (wf_load_seqcst(&m->sleeping)) { /* M1 */
        pthread_mutex_lock(&m->wake_mu);
        pthread_cond_broadcast(&m->wake_cv); /* the thread with the engine */
        pthread_mutex_unlock(&m->wake_mu);
    }
}
