/* SPDX-License-Identifier: Apache-2.0 */
/* graph_bodies_stress: many threads through multifunction, indexer and
 * async nodes; every message arrives exactly as often as it should.
 *
 * Usage: graph_bodies_stress [N [producers [workers]]]   (N messages per
 * topology, default 200000; 4 producer threads; a pool of 2 workers)
 *
 * Each topology gets the values 0..N-1 from `producers` threads at once:
 *   multifunction (limit 3): v to port v % 2, and to port 2 twice when
 *     v % 3 == 0; each port feeds a counting function_node.
 *     Oracle: port 0 saw every even v once, port 1 every odd v once,
 *     port 2 every multiple of 3 twice, and nothing else.
 *   indexer (3 ports, v put at port v % 3) -> counting function_node.
 *     Oracle: every v once, tagged v % 3.
 *   async (limit 4): each body reserves, hands v to one of two outside
 *     threads, which answer 3v through the gateway to a counting
 *     function_node and release.
 *     Oracle: when wf_graph_wait_for_all returns, every 3v was counted
 *     exactly once (the graph waited for the outside threads). */
#include "graph_service.h"

static long n_msgs;
static int n_producers;

typedef struct {
    _Atomic unsigned char *seen[3]; /* per port (multifunction) */
    _Atomic long bad;
} counts;

static counts *counts_new(void)
{
    counts *c = calloc(1, sizeof *c);
    CHECK(c != NULL);
    for (int i = 0; i < 3; i++)
        CHECK((c->seen[i] = calloc((size_t)n_msgs, 1)) != NULL);
    return c;
}

static void counts_free(counts *c)
{
    for (int i = 0; i < 3; i++)
        free((void *)c->seen[i]);
    free(c);
}

static void see(counts *c, int port, long v)
{
    if (v < 0 || v >= n_msgs)
        atomic_fetch_add(&c->bad, 1);
    else
        atomic_fetch_add(&c->seen[port][v], 1);
}

/* ---- producers ----------------------------------------------------------- */

typedef struct {
    wf_node *to;
    int id;
    bool by_port; /* indexer: v goes to input port v % 3 */
} producer_arg;

static void *producer(void *p)
{
    producer_arg *a = p;
    for (long v = a->id; v < n_msgs; v += n_producers) {
        int r = a->by_port
                    ? wf_try_put(wf_input_port(a->to, (unsigned)(v % 3)), &v)
                    : wf_try_put(a->to, &v);
        CHECK_MSG(r == 1, "put %ld: %d", v, r);
    }
    return NULL;
}

static void feed(wf_node *to, bool by_port)
{
    pthread_t th[16];
    producer_arg args[16];
    for (int i = 0; i < n_producers; i++) {
        args[i] = (producer_arg){to, i, by_port};
        CHECK(pthread_create(&th[i], NULL, producer, &args[i]) == 0);
    }
    for (int i = 0; i < n_producers; i++)
        pthread_join(th[i], NULL);
}

/* A function_node body per port: counts v at its port. */
typedef struct {
    counts *c;
    int port;
} sink;

static int sink_body(const void *in, void *out, void *ctx)
{
    (void)out;
    sink *s = ctx;
    see(s->c, s->port, *(const long *)in);
    return 0;
}

/* ---- multifunction ------------------------------------------------------- */

static int split_body(const void *in, wf_output_ports *ports, void *ctx)
{
    (void)ctx;
    long v = *(const long *)in;
    CHECK(wf_output_put(ports, (unsigned)(v % 2), &v) == 1);
    if (v % 3 == 0)
        for (int k = 0; k < 2; k++)
            CHECK(wf_output_put(ports, 2, &v) == 1);
    return 0;
}

static void run_multifunction(wf_pool *pool)
{
    double t0 = check_now();
    wf_graph *g = gt_graph(pool);
    counts *c = counts_new();
    const size_t sizes[3] = {sizeof(long), sizeof(long), sizeof(long)};
    wf_multifunction_config mc = WF_MULTIFUNCTION_CONFIG_INIT;
    mc.in_size = sizeof(long);
    mc.out_ports = 3;
    mc.out_sizes = sizes;
    mc.concurrency = 3;
    mc.body = split_body;
    wf_node *mf;
    CHECK_OK(wf_multifunction_node_create(&mf, g, &mc));
    sink sinks[3];
    wf_node *f[3];
    for (int i = 0; i < 3; i++) {
        sinks[i] = (sink){c, i};
        f[i] = gt_function(g, sizeof(long), 0, WF_UNLIMITED, WF_QUEUEING,
                           sink_body, &sinks[i]);
        CHECK_OK(wf_make_edge(wf_output_port(mf, (unsigned)i), f[i]));
    }
    feed(mf, false);
    CHECK_OK(wf_graph_wait_for_all(g));
    for (long v = 0; v < n_msgs; v++) {
        CHECK_MSG(atomic_load(&c->seen[0][v]) == (v % 2 == 0), "port 0: %ld",
                  v);
        CHECK_MSG(atomic_load(&c->seen[1][v]) == (v % 2 == 1), "port 1: %ld",
                  v);
        CHECK_MSG(atomic_load(&c->seen[2][v]) == (v % 3 == 0 ? 2 : 0),
                  "port 2: %ld", v);
    }
    CHECK_EQ(atomic_load(&c->bad), 0);
    GT_DESTROY(g, mf, f[0], f[1], f[2]);
    counts_free(c);
    printf("multifunction: %ld messages in %.2f s\n", n_msgs, check_now() - t0);
}

