/* SPDX-License-Identifier: Apache-2.0 */
/* A graph's part of a trace (the recorder is src/base/trace.c): spans
 * named after nodes, and flow arrows from the task that pushed a message
 * to the next body of the node that took it. */
#include "internal/graph/spans.h"
#include "internal/graph/node.h"
#include "internal/trace.h"

void wf__trace_span(char ph, char cat, const wf_node *n)
{
    char label[WF__LABEL_MAX];
    wf__trace_record(ph, cat, n ? wf__node_label(n, label) : NULL, 0);
}

void wf__trace_body_begin(wf_node *n)
{
    wf__trace_span('B', WF__TRACE_BODY, n);
    wf__node_extra *x = wf__extra_if(n);
    /* No extra block: no arrow was drawn to n.  The exchange takes the
     * arrow once even if two bodies start at once; relaxed, since only
     * the id travels (G10). */
    uint64_t id = x ? wf_exchange_relaxed(&x->trace_flow, 0) : 0;
    if (id)
        wf__trace_record('f', WF__TRACE_BODY, NULL, id);
}

void wf__trace_message(wf_node *to)
{
    /* One arrow at a time per node: a message that finds the last one not
     * yet taken by a body draws none, so the arrows drawn have both ends
     * (but the last, if no body of `to` runs again, and rarely one of two
     * messages that race here).  Relaxed: only the id travels, and the
     * exchange above takes it; the start is recorded first, so that its
     * time comes before the end's. */
    wf__node_extra *x = wf__extra_make(to); /* no memory: no arrow */
    if (x == NULL || wf_load_relaxed(&x->trace_flow) != 0)
        return;
    uint64_t id = wf__trace_flow_id();
    wf__trace_record('s', WF__TRACE_TASK, NULL, id);
    wf_store_relaxed(&x->trace_flow, id);
}
