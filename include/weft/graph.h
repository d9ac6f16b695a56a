/* weft — the flow graph: nodes that pass messages along edges, on a pool.
 *
 * A graph is a set of nodes bound to one pool.  Messages are values of a
 * fixed size per port (msg_size bytes), copied into every node that keeps
 * them; a pointer is just a message of sizeof(void *).  Edges join an output
 * port to an input port of the same size.  The semantics are those of the
 * oneTBB flow graph; docs/graph.md is the guide.
 *
 *     wf_graph *g;   wf_graph_create(&g, NULL);           // default pool
 *     wf_node *q;    wf_queue_node_create(&q, g, sizeof(int));
 *     wf_node *f;    wf_function_node_create(&f, g, &fn_cfg);
 *     wf_make_edge(q, f);                                 // single ports
 *     int v = 42;    wf_try_put(q, &v);
 *     wf_graph_wait_for_all(g);
 *     wf_node_destroy(f); wf_node_destroy(q); wf_graph_destroy(g);
 *
 * The protocol.  A sender pushes a message to a receiver with try_put, which
 * may reject it.  A rejected push turns the edge from push to pull: the
 * receiver will ask for messages when it can take them (try_get), and turns
 * the edge back to push when the sender has none.  Buffering senders
 * (buffer, queue, and the queueing and key-matching joins) keep what nobody
 * took and also answer try_reserve / try_release / try_consume, which the
 * reserving join uses to take one message from every port or none.
 *
 * Threads.  Every function may be called from any thread, including node
 * bodies, except where its comment says otherwise.  Bodies run as pool
 * tasks, never on the thread that called try_put.  Create the topology,
 * then send; destroy a node only when no other thread uses it.
 *
 * Return values.  0 or a negative WF_E... code, as everywhere in weft; the
 * try_ functions return 1 for "done" (accepted, got one), 0 for "no"
 * (rejected, nothing there) and a negative code for bad input. */
#ifndef WEFT_GRAPH_H
#define WEFT_GRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common.h"
#include "pool.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct wf_graph wf_graph;
typedef struct wf_node wf_node;

/* ---- the graph ----------------------------------------------------------- */

/* Create a graph whose bodies and forwarding run on `pool` (NULL: the
 * default pool).  Returns 0 and sets *out; WF_EINVAL (out NULL), WF_ENOMEM,
 * WF_EAGAIN (no default pool could be started). */
WF_API int wf_graph_create(wf_graph **out, wf_pool *pool);

/* Wait for all work, then free the graph.  Its nodes stay allocated: every
 * call on them then returns WF_EDESTROYED, except wf_node_destroy, which
 * frees them.  NULL is accepted.  WF_EPERM from a body of this graph. */
WF_API int wf_graph_destroy(wf_graph *g);

/* Return when no work is left in flight: no body running or queued, no
 * forwarding task.  From a pool worker it runs other tasks meanwhile; from
 * any other thread it sleeps.  Returns 0, the first error a body returned,
 * WF_ECANCELED after wf_graph_cancel, WF_EINVAL, or WF_EPERM from a body of
 * this graph (it would wait for itself). */
WF_API int wf_graph_wait_for_all(wf_graph *g);

/* Wait for all work, then empty every buffer (nodes, join ports, function
 * queues), turn every edge back to push, and clear the cancelled flag and
 * the error.  Same errors as wf_graph_wait_for_all, except that a body's
 * error or a cancellation is cleared rather than returned. */
WF_API int wf_graph_reset(wf_graph *g);

/* Cancel: later try_put from outside returns WF_ECANCELED, bodies not yet
 * started do not start (their inputs stay queued), forwarding stops.
 * Messages already accepted stay where they are until wf_graph_reset. */
WF_API int wf_graph_cancel(wf_graph *g);
WF_API bool wf_graph_is_cancelled(const wf_graph *g);

