/* SPDX-License-Identifier: Apache-2.0 */
/* Typed frames (rule P9 of docs/protocols.md) on the library's own code.
 * The frame is include/weft/detail/task.h's wf__tslot; it is published by
 * src/deque.c's push, stolen by its poll, popped back by its pop, and
 * completed and waited for by src/internal/pool/done.h's steps on the
 * task's done_ word (wf__done_mark, wf__done_seen, wf__done_announce),
 * all compiled unchanged with -DWF_SIM, with src/pool/evcount.c's futex
 * calls.  They are driven as typed.c (publish_frames), runner.c
 * (run_task), notify.c (wf__task_complete), join.c (tsync_marked,
 * wait_own, help_until_done, finish_join) and park.c (wf__task_wait)
 * drive them:
 *
 *   p9   owner: a typed spawn writes the frame's argument and runner
 *        (plain writes: the frame is private); a thief's request makes
 *        publish_frames mark it (WF__TSLOT_SLOW) and push it
 *        (wf_deque_push_n).  Its sync pops its own deque: the frame back,
 *        it runs it there (wait_own); gone, it tests done_
 *        (help_until_done), announces WAITING and sleeps on done_
 *        (wf__task_wait).  Once it has seen the frame done it reads the
 *        value, resets the frame (finish_join, tsync_marked) and writes
 *        the argument of its next spawn there: the frame is private again.
 *        T1, a thief, polls the owner's deque once; with the frame,
 *        run_task reads its flags and runner, the runner reads the
 *        argument and writes the value, and wf__task_complete marks it
 *        done and wakes a joiner asleep on done_.
 *
 * The thief reads the argument the spawn wrote (not a stale 0, nor the
 * next spawn's), the mark and the runner; the owner reads the thief's
 * value (a stale read under the hardware models, a data race under
 * c11); the frame runs exactly once; no joiner sleeps for good on a done
 * task. */
#include <limits.h>
#include <string.h>

#include "algos/evcount.h"
#include "algos/weft_deque.h"
#include "core/access.h"
#include "core/threads.h"
#include "weft/task.h"

#include "internal/pool/done.h"
#include "internal/pool/evcount.h"

/* What WF_TASK(long, name, long, n) lays out in a frame's data. */
typedef struct frame_args {
    long wf__res;
    long n;
} frame_args;

enum { ARG = 20, NEXT_ARG = 21, VALUE = ARG + 1 };

static wf__tslot frame;
#define ARGS ((frame_args *)frame.data)
static int runs, ran_by;     /* the frame's runs; who ran it last */
static long seen_arg = -1;   /* the runner's read of the argument */
static long seen_value = -1; /* the owner's read of the value */
static bool stolen, synced;  /* T1 took the frame; the sync returned */

/* The frame's runner (wf__r_NAME): never called, its address names the
 * task type. */
static void runner(wf_task *t)
{
    (void)t;
}

/* A frame's field: plain under arm and c11 (c11 reports an unordered
 * access as a data race), relaxed under sc, tso and pso, whose machines
 * have no other kind. */
static void field_write(volatile void *p, int size, uint64_t v)
{
    if (SIM_GRAPH_MODEL(S.model))
        sim_plain_store_n(p, size, v);
    else
        wf__sim_store(p, size, v, WF_SIM_RELAXED, WF__SIM_SITE(""));
}

static uint64_t field_read(volatile void *p, int size)
{
    if (SIM_GRAPH_MODEL(S.model))
        return sim_plain_load_n(p, size);
    if (size == 4)
        return wf__sim_load_u32(p, WF_SIM_RELAXED, WF__SIM_SITE(""));
    return (uint64_t)wf__sim_load_i64(p, WF_SIM_RELAXED, WF__SIM_SITE(""));
}

/* The runner's body: read the argument, write the value. */
static void run_frame(int t)
{
    seen_arg = (long)field_read(&ARGS->n, 8);
    runs++;
    ran_by = t;
    if (seen_arg != ARG)
        sim_failf("%s runs the frame with its argument read as %ld, not %d: "
                  "%s",
                  sim_thread_name(t), seen_arg, ARG,
                  seen_arg == NEXT_ARG
                      ? "the owner's next spawn wrote over the frame while "
                        "it ran (its sync returned too early)"
                      : "the spawn's write is not visible (stale)");
    field_write(&ARGS->wf__res, 8, (uint64_t)(seen_arg + 1));
}

/* The typed spawn (WF__TASK_DEFS' wf__s_NAME) and publish_frames. */
static void spawn_publish(void)
{
    field_write(&ARGS->n, 8, ARG);
    field_write(&frame.task.fn, 8, (uint64_t)(uintptr_t)runner);
    /* publish_frames: the mark, then the push's release (D1). */
    field_write(&frame.task.flags_, 4, WF__TSLOT_SLOW);
    void *batch[1] = {&frame.task};
    if (wf_deque_push_n(&sim_weft_dq, batch, 1) != 0)
        sim_failf("the push of the frame failed");
}

