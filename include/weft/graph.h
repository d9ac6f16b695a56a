/* SPDX-License-Identifier: Apache-2.0 */
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
 * tasks, but for a lightweight node's (run inside the try_put that finds
 * the node idle) and an input node's (run inside a try_get or try_reserve
 * that finds it empty).  A body that waits for its own graph (wait_for_all,
 * reset, either destroy) gets WF_EPERM wherever it runs.  The waits are
 * not cancellation points (wf_graph_wait_for_all).  Create the topology,
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

/* Graph configuration.  Zero means "default" in every field. */
typedef struct wf_graph_config {
    wf_pool *pool;             /* NULL: the default pool */
    const wf_allocator *alloc; /* memory for the graph and its nodes:
                                  buffers, queues, edges; NULL: malloc.
                                  Copied: it need not outlive the call */
} wf_graph_config;

#define WF_GRAPH_CONFIG_INIT                                                   \
    {                                                                          \
        NULL, NULL                                                             \
    }

/* wf_graph_create with a configuration (cfg not NULL).  Every node of the
 * graph allocates through cfg->alloc, until the node is destroyed (also
 * after the graph).  When an allocation fails, the call that needed it
 * returns WF_ENOMEM, or, for memory a message needs on its way between
 * nodes, the graph fails with WF_ENOMEM (wf_graph_wait_for_all returns
 * it): a message a node accepted is delivered, still held in a node, or
 * the graph reports the failure; it is never dropped in silence.
 * Destroying nodes and graphs and removing edges never allocate. */
WF_API int wf_graph_create_with(wf_graph **out, const wf_graph_config *cfg);

/* Wait for all work, then free the graph.  Its nodes stay allocated: every
 * call on them then returns WF_EDESTROYED, except wf_node_destroy, which
 * frees them.  NULL is accepted.  WF_EPERM from a body of this graph.  Not
 * a cancellation point (wf_graph_wait_for_all). */
WF_API int wf_graph_destroy(wf_graph *g);

/* Return when no work is left in flight: no body running or queued, no
 * forwarding task, no put from outside still running.  The calling thread
 * takes part: it runs the graph's tasks (and others of its pool) while it
 * waits, as a worker of the pool or, from any other thread, in one of the
 * pool's caller slots (weft/pool.h), and parks when there is nothing to
 * run; with every slot taken it sleeps.  Returns 0, the first error a body
 * returned, WF_ECANCELED after wf_graph_cancel, WF_EINVAL, or WF_EPERM from
 * a body of this graph (it would wait for itself), wherever the body runs:
 * a pool task, inside a put or a get (lightweight and input nodes), or
 * inside another wait that runs it while it helps.
 *
 * Not a cancellation point: cancellation is off while it runs (as in
 * wf_graph_reset, wf_graph_destroy, wf_node_destroy, wf_graph_cancel,
 * wf_graph_write_dot, wf_graph_run_here, and bodies run inside a put or a
 * get), and a pthread_cancel that comes meanwhile takes effect at the
 * thread's next cancellation point after it returns.  The waiting thread
 * runs other work of the pool and may sleep on the graph's internal
 * condition variable, which a cancelled thread leaves holding the mutex;
 * ended there, it would leave the graph unable to finish a body or be
 * waited for.  To stop waiting early, wf_graph_cancel.  docs/graph.md,
 * "Waiting". */
WF_API int wf_graph_wait_for_all(wf_graph *g);

/* True when g has no work in flight at the moment of the call (what
 * wf_graph_wait_for_all waits for), false when it has, or g is NULL.  A
 * snapshot: work may start again at once.  Any thread; never blocks.
 * For a thread that waits its own way (polling something else
 * meanwhile) and falls back on wf_graph_wait_for_all. */
WF_API bool wf_graph_is_idle(const wf_graph *g);

/* Wait for all work, then reset the graph as `flags` say (WF_RESET_*,
 * or-ed; see "node priorities, errors, cancellation, reset, tracing"
 * below).  Every reset empties every buffer (nodes, join ports, function
 * queues), turns every edge back to push, zeroes the DOT counters, and
 * clears the cancelled flag, the error and the failed node.  It waits
 * until no work is in flight; a put from another thread that starts
 * meanwhile waits until the reset is done (and its message survives it).
 * Returns 0; WF_EINVAL (g NULL, an unknown flag), WF_EPERM from a body of
 * this graph.  Not a cancellation point (wf_graph_wait_for_all). */
WF_API int wf_graph_reset(wf_graph *g, unsigned flags);

/* Cancel: later try_put from outside returns WF_ECANCELED, bodies not yet
 * started do not start (their inputs stay queued), forwarding stops.
 * Messages already accepted stay where they are until wf_graph_reset. */