/* Write the topology in Graphviz DOT: each node with its kind, name and the
 * number of messages it holds now, each edge with its state (solid: push,
 * dashed: pull).  Render with `dot -Tsvg`.  Returns 0, WF_EINVAL, or
 * WF_EAGAIN when writing failed. */
WF_API int wf_graph_write_dot(wf_graph *g, FILE *f);

/* ---- ports ----------------------------------------------------------------- */

/* A port names one input or output of a node.  It is a small value, built
 * by the functions below and checked when used: a NULL node gives
 * WF_EINVAL, an index out of range WF_ENOPORT.  Where a function takes a
 * port, a node with exactly one port of that direction may stand for it
 * (the macros below accept either). */
typedef struct wf_port {
    wf_node *node;
    unsigned index;
    unsigned dir_; /* private: WF__PORT_* */
} wf_port;

#define WF__PORT_IN 1u
#define WF__PORT_OUT 2u
#define WF__PORT_ONLY 4u /* "the node's only port of this direction" */

static inline wf_port wf_input_port(wf_node *node, unsigned i)
{
    wf_port p = {node, i, WF__PORT_IN};
    return p;
}

static inline wf_port wf_output_port(wf_node *node, unsigned i)
{
    wf_port p = {node, i, WF__PORT_OUT};
    return p;
}

static inline wf_port wf__only_in(wf_node *node)
{
    wf_port p = {node, 0, WF__PORT_IN | WF__PORT_ONLY};
    return p;
}

static inline wf_port wf__only_out(wf_node *node)
{
    wf_port p = {node, 0, WF__PORT_OUT | WF__PORT_ONLY};
    return p;
}

static inline wf_port wf__port_self(wf_port p) { return p; }

/* A port stays a port; anything else (a node, NULL) is a node's only port. */
#define wf__as_in(x) _Generic((x), wf_port: wf__port_self, default: wf__only_in)(x)
#define wf__as_out(x) \
    _Generic((x), wf_port: wf__port_self, default: wf__only_out)(x)

/* Message size of a port, or 0 when the port does not exist (or carries
 * signals: WF_SIGNAL, below). */
WF_API size_t wf_port_msg_size(wf_port p);

/* ---- edges ----------------------------------------------------------------- */

/* Join an output port to an input port; the edge starts in push state.  A
 * buffering sender that holds messages starts offering them at once.
 * Returns 0; WF_EINVAL (NULL node, wrong direction, nodes of two graphs),
 * WF_ENOPORT, WF_ESIZE (message sizes differ), WF_EEXIST (that edge
 * exists), WF_EDESTROYED, WF_ENOMEM.  Nothing changes on error. */
WF_API int wf_make_edge_ports(wf_port from, wf_port to);
#define wf_make_edge(from, to) wf_make_edge_ports(wf__as_out(from), wf__as_in(to))

/* Remove the edge: no message is pushed or pulled along it afterwards
 * (one already on its way may still arrive).  WF_ENOENT if there is none;
 * otherwise the errors of wf_make_edge. */
WF_API int wf_remove_edge_ports(wf_port from, wf_port to);
#define wf_remove_edge(from, to) \
    wf_remove_edge_ports(wf__as_out(from), wf__as_in(to))

/* ---- messages -------------------------------------------------------------- */

/* Offer msg (msg_size bytes, copied; NULL on a WF_SIGNAL port, whose
 * message is a signal with no data) to an input port.  Returns 1 when the
 * node took it, 0 when it rejected it (a full rejecting function node, a
 * reserving join port), or WF_EINVAL, WF_ENOPORT, WF_ECANCELED,
 * WF_EDESTROYED, WF_ENOMEM. */
WF_API int wf_try_put_port(wf_port to, const void *msg);
#define wf_try_put(to, msg) wf_try_put_port(wf__as_in(to), (msg))

/* Take a message from an output port of a buffering node into msg.
 * Returns 1, 0 when there is none (or it is reserved), or an error. */
WF_API int wf_try_get_port(wf_port from, void *msg);
#define wf_try_get(from, msg) wf_try_get_port(wf__as_out(from), (msg))

