/* SPDX-License-Identifier: Apache-2.0 */
/* The atomic steps of a port's edge list (rule G7 of docs/protocols.md):
 * the edge record, the list's block of slots, and what its node's
 * aggregator (set_edges, src/graph/edge.c) and the readers outside it
 * (the push and pull helpers, wf__has_edge, a continue node's broadcast)
 * do to them.  On atomic.h alone, as internal/graph/cont_count.h, so that
 * weft-sim compiles them unchanged (its scenarios `g7`, `g7-grow`,
 * `g7-has`); edge.c allocates the blocks and keeps a replaced one until
 * the node is destroyed.  Static inline: every send walks a list.  Never
 * installed.
 *
 * The publications of G7: an edge's record (from, to: plain; its state)
 * and its slot's far end are written before the slot is published by the
 * release store of the block's `n`; a new block, its slots and its `n`
 * written before it is published by the release store of the port's
 * `edges`.  A reader loads `edges`, then `n`, with acquire: it sees the
 * block as initialised and each slot below `n` filled, with its edge's
 * record as written, never a slot half built, nor what the block's or
 * the record's memory held before (a slab's block or record may have
 * held an older list or edge). */
#ifndef WF_INTERNAL_GRAPH_EDGES_STEPS_H
#define WF_INTERNAL_GRAPH_EDGES_STEPS_H

#include <stdbool.h>
#include <stdint.h>

#include "internal/atomic.h"

enum { WF__PUSH = 0, WF__PULL = 1 };

typedef struct wf__port wf__port;

typedef struct wf__edge {
    wf__port *from, *to;
    _Atomic int state; /* WF__PUSH or WF__PULL (G3) */
    union {
        /* While listed at a continue node's input: the next edge into
         * that port (wf__port.chain). */
        struct wf__edge *link;
        /* Once removed: the rest of its sender port's retired chain
         * (wf__edges.retired). */
        uintptr_t retired;
    };
} wf__edge;

/* A port's edge list: slots appended in place, each an edge and its
 * far end (e->to for an out-list, e->from for an in-list), so that a
 * sender signalling continue nodes reads the list's line and the
 * receivers', not one line per edge record.  Only the port's node, in its
 * aggregator (G1), appends a slot (then publishes n with a release store)
 * or removes an edge, by clearing its slot's `e` for good: a reader that
 * walks slots 0 .. n - 1 outside the aggregator sees each slot either
 * live or removed, never another edge in it.  A slot's far end never
 * changes.  An append that finds the block full publishes a new one that
 * holds the live slots, and the old one is kept until the node is
 * destroyed, for readers still walking it (wf__edges_count / _at). */
typedef struct wf__edge_slot {
    struct wf__edge *_Atomic e; /* NULL once removed */
    wf__port *far;
} wf__edge_slot;

typedef struct wf__edges {
    _Atomic unsigned n; /* slots used, live or removed */
    unsigned cap;
    /* What the port no longer lists but a reader that loaded it earlier
     * may still use, kept until the node is freed (edge.c): its list's
     * older blocks and the edges removed from it, a chain whose links
     * are blocks, or edges with bit 0 set.  0: none.  Only the port's
     * current block heads it.  Under the topology lock. */
    uintptr_t retired;
    wf__edge_slot s[];
} wf__edges;

/* ---- readers, outside the aggregator ------------------------------------ */

/* A port's list (`head` is &port->edges), for a reader outside the
 * aggregator (edge.c's load_list: the push and pull helpers; the
 * broadcasts of edge.h and continue.c).  G7:
 * acquire pairs with the release store of a new block
 * (wf__edges_replace): the block's slots and `n` are as the aggregator
 * initialised them, not what its memory held before, and each edge
 * copied there is seen as written.  Relaxed would do on ARMv8 and
 * x86-64 (the loads of the block depend on its address), not in C11. */
static inline wf__edges *wf__edges_list(wf__edges *_Atomic *head)
{
    return wf_load_acquire(head);
}

