/* SPDX-License-Identifier: Apache-2.0 */
/* The flow graph itself: the graph's record, the pool tasks its nodes
 * run, and the rules every graph file follows.  Never installed.
 *
 * The rules every graph file follows (docs/graph.md explains them for
 * users; docs/protocols.md, "The flow graph", states them with the memory
 * orders behind them):
 *
 * G1  A node's state (buffers, counters, busy flags, edge lists) changes
 *     only inside its aggregator's handler (aggregator.c).  One exception:
 *     continue_node's signal count is an atomic changed by CAS
 *     (continue.c says why and how, G9); its edge lists still follow G1.
 * G2  A handler never calls another node, a user function or the pool: it
 *     changes local state and tells its caller what to do next ("start the
 *     forwarder", "spawn a runner").  No thread therefore ever waits for a
 *     node while it is applying another node's operations, so aggregators
 *     cannot deadlock however the edges loop.
 * G3  Each edge has an atomic state, push or pull.  The sender turns it to
 *     pull after a rejected push and then tells the receiver (pred_pull);
 *     the receiver turns it back to push after a failed pull and then tells
 *     the sender (succ_push).  The notification is an aggregator operation,
 *     which orders the state change for the other side (the relaxed state
 *     accesses rely on that), and it always follows the change, so neither
 *     side can miss that the other changed its mind.  Two hints rely on it
 *     too, each set by its notification and cleared by a scan that finds
 *     no edge in that state: a function node's pull_edges (function.c)
 *     and an output port's push_hint (wf__port).
 * G4  At most one thread forwards a node's held messages at a time (its
 *     fwd_busy flag, or fire_busy for a reserving join); a request that
 *     finds it busy sets `again` and the forwarder looks once more before
 *     it stops.  One exception: a message that finds a buffering node
 *     empty and idle (its store `quiet`, store.c) is offered by the thread
 *     that put it, without entering the node, and enters it only if no
 *     successor took it.  Several threads may do so at once; their puts
 *     overlap, so no order between their messages was promised, and a
 *     message that waits in the node turns `quiet` off for every put that
 *     starts after it was accepted.
 * G5  The graph counts tasks in flight (pending), and puts from outside
 *     its tasks while they run, and outside work held open (a gateway's
 *     reservation); a task that starts new work counts it before it
 *     stops counting itself.  A task it bypasses to (runtime.c)
 *     runs under the same count, so it is counted throughout.
 *
 * The memory orders of the atomics are docs/protocols.md's G6 (the
 * aggregator's mailbox), G7 (edge lists read outside the aggregator), G8
 * (cancel and errors), G9 (continue_node's count) and G10 (blocks made
 * on demand, a graph's end); the aggregator's lock is G1's, the count of
 * work in flight G5's. */
#ifndef WF_GRAPH_GRAPH_H
#define WF_GRAPH_GRAPH_H

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "internal/atomic.h"
#include "internal/graph/agg.h"
#include "internal/graph/mem.h"
#include "internal/trace.h"
#include "internal/util.h"
#include "weft/graph.h"

/* A handler or step on every message's path, inlined into each caller
 * (the direct path of an aggregator op, wf__agg_try_enter), so a message
 * pays no call frame per level.  Direct calls only: GCC cannot honour it
 * through a function pointer at -O0/-O1. */
#define WF__HOT_INLINE static inline __attribute__((always_inline))

typedef struct wf__gtask wf__gtask;

struct wf_graph {
    wf_pool *pool;
    wf_allocator mem; /* wf_graph_config.alloc, or malloc's  */
    wf__slabs *slabs; /* nodes, edges and edge lists (mem.c)  */
    _Atomic int cancelled;
    _Atomic int counting; /* wf_graph_set_counting: DOT counts on  */
    /* A node of g was given a priority above 0: until then a spawn need
     * not read its node's (wf__spawn), one line fewer per task. */
    _Atomic int prioritized;
    _Atomic int error;         /* first negative code from a body     */
    pthread_mutex_t idle_lock; /* the 1 -> 0 step of pending, waits */
    pthread_cond_t idle;
    pthread_mutex_t topo; /* node list, edge edits, names, DOT   */
    wf_node *nodes;       /* doubly linked, under topo           */
    unsigned next_id;
    /* runtime (graph.c): errors, priorities */
    wf_node *_Atomic failed;   /* node whose body failed first      */
    _Atomic long prio_count;   /* entries in prio_list (a hint)     */
    pthread_mutex_t prio_lock; /* prio_list, free_drainers        */
    wf__gtask *prio_list;      /* ready tasks of priority > 0, highest first */
    wf__gtask *free_drainers;  /* idle drainer records           */
    wf__gtask *drainers;       /* one per pool thread                 */
    /* Tasks in flight (G5).  Every hold and release writes it: padded
     * off the fields that every body reads (cancelled, prio_count), so
     * that workers do not steal that line from each other. */
    char pad_before_[WF_CACHE_LINE];
    _Atomic long pending;
    char pad_after_[WF_CACHE_LINE - sizeof(long)];
};

/* A pool task of a graph: a node's runner or forwarder, or a continue
 * node's round in a record of the pool's (wf__record_take).  The pool
 * may run `run` once per wf__spawn; the task is not touched after `run`
 * starts returning, so run may hand the record to the next spawn, or give
 * it back (G4). */
struct wf__gtask {
    wf_task task; /* first: the pool sees this */
    wf_graph *graph;
    void (*run)(struct wf__gtask *t);
    void *arg;
    /* The node the task works for: its priority and its name in traces.
     * NULL (the default): priority 0, traced as "graph task".  A node
     * kind whose tasks run bodies sets it when it creates the record. */
    wf_node *node;
    wf__gtask *prio_next; /* graph.c: the priority list, or free drainers */
    int prio;             /* graph.c: priority when it was listed */
};

#endif /* WF_GRAPH_GRAPH_H */
