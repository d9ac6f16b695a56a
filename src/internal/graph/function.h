/* SPDX-License-Identifier: Apache-2.0 */
/* The body-running machinery that function_node, multifunction_node and
 * async_node share (src/graph/nodes/function.c), for the files of the latter
 * two.  Never installed. */
#ifndef WF_GRAPH_FUNCTION_H
#define WF_GRAPH_FUNCTION_H

#include "internal/graph/node.h"
#include "internal/graph/store.h"

typedef struct runner {
    wf__gtask task; /* first */
    struct fn_node *node;
    char *in, *out; /* in: up to fn_node.batch inputs */
    struct runner *next_free;
    bool primed; /* in holds an input put gave it (see handle_put) */
} runner;

typedef struct fn_node fn_node;

/* The body handle of a multifunction node and the gateway of an async
 * node: each names its node. */
struct wf_output_ports {
    fn_node *node;
};

struct wf_gateway {
    fn_node *node;
    _Atomic long waits; /* reserve_wait calls not yet released */
};

struct fn_node {
    wf_node base;
    /* the kind's body step, on one input */
    void (*call)(fn_node *f, runner *r, const void *in);
    union {
        wf_body_fn fn;
        wf_multifunction_fn multi;
        wf_async_fn async;
    } body;
    void *ctx;
    wf_output_ports ports;    /* multifunction */
    wf_gateway gw;            /* async */
    size_t in_size, out_size; /* out_size: a function body's output */
    unsigned limit;           /* 0: unlimited */
    unsigned batch; /* inputs a runner takes at once (see handle_take) */
    bool rejecting;
    bool lightweight; /* an idle node's put runs the body (handle_put) */
    /* state, under the aggregator */
    wf__fifo q;       /* accepted, not yet started */
    unsigned busy;    /* inputs taken by runners, and runners pulling */
    size_t stashed;   /* taken, not run: the graph was cancelled */
    unsigned runners; /* runners alive */
    bool pull_again;  /* an edge turned to pull while runners were out */
    /* An in-edge may be in pull state: set by each pred_pull (which
     * follows every turn to pull, G3), cleared by a take that finds none,
     * so a node fed only by pushes does not scan its in-edges per take. */
    bool pull_edges;
    runner *free; /* idle runner records */
    unsigned n_slots;
    runner *slots;
};

/* What the three kinds' configurations have in common. */
typedef struct fn_spec {
    const wf__node_ops *ops;
    size_t in_size;
    size_t out_size; /* the runners' output buffer (function_node) */
    unsigned n_out;
    const size_t *out_sizes;
    unsigned concurrency;
    wf_fn_policy policy;
    void (*call)(fn_node *f, runner *r, const void *in);
    void *ctx;
} fn_spec;

/* Make a node of the kind spec says, not yet published: the caller sets
 * its body, then publishes it with wf__fn_publish. */
int wf__fn_create(wf_node **out, wf_graph *g, const fn_spec *c, fn_node **fp);
int wf__fn_publish(wf_node **out, fn_node *f);

/* The operation tables of the kinds (they differ in name only). */
extern const wf__node_ops wf__function_ops, wf__multifunction_ops,
    wf__async_ops;

#endif /* WF_GRAPH_FUNCTION_H */
