/* SPDX-License-Identifier: Apache-2.0 */
/* nqueens: count the ways to place n queens on an n x n board so that no
 * two attack each other.  The pattern to copy: a task per choice, a
 * variable number of them, all spawned, then all joined, newest first.
 *
 * Build: cc -O2 nqueens.c $(pkg-config --cflags --libs weft)
 * Run:   ./nqueens 12      prints  nqueens(12) = 14200 */
#include <stdio.h>
#include <stdlib.h>
#include <weft.h>

#define MAX_N 16

/* The board is three bit masks over the columns of the next row: columns
 * already taken, and squares attacked along each diagonal.  Moving to the
 * next row shifts the diagonals by one column. */
typedef struct {
    wf_task task; /* first member: the body casts back to the frame */
    int n;
    unsigned cols, left, right;
    long solutions; /* result, read after the join */
} queens_frame;

static long count(int n, unsigned cols, unsigned left, unsigned right);

static void queens_task(wf_task *t)
{
    queens_frame *f = (queens_frame *)t;
    f->solutions = count(f->n, f->cols, f->left, f->right);
}

static long count(int n, unsigned cols, unsigned left, unsigned right)
{
    unsigned all = (1u << n) - 1;
    if (cols == all)
        return 1; /* a queen in every row */

    /* One child per free square of this row.  The frames live in this
     * function's stack frame, which outlives them: we join before we
     * return. */
    queens_frame child[MAX_N];
    int k = 0;
    for (unsigned free = all & ~(cols | left | right); free; free &= free - 1) {
        unsigned bit = free & -free; /* lowest free column */
        child[k] = (queens_frame){.n = n,
                                  .cols = cols | bit,
                                  .left = ((left | bit) << 1) & all,
                                  .right = (right | bit) >> 1};
        wf_spawn(&child[k].task, queens_task); /* idle workers may steal it */
        k++;
    }

    /* Join in reverse order of spawning.  A task nobody stole is still on
     * top of this worker's stack, and joining it there is a plain call
     * (through t->fn; wf_join_fn(t, queens_task) makes it a direct one). */
    long total = 0;
    while (k-- > 0) {
        wf_join(&child[k].task);
        total += child[k].solutions;
    }
    return total;
}

typedef struct {
    int n;
    long solutions;
} job;

/* wf_run's entry point: runs on a worker, so it may spawn. */
static void solve(void *arg)
{
    job *j = arg;
    j->solutions = count(j->n, 0, 0, 0);
}

int main(int argc, char **argv)
{
    job j = {.n = argc > 1 ? atoi(argv[1]) : 10};
    if (j.n < 1 || j.n > MAX_N) {
        fprintf(stderr, "usage: nqueens [n], 1 <= n <= %d\n", MAX_N);
        return 2;
    }
    int err = wf_run(wf_pool_default(), solve, &j);
    if (err) {
        fprintf(stderr, "wf_run: %s\n", wf_strerror(err));
        return 1;
    }
    printf("nqueens(%d) = %ld\n", j.n, j.solutions);

    /* Known answers (OEIS A000170), so a run checks itself. */
    static const long known[MAX_N + 1] = {
        1,   1,   0,    0,     2,     10,     4,       40,      92,
        352, 724, 2680, 14200, 73712, 365596, 2279184, 14772512};
    if (j.solutions != known[j.n]) {
        fprintf(stderr, "wrong: expected %ld\n", known[j.n]);
        return 1;
    }
    return 0;
}
