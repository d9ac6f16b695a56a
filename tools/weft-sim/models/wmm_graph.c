/* SPDX-License-Identifier: Apache-2.0 */
/* Execution graphs: events, reads-from, coherence order, and the views
 * (vector clocks) that make "is x before y" one comparison.
 *
 * A view holds, per thread, the po index of the last event of that thread
 * that is before the event (or is the event).  porf is (po U rf)*; hb is
 * RC11's happens-before, (po U sw)+, where sw goes from a release (a
 * release write, or a release fence before a write) to an acquire (an
 * acquire read, or an acquire fence after a read) through the release
 * sequence the read reads from.  Both are closed under po, which is why a
 * view per thread is enough. */
#include <stdlib.h>
#include <string.h>

#include "core/machine.h"
#include "models/wmm.h"

int wg_loc_of(wg *g, volatile void *addr, int size)
{
    for (int l = 0; l < g->nloc; l++)
        if (g->loc[l].addr == addr)
            return l;
    if (g->nloc == WG_MAX_LOC)
        return -1;
    wg_loc *L = &g->loc[g->nloc];
    memset(L, 0, sizeof *L);
    L->addr = addr;
    L->size = (uint8_t)(size == 4 || size == 1 ? size : 8);
    L->init = sim_mem_read_n(addr, size); /* graph models never write it */
    return g->nloc++;
}

static void view_none(wg_view v)
{
    for (int t = 0; t < WG_NT; t++)
        v[t] = -1;
}

static void view_join(wg_view v, const wg_view w)
{
    for (int t = 0; t < WG_NT; t++)
        if (w[t] > v[t])
            v[t] = w[t];
}

bool wg_in_view(const wg *g, const wg_view v, int x)
{
    return x < 0 || v[g->ev[x].thread] >= g->ev[x].po;
}

bool wg_hb(const wg *g, int x, int y)
{
    return wg_in_view(g, g->ev[y].hb, x);
}

int wg_cop(const wg *g, int w)
{
    return w < 0 ? 0 : g->ev[w].cop;
}

static bool is_acq(int o)
{
    return o == WF_SIM_ACQUIRE || o == WF_SIM_ACQ_REL || o == WF_SIM_SEQ_CST;
}

static bool is_rel(int o)
{
    return o == WF_SIM_RELEASE || o == WF_SIM_ACQ_REL || o == WF_SIM_SEQ_CST;
}

bool wg_rs_same_thread = true;

/* Same-thread stores after a release store to its location continue its
 * release sequence: C11 (and C17) say so, and so does RC11; C++20 dropped
 * the rule (P0982R1), leaving only RMWs (wg_rs_same_thread false). */
static void release_view(wg *g, int e)
{
    wg_ev *E = &g->ev[e];
    view_none(E->rsv);
    if (E->flags & WEF_PLAIN)
        return;
    if (is_rel(E->order))
        view_join(E->rsv, E->hb);
    for (int i = E->po - 1; i >= 0; i--) { /* the latest release fence */
        const wg_ev *F = &g->ev[g->th[E->thread][i]];
        if (F->type == WE_F && is_rel(F->order)) {
            view_join(E->rsv, F->hb);
            break;
        }
    }
    for (int i = E->po - 1; wg_rs_same_thread && i >= 0; i--) {
        const wg_ev *W = &g->ev[g->th[E->thread][i]];
        if (W->type == WE_W && W->loc == E->loc && !(W->flags & WEF_PLAIN) &&
            is_rel(W->order)) {
            view_join(E->rsv, W->hb);
            break;
        }
    }
    if ((E->flags & WEF_RMW) && E->po > 0) { /* rf;rmw continues it */
        const wg_ev *R = &g->ev[g->th[E->thread][E->po - 1]];
        if (R->rf >= 0)
            view_join(E->rsv, g->ev[R->rf].rsv);
    }
}

void wg_views(wg *g, int e)
{
    wg_ev *E = &g->ev[e];
    int t = E->thread;
    if (E->po > 0) {
        const wg_ev *P = &g->ev[g->th[t][E->po - 1]];
        memcpy(E->porf, P->porf, sizeof E->porf);
        memcpy(E->hb, P->hb, sizeof E->hb);
    } else {
        view_none(E->porf);
        view_none(E->hb);
    }
    E->porf[t] = E->hb[t] = E->po;
    bool atomic = !(E->flags & WEF_PLAIN);
    if (E->type == WE_R && E->rf >= 0) {
        view_join(E->porf, g->ev[E->rf].porf);
        if (atomic && is_acq(E->order))
            view_join(E->hb, g->ev[E->rf].rsv);
    }
    if (E->type == WE_F && is_acq(E->order)) /* reads before it, acquired */
        for (int i = 0; i < E->po; i++) {
            const wg_ev *R = &g->ev[g->th[t][i]];
            if (R->type == WE_R && R->rf >= 0 && !(R->flags & WEF_PLAIN))
                view_join(E->hb, g->ev[R->rf].rsv);
        }
    if (E->type == WE_W)
        release_view(g, e);
    else
        view_none(E->rsv);
}

void wg_views_all(wg *g)
{
    for (bool changed = true; changed;) {
        changed = false;
        for (int e = 0; e < g->n; e++) {
            wg_ev old = g->ev[e];
            wg_views(g, e);
            changed |= memcmp(old.porf, g->ev[e].porf, sizeof old.porf) != 0 ||
                       memcmp(old.hb, g->ev[e].hb, sizeof old.hb) != 0 ||
                       memcmp(old.rsv, g->ev[e].rsv, sizeof old.rsv) != 0;
        }
    }
}