WF_API int wf_graph_cancel(wf_graph *g);
WF_API bool wf_graph_is_cancelled(const wf_graph *g);

/* Write the topology in Graphviz DOT: each node with its kind, name, the
 * number of messages it holds now and, only while the graph counts
 * (below), its message counts (put = accepted + rejected; forwarded: taken by a
 * successor), each edge with its state (solid: push, dashed: pull).
 * Render with `dot -Tsvg`.  Returns 0, WF_EINVAL, or WF_EAGAIN when
 * writing failed. */
WF_API int wf_graph_write_dot(wf_graph *g, FILE *f);

/* Count messages for the DOT picture (on) or stop counting (off, the
 * default unless the environment has WEFT_GRAPH_COUNTS=1).  Counting
 * costs two shared atomic adds per message; off, a message pays one
 * branch.  The counts run from creation or the last wf_graph_reset, over
 * the time counting was on; a message put while the switch changes may or
 * may not be counted, one put after it returns is.  Any thread.  Returns 0
 * or WF_EINVAL (g NULL). */
WF_API int wf_graph_set_counting(wf_graph *g, bool on);

/* ---- ports --------------------------------------------------------------- */

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

/* Input port i of node; the index is checked when the port is used. */
static inline wf_port wf_input_port(wf_node *node, unsigned i)
{
    wf_port p = {node, i, WF__PORT_IN};
    return p;
}

/* Output port i of node; the index is checked when the port is used. */
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

static inline wf_port wf__port_self(wf_port p)
{
    return p;
}

/* A port stays a port; anything else (a node, NULL) is a node's only port.
 * In C++ the same choice is made by overloads, at the end of this file. */
#ifndef __cplusplus
#define wf__as_in(x)                                                           \
    _Generic((x), wf_port : wf__port_self, default : wf__only_in)(x)
#define wf__as_out(x)                                                          \
    _Generic((x), wf_port : wf__port_self, default : wf__only_out)(x)
#endif

/* Message size of a port, or 0 when the port does not exist (or carries
 * signals: WF_SIGNAL, below). */
WF_API size_t wf_port_msg_size(wf_port p);

/* ---- edges --------------------------------------------------------------- */

/* Join an output port to an input port; the edge starts in push state.  A
 * buffering sender that holds messages starts offering them at once.
 * Returns 0; WF_EINVAL (NULL node, wrong direction, nodes of two graphs,
 * an edge from a node to itself),
 * WF_ENOPORT, WF_ESIZE (message sizes differ), WF_EEXIST (that edge
 * exists), WF_EDESTROYED, WF_ENOMEM.  Nothing changes on error. */
WF_API int wf_make_edge_ports(wf_port from, wf_port to);
#define wf_make_edge(from, to)                                                 \
    wf_make_edge_ports(wf__as_out(from), wf__as_in(to))

/* Remove the edge: no message is pushed or pulled along it afterwards
 * (one already on its way may still arrive).  WF_ENOENT if there is none;
 * otherwise the errors of wf_make_edge. */
WF_API int wf_remove_edge_ports(wf_port from, wf_port to);
#define wf_remove_edge(from, to)                                               \
    wf_remove_edge_ports(wf__as_out(from), wf__as_in(to))

/* ---- messages ------------------------------------------------------------ */

/* Offer msg (msg_size bytes, copied; NULL on a WF_SIGNAL port, whose
 * message is a signal with no data) to an input port.  Returns 1 when the
 * node took it, 0 when it rejected it (a full rejecting function node, a
 * reserving join port), or WF_EINVAL, WF_ENOPORT, WF_ECANCELED,
 * WF_EDESTROYED, WF_ENOMEM.  From a thread outside the pool the put runs
 * in a caller slot (docs/graph.md, "Waiting"); no body runs inside it, but
 * a lightweight node's (wf_fn_policy), which runs with cancellation off. */
WF_API int wf_try_put_port(wf_port to, const void *msg);
#define wf_try_put(to, msg) wf_try_put_port(wf__as_in(to), (msg))

/* Take a message from an output port of a buffering node into msg.
 * Returns 1, 0 when there is none (or it is reserved), or an error. */
WF_API int wf_try_get_port(wf_port from, void *msg);
#define wf_try_get(from, msg) wf_try_get_port(wf__as_out(from), (msg))

/* Copy the next message into msg and hold it: nobody else can take it
 * until wf_try_consume (removes it) or wf_try_release (puts it back).
 * Returns 1, 0 (none, or already reserved; non-buffering nodes always), or
 * an error.  Release and consume return 1, or WF_ENOENT when nothing is
 * reserved. */
