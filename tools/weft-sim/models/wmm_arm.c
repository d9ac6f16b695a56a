/* SPDX-License-Identifier: Apache-2.0 */
/* The arm model: ARMv8's axioms (Pulte et al., POPL 2018; herd7's
 * aarch64.cat), checked on a graph each time an event is added.
 *
 *   internal  acyclic(po-loc | ca | rf): SC per location, i.e. coherence
 *             with po where RC11 has hb
 *   external  acyclic(ob), ob = (obs | dob | aob | bob)+
 *             obs = rfe | fre | coe
 *             dob = addr | ctrl;[W] | addr;po;[W] | addr;rfi
 *             aob = rmw | [range(rmw)];rfi;[A]
 *             bob = po;[dmb.full];po | [L];po;[A] | [R];po;[dmb.ld];po
 *                   | [A];po | po;[L] | po;[L];coi
 *   atomic    no write between an RMW's read and its write in co
 *
 * Each access is the instruction weft-sim prints for it: a relaxed load
 * ldr, an acquire or seq_cst load ldar ([A]), a relaxed store str, a
 * release or seq_cst store stlr ([L]), an RMW casal/swpal/ldaddal (its
 * read [A] and its write [L] as its order says), a seq_cst or release
 * fence dmb ish (full), an acquire fence dmb ishld.
 *
 * Dependencies are what the simulator can see of them.  addr: an address
 * that lies in an object (a ring, a task's contents) whose pointer the
 * thread loaded depends on that load.  ctrl: the algorithms' C code
 * branches on what it loads (an index against another, a pointer against
 * NULL, a CAS's result) before it stores, so each of their loads is
 * ordered before every later store of the thread; a litmus test's body is
 * straight-line code with no such branch (WEF_STRAIGHT).  data is not
 * tracked: it only orders a load before a store, which ctrl already does
 * for code and which a litmus body does not claim. */
#include <string.h>

#include "models/wmm.h"

typedef struct bset {
    uint64_t w[WG_MAX_EV / 64];
} bset;

#define BS_SET(s, i) ((s).w[(i) / 64] |= (uint64_t)1 << ((i) % 64))
#define BS_CLR(s, i) ((s).w[(i) / 64] &= ~((uint64_t)1 << ((i) % 64)))
#define BS_HAS(s, i) ((s).w[(i) / 64] >> ((i) % 64) & 1)

/* LOB[x]: the events of x's thread that x is locally ordered before
 * (dob | aob | bob, transitively), for the graph last synced. */
static bset LOB[WG_MAX_EV];

static bool acq(const wg_ev *E)
{
    return E->type == WE_R && !(E->flags & WEF_PLAIN) &&
           (E->order == WF_SIM_ACQUIRE || E->order == WF_SIM_ACQ_REL ||
            E->order == WF_SIM_SEQ_CST);
}

static bool rel(const wg_ev *E)
{
    return E->type == WE_W && !(E->flags & WEF_PLAIN) &&
           (E->order == WF_SIM_RELEASE || E->order == WF_SIM_ACQ_REL ||
            E->order == WF_SIM_SEQ_CST);
}

static bool dmb_full(const wg_ev *E)
{
    return E->type == WE_F && E->order != WF_SIM_ACQUIRE &&
           E->order != WF_SIM_RELAXED;
}

static bool dmb_ld(const wg_ev *E)
{
    return E->type == WE_F && E->order == WF_SIM_ACQUIRE;
}

/* Is x (po-before e, same thread) directly locally ordered before e?
 * addr_w: x has an address-dependent event before e (addr;po;[W]);
 * rel_at: po index of the last release store to e's location before e. */
