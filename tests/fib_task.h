/* SPDX-License-Identifier: Apache-2.0 */
/* The fork-join fib used by several tests: spawn n-1, compute n-2, join.
 * fib(n) spawns exactly fib(n+1) - 1 tasks, which the stats test uses.
 * A test may define FIB_TASK_HOOK() before including this: every spawned
 * task's body calls it first. */
#ifndef WEFT_TEST_FIB_TASK_H
#define WEFT_TEST_FIB_TASK_H

#include <string.h>

#include "check.h"

typedef struct {
    wf_task task; /* first member: the body casts back to the frame */
    int n;
    long out;
} fib_frame;

static long fib_par(int n);

static void fib_body(wf_task *t)
{
    fib_frame *f = (fib_frame *)t;
#ifdef FIB_TASK_HOOK
    FIB_TASK_HOOK();
#endif
    f->out = fib_par(f->n);
}

static long fib_par(int n)
{
    if (n < 2)
        return n;
    fib_frame a;
    /* Garbage, not zeros: spawn must write every field a join or a thief
     * reads. */
    memset(&a, 0xa5, sizeof a);
    a.n = n - 1;
    CHECK_OK(wf_spawn(&a.task, fib_body));
    long b = fib_par(n - 2);
    CHECK_OK(wf_join(&a.task));
    return a.out + b;
}

static inline long fib_seq(int n)
{
    long a = 0, b = 1;
    for (int i = 0; i < n; i++) {
        long c = a + b;
        a = b;
        b = c;
    }
    return a;
}

/* wf_run entry: arg is a fib_job. */
typedef struct {
    int n;
    long out;
} fib_job;

static inline void fib_root(void *arg)
{
    fib_job *j = arg;
    j->out = fib_par(j->n);
}

/* Run fib(n) on pool and check the result. */
static inline void check_fib_on(wf_pool *pool, int n)
{
    fib_job j = {.n = n, .out = -1};
    CHECK_OK(wf_run(pool, fib_root, &j));
    CHECK_MSG(j.out == fib_seq(n), "fib(%d) = %ld, expected %ld", n, j.out,
              fib_seq(n));
}

#endif /* WEFT_TEST_FIB_TASK_H */
