/* SPDX-License-Identifier: Apache-2.0 */
/* The memory machine: what one step does under SC, x86-TSO and PSO.
 *
 *  sc   every access acts on memory at once.
 *  tso  (Owens, Sarkar, Sewell) a store enters its thread's FIFO buffer; a
 *       load reads the thread's newest buffered store to that location,
 *       else memory; a locked RMW, an mfence (seq_cst fence) and a seq_cst
 *       store (xchg) wait for an empty buffer; draining the oldest store is
 *       a step of its own, chosen by the scheduler.
 *  pso  as tso, but each location has its own FIFO, so stores to different
 *       locations drain in any order; a release store first waits until
 *       the thread's stores to other locations have drained, and a release
 *       (or stronger) fence waits for all of them.
 *
 * Loads are never reordered and memory is a single copy, so these models
 * cannot show what a missing acquire allows (see docs/weft-sim.md). */
#include <stdlib.h>
#include <string.h>

#include "core/machine.h"
#include "core/memory.h"

/* Sizes are 8, 4 or 1 (0 means 8); a 4-byte word and a byte are held
 * zero-extended. */
static size_t width(int size)
{
    return size == 4 || size == 1 ? (size_t)size : 8;
}

uint64_t sim_fit(int size, uint64_t v)
{
    return size == 4 ? (uint32_t)v : size == 1 ? (uint8_t)v : v;
}

static uint64_t mem_rd(volatile void *addr, int size)
{
    uint64_t v = 0;
    memcpy(&v, (const void *)(uintptr_t)addr, width(size)); /* little-endian */
    return v;
}

static void mem_wr(volatile void *addr, uint64_t v, int size)
{
    if (S.cur >= 0 || S.pos > 0) { /* not while initialising */
        if (S.base_addr && addr == (volatile void *)S.base_addr) {
            int64_t old = (int64_t)mem_rd(addr, 8), nv = (int64_t)v;
            if (nv < old)
                sim_failf("base moved backwards, from %lld to %lld",
                          (long long)old, (long long)nv);
        }
    }
    memcpy((void *)(uintptr_t)addr, &v, width(size));
}

uint64_t sim_mem_read(volatile void *addr)
{
    return mem_rd(addr, 8);
}

uint64_t sim_mem_read_n(volatile void *addr, int size)
{
    return mem_rd(addr, size);
}

uint64_t sim_view(int t, volatile void *addr)
{
    const sim_thread *th = &S.th[t];
    for (int i = th->nbuf - 1; i >= 0; i--)
        if (th->buf[i].addr == addr)
            return th->buf[i].val;
    return mem_rd(addr, 8);
}

/* ---- processes ---------------------------------------------------------- */

int sim_buf_pid(int thread, volatile void *addr)
{
    if (S.model == MODEL_TSO)
        addr = NULL;
    for (int p = S.nthreads; p < S.nprocs; p++)
        if (S.proc[p].thread == thread && S.proc[p].addr == addr)
            return p;
    return -1;
}

static int buf_pid_make(int thread, volatile void *addr)
{
    int p = sim_buf_pid(thread, addr);
    if (p < 0) {
        if (S.nprocs == SIM_MAX_PROCS) { /* a limit of the tool, not a bug */
            fprintf(stderr,
                    "weft-sim: more than %d processes (threads and "
                    "store buffers): the scenario is too large\n",
                    SIM_MAX_PROCS);
            exit(2);
        }
        p = S.nprocs++;
        S.proc[p] =
            (sim_proc){thread, true, S.model == MODEL_TSO ? NULL : addr};
    }
    return p;
}

int sim_buf_head(int pid)
{
    const sim_proc *p = &S.proc[pid];
    const sim_thread *th = &S.th[p->thread];
    for (int i = 0; i < th->nbuf; i++)
        if (p->addr == NULL || th->buf[i].addr == p->addr)
            return i;
    return -1;
}

static bool buf_has_other(const sim_thread *th, volatile void *addr)
{
    for (int i = 0; i < th->nbuf; i++)
        if (th->buf[i].addr != addr)
            return true;
    return false;
}

