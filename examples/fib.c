/* SPDX-License-Identifier: Apache-2.0 */
/* fib: the 30-second example.  Spawn one branch, compute the other, join.
 * Build: cc -O2 fib.c $(pkg-config --cflags --libs weft) */
#include <stdio.h>
#include <stdlib.h>
#include <weft.h>

typedef struct {
    wf_task task; /* first member: the body casts back to the frame */
    int n;
    long result;
} fib_frame;

static long fib(int n);

static void fib_task(wf_task *t)
{
    fib_frame *f = (fib_frame *)t;
    f->result = fib(f->n);
}

static long fib(int n)
{
    if (n < 2)
        return n;
    fib_frame child; /* spawn sets the task's fields: no zeroing */
    child.n = n - 1;
    wf_spawn(&child.task, fib_task);   /* may run on another worker */
    long other = fib(n - 2);           /* meanwhile, do the other half */
    wf_join_fn(&child.task, fib_task); /* a direct call if nobody stole it */
    return child.result + other;
}

typedef struct {
    int n;
    long result;
} fib_job;

static void fib_root(void *arg)
{
    fib_job *job = arg;
    job->result = fib(job->n);
}

int main(int argc, char **argv)
{
    fib_job job = {.n = argc > 1 ? atoi(argv[1]) : 30};
    int err = wf_run(wf_pool_default(), fib_root, &job);
    if (err) {
        fprintf(stderr, "wf_run: %s\n", wf_strerror(err));
        return 1;
    }
    printf("fib(%d) = %ld\n", job.n, job.result);
    return 0;
}
