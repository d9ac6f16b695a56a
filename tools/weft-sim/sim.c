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

/* What a task's contents and its completion flag are, for the arm and c11
 * models: the pusher writes the contents (a plain write) before it
 * pushes; whoever takes the task reads them; with --reuse the taker then
 * sets the flag (release) and the owner reuses a value only once it has
 * read every one of its flags (acquire), as a join does. */
static _Alignas(64) uint64_t contents[SIM_MAX_VALUES];
static _Alignas(64) _Atomic int64_t done_flag[SIM_MAX_VALUES];
/* A change of owner: the deque passes from one thread to another through
 * a release store and an acquire load of this word, as a caller slot's
 * deque passes from one caller to the next. */
static _Alignas(64) _Atomic int64_t handoff_word;

/* Objects reached through a pointer (arm's address dependencies). */
#define MAX_OBJECTS 64
typedef struct sim_object {
    uint64_t handle;
    uintptr_t lo, hi;
} sim_object;
static sim_object objects[MAX_OBJECTS];
static int nobjects;

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

void sim_register_object(uint64_t handle, volatile void *lo, size_t size)
{
    if (nobjects < MAX_OBJECTS)
        objects[nobjects++] =
            (sim_object){handle, (uintptr_t)lo, (uintptr_t)lo + size};
}

bool sim_object_of(volatile void *addr, uint64_t *handle)
{
    uintptr_t a = (uintptr_t)addr;
    for (int i = nobjects - 1; i >= 0; i--)
        if (a >= objects[i].lo && a < objects[i].hi) {
            *handle = objects[i].handle;
            return true;
        }
    return false;
}

void sim_register_ring(const void *ring, volatile void *slots, int64_t cap)
{
    if (S.nrings == SIM_MAX_RINGS)
        return;
    S.rings[S.nrings++] = (sim_ring){ring, slots, cap, S.cur};
    uintptr_t end = (uintptr_t)slots + (uintptr_t)cap * 8;
    sim_register_object((uint64_t)(uintptr_t)ring, (volatile void *)ring,
                        end - (uintptr_t)ring);
    if (S.cur >= 0 && SIM_GRAPH_MODEL(S.model))
        sim_plain_store((volatile void *)ring, (uint64_t)cap);
}

