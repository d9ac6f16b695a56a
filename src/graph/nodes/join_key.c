/* SPDX-License-Identifier: Apache-2.0 */
/* Key- and tag-matching joins: a hash table from key to the tuple being
 * assembled for it.  Each entry holds the key and, in place, the tuple:
 * each port's oldest message for the key at its offset in the tuple.
 * When every port holds one the tuple leaves as it is (to the store, as
 * in the queueing join), so the common case allocates nothing and copies
 * only the message in and the tuple out.
 *
 * The table is split as in CPython's compact dict: a small open-addressing
 * index (linear probing) over a dense array of entries in arrival order,
 * whose freed entries are reused last-freed first.  A probe touches the
 * index and one entry, and keys that arrive close together sit close
 * together, so a table of many waiting keys stays cache friendly.
 *
 * An index slot is 4 bytes while every entry number fits (`narrow`, up
 * to 2^24 - 1 entries ever used): the entry number + 1 in 24 bits, 5 bits
 * of the hash (a tag) and the slot's distance from its home slot in probe
 * order, 0-6, 7 for "7 or more".  Past that the index is rebuilt with
 * 8-byte slots, 32 bits of the hash and the entry number (`wide`,
 * index_room).  The index is what a put touches most, and with many keys
 * waiting it outgrows the cache, so its size is the cost.  The distance
 * does the work of the bits of the hash that a narrow slot lacks:
 * remove_at learns from it where a slot may move without loading the
 * slot's entry to hash its key again (a likely cache miss), and a probe
 * that is t slots from its home skips slots of any other distance.
 *
 * The index is stored transposed: a bucket of LANES slots, one per lane
 * (a 64-byte line of narrow slots, two of wide ones), and the probe
 * sequence walks a lane from bucket to bucket (the next bucket's line),
 * then on into the next lane.  It is
 * plain linear probing over that order (pos), so every slot is reachable
 * and a half-full index always ends a probe; but the keys of a group
 * (hash_bytes) fill the lanes of one bucket, and a group that finds its
 * bucket taken moves on by a line, not by a slot into its neighbour's
 * home: clusters stay as short as for independent keys, where
 * consecutive slots would let the groups merge into long clusters.
 *
 * Duplicates: a second message with a key its port already holds waits
 * behind the first, in the entry's `extra` list (arrival order, allocated),
 * and pairs with the next arrivals on the other ports.  The spec does not
 * say; oneTBB's implementation overwrites the held message and rejects the
 * put.  Keeping both loses nothing that was accepted, the rule of every
 * node here (docs/graph.md, "Out of memory"). */
#include <stdalign.h>
#include <stddef.h>

#include "internal/graph/join.h"
#include "internal/graph/mem.h"
#include "internal/graph/node.h"
#include "internal/graph/store.h"

typedef struct kmsg {
    struct kmsg *next;
    unsigned port;
    alignas(16) unsigned char data[]; /* the message, aligned for any type */
} kmsg;

/* An entry's head; the key follows at KEY_OFF (in the head's spare
 * bytes), then the tuple at tuple_off: an int key and a pair of 8-byte
 * messages fit 32 bytes.  No hash: the index tag (32 bits of it) and the
 * key compare decide a probe. */
typedef struct kent {
    union {
        kmsg *extra;        /* in use: later messages, arrival order */
        uint32_t next_free; /* free: the next free entry + 1, or 0 */
    };
    uint32_t filled; /* bit p: port p's message is in the tuple */
} kent;

#define KEY_OFF (offsetof(kent, filled) + sizeof(uint32_t))

/* An index slot, read into a uint64_t whatever its width: 0 is empty,
 * else the entry number + 1 in the low ent_bits and above them the tag
 * and distance (narrow: tag << DIST_BITS | distance; wide: the hash's low
 * 32 bits, which also give its home, the cap being at most 2^32). */
#define NARROW_ENT_BITS 24
#define NARROW_ENTS ((1u << NARROW_ENT_BITS) - 1) /* entry numbers + 1 */
#define DIST_BITS 3
#define DIST_MAX ((1u << DIST_BITS) - 1) /* 7: "7 or more" */

/* Entries a narrow index may name (0 .. n - 1): NARROW_ENTS, lowered by
 * tests (graph_join) so that a table crosses to wide slots at a few
 * thousand keys.  Read when a table is created, on the creating thread. */
uint32_t wf__join_key_narrow_ents = NARROW_ENTS;

