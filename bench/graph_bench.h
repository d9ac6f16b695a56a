/* Flow-graph workloads: the state that the harness (graph_harness.c, C)
 * and both systems' graphs (graph_weft.c, graph_tbb.cpp) share.
 *
 * Every workload has the same topology and node bodies in both systems:
 *
 *   chain      8 serial function nodes in a row; each adds 1 to an int;
 *              the last also adds it to `sum`.  n messages put at the head.
 *   broadcast  a broadcast node into 4 unlimited function nodes, each
 *              adding the int to its own sums[k].  n messages.
 *   join_q     two queue nodes into a queueing join into an unlimited
 *              function node that adds a + b.  n pairs (i, 2i).
 *   join_r     the same with two buffer nodes and a reserving join.
 *   join_key   two queue nodes into a key_matching join (key = .key); the
 *              second port gets the keys in reverse order, so matching is
 *              real work; the function node counts pairs whose keys differ.
 *   wavefront  rows x cols continue nodes, (i, j) signalled by (i-1, j) and
 *              (i, j-1); a body stamps its cell from a shared clock.  n
 *              sweeps, each started by a signal to (0, 0).
 *   latency    the chain, one message at a time: put, wait_for_all.
 *
 * Bodies update the shared counters with relaxed atomic adds: the sums are
 * order-independent, and wait_for_all orders them before the check. */
#ifndef WEFT_BENCH_GRAPH_H
#define WEFT_BENCH_GRAPH_H

#include "bench.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GB_CHAIN 8
#define GB_FANOUT 4

typedef struct {
    int32_t key, val;
} gb_kv;

typedef struct gb_state {
    const char *name;
    long n;         /* messages, or sweeps of the wavefront */
    int rows, cols; /* wavefront */
    uint64_t sum, count, mismatches, clock;
    uint64_t sums[GB_FANOUT];
    uint64_t *stamp;  /* wavefront: last sweep's clock per cell */
    uint32_t *visits; /* wavefront: runs per cell */
    /* The system's graph, built on the first run on a runtime and reused
     * while the runtime stays the same (key), so runs time messages, not
     * construction.  Freed by cache_free at teardown or on a new key. */
    void *cache;
    long cache_key;
    void (*cache_free)(void *cache);
} gb_state;

/* Body work shared by both systems. */
static inline void gb_add(uint64_t *p, uint64_t v)
{
    __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
}

static inline void gb_stamp(gb_state *s, int i, int j)
{
    size_t cell = (size_t)i * (size_t)s->cols + (size_t)j;
    s->stamp[cell] = __atomic_fetch_add(&s->clock, 1, __ATOMIC_RELAXED) + 1;
    s->visits[cell]++; /* one body per cell at a time: its preds are done */
}

/* Drop a cached graph built for another runtime. */
static inline void gb_cache_check(gb_state *s, long key)
{
    if (s->cache && s->cache_key != key) {
        s->cache_free(s->cache);
        s->cache = NULL;
    }
    s->cache_key = key;
}

#ifdef __cplusplus
}
#endif
#endif /* WEFT_BENCH_GRAPH_H */
