/* SPDX-License-Identifier: Apache-2.0 */
/* Named orders weft_mpi uses that src/internal/atomic.h does not name
 * (yet): the seq_cst load, store and exchange that its first version had
 * by default, and a relaxed exchange.  Each maps to <stdatomic.h> with
 * exactly that order; the rules that need them are docs/protocols.md's
 * M1-M7.  Everything else goes through src/internal/atomic.h.  weft_mpi is
 * never built for weft-sim, so there is no WF_SIM form. */
#ifndef WF_INTERNAL_MPI_ORDERS_H
#define WF_INTERNAL_MPI_ORDERS_H

#include "internal/atomic.h"

#ifdef WF_SIM
#error "weft_mpi is not built for weft-sim: these orders have no hook"
#endif

#define wf_load_seqcst(p) atomic_load_explicit((p), memory_order_seq_cst)
#define wf_store_seqcst(p, v)                                                  \
    atomic_store_explicit((p), (v), memory_order_seq_cst)
#define wf_exchange_seqcst(p, v)                                               \
    atomic_exchange_explicit((p), (v), memory_order_seq_cst)
/* Orders nothing but its own location: picks one winner among threads. */
#define wf_exchange_relaxed(p, v)                                              \
    atomic_exchange_explicit((p), (v), memory_order_relaxed)

#endif /* WF_INTERNAL_MPI_ORDERS_H */
