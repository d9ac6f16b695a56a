/* SPDX-License-Identifier: Apache-2.0 */
/* Coherence, the axiom both models share: c11 checks it against hb
 * (irreflexive(hb ; eco?)), arm against po (internal: SC per location).
 * An RMW's read and write stay adjacent in co (atomicity). */
#include "models/wmm.h"

typedef bool (*before_fn)(const wg *g, int x, int y);

/* If the write at co position p + 1 comes from an RMW that read the
 * write at position p (0: the initial value), the RMW's read; else -1.
 * Nothing may go between them. */
static int rmw_follows(const wg *g, int l, int p)
{
    const wg_loc *L = &g->loc[l];
    if (p >= L->nw)
        return -1;
    const wg_ev *U = &g->ev[L->co[p]];
    if (!(U->flags & WEF_RMW) || U->po == 0)
        return -1;
    int r = g->th[U->thread][U->po - 1];
    return wg_cop(g, g->ev[r].rf) == p ? r : -1;
}

static bool coherent_read(const wg *g, int e, before_fn before)
{
    const wg_ev *E = &g->ev[e];
    int pc = wg_cop(g, E->rf);
    int other = rmw_follows(g, E->loc, pc);
    if ((E->flags & WEF_RMW) && other >= 0 && other != e)
        return false; /* another RMW already read that write */
    for (int x = 0; x < g->n; x++) {
        const wg_ev *X = &g->ev[x];
        if (x == e || X->loc != E->loc)
            continue;
        if (X->type == WE_W && X->cop > pc && before(g, x, e))
            return false; /* reads a value overwritten before it */
        if (X->type == WE_R && wg_cop(g, X->rf) > pc && before(g, x, e))
            return false; /* an earlier read saw a newer value */
    }
    return true;
}

static bool coherent_write(const wg *g, int e, before_fn before)
{
    const wg_ev *E = &g->ev[e];
    int p = E->cop;
    const wg_loc *L = &g->loc[E->loc];
    if (p < L->nw && (g->ev[L->co[p]].flags & WEF_RMW)) {
        const wg_ev *U = &g->ev[L->co[p]];
        int r = g->th[U->thread][U->po - 1];
        if (g->ev[r].rf != e)
            return false; /* splits an RMW from the write it read */
    }
    for (int x = 0; x < g->n; x++) {
        const wg_ev *X = &g->ev[x];
        if (x == e || X->loc != E->loc)
            continue;
        if (X->type == WE_W && X->cop > p && before(g, x, e))
            return false;
        if (X->type == WE_R && wg_cop(g, X->rf) > p && before(g, x, e))
            return false;
        if (X->type == WE_R && X->rf != e && wg_cop(g, X->rf) < p &&
            before(g, e, x))
            return false;
    }
    return true;
}

bool wg_coherent(const wg *g, int e, before_fn before)
{
    const wg_ev *E = &g->ev[e];
    if (E->loc < 0)
        return true;
    return E->type == WE_R ? coherent_read(g, e, before)
                           : coherent_write(g, e, before);
}
