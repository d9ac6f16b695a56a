/* SPDX-License-Identifier: Apache-2.0 */
/* Running one task on a worker: the call, its span in a trace, the
 * debug-mode check of what it left, its completion for a joiner on
 * another thread, and the counters (wf__counters in internal/pool/types.h
 * says how they add up).  Rule numbers refer to docs/protocols.md. */
#include "internal/pool/runner.h"
#include "internal/pool/debug.h"
#include "internal/pool/notify.h"
#include "internal/pool/stack.h"
#include "internal/pool/submit.h"
#include "internal/trace.h"

/* The span a task gets in a trace (docs/pool.md, "Tracing"), from its
 * flags: a submitted task (wf_submit, wf_run's and wf_spawn's from
 * outside) wherever it runs, a fork-join task when a thief runs it.  A
 * graph's tasks and a pipeline's tokens (detached) trace themselves, as
 * node bodies and stage calls; a fork-join task run where it was spawned
 * is a call, inside the span of what called it. */
static const char *span_name(uint32_t flags, bool stolen, char *cat)
{
    if (flags & WF__TASK_ROOT) {
        *cat = WF__TRACE_SUBMIT;
        return "submitted task";
    }
    *cat = WF__TRACE_STEAL;
    return stolen && !(flags & WF__TASK_DETACHED) ? "stolen task" : NULL;
}

/* Run t and settle it.  A joinable task is marked done: with a release and
 * a wake-up when its joiner may be another thread (`shared`: stolen or
 * submitted), with a plain store when the joiner is this thread.  A
 * detached task is not touched once it has run (it may be freed or
 * spawned again), so its flags are read first.  A root leaves the pool's
 * count. */
static void run_task(wf__worker *w, wf_task *t, bool shared)
{
    uint32_t flags = t->flags_;
    if (flags & WF__TASK_QUEUED) /* started: wf_submit may take it again */
        t->flags_ = flags & ~WF__TASK_QUEUED;
    char cat;
    const char *span = span_name(flags, shared, &cat);
    bool traced = span != NULL && wf__trace_enabled();
    if (traced)
        wf__trace_record('B', cat, span, 0);
    bool debug = w->pool->debug;
    wf_task *top = debug ? wf__debug_top(w) : NULL;
    wf_task_fn fn = t->fn;
    fn(t);
    if (traced)
        wf__trace_record('E', cat, NULL, 0);
    if (__builtin_expect(debug, 0))
        wf__debug_frame_exit(w, top, (const void *)fn,
                             __builtin_frame_address(0));
    if (!(flags & WF__TASK_DETACHED)) {
        if (shared)
            wf__task_complete(w->pool, t);
        else /* its joiner is this thread: relaxed */
            wf_store_relaxed(&t->done_, WF__DONE);
    }
    if (flags & WF__TASK_ROOT)
        wf__root_done(w->pool);
}

/* The counters (wf__counters): a stolen task was counted as a spawn by
 * its owner, and is a task run here. */
void wf__run_stolen(wf__worker *w, wf_task *t)
{
    wf_counter_inc(&w->stats.run_stolen); /* owner-only (P4) */
    run_task(w, t, true);
}

/* A submission from outside enters the pool here: a spawn and a task run
 * of this slot. */
void wf__run_root(wf__worker *w, wf_task *t)
{
    wf_counter_inc(&w->stats.run_unjoined); /* owner-only (P4) */
    run_task(w, t, true);
}

/* One of this slot's own tasks.  A joinable one was counted when it was
 * published, or is a call (never published); a detached one is a spawn
 * and a task run now. */
void wf__run_own(wf__worker *w, wf_task *t)
{
    if (!wf__task_settle_fields(t))
        wf_counter_inc(&w->stats.run_unjoined); /* owner-only (P4) */
    run_task(w, t, false);
}
