/* SPDX-License-Identifier: Apache-2.0 */
/* weft-sim's simulated threads: their programs, their coroutines, posting
 * an access, the arena and the names of locations and values.  The memory
 * models themselves are in machine.c. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "algo.h"
#include "sim.h"
#include "weft/deque.h"

sim_state S;

#define ARENA_SIZE (1u << 20)
static _Alignas(128) unsigned char arena[ARENA_SIZE];
static size_t arena_used;

/* Named locations: the deque's fields, a litmus test's variables. */
#define MAX_NAMES 16
typedef struct loc_name {
    volatile void *addr;
    const char *name;
} loc_name;
static loc_name names[MAX_NAMES];
static int nnames;

void *sim_alloc(size_t bytes)
{
    size_t at = (arena_used + 127) & ~(size_t)127; /* cache-line aligned */
    if (at + bytes > ARENA_SIZE)
        return NULL;
    arena_used = at + bytes;
    memset(arena + at, 0, bytes);
    return arena + at;
}

uint64_t sim_stable_value(uint64_t v)
{
    uintptr_t lo = (uintptr_t)arena;
    return v >= lo && v < lo + ARENA_SIZE ? v - lo : v;
}

void sim_register_ring(const void *ring, volatile void *slots, int64_t cap)
{
    if (S.nrings < SIM_MAX_RINGS)
        S.rings[S.nrings++] = (sim_ring){ring, slots, cap};
}

const sim_ring *sim_ring_of(const void *ring)
{
    for (int i = 0; i < S.nrings; i++)
        if (S.rings[i].ring == ring)
            return &S.rings[i];
    return NULL;
}

void sim_register_name(volatile void *addr, const char *name)
{
    if (nnames < MAX_NAMES)
        names[nnames++] = (loc_name){addr, name};
}

void sim_register_deque(volatile void *base, volatile void *top,
                        volatile void *array)
{
    S.base_addr = (volatile int64_t *)base;
    S.top_addr = (volatile int64_t *)top;
    S.array_addr = (void *volatile *)array;
    sim_register_name(base, "base");
    sim_register_name(top, "top");
    sim_register_name(array, "array");
}

void sim_loc_name(volatile void *addr, char *out, size_t n)
{
    for (int i = 0; i < nnames; i++)
        if (names[i].addr == addr) {
            snprintf(out, n, "%s", names[i].name);
            return;
        }
    /* Ring slots: the first ring is a[], the next ones a'[], a''[] ... */
    for (int r = 0; r < S.nrings; r++) {
        const sim_ring *g = &S.rings[r];
        uintptr_t lo = (uintptr_t)g->slots, p = (uintptr_t)addr;
        if (p >= lo && p < lo + (uintptr_t)g->cap * 8) {
            snprintf(out, n, "a%.*s[%d]", r, "''''''''", (int)((p - lo) / 8));
            return;
        }
    }
    snprintf(out, n, "@%p", (void *)addr);
}

int sim_value_index(const void *v)
{
    uintptr_t x = (uintptr_t)v;
    return x >= 0xA0 && x < 0xA0 + SIM_MAX_VALUES ? (int)(x - 0xA0) : -1;
}

const char *sim_value_name(const void *v, char buf[24])
{
    int i = sim_value_index(v);
    if (v == NULL)
        return "null";
    if (i >= 0)
        snprintf(buf, 24, "%c", 'A' + i);
    else
        snprintf(buf, 24, "#%lx", (unsigned long)(uintptr_t)v);
    return buf;
}

const char *sim_thread_name(int t)
{
    static const char *const n[SIM_MAX_THREADS] = {"owner", "T1", "T2", "T3",
                                                   "T4"};
    return t >= 0 && t < SIM_MAX_THREADS ? n[t] : "?";
}

void sim_failf(const char *fmt, ...)
{
    if (S.fail[0])
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(S.fail, sizeof S.fail, fmt, ap);
    va_end(ap);
}

/* ---- the checks on what operations return ------------------------------ */

static int choose_value(void)
{
    if (S.reuse) /* the oldest value all of whose pushes were taken */
        for (int v = 0; v < S.next_value; v++)
            if (S.pushed[v] > 0 && S.taken[v] == S.pushed[v])
                return v;
    return S.next_value < SIM_MAX_VALUES ? S.next_value++ : SIM_MAX_VALUES - 1;
}

