/* SPDX-License-Identifier: Apache-2.0 */
/* The instrumented atomics: every access of src/deque.c and
 * src/pool/evcount.c (through src/internal/sim_hook.h; evcount.c's futex
 * calls too, at the end), of the reference algorithms and of the
 * simulator's own scaffolding is posted here by the running thread, which
 * waits until the scheduler executes it as a step.  A mutant's override
 * changes the access first.  Outside simulated threads (set-up, the final
 * checks) an access runs at once. */
#include <string.h>

#include "core/access.h"
#include "core/algo.h"
#include "core/machine.h"
#include "core/memory.h"

/* A mutant's override of this access: false when the access is skipped. */
long sim_override_hits[SIM_MAX_OVERRIDES];

static bool apply_override(sim_access *a)
{
    const sim_override *o = S.algo ? S.algo->ovr : NULL;
    for (int i = 0; o && o[i].func && i < SIM_MAX_OVERRIDES; i++) {
        if (o[i].kind != a->kind || o[i].order != a->order ||
            strcmp(o[i].func, a->site.func) != 0 ||
            (o[i].expr && !strstr(a->site.expr, o[i].expr)))
            continue;
        sim_override_hits[i]++;
        if (o[i].new_order < 0)
            return false;
        a->order = o[i].new_order;
        break; /* one override per access */
    }
    return true;
}

void (*sim_site_hook)(const sim_access *a);

/* The running thread waits until the scheduler has executed its access. */
static void wait_step(void)
{
    sim_thread *th = &S.th[S.cur];
    th->state = T_PENDING;
    if (++th->op_steps > SIM_OP_STEP_LIMIT)
        sim_failf("%s's operation did not finish within %d accesses",
                  sim_thread_name(S.cur), SIM_OP_STEP_LIMIT);
    coro_yield(&th->co);
}

/* arm, c11: before a thread's first access to a slot of a ring another
 * thread allocated, its plain read of the ring's header (written when the
 * ring was allocated): reading it unwritten is a stale read under arm and
 * a race under c11. */
static void read_ring_header(const sim_access *a)
{
    if (a->order == WF_SIM_PLAIN || !a->addr || S.cur < 0)
        return;
    volatile void *h = sim_ring_header_for(S.cur, a->addr);
    if (h && sim_plain_load(h) == 0 && !S.fail[0]) {
        char loc[32];
        sim_loc_name(h, loc, sizeof loc);
        sim_failf("%s reads a slot of a ring whose header (%s, its mask) it "
                  "sees as not yet written (stale)",
                  sim_thread_name(S.cur), loc);
    }
}

/* Run an access: at once outside simulated threads (set-up and the final
 * checks), else as a step the scheduler chooses. */
static void perform(sim_access *a)
{
    a->order_src = a->order;
    if (sim_site_hook)
        sim_site_hook(a);
    if (S.cur < 0) {
        sim_exec(-1, a);
        return;
    }
    if (!apply_override(a)) {
        if (S.on_skip)
            S.on_skip(S.cur, a);
        return;
    }
    if (SIM_GRAPH_MODEL(S.model))
        read_ring_header(a);
    sim_thread *th = &S.th[S.cur];
    th->pend = *a;
    wait_step();
    *a = th->pend;
}

uint64_t sim_plain_load_n(volatile void *p, int size)
{
    sim_access a = {.kind = K_LOAD,
                    .order = WF_SIM_PLAIN,
                    .size = size,
                    .addr = p,
                    .site = WF__SIM_SITE("")};
    perform(&a);
    return a.result;
}

void sim_plain_store_n(volatile void *p, int size, uint64_t v)
{
    sim_access a = {.kind = K_STORE,
                    .order = WF_SIM_PLAIN,
                    .size = size,
                    .addr = p,
                    .val = sim_fit(size, v),
                    .site = WF__SIM_SITE("")};
    perform(&a);
}

uint64_t sim_plain_load(volatile void *p)
{
    return sim_plain_load_n(p, 8);
}

void sim_plain_store(volatile void *p, uint64_t v)
{
    sim_plain_store_n(p, 8, v);
}

void sim_register_ring(const void *ring, volatile void *slots, int64_t cap)
{
    if (!sim_ring_add(ring, slots, cap))
        return;
    if (S.cur >= 0 && SIM_GRAPH_MODEL(S.model))
        sim_plain_store((volatile void *)ring, (uint64_t)cap);
}

/* One access of a kind that carries at most a value (load, store,
 * exchange, fetch-add): performed, and what it read. */
static uint64_t one_access(int kind, const volatile void *p, int size,
                           uint64_t v, int order, wf_sim_site s)
{
    sim_access a = {.kind = kind,
                    .order = order,
                    .size = size,
                    .addr = (volatile void *)(uintptr_t)p,
                    .val = sim_fit(size, v),
                    .site = s};
    perform(&a);
    return a.result;
}

static uint64_t load(const volatile void *p, int size, int order, wf_sim_site s)
{
    return one_access(K_LOAD, p, size, 0, order, s);
}

int64_t wf__sim_load_i64(const volatile void *p, int order, wf_sim_site s)
{
    return (int64_t)load(p, 8, order, s);
}

int32_t wf__sim_load_i32(const volatile void *p, int order, wf_sim_site s)
{
    return (int32_t)(uint32_t)load(p, 4, order, s);
}

uint32_t wf__sim_load_u32(const volatile void *p, int order, wf_sim_site s)
{
    return (uint32_t)load(p, 4, order, s);
}

uint8_t wf__sim_load_u8(const volatile void *p, int order, wf_sim_site s)
{
    return (uint8_t)load(p, 1, order, s);
}