WF_API int wf_try_reserve_port(wf_port from, void *msg);
WF_API int wf_try_release_port(wf_port from);
WF_API int wf_try_consume_port(wf_port from);
#define wf_try_reserve(from, msg) wf_try_reserve_port(wf__as_out(from), (msg))
#define wf_try_release(from) wf_try_release_port(wf__as_out(from))
#define wf_try_consume(from) wf_try_consume_port(wf__as_out(from))

/* ---- nodes --------------------------------------------------------------- */

/* Largest message (and key) size a node accepts; above it a constructor
 * returns WF_ERANGE, before any size arithmetic can wrap. */
#define WF_MAX_MSG_SIZE (SIZE_MAX >> 8)

/* Every constructor returns 0 and sets *out, or WF_EINVAL (out or g NULL,
 * a zero size where the node does not take WF_SIGNAL, a bad option),
 * WF_ERANGE (a size above WF_MAX_MSG_SIZE) or WF_ENOMEM; on error *out is
 * untouched.
 * The node belongs to g until wf_node_destroy (or wf_graph_destroy, after
 * which it only accepts wf_node_destroy). */

/* broadcast_node: passes each message to every successor in push state;
 * keeps nothing and cannot be pulled from or reserved.  msg_size may be
 * WF_SIGNAL (0): a broadcast of signals, to start continue_nodes. */
WF_API int wf_broadcast_node_create(wf_node **out, wf_graph *g,
                                    size_t msg_size);

/* buffer_node: keeps messages, offers each to one successor (single-push);
 * try_get / reserve / release / consume.  Order unspecified (FIFO today).
 * queue_node: the same, first in first out.  msg_size may be WF_SIGNAL:
 * the node then keeps a count of signals (try_get(n, NULL) takes one). */
WF_API int wf_buffer_node_create(wf_node **out, wf_graph *g, size_t msg_size);
WF_API int wf_queue_node_create(wf_node **out, wf_graph *g, size_t msg_size);

/* function_node body: read `in`, write the output to `out` (out_size bytes;
 * NULL when out_size is WF_SIGNAL, the output then being a signal).
 * Return 0 to send the output to every
 * successor, WF_NO_OUTPUT to send nothing for this input, or a negative
 * code: the graph records the first one, cancels, and wf_graph_wait_for_all
 * returns it.  Runs on a pool worker (or, lightweight, on the thread that
 * put the input); several at once unless serial. */
typedef int (*wf_body_fn)(const void *in, void *out, void *ctx);
#define WF_NO_OUTPUT 1

#define WF_UNLIMITED 0u /* concurrency: any number of bodies at once */
#define WF_SERIAL 1u    /* concurrency: one body at a time, in order */

/* How a function, multifunction or async node takes its inputs (oneTBB's
 * queueing, rejecting, lightweight, queueing_lightweight and
 * rejecting_lightweight policies).  Lightweight: a put that finds the
 * node idle, under its concurrency limit with nothing queued, runs the
 * body right away on the putting thread, on the put's own message (no
 * copy, no task), and returns once the body and the puts it made have;
 * any other put is queued or rejected as without it.  For small bodies
 * whose messages are large or whose latency counts.  A chain of
 * lightweight nodes nests at most 8 deep on one thread: the ninth runs as
 * a task. */
typedef enum wf_fn_policy {
    WF_QUEUEING = 0,    /* over the limit, inputs wait in the node's queue */
    WF_REJECTING = 1,   /* over the limit, a push is rejected (edge -> pull) */
    WF_LIGHTWEIGHT = 2, /* queueing, and lightweight */
    WF_REJECTING_LIGHTWEIGHT = 3 /* rejecting, and lightweight */
} wf_fn_policy;

typedef struct wf_function_config {
    size_t in_size;       /* input message size; WF_SIGNAL: signals, and
                           `in` points to no data                       */
    size_t out_size;      /* output message size; WF_SIGNAL (0): signals */
    unsigned concurrency; /* WF_UNLIMITED (0), WF_SERIAL (1), or N      */
    wf_fn_policy policy;  /* WF_QUEUEING (default), WF_REJECTING, or
                             either WF_..._LIGHTWEIGHT                  */
    wf_body_fn body;
    void *ctx; /* passed to body */
} wf_function_config;
#define WF_FUNCTION_CONFIG_INIT                                                \
    {                                                                          \
        0, 0, 0, WF_QUEUEING, NULL, NULL                                       \
    }

