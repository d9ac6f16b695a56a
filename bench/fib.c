/* SPDX-License-Identifier: Apache-2.0 */
/* fib: naive Fibonacci with a spawn at every call.  Almost no work per
 * task, so it measures spawn/join overhead and little else: T1/Tseq is the
 * price of a task.  weft-typed (WEFT_BENCH_TYPED) runs the same tree with
 * typed tasks (weft/task.h), a spawn at every call as well. */
#include "kernel.h"

typedef struct {
    int n;
    long result;
} fib_state;

#if defined(WEFT_BENCH_TYPED)

WF_TASK(long, fib, int, n)
{
    if (n < 2)
        return n;
    WF_SPAWN(fib, n - 1);
    long b = WF_CALL(fib, n - 2);
    return WF_SYNC(fib) + b;
}

BENCH_KERNEL(fib_kernel)
{
    fib_state *s = (fib_state *)arg;
    BENCH_TYPED_RUN(fib, &s->result, s->n);
}

#else

typedef struct {
    BENCH_TASK
    int n;
    long out;
} fib_frame;

BENCH_NO_FOLD static long fib(int n);

static void fib_child(fib_frame *f)
{
    f->out = fib(f->n);
}
BENCH_TASK_BODY(fib_child, fib_frame)

BENCH_NO_FOLD static long fib(int n)
{
    if (n < 2)
        return n;
    BENCH_SCOPE;
    fib_frame a = {.n = n - 1};
    BENCH_SPAWN(&a, fib_child);
    long b = fib(n - 2);
    BENCH_JOIN(&a, fib_child);
    return a.out + b;
}

BENCH_KERNEL(fib_kernel)
{
    fib_state *s = (fib_state *)arg;
    s->result = fib(s->n);
}

#endif

/* ---- untimed parts (compiled once) ------------------------------------ */
#ifdef BENCH_HARNESS
#include <stdio.h>
#include <stdlib.h>

static void *fib_setup(bool quick)
{
    fib_state *s = calloc(1, sizeof *s);
    if (s)
        s->n = quick ? 27 : 37;
    return s;
}

static void fib_prepare(void *state)
{
    ((fib_state *)state)->result = -1;
}

static long fib_iterative(int n)
{
    long a = 0, b = 1;
    for (int i = 0; i < n; i++) {
        long next = a + b;
        a = b;
        b = next;
    }
    return a;
}

static int fib_check(void *state, bool seq, char *why, size_t n)
{
    (void)seq;
    const fib_state *s = state;
    long want = fib_iterative(s->n);
    if (s->result == want)
        return 0;
    snprintf(why, n, "fib(%d) = %ld, expected %ld", s->n, s->result, want);
    return -1;
}

static const char *fib_describe(const void *state)
{
    static char buf[32];
    snprintf(buf, sizeof buf, "n=%d", ((const fib_state *)state)->n);
    return buf;
}

const bench_workload bench_fib = {
    .name = "fib",
    .setup = fib_setup,
    .prepare = fib_prepare,
    .run_seq = fib_kernel_seq,
    .run_par = fib_kernel_par,
    .check = fib_check,
    .describe = fib_describe,
    .teardown = free,
};
#endif