int sim_needs_drain(const sim_access *a)
{
    if (S.model == MODEL_SC)
        return 0;
    switch (a->kind) {
    case K_CAS:
    case K_XCHG:
    case K_FADD: return 1;
    case K_FENCE:
        if (a->order == WF_SIM_SEQ_CST)
            return 1;
        return S.model == MODEL_PSO && a->order != WF_SIM_ACQUIRE &&
               a->order != WF_SIM_RELAXED;
    case K_STORE:
        if (a->order == WF_SIM_SEQ_CST)
            return 1;
        return S.model == MODEL_PSO && a->order == WF_SIM_RELEASE ? 2 : 0;
    default: return 0;
    }
}

bool sim_proc_enabled(int pid)
{
    const sim_proc *p = &S.proc[pid];
    const sim_thread *th = &S.th[p->thread];
    if (p->is_buf)
        return sim_buf_head(pid) >= 0;
    if (th->state != T_PENDING)
        return false;
    switch (sim_needs_drain(&th->pend)) {
    case 1: return th->nbuf == 0;
    case 2:
        if (buf_has_other(th, th->pend.addr))
            return false;
        break;
    }
    if (th->pend.kind == K_STORE && S.model != MODEL_SC &&
        th->nbuf == SIM_MAX_BUF)
        return false;
    return true;
}

/* ---- executing one access ------------------------------------------------ */

void sim_exec(int t, sim_access *a)
{
    sim_thread *th = t >= 0 ? &S.th[t] : NULL;
    uint64_t old;
    switch (a->kind) {
    case K_LOAD:
        a->forwarded = false;
        for (int i = th ? th->nbuf - 1 : -1; i >= 0; i--)
            if (th->buf[i].addr == a->addr) {
                a->result = th->buf[i].val;
                a->forwarded = true;
                return;
            }
        a->result = mem_rd(a->addr, a->size);
        return;
    case K_STORE:
        if (th && S.model != MODEL_SC && sim_needs_drain(a) != 1) {
            buf_pid_make(t, a->addr);
            th->buf[th->nbuf++] = (sim_bufent){a->addr, a->val,   a->size,
                                               S.pos,   a->order, a->site};
            a->buffered = true;
            return;
        }
        mem_wr(a->addr, a->val, a->size);
        return;
    case K_CAS:
        old = mem_rd(a->addr, a->size);
        a->result = old;
        a->ok = old == a->expect;
        if (a->ok)
            mem_wr(a->addr, a->val, a->size);
        return;
    case K_XCHG:
        a->result = mem_rd(a->addr, a->size);
        mem_wr(a->addr, a->val, a->size);
        return;
    case K_FADD:
        a->result = mem_rd(a->addr, a->size);
        mem_wr(a->addr, sim_fit(a->size, a->result + a->val), a->size);
        return;
    default: /* fences: the wait for the buffer is the whole effect */ return;
    }
}

void sim_hash_reads(sim_thread *th, const sim_access *a)
{
    if (a->kind == K_STORE || a->kind == K_FENCE || a->order == WF_SIM_PLAIN)
        return; /* the arm and c11 scaffolding is not the algorithm's */
    bool ok = a->kind == K_CAS && a->ok; /* only a CAS succeeds or fails */
    th->reads_hash =
        th->reads_hash * 1000003u + sim_stable_value(a->result) * 31u + ok + 1;
}

void sim_step(int pid, sim_step_info *info)
{
    const sim_proc *p = &S.proc[pid];
    sim_thread *th = &S.th[p->thread];
    memset(info, 0, sizeof *info);
    info->pid = pid;
    info->thread = p->thread;
    info->op_index = th->pc;
    if (p->is_buf) {
        int i = sim_buf_head(pid);
        sim_bufent e = th->buf[i];
        memmove(&th->buf[i], &th->buf[i + 1],
                (size_t)(th->nbuf - i - 1) * sizeof e);
        th->nbuf--;
        mem_wr(e.addr, e.val, e.size);
        info->kind = K_DRAIN;
        info->acc = (sim_access){.kind = K_STORE,
                                 .order = e.order,
                                 .order_src = e.order,
                                 .size = e.size,
                                 .addr = e.addr,
                                 .val = e.val,
                                 .site = e.site};
        S.pos++;
    } else {
        sim_exec(p->thread, &th->pend);
        sim_hash_reads(th, &th->pend);
        info->kind = th->pend.kind;
        info->acc = th->pend;
        S.pos++;
        sim_resume(p->thread);
    }
    if (S.on_step)
        S.on_step(info);
}

void sim_resume(int t)
{
    S.cur = t;
    coro_switch_in(&S.th[t].co);
    S.cur = -1;
}