typedef struct wf__keys {
    const wf_allocator *mem; /* the node's (mem.c) */
    void *idx;               /* cap slots: uint32_t if !wide, else uint64_t */
    size_t cap;              /* index slots, a power of two, >= LANES */
    unsigned bshift;         /* log2(cap / LANES): a lane's bits in pos */
    bool wide;
    uint32_t narrow_ents; /* wf__join_key_narrow_ents at creation */
    size_t key_size;
    char *ents;                /* entries of `stride` bytes, 16-aligned */
    size_t ents_cap, ents_top; /* allocated, ever used */
    uint32_t free;             /* the last freed entry + 1, or 0 */
    size_t stride;
    size_t tuple_off; /* where an entry's tuple starts */
    size_t entries;   /* keys in the table */
    size_t msgs;      /* messages held in the table */
} wf__keys;

#define KEYS_MIN_CAP 64
#define LANES 16 /* index slots a bucket (a line of narrow slots) */
#define LANE_BITS 4
#define KEYS_MIN_BSHIFT 2 /* log2(KEYS_MIN_CAP / LANES) */
_Static_assert(KEYS_MIN_CAP / LANES == 1 << KEYS_MIN_BSHIFT, "bshift");

static size_t round16(size_t n)
{
    return (n + 15) & ~(size_t)15;
}

/* A 64-bit finaliser (MurmurHash3's): keys that differ in any bit land
 * far apart, so linear probing sees few clusters. */
static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    return x ^ (x >> 33);
}

/* A hash's low 4 bits pick the lane, the rest the bucket (its index
 * line).  Keys of up to 8 bytes (ints, the common case) form groups of
 * 16, k..k+15 (k a multiple of 16), that share one mixed bucket and take
 * its 16 lanes (their low bits xor the group's, a permutation).  Keys that
 * arrive in order (sequence numbers, ids) then cost one index cache miss
 * per 16 keys instead of one each, while groups still spread over the
 * whole index and strided keys (multiples of 16) over every lane. */
static uint64_t hash_bytes(const void *key, size_t len)
{
    if (len <= sizeof(uint64_t)) {
        uint64_t v = 0;
        if (len == sizeof(uint32_t)) {
            /* A load of the key's own size: copied into the zeroed v, it
             * would be read back by a wider load than the store that
             * wrote it, which store forwarding cannot serve (a stall of
             * about 8% of g_join_key's time, perf). */
            uint32_t x;
            memcpy(&x, key, sizeof x);
            v = x;
        } else {
            wf__msg_copy(&v, key, len);
        }
        uint64_t m = mix((v >> LANE_BITS) ^ len);
        return (m << LANE_BITS) | ((v ^ m) & (LANES - 1));
    }
    const unsigned char *p = key; /* FNV-1a, then mixed */
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < len; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return mix(h);
}

uint64_t wf__join_key_of(join_node *j, unsigned port, const void *msg,
                         void *key)
{
    if (j->policy == WF_JOIN_TAG_MATCHING) {
        uint64_t tag = j->tag_fns[port](msg, j->ctx);
        memcpy(key, &tag, sizeof tag);
    } else {
        j->key_fns[port](msg, key, j->ctx);
    }
    return hash_bytes(key, j->key_size);
}

static kent *ent(const wf__keys *k, uint32_t e)
{
    return (kent *)(k->ents + (size_t)e * k->stride);
}

static unsigned char *key_in(kent *e)
{
    return (unsigned char *)e + KEY_OFF;
}

static char *tuple_in(wf__keys *k, kent *e)
{
    return (char *)e + k->tuple_off;
}

static bool key_eq(const void *a, const void *b, size_t len)
{
    if (len == sizeof(uint32_t)) { /* the usual int key, without a call */
        uint32_t x, y;
        memcpy(&x, a, sizeof x);
        memcpy(&y, b, sizeof y);
        return x == y;
    }
    if (len == sizeof(uint64_t)) {
        uint64_t x, y;
        memcpy(&x, a, sizeof x);
        memcpy(&y, b, sizeof y);
        return x == y;
    }
    return memcmp(a, b, len) == 0;
}

