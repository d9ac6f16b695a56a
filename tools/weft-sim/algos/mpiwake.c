/* SPDX-License-Identifier: Apache-2.0 */
/* The MPI engine's sleep and its kick (rule M1 of docs/protocols.md) on
 * the library's own code: src/internal/mpi/wake_steps.h compiled
 * unchanged with -DWF_SIM, driven as src/mpi/wake.c drives it
 * (wf__mpi_sleep, wf__mpi_kick):
 *
 *   m1      owner, the thread with the engine, sleeps once: locks wake_mu,
 *           wf__mpi_sleep_begin, waits on wake_cv if it took no kick,
 *           then wf__mpi_sleep_recheck, wf__mpi_sleep_end, unlocks.  T1
 *           writes a datum (work for the engine), then kicks:
 *           wf__mpi_kick_needs_wake, and a broadcast of wake_cv under
 *           wake_mu if it said so.
 *   m1-two  the engine sleeps twice (its backoff: a pass, then another
 *           sleep); T1 and T2 each kick once.  A kick that finds nobody
 *           sleeping stays in `kicked` for the next sleep.
 *   m1-timeout  as m1, but the engine's wait ends by its timeout
 *           whether a broadcast came or not: it relocks wake_mu, takes a
 *           kick that came meanwhile with wf__mpi_sleep_recheck, and reads
 *           T1's datum if it did.  A kick stored before a relock that
 *           comes before the kicker's broadcast is seen only through the
 *           recheck's own acquire.
 *
 * wake_mu and wake_cv are the scenario's own.  wake_mu is a ticket word,
 * `mu`: locking it is an acq_rel fetch-add (the lock's acquire, and the
 * release of what came before it), so the critical sections take the
 * order of the fetch-adds.  The sleeper holds wake_mu from its lock until
 * its wait, and after the wait until its unlock: a kicker whose section
 * comes after the sleeper's lock in that order broadcasts while the
 * sleeper waits (the kicker blocks until the wait lets wake_mu go), so
 * the broadcast wakes it; one that comes before it wakes nothing.  The
 * wait therefore ends when the sleeper's load of `mu` (acquire: the
 * relock, which sees what the kicker wrote before its broadcast) shows a
 * ticket taken after its own; otherwise the thread's part ends there, as
 * a futex wait that sleeps in evcount.c, and whether a broadcast came
 * later is decided at the end.  `stop` (M7) stays 0.  The wait is timed
 * in wake.c; here it is not: a wait that no broadcast ends while a kick
 * is left in `kicked` (the kick's store came after the exchange that
 * decided to wait) is a LOST KICK, an engine that sleeps its timeout out
 * with work in hand.  In m1 the engine, having taken T1's kick, reads
 * T1's datum (a stale read under the hardware models, a data race under
 * c11): what the kicker wrote before its kick is seen by the pass the
 * kick starts (M1). */

#include <string.h>

#include "algos/evcount.h"
#include "core/access.h"
#include "core/threads.h"

#include "internal/mpi/wake_steps.h"

#define MAX_KICKERS 2

static _Alignas(64) _Atomic int sleeping, kicked; /* as in wf_mpi */
static _Alignas(64) _Atomic int64_t mu;           /* wake_mu's tickets */
static _Alignas(64) _Atomic int64_t datum;        /* T1's work */
static int nsleeps, nkickers;
static int sleeps, waits, woken, taken; /* the engine's, for outcome */
static bool asleep;       /* its last wait found no broadcast yet */
static int64_t last_lock; /* the ticket of the lock before that wait */
static bool check_datum;  /* m1: read T1's datum after a kick taken */
static bool timed;        /* m1-timeout: every wait ends by its timeout */
static bool broadcast[1 + MAX_KICKERS];
static int64_t bticket[1 + MAX_KICKERS]; /* each broadcast's lock ticket */

/* wake_mu's lock: the ticket taken (scenario's own, see above). */
static int64_t lock_mu(void)
{
    return wf_fetch_add_acqrel(&mu, 1);
}

/* The engine's pass after a kick taken: T1's datum must be there. */
static void pass(int t)
{
    if (!check_datum || S.fail[0])
        return;
    int64_t d = SIM_GRAPH_MODEL(S.model) ? (int64_t)sim_plain_load(&datum)
                                         : wf_load_relaxed(&datum);
    if (d != 1)
        sim_failf("%s took T1's kick but reads its datum as not yet "
                  "written (stale)",
                  sim_thread_name(t));
}

/* wf__mpi_sleep, nsleeps times; the thread's part ends in a wait that
 * no broadcast has ended yet. */