/* ---- indexer ------------------------------------------------------------- */

static int tagged_body(const void *in, void *out, void *ctx)
{
    (void)out;
    counts *c = ctx;
    const wf_tagged_msg *m = in;
    long v = *(const long *)m->value;
    if ((long)m->port != v % 3)
        atomic_fetch_add(&c->bad, 1);
    see(c, 0, v);
    return 0;
}

static void run_indexer(wf_pool *pool)
{
    double t0 = check_now();
    wf_graph *g = gt_graph(pool);
    counts *c = counts_new();
    const size_t sizes[3] = {sizeof(long), sizeof(long), sizeof(long)};
    wf_node *ix;
    CHECK_OK(wf_indexer_node_create(&ix, g, 3, sizes));
    wf_node *f = gt_function(g, WF_TAGGED_MSG_SIZE(sizeof(long)), 0,
                             WF_UNLIMITED, WF_QUEUEING, tagged_body, c);
    CHECK_OK(wf_make_edge(ix, f));
    feed(ix, true);
    CHECK_OK(wf_graph_wait_for_all(g));
    for (long v = 0; v < n_msgs; v++)
        CHECK_MSG(atomic_load(&c->seen[0][v]) == 1, "indexer: %ld seen %d", v,
                  atomic_load(&c->seen[0][v]));
    CHECK_EQ(atomic_load(&c->bad), 0);
    GT_DESTROY(g, ix, f);
    counts_free(c);
    printf("indexer: %ld messages in %.2f s\n", n_msgs, check_now() - t0);
}

/* ---- async --------------------------------------------------------------- */

static service services[2];

static int async_body(const void *in, wf_gateway *gw, void *ctx)
{
    (void)ctx;
    long v = *(const long *)in;
    service_submit(&services[v % 2], v, gw);
    return 0;
}

static int thirds_body(const void *in, void *out, void *ctx)
{
    (void)out;
    long v = *(const long *)in;
    if (v % 3 != 0)
        atomic_fetch_add(&((counts *)ctx)->bad, 1);
    see(ctx, 0, v / 3);
    return 0;
}

static void run_async(wf_pool *pool)
{
    double t0 = check_now();
    for (int i = 0; i < 2; i++)
        service_start(&services[i], 0, 2000);
    wf_graph *g = gt_graph(pool);
    counts *c = counts_new();
    wf_async_config ac = WF_ASYNC_CONFIG_INIT;
    ac.in_size = sizeof(long);
    ac.out_size = sizeof(long);
    ac.concurrency = 4;
    ac.body = async_body;
    wf_node *an;
    CHECK_OK(wf_async_node_create(&an, g, &ac));
    wf_node *f = gt_function(g, sizeof(long), 0, WF_UNLIMITED, WF_QUEUEING,
                             thirds_body, c);
    CHECK_OK(wf_make_edge(an, f));
    feed(an, false);
    CHECK_OK(wf_graph_wait_for_all(g));
    /* Checked before the services stop: the wait alone covered them. */
    for (long v = 0; v < n_msgs; v++)
        CHECK_MSG(atomic_load(&c->seen[0][v]) == 1, "async: %ld seen %d", v,
                  atomic_load(&c->seen[0][v]));
    CHECK_EQ(atomic_load(&c->bad), 0);
    CHECK_EQ(atomic_load(&services[0].answered) +
                 atomic_load(&services[1].answered),
             n_msgs);
    GT_DESTROY(g, an, f);
    for (int i = 0; i < 2; i++) {
        CHECK_EQ(atomic_load(&services[i].put_failed), 0);
        service_stop(&services[i]);
    }
    counts_free(c);
    printf("async: %ld messages in %.2f s\n", n_msgs, check_now() - t0);
}

int main(int argc, char **argv)
{
    n_msgs = argc > 1 ? atol(argv[1]) : 200000;
    n_producers = argc > 2 ? atoi(argv[2]) : 4;
    unsigned workers = argc > 3 ? (unsigned)atoi(argv[3]) : 2;
    CHECK(n_msgs >= 1 && n_msgs <= 100000000);
    CHECK(n_producers >= 1 && n_producers <= 16);
    CHECK(workers >= 1 && workers <= 64);
    wf_pool *pool = gt_pool(workers);
    run_multifunction(pool);
    run_indexer(pool);
    run_async(pool);
    CHECK_OK(wf_pool_destroy(pool));
    CHECK_DONE("graph_bodies_stress");
}