static void note_taken(int t, const char *what, void *x)
{
    char vb[24];
    int v = sim_value_index(x);
    if (v < 0) {
        sim_failf("%s's %s returned %s, which was never pushed",
                  sim_thread_name(t), what, sim_value_name(x, vb));
        return;
    }
    if (++S.taken[v] > S.pushed[v])
        sim_failf("%s's %s took %s, which was pushed %d time(s) and is now "
                  "taken %d times", sim_thread_name(t), what,
                  sim_value_name(x, vb), S.pushed[v], S.taken[v]);
}

static void run_op(int t, sim_op *op)
{
    const sim_algo *al = S.algo;
    void *x = NULL;
    switch (op->kind) {
    case OP_PUSH:
        if (op->value < 0)
            op->value = choose_value();
        S.pushed[op->value]++;
        op->status = al->push(SIM_VALUE(op->value));
        if (op->status != 0)
            S.pushed[op->value]--; /* not pushed: still the caller's */
        break;
    case OP_POP:
        op->got = al->pop();
        if (op->got)
            note_taken(t, "pop", op->got);
        break;
    case OP_POLL:
        op->status = al->poll(&x);
        op->got = x;
        if (op->status == WF_POLL_TAKEN)
            note_taken(t, "poll", x);
        break;
    case OP_CALL:
        op->call(t);
        break;
    }
    op->done = true;
}

static void thread_body(void *arg)
{
    int t = (int)(intptr_t)arg;
    sim_thread *th = &S.th[t];
    for (;;) {
        while (th->pc >= th->nprog) {
            th->state = T_IDLE;
            coro_yield(&th->co);
        }
        th->in_op = true;
        th->op_steps = 0;
        run_op(t, &th->prog[th->pc]);
        th->in_op = false;
        th->pc++;
    }
}

/* Called by machine.c from inside the running thread: wait until the
 * scheduler has executed the access. */
void sim_wait_step(void)
{
    sim_thread *th = &S.th[S.cur];
    th->state = T_PENDING;
    if (++th->op_steps > SIM_OP_STEP_LIMIT)
        sim_failf("%s's operation did not finish within %d accesses",
                  sim_thread_name(S.cur), SIM_OP_STEP_LIMIT);
    coro_yield(&th->co);
}

/* ---- lifecycle --------------------------------------------------------- */

int sim_reset(const sim_algo *algo, int model, int nthreads, int capacity)
{
    static bool made[SIM_MAX_THREADS];
    if (S.algo && S.algo->destroy)
        S.algo->destroy(); /* direct mode: frees nothing from the arena */
    bool reuse = S.reuse, logging = S.logging;
    void (*on_step)(const sim_step_info *) = S.on_step;
    void (*on_skip)(int, const sim_access *) = S.on_skip;
    sim_thread saved[SIM_MAX_THREADS];
    memcpy(saved, S.th, sizeof saved); /* keep the coroutines' stacks */
    memset(&S, 0, sizeof S);
    for (int t = 0; t < SIM_MAX_THREADS; t++) {
        S.th[t].co = saved[t].co;
        if (!made[t]) {
            if (coro_init(&S.th[t].co, thread_body, (void *)(intptr_t)t,
                          64 * 1024) != 0)
                return -1;
            made[t] = true;
        }
        coro_reset(&S.th[t].co);
    }
    S.reuse = reuse;
    S.logging = logging;
    S.on_step = on_step;
    S.on_skip = on_skip;
    S.cur = -1;
    S.model = model;
    S.algo = algo;
    S.nthreads = nthreads;
    S.nprocs = nthreads;
    for (int t = 0; t < nthreads; t++)
        S.proc[t] = (sim_proc){t, false, NULL};
    arena_used = 0;
    nnames = 0;
    S.base_max = INT64_MIN;
    if (algo && algo->init && algo->init(capacity) != 0)
        return -1;
    return 0;
}

void sim_add_op(int thread, sim_op op)
{
    sim_thread *th = &S.th[thread];
    if (th->nprog < SIM_MAX_OPS)
        th->prog[th->nprog++] = op;
}

void sim_start_ops(void)
{
    for (int t = 0; t < S.nthreads; t++) {
        sim_thread *th = &S.th[t];
        if (th->state == T_IDLE && th->pc < th->nprog) {
            S.cur = t;
            coro_switch_in(&th->co);
            S.cur = -1;
        }
    }
}

bool sim_all_done(void)
{
    for (int t = 0; t < S.nthreads; t++)
        if (S.th[t].state != T_IDLE || S.th[t].pc < S.th[t].nprog ||
            S.th[t].nbuf > 0)
            return false;
    return true;
}

/* Resume thread t after its pending access was executed. */
void sim_resume(int t)
{
    S.cur = t;
    coro_switch_in(&S.th[t].co);
    S.cur = -1;
}