/* Copy the next message into msg and hold it: nobody else can take it
 * until wf_try_consume (removes it) or wf_try_release (puts it back).
 * Returns 1, 0 (none, or already reserved; non-buffering nodes always), or
 * an error.  Release and consume return 0, or WF_ENOENT when nothing is
 * reserved. */
WF_API int wf_try_reserve_port(wf_port from, void *msg);
WF_API int wf_try_release_port(wf_port from);
WF_API int wf_try_consume_port(wf_port from);
#define wf_try_reserve(from, msg) wf_try_reserve_port(wf__as_out(from), (msg))
#define wf_try_release(from) wf_try_release_port(wf__as_out(from))
#define wf_try_consume(from) wf_try_consume_port(wf__as_out(from))

/* ---- nodes ----------------------------------------------------------------- */

/* Every constructor returns 0 and sets *out, or WF_EINVAL (out or g NULL,
 * a zero size where the node does not take WF_SIGNAL, a bad option) or
 * WF_ENOMEM; on error *out is untouched.
 * The node belongs to g until wf_node_destroy (or wf_graph_destroy, after
 * which it only accepts wf_node_destroy). */

/* broadcast_node: passes each message to every successor in push state;
 * keeps nothing and cannot be pulled from or reserved.  msg_size may be
 * WF_SIGNAL (0): a broadcast of signals, to start continue_nodes. */
WF_API int wf_broadcast_node_create(wf_node **out, wf_graph *g, size_t msg_size);

/* buffer_node: keeps messages, offers each to one successor (single-push);
 * try_get / reserve / release / consume.  Order unspecified (FIFO today).
 * queue_node: the same, first in first out. */
WF_API int wf_buffer_node_create(wf_node **out, wf_graph *g, size_t msg_size);
WF_API int wf_queue_node_create(wf_node **out, wf_graph *g, size_t msg_size);

/* function_node body: read `in`, write the output to `out` (out_size bytes;
 * NULL when out_size is 0).  Return 0 to send the output to every
 * successor, WF_NO_OUTPUT to send nothing for this input, or a negative
 * code: the graph records the first one, cancels, and wf_graph_wait_for_all
 * returns it.  Runs on a pool worker; several at once unless serial. */
typedef int (*wf_body_fn)(const void *in, void *out, void *ctx);
#define WF_NO_OUTPUT 1

#define WF_UNLIMITED 0u /* concurrency: any number of bodies at once */
#define WF_SERIAL 1u    /* concurrency: one body at a time, in order */

typedef enum wf_fn_policy {
    WF_QUEUEING = 0, /* over the limit, inputs wait in the node's queue */
    WF_REJECTING = 1 /* over the limit, a push is rejected (edge -> pull) */
} wf_fn_policy;

typedef struct wf_function_config {
    size_t in_size;     /* input message size (> 0)                      */
    size_t out_size;    /* output message size; 0 = no output port       */
    unsigned concurrency; /* WF_UNLIMITED (0), WF_SERIAL (1), or N      */
    wf_fn_policy policy;  /* WF_QUEUEING (default) or WF_REJECTING       */
    wf_body_fn body;
    void *ctx; /* passed to body */
} wf_function_config;
#define WF_FUNCTION_CONFIG_INIT {0, 0, 0, WF_QUEUEING, NULL, NULL}

WF_API int wf_function_node_create(wf_node **out, wf_graph *g,
                                   const wf_function_config *cfg);

/* join_node: N input ports (2..WF_JOIN_MAX_PORTS), one output whose message
 * is the ports' values one after another, each aligned; read element i with
 * wf_tuple_get.  The output is broadcast to every successor. */
typedef enum wf_join_policy {
    WF_JOIN_QUEUEING = 0, /* a FIFO per port; a tuple of the heads when
                             every port holds one                        */
    WF_JOIN_RESERVING,    /* no buffer: rejects pushes, then reserves one
                             message at every port's predecessors, all or
                             none; needs reservable predecessors         */
    WF_JOIN_KEY_MATCHING, /* a tuple when every port holds a message with
                             the same key (key_fns; key_size bytes,
                             compared bytewise); per port and key, FIFO  */
    WF_JOIN_TAG_MATCHING  /* key matching with uint64_t tags (tag_fns)   */
} wf_join_policy;

