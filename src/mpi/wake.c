/* SPDX-License-Identifier: Apache-2.0 */
/* The engine's sleep and its wake-up.  The thread with the engine sleeps
 * on wake_cv when a pass found nothing (engine.c, the backoff); whoever
 * makes work for it (a send to post, a collective, a cancel, the stop)
 * kicks it.  The handshake is M1 (docs/protocols.md): no kick is lost. */
#include <time.h>

#include "internal/mpi/wake.h"
#include "internal/mpi/wake_steps.h"
#include "internal/util.h"

bool wf__mpi_sleep(wf_mpi *m, int64_t ns)
{
    wf_fetch_add_relaxed(&m->sleeps, 1); /* M6: a statistic */
    /* M1: wake_mu is held from before the sleeper's increment until the
     * wait, so a kicker that saw the increment broadcasts after the wait
     * began (wake_steps.h has the atomic steps and their orders). */
    pthread_mutex_lock(&m->wake_mu);
    bool kicked = wf__mpi_sleep_begin(&m->sleeping, &m->kicked);
    /* M7: relaxed: engine_stop stores `stop`, then kicks, so a stop this
     * load misses ends the wait at once; it only skips that wait. */
    if (!kicked && !wf_load_relaxed(&m->stop)) {
        int64_t until = (int64_t)wf__now_ns() + ns;
        struct timespec ts = {(time_t)(until / 1000000000),
                              (long)(until % 1000000000)};
        pthread_cond_timedwait(&m->wake_cv, &m->wake_mu, &ts);
        kicked = wf__mpi_sleep_recheck(&m->kicked);
    }
    wf__mpi_sleep_end(&m->sleeping);
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
    /* M1: the store of `kicked`, then the load of `sleeping`
     * (wake_steps.h); the broadcast under wake_mu comes after the
     * sleeper's wait began whenever the load saw its increment. */
    if (wf__mpi_kick_needs_wake(&m->kicked, &m->sleeping)) {
        pthread_mutex_lock(&m->wake_mu);
        pthread_cond_broadcast(&m->wake_cv); /* the thread with the engine */
        pthread_mutex_unlock(&m->wake_mu);
    }
}
