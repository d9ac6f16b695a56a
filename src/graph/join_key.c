/* Key- and tag-matching joins: a hash table from key to, per port, the
 * messages with that key in arrival order.  When every port holds a
 * message for a key, the oldest of each leaves as one tuple (to the store,
 * as in the queueing join).
 *
 * Duplicates: a second message with a key its port already holds waits
 * behind the first and pairs with the next arrivals on the other ports.
 * The spec does not say; oneTBB's implementation overwrites the held
 * message and rejects the put.  Keeping both loses nothing that was
 * accepted, which the issue asks of every node. */
#include <stdalign.h>

#include "graph/join.h"

typedef struct kmsg {
    struct kmsg *next;
    alignas(16) unsigned char data[]; /* the message, aligned for any type */
} kmsg;

typedef struct kentry {
    struct kentry *next; /* bucket chain */
    uint64_t hash;
    unsigned filled;     /* ports holding at least one message */
    struct {
        kmsg *head, *tail;
    } port[WF_JOIN_MAX_PORTS];
    unsigned char key[];
} kentry;

typedef struct wf__keys {
    kentry **bucket;
    size_t nbuckets; /* power of two */
    size_t entries;
    size_t msgs;     /* messages held in the table */
} wf__keys;

/* FNV-1a: keys are short byte strings; this is enough to spread them. */
static uint64_t hash_bytes(const void *key, size_t len)
{
    const unsigned char *p = key;
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < len; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

uint64_t wf__join_key_of(join_node *j, unsigned port, const void *msg, void *key)
{
    if (j->policy == WF_JOIN_TAG_MATCHING) {
        uint64_t tag = j->tag_fns[port](msg, j->ctx);
        memcpy(key, &tag, sizeof tag);
    } else {
        j->key_fns[port](msg, key, j->ctx);
    }
    return hash_bytes(key, j->key_size);
}

int wf__join_keys_create(join_node *j)
{
    wf__keys *k = calloc(1, sizeof *k);
    if (k == NULL)
        return WF_ENOMEM;
    k->nbuckets = 64;
    if ((k->bucket = calloc(k->nbuckets, sizeof *k->bucket)) == NULL) {
        free(k);
        return WF_ENOMEM;
    }
    j->keys = k;
    return 0;
}

/* ---- inside the handler ------------------------------------------------------- */

static kentry **slot_of(wf__keys *k, uint64_t hash)
{
    return &k->bucket[hash & (k->nbuckets - 1)];
}

static kentry *find(join_node *j, const void *key, uint64_t hash)
{
    for (kentry *e = *slot_of(j->keys, hash); e; e = e->next)
        if (e->hash == hash && memcmp(e->key, key, j->key_size) == 0)
            return e;
    return NULL;
}

/* Double the buckets when the table gets full; on no memory keep going
 * with longer chains. */
static void maybe_grow(wf__keys *k)
{
    if (k->entries < k->nbuckets)
        return;
    size_t nb = k->nbuckets * 2;
    kentry **b = calloc(nb, sizeof *b);
    if (b == NULL)
        return;
    for (size_t i = 0; i < k->nbuckets; i++) {
        for (kentry *e = k->bucket[i], *next; e; e = next) {
            next = e->next;
            e->next = b[e->hash & (nb - 1)];
            b[e->hash & (nb - 1)] = e;
        }
    }
    free(k->bucket);
    k->bucket = b;
    k->nbuckets = nb;
}

static kentry *insert(join_node *j, const void *key, uint64_t hash)
{
    kentry *e = calloc(1, sizeof *e + j->key_size);
    if (e == NULL)
        return NULL;
    e->hash = hash;
    memcpy(e->key, key, j->key_size);
    maybe_grow(j->keys);
    kentry **slot = slot_of(j->keys, hash);
    e->next = *slot;
    *slot = e;
    j->keys->entries++;
    return e;
}

static void unlink_entry(join_node *j, kentry *e)
{
    kentry **p = slot_of(j->keys, e->hash);
    while (*p != e)
        p = &(*p)->next;
    *p = e->next;
    j->keys->entries--;
    free(e);
}

/* Take the oldest message of each port of e into the tuple. */
static void take_tuple(join_node *j, kentry *e)
{
    for (unsigned i = 0; i < j->n; i++) {
        kmsg *m = e->port[i].head;
        memcpy(j->tuple + j->offset[i], m->data, j->base.in[i].size);
        if ((e->port[i].head = m->next) == NULL) {
            e->port[i].tail = NULL;
            e->filled--;
        }
        free(m);
        j->keys->msgs--;
    }
}

void wf__join_key_put(join_node *j, join_op *op)
{
    kentry *e = find(j, op->key, op->hash);
    bool fresh = e == NULL;
    if (fresh && (e = insert(j, op->key, op->hash)) == NULL) {
        op->result = WF_ENOMEM;
        return;
    }
    kmsg *m = malloc(sizeof *m + j->base.in[op->port].size);
    if (m == NULL) {
        if (fresh)
            unlink_entry(j, e);
        op->result = WF_ENOMEM;
        return;
    }
    memcpy(m->data, op->msg, j->base.in[op->port].size);
    m->next = NULL;
    if (e->port[op->port].tail)
        e->port[op->port].tail->next = m;
    else {
        e->port[op->port].head = m;
        e->filled++;
    }
    e->port[op->port].tail = m;
    j->keys->msgs++;
    op->result = WF__ACCEPT;
    /* With no room for the tuple, it waits in the table (still accepted)
     * and forms at the key's next put. */
    while (e->filled == j->n && wf__fifo_grow(&j->store.q) == 0) {
        take_tuple(j, e);
        wf__fifo_push(&j->store.q, j->tuple);
    }
    if (e->filled == 0)
        unlink_entry(j, e);
    op->start = wf__store_should_start(&j->base, &j->store);
}

void wf__join_key_reset(join_node *j)
{
    wf__keys *k = j->keys;
    for (size_t i = 0; i < k->nbuckets; i++) {
        while (k->bucket[i]) {
            kentry *e = k->bucket[i];
            k->bucket[i] = e->next;
            for (unsigned p = 0; p < j->n; p++)
                for (kmsg *m = e->port[p].head, *next; m; m = next) {
                    next = m->next;
                    free(m);
                }
            free(e);
        }
    }
    k->entries = k->msgs = 0;
}

size_t wf__join_key_held(join_node *j)
{
    return j->keys->msgs;
}

void wf__join_keys_destroy(join_node *j)
{
    if (j->keys == NULL)
        return;
    wf__join_key_reset(j);
    free(j->keys->bucket);
    free(j->keys);
    j->keys = NULL;
}
