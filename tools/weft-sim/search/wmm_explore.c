/* SPDX-License-Identifier: Apache-2.0 */
/* The search over execution graphs (see wmm_search.h): TruSt with the
 * threads' real code.
 *
 * The work list holds consistent graphs still to extend.  Extending one
 * replays it (the threads run from the start; each access is matched
 * with its event and a read gets the value of the write it reads from),
 * then adds the next access of the first thread that has one, until the
 * execution is complete or no choice is consistent:
 *   a read     every write of its location it may read (forward
 *              revisits); the first continues, the others are queued;
 *   a write    every coherence position, and every backward revisit of
 *              an earlier read of its location that is maximal;
 *   an RMW     its read as above, then its write right after the write
 *              it read;
 *   a fence    itself.
 * Only consistent graphs are queued or extended, so a failure the deque's
 * checks report is always a behaviour the model allows. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/machine.h"
#include "core/memory.h"
#include "search/checks.h"
#include "search/strset.h"
#include "search/wmm_search.h"

static wg G, G2; /* the graph extended; a revisit's graph */
static const explore_job *J;
static explore_result *RES;
static int rmw_pending; /* thread whose RMW write is still to add */
static long since_fail;

static void **work;
static int nwork, capwork;

static bool (*ok_fn)(const wg *g, int e);

static void push_graph(const wg *g)
{
    if (nwork == capwork) {
        capwork = capwork ? 2 * capwork : 256;
        work = realloc(work, sizeof(void *) * (size_t)capwork);
        if (!work) {
            fprintf(stderr, "weft-sim: out of memory\n");
            exit(2);
        }
    }
    void *b = malloc(wg_blob_size(g));
    if (!b) {
        fprintf(stderr, "weft-sim: out of memory\n");
        exit(2);
    }
    wg_save(g, b);
    work[nwork++] = b;
}

/* ---- events of an access ------------------------------------------------ */

/* The value an RMW writes after reading v, and whether it writes. */
static bool rmw_writes(const sim_access *a, uint64_t v, uint64_t *out)
{
    switch (a->kind) {
    case K_CAS: *out = a->val; return v == a->expect;
    case K_FADD: *out = sim_fit(a->size, v + a->val); return true;
    default: *out = a->val; return true;
    }
}

static uint64_t value_of(const wg *g, int l, int w)
{
    return w < 0 ? g->loc[l].init : g->ev[w].val;
}

/* arm's addr dependency: the last read of thread t that returned the
 * pointer of the object addr lies in. */
static int addr_dep(const wg *g, int t, volatile void *addr)
{
    uint64_t handle;
    if (!sim_object_of(addr, &handle))
        return -1;
    for (int i = g->nt[t] - 1; i >= 0; i--) {
        const wg_ev *E = &g->ev[g->th[t][i]];
        if (E->type == WE_R && E->val == handle)
            return g->th[t][i];
    }
    return -1;
}

/* An event of thread t's access a; rmw: the read or the write of an RMW
 * that writes (a CAS that fails is a plain read). */
static int add_event(wg *g, int type, int t, const sim_access *a, uint64_t val,
                     int rf, int cop, bool rmw)
{
    int l = a->addr ? wg_loc_of(g, a->addr, a->size) : -1;
    if (a->addr && l < 0) {
        fprintf(stderr,
                "weft-sim: more than %d locations: the scenario is "
                "too large\n",
                WG_MAX_LOC);
        exit(2);
    }
    int o = a->order == WF_SIM_PLAIN ? WF_SIM_PLAIN
            : type == WE_R           ? wmm_read_order(a->order)
            : type == WE_W           ? wmm_write_order(a->order)
                                     : a->order;
    const sim_thread *th = &S.th[t];
    bool straight = th->pc < th->nprog && th->prog[th->pc].straight;
    int flags = (a->order == WF_SIM_PLAIN ? WEF_PLAIN : 0) |
                (rmw ? WEF_RMW : 0) | (straight ? WEF_STRAIGHT : 0);
    int e = wg_add(g, type, t, o, type == WE_F ? 0 : flags, l, val, rf, cop);
    g->ev[e].kind = (uint8_t)a->kind;
    g->ev[e].arg = a->expect;
    if (S.model == MODEL_ARM) {
        if (a->addr)
            g->ev[e].dep = (int16_t)addr_dep(g, t, a->addr);
        arm_added(g, e);
    }
    return e;
}

