/* SPDX-License-Identifier: Apache-2.0 */
/* One kernel, every system.
 *
 * Every workload file (fib.c, nqueens.c, ...) holds one kernel, written
 * with the macros below, and is compiled once per system with the same
 * optimisation flags:
 *
 *   WEFT_BENCH_SEQ    C, gcc: a spawn is a plain call, a join nothing.  The
 *                     sequential baseline is the parallel kernel minus its
 *                     spawns.  This build also holds the untimed parts
 *                     (input, checks: BENCH_HARNESS) and is linked into
 *                     every system's runner, where it is the reference.
 *   (none)            C, gcc, on weft: wf_spawn / wf_join_fn.
 *   WEFT_BENCH_OMP    C, gcc -fopenmp or clang -fopenmp: `omp task` and
 *                     `omp taskwait`; loops are `omp taskloop`.
 *   WEFT_BENCH_TBB    C++, g++, oneTBB: tbb::task_group, parallel_for,
 *                     parallel_reduce (the file is included from a .cpp).
 *   WEFT_BENCH_TYPED  C, gcc, on weft's typed tasks (weft/task.h): only the
 *                     kernels with a branch of their own for it (fib,
 *                     nqueens, uts), written with WF_TASK, WF_SPAWN,
 *                     WF_CALL and WF_SYNC; their entry is BENCH_TYPED_RUN.
 *                     Everything else is as on weft (the macros below).
 *
 *   typedef struct { BENCH_TASK int n; long out; } fib_frame;
 *   static void fib_child(fib_frame *f) { ... }
 *   BENCH_TASK_BODY(fib_child, fib_frame)    // weft: a wf_task_fn adapter
 *   ...
 *   BENCH_SCOPE;                             // tbb: the task_group
 *   fib_frame a = {.n = n - 1};
 *   BENCH_SPAWN(&a, fib_child);              // seq: fib_child(&a)
 *   ...
 *   BENCH_JOIN(&a, fib_child);               // seq: nothing
 *
 * BENCH_SCOPE opens the spawning scope of a function, before its first
 * spawn (after the base case, so leaves pay nothing).  weft joins one task;
 * OpenMP's taskwait and TBB's task_group::wait join every child of the
 * scope, so there the first join after a spawn waits and later ones cost a
 * branch.  A kernel joins every child before it reads any result, so both
 * meanings give the same answer.
 *
 * BENCH_TASK goes first in a frame, before at least one other member.
 * BENCH_KERNEL(name) defines the workload's entry point: name_seq in the
 * sequential build, name_par in a parallel one (each system's runner links
 * one parallel build).  Its signature is wf_run's.
 *
 * The files are C that is also C++ (g++ -std=c++20): casts from void *,
 * designated initialisers in member order, no compound literals. */
#ifndef WEFT_BENCH_KERNEL_H
#define WEFT_BENCH_KERNEL_H

#include <string.h>

#include "bench.h"

#ifdef __cplusplus
#define restrict __restrict
#define BENCH_EXTERN_C extern "C"
#else
#define BENCH_EXTERN_C
#endif

/* Loop helpers of the OpenMP and TBB builds (bench/driver_omp.c,
 * bench/driver_tbb.cpp); same contract as wf_parallel_for/_reduce. */
typedef void (*bench_range_fn)(size_t begin, size_t end, void *ctx);
typedef void (*bench_reduce_fn)(size_t begin, size_t end, void *acc, void *ctx);
typedef void (*bench_combine_fn)(void *left, const void *right, void *ctx);
BENCH_EXTERN_C void bench_parallel_for(size_t begin, size_t end, size_t grain,
                                       bench_range_fn body, void *ctx);
BENCH_EXTERN_C void bench_parallel_reduce(size_t begin, size_t end,
                                          size_t grain, void *result,
                                          size_t size, const void *identity,
                                          bench_reduce_fn body,
                                          bench_combine_fn combine, void *ctx);
#define BENCH_REDUCE_MAX_SIZE 64

#if defined(WEFT_BENCH_SEQ)

#define BENCH_HARNESS 1 /* this build also holds the untimed parts */
#define BENCH_FN(name) name##_seq
#define BENCH_TASK /* no task: the frame holds only the kernel's data */
#define BENCH_TASK_BODY(body, frame_type) /* nothing to adapt */
#define BENCH_SCOPE ((void)0)
#define BENCH_SPAWN(frame, body) body(frame)
#define BENCH_JOIN(frame, body) ((void)(frame))
#define BENCH_PARALLEL_FOR(begin, end, grain, body, ctx)                       \
    ((void)(grain), body((begin), (end), (ctx)))
/* acc starts as the identity; one call covers the whole range. */
#define BENCH_PARALLEL_REDUCE(begin, end, grain, result, size, identity, body, \
                              combine, ctx)                                    \
    ((void)(grain), (void)(combine), memcpy((result), (identity), (size)),     \
     body((begin), (end), (result), (ctx)))

#elif defined(WEFT_BENCH_OMP)

#define BENCH_FN(name) name##_par
#define BENCH_TASK
#define BENCH_TASK_BODY(body, frame_type)
#define BENCH_SCOPE int bench_pending_ = 0
/* The frame lives in the parent's stack frame, which outlives the task:
 * the parent joins before it returns. */
