/* SPDX-License-Identifier: Apache-2.0 */
/* cxx_smoke: weft's C headers from C++.
 *
 * Built with -std=c++17 -Wall -Wextra -pedantic -Werror, so a construct of
 * the headers that C++ rejects or warns about fails the build.  Proves:
 * every public struct has the same size, alignment and field offsets in
 * C++ as in C (cxx_layout.h); the inline fast path of weft/pool.h works
 * from C++: a fork-join fib through wf_spawn / wf_join / wf_join_fn in
 * wf_run gives the right values, and the pool's spawn counter (kept by
 * that path) counts exactly the tasks spawned; the port macros
 * (wf_make_edge, wf_try_put, wf_try_get) take a node, a wf_port or NULL as
 * in C; a queue -> function -> function graph delivers every message once;
 * the version macros match wf_version(); typed tasks (weft/task.h) compile
 * as C++ and compute fib, with a spawn left to the implicit sync. */
#include <weft.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "cxx_layout.h"

#include "cxx_check.h"

#define CHECK_EQ(a, b)                                                         \
    do {                                                                       \
        long long check_a_ = (long long)(a), check_b_ = (long long)(b);        \
        if (check_a_ != check_b_) {                                            \
            std::fprintf(stderr,                                               \
                         "%s:%d: CHECK_EQ failed: %s == %s "                   \
                         "(%lld vs %lld)\n",                                   \
                         __FILE__, __LINE__, #a, #b, check_a_, check_b_);      \
            std::exit(1);                                                      \
        }                                                                      \
    } while (0)

/* ---- layout ------------------------------------------------------------- */

static void test_layout()
{
#define CXX_LAYOUT_SIZE(T) sizeof(T), alignof(T),
#define CXX_LAYOUT_OFFSET(T, m) offsetof(T, m),
#define CXX_LAYOUT_NAME(T) "sizeof(" #T ")", "alignof(" #T ")",
#define CXX_LAYOUT_FIELD_NAME(T, m) "offsetof(" #T ", " #m ")",
    static const size_t cxx[] = {CXX_LAYOUT_TYPES(CXX_LAYOUT_SIZE)
                                     CXX_LAYOUT_FIELDS(CXX_LAYOUT_OFFSET)};
    static const char *const names[] = {CXX_LAYOUT_TYPES(
        CXX_LAYOUT_NAME) CXX_LAYOUT_FIELDS(CXX_LAYOUT_FIELD_NAME)};
    const size_t n = sizeof cxx / sizeof cxx[0];
    CHECK_EQ(cxx_layout_c_count, n);
    CHECK_EQ(sizeof names / sizeof names[0], n);
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        if (cxx[i] != cxx_layout_c[i]) {
            std::fprintf(stderr, "layout: %s is %zu in C++, %zu in C\n",
                         names[i], cxx[i], cxx_layout_c[i]);
            bad = 1;
        }
    }
    CHECK(!bad);
    /* The fields C aligns to a cache line start one in C++ too. */
    CHECK_EQ(offsetof(wf_deque, top) % WF_CACHE_LINE, 0);
    CHECK_EQ(offsetof(struct wf__fast, limit) % WF_CACHE_LINE, 0);
}

/* ---- the pool: fork-join through the inline fast path ------------------- */

struct fib_frame {
    wf_task task; /* first member: the body casts back to the frame */
    int n;
    long out;
};

static long fib_par(int n);

static void fib_body(wf_task *t)
{
    fib_frame *f = reinterpret_cast<fib_frame *>(t);
    f->out = fib_par(f->n);
}

static long fib_par(int n)
{
    if (n < 2)
        return n;
    fib_frame a = {};
    a.n = n - 1;
    fib_frame b = {};
    b.n = n - 2;
    CHECK_EQ(wf_spawn(&a.task, fib_body), 0);
    CHECK_EQ(wf_spawn(&b.task, fib_body), 0);
    CHECK_EQ(wf_join_fn(&b.task, fib_body), 0); /* newest first */
    CHECK_EQ(wf_join(&a.task), 0);
    return a.out + b.out;
}

static long fib_seq(int n)
{
    long a = 0, b = 1;
    for (int i = 0; i < n; i++) {
        long c = a + b;
        a = b;
        b = c;
    }
    return a;
}

struct fib_job {
    int n;
    long out;
};

static void fib_root(void *arg)
{
    fib_job *j = static_cast<fib_job *>(arg);
    j->out = fib_par(j->n);
}

/* fib(n) spawns two tasks per call above the leaves: 2 * (fib(n+1) - 1). */
static uint64_t fib_spawns(int n)
{
    return 2 * (uint64_t)(fib_seq(n + 1) - 1);
}

static void test_pool()
{
    wf_pool_config cfg = WF_POOL_CONFIG_INIT;
    cfg.threads = 4;
    wf_pool *pool = nullptr;
    CHECK_EQ(wf_pool_create(&pool, &cfg), 0);
    CHECK_EQ(wf_pool_threads(pool), 4);
    const int n = 22;
    for (int round = 0; round < 3; round++) {
        fib_job j = {n, -1};
        CHECK_EQ(wf_run(pool, fib_root, &j), 0);
        CHECK_EQ(j.out, fib_seq(n));
    }
    wf_worker_stats st[64];
    int slots = wf_pool_stats(pool, st, 64);
    CHECK(slots > 0 && slots <= 64);
    uint64_t spawns = 0, run = 0, steals = 0;
    for (int i = 0; i < slots; i++) {
        spawns += st[i].spawns;
        run += st[i].tasks_run;
        steals += st[i].steals;
    }
    /* The published spawns are counted, and each of them ran once. */
    CHECK(spawns <= 3 * fib_spawns(n) && spawns >= steals);
    CHECK_EQ(run, spawns);
    CHECK_EQ(wf_pool_destroy(pool), 0);

    /* The default pool, and errors through the inline functions. */
    fib_job j = {15, -1};
    CHECK_EQ(wf_run(wf_pool_default(), fib_root, &j), 0);
    CHECK_EQ(j.out, fib_seq(15));
    CHECK_EQ(wf_spawn(nullptr, fib_body), WF_EINVAL);
    CHECK_EQ(wf_join(nullptr), WF_EINVAL);
    fib_frame never = {};
    CHECK_EQ(wf_join(&never.task), WF_ENOTSPAWNED);
}