static bool direct(const wg *g, int x, int e, bool addr_w, int rel_at)
{
    const wg_ev *X = &g->ev[x], *E = &g->ev[e];
    if (acq(X) || rel(E) || dmb_full(E) || dmb_full(X) || dmb_ld(X))
        return true; /* [A];po  po;[L]  po;[dmb.full];po  [dmb.ld];po */
    if (dmb_ld(E) && X->type == WE_R)
        return true; /* [R];po;[dmb.ld] */
    if (rel(X) && acq(E))
        return true; /* [L];po;[A] */
    if ((X->flags & WEF_RMW) && X->type == WE_R && (E->flags & WEF_RMW) &&
        E->type == WE_W && X->po + 1 == E->po)
        return true; /* rmw */
    if ((X->flags & WEF_RMW) && X->type == WE_W && acq(E) && E->rf == x)
        return true; /* [range(rmw)];rfi;[A] */
    if (X->type == WE_R && E->type == WE_W && !(X->flags & WEF_STRAIGHT))
        return true; /* ctrl;[W] */
    if (E->dep == x || (E->type == WE_W && addr_w))
        return true; /* addr, addr;po;[W] */
    if (E->type == WE_R && E->rf >= 0 && g->ev[E->rf].thread == E->thread &&
        g->ev[E->rf].dep == x)
        return true;                          /* addr;rfi */
    return E->type == WE_W && X->po < rel_at; /* po;[L];coi */
}

void arm_added(const wg *g, int e)
{
    const wg_ev *E = &g->ev[e];
    int t = E->thread, j = E->po;
    bool dep_src[WG_MAX_EV] = {false}; /* addr;po;[W] sources */
    int rel_at = -1;
    for (int i = 0; i < j; i++) {
        const wg_ev *K = &g->ev[g->th[t][i]];
        if (K->dep >= 0)
            dep_src[K->dep] = true;
        if (E->type == WE_W && rel(K) && K->loc == E->loc)
            rel_at = i;
    }
    memset(&LOB[e], 0, sizeof(bset));
    bset d = {{0}};
    for (int i = 0; i < j; i++) {
        int x = g->th[t][i];
        if (direct(g, x, e, dep_src[x] && g->ev[x].po < j, rel_at))
            BS_SET(d, x);
    }
    for (int i = 0; i < j; i++) {
        int x = g->th[t][i];
        bool hit = BS_HAS(d, x);
        for (int w = 0; !hit && w < WG_MAX_EV / 64; w++)
            hit = (LOB[x].w[w] & d.w[w]) != 0;
        if (hit)
            BS_SET(LOB[x], e);
    }
}

void arm_removed(const wg *g, int e)
{
    const wg_ev *E = &g->ev[e];
    for (int i = 0; i < E->po; i++)
        BS_CLR(LOB[g->th[E->thread][i]], e);
}

void arm_sync(const wg *g)
{
    for (int e = 0; e < g->n; e++)
        arm_added(g, e); /* in index order: po predecessors come first */
}

/* The ob-successors of x outside its thread: rfe, coe, fre. */
static void obs_succ(const wg *g, int x, bset *out)
{
    const wg_ev *X = &g->ev[x];
    if (X->loc < 0)
        return;
    const wg_loc *L = &g->loc[X->loc];
    int from = X->type == WE_W ? X->cop : wg_cop(g, X->rf);
    for (int i = from; i < L->nw; i++) /* coe, fre */
        if (g->ev[L->co[i]].thread != X->thread)
            BS_SET(*out, L->co[i]);
    if (X->type == WE_W)
        for (int y = 0; y < g->n; y++) /* rfe */
            if (g->ev[y].type == WE_R && g->ev[y].rf == x &&
                g->ev[y].thread != X->thread)
                BS_SET(*out, y);
}

/* Is there an ob cycle through e?  A depth-first search from e's
 * successors; each event is queued once. */
static bool ob_cycle(const wg *g, int e)
{
    bset seen = {{0}};
    int stack[WG_MAX_EV], top = 0;
    for (int x = e;;) {
        bset s = LOB[x];
        obs_succ(g, x, &s);
        for (int y = 0; y < g->n; y++) {
            if (!BS_HAS(s, y))
                continue;
            if (y == e)
                return true;
            if (!BS_HAS(seen, y)) {
                BS_SET(seen, y);
                stack[top++] = y;
            }
        }
        if (!top)
            return false;
        x = stack[--top];
    }
}

static bool po_before(const wg *g, int x, int y)
{
    return x < 0 ||
           (g->ev[x].thread == g->ev[y].thread && g->ev[x].po < g->ev[y].po);
}

bool arm_ok(const wg *g, int e)
{
    return wg_coherent(g, e, po_before) && !ob_cycle(g, e);
}
