/* SPDX-License-Identifier: Apache-2.0 */
/* nqueens: count the placements of n queens, one task per legal column at
 * every level (leaves included), the children's counts summed after all
 * are joined.  A wide, irregular tree of small tasks: more spawns per join
 * than fib and a real (if small) amount of work in each. */
#include "kernel.h"

#define NQ_MAX 20 /* a row has at most this many legal columns */

typedef struct {
    int n;
    long result;
} nq_state;

#if defined(WEFT_BENCH_TYPED)

/* The board is three bit masks: columns taken, and the squares of the next
 * row attacked along each diagonal.  A task per legal column, synced newest
 * first, as below. */
WF_TASK(long, nq_solve, unsigned, cols, unsigned, left, unsigned, right, int,
        row, int, n)
{
    if (row == n)
        return 1;
    unsigned all = (1u << n) - 1;
    unsigned free_cols = all & ~(cols | left | right);
    int k = 0;
    for (; free_cols; k++) {
        unsigned bit = free_cols & -free_cols;
        free_cols -= bit;
        WF_SPAWN(nq_solve, cols | bit, ((left | bit) << 1) & all,
                 (right | bit) >> 1, row + 1, n);
    }
    long total = 0;
    while (k-- > 0)
        total += WF_SYNC(nq_solve);
    return total;
}

BENCH_KERNEL(nq_kernel)
{
    nq_state *s = (nq_state *)arg;
    BENCH_TYPED_RUN(nq_solve, &s->result, 0u, 0u, 0u, 0, s->n);
}

#else

/* The board is three bit masks: columns taken, and the squares of the next
 * row attacked along each diagonal. */
typedef struct {
    BENCH_TASK
    unsigned cols, left, right;
    int row, n;
    long out;
} nq_frame;

static long nq_solve(unsigned cols, unsigned left, unsigned right, int row,
                     int n);

static void nq_child(nq_frame *f)
{
    f->out = nq_solve(f->cols, f->left, f->right, f->row, f->n);
}
BENCH_TASK_BODY(nq_child, nq_frame)

static long nq_solve(unsigned cols, unsigned left, unsigned right, int row,
                     int n)
{
    if (row == n)
        return 1;
    unsigned all = (1u << n) - 1;
    unsigned free_cols = all & ~(cols | left | right);
    BENCH_SCOPE;
    nq_frame kids[NQ_MAX];
    int k = 0;
    while (free_cols) {
        unsigned bit = free_cols & -free_cols;
        free_cols -= bit;
        nq_frame kid = {.cols = cols | bit,
                        .left = ((left | bit) << 1) & all,
                        .right = (right | bit) >> 1,
                        .row = row + 1,
                        .n = n};
        kids[k] = kid;
        BENCH_SPAWN(&kids[k], nq_child);
        k++;
    }
    long total = 0;
    while (k > 0) { /* newest first: weft's join fast path wants LIFO */
        k--;
        BENCH_JOIN(&kids[k], nq_child);
        total += kids[k].out;
    }
    return total;
}

BENCH_KERNEL(nq_kernel)
{
    nq_state *s = (nq_state *)arg;
    s->result = nq_solve(0, 0, 0, 0, s->n);
}

#endif

/* ---- untimed parts (compiled once) ------------------------------------ */
#ifdef BENCH_HARNESS
#include <stdio.h>
#include <stdlib.h>

/* Known counts (OEIS A000170), an answer independent of both builds. */
static const long nq_known[] = {
    1,   1,   0,    0,     2,     10,     4,       40,       92,
    352, 724, 2680, 14200, 73712, 365596, 2279184, 14772512, 95815104};

static void *nq_setup(bool quick)
{
    nq_state *s = calloc(1, sizeof *s);
    if (s)
        s->n = quick ? 10 : 14;
    return s;
}

static void nq_prepare(void *state)
{
    ((nq_state *)state)->result = -1;
}

static int nq_check(void *state, bool seq, char *why, size_t n)
{
    (void)seq;
    const nq_state *s = state;
    long want = nq_known[s->n];
    if (s->result == want)
        return 0;
    snprintf(why, n, "nqueens(%d) = %ld, expected %ld", s->n, s->result, want);
    return -1;
}

static const char *nq_describe(const void *state)
{
    static char buf[32];
    snprintf(buf, sizeof buf, "n=%d", ((const nq_state *)state)->n);
    return buf;
}

const bench_workload bench_nqueens = {
    .name = "nqueens",
    .setup = nq_setup,
    .prepare = nq_prepare,
    .run_seq = nq_kernel_seq,
    .run_par = nq_kernel_par,
    .check = nq_check,
    .describe = nq_describe,
    .teardown = free,
};
#endif