/* function_node: one input port of cfg->in_size and one output port of
 * cfg->out_size; runs cfg->body on each input, at most cfg->concurrency at
 * once.  An out_size of WF_SIGNAL makes the output a port of signals
 * (oneTBB's function_node<T, continue_msg>): each body that returns 0
 * sends one, which a continue node after it counts; a node whose output
 * nobody needs has no edge from it.  cfg is read during the call only.
 * Returns the constructor errors above; WF_EINVAL also when cfg or
 * cfg->body is NULL or the policy is unknown. */
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
    unsigned ports;          /* number of input ports               */
    const size_t *msg_sizes; /* ports entries, each > 0             */
    wf_join_policy policy;
    size_t key_size;          /* WF_JOIN_KEY_MATCHING                */
    const wf_key_fn *key_fns; /* WF_JOIN_KEY_MATCHING: ports entries */
    const wf_tag_fn *tag_fns; /* WF_JOIN_TAG_MATCHING: ports entries */
    void *ctx;                /* passed to the key / tag functions   */
} wf_join_config;
#define WF_JOIN_CONFIG_INIT                                                    \
    {                                                                          \
        0, NULL, WF_JOIN_QUEUEING, 0, NULL, NULL, NULL                         \
    }

/* Create a join_node as cfg says (read during the call only).  Returns the
 * constructor errors above; WF_EINVAL also when cfg is NULL, ports is not
 * 2..WF_JOIN_MAX_PORTS, msg_sizes is NULL or holds a 0, the policy is
 * unknown, or a key-matching join lacks key_size or a key function (a
 * tag-matching one a tag function); WF_ERANGE for a key_size above
 * WF_MAX_MSG_SIZE. */
WF_API int wf_join_node_create(wf_node **out, wf_graph *g,
                               const wf_join_config *cfg);

/* Element i of a message produced by `join` (or taken by a split node).
 * NULL when join is neither a join nor a split node, or i is out of range. */
WF_API void *wf_tuple_get(const void *msg, const wf_node *join, unsigned i);

/* ---- continue_node, input_node, limiter_node, sequencer_node ------------- */

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
#define WF_CONTINUE_CONFIG_INIT                                                \
    {                                                                          \
        WF_SIGNAL, 0, NULL, NULL                                               \
    }

/* continue_node: one input port of WF_SIGNAL size.  It counts signals and
 * runs its body when the count reaches the number of predecessors (its
 * in-edges, which wf_make_edge and wf_remove_edge keep up to date, plus
 * cfg->predecessors), then starts counting again.  The output is broadcast
 * to every successor.  A round that the graph leaves part-way when it goes
 * idle is no error (wf_graph_wait_for_all returns 0); debug mode
 * (WEFT_DEBUG=1) says so on stderr.  Returns 0, WF_EINVAL (no body),
 * WF_ERANGE (cfg->predecessors above INT_MAX) or WF_ENOMEM. */
WF_API int wf_continue_node_create(wf_node **out, wf_graph *g,
                                   const wf_continue_config *cfg);

/* input_node body: write the next message (out_size bytes) to out and
 * return 0; return WF_INPUT_DONE when there are no more (the body is not
 * called again until wf_graph_reset), or a negative code, which fails the
 * graph as a function_node body's does.  Never called twice at once. */
#define WF_INPUT_DONE 1
typedef int (*wf_input_fn)(void *out, void *ctx);

typedef struct wf_input_config {
    size_t out_size; /* message size (> 0) */
    wf_input_fn body;
    void *ctx; /* passed to body */
} wf_input_config;
#define WF_INPUT_CONFIG_INIT                                                   \
    {                                                                          \
        0, NULL, NULL                                                          \
    }

/* input_node: no input port, one output port.  Created inactive; after
 * wf_input_node_activate it calls its body on a pool worker and broadcasts
 * each message to every successor in push state, until the body returns
 * WF_INPUT_DONE or every successor rejects a message.  That message stays
 * in the node (it buffers one) and is the next one offered, to a new
 * successor or to one whose edge comes back to push; meanwhile
 * successors pull it.  try_get / try_reserve (release, consume) take the
 * buffered message, or, when there is none and the node is active, call
 * the body on the calling thread to make one; they return 0 when the
 * node is inactive, done, or the message is reserved or being made or
 * offered.  wf_graph_reset empties it and makes it inactive again. */
WF_API int wf_input_node_create(wf_node **out, wf_graph *g,
                                const wf_input_config *cfg);

/* Let the input_node start making messages.  Returns 0 (also when it is
 * already active); WF_EINVAL when n is NULL or not an input_node,
 * WF_EDESTROYED. */
WF_API int wf_input_node_activate(wf_node *n);