static void co_renumber(wg *g, int l)
{
    wg_loc *L = &g->loc[l];
    for (int i = 0; i < L->nw; i++)
        g->ev[L->co[i]].cop = (int16_t)(i + 1);
}

int wg_add(wg *g, int type, int t, int order, int flags, int loc, uint64_t val,
           int rf, int cop)
{
    if (g->n == WG_MAX_EV || g->nt[t] == WG_MAX_EV) {
        fprintf(stderr,
                "weft-sim: an execution has more than %d events: "
                "the scenario is too large\n",
                WG_MAX_EV);
        exit(2);
    }
    int e = g->n++;
    wg_ev *E = &g->ev[e];
    memset(E, 0, sizeof *E);
    E->type = (uint8_t)type;
    E->thread = (uint8_t)t;
    E->order = (uint8_t)order;
    E->flags = (uint8_t)flags;
    E->loc = (int16_t)loc;
    E->val = val;
    E->rf = (int16_t)rf;
    E->dep = -1;
    E->po = (int16_t)g->nt[t];
    g->th[t][g->nt[t]++] = (int16_t)e;
    if (type == WE_W) {
        wg_loc *L = &g->loc[loc];
        if (L->nw == WG_MAX_W) {
            fprintf(stderr,
                    "weft-sim: more than %d writes to one location: "
                    "the scenario is too large\n",
                    WG_MAX_W);
            exit(2);
        }
        memmove(&L->co[cop], &L->co[cop - 1],
                sizeof L->co[0] * (size_t)(L->nw - (cop - 1)));
        L->co[cop - 1] = (int16_t)e;
        L->nw++;
        co_renumber(g, loc);
    }
    if (flags & WEF_PLAIN)
        g->loc[loc].plain = true;
    wg_views(g, e);
    return e;
}

void wg_pop_last(wg *g)
{
    int e = g->n - 1;
    wg_ev *E = &g->ev[e];
    g->nt[E->thread]--;
    if (E->type == WE_W) {
        wg_loc *L = &g->loc[E->loc];
        int i = E->cop - 1;
        memmove(&L->co[i], &L->co[i + 1],
                sizeof L->co[0] * (size_t)(L->nw - i - 1));
        L->nw--;
        co_renumber(g, E->loc);
    }
    g->n--;
}

void wg_rebuild_threads(wg *g)
{
    memset(g->nt, 0, sizeof g->nt);
    for (int e = 0; e < g->n; e++) {
        wg_ev *E = &g->ev[e];
        E->po = (int16_t)g->nt[E->thread];
        g->th[E->thread][g->nt[E->thread]++] = (int16_t)e;
    }
}

void wg_restrict(wg *g, const uint64_t *keep, int16_t *map)
{
    int16_t m[WG_MAX_EV];
    int n = 0;
    for (int e = 0; e < g->n; e++) {
        bool k = keep[e / 64] >> (e % 64) & 1;
        m[e] = k ? (int16_t)n : -1;
        if (k)
            g->ev[n++] = g->ev[e];
    }
    g->n = n;
    for (int e = 0; e < n; e++) {
        wg_ev *E = &g->ev[e];
        if (E->rf >= 0)
            E->rf = m[E->rf];
        if (E->dep >= 0)
            E->dep = m[E->dep];
    }
    for (int l = 0; l < g->nloc; l++) {
        wg_loc *L = &g->loc[l];
        int k = 0;
        for (int i = 0; i < L->nw; i++)
            if (m[L->co[i]] >= 0)
                L->co[k++] = m[L->co[i]];
        L->nw = k;
        co_renumber(g, l);
    }
    /* kept events of a thread are a po prefix: po indices do not move */
    memset(g->nt, 0, sizeof g->nt);
    for (int e = 0; e < n; e++)
        g->th[g->ev[e].thread][g->nt[g->ev[e].thread]++] = (int16_t)e;
    if (map)
        memcpy(map, m, sizeof m);
}

size_t wg_blob_size(const wg *g)
{
    return 3 * sizeof(int) + sizeof(wg_ev) * (size_t)g->n +
           sizeof(wg_loc) * (size_t)g->nloc;
}

void wg_save(const wg *g, void *blob)
{
    char *p = blob;
    memcpy(p, &g->n, sizeof(int));
    memcpy(p + sizeof(int), &g->nloc, sizeof(int));
    memcpy(p + 2 * sizeof(int), &g->cyclic, sizeof(int));
    p += 3 * sizeof(int);
    memcpy(p, g->ev, sizeof(wg_ev) * (size_t)g->n);
    memcpy(p + sizeof(wg_ev) * (size_t)g->n, g->loc,
           sizeof(wg_loc) * (size_t)g->nloc);
}

void wg_load(wg *g, const void *blob)
{
    const char *p = blob;
    memcpy(&g->n, p, sizeof(int));
    memcpy(&g->nloc, p + sizeof(int), sizeof(int));
    memcpy(&g->cyclic, p + 2 * sizeof(int), sizeof(int));
    p += 3 * sizeof(int);
    memcpy(g->ev, p, sizeof(wg_ev) * (size_t)g->n);
    memcpy(g->loc, p + sizeof(wg_ev) * (size_t)g->n,
           sizeof(wg_loc) * (size_t)g->nloc);
    wg_rebuild_threads(g);
}
