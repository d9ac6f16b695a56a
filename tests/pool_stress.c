/* SPDX-License-Identifier: Apache-2.0 */
/* pool_stress: random fork-join trees, run from several threads at once.
 *
 *   usage: test_pool_stress WORKERS RUNNERS ROUNDS DEPTH
 *
 * Each node of a tree spawns 1-3 children (frames on its stack, so frame
 * addresses recur all the time), does some of the work itself, and joins
 * the children in an order drawn from its seed (in order, reversed, or
 * rotated).  A node's value is a hash of its seed plus its children's
 * values, so the root's value is a checksum of every node, and each run
 * also counts the nodes it visited.  RUNNERS plain threads call wf_run on
 * the same pool at once while the main thread runs wf_parallel_for and
 * wf_submit on it (fewer runners than workers leaves thieves idle, so
 * stealing is frequent): the pool's entry points, stealing, leapfrogging and
 * parking all interleave.
 *
 * Oracle: every tree's checksum and node count equal the sequential
 * computation of the same tree; every loop index and every submitted task
 * is seen exactly once.  Under TSan, any race in the pool fails the test. */
#include <pthread.h>
#include <string.h>

#include "check.h"

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return x;
}

/* The same tree, sequentially: value and node count. */
static uint64_t tree_seq(uint64_t seed, int depth, long *nodes)
{
    ++*nodes;
    uint64_t v = mix(seed);
    if (depth == 0)
        return v;
    int k = 1 + (int)(seed % 3);
    for (int i = 0; i < k; i++)
        v += tree_seq(mix(seed + (uint64_t)i + 1), depth - 1, nodes);
    return v;
}

typedef struct {
    wf_task task;
    uint64_t seed;
    int depth;
    uint64_t out;
    long nodes;
} node;

static uint64_t tree_par(uint64_t seed, int depth, long *nodes);

static void node_body(wf_task *t)
{
    node *n = (node *)t;
    n->nodes = 0;
    n->out = tree_par(n->seed, n->depth, &n->nodes);
}

static uint64_t tree_par(uint64_t seed, int depth, long *nodes)
{
    ++*nodes;
    uint64_t v = mix(seed);
    if (depth == 0)
        return v;
    int k = 1 + (int)(seed % 3);
    node c[3];
    /* Child 0 runs here, the others are spawned: 0..2 spawns per node. */
    for (int i = 1; i < k; i++) {
        c[i] = (node){.seed = mix(seed + (uint64_t)i + 1), .depth = depth - 1};
        CHECK_OK(wf_spawn(&c[i].task, node_body));
    }
    v += tree_par(mix(seed + 1), depth - 1, nodes);
    unsigned order =
        (unsigned)(seed >> 40) % 3; /* in order, reversed, rotated */
    for (int j = 0; j < k - 1; j++) {
        int i = order == 0   ? 1 + j
                : order == 1 ? k - 1 - j
                             : 1 + (j + 1) % (k - 1);
        CHECK_OK(wf_join(&c[i].task));
    }
    for (int i = 1; i < k; i++) {
        v += c[i].out;
        *nodes += c[i].nodes;
    }
    return v;
}

typedef struct {
    uint64_t seed;
    int depth;
    uint64_t out;
    long nodes;
} tree_job;

static void tree_root(void *arg)
{
    tree_job *j = arg;
    j->nodes = 0;
    j->out = tree_par(j->seed, j->depth, &j->nodes);
}

typedef struct {
    pthread_t thread;
    wf_pool *pool;
    int rounds, depth, id;
    long nodes; /* total checked, for the report */
} runner;

static void *runner_main(void *arg)
{
    runner *r = arg;
    for (int i = 0; i < r->rounds; i++) {
        tree_job j = {.seed = mix((uint64_t)r->id << 32 | (uint64_t)i),
                      .depth = r->depth - (i % 3)};
        CHECK_OK(wf_run(r->pool, tree_root, &j));
        long want_nodes = 0;
        uint64_t want = tree_seq(j.seed, j.depth, &want_nodes);
        CHECK_MSG(j.out == want && j.nodes == want_nodes,
                  "tree %d/%d: checksum %llx nodes %ld, expected %llx %ld",
                  r->id, i, (unsigned long long)j.out, j.nodes,
                  (unsigned long long)want, want_nodes);
        r->nodes += j.nodes;
    }
    return NULL;
}

