/* One kernel, two builds.
 *
 * Every workload file (fib.c, nqueens.c, ...) is compiled twice with the
 * same compiler and flags: once as is, running on weft, and once with
 * -DWEFT_BENCH_SEQ, where a spawn is a plain call of the child and a join is
 * nothing.  The sequential baseline is then exactly the parallel kernel
 * minus its spawns: no task field in the frames, no deque, no pool.  So
 * T1/Tseq is what the spawns cost, including what they keep the compiler
 * from doing (gcc -O2 inlines the sequential fib several levels deep).
 *
 * Kernel code uses only the macros below:
 *
 *   typedef struct { BENCH_TASK int n; long out; } fib_frame;
 *   static void fib_child(fib_frame *f) { ... }
 *   BENCH_TASK_BODY(fib_child, fib_frame)    // weft: a wf_task_fn adapter
 *   ...
 *   fib_frame a = {.n = n - 1};
 *   BENCH_SPAWN(&a, fib_child);              // seq: fib_child(&a)
 *   ...
 *   BENCH_JOIN(&a, fib_child);               // seq: nothing
 *
 * BENCH_TASK goes first in a frame, before at least one other member.
 * BENCH_KERNEL(name) defines the workload's entry point, name_seq in one
 * build and name_weft in the other, so both objects link into one runner.
 * Its signature is wf_run's: the runner calls name_seq(state) directly and
 * wf_run(pool, name_weft, state). */
#ifndef WEFT_BENCH_KERNEL_H
#define WEFT_BENCH_KERNEL_H

#include <stdatomic.h>
#include <string.h>

#include "bench.h"

#ifdef WEFT_BENCH_SEQ

#define BENCH_FN(name) name##_seq
#define BENCH_TASK /* no task: the frame holds only the kernel's data */
#define BENCH_TASK_BODY(body, frame_type) /* nothing to adapt */
#define BENCH_SPAWN(frame, body) body(frame)
#define BENCH_JOIN(frame, body) ((void)(frame))
#define BENCH_PARALLEL_FOR(begin, end, grain, body, ctx)                     \
    ((void)(grain), body((begin), (end), (ctx)))
/* acc starts as the identity; one call covers the whole range. */
#define BENCH_PARALLEL_REDUCE(begin, end, grain, result, size, identity,     \
                              body, combine, ctx)                            \
    ((void)(grain), (void)(combine), memcpy((result), (identity), (size)),   \
     body((begin), (end), (result), (ctx)))

#else

#include <weft.h>

#define BENCH_FN(name) name##_weft
#define BENCH_TASK wf_task task; /* first member: the body casts back */
/* The kernel's child takes its frame; weft calls a wf_task_fn.  The
 * adapter is a cast, so the compiler sees through it. */
#define BENCH_TASK_BODY(body, frame_type)                                    \
    static void body##_task(wf_task *t) { body((frame_type *)t); }
#define BENCH_SPAWN(frame, body) wf_spawn(&(frame)->task, body##_task)
/* wf_join_fn names the body, so a join of a task nobody stole is a direct
 * call the compiler can inline, as in the sequential build. */
#define BENCH_JOIN(frame, body) wf_join_fn(&(frame)->task, body##_task)
/* Kernels run inside wf_run, so the calling worker's pool is the pool. */
#define BENCH_PARALLEL_FOR(begin, end, grain, body, ctx)                     \
    wf_parallel_for(wf_current_pool(), (begin), (end), (grain), (body), (ctx))
#define BENCH_PARALLEL_REDUCE(begin, end, grain, result, size, identity,     \
                              body, combine, ctx)                            \
    wf_parallel_reduce(wf_current_pool(), (begin), (end), (grain), (result), \
                       (size), (identity), (body), (combine), (ctx))

#endif

/* For a pure recursive kernel (fib): gcc -O2 proves it pure, inlines it
 * into itself and merges the repeated calls, so the sequential build would
 * compute a much smaller tree than the one the parallel build spawns.  Both
 * builds mark such a kernel noipa, so each does one real call per node. */
#define BENCH_NO_FOLD __attribute__((noinline))

#define BENCH_KERNEL(name)                                                   \
    void name##_seq(void *arg);                                              \
    void name##_weft(void *arg);                                             \
    void BENCH_FN(name)(void *arg)

#endif /* WEFT_BENCH_KERNEL_H */
