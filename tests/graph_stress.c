/* SPDX-License-Identifier: Apache-2.0 */
/* graph_stress: many threads push through joins; every message is consumed
 * exactly once.
 *
 * Usage: graph_stress [N [producers [workers]]]   (N messages per topology,
 * default 10^6; 4 producer threads; a pool of 2 workers)
 *
 * Two topologies, each fed with the values 0..N-1 (even values to port 0,
 * odd ones to port 1), half of them by `producers` threads of their own
 * and half by the pool's workers (a parallel_for whose bodies put),
 * all at once:
 *   A: queue_node x2 -> join_node<queueing>  -> function_node(unlimited)
 *   B: buffer_node x2 -> join_node<reserving> -> function_node(unlimited)
 * Oracle: the function bodies count each value (every one exactly once),
 * the number of tuples is N/2, two checksums (sum and sum of squares mod
 * 2^64) match, each tuple pairs an even with an odd value, and the
 * buffers are empty at the end. */
#include <pthread.h>

#include "graph_test.h"

typedef struct {
    wf_node *in[2]; /* the two buffers feeding the join */
    wf_node *join;
    _Atomic unsigned char *seen;
    _Atomic uint64_t sum, squares;
    _Atomic long tuples;
    _Atomic int bad_pairs;
} topo;

static long n_msgs;
static int n_producers;

static void put_value(topo *t, uint32_t v)
{
    int r = wf_try_put(t->in[v & 1], &v);
    if (r != 1) {
        fprintf(stderr, "put %u: %d (%s)\n", v, r, wf_strerror(r));
        exit(1);
    }
}

static int count_body(const void *in, void *out, void *ctx)
{
    (void)out;
    topo *t = ctx;
    uint32_t a = *(uint32_t *)wf_tuple_get(in, t->join, 0);
    uint32_t b = *(uint32_t *)wf_tuple_get(in, t->join, 1);
    if ((a & 1) != 0 || (b & 1) != 1)
        atomic_fetch_add(&t->bad_pairs, 1);
    atomic_fetch_add(&t->seen[a], 1);
    atomic_fetch_add(&t->seen[b], 1);
    atomic_fetch_add(&t->sum, (uint64_t)a + b);
    atomic_fetch_add(&t->squares, (uint64_t)a * a + (uint64_t)b * b);
    atomic_fetch_add(&t->tuples, 1);
    return 0;
}

/* ---- producers ----------------------------------------------------------- */

typedef struct {
    topo *t;
    int id;
} producer_arg;

/* Producer threads take the first half, interleaved. */
static void *producer(void *p)
{
    producer_arg *a = p;
    for (long v = a->id; v < n_msgs / 2; v += n_producers)
        put_value(a->t, (uint32_t)v);
    return NULL;
}

/* The pool's workers take the second half. */
static void put_range(size_t begin, size_t end, void *ctx)
{
    for (size_t v = begin; v < end; v++)
        put_value(ctx, (uint32_t)(n_msgs / 2 + v));
}

typedef struct {
    wf_pool *pool;
    topo *t;
} pool_arg;

static void pool_puts(void *p)
{
    pool_arg *a = p;
    CHECK_OK(wf_parallel_for(a->pool, 0, (size_t)(n_msgs - n_msgs / 2), 1024,
                             put_range, a->t));
}

static void feed(wf_pool *pool, topo *t)
{
    pthread_t th[16];
    producer_arg args[16];
    for (int i = 0; i < n_producers; i++) {
        args[i] = (producer_arg){t, i};
        CHECK(pthread_create(&th[i], NULL, producer, &args[i]) == 0);
    }
    pool_arg pa = {pool, t};
    CHECK_OK(wf_run(pool, pool_puts, &pa));
    for (int i = 0; i < n_producers; i++)
        pthread_join(th[i], NULL);
}

/* ---- one topology -------------------------------------------------------- */

static void check(topo *t)
{
    uint64_t sum = 0, squares = 0;
    for (long v = 0; v < n_msgs; v++) {
        CHECK_MSG(atomic_load(&t->seen[v]) == 1, "value %ld seen %d times", v,
                  atomic_load(&t->seen[v]));
        sum += (uint64_t)v;
        squares += (uint64_t)v * (uint64_t)v;
    }
    CHECK_EQ(atomic_load(&t->tuples), n_msgs / 2);
    CHECK_EQ(atomic_load(&t->bad_pairs), 0);
    CHECK(atomic_load(&t->sum) == sum);
    CHECK(atomic_load(&t->squares) == squares);
    uint32_t left;
    CHECK_EQ(wf_try_get(t->in[0], &left), 0);
    CHECK_EQ(wf_try_get(t->in[1], &left), 0);
}

static void run(wf_pool *pool, wf_join_policy policy, const char *name)
{
    double t0 = check_now();
    wf_graph *g = gt_graph(pool);
    topo t = {.seen = calloc((size_t)n_msgs, 1)};
    CHECK(t.seen != NULL);
    size_t sizes[2] = {sizeof(uint32_t), sizeof(uint32_t)};
    for (int i = 0; i < 2; i++)
        t.in[i] = policy == WF_JOIN_QUEUEING ? gt_queue(g, sizeof(uint32_t))
                                             : gt_buffer(g, sizeof(uint32_t));
    t.join = gt_join(g, 2, sizes, policy);
    wf_node *f = gt_function(g, wf_port_msg_size(wf_output_port(t.join, 0)), 0,
                             WF_UNLIMITED, WF_QUEUEING, count_body, &t);
    CHECK_OK(wf_make_edge(t.in[0], wf_input_port(t.join, 0)));
    CHECK_OK(wf_make_edge(t.in[1], wf_input_port(t.join, 1)));
    CHECK_OK(wf_make_edge(t.join, f));
    feed(pool, &t);
    CHECK_OK(wf_graph_wait_for_all(g));
    check(&t);
    GT_DESTROY(g, t.in[0], t.in[1], t.join, f);
    free((void *)t.seen);
    printf("%s: %ld messages in %.2f s\n", name, n_msgs, check_now() - t0);
}

int main(int argc, char **argv)
{
    n_msgs = argc > 1 ? atol(argv[1]) : 1000000;
    n_producers = argc > 2 ? atoi(argv[2]) : 4;
    CHECK(n_msgs >= 2 && n_msgs % 2 == 0 && n_msgs <= 100000000);
    unsigned workers = argc > 3 ? (unsigned)atoi(argv[3]) : 2;
    CHECK(n_producers >= 1 && n_producers <= 16);
    CHECK(workers >= 1 && workers <= 64);
    wf_pool *pool = gt_pool(workers);
    run(pool, WF_JOIN_QUEUEING, "queue -> join<queueing> -> function");
    run(pool, WF_JOIN_RESERVING, "buffer -> join<reserving> -> function");
    CHECK_OK(wf_pool_destroy(pool));
    CHECK_DONE("graph_stress");
}
