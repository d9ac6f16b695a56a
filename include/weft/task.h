/* SPDX-License-Identifier: Apache-2.0 */
/* weft — typed tasks: fork-join with the frames kept by the pool.
 *
 * A typed task is a C function declared with WF_TASK (or WF_VOID_TASK):
 *
 *     WF_TASK(long, fib, int, n)
 *     {
 *         if (n < 2)
 *             return n;
 *         WF_SPAWN(fib, n - 1);         // may run on another worker
 *         long b = WF_CALL(fib, n - 2); // a plain call, on this worker
 *         long a = WF_SYNC(fib);        // the value of the spawn above
 *         return a + b;
 *     }
 *
 *     long r;
 *     int err = WF_RUN(wf_pool_default(), fib, &r, 30);
 *
 * WF_SPAWN writes the arguments straight into a frame of the worker's own
 * (a 128-byte slot of a per-worker array), and WF_SYNC returns the value of
 * the newest spawn not yet synced: spawns and syncs nest as calls do, the
 * last spawned is the first synced.  A task that nobody stole is called
 * directly by its sync, so the compiler sees an ordinary call.  The frame
 * array's top travels as a hidden parameter of every typed task (WF_CALL
 * passes it), and every frame records its worker, so a spawn loads no
 * thread-local and a body keeps one register for the pool, not two; a
 * sync tests a mark in its own frame, set when the frame was published.
 * The frames not yet published are private, as wf_spawn's private stack
 * is: when another worker asks for work, the oldest half of them goes to
 * the worker's deque, by pointer, at its next spawn (docs/protocols.md,
 * P2 and P9), and a sync that finds its frame published waits for it as
 * wf_join does.
 *
 * Rules (the fork-join rules of wf_spawn):
 *   - WF_SPAWN, WF_CALL and WF_SYNC are used only in the body of a typed
 *     task, or in a helper function it calls that takes WF_CONTEXT
 *     (below); WF_RUN from anywhere.
 *   - WF_SYNC syncs the newest spawn of this body not yet synced, and
 *     names its task type.  A sync whose body has no spawn of its own left
 *     (a sync with nothing spawned, or one in a called body that would
 *     sync its caller's spawn) or that names another type aborts with a
 *     message naming the task: every sync that takes the slow path checks
 *     (one that waits for a thief, and all of them in debug mode,
 *     WEFT_DEBUG=1), and with WF_TASK_CHECKS defined before this header
 *     every sync does.
 *   - a body that returns with spawns not synced syncs them on its way
 *     out, newest first, and drops their values (Cilk's implicit sync): a
 *     spawn is never lost, and a body that spawns and forgets is as
 *     correct as one that syncs, only later to wait.
 *   - the arguments and the value together fit in 96 bytes (a compile-time
 *     check: eight pointers and a value fit); pass a pointer for more.
 *     Parameters are (type, name) pairs, at most eight.
 *   - a body waits for what it spawned only by WF_SYNC: its frames not yet
 *     published stay on its worker while it blocks (wf_blocking_begin
 *     publishes wf_spawn's tasks, which it can find, not these).
 *   - a body leaves by returning: no longjmp or C++ exception may leave a
 *     typed body or WF_RUN's task.  The thread would stay marked as inside
 *     the pool (a later wf_pool_destroy from it returns WF_EPERM), its
 *     frames and unsynced spawns would be left behind, and whoever syncs
 *     it would wait for ever.  Catch inside the body and return an error
 *     value (docs/pool.md, "Leaving a body").
 * Frames come in segments of WF_TASK_SEGMENT slots, in one reservation of
 * address space per worker, mapped the first time the worker runs a typed
 * body and unmapped with the pool; like a thread's stack it holds memory
 * only where frames were written.  If it cannot be mapped, or typed
 * bodies nest deeper than its segments (thousands of levels), the process
 * aborts with a message (a spawn has no error to return).
 *
 * wf_spawn/wf_join (weft/pool.h) remain for tasks whose frame the caller
 * keeps: a frame that outlives the function that spawns it, a task handed
 * from one function to another, bodies called through a pointer.  The two
 * layers mix freely on one worker.  docs/pool.md compares their costs. */
#ifndef WEFT_TASK_H
#define WEFT_TASK_H

#include "pool.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The macros below drop the comma before an empty __VA_ARGS__ (", ##"), a
 * GNU extension that gcc and clang both have; clang's -pedantic would
 * flag every use of them in the user's code. */
#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wgnu-zero-variadic-macro-arguments"
#endif

/* Frames per segment. */
#define WF_TASK_SEGMENT 1024

/* Define a typed task: its value's type, its name, then (type, name) pairs
 * of parameters (at most eight), followed by the body in braces.  The name
 * is the task's handle for WF_SPAWN, WF_SYNC, WF_CALL and WF_RUN, in the
 * file that defines it (static functions), after its definition: a task
 * may spawn itself and the tasks defined above it. */
#define WF_TASK(type, name, ...) WF__TASK_DEFS_V(type, name, ##__VA_ARGS__)
/* The same for a task with no value: WF_SYNC and WF_CALL are then void. */
#define WF_VOID_TASK(name, ...) WF__TASK_DEFS_N(name, ##__VA_ARGS__)

/* Spawn name(args...): it may run on another worker until its WF_SYNC. */
#define WF_SPAWN(name, ...) wf__s_##name(wf__tpp, ##__VA_ARGS__)
/* Wait for the newest spawn not yet synced, a name task, and return its
 * value: runs it here, as a call, if nobody stole it. */
#define WF_SYNC(name) wf__y_##name(wf__tpp, wf__tp0)
/* Call name(args...) on this worker, as a function. */
#define WF_CALL(name, ...) wf__b_##name(*wf__tpp, ##__VA_ARGS__)
/* A helper function that spawns, calls or syncs typed tasks for the body
 * that calls it (a loop that spawns the children, say) takes WF_CONTEXT as
 * its first parameter, and the body passes WF_CONTEXT_ARG:
 *
 *     static void spawn_rows(WF_CONTEXT, int lo, int hi)
 *     {
 *         for (int i = lo; i < hi; i++)
 *             WF_SPAWN(row, i);
 *     }
 *     WF_VOID_TASK(grid, int, n)
 *     {
 *         spawn_rows(WF_CONTEXT_ARG, 0, n);
 *         for (int i = 0; i < n; i++)
 *             WF_SYNC(row);
 *     }
 *
 * The helper's spawns and syncs are its caller's: the body may sync what
 * the helper spawned and the other way round, the rules above apply to
 * the two as to one body, and what neither syncs is synced when the body
 * returns.  A helper may pass WF_CONTEXT_ARG on to another; it is called
 * only from a typed body or such a helper, on the body's thread.  A
 * helper the compiler does not inline costs the body its frame top in a
 * register: it lives in memory across the call. */
#define WF_CONTEXT                                                             \
    struct wf__tslot **wf__tpp __attribute__((unused)),                        \
        struct wf__tslot *wf__tp0 __attribute__((unused))
#define WF_CONTEXT_ARG wf__tpp, wf__tp0

/* Run name(args...) in pool and wait for it and all it spawned, from any
 * thread (as wf_run): stores its value in *out (a pointer, or NULL; for a
 * void task, a char *) and returns 0, or wf_run's errors (WF_EINVAL...). */
#define WF_RUN(pool, name, out, ...) wf__g_##name((pool), (out), ##__VA_ARGS__)

#if defined(__clang__)
#pragma clang diagnostic pop
#endif

#ifdef __cplusplus
}
#endif

#include "detail/task.h" /* the machinery */

#endif /* WEFT_TASK_H */