int wf__join_keys_create(join_node *j)
{
    const wf_allocator *mem = wf__node_mem(&j->base);
    wf__keys *k = wf__mem_calloc(mem, 1, sizeof *k);
    if (k == NULL)
        return WF_ENOMEM;
    k->mem = mem;
    k->tuple_off = round16(KEY_OFF + j->key_size);
    k->stride = round16(k->tuple_off + j->tuple_size);
    k->key_size = j->key_size;
    k->cap = KEYS_MIN_CAP;
    k->bshift = KEYS_MIN_BSHIFT;
    k->narrow_ents = wf__join_key_narrow_ents;
    if ((k->idx = wf__mem_calloc(mem, k->cap, sizeof(uint32_t))) == NULL) {
        wf__mem_free(mem, k);
        return WF_ENOMEM;
    }
    j->keys = k;
    return 0;
}

/* ---- inside the handler -------------------------------------------------- */

/* The slot after s in probe order: the same lane of the next bucket,
 * after the last bucket the next lane's first. */
static size_t next_slot(const wf__keys *k, size_t s)
{
    s += LANES;
    return s < k->cap ? s : (s + 1) & (LANES - 1);
}

/* Slot s's place in probe order (linear probing runs over pos). */
static size_t pos(const wf__keys *k, size_t s)
{
    return ((s & (LANES - 1)) << k->bshift) | (s / LANES);
}

/* Slot accessors.  The hot functions take `wide` as a constant argument
 * and are always inlined, each caller picking one of two copies once
 * (if (k->wide) ... else ...), so the slot width costs no test a probe. */
#define SLOT_FN static inline __attribute__((always_inline))

SLOT_FN uint64_t slot_get(const wf__keys *k, size_t s, bool wide)
{
    return wide ? ((const uint64_t *)k->idx)[s] : ((const uint32_t *)k->idx)[s];
}

SLOT_FN void slot_set(wf__keys *k, size_t s, uint64_t x, bool wide)
{
    if (wide)
        ((uint64_t *)k->idx)[s] = x;
    else
        ((uint32_t *)k->idx)[s] = (uint32_t)x;
}

SLOT_FN unsigned ent_bits(bool wide)
{
    return wide ? 32 : NARROW_ENT_BITS;
}

/* The slot naming entry e (0-based) of the key with this hash, dist
 * slots after its home in probe order. */
SLOT_FN uint64_t slot_of(uint64_t hash, uint32_t e, size_t dist, bool wide)
{
    uint64_t hi = wide ? (uint32_t)hash
                       : (hash >> (64 - 8 + DIST_BITS)) << DIST_BITS |
                             (dist < DIST_MAX ? dist : DIST_MAX);
    return hi << ent_bits(wide) | (e + 1);
}

/* The entry number + 1 a slot names, 0 when empty. */
SLOT_FN uint32_t slot_ent(uint64_t x, bool wide)
{
    return (uint32_t)(x & ((1ull << ent_bits(wide)) - 1));
}

/* How far occupied slot x, at pos p, lies after its home in probe order.
 * A narrow slot holds it up to DIST_MAX - 1, else its key is hashed
 * again; a wide one holds the hash bits that give its home. */
SLOT_FN size_t slot_dist(const wf__keys *k, uint64_t x, size_t p, bool wide)
{
    size_t mask = k->cap - 1;
    if (!wide && (x >> NARROW_ENT_BITS & DIST_MAX) < DIST_MAX)
        return x >> NARROW_ENT_BITS & DIST_MAX;
    uint64_t h =
        wide ? x >> 32
             : hash_bytes(key_in(ent(k, slot_ent(x, false) - 1)), k->key_size);
    return (p - pos(k, h & mask)) & mask;
}

/* Slot x moved dist slots after its home. */
SLOT_FN uint64_t slot_moved(uint64_t x, size_t dist, bool wide)
{
    if (wide)
        return x;
    uint64_t d = dist < DIST_MAX ? dist : DIST_MAX;
    return (x & ~((uint64_t)DIST_MAX << NARROW_ENT_BITS)) |
           d << NARROW_ENT_BITS;
}

/* The index slot of key, or the empty slot where it would go, *dist
 * slots after the key's home, hash & (cap - 1): the hash's lane in its
 * bucket. */
SLOT_FN size_t probe_w(join_node *j, const void *key, uint64_t hash,
                       size_t *dist, bool wide)
{
    wf__keys *k = j->keys;
    size_t i = hash & (k->cap - 1);
    for (size_t t = 0;; t++, i = next_slot(k, i)) {
        uint64_t x = slot_get(k, i, wide);
        *dist = t;
        if (x == 0)
            return i;
        /* e + 1 == 0: the tag and distance a slot of this key has here */
        uint64_t want = slot_of(hash, UINT32_MAX, t, wide);
        if ((x ^ want) >> ent_bits(wide) == 0) {
            kent *e = ent(k, slot_ent(x, wide) - 1);
            if (key_eq(key_in(e), key, j->key_size))
                return i;
        }
    }
}

