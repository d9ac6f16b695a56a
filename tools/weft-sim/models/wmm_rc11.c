/* SPDX-License-Identifier: Apache-2.0 */
/* The c11 model: RC11's axioms (Lahav et al., PLDI 2017; herd7's
 * rc11.cat), checked on a graph each time an event is added.
 *
 *   coherence     irreflexive(hb ; eco?)
 *   atomicity     no write between an RMW's read and its write in co
 *   sc            acyclic(psc), psc = psc_base U psc_F over seq_cst events
 *   no-thin-air   acyclic(po U rf): the search never builds such a graph
 *
 * and the race rule: two accesses to one location, one a write and one
 * non-atomic, not ordered by hb, make the program undefined. */
#include <string.h>

#include "core/memory.h"
#include "models/wmm.h"

/* ---- psc ----------------------------------------------------------------- */

typedef struct bset {
    uint64_t w[WG_MAX_EV / 64];
} bset;

#define BS_SET(s, i) ((s).w[(i) / 64] |= (uint64_t)1 << ((i) % 64))
#define BS_HAS(s, i) ((s).w[(i) / 64] >> ((i) % 64) & 1)

static void bs_or(bset *a, const bset *b)
{
    for (int i = 0; i < WG_MAX_EV / 64; i++)
        a->w[i] |= b->w[i];
}

static bool bs_meets(const bset *a, const bset *b)
{
    for (int i = 0; i < WG_MAX_EV / 64; i++)
        if (a->w[i] & b->w[i])
            return true;
    return false;
}

/* Per-check tables: hb successors and predecessors of every event, the
 * events of each location. */
static bset HBS[WG_MAX_EV], HBP[WG_MAX_EV], LOCM[WG_MAX_LOC];

static bool is_sc(const wg_ev *E)
{
    return E->order == WF_SIM_SEQ_CST && !(E->flags & WEF_PLAIN);
}

/* PRE[t][i]: thread t's events up to po index i. */
static bset PRE[WG_NT][WG_MAX_EV];

static void hb_tables(const wg *g)
{
    static bset by[WG_MAX_EV];
    for (int t = 0; t < WG_NT; t++) {
        memset(by, 0, sizeof(bset) * (size_t)g->nt[t]);
        for (int y = 0; y < g->n; y++)
            if (g->ev[y].hb[t] >= 0)
                BS_SET(by[g->ev[y].hb[t]], y);
        bset acc = {{0}};
        for (int i = g->nt[t] - 1; i >= 0; i--) {
            bs_or(&acc, &by[i]);
            int x = g->th[t][i];
            HBS[x] = acc;
            HBS[x].w[x / 64] &= ~((uint64_t)1 << (x % 64));
        }
        bset pre = {{0}};
        for (int i = 0; i < g->nt[t]; i++) {
            BS_SET(pre, g->th[t][i]);
            PRE[t][i] = pre;
        }
    }
    for (int y = 0; y < g->n; y++) {
        memset(&HBP[y], 0, sizeof(bset));
        for (int t = 0; t < WG_NT; t++) {
            int h = g->ev[y].hb[t] < g->nt[t] ? g->ev[y].hb[t] : g->nt[t] - 1;
            if (h >= 0)
                bs_or(&HBP[y], &PRE[t][h]);
        }
        HBP[y].w[y / 64] &= ~((uint64_t)1 << (y % 64));
    }
    memset(LOCM, 0, sizeof(bset) * (size_t)g->nloc);
    for (int x = 0; x < g->n; x++)
        if (g->ev[x].loc >= 0)
            BS_SET(LOCM[g->ev[x].loc], x);
}

/* Events after some member of s in po, at a location other than that
 * member's: pol = po \ loc (a fence has no location, so it is never at
 * the same location as anything). */
static void pol_succ(const wg *g, const bset *s, bset *out)
{
    memset(out, 0, sizeof *out);
    for (int t = 0; t < WG_NT; t++) {
        bool fence = false, multi = false;
        int first = -1; /* the location of the first member seen */
        for (int i = 0; i < g->nt[t]; i++) {
            int y = g->th[t][i], ly = g->ev[y].loc;
            if (fence || multi || (first >= 0 && (ly < 0 || ly != first)))
                BS_SET(*out, y);
            if (!BS_HAS(*s, y))
                continue;
            if (ly < 0)
                fence = true;
            else if (first < 0)
                first = ly;
            else if (ly != first)
                multi = true;
        }
    }
}

