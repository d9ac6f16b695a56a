/* SPDX-License-Identifier: Apache-2.0 */
/* The checks at the end of a complete execution: every task taken once or
 * still in the deque, a consistent final state, and the order in which the
 * owner and the thieves took the tasks.  They read the operations' results
 * and drain what is left with the owner's own code, in direct mode. */
#include <string.h>

#include "core/algo.h"
#include "core/machine.h"
#include "search/checks.h"
#include "weft/deque.h"

/* ---- order: LIFO for the owner, FIFO for thieves ----------------------- */

/* Values are told apart only without --reuse (each pushed once).  The
 * deque takes indices: thieves in increasing order at base, the owner the
 * newest at top.  So when the owner pops x, every value it pushed after x
 * was popped by the owner before (a thief cannot take a newer index while
 * x is there); when a thief takes y, every older value was taken, and not
 * by an owner pop after y was pushed; one thief takes in push order. */
static int push_rank[SIM_MAX_VALUES], pop_at[SIM_MAX_VALUES];

/* The owner takes got: it must be the newest of the values it pushed and
 * has not popped itself (stolen ones stay in that stack, below). */
static void owner_takes(int *stack, int *n, int got)
{
    int k = *n - 1;
    while (k >= 0 && stack[k] != got)
        k--;
    if (k < 0)
        return;
    if (k != *n - 1)
        sim_failf("not LIFO: the owner's pop returned %c while %c, pushed "
                  "after it, was still in the deque",
                  'A' + got, 'A' + stack[*n - 1]);
    memmove(&stack[k], &stack[k + 1], sizeof(int) * (size_t)(*n - 1 - k));
    (*n)--;
}

/* The owner's operations in order: thread 0's, then those of the thread
 * the deque was handed to (a change of owner), if any. */
static const sim_op *owner_op(int i)
{
    const sim_thread *o = &S.th[0];
    if (i < o->nprog)
        return &o->prog[i];
    i -= o->nprog;
    if (S.handoff_thread > 0 && i < S.th[S.handoff_thread].nprog)
        return &S.th[S.handoff_thread].prog[i];
    return NULL;
}

static void check_owner_lifo(const int *drained, int ndrained)
{
    int stack[SIM_MAX_VALUES], n = 0;
    const sim_op *op;
    for (int i = 0; (op = owner_op(i)) != NULL && !S.fail[0]; i++) {
        for (int j = 0;
             op->kind == OP_PUSH && op->status == 0 &&
             j < (op->count > 1 ? op->count : 1) && n < SIM_MAX_VALUES;
             j++)
            stack[n++] = sim_op_value(op, j);
        if (op->kind == OP_POP && sim_value_index(op->got) >= 0)
            owner_takes(stack, &n, sim_value_index(op->got));
    }
    for (int d = 0; d < ndrained && !S.fail[0]; d++) /* the final drain */
        owner_takes(stack, &n, drained[d]);
}

static void check_thief_fifo(const int *left)
{
    for (int t = 1; t < S.nthreads && !S.fail[0]; t++) {
        int last = -1;
        if (t == S.handoff_thread)
            continue;
        for (int i = 0; i < S.th[t].nprog; i++) {
            const sim_op *op = &S.th[t].prog[i];
            int y = op->status == WF_POLL_TAKEN ? sim_value_index(op->got) : -1;
            if (y < 0)
                continue;
            if (last >= 0 && push_rank[y] < push_rank[last])
                sim_failf("not FIFO: %s took %c and then %c, which was pushed "
                          "before it",
                          sim_thread_name(t), 'A' + last, 'A' + y);
            last = y;
            for (int x = 0; x < SIM_MAX_VALUES && !S.fail[0]; x++) {
                if (push_rank[x] < 0 || push_rank[x] > push_rank[y])
                    continue;
                if (left[x] || (pop_at[x] >= 0 && pop_at[x] > push_rank[y]))
                    sim_failf("not FIFO: %s took %c while %c, pushed before "
                              "it, was still in the deque",
                              sim_thread_name(t), 'A' + y, 'A' + x);
            }
        }
    }
}

/* push_rank: the owner's op index of each value's push; pop_at: of the
 * owner's pop that returned it (-1: none). */
static void order_checks(const int *left, const int *drained, int ndrained)
{
    if (S.reuse || S.nthreads == 0)
        return;
    for (int v = 0; v < SIM_MAX_VALUES; v++)
        push_rank[v] = pop_at[v] = -1;
    int rank = 0;
    const sim_op *op;
    for (int i = 0; (op = owner_op(i)) != NULL; i++) {
        for (int j = 0; op->kind == OP_PUSH && op->status == 0 &&
                        j < (op->count > 1 ? op->count : 1);
             j++)
            push_rank[sim_op_value(op, j)] = 2 * (rank++);
        if (op->kind == OP_POP && sim_value_index(op->got) >= 0)
            pop_at[sim_value_index(op->got)] = 2 * rank - 1;
    }
    check_owner_lifo(drained, ndrained);
    check_thief_fifo(left);
}

void explore_final_check(void)
{
    if (S.fail[0] || !S.algo || !S.base_addr)
        return;
    int64_t b = (int64_t)sim_mem_read(S.base_addr);
    int64_t t = (int64_t)sim_mem_read(S.top_addr);
    int left[SIM_MAX_VALUES] = {0}, nleft = 0, drained[65];
    char vb[24];
    /* What is still in the deque, taken by the owner with nobody else
     * running (its own code, in direct mode: no steps, no log). */
    for (void *x; nleft <= 64 && (x = S.algo->pop()) != NULL; nleft++) {
        int v = sim_value_index(x);
        if (v < 0) {
            sim_failf("the deque still holds %s, which was never pushed",
                      sim_value_name(x, vb));
            return;
        }
        left[v]++;
        drained[nleft] = v;
    }
    /* Every value's count, all problems in one message. */
    char msg[sizeof S.fail] = "";
    size_t k = 0;
    for (int v = 0; v < SIM_MAX_VALUES && k < sizeof msg; v++) {
        int got = S.taken[v] + left[v];
        if (got != S.pushed[v])
            k += (size_t)snprintf(msg + k, sizeof msg - k,
                                  "%stask %c %s: pushed %d time(s), taken %d, "
                                  "left in the deque %d",
                                  k ? "; " : "", 'A' + v,
                                  got < S.pushed[v] ? "lost" : "duplicated",
                                  S.pushed[v], S.taken[v], left[v]);
    }
    if (msg[0]) {
        sim_failf("%s", msg);
        return;
    }
    if (t - b != nleft && !(nleft == 0 && t <= b))
        sim_failf("final state inconsistent: top - base = %lld but the deque "
                  "holds %d task(s)",
                  (long long)(t - b), nleft);
    order_checks(left, drained, nleft);
}
