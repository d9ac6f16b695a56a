/* SPDX-License-Identifier: Apache-2.0 */
/* Replaying an execution graph with the threads' real code, and the
 * report of a failing one (see wmm_search.h).  A graph is replayed by
 * re-running every thread from the start: each posted access is matched
 * with the thread's next event, and a read is handed the value of the
 * write it reads from. */
#include <string.h>

#include "core/machine.h"
#include "core/memory.h"
#include "search/execution.h"
#include "search/wmm_search.h"

/* ---- handing a thread its access's result ------------------------------- */

static void (*on_event)(int e); /* logging replays: notes on each event */
static int rmw_pending;         /* thread whose RMW write is still to add */

void wmm_deliver(int t, uint64_t result, bool ok, int ev)
{
    sim_thread *th = &S.th[t];
    sim_step_info info;
    memset(&info, 0, sizeof info);
    th->pend.result = result;
    th->pend.ok = ok;
    sim_hash_reads(th, &th->pend);
    info.pid = info.thread = t;
    info.kind = th->pend.kind;
    info.acc = th->pend;
    info.op_index = th->pc;
    S.pos++;
    if (on_event)
        on_event(ev);
    sim_resume(t);
    if (S.on_step)
        S.on_step(&info);
}

/* ---- replaying a graph -------------------------------------------------- */

static bool matches(const wg *g, const wg_ev *E, const sim_access *a)
{
    int type = a->kind == K_STORE ? WE_W : a->kind == K_FENCE ? WE_F : WE_R;
    if (E->type != type || ((E->flags & WEF_RMW) && !wmm_is_rmw(a)))
        return false;
    if (type == WE_F)
        return E->order == a->order;
    if (g->loc[E->loc].addr != a->addr)
        return false;
    int o = a->order == WF_SIM_PLAIN ? WF_SIM_PLAIN
            : type == WE_R           ? wmm_read_order(a->order)
                                     : wmm_write_order(a->order);
    return E->order == o && (type != WE_W || E->val == a->val);
}

/* The next event of thread t to replay, if what it reads is replayed. */
static int ready(const wg *g, const int *done, int t)
{
    if (done[t] >= g->nt[t])
        return -1;
    int e = g->th[t][done[t]];
    int rf = g->ev[e].rf;
    if (g->ev[e].type == WE_R && rf >= 0 &&
        done[g->ev[rf].thread] <= g->ev[rf].po)
        return -1;
    return e;
}

static int replay_one(const wg *g, int *done, int t, int e)
{
    const wg_ev *E = &g->ev[e];
    sim_access *a = &S.th[t].pend;
    if (S.th[t].state != T_PENDING || !matches(g, E, a)) {
        if (g->cyclic)
            return 1; /* the thread does not repeat what the revisit kept */
        fprintf(stderr,
                "weft-sim: internal error: replay diverged at %s's "
                "event %d\n",
                sim_thread_name(t), E->po);
        return -1;
    }
    if (E->type == WE_R && (E->flags & WEF_RMW)) {
        if (done[t] + 1 >= g->nt[t]) { /* its write is still to add */
            done[t]++;
            rmw_pending = t;
            return 0;
        }
        done[t] += 2;
        wmm_deliver(t, E->val, true, e);
        return 0;
    }
    done[t]++;
    wmm_deliver(t, E->type == WE_R ? E->val : 0,
                a->kind == K_CAS && E->val == a->expect, e);
    return 0;
}

/* Replay a graph: 0, 1 when a graph with a po U rf cycle turns out not
 * to be an execution of the code, -1 on an internal error.  Events go in
 * an order where a write comes before the reads of it, so that the plain
 * fields the code writes before publishing (a ring's mask) are there when
 * another thread follows the pointer; a cyclic graph has no such order,
 * and its reads just take their values. */
int wmm_replay(const wg *g, const explore_job *job, int *pending)
{
    if (explore_start(job) != 0)
        return -1;
    rmw_pending = -1;
    int done[WG_NT] = {0}, left = g->n;
    while (left > 0) {
        int best = -1, bt = -1;
        for (int t = 0; t < WG_NT; t++) {
            int e = t == rmw_pending ? -1 : ready(g, done, t);
            if (e >= 0 && (best < 0 || e < best))
                best = e, bt = t;
        }
        for (int t = 0; best < 0 && g->cyclic && t < WG_NT; t++)
            for (int u = 0; u < WG_NT; u++) /* the oldest head */
                if (u != rmw_pending && done[u] < g->nt[u] &&
                    (best < 0 || g->th[u][done[u]] < best))
                    best = g->th[u][done[u]], bt = u;
        if (best < 0)
            break;
        int before = done[bt];
        int rc = replay_one(g, done, bt, best);
        if (rc != 0)
            return rc;
        left -= done[bt] - before;
    }
    if (left > 0) {
        fprintf(stderr,
                "weft-sim: internal error: a graph could not be "
                "replayed (%d events left)\n",
                left);
        return -1;
    }
    *pending = rmw_pending;
    return 0;
}

/* Memory gets each location's coherence-last value, for the final checks
 * (which drain the deque in direct mode) and the picture. */
void wmm_write_back(const wg *g)
{
    for (int l = 0; l < g->nloc; l++) {
        const wg_loc *L = &g->loc[l];
        if (L->plain)
            continue; /* scaffolding: the real fields are in memory */
        uint64_t v = L->nw ? g->ev[L->co[L->nw - 1]].val : L->init;
        memcpy((void *)(uintptr_t)L->addr, &v, L->size); /* little-endian */
    }
}

/* ---- the replay of a failure -------------------------------------------- */

static int step_of[WG_MAX_EV];
static wg F; /* the failing graph */

/* Before each replayed event's log line: what a read reads from. */
static void note_event(int e)
{
    const wg_ev *E = &F.ev[e];
    step_of[e] = S.pos;
    if ((E->flags & WEF_RMW) && E->type == WE_R && e + 1 < F.n)
        step_of[e + 1] = S.pos;
    if (E->type != WE_R || !S.on_note)
        return;
    char loc[32], text[160];
    sim_loc_name(F.loc[E->loc].addr, loc, sizeof loc);
    if (E->rf < 0)
        snprintf(text, sizeof text, "%*sreads %s's initial value", 18, "", loc);
    else
        snprintf(text, sizeof text, "%*sreads from step %d (%s)", 18, "",
                 step_of[E->rf], sim_thread_name(F.ev[E->rf].thread));
    S.on_note(text);
}

/* The coherence order of each location written more than once. */
static void note_coherence(void)
{
    for (int l = 0; l < F.nloc && S.on_note; l++) {
        const wg_loc *L = &F.loc[l];
        if (L->nw < 2)
            continue;
        char loc[32], text[512];
        sim_loc_name(L->addr, loc, sizeof loc);
        size_t k = (size_t)snprintf(text, sizeof text,
                                    "coherence order of %s: initial", loc);
        for (int i = 0; i < L->nw && k < sizeof text; i++)
            k += (size_t)snprintf(text + k, sizeof text - k, ", step %d",
                                  step_of[L->co[i]]);
        S.on_note(text);
    }
}

int wmm_replay_failure(const explore_job *job, const explore_result *res)
{
    if (!res->graph)
        return 0;
    wg_rs_same_thread = job->model != MODEL_C20;
    wg_psc_std = job->model == MODEL_C11STD;
    wg_load(&F, res->graph);
    on_event = note_event;
    int pending;
    int rc = wmm_replay(&F, job, &pending);
    on_event = NULL;
    if (rc != 0)
        return 0;
    note_coherence();
    wmm_write_back(&F);
    return F.n;
}