/* limiter_node: input port 0 takes messages of msg_size bytes, input port
 * 1 is the decrement port (WF_SIGNAL), output port 0 broadcasts.  It lets
 * at most `threshold` messages through (0 is allowed: none pass); each
 * signal on port 1 lowers the count by one.  It keeps nothing: a put at
 * the threshold is rejected (the edge turns to pull), as is one that no
 * successor takes (the count is not raised).  The count never goes below
 * 0, so signals beyond the messages passed are ignored, not saved up (the
 * spec truncates it to [0, threshold]).  When a signal lowers the count,
 * the node pulls a message from a predecessor whose edge is in pull
 * state, by reservation (queue, buffer, input and sequencer nodes can be
 * reserved; a predecessor that cannot be turns its edge back to push).
 * try_get returns 0.  Returns 0, WF_EINVAL (msg_size 0), WF_ENOMEM. */
WF_API int wf_limiter_node_create(wf_node **out, wf_graph *g, size_t msg_size,
                                  size_t threshold);

/* The same with an integral decrement (oneTBB's limiter_node<T, int>):
 * port 1 takes int64_t messages; a positive value lowers the count by that
 * much, a negative one raises it, the count truncated to [0, threshold].
 * Same returns. */
WF_API int wf_limiter_node_create_counted(wf_node **out, wf_graph *g,
                                          size_t msg_size, size_t threshold);

/* The sequence number of msg: 0 for the first message, then 1, 2, ...
 * Called on the putting thread, possibly on several threads at once. */
typedef size_t (*wf_sequence_fn)(const void *msg, void *ctx);

/* sequencer_node: a buffer (single-push, try_get, reservation) that lets
 * its messages out in sequence order 0, 1, 2, ..., whatever order they
 * come in: a message waits until every smaller number has gone out.  A put
 * whose number was already let out or is waiting is rejected (try_put
 * returns 0).  A number far ahead of the next one makes the node allocate
 * room up to it: WF_ENOMEM when it cannot.  seq is called with ctx. */
WF_API int wf_sequencer_node_create(wf_node **out, wf_graph *g, size_t msg_size,
                                    wf_sequence_fn seq, void *ctx);

/* ---- priority_queue, overwrite, write_once and composite nodes ----------- */

/* Order of two messages, as qsort's comparator: negative when a is less
 * than b, 0 when they are equal, positive when a is greater.  Called inside
 * the node's aggregator, possibly on several threads one after another; it
 * must not call weft. */
typedef int (*wf_compare_fn)(const void *a, const void *b, void *ctx);

/* priority_queue_node: a buffer_node whose next message (to a successor,
 * try_get or try_reserve) is always the greatest it holds by cmp (oneTBB's
 * default std::less: the largest first); equal messages leave in no
 * particular order.  Single-push; try_get / reserve / release / consume as
 * a queue_node.  Returns the constructor errors above; WF_EINVAL also when
 * cmp is NULL. */
WF_API int wf_priority_queue_node_create(wf_node **out, wf_graph *g,
                                         size_t msg_size, wf_compare_fn cmp,
                                         void *ctx);

/* overwrite_node: holds one message, invalid at first.  Each put replaces
 * it and is offered to every successor in push state (broadcast-push); the
 * put is always accepted.  A new edge from the node gets the current value
 * at once, if there is one.  try_get copies the value and leaves it (1, or
 * 0 while invalid).  try_reserve does the same and counts a reservation,
 * which does not pin the value; release and consume each end one
 * (WF_ENOENT when none is held) and leave the value in place, so a
 * reserving join can use it again and again.  The value stays until
 * wf_overwrite_node_clear or wf_graph_reset. */
WF_API int wf_overwrite_node_create(wf_node **out, wf_graph *g,
                                    size_t msg_size);

/* write_once_node: an overwrite_node that keeps its first value: while it
 * holds one, a put is rejected (wf_try_put returns 0, and a predecessor
 * keeps or drops the message as it would after any rejection) until
 * wf_overwrite_node_clear or wf_graph_reset. */
WF_API int wf_write_once_node_create(wf_node **out, wf_graph *g,
                                     size_t msg_size);

/* For an overwrite_node or a write_once_node: 1 if it holds a value, 0 if
 * not, WF_EINVAL for NULL or another kind of node, WF_EDESTROYED. */
WF_API int wf_overwrite_node_is_valid(wf_node *node);

/* Forget the value of an overwrite_node or a write_once_node (a
 * write_once_node then accepts the next put).  Returns 0, WF_EINVAL (NULL,
 * another kind of node), WF_EDESTROYED. */
WF_API int wf_overwrite_node_clear(wf_node *node);

