/* SPDX-License-Identifier: Apache-2.0 */
/* The library's parser of WEFT_* variables, compiled into weft_mpi too.
 *
 * weft_mpi links only weft's public API (wf_*), so it cannot call
 * wf__env_uint in libweft; it still reads its variables (WEFT_MPI_*) as
 * the library reads its own: what it accepts and rejects, and its one
 * warning per variable.  So this compiles the one source,
 * src/base/env.c, a second time, under names private to weft_mpi (hidden
 * in the shared library, as every wf__ name is).  The copy of
 * wf__available_cpus is not used. */
#include "internal/mpi/settings.h" /* the name it is compiled under */

#define wf__env_uint wf__mpi_env_uint
#define wf__available_cpus wf__mpi_available_cpus
#include "base/env.c"