#define WF_JOIN_MAX_PORTS 16

/* Write the key of msg (key_size bytes) to key.  Called on the putting
 * thread, possibly on several threads at once. */
typedef void (*wf_key_fn)(const void *msg, void *key, void *ctx);
typedef uint64_t (*wf_tag_fn)(const void *msg, void *ctx);

typedef struct wf_join_config {
    unsigned ports;            /* number of input ports               */
    const size_t *msg_sizes;   /* ports entries, each > 0             */
    wf_join_policy policy;
    size_t key_size;           /* WF_JOIN_KEY_MATCHING                */
    const wf_key_fn *key_fns;  /* WF_JOIN_KEY_MATCHING: ports entries */
    const wf_tag_fn *tag_fns;  /* WF_JOIN_TAG_MATCHING: ports entries */
    void *ctx;                 /* passed to the key / tag functions   */
} wf_join_config;
#define WF_JOIN_CONFIG_INIT {0, NULL, WF_JOIN_QUEUEING, 0, NULL, NULL, NULL}

WF_API int wf_join_node_create(wf_node **out, wf_graph *g,
                               const wf_join_config *cfg);

/* Element i of a message produced by `join`.  NULL when join is not a join
 * node or i is out of range. */
WF_API void *wf_tuple_get(const void *msg, const wf_node *join, unsigned i);

/* ---- continue_node, input_node, limiter_node, sequencer_node -------------- */

/* A continue message is a signal with no data: a port of message size 0,
 * put with wf_try_put(port, NULL).  WF_SIGNAL names that size. */
#define WF_SIGNAL ((size_t)0)

/* continue_node body: called once per completed round of signals; writes
 * its output (out_size bytes) to out, NULL when out_size is 0 (the output
 * is then a signal).  Returns 0, WF_NO_OUTPUT, or a negative error as a
 * function_node body does. */
typedef int (*wf_continue_fn)(void *out, void *ctx);

typedef struct wf_continue_config {
    size_t out_size;       /* output message size; WF_SIGNAL (0): a signal */
    unsigned predecessors; /* signals expected beyond those of its in-edges */
    wf_continue_fn body;
    void *ctx;
} wf_continue_config;
#define WF_CONTINUE_CONFIG_INIT {WF_SIGNAL, 0, NULL, NULL}

/* continue_node: one input port of WF_SIGNAL size.  It counts signals and
 * runs its body when the count reaches the number of predecessors (its
 * in-edges, which wf_make_edge and wf_remove_edge keep up to date, plus
 * cfg->predecessors), then starts counting again.  The output is broadcast
 * to every successor. */
WF_API int wf_continue_node_create(wf_node **out, wf_graph *g,
                                   const wf_continue_config *cfg);

/* ---- priority_queue_node, overwrite_node, write_once_node, composite nodes - */

/* ---- multifunction_node, async_node, split_node, indexer_node -------------- */

/* ---- node priorities, errors, cancellation, reset, tracing ----------------- */

/* Name shown by wf_graph_write_dot (copied; NULL clears it).  Returns 0,
 * WF_EINVAL, WF_ENOMEM, WF_EDESTROYED. */
WF_API int wf_node_set_name(wf_node *node, const char *name);

/* "queue_node", "join_node<reserving>", ...; "" for NULL. */
WF_API const char *wf_node_kind(const wf_node *node);

/* Wait for the graph's work, remove the node's edges and free it, with any
 * message it still holds.  NULL is accepted.  WF_EPERM from a body of the
 * node's graph.  No other thread may use the node meanwhile. */
WF_API int wf_node_destroy(wf_node *node);

#ifdef __cplusplus
}
#endif
#endif /* WEFT_GRAPH_H */