static void engine(int t)
{
    for (int i = 0; i < nsleeps; i++) {
        sleeps++;
        int64_t ticket = lock_mu();
        bool took = wf__mpi_sleep_begin(&sleeping, &kicked);
        if (!took && timed) { /* the timed wait ends: relock wake_mu */
            waits++;
            lock_mu();
            took = wf__mpi_sleep_recheck(&kicked);
        } else if (!took) { /* pthread_cond_timedwait */
            waits++;
            last_lock = ticket;
            if (wf_load_acquire(&mu) < ticket + 2) {
                asleep = true;
                return;
            }
            woken++;
            took = wf__mpi_sleep_recheck(&kicked);
        }
        wf__mpi_sleep_end(&sleeping);
        if (took) {
            taken++;
            pass(t);
        }
    }
}

/* A kicker's work for the engine, then wf__mpi_kick. */
static void kicker(int t)
{
    if (check_datum && t == 1) {
        if (SIM_GRAPH_MODEL(S.model))
            sim_plain_store(&datum, 1);
        else
            wf_store_relaxed(&datum, 1);
    }
    if (wf__mpi_kick_needs_wake(&kicked, &sleeping)) {
        bticket[t] = lock_mu(); /* lock, broadcast, unlock */
        broadcast[t] = true;
    }
}

static void reset(int sleeps_, int kickers, bool datum_, bool timed_)
{
    timed = timed_;
    nsleeps = sleeps_;
    nkickers = kickers;
    check_datum = datum_;
    wf_store_relaxed(&sleeping, 0);
    wf_store_relaxed(&kicked, 0);
    wf_store_relaxed(&mu, 0);
    wf_store_relaxed(&datum, 0);
    sleeps = waits = woken = taken = 0;
    asleep = false;
    last_lock = -1;
    memset(broadcast, 0, sizeof broadcast);
    memset(bticket, 0, sizeof bticket);
    sim_register_name(&sleeping, "sleeping");
    sim_register_name(&kicked, "kicked");
    sim_register_name(&mu, "wake_mu");
    sim_register_name(&datum, "datum(T1)");
    sim_add_op(0, (sim_op){.kind = OP_CALL, .call = engine});
    for (int k = 1; k <= kickers; k++)
        sim_add_op(k, (sim_op){.kind = OP_CALL, .call = kicker});
}

static void setup_m1(const explore_job *job)
{
    (void)job;
    reset(1, 1, true, false);
}

static void setup_m1_two(const explore_job *job)
{
    (void)job;
    reset(2, 2, false, false);
}

static void setup_m1_timeout(const explore_job *job)
{
    (void)job;
    reset(1, 1, true, true);
}

/* The engine asleep at the end: some broadcast must have come after its
 * lock, or no kick may be left. */
static void final(void)
{
    if (S.fail[0] || !asleep)
        return;
    for (int k = 1; k <= nkickers; k++)
        if (broadcast[k] && bticket[k] > last_lock)
            return; /* woken */
    if (wf_load_relaxed(&kicked) != 0)
        sim_failf("lost kick: the engine waits with kicked = 1 and no "
                  "broadcast comes (its exchange missed a kick, and that "
                  "kicker's load of sleeping missed its increment)");
}

static void outcome(char *buf, size_t n)
{
    size_t k =
        (size_t)snprintf(buf, n,
                         "sleeps %d, waits %d, woken %d, kicks taken "
                         "%d%s | broadcast by",
                         sleeps, waits, woken, taken, asleep ? ", asleep" : "");
    bool any = false;
    for (int t = 1; t <= nkickers && k < n; t++)
        if (broadcast[t]) {
            k += (size_t)snprintf(buf + k, n - k, " %s", sim_thread_name(t));
            any = true;
        }
    if (!any && k < n)
        snprintf(buf + k, n - k, " none");
}

#define CORRECT                                                                \
    "no kick lost: every wait was ended by a broadcast or left no kick "       \
    "behind; a kick taken shows the kicker's datum"

const sim_protocol sim_proto_m1 = {
    "m1",
    "the MPI engine sleeps once (wake.c's wf__mpi_sleep) while T1 writes a "
    "datum and kicks it (wf__mpi_kick): it takes the kick or is woken",
    2,
    setup_m1,
    final,
    outcome,
    CORRECT};
const sim_protocol sim_proto_m1_two = {
    "m1-two",
    "the MPI engine sleeps twice while T1 and T2 kick it once each: no "
    "kick is lost, one left while nobody sleeps ends the next sleep",
    3,
    setup_m1_two,
    final,
    outcome,
    CORRECT};
const sim_protocol sim_proto_m1_timeout = {
    "m1-timeout",
    "as m1, but the engine's wait times out whether or not a broadcast "
    "came: a kick its recheck takes shows T1's datum",
    2,
    setup_m1_timeout,
    final,
    outcome,
    CORRECT};
