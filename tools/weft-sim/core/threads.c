/* SPDX-License-Identifier: Apache-2.0 */
/* weft-sim's simulated threads: each runs its program of operations (a
 * push, a pop, a poll, or a body of its own) in a coroutine, and the
 * checks made as each operation returns; a fresh execution starts here.
 * The memory machine is in machine.c, the accesses in access.c. */
#include <string.h>

#include "core/threads.h"
#include "weft/deque.h"

int sim_spin_limit = 2;

bool sim_spin_ok(int *iterations)
{
    return ++*iterations <= sim_spin_limit;
}

void sim_handoff_give(int thread)
{
    (void)thread;
    wf_store_release(sim_handoff_word(), 1);
}

void sim_handoff_take(int thread)
{
    (void)thread;
    S.handed = wf_load_acquire(sim_handoff_word()) == 1;
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
            if (graph ? wf_load_acquire(sim_task_done(v)) == S.pushed[v]
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
    uint64_t gen = sim_plain_load(sim_task_contents(v));
    if (gen == 0)
        sim_failf("%s's %s took %c but read %c's contents as they were "
                  "before the push wrote them (stale)",
                  sim_thread_name(t), what, 'A' + v, 'A' + v);
    else if (S.reuse)
        wf_store_release(sim_task_done(v), (int64_t)gen);
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
            sim_plain_store(sim_task_contents(*v), (uint64_t)S.pushed[*v]);
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
    sim_memory_reset();
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
