/* SPDX-License-Identifier: Apache-2.0 */
/* join_node internals shared by join_node.c (queueing, reserving) and
 * join_key.c (key and tag matching).  Never installed. */
#ifndef WF_GRAPH_JOIN_H
#define WF_GRAPH_JOIN_H

#include "internal/graph/node.h"
#include "internal/graph/store.h"

struct wf__keys; /* join_key.c */
/* Tests only: entries a key table's narrow index names (join_key.c). */
extern uint32_t wf__join_key_narrow_ents;

typedef struct join_node {
    wf_node base;
    wf_join_policy policy;
    unsigned n; /* ports */
    size_t offset[WF_JOIN_MAX_PORTS];
    size_t tuple_size;
    char *tuple; /* handler's scratch for building a tuple */

    /* queueing and key matching: tuples formed, offered from a store */
    wf__store store;
    wf__fifo ports[WF_JOIN_MAX_PORTS]; /* queueing: a FIFO per port */

    /* key matching */
    struct wf__keys *keys;
    size_t key_size;
    wf_key_fn key_fns[WF_JOIN_MAX_PORTS];
    wf_tag_fn tag_fns[WF_JOIN_MAX_PORTS];
    void *ctx;

    /* reserving: one firing thread at a time (G4) */
    bool fire_busy, fire_again;
    char *fire_buf;                   /* the tuple being reserved */
    wf__edge *res[WF_JOIN_MAX_PORTS]; /* where each port's message is held */
    unsigned held; /* ports whose next message is lent already (a bit each) */
    wf__gtask fire_task;
} join_node;

enum {
    JOIN_QPUT = WF__OP_KIND, /* queueing: a message for a port */
    JOIN_KPUT,               /* key matching: a message and its key */
    JOIN_FIRE_REQ,           /* reserving: a port may have input now */
    JOIN_FIRE_BEGIN,         /* reserving: try_get wants to fire */
    JOIN_FIRE_END            /* reserving: the firing thread is done */
};

typedef struct join_op {
    wf__op op;
    unsigned port;
    const void *msg;
    const void *key;
    uint64_t hash;
    int result;
    bool start; /* run the store's forwarder / spawn the fire task */
    /* puts: where the handler may hand the caller the tuple it formed
     * into a quiet store (NULL: keep it); direct: it did, offer it */
    void *out;
    bool direct;
} join_op;

/* Inside the handler, after a put's tuples went to the store: hand the
 * caller the tuple to offer itself (op->direct), or tell it to start the
 * forwarder (op->start). */
static inline void wf__join_put_done(join_node *j, join_op *op)
{
    op->direct = op->out && wf__store_take_direct(&j->base, &j->store, op->out);
    if (!op->direct)
        op->start = wf__store_should_start(&j->base, &j->store);
    wf__store_settle(&j->store);
}

/* Inside the handler: move every complete tuple to the store, then
 * wf__join_put_done. */
void wf__join_key_put(join_node *j, join_op *op);
void wf__join_key_reset(join_node *j);
size_t wf__join_key_held(join_node *j);
/* Outside: the key of msg at port (key_size bytes) and its hash. */
uint64_t wf__join_key_of(join_node *j, unsigned port, const void *msg,
                         void *key);
int wf__join_keys_create(join_node *j);
void wf__join_keys_destroy(join_node *j);

#endif /* WF_GRAPH_JOIN_H */