/* The slots of l a reader may walk: 0 .. count - 1 (0 for no list).
 * G7: acquire pairs with the release store of n in wf__edges_append:
 * the slots below it are filled and their edges' records written. */
static inline unsigned wf__edges_count(wf__edges *l)
{
    return l ? wf_load_acquire(&l->n) : 0;
}

/* Slot i's edge, or NULL once removed.  Relaxed: the edge was published
 * with n (wf__edges_count); a removal read late costs one use of an edge
 * that is kept until its sender is destroyed. */
static inline struct wf__edge *wf__edges_at(wf__edges *l, unsigned i)
{
    return wf_load_relaxed(&l->s[i].e);
}

/* Any edge of the list at `head` in state `state`?  (wf__has_edge, which
 * a store asks after most of its operations, outside its aggregator.)
 * G7: acquire, as wf__edges_list: the block and the edges in it are seen
 * as initialised; a block's memory that held an older list, read
 * without it, may show an old edge, or a new edge's state as its
 * record's memory held it, and answer for an edge that is not there.
 * The states are read relaxed: a stale state is corrected by the
 * notification that follows every change (G3). */
static inline bool wf__edges_has(wf__edges *_Atomic *head, int state)
{
    wf__edges *l = wf_load_acquire(head); /* G7, above */
    for (unsigned i = 0, n = wf__edges_count(l); i < n; i++) {
        wf__edge *e = wf__edges_at(l, i);
        if (e && wf_load_relaxed(&e->state) == state)
            return true;
    }
    return false;
}

/* ---- the aggregator (set_edges) and the editor (room) ------------------ */

/* A new block l of `cap` slots, not yet shared: the live slots of old's
 * first n, in order.  Relaxed and plain: wf__edges_replace publishes it. */
static inline void wf__edges_fill(wf__edges *l, unsigned cap, wf__edges *old,
                                  unsigned n)
{
    l->cap = cap;
    l->retired = 0;
    unsigned k = 0;
    for (unsigned i = 0; i < n; i++) {
        wf__edge *e = wf__edges_at(old, i);
        if (e) {
            wf_store_relaxed(&l->s[k].e, e); /* not shared yet */
            l->s[k++].far = old->s[i].far;
        }
    }
    wf_store_relaxed(&l->n, k); /* published with the block */
}

/* In the aggregator: make l, filled by wf__edges_fill, the port's list.
 * G7: release pairs with the acquire loads of `edges` by the readers
 * (wf__edges_list, wf__edges_has, the broadcasts): a reader that finds
 * the new block sees its slots and `n` and the edges' records.  Needed
 * even though the append that follows releases `n`: a reader that loads
 * the block between the two reads `n` and the slots without it, and a
 * block whose memory held an older list shows that list (a stale read
 * on a machine that reorders stores, a race in C11). */
static inline void wf__edges_replace(wf__edges *_Atomic *head, wf__edges *l)
{
    wf_store_release(head, l);
}

/* In the aggregator: append e, whose far end is `far`, to l, which has
 * a free slot.  Only the aggregator writes the list: its own `n` is read
 * relaxed, the slot written relaxed and plain, published by `n`. */
static inline void wf__edges_append(wf__edges *l, wf__edge *e, wf__port *far)
{
    unsigned i = wf_load_relaxed(&l->n); /* we are its only writer */
    l->s[i].far = far;
    wf_store_relaxed(&l->s[i].e, e); /* published by n, next */
    /* G7: release: a reader that sees the new count sees the slot and
     * its edge's record (wf__edges_count). */
    wf_store_release(&l->n, i + 1);
}

/* In the aggregator: remove slot i's edge for good.  Relaxed: a reader
 * that still finds the edge may use it (it is kept, retired, until its
 * sender is freed); nothing is published by the removal. */
static inline void wf__edges_clear(wf__edges *l, unsigned i)
{
    wf_store_relaxed(&l->s[i].e, NULL);
}

#endif /* WF_INTERNAL_GRAPH_EDGES_STEPS_H */