volatile void *sim_ring_header_for(int thread, volatile void *addr)
{
    uintptr_t a = (uintptr_t)addr;
    for (int r = 0; r < S.nrings; r++) {
        const sim_ring *g = &S.rings[r];
        uintptr_t lo = (uintptr_t)g->slots;
        if (a >= lo && a < lo + (uintptr_t)g->cap * 8)
            return g->owner >= 0 && g->owner != thread
                       ? (volatile void *)g->ring
                       : NULL;
    }
    return NULL;
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
    uintptr_t p = (uintptr_t)addr;
    for (int v = 0; v < SIM_MAX_VALUES; v++)
        if (p == (uintptr_t)&contents[v] || p == (uintptr_t)&done_flag[v]) {
            snprintf(out, n, "%c.%s", 'A' + v,
                     p == (uintptr_t)&contents[v] ? "contents" : "done");
            return;
        }
    for (int r = 0; r < S.nrings; r++)
        if (p == (uintptr_t)S.rings[r].ring && S.rings[r].owner >= 0) {
            snprintf(out, n, "a%.*s.header", r, "''");
            return;
        }
    for (int i = 0; i < nnames; i++)
        if (names[i].addr == addr) {
            snprintf(out, n, "%s", names[i].name);
            return;
        }
    /* Ring slots: the first ring is a[], the next ones a'[], a''[] ... */
    for (int r = 0; r < S.nrings; r++) {
        const sim_ring *g = &S.rings[r];
        uintptr_t lo = (uintptr_t)g->slots;
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

static const char *const model_names[MODEL_COUNT] = {
    "sc", "tso", "pso", "arm", "c11", "c20", "c11std"};

const char *sim_model_name(int m)
{
    return m >= 0 && m < MODEL_COUNT ? model_names[m] : "?";
}

int sim_model_parse(const char *s)
{
    for (int m = 0; s && m < MODEL_COUNT; m++)
        if (strcmp(s, model_names[m]) == 0)
            return m;
    return -1;
}

const char *sim_thread_name(int t)
{
    static const char *const n[SIM_MAX_THREADS] = {"owner", "T1", "T2", "T3",
                                                   "T4"};
    if (t > 0 && t == S.handoff_thread)
        return "owner2";
    return t >= 0 && t < SIM_MAX_THREADS ? n[t] : "?";
}

void sim_handoff_give(int thread)
{
    (void)thread;
    wf_store_release(&handoff_word, 1);
}

void sim_handoff_take(int thread)
{
    (void)thread;
    S.handed = wf_load_acquire(&handoff_word) == 1;
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

/* With --reuse: the oldest value all of whose pushes were taken.  Under
 * sc, tso and pso that is read off the simulator at once; under arm and
 * c11 the owner must learn it through memory (the completion flags). */
static int choose_value(void)
{
    bool graph = SIM_GRAPH_MODEL(S.model);
    if (S.reuse)
        for (int v = 0; v < S.next_value; v++) {
            if (S.pushed[v] == 0)
                continue;
            if (graph ? wf_load_acquire(&done_flag[v]) == S.pushed[v]
                      : S.taken[v] == S.pushed[v])
                return v;
        }
    return S.next_value < SIM_MAX_VALUES ? S.next_value++ : SIM_MAX_VALUES - 1;
}

/* arm, c11: the taker reads the task's contents; they must be the ones
 * written before the push (a stale read is a failure under arm; under c11
 * an unordered read is a data race, reported by the model). */
static void read_contents(int t, const char *what, void *x)
{
    int v = sim_value_index(x);
    if (!SIM_GRAPH_MODEL(S.model) || v < 0 || S.fail[0])
        return;
    uint64_t gen = sim_plain_load(&contents[v]);
    if (gen == 0)
        sim_failf("%s's %s took %c but read %c's contents as they were "
                  "before the push wrote them (stale)",
                  sim_thread_name(t), what, 'A' + v, 'A' + v);
    else if (S.reuse)
        wf_store_release(&done_flag[v], (int64_t)gen);
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
                  "taken %d times",
                  sim_thread_name(t), what, sim_value_name(x, vb), S.pushed[v],
                  S.taken[v]);
}

int sim_op_value(const sim_op *op, int i)
{
    return i == 0 ? op->value : op->more[i - 1];
}

/* A push of one task, or of op->count at once (the pool's batch path). */
static void run_push(sim_op *op)
{
    const sim_algo *al = S.algo;
    int n = op->count > 1 ? op->count : 1;
    void *xs[SIM_MAX_PUSH_N];
    for (int i = 0; i < n; i++) {
        int *v = i == 0 ? &op->value : &op->more[i - 1];
        if (*v < 0 || i > 0)
            *v = choose_value();
        S.pushed[*v]++;
        if (SIM_GRAPH_MODEL(S.model))
            sim_plain_store(&contents[*v], (uint64_t)S.pushed[*v]);
        xs[i] = SIM_VALUE(*v);
    }
    op->status = n == 1       ? al->push(xs[0])
                 : al->push_n ? al->push_n(xs, (size_t)n)
                              : WF_EINVAL;
    for (int i = 0; op->status != 0 && i < n; i++)
        S.pushed[sim_op_value(op, i)]--; /* not pushed: still the caller's */
}

static void run_op(int t, sim_op *op)
{
    const sim_algo *al = S.algo;
    void *x = NULL;
    if (op->if_owner && !S.handed) { /* the deque never reached this thread */
        op->status = -1;
        op->done = true;
        return;
    }
    switch (op->kind) {
    case OP_PUSH: run_push(op); break;
    case OP_POP:
        op->got = al->pop();
        if (op->got) {
            note_taken(t, "pop", op->got);
            read_contents(t, "pop", op->got);
        }
        break;
    case OP_POLL:
        op->status = al->poll(&x);
        op->got = x;
        if (op->status == WF_POLL_TAKEN) {
            note_taken(t, "poll", x);
            read_contents(t, "poll", x);
        }
        break;
    case OP_CALL: op->call(t); break;
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
    void (*on_note)(const char *) = S.on_note;
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
    S.on_note = on_note;
    S.cur = -1;
    S.model = model;
    S.algo = algo;
    S.nthreads = nthreads;
    S.nprocs = nthreads;
    for (int t = 0; t < nthreads; t++)
        S.proc[t] = (sim_proc){t, false, NULL};
    arena_used = 0;
    nnames = 0;
    nobjects = 0;
    memset(contents, 0, sizeof contents);
    for (int v = 0; v < SIM_MAX_VALUES; v++) {
        done_flag[v] = 0;
        sim_register_object((uint64_t)(uintptr_t)SIM_VALUE(v), &contents[v], 8);
    }
    handoff_word = 0;
    sim_register_name(&handoff_word, "handoff");
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
