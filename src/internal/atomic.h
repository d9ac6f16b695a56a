/* SPDX-License-Identifier: Apache-2.0 */
/* Every atomic access in weft, one name per (operation, memory order).
 *
 * The library maps the names to <stdatomic.h>.  With -DWF_SIM they map to
 * the simulator hook declared in sim_hook.h instead, which weft-sim
 * (docs/weft-sim.md) implements: each access becomes a logged step its
 * scheduler can interleave; that is why deque.c must use nothing but these
 * names.  Keep the set small.
 *
 * Under ThreadSanitizer, which does not model fences, a seq_cst fence is
 * also a seq_cst RMW on one shared word: TSan then sees the ordering the
 * fence provides between the two sides of a Dekker-style handshake. */
#ifndef WF_INTERNAL_ATOMIC_H
#define WF_INTERNAL_ATOMIC_H

#ifdef WF_SIM
#include "sim_hook.h" /* the same names, as calls into the simulator */
#else

#include <stdatomic.h>

#include "weft/common.h" /* WF__TSAN */

#define wf_load_relaxed(p) atomic_load_explicit((p), memory_order_relaxed)
#define wf_load_acquire(p) atomic_load_explicit((p), memory_order_acquire)
#define wf_store_relaxed(p, v)                                                 \
    atomic_store_explicit((p), (v), memory_order_relaxed)
#define wf_store_release(p, v)                                                 \
    atomic_store_explicit((p), (v), memory_order_release)
/* Strong CAS; *expected is updated on failure, as in C11. */
#define wf_cas_seqcst(p, expected, desired)                                    \
    atomic_compare_exchange_strong_explicit((p), (expected), (desired),        \
                                            memory_order_seq_cst,              \
                                            memory_order_seq_cst)
/* CAS whose success both acquires and releases; failure acquires. */
#define wf_cas_acqrel(p, expected, desired)                                    \
    atomic_compare_exchange_strong_explicit((p), (expected), (desired),        \
                                            memory_order_acq_rel,              \
                                            memory_order_acquire)
/* CAS that orders nothing but its own location. */
#define wf_cas_relaxed(p, expected, desired)                                   \
    atomic_compare_exchange_strong_explicit((p), (expected), (desired),        \
                                            memory_order_relaxed,              \
                                            memory_order_relaxed)
#define wf_exchange_acqrel(p, v)                                               \
    atomic_exchange_explicit((p), (v), memory_order_acq_rel)
/* Orders nothing but its own location: picks one winner among threads, or
 * reads a word's last value (a request, P2, P9). */
#define wf_exchange_relaxed(p, v)                                              \
    atomic_exchange_explicit((p), (v), memory_order_relaxed)
#define wf_fetch_add_seqcst(p, v)                                              \
    atomic_fetch_add_explicit((p), (v), memory_order_seq_cst)
#define wf_fetch_add_acqrel(p, v)                                              \
    atomic_fetch_add_explicit((p), (v), memory_order_acq_rel)
#define wf_fetch_add_release(p, v)                                             \
    atomic_fetch_add_explicit((p), (v), memory_order_release)
/* Statistics several threads bump, read as a snapshot. */
#define wf_fetch_add_relaxed(p, v)                                             \
    atomic_fetch_add_explicit((p), (v), memory_order_relaxed)

/* Seq_cst loads, stores and exchanges: the halves of a store-buffering
 * pair done with accesses rather than fences (the spare workers, P12,
 * and the MPI engine's kick, M1, of docs/protocols.md). */
#define wf_load_seqcst(p) atomic_load_explicit((p), memory_order_seq_cst)
#define wf_store_seqcst(p, v)                                                  \
    atomic_store_explicit((p), (v), memory_order_seq_cst)
#define wf_exchange_seqcst(p, v)                                               \
    atomic_exchange_explicit((p), (v), memory_order_seq_cst)

#ifdef WF__TSAN /* weft/common.h */
extern _Atomic int wf__tsan_fence_word;
#define wf_fence_seqcst()                                                      \
    ((void)atomic_fetch_add_explicit(&wf__tsan_fence_word, 0,                  \
                                     memory_order_seq_cst),                    \
     atomic_thread_fence(memory_order_seq_cst))
#else
#define wf_fence_seqcst() atomic_thread_fence(memory_order_seq_cst)
#endif

/* Owner-only counters: one writer, readers want a snapshot.  A relaxed load
 * and store (no RMW) is enough and costs a plain add. */
#define wf_counter_inc(p) wf_store_relaxed((p), wf_load_relaxed(p) + 1)

#endif /* WF_SIM */
#endif /* WF_INTERNAL_ATOMIC_H */
