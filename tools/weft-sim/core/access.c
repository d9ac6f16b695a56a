/* SPDX-License-Identifier: Apache-2.0 */
/* The instrumented atomics: every access of src/deque.c (through
 * src/internal/sim_hook.h), of the reference algorithms and of the
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

uint64_t sim_plain_load(volatile void *p)
{
    sim_access a = {.kind = K_LOAD,
                    .order = WF_SIM_PLAIN,
                    .addr = p,
                    .site = WF__SIM_SITE("")};
    perform(&a);
    return a.result;
}

void sim_plain_store(volatile void *p, uint64_t v)
{
    sim_access a = {.kind = K_STORE,
                    .order = WF_SIM_PLAIN,
                    .addr = p,
                    .val = v,
                    .site = WF__SIM_SITE("")};
    perform(&a);
}

void sim_register_ring(const void *ring, volatile void *slots, int64_t cap)
{
    if (!sim_ring_add(ring, slots, cap))
        return;
    if (S.cur >= 0 && SIM_GRAPH_MODEL(S.model))
        sim_plain_store((volatile void *)ring, (uint64_t)cap);
}

int64_t wf__sim_load_i64(const volatile void *p, int order, wf_sim_site s)
{
    sim_access a = {.kind = K_LOAD,
                    .order = order,
                    .addr = (volatile void *)(uintptr_t)p,
                    .site = s};
    perform(&a);
    return (int64_t)a.result;
}

void *wf__sim_load_ptr(const volatile void *p, int order, wf_sim_site s)
{
    sim_access a = {.kind = K_LOAD,
                    .order = order,
                    .addr = (volatile void *)(uintptr_t)p,
                    .site = s};
    perform(&a);
    return (void *)(uintptr_t)a.result;
}

void wf__sim_store(volatile void *p, uint64_t v, int order, wf_sim_site s)
{
    sim_access a = {
        .kind = K_STORE, .order = order, .addr = p, .val = v, .site = s};
    perform(&a);
}

bool wf__sim_cas(volatile void *p, void *expected, uint64_t desired, int order,
                 wf_sim_site s)
{
    sim_access a = {
        .kind = K_CAS, .order = order, .addr = p, .val = desired, .site = s};
    memcpy(&a.expect, expected, 8);
    perform(&a);
    if (!a.ok)
        memcpy(expected, &a.result, 8); /* as C11: expected gets the value */
    return a.ok;
}

uint64_t wf__sim_xchg(volatile void *p, uint64_t v, int order, wf_sim_site s)
{
    sim_access a = {
        .kind = K_XCHG, .order = order, .addr = p, .val = v, .site = s};
    perform(&a);
    return a.result;
}

uint64_t wf__sim_fadd(volatile void *p, uint64_t v, int order, wf_sim_site s)
{
    sim_access a = {
        .kind = K_FADD, .order = order, .addr = p, .val = v, .site = s};
    perform(&a);
    return a.result;
}

void wf__sim_fence(int order, wf_sim_site s)
{
    sim_access a = {.kind = K_FENCE, .order = order, .site = s};
    perform(&a);
}