/* scb-successors of a set: po | pol;hb;pol | hb&loc | co | fr. */
static void scb_succ(const wg *g, const bset *s, bset *out)
{
    memset(out, 0, sizeof *out);
    for (int t = 0; t < WG_NT; t++) { /* po */
        int i = 0;
        while (i < g->nt[t] && !BS_HAS(*s, g->th[t][i]))
            i++;
        for (i++; i < g->nt[t]; i++)
            BS_SET(*out, g->th[t][i]);
    }
    for (int x = 0; x < g->n; x++) { /* hb & loc */
        if (!BS_HAS(*s, x) || g->ev[x].loc < 0)
            continue;
        bset h = HBS[x];
        for (int i = 0; i < WG_MAX_EV / 64; i++)
            out->w[i] |= h.w[i] & LOCM[g->ev[x].loc].w[i];
    }
    int16_t m[WG_MAX_LOC]; /* co and fr: the lowest position per location */
    for (int l = 0; l < g->nloc; l++)
        m[l] = WG_MAX_W + 1;
    for (int x = 0; x < g->n; x++) {
        const wg_ev *X = &g->ev[x];
        if (X->loc < 0 || !BS_HAS(*s, x))
            continue;
        int p = X->type == WE_W ? X->cop : wg_cop(g, X->rf);
        if (p < m[X->loc])
            m[X->loc] = (int16_t)p;
    }
    for (int l = 0; l < g->nloc; l++)
        for (int i = m[l]; i < g->loc[l].nw; i++)
            BS_SET(*out, g->loc[l].co[i]);
    bset c, d = {{0}}, e;
    pol_succ(g, s, &c);
    for (int t = 0; t < WG_NT; t++) /* hb is po-closed: the first is enough */
        for (int i = 0; i < g->nt[t]; i++)
            if (BS_HAS(c, g->th[t][i])) {
                bs_or(&d, &HBS[g->th[t][i]]);
                break;
            }
    pol_succ(g, &d, &e);
    bs_or(out, &e);
}

/* For hb;eco;hb between two fences: per location, the lowest co position
 * among the writes and the reads hb-after the first fence, and the highest
 * among those hb-before the second (a read counts at the position of the
 * write it reads). */
typedef struct eco_ends {
    int16_t w[WG_MAX_LOC], r[WG_MAX_LOC];
} eco_ends;

static void ends(const wg *g, const bset *s, bool lowest, eco_ends *x)
{
    for (int l = 0; l < g->nloc; l++)
        x->w[l] = x->r[l] = lowest ? 30000 : -1;
    for (int i = 0; i < g->n; i++) {
        const wg_ev *E = &g->ev[i];
        if (E->loc < 0 || !BS_HAS(*s, i))
            continue;
        int p = E->type == WE_W ? E->cop : wg_cop(g, E->rf);
        int16_t *v = E->type == WE_W ? &x->w[E->loc] : &x->r[E->loc];
        if (lowest ? p < *v : p > *v)
            *v = (int16_t)p;
    }
}

static bool fence_fence(const wg *g, int a, int b, const eco_ends *x,
                        const eco_ends *y)
{
    if (a != b && wg_hb(g, a, b))
        return true;
    for (int l = 0; l < g->nloc; l++)
        if (x->w[l] < y->w[l] || x->w[l] <= y->r[l] || x->r[l] < y->w[l] ||
            x->r[l] < y->r[l])
            return true;
    return false;
}

static bool acyclic(int k, const uint64_t *adj)
{
    int state[64] = {0}, stack[64], top = 0; /* 1: on the path, 2: done */
    for (int s = 0; s < k; s++) {
        if (state[s])
            continue;
        int next[64] = {0};
        stack[top++] = s;
        state[s] = 1;
        while (top) {
            int v = stack[top - 1];
            while (next[v] < k && !(adj[v] >> next[v] & 1))
                next[v]++;
            if (next[v] == k) {
                state[v] = 2;
                top--;
                continue;
            }
            int u = next[v]++;
            if (state[u] == 1)
                return false;
            if (!state[u]) {
                state[u] = 1;
                stack[top++] = u;
            }
        }
    }
    return true;
}