/* composite_node: a sub-graph exported as one node.  Its input port i
 * stands for inputs[i] and its output port j for outputs[j]; every call
 * that takes a port (edges, try_put, try_get, reservation,
 * wf_port_msg_size) acts on the inner port instead.  An inner port may be
 * a port of another composite_node.  The composite does not own the inner
 * nodes: destroying it removes only the aliases (edges made through it
 * belong to the inner nodes and stay); destroy the composite before its
 * inner nodes, as a composite whose inner node is gone must not be used.
 * Returns 0; WF_EINVAL (out or g NULL, no ports at all, an array NULL
 * while its count is not 0, an inner port with a NULL node, of the wrong
 * direction, or of another graph), WF_ENOPORT (an inner index out of
 * range), WF_EDESTROYED, WF_ENOMEM. */
WF_API int wf_composite_node_create(wf_node **out, wf_graph *g, unsigned n_in,
                                    const wf_port *inputs, unsigned n_out,
                                    const wf_port *outputs);

/* ---- multifunction_node, async_node, split_node, indexer_node ------------ */

/* multifunction_node: one input port and `out_ports` output ports.  Its
 * body may send any number of messages (none included) to any of its
 * output ports for each input, with wf_output_put.  Concurrency limit,
 * queueing / rejecting policy and errors are those of function_node. */
typedef struct wf_output_ports wf_output_ports;

/* The body: read `in`, send outputs through `ports`.  Return 0, or a
 * negative code: the graph records the first one, cancels, and
 * wf_graph_wait_for_all returns it (what was already sent stays sent). */
typedef int (*wf_multifunction_fn)(const void *in, wf_output_ports *ports,
                                   void *ctx);

/* Send msg (the port's message size, copied) to every successor of output
 * port i of the node running this body, now.  Call it only from the body
 * that received `ports`.  Returns 1 if a successor took it, 0 if none did
 * (or there is none), WF_EINVAL (ports NULL, or msg NULL on a port that
 * is not a signal port), WF_ENOPORT (i out of range). */
WF_API int wf_output_put(wf_output_ports *ports, unsigned i, const void *msg);

typedef struct wf_multifunction_config {
    size_t in_size;          /* input message size, or WF_SIGNAL        */
    unsigned out_ports;      /* number of output ports, 1..65535        */
    const size_t *out_sizes; /* out_ports entries; WF_SIGNAL: a port of
                                signals (wf_output_put with msg NULL)  */
    unsigned concurrency;    /* WF_UNLIMITED (0), WF_SERIAL (1), or N   */
    wf_fn_policy policy;     /* WF_QUEUEING (default), or see above     */
    wf_multifunction_fn body;
    void *ctx; /* passed to body */
} wf_multifunction_config;
#define WF_MULTIFUNCTION_CONFIG_INIT                                           \
    {                                                                          \
        0, 0, NULL, 0, WF_QUEUEING, NULL, NULL                                 \
    }

/* Create a multifunction_node as cfg says (read during the call only).
 * Returns the constructor errors above; WF_EINVAL also when cfg, its body
 * or out_sizes is NULL, out_ports is 0, or the policy is unknown;
 * WF_ERANGE also when out_ports is above 65535. */
WF_API int wf_multifunction_node_create(wf_node **out, wf_graph *g,
                                        const wf_multifunction_config *cfg);

/* async_node: a function_node whose body hands its input to work outside
 * the pool (another thread, a device, an event loop) instead of computing
 * the output itself.  That work sends results through the node's gateway,
 * from any thread, and keeps the graph open meanwhile with reserve_wait /
 * release_wait.  Concurrency limit, policy and body errors are those of
 * function_node; a body's concurrency slot is free again once it returns,
 * not when the outside work ends. */
typedef struct wf_gateway wf_gateway;

/* The body: pass `in` (copy it: it is gone after return) and `gw` to the
 * outside work.  Return 0 or a negative code, as a function_node body. */
typedef int (*wf_async_fn)(const void *in, wf_gateway *gw, void *ctx);

/* Count one more piece of outside work in flight: wf_graph_wait_for_all
 * (and reset, destroy) wait until it is released.  Any thread.  Returns 0,
 * WF_EINVAL (gw NULL), WF_EDESTROYED (the graph is gone). */
WF_API int wf_gateway_reserve_wait(wf_gateway *gw);

/* The outside work counted by one reserve_wait is done.  Any thread.
 * Returns 0, WF_EINVAL (gw NULL), WF_ENOENT (no reserve_wait to match). */
WF_API int wf_gateway_release_wait(wf_gateway *gw);

