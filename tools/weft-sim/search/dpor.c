/* SPDX-License-Identifier: Apache-2.0 */
/* The search over interleavings (sc, tso, pso): dynamic partial-order
 * reduction with sleep sets, or every schedule (explore.h says which).
 * The comments here say why each rule of the dependency relation holds. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/machine.h"
#include "search/checks.h"
#include "search/dpor.h"
#include "search/execution.h"
#include "search/strset.h"

typedef uint64_t pmask; /* a set of processes (SIM_MAX_PROCS == 64) */
#define BIT(p) ((pmask)1 << (p))

/* A transition, as the dependency relation sees it. */
typedef struct ev {
    int pid, thread, kind, need;
    bool is_buf;
    volatile void *addr;
} ev;

typedef struct frame {
    int chosen;
    pmask enabled, backtrack, done, sleep;
    pmask has_next;
    int nprocs;
    ev next[SIM_MAX_PROCS];
    ev event; /* == next[chosen]                 */
    uint16_t clock[SIM_MAX_PROCS];
    int preempt;   /* preemptions up to this state    */
    int running;   /* the thread that ran last, or -1 */
    bool boundary; /* ...and its last step ended an operation */
} frame;

static frame *F;                   /* EXPLORE_MAX_DEPTH + 1 frames */
static bool naive_search;          /* no reduction: no race analysis */
static int last_ev[SIM_MAX_PROCS]; /* depth of each process' last event */

/* ---- transitions and their dependencies -------------------------------- */

static ev next_of(int pid)
{
    const sim_proc *p = &S.proc[pid];
    ev e = {.pid = pid, .thread = p->thread, .is_buf = p->is_buf};
    if (p->is_buf) {
        e.kind = K_DRAIN;
        e.addr = S.th[p->thread].buf[sim_buf_head(pid)].addr;
    } else {
        const sim_access *a = &S.th[p->thread].pend;
        e.kind = a->kind;
        e.addr = a->addr;
        e.need = sim_needs_drain(a);
    }
    return e;
}

/* Does e act on memory, and does it write?  A store that enters a buffer
 * touches only its own buffer; its drain is the memory write. */
static bool touches_mem(const ev *e, bool *writes)
{
    switch (e->kind) {
    case K_LOAD: *writes = false; return true;
    case K_STORE: *writes = true; return S.model == MODEL_SC || e->need == 1;
    case K_FENCE: return false;
    default: /* RMW, drain */ *writes = true; return true;
    }
}

/* Is drain d one that w (an access of the same thread) waits for? */
static bool waits_for(const ev *w, const ev *d)
{
    return d->kind == K_DRAIN && !w->is_buf && w->thread == d->thread &&
           (w->need == 1 || (w->need == 2 && w->addr != d->addr));
}

/* Dependent transitions of different processes.  *coenabled is false for
 * a pair that can never be enabled in the same state: an access waiting
 * for an empty buffer and a drain of that buffer.  Such a pair is ordered
 * (the drain enables the access) but is not a race to reverse. */
static bool dependent(const ev *a, const ev *b, bool *coenabled)
{
    *coenabled = true;
    if (waits_for(a, b) || waits_for(b, a)) {
        *coenabled = false;
        return true;
    }
    bool wa, wb;
    if (!touches_mem(a, &wa) || !touches_mem(b, &wb) || a->addr != b->addr ||
        (!wa && !wb))
        return false;
    /* A thread's load and the drain of its own buffer commute: before the
     * drain the load reads the buffered value, after it the same value
     * from memory (it was the newest store of that location). */
    if ((a->kind == K_DRAIN && b->kind == K_LOAD && a->thread == b->thread) ||
        (b->kind == K_DRAIN && a->kind == K_LOAD && a->thread == b->thread))
        return false;
    return true;
}

static void clock_join(uint16_t *c, const uint16_t *d, int n)
{
    for (int i = 0; i < n; i++)
        if (d[i] > c[i])
            c[i] = d[i];
}