void *wf__sim_load_ptr(const volatile void *p, int order, wf_sim_site s)
{
    return (void *)(uintptr_t)load(p, 8, order, s);
}

void wf__sim_store(volatile void *p, int size, uint64_t v, int order,
                   wf_sim_site s)
{
    one_access(K_STORE, p, size, v, order, s);
}

bool wf__sim_cas(volatile void *p, int size, void *expected, uint64_t desired,
                 int order, wf_sim_site s)
{
    sim_access a = {.kind = K_CAS,
                    .order = order,
                    .size = size,
                    .addr = p,
                    .val = sim_fit(size, desired),
                    .site = s};
    memcpy(&a.expect, expected, (size_t)size); /* little-endian */
    perform(&a);
    if (!a.ok) /* as C11: expected gets the value */
        memcpy(expected, &a.result, (size_t)size);
    return a.ok;
}

uint64_t wf__sim_xchg(volatile void *p, int size, uint64_t v, int order,
                      wf_sim_site s)
{
    return one_access(K_XCHG, p, size, v, order, s);
}

uint64_t wf__sim_fadd(volatile void *p, int size, uint64_t v, int order,
                      wf_sim_site s)
{
    return one_access(K_FADD, p, size, v, order, s);
}

void wf__sim_fence(int order, wf_sim_site s)
{
    sim_access a = {.kind = K_FENCE, .order = order, .site = s};
    perform(&a);
}

/* ---- futexes (Linux futex(2)) ------------------------------------------- */

/* The kernel serialises the futex operations on a word (under the lock of
 * its hash bucket), and FUTEX_WAIT reads the word under that lock: its
 * "read, and sleep if it holds val" is atomic against every FUTEX_WAKE.
 * Each operation therefore first takes a ticket, a seq_cst fetch-add on
 * the word's kernel counter (sim_futex_word): the tickets order the
 * operations on one word, and the fetch-add's release and acquire carry
 * what a waker wrote before its wake (the new epoch) to a wait that comes
 * after it, whose relaxed read of the word then sees it.  A wait that
 * sleeps stays asleep unless a wake with a later ticket wakes it
 * (sim_futex_asleep); a spurious wake-up, which the API allows, is never
 * needed to find a lost one. */
void wf__sim_futex_wait(volatile void *p, uint32_t val, bool timed,
                        wf_sim_site s)
{
    if (S.cur < 0)
        return; /* set-up and the final checks never sleep */
    _Atomic int64_t *k = sim_futex_word(p);
    if (!k) {
        sim_failf("more than 4 futex words: the scenario is too large");
        return;
    }
    s.expr = "futex";
    int64_t ticket =
        (int64_t)wf__sim_fadd(k, 8, 1, WF_SIM_SEQ_CST, s); /* the bucket lock */
    s.expr = "futex word";
    uint32_t now = (uint32_t)load(p, 4, WF_SIM_RELAXED, s); /* under it */
    sim_thread *th = &S.th[S.cur];
    th->futex_addr = p;
    th->futex_ticket = ticket;
    th->futex_slept = now == val;
    th->futex_timed = timed;
}

void wf__sim_futex_wake(volatile void *p, int n, wf_sim_site s)
{
    if (S.cur < 0)
        return;
    _Atomic int64_t *k = sim_futex_word(p);
    if (!k) {
        sim_failf("more than 4 futex words: the scenario is too large");
        return;
    }
    s.expr = "futex";
    int64_t ticket = (int64_t)wf__sim_fadd(k, 8, 1, WF_SIM_SEQ_CST, s);
    if (S.nwakes < SIM_MAX_WAKES)
        S.wakes[S.nwakes++] = (sim_wake){p, ticket, n};
    else
        sim_failf("more than %d futex wakes in one execution", SIM_MAX_WAKES);
}

/* Wakes go in ticket order to the sleepers on their word queued before
 * them (lower tickets), oldest first, n at a time, as FUTEX_WAKE takes
 * the bucket's queue in order; a timed wait is queued as any other.  Each
 * word has tickets of its own: only the wakes on t's word can wake t.
 * True when t's last wait slept and no wake woke it. */
static bool unwoken(int t)
{
    const sim_thread *th = &S.th[t];
    if (!th->futex_slept)
        return false;
    bool woken[SIM_MAX_THREADS] = {false};
    int64_t last = -1;
    for (;;) { /* the next wake on t's word in ticket order */
        const sim_wake *w = NULL;
        for (int i = 0; i < S.nwakes; i++)
            if (S.wakes[i].addr == th->futex_addr && S.wakes[i].ticket > last &&
                (!w || S.wakes[i].ticket < w->ticket))
                w = &S.wakes[i];
        if (!w)
            break;
        last = w->ticket;
        for (int left = w->n; left > 0;) {
            int best = -1; /* the oldest sleeper on w's word it can wake */
            for (int u = 0; u < S.nthreads; u++) {
                const sim_thread *x = &S.th[u];
                if (!woken[u] && x->futex_slept && x->futex_addr == w->addr &&
                    x->futex_ticket < w->ticket &&
                    (best < 0 || x->futex_ticket < S.th[best].futex_ticket))
                    best = u;
            }
            if (best < 0)
                break;
            woken[best] = true;
            left--;
        }
    }
    return !woken[t];
}

bool sim_futex_asleep(int t)
{
    return !S.th[t].futex_timed && unwoken(t);
}

bool sim_futex_sleeps_out(int t)
{
    return S.th[t].futex_timed && unwoken(t);
}
