/* SPDX-License-Identifier: Apache-2.0 */
/* Tracing (src/base/trace.c): per-thread event buffers written out as a
 * Chrome trace by wf_trace_stop.  The pool records its stolen and
 * submitted tasks, parks, wf_run calls and pipeline stage calls; graphs
 * record bodies, tasks and message arrows (src/graph/spans.c).  Never
 * installed. */
#ifndef WF_INTERNAL_TRACE_H
#define WF_INTERNAL_TRACE_H

#include <stdbool.h>
#include <stdint.h>

#include "internal/atomic.h"

/* Set while a trace is being recorded.  Read relaxed on every task and
 * body: the one predictable branch tracing costs when it is off. */
extern _Atomic int wf__tracing;
static inline bool wf__trace_enabled(void)
{
    /* Relaxed: a thread that misses the switch by a few events is fine;
     * the recording path itself synchronises with wf_trace_stop. */
    return wf_load_relaxed(&wf__tracing) != 0;
}

/* Span categories: a graph's node bodies and tasks, the pool's stolen
 * and submitted tasks, parks and wf_run calls, a pipeline's stage calls. */
enum {
    WF__TRACE_BODY = 'b',
    WF__TRACE_TASK = 't',
    WF__TRACE_STEAL = 's',
    WF__TRACE_SUBMIT = 'q',
    WF__TRACE_PARK = 'p',
    WF__TRACE_RUN = 'r',
    WF__TRACE_STAGE = 'l'
};

/* Record an event on this thread's track: begin ('B', with a name) or
 * end ('E') of a span, start ('s') or end ('f') of flow arrow id. */
void wf__trace_record(char ph, char cat, const char *name, uint64_t id);
/* A new flow arrow id. */
uint64_t wf__trace_flow_id(void);
/* Read WEFT_TRACE once (a pool or a graph is created). */
void wf__trace_env(void);
/* How a thread's track is named: a pool's own thread (a background
 * worker or a spare) "worker i", any other "thread t".  The pool
 * registers the function that answers i, or -1 for a thread that is not
 * its own, before it starts a thread. */
typedef int (*wf__trace_namer)(void);
void wf__trace_thread_namer(wf__trace_namer fn);

#endif /* WF_INTERNAL_TRACE_H */
