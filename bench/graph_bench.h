/* SPDX-License-Identifier: Apache-2.0 */
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
 *   latency    the chain, one message at a time: put, wait_for_all; each
 *              round trip timed on its own (gb_now_ns) into rtt_ns[].
 *
 * Every kernel is a user's main(): the runner's main thread calls it
 * outside the runtime (bench_system_run_graph), and it puts and waits
 * itself.  Bodies update the shared counters with relaxed atomic adds: the
 * sums are order-independent, and wait_for_all orders them before the
 * check.
 *
 * A file that includes this one defines _POSIX_C_SOURCE first (C) for
 * clock_gettime. */
#ifndef WEFT_BENCH_GRAPH_H
#define WEFT_BENCH_GRAPH_H

#include <time.h>

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
    uint64_t *rtt_ns; /* latency: each round trip of the last run, ns */
    /* The system's graph, built before the first run for a thread count
     * (bench_system_build) and reused while the key (weft's pool, oneTBB's
     * T) stays the same, so runs time messages, not construction.  Freed
     * by cache_free at teardown or on a new key. */
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

/* CLOCK_MONOTONIC in nanoseconds: a vDSO call, no system call, so it can
 * time each round trip of g_latency without a batch around it. */
static inline uint64_t gb_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
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