/* Move the old index's slots into big's (empty), which may differ in
 * width from the old one: each key is hashed again (narrow slots hold too
 * little of the hash), wide to wide excepted. */
static void rehash_into(const wf__keys *k, wf__keys *big)
{
    for (size_t i = 0; i < k->cap; i++) {
        uint64_t x = slot_get(k, i, k->wide);
        if (x == 0)
            continue;
        uint32_t e = slot_ent(x, k->wide) - 1;
        uint64_t h =
            k->wide ? x >> 32 : hash_bytes(key_in(ent(k, e)), k->key_size);
        size_t d = h & (big->cap - 1), t = 0;
        for (; slot_get(big, d, big->wide); t++)
            d = next_slot(big, d);
        slot_set(big, d, slot_of(h, e, t, big->wide), big->wide);
    }
}

/* Keep the index at most half full, and wide once a new entry's number
 * (up to ents_top) may not fit a narrow slot; a wide index stays wide,
 * reset included.  False when it could not grow and has no room for one
 * more key (a probe must always reach an empty slot, and a narrow one
 * name the new entry). */
static bool index_room(wf__keys *k)
{
    bool widen = !k->wide && k->ents_top >= k->narrow_ents;
    bool grow = (k->entries + 1) * 2 > k->cap;
    if (!widen && !grow)
        return true;
    wf__keys big = *k;
    big.wide = k->wide || widen;
    big.cap = grow ? k->cap * 2 : k->cap;
    big.bshift = grow ? k->bshift + 1 : k->bshift;
    big.idx = big.cap >= k->cap && big.cap <= UINT32_MAX
                  ? wf__mem_calloc(k->mem, big.cap, big.wide ? 8 : 4)
                  : NULL;
    if (big.idx == NULL) /* longer probes, still correct */
        return (!widen || k->free) && k->entries + 2 <= k->cap;
    rehash_into(k, &big);
    wf__mem_free(k->mem, k->idx);
    k->idx = big.idx;
    k->cap = big.cap;
    k->bshift = big.bshift;
    k->wide = big.wide;
    return true;
}

/* A new entry: the last freed one, else the next never used; UINT32_MAX
 * when there is no memory. */
static uint32_t new_entry(wf__keys *k)
{
    if (k->free) {
        uint32_t e = k->free - 1;
        k->free = ent(k, e)->next_free;
        return e;
    }
    if (k->ents_top == k->ents_cap) {
        size_t n = k->ents_cap ? k->ents_cap * 2 : KEYS_MIN_CAP;
        /* 16-aligned (mem.c), as the stride is a multiple of 16. */
        char *ents = n < UINT32_MAX
                         ? wf__mem_alloc_aligned(k->mem, n * k->stride, 16)
                         : NULL;
        if (ents == NULL)
            return UINT32_MAX;
        if (k->ents_top)
            memcpy(ents, k->ents, k->ents_top * k->stride);
        wf__mem_free(k->mem, k->ents);
        k->ents = ents;
        k->ents_cap = n;
    }
    return (uint32_t)k->ents_top++;
}

/* Remove the key at index slot i and free its entry; the index slots after
 * it that probed past it shift back (deletion without tombstones). */
SLOT_FN void remove_w(wf__keys *k, size_t i, bool wide)
{
    uint32_t e = slot_ent(slot_get(k, i, wide), wide) - 1;
    ent(k, e)->next_free = k->free;
    k->free = e + 1;
    size_t mask = k->cap - 1;
    for (size_t d = next_slot(k, i);; d = next_slot(k, d)) {
        uint64_t x = slot_get(k, d, wide);
        if (x == 0)
            break;
        /* It may move to i if its home is not within (i, d] (in pos). */
        size_t pd = pos(k, d), dist = slot_dist(k, x, pd, wide);
        size_t gap = (pd - pos(k, i)) & mask;
        if (dist >= gap) {
            slot_set(k, i, slot_moved(x, dist - gap, wide), wide);
            i = d;
        }
    }
    slot_set(k, i, 0, wide);
    k->entries--;
}

static void remove_at(wf__keys *k, size_t i)
{
    if (k->wide)
        remove_w(k, i, true);
    else
        remove_w(k, i, false);
}

