/* SPDX-License-Identifier: Apache-2.0 */
/* A context's settings (src/mpi/settings.c): the thread level, the
 * configuration and its environment variables, credits. */
#ifndef WF_INTERNAL_MPI_SETTINGS_H
#define WF_INTERNAL_MPI_SETTINGS_H

#include <stddef.h>

#include "internal/mpi/context.h"

/* m's mode, credits and polling from cfg (NULL: defaults) and the
 * environment; WF_EINVAL, WF_ERANGE. */
int wf__mpi_configure(wf_mpi *m, const wf_mpi_config *cfg);
/* Credits of a new receiving channel of `size` bytes (own: its own). */
unsigned wf__mpi_credits_for(const wf_mpi *m, unsigned own, size_t size);
/* WF_EPERM when this thread may not call MPI (FUNNELED, not main). */
int wf__mpi_check_caller(const wf_mpi *m);

/* The library's parser of WEFT_* variables, wf__env_uint (src/base/env.c),
 * compiled into weft_mpi under this name (src/mpi/environ.c): dflt when
 * unset or empty, and (with a warning on stderr, once per variable) when
 * it is not a decimal number from 0 to max. */
unsigned wf__mpi_env_uint(const char *name, unsigned dflt, unsigned max);

#endif /* WF_INTERNAL_MPI_SETTINGS_H */