static void drop_last(wg *g)
{
    if (S.model == MODEL_ARM)
        arm_removed(g, g->n - 1);
    wg_pop_last(g);
}

/* ---- failures and complete executions ------------------------------------ */

static void record_failure(void)
{
    RES->execs++;
    if (!RES->failed || G.n < RES->nsched) {
        RES->failed = true;
        snprintf(RES->fail, sizeof RES->fail, "%s", S.fail);
        RES->nsched = G.n;
        free(RES->graph);
        RES->graph = malloc(wg_blob_size(&G));
        if (RES->graph)
            wg_save(&G, RES->graph);
        since_fail = 0;
    }
}

/* The checks a new event needs beyond consistency: c11's races, and base
 * never moving backwards in coherence order. */
static void event_checks(const wg *g, int e)
{
    char msg[256];
    if (S.model != MODEL_ARM) {
        rc11_race(g, e, msg, sizeof msg);
        if (msg[0])
            sim_failf("%s", msg);
    }
    const wg_ev *E = &g->ev[e];
    if (E->type != WE_W || !S.base_addr ||
        g->loc[E->loc].addr != (volatile void *)S.base_addr)
        return;
    const wg_loc *L = &g->loc[E->loc];
    int64_t prev =
        E->cop > 1 ? (int64_t)g->ev[L->co[E->cop - 2]].val : (int64_t)L->init;
    int64_t next =
        E->cop < L->nw ? (int64_t)g->ev[L->co[E->cop]].val : INT64_MAX;
    int64_t v = (int64_t)E->val;
    if (v < prev || v > next)
        sim_failf("base moved backwards in coherence order: %lld follows "
                  "%lld",
                  (long long)(v < prev ? v : next),
                  (long long)(v < prev ? prev : v));
}

static strset_t *outcomes;

/* With check_duplicates: count complete graphs reached twice (TruSt
 * reaches each once; a duplicate is a bug of the search). */
static uint64_t graph_hash(const wg *g)
{
    uint64_t h = 1469598103934665603u;
    for (int t = 0; t < WG_NT; t++)
        for (int i = 0; i < g->nt[t]; i++) {
            const wg_ev *E = &g->ev[g->th[t][i]];
            int rf = E->type == WE_R && E->rf >= 0
                         ? g->ev[E->rf].thread * 1000 + g->ev[E->rf].po
                         : -1;
            uint64_t k = (uint64_t)(E->type * 7 + E->loc * 131 + rf * 8191 +
                                    E->cop * 524287) ^
                         E->val;
            h = (h ^ k) * 1099511628211u;
        }
    return h;
}

static uint64_t *seen_hashes;
static long nseen, capseen;

static void dupcheck(void)
{
    uint64_t h = graph_hash(&G);
    for (long i = 0; i < nseen; i++)
        if (seen_hashes[i] == h) {
            RES->duplicates++;
            return;
        }
    if (nseen == capseen) {
        capseen = capseen ? 2 * capseen : 1024;
        seen_hashes = realloc(seen_hashes, sizeof(uint64_t) * (size_t)capseen);
    }
    seen_hashes[nseen++] = h;
}

static void complete(void)
{
    if (J->check_duplicates)
        dupcheck();
    wmm_write_back(&G);
    if (J->deque_checks)
        explore_final_check();
    if (J->final && !S.fail[0])
        J->final();
    if (S.fail[0]) {
        record_failure();
        return;
    }
    RES->execs++;
    if (J->outcome && J->collect_outcomes) {
        char buf[512];
        J->outcome(buf, sizeof buf);
        strset_put(outcomes, buf);
    }
}

/* ---- adding events ------------------------------------------------------- */

static bool add_fence(int t)
{
    int e = add_event(&G, WE_F, t, &S.th[t].pend, 0, -1, 0, false);
    if (!ok_fn(&G, e))
        return false;
    wmm_deliver(t, 0, false, e);
    return true;
}

/* May the write at the end of TruSt's Deleted U {r} have been added as
 * it was?  p: the prefix of the revisiting write. */