/* The seq_cst events of g, at most 64, into sc; returns how many. */
static int sc_events(const wg *g, int sc[64])
{
    int k = 0;
    for (int e = 0; e < g->n && k < 64; e++)
        if (is_sc(&g->ev[e]))
            sc[k++] = e;
    return k;
}

static bool psc_ok(const wg *g)
{
    int sc[64], k = sc_events(g, sc);
    if (k < 2)
        return true;
    hb_tables(g);
    static eco_ends lo[64], hi[64];
    for (int i = 0; i < k; i++)
        if (g->ev[sc[i]].type == WE_F) {
            ends(g, &HBS[sc[i]], true, &lo[i]);
            ends(g, &HBP[sc[i]], false, &hi[i]);
        }
    uint64_t adj[64] = {0};
    for (int i = 0; i < k; i++) {
        int a = sc[i];
        bool fa = g->ev[a].type == WE_F;
        bset s = {{0}}, succ;
        BS_SET(s, a);
        if (fa)
            bs_or(&s, &HBS[a]);
        scb_succ(g, &s, &succ);
        for (int j = 0; j < k; j++) {
            int b = sc[j];
            bool fb = g->ev[b].type == WE_F;
            bset tb = {{0}};
            BS_SET(tb, b);
            if (fb)
                bs_or(&tb, &HBP[b]);
            if (bs_meets(&succ, &tb) ||
                (fa && fb && fence_fence(g, a, b, &lo[i], &hi[j])))
                adj[i] |= (uint64_t)1 << j;
        }
    }
    return acyclic(k, adj);
}

/* psc can only gain an edge from e if e is seq_cst, or follows (in hb) a
 * seq_cst fence and has a coherence successor (e is the last event of its
 * thread and nothing is hb-after it, so what it adds to a psc path is its
 * co, fr and eco edges); and it needs seq_cst events in two threads. */
static bool psc_relevant(const wg *g, int e)
{
    const wg_ev *E = &g->ev[e];
    if (!is_sc(E) &&
        (E->loc < 0 ||
         (E->type == WE_W ? E->cop : wg_cop(g, E->rf)) >= g->loc[E->loc].nw))
        return false;
    int threads = 0;
    bool after_fence = false;
    for (int t = 0; t < WG_NT; t++) {
        bool any = false;
        for (int i = 0; i < g->nt[t]; i++) {
            const wg_ev *X = &g->ev[g->th[t][i]];
            if (is_sc(X)) {
                any = true;
                if (X->type == WE_F && i <= E->hb[t])
                    after_fence = true;
            }
        }
        threads += any;
    }
    return threads >= 2 && (is_sc(E) || after_fence);
}

static bool hb_before(const wg *g, int x, int y)
{
    return wg_hb(g, x, y);
}

/* ---- C11's own seq_cst rules (c11std) ----------------------------------
 * ISO/IEC 9899:2011 7.17.3: one total order S of the seq_cst operations,
 * consistent with happens-before and the modification orders; a seq_cst
 * read sees the last seq_cst write before it in S (or a later one); and the
 * fence rules, which relate a seq_cst fence only to the accesses of its own
 * thread (sequenced before or after it):
 *   a read B after a fence X sees the last seq_cst modification before X
 *     in S, or a later one;
 *   a seq_cst read B after a fence X in S sees the modifications
 *     sequenced before X, or later ones;
 *   with fences X before Y in S, a read after Y sees the modifications
 *     before X, or later ones;
 * and the same three for two modifications (C++ [atomics.order] states
 * them; with them the model is no weaker).  Each rule says "not B before A
 * in S" for some pair, so S exists iff the union of those pairs, with hb
 * and co between seq_cst events, is acyclic.  RC11's psc differs in two
 * ways: its fences are ordered through any hb;eco;hb path, not only the
 * fence's own thread's accesses (so C11 allows more), and it need not
 * contain hb (so C11 forbids more; RC11's repair for ARM and POWER). */
