/* SPDX-License-Identifier: Apache-2.0 */
/* The message FIFO and the buffering sender that buffer, queue,
 * priority_queue, sequencer, overwrite and join nodes share
 * (src/graph/store.c; rule G4).  Never installed. */
#ifndef WF_GRAPH_STORE_H
#define WF_GRAPH_STORE_H

#include "internal/graph/mem.h"
#include "internal/graph/node.h"

typedef struct wf__fifo {
    char *buf;
    const wf_allocator *mem; /* its node's (mem.c) */
    size_t size;             /* bytes per message */
    size_t cap; /* 0 or a power of two (8, doubled by wf__fifo_grow) */
    size_t head, count;
} wf__fifo;

void wf__fifo_init(wf__fifo *q, size_t size, const wf_allocator *mem);
int wf__fifo_grow(wf__fifo *q); /* room for one more: 0 or WF_ENOMEM */
void wf__fifo_clear(wf__fifo *q);
void wf__fifo_free(wf__fifo *q);

/* Copy one message.  Sizes of one or two machine words are copied inline
 * (the common messages): no libc call for a 4-byte int. */
static inline void wf__msg_copy(void *dst, const void *src, size_t size)
{
    switch (size) {
    case 0: return;
    case 4: memcpy(dst, src, 4); return;
    case 8: memcpy(dst, src, 8); return;
    case 16: memcpy(dst, src, 16); return;
    default: memcpy(dst, src, size);
    }
}

/* Append a copy of msg: 0 or WF_ENOMEM (the FIFO is unchanged then). */
static inline int wf__fifo_push(wf__fifo *q, const void *msg)
{
    if (q->count == q->cap) {
        int err = wf__fifo_grow(q);
        if (err)
            return err;
    }
    wf__msg_copy(q->buf + ((q->head + q->count) & (q->cap - 1)) * q->size, msg,
                 q->size);
    q->count++;
    return 0;
}

static inline void *wf__fifo_front(wf__fifo *q)
{
    return q->count ? q->buf + q->head * q->size : NULL;
}

/* Remove the head (the FIFO is not empty), copied to msg unless NULL. */
static inline void wf__fifo_pop(wf__fifo *q, void *msg)
{
    if (msg)
        wf__msg_copy(msg, q->buf + q->head * q->size, q->size);
    q->head = (q->head + 1) & (q->cap - 1);
    q->count--;
}

/* The sender side of a buffering node: its messages, the reservation of
 * the head, and the forwarder (G4).  Buffer and queue nodes and the
 * queueing / key-matching joins embed one for their output port 0.
 *
 * Order: FIFO, or, with cmp set (priority_queue_node), a binary max-heap
 * in q.buf (q.head stays 0) whose head is the greatest message.  While the
 * head is lent (reserved) a put never moves above it, so the lent message
 * stays at the head until it is consumed or released.
 *
 * Discard mode (overwrite / write_once): every message is offered once to
 * every successor in push state and then dropped, taken or not; with no
 * successor in push state a put keeps nothing. */
typedef struct wf__store {
    wf__fifo q;
    int reserved; /* 0, WF__RES_PULLER or WF__RES_FWD */
    bool fwd_busy, fwd_again;
    bool broadcast; /* broadcast-push (joins) or single-push */
    bool discard;   /* offer once, then drop (see above) */
    /* The node's handler passes every WF__ST_* op on to wf__store_handle
     * unchanged (set by the kind after init): store.c applies them with
     * wf__store_handle directly, without the node's dispatch. */
    bool direct;
    /* A put's own offer was rejected once: the successors may ask to pull
     * (a reserving join, a busy rejecting node), and would ask before the
     * message is kept; from then on every put enters the store first. */
    bool no_offer;
    wf_compare_fn cmp; /* NULL: FIFO; else greatest first */
    void *cmp_ctx;
    char *item;     /* the forwarder's copy of the head */
    wf__gtask task; /* the forwarder as a pool task */
    /* 1: nothing held, lent or forwarded (G4's exception: a put may offer
     * its message itself).  Written by the handler after each op that may
     * change it (wf__store_settle), read by puts outside. */
    _Atomic int quiet;
} wf__store;

/* Store operations; their types follow the node's own. */
enum {
    WF__ST_PUT = 50,
    WF__ST_GET,
    WF__ST_RESERVE,
    WF__ST_RELEASE,
    WF__ST_CONSUME,
    WF__ST_SUCC_PUSH,
    WF__ST_FWD,
    WF__ST_PUT_KEPT,    /* a put whose own offer nobody took (sets no_offer) */
    WF__ST_CONSUME_NEXT /* consume, then reserve the new head (result 1) */
};

typedef struct wf__store_op {
    wf__op op;
    const void *in;
    void *out;
    int result;
    int prev;         /* WF__ST_FWD: what became of the last item */
    bool handoff;     /* WF__ST_FWD: budget spent, continue in a task */
    bool start;       /* the caller must run the forwarder */
    wf__store *store; /* store.c: the store, for a direct op */
} wf__store_op;

int wf__store_init(wf__store *s, wf_node *n, size_t size, bool broadcast);
void wf__store_free(wf__store *s);
/* Inside the handler: apply a WF__ST_* op to the node's store. */
void wf__store_handle(wf_node *n, wf__store *s, wf__store_op *op);
/* Inside the handler: may the forwarder start now?  Sets fwd_busy and
 * lends the forwarder the head (in item), which wf__store_kick offers. */
bool wf__store_should_start(wf_node *n, wf__store *s);
/* Inside the handler, after an op that changed the store: publish
 * whether it is quiet (see wf__store). */
void wf__store_settle(wf__store *s);
/* Inside the handler: the store holds one message, which could be
 * forwarded now and nobody holds: pop it into out for the caller to offer
 * itself (wf__store_offer, G4's exception) instead of a forwarder. */
bool wf__store_take_direct(wf_node *n, wf__store *s, void *out);
/* Inside the handler: the store is empty and a message formed now could
 * go to the caller to offer itself at once, skipping the store (as
 * wf__store_take_direct would take it back).  The store is unchanged. */
bool wf__store_may_skip(wf_node *n, wf__store *s);
/* Outside: may this thread offer a message of a store itself now?  False
 * once it is nested too deep in such offers and forwarders (a cycle of
 * buffering nodes would recurse without end). */
bool wf__store_may_offer(void);
/* Outside: offer msg from n's port 0 as its forwarder would (broadcast or
 * single); true when a successor took it. */
bool wf__store_offer(wf_node *n, wf__store *s, const void *msg);
/* Outside: put msg in a buffering node: offered at once by this thread if
 * the store is quiet (G4's exception), else kept and forwarded.  Returns
 * what a put answers. */
int wf__store_put(wf_node *n, wf__store *s, const void *msg);
/* Outside: run the forwarder that an op told us to start (G4). */
void wf__store_kick(wf_node *n, wf__store *s);
/* Outside: the sender-side entry points, for a node whose port 0 store is
 * `s` (found through the node kind's accessor). */
int wf__store_call(wf_node *n, wf__store *s, int type, const void *in,
                   void *out);
/* Outside: wf__store_call(WF__ST_CONSUME_NEXT), the reserving join's
 * step per port and tuple, compiled for that op alone. */
int wf__store_consume_next(wf_node *n, wf__store *s, void *msg);

#endif /* WF_GRAPH_STORE_H */