static bool in_prev(const wg *g, const wg_view p, int x, int e)
{
    return x < 0 || x <= e || wg_in_view(g, p, x);
}

static bool maximal(const wg *g, int e, const wg_view p)
{
    const wg_ev *E = &g->ev[e];
    if (E->type == WE_F)
        return true;
    if (E->type == WE_W)
        for (int x = 0; x < e; x++)
            if (g->ev[x].type == WE_R && g->ev[x].rf == e)
                return false; /* it revisited a read */
    int ew = E->type == WE_W ? e : E->rf;
    if (!in_prev(g, p, ew, e))
        return false;
    const wg_loc *L = &g->loc[E->loc];
    for (int i = wg_cop(g, ew); i < L->nw; i++)
        if (in_prev(g, p, L->co[i], e))
            return false; /* a newer write was there to read */
    return true;
}

/* The read of the RMW that wrote right after write w of location l in
 * co (it read w), or -1. */
static int consumer(const wg *g, int l, int w)
{
    const wg_loc *L = &g->loc[l];
    int p = wg_cop(g, w);
    if (p >= L->nw || !(g->ev[L->co[p]].flags & WEF_RMW))
        return -1;
    const wg_ev *U = &g->ev[L->co[p]];
    int r = g->th[U->thread][U->po - 1];
    return g->ev[r].rf == w ? r : -1;
}

/* Thread t's write (access a, value v) revisits read r of G, keeping
 * what keep says: one graph per coherence position of the write (an RMW's
 * write goes right after src, the write its read read). */
static void revisit(int t, const sim_access *a, uint64_t v, int r,
                    const uint64_t *keep, int src, bool cycle)
{
    int16_t map[WG_MAX_EV];
    G2 = G;
    wg_restrict(&G2, keep, map);
    G2.cyclic |= cycle;
    int r2 = map[r];
    int l = wg_loc_of(&G2, a->addr, a->size);
    int lo = 1, hi = G2.loc[l].nw + 1;
    if (wmm_is_rmw(a))
        lo = hi = wg_cop(&G2, src >= 0 ? map[src] : -1) + 1;
    if (S.model == MODEL_ARM)
        arm_sync(&G2);
    for (int cop = hi; cop >= lo; cop--) {
        int u = add_event(&G2, WE_W, t, a, v, -1, cop, wmm_is_rmw(a));
        wg_ev *R2 = &G2.ev[r2];
        R2->rf = (int16_t)u;
        R2->val = v;
        R2->flags &= (uint8_t)~WEF_RMW; /* an RMW read writes if it now */
        if (R2->kind == K_XCHG || R2->kind == K_FADD || /* succeeds   */
            (R2->kind == K_CAS && v == R2->arg))
            R2->flags |= WEF_RMW;
        if (G2.cyclic)
            wg_views_all(&G2);
        else
            wg_views(&G2, r2);
        if (S.model == MODEL_ARM)
            arm_sync(&G2); /* r2's rf changed */
        bool ok = ok_fn(&G2, u) && ok_fn(&G2, r2);
        /* A cycle changes the views of events before r2 in the replay order
         * too (c11 with --lb): check them all. */
        for (int e = 0; ok && G2.cyclic && S.model != MODEL_ARM && e < G2.n;
             e++)
            ok = ok_fn(&G2, e);
        if (ok)
            push_graph(&G2);
        drop_last(&G2);
    }
    if (S.model == MODEL_ARM)
        arm_sync(&G);
    RES->blocked++; /* counts backward revisits */
}

/* TruSt's condition for write (prefix p) to revisit read r: keep the
 * events added up to r and p; every one deleted, and r, must have been
 * added maximally.  Fills keep; false when the revisit is not made. */
static bool revisit_set(int r, const wg_view p, uint64_t *keep)
{
    memset(keep, 0, sizeof(uint64_t) * (WG_MAX_EV / 64));
    bool ok = maximal(&G, r, p);
    for (int e = 0; e < G.n; e++) {
        if (e <= r || wg_in_view(&G, p, e))
            keep[e / 64] |= (uint64_t)1 << (e % 64);
        else if (ok)
            ok = maximal(&G, e, p);
    }
    return ok;
}