/* What must happen before process pid's next transition: its own last
 * event and, for a buffer, the store that put its head entry there. */
static void causal_clock(int pid, uint16_t *c)
{
    memset(c, 0, sizeof(uint16_t) * SIM_MAX_PROCS);
    if (last_ev[pid] >= 0)
        memcpy(c, F[last_ev[pid]].clock, sizeof(uint16_t) * SIM_MAX_PROCS);
    if (S.proc[pid].is_buf) {
        const sim_thread *th = &S.th[S.proc[pid].thread];
        int at = th->buf[sim_buf_head(pid)].pos;
        clock_join(c, F[at].clock, S.nprocs);
    }
}

static bool hb(int j, const uint16_t *c)
{
    return c[F[j].event.pid] >= j + 1;
}

/* The clock of the event about to run at depth d; *causal gets the clock
 * of what precedes it in its own process (without the dependencies). */
static void event_clock(int d, uint16_t *causal)
{
    frame *f = &F[d];
    causal_clock(f->chosen, causal);
    memcpy(f->clock, causal, sizeof f->clock);
    for (int j = 0; j < d; j++) {
        bool co;
        if (F[j].event.pid != f->chosen &&
            dependent(&F[j].event, &f->event, &co))
            clock_join(f->clock, F[j].clock, S.nprocs);
    }
    f->clock[f->chosen] = (uint16_t)(d + 1);
}

/* Source-DPOR (Abdulla, Aronis, Jonsson, Sagonas, POPL 2014): for each
 * race of the event just executed at d with an earlier event i, the state
 * before i must also try a schedule in which the event at d (or whatever
 * it needs first) runs before i.  v is the part of the execution after i
 * that does not depend on i, followed by the event at d; one of v's
 * "initials" (a process whose first event in v needs nothing else in v)
 * must be in the backtrack set of state i.  (Flanagan and Godefroid's rule,
 * "add the racing process itself", misses executions once sleep sets are
 * used: the process may be asleep there while something else it waits
 * for is not.) */
static void add_backtracks(int d, const uint16_t *causal)
{
    int p = F[d].event.pid;
    int race[64], nr = 0;
    for (int i = d - 1; i >= 0 && nr < 64; i--) {
        bool co;
        if (F[i].event.pid == p || hb(i, causal) ||
            !dependent(&F[i].event, &F[d].event, &co) || !co)
            continue;
        bool direct = true; /* not before another racing event */
        for (int k = 0; k < nr && direct; k++)
            if (hb(i, F[race[k]].clock))
                direct = false;
        if (direct)
            race[nr++] = i;
    }
    for (int r = 0; r < nr; r++) {
        int i = race[r];
        frame *pre = &F[i];
        pmask seen = 0, initials = 0;
        int v[EXPLORE_MAX_DEPTH], nv = 0;
        for (int j = i + 1; j <= d; j++) {
            if (j < d && hb(i, F[j].clock))
                continue; /* depends on i: not in v */
            int q = F[j].event.pid;
            if (!(seen & BIT(q))) {
                bool first = true;
                for (int k = 0; k < nv && first; k++)
                    if (hb(v[k], F[j].clock))
                        first = false;
                if (first)
                    initials |= BIT(q);
                seen |= BIT(q);
            }
            v[nv++] = j;
        }
        if (initials & pre->backtrack)
            continue;
        pmask ok = initials & pre->enabled;
        if (ok)
            pre->backtrack |= ok & -ok; /* one of them */
        else
            pre->backtrack |= pre->enabled; /* cannot happen; be safe */
    }
}

/* ---- one execution ------------------------------------------------------- */

/* Start an execution of the job; no process has had an event yet. */
static int start(const explore_job *job)
{
    if (explore_start(job) != 0)
        return -1;
    for (int p = 0; p < SIM_MAX_PROCS; p++)
        last_ev[p] = -1;
    return 0;
}