/* For a thread that is not one of g's pool's and feeds g from outside (an
 * I/O or network progress thread): call fn(ctx) as a thread of the pool,
 * in one of its caller slots (weft/pool.h), so that the tasks its puts
 * start (a gateway's put, wf_try_put) stay on this thread, then run them
 * here, and the tasks they start, until none is left or about budget_ns
 * nanoseconds have passed (it runs at least one, and counts the budget
 * from its end); a worker that looks for work meanwhile may
 * take some, and what is left then goes to the pool's workers.  A message
 * from outside is then handled without waking a worker and without a
 * context switch.  Bodies of g (and other tasks of its pool) may thus run
 * on the calling thread.  From a thread of any pool, after
 * wf_graph_cancel, or with every slot taken, it only calls fn(ctx).
 * Cancellation is off for the whole call (wf_graph_wait_for_all says why).
 * Returns how many tasks ran here, or WF_EINVAL (g or fn NULL). */
WF_API int wf_graph_run_here(wf_graph *g, void (*fn)(void *ctx), void *ctx,
                             uint64_t budget_ns);

/* Broadcast msg (out_size bytes, copied) to every successor of the async
 * node, on the calling thread, which may be any thread.  Call it before
 * the matching release_wait, so the graph cannot go idle between the two.
 * Returns 1 if a successor took it, 0 if none did, WF_EINVAL (gw or msg
 * NULL), WF_ECANCELED (the graph is cancelled), WF_EDESTROYED. */
WF_API int wf_gateway_try_put(wf_gateway *gw, const void *msg);

typedef struct wf_async_config {
    size_t in_size;       /* input message size, or WF_SIGNAL       */
    size_t out_size;      /* output message size (> 0)              */
    unsigned concurrency; /* WF_UNLIMITED (0), WF_SERIAL (1), or N  */
    wf_fn_policy policy;  /* WF_QUEUEING (default), or see above    */
    wf_async_fn body;
    void *ctx; /* passed to body */
} wf_async_config;
#define WF_ASYNC_CONFIG_INIT                                                   \
    {                                                                          \
        0, 0, 0, WF_QUEUEING, NULL, NULL                                       \
    }

/* Create an async_node as cfg says (read during the call only).  Returns
 * the constructor errors above; WF_EINVAL also when cfg or its body is
 * NULL, out_size is 0, or the policy is unknown. */
WF_API int wf_async_node_create(wf_node **out, wf_graph *g,
                                const wf_async_config *cfg);

/* The gateway of an async node (the one its body receives), or NULL when
 * n is not an async node.  Valid until the node is destroyed. */
WF_API wf_gateway *wf_async_node_gateway(wf_node *n);

/* The tuple layout of join and split nodes: element i of n elements of
 * sizes[i] bytes sits at offsets[i], aligned for its size (the largest
 * power of two up to 16 that divides it); the whole is padded to the
 * largest alignment.  Writes offsets (n entries; may be NULL) and returns
 * the tuple's size, or 0 when n is 0 or above WF_JOIN_MAX_PORTS, sizes is
 * NULL, or a size is 0 or above WF_MAX_MSG_SIZE. */
WF_API size_t wf_tuple_layout(unsigned n, const size_t *sizes, size_t *offsets);

/* split_node: one input port taking a tuple of `ports` elements laid out by
 * wf_tuple_layout (a join node's output with the same sizes), and `ports`
 * output ports: element i is broadcast from output port i, at once, on the
 * putting thread.  Keeps nothing; a put is always accepted.  ports is
 * 1..WF_JOIN_MAX_PORTS; wf_tuple_get reads its input's elements. */
WF_API int wf_split_node_create(wf_node **out, wf_graph *g, unsigned ports,
                                const size_t *msg_sizes);

/* indexer_node's output message: the index of the input port a value came
 * in on, then the value (that port's message size), aligned for any type.
 * The output port's message size is WF_TAGGED_MSG_SIZE(the largest input
 * size), a multiple of the struct's alignment, so an array of them stays
 * aligned; bytes after a shorter value are zero. */
#ifdef __cplusplus
#define WF__ALIGN_ANY alignas(max_align_t)
#else
#define WF__ALIGN_ANY _Alignas(max_align_t)
#endif
#ifdef __cplusplus
/* value[] is a flexible array member, which C++ lacks: g++ and clang++
 * accept it, laid out as in C, but warn under -pedantic. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
#endif
typedef struct wf_tagged_msg {
    size_t port;
    WF__ALIGN_ANY unsigned char value[]; /* read it as *(T *)m->value */
} wf_tagged_msg;
#ifdef __cplusplus
#pragma GCC diagnostic pop
#endif
#define WF_TAGGED_MSG_SIZE(max_value_size)                                     \
    (sizeof(wf_tagged_msg) + ((max_value_size) + sizeof(wf_tagged_msg) - 1) /  \
                                 sizeof(wf_tagged_msg) *                       \
                                 sizeof(wf_tagged_msg))