static void backward_revisits(int t, const sim_access *a, uint64_t v, int l,
                              int src)
{
    wg_view p;
    if (G.nt[t] > 0)
        memcpy(p, G.ev[G.th[t][G.nt[t] - 1]].porf, sizeof p);
    else
        for (int i = 0; i < WG_NT; i++)
            p[i] = -1;
    for (int r = 0; r < G.n; r++) {
        const wg_ev *R = &G.ev[r];
        uint64_t keep[WG_MAX_EV / 64];
        if (R->type != WE_R || R->loc != l)
            continue;
        /* arm: a read the write depends on may still read it, if nothing
         * between them in that thread depends on the read (load
         * buffering); the replay checks that the thread repeats them.
         * Code that branches on its loads (every algorithm's) orders
         * them before its later stores, which rules this out. */
        bool cycle = wg_in_view(&G, p, r);
        /* c11 with --lb: any read of another thread may, without RC11's
         * no-thin-air axiom (C11 only recommends against out-of-thin-air
         * values, 7.17.3). */
        bool lb = J->lb && S.model != MODEL_ARM && R->thread != t;
        if (cycle && !lb &&
            (S.model != MODEL_ARM || R->thread == t ||
             !(R->flags & WEF_STRAIGHT)))
            continue;
        if (revisit_set(r, p, keep))
            revisit(t, a, v, r, keep, src, cycle);
    }
}

/* An RMW of thread t reads w, which another RMW read already: its write
 * then goes right after w, which is consistent only if a backward revisit
 * deletes the other RMW's write (the other RMW's read, or a read before
 * it, now reads this write). */
static void conflict_revisit(int t, const sim_access *a, int l, int w,
                             uint64_t v, uint64_t nv)
{
    int other = G.loc[l].co[wg_cop(&G, w)]; /* the other RMW's write */
    int e = add_event(&G, WE_R, t, a, v, w, 0, true);
    const int16_t *p = G.ev[e].porf;
    for (int r = 0; r < e; r++) {
        uint64_t keep[WG_MAX_EV / 64];
        if (G.ev[r].type == WE_R && G.ev[r].loc == l && !wg_in_view(&G, p, r) &&
            revisit_set(r, p, keep) && !(keep[other / 64] >> (other % 64) & 1))
            revisit(t, a, nv, r, keep, w, false);
    }
    drop_last(&G);
}

/* Thread t's pending store, or the write of its pending RMW (whose read
 * is G's last event of t). */
static bool add_write(int t)
{
    const sim_access *a = &S.th[t].pend;
    int l = wg_loc_of(&G, a->addr, a->size), src = -1;
    uint64_t v = a->val, got = 0;
    int lo = 1, hi = G.loc[l].nw + 1;
    bool rmw = wmm_is_rmw(a);
    if (rmw) {
        const wg_ev *R = &G.ev[G.th[t][G.nt[t] - 1]];
        got = R->val;
        rmw_writes(a, got, &v);
        src = R->rf;
        lo = hi = wg_cop(&G, src) + 1;
    }
    backward_revisits(t, a, v, l, src);
    int ok[WG_MAX_W + 1], nok = 0;
    for (int cop = hi; cop >= lo; cop--) {
        int e = add_event(&G, WE_W, t, a, v, -1, cop, rmw);
        if (ok_fn(&G, e))
            ok[nok++] = cop;
        drop_last(&G);
    }
    for (int i = 1; i < nok; i++) {
        add_event(&G, WE_W, t, a, v, -1, ok[i], rmw);
        push_graph(&G);
        drop_last(&G);
    }
    if (!nok)
        return false;
    int e = add_event(&G, WE_W, t, a, v, -1, ok[0], rmw);
    event_checks(&G, e);
    if (S.fail[0])
        return true;
    wmm_deliver(t, got, true, e);
    return true;
}

/* May thread t's pending load (or RMW read) read w?  (And, for an RMW
 * that writes, its write go right after w?) */
static bool read_ok(int t, const sim_access *a, int l, int w, bool wr,
                    uint64_t nv)
{
    int e = add_event(&G, WE_R, t, a, value_of(&G, l, w), w, 0, wr);
    bool good = ok_fn(&G, e);
    if (good && wr) {
        add_event(&G, WE_W, t, a, nv, -1, wg_cop(&G, w) + 1, true);
        good = ok_fn(&G, G.n - 1);
        drop_last(&G);
    }
    drop_last(&G);
    return good;
}