/* help_until_done (its steal from the thief finds nothing here: the
 * thief has no deque), then wf__task_wait: announce WAITING and sleep on
 * done_ until it is done.  A wait that returns at once (done_ moved) goes
 * round again; after two rounds the completion has come.  False: asleep,
 * woken or not (the end decides). */
static bool wait_done(int t)
{
    _Atomic uint32_t *done = &frame.task.done_;
    if (wf__done_seen(done))
        return true;
    wf__done_announce(done);
    for (int round = 0; round < 2; round++) {
        if (wf__done_seen(done))
            return true;
        wf__futex_wait(done, WF__WAITING);
        if (S.th[t].futex_slept)
            return false;
    }
    sim_failf("%s was woken twice and still sees done_ not done",
              sim_thread_name(t));
    return false;
}

/* tsync_marked for a published frame: wait_own with pop_published, then
 * finish_join and the frame's reset; then the next spawn's write. */
static void sync_frame(int t)
{
    wf_task *task = &frame.task;
    if (!wf__done_seen(&task->done_)) {
        void *x = wf_deque_pop(&sim_weft_dq);
        if (x == task)
            run_frame(t); /* wait_own: t->fn(t), no completion */
        else if (!wait_done(t))
            return;
    }
    synced = true;
    seen_value = (long)field_read(&ARGS->wf__res, 8);
    if (seen_value != VALUE) {
        sim_failf("%s's sync returned but reads the frame's value as %ld, "
                  "not %d (stale): the completion did not publish it",
                  sim_thread_name(t), seen_value, VALUE);
        return;
    }
    wf_store_relaxed(&task->done_, 0);  /* finish_join */
    field_write(&task->flags_, 4, 0);   /* tsync_marked: idle mark */
    field_write(&ARGS->n, 8, NEXT_ARG); /* the next spawn's argument */
}

static void owner(int t)
{
    spawn_publish();
    sync_frame(t);
}

/* wf__run_stolen: run_task (its flags, its runner), the runner, and
 * wf__task_complete. */
static void thief(int t)
{
    void *x = NULL;
    if (wf_deque_poll(&sim_weft_dq, &x) != WF_POLL_TAKEN)
        return;
    wf_task *task = x;
    stolen = true;
    if (task != &frame.task) {
        sim_failf("%s took %p from the deque, not the frame: the slot's "
                  "write is not visible (stale)",
                  sim_thread_name(t), x);
        return;
    }
    uint32_t flags = (uint32_t)field_read(&task->flags_, 4);
    uint64_t fn = field_read(&task->fn, 8);
    if (!(flags & WF__TSLOT_SLOW) || fn != (uint64_t)(uintptr_t)runner)
        sim_failf("%s took the frame but reads its %s as not yet written "
                  "(stale)",
                  sim_thread_name(t), fn ? "mark" : "runner");
    run_frame(t);
    uint32_t was = wf__done_mark(&task->done_);
    if (was == WF__WAITING)
        wf__futex_wake(&task->done_, INT_MAX);
    /* HELPING (wake_waiters, P8) is wf_join's from outside: not here. */
}

static void setup_p9(const explore_job *job)
{
    (void)job;
    memset(&frame, 0, sizeof frame);
    wf_store_relaxed(&frame.task.done_, 0);
    runs = 0;
    ran_by = -1;
    seen_arg = seen_value = -1;
    stolen = synced = false;
    sim_register_name(&frame.task.done_, "done_");
    sim_register_name(&frame.task.flags_, "flags_");
    sim_register_name(&frame.task.fn, "fn");
    sim_register_name(&ARGS->n, "arg");
    sim_register_name(&ARGS->wf__res, "value");
    sim_add_op(0, (sim_op){.kind = OP_CALL, .call = owner});
    sim_add_op(1, (sim_op){.kind = OP_CALL, .call = thief});
}

/* Run once, and no joiner asleep for good on a done task. */
static void final(void)
{
    if (runs != 1) {
        sim_failf("the frame ran %d times: %s", runs,
                  runs ? "taken twice (doubled)" : "lost");
        return;
    }
    if (sim_futex_asleep(0) && wf_load_relaxed(&frame.task.done_) == WF__DONE)
        sim_failf("lost wake-up: %s sleeps on done_ for good while the "
                  "frame is done",
                  sim_thread_name(0));
}

static void outcome(char *buf, size_t n)
{
    const char *w = !S.th[0].futex_slept  ? "awake"
                    : sim_futex_asleep(0) ? "asleep"
                                          : "slept, woken";
    snprintf(buf, n,
             "ran by %s, arg read %ld | owner: %s, %s, value read %ld "
             "| T1: %s",
             ran_by < 0 ? "none" : sim_thread_name(ran_by), seen_arg, w,
             synced ? "synced" : "in its sync", seen_value,
             stolen ? "stole it" : "found none");
}

const sim_protocol sim_proto_p9 = {
    "p9",
    "a typed spawn's frame, published (marked, pushed); a thief polls, "
    "runs it and completes its done_ word while the owner's sync pops, "
    "or waits on done_, and reads the value",
    2,
    setup_p9,
    final,
    outcome,
    "the thief reads the frame as written, the owner reads the value, the "
    "frame runs once, no wake-up is lost"};