static void observe_state(int d)
{
    frame *f = &F[d];
    f->nprocs = S.nprocs;
    f->enabled = f->has_next = 0;
    for (int p = 0; p < S.nprocs; p++) {
        if (sim_proc_enabled(p))
            f->enabled |= BIT(p);
        const sim_proc *pr = &S.proc[p];
        if (pr->is_buf ? sim_buf_head(p) >= 0
                       : S.th[pr->thread].state == T_PENDING) {
            f->has_next |= BIT(p);
            f->next[p] = next_of(p);
        }
    }
}

/* Execute the step chosen at depth d.  A replayed step already has its
 * event and clock from the execution that first made it. */
static void do_step(int d, bool replay)
{
    frame *f = &F[d];
    sim_step_info info;
    const sim_proc *pr = &S.proc[f->chosen];
    int pc = S.th[pr->thread].pc;
    if (!replay) {
        uint16_t causal[SIM_MAX_PROCS];
        f->event = f->next[f->chosen];
        event_clock(d, causal);
        if (!naive_search)
            add_backtracks(d, causal);
    }
    sim_step(f->chosen, &info);
    if (pr->is_buf) { /* a drain does not change who is running */
        f->running = d > 0 ? F[d - 1].running : -1;
        f->boundary = d > 0 ? F[d - 1].boundary : true;
    } else {
        f->running = f->chosen;
        f->boundary = S.th[pr->thread].pc != pc;
    }
    last_ev[f->chosen] = d;
}

/* Preemptions after process p runs at depth d.  A preemption is running
 * anything else while the running thread could go on: another thread in
 * the middle of one of its operations, or a store buffer's drain at any
 * time (a store may stay buffered for free; draining it early is the
 * scheduler's choice).  Switching when the running thread is blocked or
 * done, or to another thread between two of its operations, is free. */
static int preemptions_after(const explore_job *job, int d, int p)
{
    if (d == 0)
        return 0;
    const frame *prev = &F[d - 1];
    int q = prev->running, n = prev->preempt;
    if (job->preemptions < 0 || q < 0 || q == p || !(F[d].enabled & BIT(q)))
        return n;
    if (S.proc[p].is_buf || !prev->boundary)
        n++;
    return n;
}

static int pick(pmask m, int prefer)
{
    if (prefer >= 0 && (m & BIT(prefer)))
        return prefer;
    return __builtin_ctzll(m);
}

/* Initial choices at a new state d; returns false when none. */
static bool new_state(const explore_job *job, int d)
{
    frame *f = &F[d];
    observe_state(d);
    f->backtrack = f->done = 0;
    f->preempt = 0;
    int prefer = d > 0 ? F[d - 1].chosen : -1;
    if (job->naive || job->preemptions >= 0) {
        for (int p = 0; p < S.nprocs; p++)
            if ((f->enabled & BIT(p)) &&
                (job->preemptions < 0 ||
                 preemptions_after(job, d, p) <= job->preemptions))
                f->backtrack |= BIT(p);
        f->sleep = 0;
        return f->backtrack != 0;
    }
    pmask avail = f->enabled & ~f->sleep;
    if (avail)
        f->backtrack |= BIT(pick(avail, prefer));
    return avail != 0;
}

/* Choose the next untried process at d (false: d is exhausted) and set the
 * sleep set of d + 1. */
static bool choose(const explore_job *job, int d)
{
    frame *f = &F[d];
    pmask cand = f->backtrack & ~f->done & ~f->sleep;
    if (!cand)
        return false;
    int p = pick(cand, d > 0 ? F[d - 1].chosen : -1);
    f->chosen = p;
    f->preempt = preemptions_after(job, d, p);
    pmask sl = 0;
    if (!job->naive && job->preemptions < 0) {
        pmask prior = (f->sleep | f->done) & f->has_next;
        for (int q = 0; q < f->nprocs; q++) {
            bool co;
            if ((prior & BIT(q)) && !dependent(&f->next[q], &f->next[p], &co))
                sl |= BIT(q);
        }
    }
    f->done |= BIT(p);
    F[d + 1].sleep = sl;
    return true;
}

