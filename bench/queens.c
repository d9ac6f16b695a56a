/* SPDX-License-Identifier: Apache-2.0 */
/* queens: n queens as Lace's and Cilk's benchmark suites write it, the
 * loop-of-spawns shape: a task per row tries every column, copies the
 * board into a fresh alloca'd array for each legal placement and spawns a
 * child on it, then syncs all the children.  Unlike nqueens.c (bit masks
 * passed by value), each child reads its parent's stack through a
 * pointer, and the board check is a loop over the rows placed so far. */
#include <alloca.h>
#include <string.h>

#include "kernel.h"

#define QN_MAX 20

typedef struct {
    int n;
    long result;
} qn_state;

/* Is the queen of the last row of a (rows 0 .. j - 1) clear of the
 * others?  The rows above it were checked when they were placed. */
static inline int qn_ok(int j, const char *a)
{
    int p = a[j - 1];
    for (int i = 0; i < j - 1; i++) {
        int d = j - 1 - i;
        if (a[i] == p || a[i] == p - d || a[i] == p + d)
            return 0;
    }
    return 1;
}

#if defined(WEFT_BENCH_TYPED)

WF_TASK(long, qn_solve, int, n, int, j, const char *, a)
{
    if (j == n)
        return 1;
    int k = 0;
    for (int i = 0; i < n; i++) {
        char *b = (char *)alloca((size_t)j + 1);
        memcpy(b, a, (size_t)j);
        b[j] = (char)i;
        if (qn_ok(j + 1, b)) {
            WF_SPAWN(qn_solve, n, j + 1, b);
            k++;
        }
    }
    long total = 0;
    while (k-- > 0)
        total += WF_SYNC(qn_solve);
    return total;
}

BENCH_KERNEL(qn_kernel)
{
    qn_state *s = (qn_state *)arg;
    BENCH_TYPED_RUN(qn_solve, &s->result, s->n, 0, "");
}

#else

typedef struct {
    BENCH_TASK
    int n, j;
    const char *a;
    long out;
} qn_frame;

static long qn_solve(int n, int j, const char *a);

static void qn_child(qn_frame *f)
{
    f->out = qn_solve(f->n, f->j, f->a);
}
BENCH_TASK_BODY(qn_child, qn_frame)

static long qn_solve(int n, int j, const char *a)
{
    if (j == n)
        return 1;
    BENCH_SCOPE;
    qn_frame kids[QN_MAX];
    int k = 0;
    for (int i = 0; i < n; i++) {
        char *b = (char *)alloca((size_t)j + 1);
        memcpy(b, a, (size_t)j);
        b[j] = (char)i;
        if (qn_ok(j + 1, b)) {
            qn_frame kid = {.n = n, .j = j + 1, .a = b};
            kids[k] = kid;
            BENCH_SPAWN(&kids[k], qn_child);
            k++;
        }
    }
    long total = 0;
    while (k > 0) { /* newest first, as the typed sync */
        k--;
        BENCH_JOIN(&kids[k], qn_child);
        total += kids[k].out;
    }
    return total;
}

BENCH_KERNEL(qn_kernel)
{
    qn_state *s = (qn_state *)arg;
    s->result = qn_solve(s->n, 0, "");
}

#endif

/* ---- untimed parts (compiled once) ------------------------------------ */
#ifdef BENCH_HARNESS
#include <stdio.h>
#include <stdlib.h>

/* Known counts (OEIS A000170). */
static const long qn_known[] = {1,     1,     0,      0,      2,   10,
                                4,     40,    92,     352,    724, 2680,
                                14200, 73712, 365596, 2279184};

static void *qn_setup(bool quick)
{
    qn_state *s = (qn_state *)calloc(1, sizeof *s);
    if (s)
        s->n = quick ? 9 : 13;
    return s;
}

static void qn_prepare(void *state)
{
    ((qn_state *)state)->result = -1;
}

static int qn_check(void *state, bool seq, char *why, size_t n)
{
    (void)seq;
    const qn_state *s = (const qn_state *)state;
    if (s->result == qn_known[s->n])
        return 0;
    snprintf(why, n, "queens(%d) = %ld, expected %ld", s->n, s->result,
             qn_known[s->n]);
    return -1;
}

static const char *qn_describe(const void *state)
{
    static char buf[32];
    snprintf(buf, sizeof buf, "n=%d", ((const qn_state *)state)->n);
    return buf;
}

const bench_workload bench_queens = {
    .name = "queens",
    .setup = qn_setup,
    .prepare = qn_prepare,
    .run_seq = qn_kernel_seq,
    .run_par = qn_kernel_par,
    .check = qn_check,
    .describe = qn_describe,
    .teardown = free,
};
#endif