bool wg_psc_std = false;

/* Where e stands in its location's coherence order: a write at its own
 * position, a read at the write it reads. */
static int co_pos(const wg *g, int e)
{
    const wg_ev *E = &g->ev[e];
    return E->type == WE_W ? E->cop : wg_cop(g, E->rf);
}

static bool psc_std_ok(const wg *g)
{
    int sc[64], k = sc_events(g, sc);
    if (k < 2)
        return true;
    /* For each seq_cst fence: per location, the lowest coherence position
     * of the atomic accesses after it in its thread, and the highest of
     * the writes before it. */
    static int16_t lo[64][WG_MAX_LOC], hi[64][WG_MAX_LOC];
    for (int i = 0; i < k; i++) {
        const wg_ev *F = &g->ev[sc[i]];
        if (F->type != WE_F)
            continue;
        for (int l = 0; l < g->nloc; l++)
            lo[i][l] = 30000, hi[i][l] = -1;
        for (int j = 0; j < g->nt[F->thread]; j++) {
            int y = g->th[F->thread][j];
            const wg_ev *Y = &g->ev[y];
            if (Y->loc < 0 || (Y->flags & WEF_PLAIN))
                continue;
            int p = co_pos(g, y);
            if (j > F->po && p < lo[i][Y->loc])
                lo[i][Y->loc] = (int16_t)p;
            if (j < F->po && Y->type == WE_W && p > hi[i][Y->loc])
                hi[i][Y->loc] = (int16_t)p;
        }
    }
    uint64_t adj[64] = {0};
    for (int i = 0; i < k; i++) {
        const wg_ev *A = &g->ev[sc[i]];
        bool fa = A->type == WE_F;
        for (int j = 0; j < k; j++) {
            const wg_ev *B = &g->ev[sc[j]];
            bool fb = B->type == WE_F, edge = false;
            if (i == j)
                continue;
            if (wg_hb(g, sc[i], sc[j]))
                edge = true; /* S is consistent with happens-before */
            else if (!fa && !fb)
                /* co, and a seq_cst read before the seq_cst writes after
                 * the one it reads */
                edge = B->type == WE_W && A->loc == B->loc &&
                       co_pos(g, sc[i]) < B->cop;
            else if (fa && !fb)
                /* fence A, then an access before seq_cst write B in co */
                edge = B->type == WE_W && lo[i][B->loc] < B->cop;
            else if (!fa && fb)
                /* access A before (in co) a write sequenced before B */
                edge = co_pos(g, sc[i]) < hi[j][A->loc];
            else
                for (int l = 0; l < g->nloc && !edge; l++)
                    edge = lo[i][l] < hi[j][l];
            if (edge)
                adj[i] |= (uint64_t)1 << j;
        }
    }
    return acyclic(k, adj);
}

bool rc11_ok(const wg *g, int e)
{
    if (!wg_coherent(g, e, hb_before))
        return false;
    return !psc_relevant(g, e) || (wg_psc_std ? psc_std_ok(g) : psc_ok(g));
}

void rc11_race(const wg *g, int e, char *msg, size_t n)
{
    const wg_ev *E = &g->ev[e];
    msg[0] = 0;
    if (E->loc < 0 || !g->loc[E->loc].plain)
        return;
    for (int x = 0; x < g->n; x++) {
        const wg_ev *X = &g->ev[x];
        if (x == e || X->loc != E->loc || X->thread == E->thread ||
            (X->type != WE_W && E->type != WE_W) ||
            !((X->flags | E->flags) & WEF_PLAIN))
            continue;
        if (!wg_hb(g, x, e) && !wg_hb(g, e, x)) {
            char loc[32];
            sim_loc_name(g->loc[E->loc].addr, loc, sizeof loc);
            snprintf(msg, n,
                     "data race on %s: %s's %s and %s's %s are not "
                     "ordered by happens-before (undefined behaviour in C11)",
                     loc, sim_thread_name(X->thread),
                     X->type == WE_W ? "write" : "read",
                     sim_thread_name(E->thread),
                     E->type == WE_W ? "write" : "read");
            return;
        }
    }
}
