/* SPDX-License-Identifier: Apache-2.0 */
/* A graph's part of a trace (src/graph/spans.c; the recorder is the
 * pool's, internal/trace.h).  Never installed. */
#ifndef WF_GRAPH_SPANS_H
#define WF_GRAPH_SPANS_H

#include "internal/graph/node.h"

/* Begin ('B', named after n, NULL: "graph task") or end ('E') a span on
 * this thread's track. */
void wf__trace_span(char ph, char cat, const wf_node *n);
/* A body span of n, ending the flow arrow of a message n took. */
void wf__trace_body_begin(wf_node *n);
/* The start of a flow arrow from this thread's current span to the next
 * body of `to`. */
void wf__trace_message(wf_node *to);

#endif /* WF_GRAPH_SPANS_H */
