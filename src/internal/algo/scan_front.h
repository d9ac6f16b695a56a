/* SPDX-License-Identifier: Apache-2.0 */
/* The frontier of wf_parallel_scan (src/algo/scan.c): the lowest block
 * whose prefix is known and not yet used, and which blocks have folded
 * their sum instead.  The scan's only lock-free protocol (rule A6 of
 * docs/protocols.md), kept here on the atomics header alone, like every
 * lock-free protocol of weft, so that weft-sim can compile it unchanged
 * (it does not explore it yet).
 *
 * The rules:
 *   - the prefix of block k (the scan's pre[k]) is written before the
 *     frontier becomes k, by a release store, and a block reads it only
 *     after an acquire load of the frontier that returned its index;
 *   - the frontier moves from k to k + 1 either by block k, after its
 *     final pass (it found itself at the frontier when it started), or
 *     by the holder of `advancing` past block k when k has folded its
 *     sum; a block does one of the two, never both, so there is one
 *     writer at a time;
 *   - a block that folds its sum publishes it with a release store of
 *     its state, which the advancer reads with an acquire load.
 * An advance that nobody makes (the holder of `advancing` looked before
 * the block folded, the block's own advance found the token taken)
 * leaves the frontier short; the scan's second pass needs no frontier,
 * so only speed is lost.  Not installed. */
#ifndef WF_INTERNAL_ALGO_SCAN_FRONT_H
#define WF_INTERNAL_ALGO_SCAN_FRONT_H

#include <stdbool.h>
#include <stddef.h>

#include "internal/atomic.h"

#define WF__SCAN_FOLDED 1

typedef struct {
    _Atomic size_t frontier;
    _Atomic int advancing;
    _Atomic unsigned char *state; /* nblocks entries */
    size_t nblocks;
} wf__scan_front;

/* Before the scan's tasks start (relaxed: starting them publishes it). */
static inline void wf__scan_front_init(wf__scan_front *f,
                                       _Atomic unsigned char *state,
                                       size_t nblocks)
{
    f->state = state;
    f->nblocks = nblocks;
    for (size_t k = 0; k < nblocks; k++)
        wf_store_relaxed(&state[k], 0);
    wf_store_relaxed(&f->frontier, 0);
    wf_store_relaxed(&f->advancing, 0);
}

/* As block k starts: is its prefix known?  Acquire pairs with the
 * release stores of the frontier in wf__scan_front_pass and _advance:
 * the prefix written before them is seen (A6). */
static inline bool wf__scan_front_at(wf__scan_front *f, size_t k)
{
    return wf_load_acquire(&f->frontier) == k; /* A6 */
}

/* Block k, which was at the frontier, has written the next prefix. */
static inline void wf__scan_front_pass(wf__scan_front *f, size_t k)
{
    wf_store_release(&f->frontier, k + 1); /* A6: pairs with _at */
}

/* Block k has written its folded sum. */
static inline void wf__scan_front_folded(wf__scan_front *f, size_t k)
{
    /* A6: the sum, to the acquire load in _advance */
    wf_store_release(&f->state[k], WF__SCAN_FOLDED);
}

/* Move the frontier past the folded blocks it has reached, calling
 * step(k, arg) to write block k + 1's prefix from block k's and its sum.
 * One caller at a time; a caller that finds another at it leaves. */
static inline void wf__scan_front_advance(wf__scan_front *f,
                                          void (*step)(size_t k, void *arg),
                                          void *arg)
{
    /* A6: the token; acquire sees the prefixes the last holder wrote. */
    if (wf_exchange_acqrel(&f->advancing, 1))
        return;
    size_t k = wf_load_acquire(&f->frontier); /* A6: the prefix of k */
    /* A6: acquire, a folded block's sum. */
    while (k < f->nblocks && wf_load_acquire(&f->state[k]) == WF__SCAN_FOLDED) {
        step(k, arg);
        wf_store_release(&f->frontier, ++k); /* A6: pairs with _at */
    }
    wf_store_release(&f->advancing, 0); /* A6: gives the token back */
}

/* After every block has run and been joined (relaxed: the joins order
 * the blocks' stores before these loads). */
static inline size_t wf__scan_front_end(wf__scan_front *f)
{
    return wf_load_relaxed(&f->frontier);
}
static inline bool wf__scan_front_was_folded(wf__scan_front *f, size_t k)
{
    return wf_load_relaxed(&f->state[k]) == WF__SCAN_FOLDED;
}

#endif /* WF_INTERNAL_ALGO_SCAN_FRONT_H */