/* Main thread's share: loops and submissions on the same pool. */
enum { LOOP_N = 50000, NSUB = 2000 };
static _Atomic int loop_hits[LOOP_N];
static _Atomic int sub_hits[NSUB];

static void loop_body(size_t b, size_t e, void *ctx)
{
    (void)ctx;
    for (size_t i = b; i < e; i++)
        atomic_fetch_add_explicit(&loop_hits[i], 1, memory_order_relaxed);
}

typedef struct {
    wf_task task;
    int idx;
} sub_task;

static void sub_body(wf_task *t)
{
    sub_task *s = (sub_task *)t;
    long n = 0;
    tree_par((uint64_t)s->idx, 4, &n); /* a small tree of its own */
    atomic_fetch_add(&sub_hits[s->idx], 1);
    free(s);
}

static void main_share(wf_pool *p, int rounds)
{
    for (int r = 0; r < rounds; r++) {
        memset(loop_hits, 0, sizeof loop_hits);
        CHECK_OK(wf_parallel_for(p, 0, LOOP_N, (size_t)(r % 4) * 100, loop_body,
                                 NULL));
        for (int i = 0; i < LOOP_N; i++)
            CHECK_EQ(atomic_load(&loop_hits[i]), 1);
    }
    memset(sub_hits, 0, sizeof sub_hits);
    for (int i = 0; i < NSUB; i++) {
        sub_task *s = calloc(1, sizeof *s);
        CHECK(s != NULL);
        s->idx = i;
        CHECK_OK(wf_submit(p, &s->task, sub_body));
    }
}

int main(int argc, char **argv)
{
    unsigned threads = argc > 1 ? (unsigned)atoi(argv[1]) : 2;
    int nrun = argc > 2 ? atoi(argv[2]) : 1;
    int rounds = argc > 3 ? atoi(argv[3]) : 20;
    int depth = argc > 4 ? atoi(argv[4]) : 12;
    CHECK_MSG(threads >= 1 && nrun >= 1 && nrun <= 8 && rounds > 0 &&
                  depth >= 3,
              "usage: %s WORKERS RUNNERS(1-8) ROUNDS DEPTH", argv[0]);
    wf_pool_config cfg = WF_POOL_CONFIG_INIT;
    cfg.threads = threads;
    cfg.deque_capacity = 2; /* grow often */
    wf_pool *p = NULL;
    CHECK_OK(wf_pool_create(&p, &cfg));
    double t0 = check_now();
    runner rs[8];
    for (int i = 0; i < nrun; i++) {
        rs[i] = (runner){.pool = p, .rounds = rounds, .depth = depth, .id = i};
        CHECK(pthread_create(&rs[i].thread, NULL, runner_main, &rs[i]) == 0);
    }
    main_share(p, rounds < 20 ? rounds : 20);
    long nodes = 0;
    for (int i = 0; i < nrun; i++) {
        CHECK(pthread_join(rs[i].thread, NULL) == 0);
        nodes += rs[i].nodes;
    }
    CHECK_OK(wf_pool_wait_idle(p));
    for (int i = 0; i < NSUB; i++)
        CHECK_MSG(atomic_load(&sub_hits[i]) == 1,
                  "submitted task %d ran %d "
                  "times",
                  i, atomic_load(&sub_hits[i]));
    wf_worker_stats st[64];
    int n = wf_pool_stats(p, st, 64);
    CHECK_EQ(n, threads - 1 + WF_CALLER_SLOTS);
    uint64_t steals = 0, parks = 0, spawns = 0;
    for (int i = 0; i < n; i++) {
        steals += st[i].steals;
        parks += st[i].parks;
        spawns += st[i].spawns;
    }
    printf("pool_stress: %u workers, %d runners, %d trees of %ld nodes in "
           "all, %.2f s; "
           "spawns %llu, steals %llu, parks %llu\n",
           threads, nrun, nrun * rounds, nodes, check_now() - t0,
           (unsigned long long)spawns, (unsigned long long)steals,
           (unsigned long long)parks);
    CHECK_OK(wf_pool_destroy(p));
    CHECK_DONE("pool_stress");
}