/* After a tuple left: each port's oldest waiting message moves in. */
static void refill(join_node *j, kent *e)
{
    for (kmsg **p = &e->extra, *m; (m = *p) != NULL;) {
        uint32_t bit = 1u << m->port;
        if (e->filled & bit) {
            p = &m->next;
            continue;
        }
        wf__msg_copy(tuple_in(j->keys, e) + j->offset[m->port], m->data,
                     j->base.in[m->port].size);
        e->filled |= bit;
        *p = m->next;
        wf__mem_free(j->keys->mem, m);
    }
}

/* A message behind the one its port already holds for the key. */
static int add_extra(join_node *j, kent *e, const join_op *op)
{
    size_t size = j->base.in[op->port].size;
    kmsg *m = wf__mem_alloc(j->keys->mem, sizeof *m + size);
    if (m == NULL)
        return WF_ENOMEM;
    wf__msg_copy(m->data, op->msg, size);
    m->port = op->port;
    m->next = NULL;
    kmsg **p = &e->extra;
    while (*p)
        p = &(*p)->next;
    *p = m;
    return 0;
}

void wf__join_key_put(join_node *j, join_op *op)
{
    wf__keys *k = j->keys;
    bool room = index_room(k);
    size_t dist;
    size_t i = k->wide ? probe_w(j, op->key, op->hash, &dist, true)
                       : probe_w(j, op->key, op->hash, &dist, false);
    uint32_t x = slot_ent(slot_get(k, i, k->wide), k->wide);
    kent *e;
    if (x == 0) {
        uint32_t n = room ? new_entry(k) : UINT32_MAX;
        if (n == UINT32_MAX) {
            op->result = WF_ENOMEM;
            return;
        }
        if (!k->wide && n >= k->narrow_ents) /* index_room widens first */
            WF_BUG("key table: an entry number past a narrow slot's");
        slot_set(k, i, slot_of(op->hash, n, dist, k->wide), k->wide);
        e = ent(k, n);
        e->filled = 0;
        e->extra = NULL;
        wf__msg_copy(key_in(e), op->key, j->key_size);
        k->entries++;
    } else {
        e = ent(k, x - 1);
    }
    uint32_t bit = 1u << op->port;
    if (!(e->filled & bit)) {
        wf__msg_copy(tuple_in(k, e) + j->offset[op->port], op->msg,
                     j->base.in[op->port].size);
        e->filled |= bit;
    } else if ((op->result = add_extra(j, e, op)) != 0) {
        return; /* the key held a message already: the entry stays */
    }
    k->msgs++;
    op->result = WF__ACCEPT;
    uint32_t all = (1u << j->n) - 1; /* n <= WF_JOIN_MAX_PORTS (16) */
    if (e->filled == all && e->extra == NULL && op->out &&
        wf__store_may_skip(&j->base, &j->store)) {
        /* The only tuple this put forms goes to the caller as it is, not
         * through the store; the store did not change (no settle). */
        wf__msg_copy(op->out, tuple_in(k, e), j->tuple_size);
        op->direct = true;
        k->msgs -= j->n;
        remove_at(k, i);
        return;
    }
    /* With no room for the tuple, it waits in the table (still accepted)
     * and forms at the key's next put. */
    while (e->filled == all && wf__fifo_grow(&j->store.q) == 0) {
        wf__fifo_push(&j->store.q, tuple_in(k, e));
        k->msgs -= j->n;
        e->filled = 0;
        refill(j, e);
    }
    if (e->filled == 0)
        remove_at(k, i);
    wf__join_put_done(j, op);
}

void wf__join_key_reset(join_node *j)
{
    wf__keys *k = j->keys;
    for (size_t i = 0; i < k->cap; i++) {
        uint32_t x = slot_ent(slot_get(k, i, k->wide), k->wide);
        if (x == 0)
            continue;
        for (kmsg *m = ent(k, x - 1)->extra, *next; m; m = next) {
            next = m->next;
            wf__mem_free(k->mem, m);
        }
        slot_set(k, i, 0, k->wide);
    }
    k->entries = k->msgs = 0;
    k->ents_top = 0;
    k->free = 0;
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
    const wf_allocator *mem = j->keys->mem;
    wf__mem_free(mem, j->keys->idx);
    wf__mem_free(mem, j->keys->ents);
    wf__mem_free(mem, j->keys);
    j->keys = NULL;
}