/* ---- typed tasks ---------------------------------------------------------- */

static std::atomic<int> typed_leaves{0};

WF_VOID_TASK(typed_leaf, int, unused)
{
    (void)unused;
    typed_leaves.fetch_add(1);
}

WF_TASK(long, typed_fib, int, n)
{
    if (n < 2)
        return n;
    WF_SPAWN(typed_leaf, 0); /* left to the implicit sync */
    WF_SPAWN(typed_fib, n - 1);
    long b = WF_CALL(typed_fib, n - 2);
    return WF_SYNC(typed_fib) + b;
}

static void test_typed()
{
    long r = -1;
    CHECK_EQ(WF_RUN(wf_pool_default(), typed_fib, &r, 18), 0);
    CHECK_EQ(r, fib_seq(18));
    CHECK_EQ(typed_leaves.load(), fib_seq(19) - 1); /* the inner nodes */
}

/* ---- the graph: queue -> square -> sum ---------------------------------- */

static int square(const void *in, void *out, void *)
{
    int v;
    std::memcpy(&v, in, sizeof v);
    long long sq = (long long)v * v;
    std::memcpy(out, &sq, sizeof sq);
    return 0;
}

static int add(const void *in, void *, void *ctx)
{
    long long v;
    std::memcpy(&v, in, sizeof v);
    static_cast<std::atomic<long long> *>(ctx)->fetch_add(v);
    return 0;
}

static void test_graph()
{
    wf_graph *g = nullptr;
    CHECK_EQ(wf_graph_create(&g, nullptr), 0);
    wf_node *q = nullptr, *sq = nullptr, *sum = nullptr;
    CHECK_EQ(wf_queue_node_create(&q, g, sizeof(int)), 0);

    wf_function_config fc = WF_FUNCTION_CONFIG_INIT;
    fc.in_size = sizeof(int);
    fc.out_size = sizeof(long long);
    fc.concurrency = WF_UNLIMITED;
    fc.body = square;
    CHECK_EQ(wf_function_node_create(&sq, g, &fc), 0);

    std::atomic<long long> total(0);
    wf_function_config sc = WF_FUNCTION_CONFIG_INIT;
    sc.in_size = sizeof(long long);
    sc.concurrency = WF_SERIAL;
    sc.body = add;
    sc.ctx = &total;
    CHECK_EQ(wf_function_node_create(&sum, g, &sc), 0);

    /* A node and a port, in both orders; NULL is a bad node, as in C. */
    CHECK_EQ(wf_make_edge(q, wf_input_port(sq, 0)), 0);
    CHECK_EQ(wf_make_edge(wf_output_port(sq, 0), sum), 0);
    CHECK_EQ(wf_make_edge(q, sq), WF_EEXIST);
    CHECK_EQ(wf_make_edge(NULL, sq), WF_EINVAL);
    CHECK_EQ(wf_make_edge(q, nullptr), WF_EINVAL);
    CHECK_EQ(wf_port_msg_size(wf_output_port(sq, 0)), sizeof(long long));

    const int n = 2000;
    long long want = 0;
    for (int i = 1; i <= n; i++) {
        want += (long long)i * i;
        if (i % 2)
            CHECK_EQ(wf_try_put(q, &i), 1);
        else
            CHECK_EQ(wf_try_put(wf_input_port(q, 0), &i), 1);
    }
    CHECK_EQ(wf_graph_wait_for_all(g), 0);
    CHECK_EQ(total.load(), want);

    /* Without its edge the queue keeps what it is given: try_get. */
    CHECK_EQ(wf_remove_edge(q, sq), 0);
    int v = 7, got = 0;
    CHECK_EQ(wf_try_put(q, &v), 1);
    CHECK_EQ(wf_graph_wait_for_all(g), 0);
    CHECK_EQ(wf_try_get(q, &got), 1);
    CHECK_EQ(got, 7);
    CHECK_EQ(wf_try_get(wf_output_port(q, 0), &got), 0);

    CHECK_EQ(wf_node_destroy(sum), 0);
    CHECK_EQ(wf_node_destroy(sq), 0);
    CHECK_EQ(wf_node_destroy(q), 0);
    CHECK_EQ(wf_graph_destroy(g), 0);
}

static void test_version()
{
    char want[64];
    std::snprintf(want, sizeof want, "%d.%d.%d", WF_VERSION_MAJOR,
                  WF_VERSION_MINOR, WF_VERSION_PATCH);
    CHECK(std::strcmp(wf_version(), want) == 0);
    CHECK(std::strcmp(wf_strerror(WF_EINVAL), "invalid argument") == 0);
}

int main()
{
    test_layout();
    test_version();
    test_pool();
    test_typed();
    test_graph();
    std::printf("cxx_smoke: all checks passed\n");
    return 0;
}
