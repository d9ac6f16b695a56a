/* One kernel, two builds.
 *
 * Every workload file (fib.c, nqueens.c, ...) is compiled twice with the
 * same compiler and flags: once as is, running on weft, and once with
 * -DWEFT_BENCH_SEQ, where a spawn is a plain call of the child and a join is
 * nothing.  The sequential baseline is then exactly the parallel kernel
 * minus its spawns: no task field in the frames, no deque, no pool.  That
 * makes T1/Tseq the true cost of weft's spawn/join and nothing else.
 *
 * Kernel code uses only the macros below:
 *
 *   typedef struct { BENCH_TASK; int n; long out; } fib_frame;
 *   static void fib_child(fib_frame *f) { ... }
 *   BENCH_TASK_BODY(fib_child, fib_frame)    // weft: a wf_task_fn adapter
 *   ...
 *   fib_frame a = {.n = n - 1};
 *   BENCH_SPAWN(&a, fib_child);              // seq: fib_child(&a)
 *   ...
 *   BENCH_JOIN(&a);                          // seq: nothing
 *
 * and BENCH_FN(name) to give exported functions a per-build name
 * (name_seq / name_weft), so both objects link into one runner. */
#ifndef WEFT_BENCH_KERNEL_H
#define WEFT_BENCH_KERNEL_H

#include "bench.h"

#ifdef WEFT_BENCH_SEQ

#define BENCH_FN(name) name##_seq
#define BENCH_TASK char bench_no_task_ /* C11 forbids an empty member list */
#define BENCH_TASK_BODY(body, frame_type) /* nothing to adapt */
#define BENCH_SPAWN(frame, body) body(frame)
#define BENCH_JOIN(frame) ((void)(frame))
#define BENCH_PARALLEL_FOR(begin, end, grain, body, ctx)                     \
    ((void)(grain), body((begin), (end), (ctx)))

#else

#include <weft.h>

#define BENCH_FN(name) name##_weft
#define BENCH_TASK wf_task task /* first member: the body casts back */
/* The kernel's child takes its frame; weft calls a wf_task_fn.  The
 * adapter is a cast, so the compiler sees through it. */
#define BENCH_TASK_BODY(body, frame_type)                                    \
    static void body##_task(wf_task *t) { body((frame_type *)t); }
#define BENCH_SPAWN(frame, body) wf_spawn(&(frame)->task, body##_task)
#define BENCH_JOIN(frame) wf_join(&(frame)->task)
/* Kernels run inside wf_run, so the calling worker's pool is the pool. */
#define BENCH_PARALLEL_FOR(begin, end, grain, body, ctx)                     \
    wf_parallel_for(wf_current_pool(), (begin), (end), (grain), (body), (ctx))

#endif

#endif /* WEFT_BENCH_KERNEL_H */