/* indexer_node: `ports` input ports (1..WF_JOIN_MAX_PORTS) of the given
 * sizes, one output port of wf_tagged_msg.  Each message is tagged with
 * its port and broadcast to every successor at once, on the putting
 * thread; the node keeps nothing and a put is always accepted. */
WF_API int wf_indexer_node_create(wf_node **out, wf_graph *g, unsigned ports,
                                  const size_t *msg_sizes);

/* ---- node priorities, errors, cancellation, reset, tracing --------------- */

/* Reset flags for wf_graph_reset, or-ed. */
#define WF_RESET_PROTOCOL 0u /* buffers, edge states, error, cancel: always */
#define WF_RESET_BODIES 1u   /* also call every node's body-reset callback */
#define WF_RESET_CLEAR_EDGES 2u /* also remove every edge of the graph */

/* When bodies of several nodes are ready, one of the node with the higher
 * priority is started first (the graph's tasks take ready work of nodes
 * with priority > 0 before their own next body).  Default 0; set it
 * before the node receives messages.  It applies to nodes with bodies
 * (function, continue, multifunction, async).  Returns 0; WF_EINVAL (node
 * NULL, priority < 0), WF_EDESTROYED. */
WF_API int wf_node_set_priority(wf_node *node, int priority);

/* The node whose body failed first (returned a negative code) since the
 * graph was created or last reset; NULL when none did (also for g NULL).
 * Read it after wf_graph_wait_for_all returned the error. */
WF_API wf_node *wf_graph_failed_node(const wf_graph *g);

/* Call fn(ctx) once when the graph is cancelled, by wf_graph_cancel or by
 * a failing body, so that a long body can stop early (fn typically sets
 * a flag the body polls).  It runs on the cancelling thread with the
 * graph's topology lock held: it must not call weft graph functions.  A
 * reset re-arms it.  fn NULL removes it.  Returns 0, WF_EINVAL (node
 * NULL), WF_EDESTROYED, WF_ENOMEM (the node's first callback takes a
 * small block from the graph's allocator). */
WF_API int wf_node_set_cancel(wf_node *node, void (*fn)(void *ctx), void *ctx);

/* Call fn(ctx) at every wf_graph_reset with WF_RESET_BODIES, so that a
 * body with state (a running sum, a counter in ctx) starts afresh: the C
 * counterpart of oneTBB's rf_reset_bodies, which restores a copy of the
 * body.  Runs on the resetting thread, graph idle, topology lock held: it
 * must not call weft graph functions.  fn NULL removes it.  Returns 0,
 * WF_EINVAL (node NULL), WF_EDESTROYED, WF_ENOMEM (as wf_node_set_cancel). */
WF_API int wf_node_set_body_reset(wf_node *node, void (*fn)(void *ctx),
                                  void *ctx);

/* The node's name (wf_node_set_name), or, when it has none, its kind and
 * its number in the graph ("function_node#3", the number DOT shows); ""
 * for NULL.  Valid until the next wf_node_set_name or wf_node_destroy.
 * The number is kept in a small block from the graph's allocator, made at
 * the first call: without memory for it, the kind alone. */
WF_API const char *wf_node_name(const wf_node *node);

/* Tracing a graph: wf_trace_start / wf_trace_stop (weft/pool.h) record
 * a span per node body (named as wf_node_name says) and per graph task,
 * and flow arrows from a task that pushed a message to the next body of
 * the node that took it. */

/* Name shown by wf_graph_write_dot (copied; NULL clears it).  Returns 0,
 * WF_EINVAL, WF_ENOMEM, WF_EDESTROYED. */
WF_API int wf_node_set_name(wf_node *node, const char *name);

/* "queue_node", "join_node<reserving>", ...; "" for NULL. */
WF_API const char *wf_node_kind(const wf_node *node);

/* Wait for the graph's work, remove the node's edges and free it, with any
 * message it still holds.  NULL is accepted.  WF_EPERM from a body of the
 * node's graph.  No other thread may use the node meanwhile.  Not a
 * cancellation point (wf_graph_wait_for_all). */
WF_API int wf_node_destroy(wf_node *node);

#ifdef __cplusplus
}

/* C++: the choice wf_make_edge, wf_try_put and the other port macros make
 * with _Generic in C.  A wf_port stays a port; a node (or NULL) is the
 * node's only port of that direction. */
static inline wf_port wf__as_in(wf_port p)
{
    return p;
}
static inline wf_port wf__as_in(wf_node *node)
{
    return wf__only_in(node);
}
static inline wf_port wf__as_out(wf_port p)
{
    return p;
}
static inline wf_port wf__as_out(wf_node *node)
{
    return wf__only_out(node);
}
#endif
#endif /* WEFT_GRAPH_H */
