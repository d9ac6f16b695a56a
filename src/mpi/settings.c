/* SPDX-License-Identifier: Apache-2.0 */
/* A context's settings: the mode from MPI's thread level, the
 * configuration and its environment variables (docs/mpi.md), the credits
 * of a new channel, and who may call MPI. */
#include "internal/mpi/settings.h"

#define DEFAULT_CREDITS 64u
#define DEFAULT_POLL_MAX_US 10000u
#define DEFAULT_POLL_SPIN_US 100u
#define DEFAULT_POLL_IDLE_US 1000000u
/* The receive ring of a default channel.  Small: a message is copied out
 * of the ring soon after it lands, and the sender's buffers cycle as the
 * credits do, so a ring that stays in the cache streams large messages
 * faster than a deep one (docs/mpi.md, "Measured"). */
#define CREDIT_BUFFER_BYTES (2u << 20)

static int granted_mode(void)
{
    int level;
    MPI_Query_thread(&level);
    if (level == MPI_THREAD_MULTIPLE)
        return WF_MPI_MULTIPLE;
    if (level == MPI_THREAD_SERIALIZED)
        return WF_MPI_SERIALIZED;
    return WF_MPI_FUNNELED; /* SINGLE too: only this thread calls MPI */
}

/* A field of wf_mpi_config, else its variable, else dflt, in ns.  The
 * variable is read as the library reads its own (wf__env_uint): 0, unset
 * or unusable (with one warning) mean the default. */
static int64_t poll_ns(unsigned field, const char *var, unsigned max,
                       unsigned dflt)
{
    unsigned us = field ? field : wf__mpi_env_uint(var, 0, max);
    return (int64_t)(us ? us : dflt) * 1000;
}

int wf__mpi_configure(wf_mpi *m, const wf_mpi_config *cfg)
{
    wf_mpi_config c = WF_MPI_CONFIG_INIT;
    if (cfg)
        c = *cfg;
    if ((int)c.mode < WF_MPI_AUTO || c.mode > WF_MPI_MULTIPLE)
        return WF_EINVAL;
    if (c.credits > WF_MPI_MAX_CREDITS)
        return WF_ERANGE;
    int granted = granted_mode();
    if ((int)c.mode > granted)
        return WF_ERANGE;
    m->mode = c.mode == WF_MPI_AUTO ? (wf_mpi_mode)granted : c.mode;
    m->credits = c.credits;
    m->poll_max_ns = poll_ns(c.poll_max_us, "WEFT_MPI_POLL_MAX_US", 1000000,
                             DEFAULT_POLL_MAX_US);
    m->poll_spin_ns = poll_ns(c.poll_spin_us, "WEFT_MPI_POLL_SPIN_US", 1000000,
                              DEFAULT_POLL_SPIN_US);
    m->poll_idle_ns =
        poll_ns(0, "WEFT_MPI_POLL_IDLE_US", 60000000, DEFAULT_POLL_IDLE_US);
    if (m->poll_idle_ns < m->poll_max_ns)
        m->poll_idle_ns = m->poll_max_ns;
    return 0;
}

/* Its own, the context's, or enough to keep the default ring near
 * CREDIT_BUFFER_BYTES; never under 2. */
unsigned wf__mpi_credits_for(const wf_mpi *m, unsigned own, size_t size)
{
    if (own)
        return own < 2 ? 2 : own;
    if (m->credits)
        return m->credits < 2 ? 2 : m->credits;
    size_t fit = CREDIT_BUFFER_BYTES / size;
    if (fit > DEFAULT_CREDITS)
        fit = DEFAULT_CREDITS;
    return fit < 2 ? 2 : (unsigned)fit;
}

int wf__mpi_check_caller(const wf_mpi *m)
{
    if (m->mode == WF_MPI_FUNNELED) {
        int is_main = 0;
        MPI_Is_thread_main(&is_main);
        if (!is_main)
            return WF_EPERM;
    }
    return 0;
}