/* One execution: replay the prefix the last one shares with it, then
 * choose new steps to the end.  Returns the depth where it ended, or -1
 * when it could not start or the replay diverged. */
static int run_execution(const explore_job *job, explore_result *res,
                         int prefix, bool first)
{
    if (start(job) != 0)
        return -1;
    for (int d = 0; d < prefix; d++) { /* replay the common prefix */
        if (!sim_proc_enabled(F[d].chosen)) {
            fprintf(stderr, "weft-sim: internal error: replay diverged\n");
            return -1;
        }
        do_step(d, true);
    }
    res->steps += prefix;
    int d = prefix;
    bool go = first ? new_state(job, d) : true;
    while (go && choose(job, d)) {
        if (d >= EXPLORE_MAX_DEPTH - 1) {
            fprintf(stderr,
                    "weft-sim: an execution is longer than %d "
                    "steps: the scenario is too large\n",
                    EXPLORE_MAX_DEPTH);
            exit(2);
        }
        do_step(d++, false);
        res->steps++;
        if (S.fail[0])
            break;
        go = new_state(job, d);
    }
    return d;
}

/* The execution ended at depth d: count it, check it when complete, and
 * keep its schedule when it is the shortest failure so far. */
static void end_execution(const explore_job *job, explore_result *res, int d,
                          strset_t *outs, long *since_fail)
{
    bool complete = !S.fail[0] && F[d].enabled == 0;
    if (complete) {
        res->execs++;
        if (job->deque_checks)
            explore_final_check();
        if (job->final && !S.fail[0])
            job->final();
        if (!S.fail[0] && job->outcome && job->collect_outcomes) {
            char buf[512];
            job->outcome(buf, sizeof buf);
            strset_put(outs, buf);
        }
    } else if (S.fail[0]) {
        res->execs++; /* stopped at a failure */
    } else {
        res->blocked++;
    }
    if (S.fail[0] && (!res->failed || d < res->nsched)) {
        res->failed = true;
        snprintf(res->fail, sizeof res->fail, "%s", S.fail);
        res->nsched = d;
        for (int i = 0; i < d; i++)
            res->sched[i] = F[i].chosen;
        *since_fail = 0;
    }
}

/* The deepest state with an untried choice, below depth d (F[d] has
 * nothing untried, or was not reached); -1: the search is exhausted. */
static int backtrack_point(int d)
{
    int b = d - 1;
    while (b >= 0 && !(F[b].backtrack & ~F[b].done & ~F[b].sleep))
        b--;
    return b;
}

int explore_dpor(const explore_job *job, explore_result *res)
{
    memset(res, 0, sizeof *res);
    if (!F && !(F = calloc(EXPLORE_MAX_DEPTH + 1, sizeof *F)))
        return -1;
    strset_t *outs = strset_new();
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int prefix = 0; /* the state where this execution makes a new choice */
    long since_fail = 0;
    F[0].sleep = 0;
    naive_search = job->naive || job->preemptions >= 0;
    for (bool first = true;; first = false) {
        int d = run_execution(job, res, prefix, first);
        if (d < 0)
            return -1;
        end_execution(job, res, d, outs, &since_fail);
        if (res->failed &&
            (job->stop_first || ++since_fail > job->extra_after_fail))
            break;
        if (job->max_execs && res->execs >= job->max_execs)
            break;
        prefix = backtrack_point(d);
        if (prefix < 0) {
            res->exhausted = true;
            break;
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    res->secs = (double)(t1.tv_sec - t0.tv_sec) +
                1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    res->noutcomes = strset_take(outs, &res->outcomes);
    return 0;
}