#define BENCH_SPAWN(frame, body)                                               \
    do {                                                                       \
        __typeof__(frame) bench_f_ = (frame);                                  \
        _Pragma("omp task firstprivate(bench_f_)") body(bench_f_);             \
        bench_pending_ = 1;                                                    \
    } while (0)
#define BENCH_JOIN(frame, body)                                                \
    do {                                                                       \
        (void)(frame);                                                         \
        if (bench_pending_) {                                                  \
            _Pragma("omp taskwait") bench_pending_ = 0;                        \
        }                                                                      \
    } while (0)

#elif defined(WEFT_BENCH_TBB)

#include <oneapi/tbb/task_group.h>

#define BENCH_FN(name) name##_par
#define BENCH_TASK
#define BENCH_TASK_BODY(body, frame_type)
#define BENCH_SCOPE                                                            \
    tbb::task_group bench_tg_;                                                 \
    bool bench_pending_ = false
#define BENCH_SPAWN(frame, body)                                               \
    do {                                                                       \
        auto bench_f_ = (frame);                                               \
        bench_tg_.run([bench_f_] { body(bench_f_); });                         \
        bench_pending_ = true;                                                 \
    } while (0)
#define BENCH_JOIN(frame, body)                                                \
    do {                                                                       \
        (void)(frame);                                                         \
        if (bench_pending_) {                                                  \
            bench_tg_.wait();                                                  \
            bench_pending_ = false;                                            \
        }                                                                      \
    } while (0)

#endif

/* The peers' loops: bench_parallel_for / _reduce, written once per peer. */
#if defined(WEFT_BENCH_OMP) || defined(WEFT_BENCH_TBB)
#define BENCH_PARALLEL_FOR(begin, end, grain, body, ctx)                       \
    bench_parallel_for((begin), (end), (grain), (body), (ctx))
#define BENCH_PARALLEL_REDUCE(begin, end, grain, result, size, identity, body, \
                              combine, ctx)                                    \
    bench_parallel_reduce((begin), (end), (grain), (result), (size),           \
                          (identity), (body), (combine), (ctx))
#endif

#if !defined(WEFT_BENCH_SEQ) && !defined(WEFT_BENCH_OMP) &&                    \
    !defined(WEFT_BENCH_TBB)
/* weft */

#include <weft.h>

#define BENCH_FN(name) name##_par
#define BENCH_TASK wf_task task; /* first member: the body casts back */
/* The kernel's child takes its frame; weft calls a wf_task_fn.  The
 * adapter is a cast, so the compiler sees through it. */
#define BENCH_TASK_BODY(body, frame_type)                                      \
    static void body##_task(wf_task *t)                                        \
    {                                                                          \
        body((frame_type *)t);                                                 \
    }
#define BENCH_SCOPE ((void)0)
#define BENCH_SPAWN(frame, body) wf_spawn(&(frame)->task, body##_task)
/* wf_join_fn names the body, so a join of a task nobody stole is a direct
 * call the compiler can inline, as in the sequential build. */
#define BENCH_JOIN(frame, body) wf_join_fn(&(frame)->task, body##_task)
/* Kernels run inside wf_run, so the calling worker's pool is the pool. */
#define BENCH_PARALLEL_FOR(begin, end, grain, body, ctx)                       \
    wf_parallel_for(wf_current_pool(), (begin), (end), (grain), (body), (ctx))
#define BENCH_PARALLEL_REDUCE(begin, end, grain, result, size, identity, body, \
                              combine, ctx)                                    \
    wf_parallel_reduce(wf_current_pool(), (begin), (end), (grain), (result),   \
                       (size), (identity), (body), (combine), (ctx))

#if defined(WEFT_BENCH_TYPED)
#include "system.h"
/* A typed kernel's entry runs on the runner's main thread, not inside
 * wf_run (driver_weft.c), and enters the runner's pool with one WF_RUN, as
 * a program's main() does: the same single wf_run from the main thread as
 * weft's runs.  Its error goes to the driver, which reports it. */
#define BENCH_TYPED_RUN(name, out, ...)                                        \
    bench_weft_typed_done(WF_RUN(bench_weft_pool(), name, out, __VA_ARGS__))
#endif

#endif

/* For a pure recursive kernel (fib): gcc -O2 proves it pure, inlines it
 * into itself and merges the repeated calls, so the sequential build would
 * compute a much smaller tree than the one the parallel build spawns.  Every
 * build marks such a kernel noinline, so each does one real call per node. */
#define BENCH_NO_FOLD __attribute__((noinline))

/* The parallel entry is weak where it is referenced: a runner that links
 * no parallel build (seq) or a system without this workload leaves it
 * NULL.  In the defining build the definition wins. */
#define BENCH_KERNEL(name)                                                     \
    BENCH_EXTERN_C void name##_seq(void *arg);                                 \
    BENCH_EXTERN_C void name##_par(void *arg) __attribute__((weak));           \
    BENCH_EXTERN_C void BENCH_FN(name)(void *arg)

#endif /* WEFT_BENCH_KERNEL_H */