/* Thread t's pending load, or the read of its pending RMW. */
static bool add_read(int t)
{
    const sim_access *a = &S.th[t].pend;
    int l = wg_loc_of(&G, a->addr, a->size);
    if (l < 0) {
        fprintf(stderr, "weft-sim: more than %d locations\n", WG_MAX_LOC);
        exit(2);
    }
    int ok[WG_MAX_W + 1], nok = 0;
    for (int i = G.loc[l].nw - 1; i >= -1; i--) { /* the newest first */
        int w = i >= 0 ? G.loc[l].co[i] : -1;
        uint64_t v = value_of(&G, l, w), nv = 0;
        bool wr = wmm_is_rmw(a) && rmw_writes(a, v, &nv);
        if (wr && consumer(&G, l, w) >= 0)
            conflict_revisit(t, a, l, w, v, nv);
        else if (read_ok(t, a, l, w, wr, nv))
            ok[nok++] = w;
    }
    for (int i = 1; i < nok; i++) {
        uint64_t v = value_of(&G, l, ok[i]), nv;
        add_event(&G, WE_R, t, a, v, ok[i], 0,
                  wmm_is_rmw(a) && rmw_writes(a, v, &nv));
        push_graph(&G);
        drop_last(&G);
    }
    if (!nok)
        return false;
    uint64_t v = value_of(&G, l, ok[0]), nv;
    bool wr = wmm_is_rmw(a) && rmw_writes(a, v, &nv);
    int e = add_event(&G, WE_R, t, a, v, ok[0], 0, wr);
    event_checks(&G, e);
    if (S.fail[0])
        return true;
    if (wr)
        return add_write(t);
    wmm_deliver(t, v, false, e);
    return true;
}

static int next_thread(void)
{
    for (int t = 0; t < S.nthreads; t++)
        if (S.th[t].state == T_PENDING)
            return t;
    return -1;
}

static void extend(void)
{
    for (;;) {
        if (S.fail[0]) {
            record_failure();
            return;
        }
        int t = rmw_pending;
        rmw_pending = -1;
        bool go;
        if (t >= 0) {
            go = add_write(t);
        } else if ((t = next_thread()) < 0) {
            complete();
            return;
        } else {
            int k = S.th[t].pend.kind;
            go = k == K_FENCE   ? add_fence(t)
                 : k == K_STORE ? add_write(t)
                                : add_read(t);
        }
        if (!go)
            return; /* no consistent choice: not an execution */
    }
}

/* After a replay: the checks of events a queued graph gained since its
 * parent was extended. */
static void graph_checks(void)
{
    for (int e = 0; e < G.n && !S.fail[0]; e++)
        event_checks(&G, e);
}

int wmm_run(const explore_job *job, explore_result *res)
{
    memset(res, 0, sizeof *res);
    J = job;
    RES = res;
    ok_fn = job->model == MODEL_ARM ? arm_ok : rc11_ok;
    wg_rs_same_thread = job->model != MODEL_C20;
    wg_psc_std = job->model == MODEL_C11STD;
    outcomes = strset_new();
    since_fail = 0;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    memset(&G, 0, sizeof G);
    push_graph(&G);
    bool stopped = false;
    while (nwork > 0) {
        void *b = work[--nwork];
        wg_load(&G, b);
        free(b);
        int rc = wmm_replay(&G, J, &rmw_pending);
        if (rc < 0)
            return -1;
        if (rc > 0)
            continue; /* a load-buffering revisit the code does not repeat */
        if (job->model == MODEL_ARM)
            arm_sync(&G);
        graph_checks();
        extend();
        if ((res->failed &&
             (job->stop_first || ++since_fail > job->extra_after_fail)) ||
            (job->max_execs && res->execs >= job->max_execs)) {
            stopped = true;
            break;
        }
    }
    res->exhausted = !stopped;
    while (nwork > 0)
        free(work[--nwork]);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    res->secs = (double)(t1.tv_sec - t0.tv_sec) +
                1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    res->noutcomes = strset_take(outcomes, &res->outcomes);
    nseen = 0;
    return 0;
}
