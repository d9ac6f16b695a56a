/* SPDX-License-Identifier: Apache-2.0 */
// The flow-graph workloads on oneTBB's flow graph, with the topologies and
// bodies of graph_weft.c (see graph_bench.h).  Each graph is built once per
// thread count by gb_X_build and each kernel runs, both on the runner's
// main thread outside any task_arena::execute (bench_system_build,
// bench_system_run_graph), as in a user's main(): the graph takes the
// arena of the thread that made it, and wait_for_all makes the calling
// thread work in it; global_control (driver_tbb.cpp) holds it to T
// threads, the caller one of them.
#include <oneapi/tbb/flow_graph.h>

#include <memory>
#include <tuple>
#include <vector>

#include "graph_bench.h"
#include "system.h"

namespace flow = tbb::flow;

namespace
{

struct tbb_graph {
    flow::graph g;
    virtual ~tbb_graph() = default;
};

void tbb_free(void *cache)
{
    delete static_cast<tbb_graph *>(cache);
}

// The cached graph of type G for this thread count, built by make() on a
// miss.
template <class G, class Make> G *cached(gb_state *s, Make make)
{
    gb_cache_check(s, long(bench_tbb_threads()));
    if (s->cache == nullptr) {
        s->cache = static_cast<tbb_graph *>(make());
        s->cache_free = tbb_free;
    }
    return static_cast<G *>(static_cast<tbb_graph *>(s->cache));
}

using int_fn = flow::function_node<int, int>;

struct chain_graph : tbb_graph {
    std::vector<std::unique_ptr<int_fn>> nodes;
    explicit chain_graph(gb_state *s)
    {
        for (int k = 0; k < GB_CHAIN; k++) {
            if (k == GB_CHAIN - 1)
                nodes.emplace_back(new int_fn(g, flow::serial, [s](int v) {
                    gb_add(&s->sum, uint64_t(v + 1));
                    return v + 1;
                }));
            else
                nodes.emplace_back(
                    new int_fn(g, flow::serial, [](int v) { return v + 1; }));
            if (k > 0)
                flow::make_edge(*nodes[k - 1], *nodes[k]);
        }
    }
};

chain_graph *chain(gb_state *s)
{
    return cached<chain_graph>(s, [s] { return new chain_graph(s); });
}

struct broadcast_graph : tbb_graph {
    flow::broadcast_node<int> head{g};
    std::vector<std::unique_ptr<int_fn>> branches;
    explicit broadcast_graph(gb_state *s)
    {
        for (int k = 0; k < GB_FANOUT; k++) {
            uint64_t *sum = &s->sums[k];
            branches.emplace_back(new int_fn(g, flow::unlimited, [sum](int v) {
                gb_add(sum, uint64_t(v));
                return v;
            }));
            flow::make_edge(head, *branches.back());
        }
    }
};

// Two sources of type Src into a join of Policy into an unlimited function.
template <class Msg, class Src, class Join> struct join_graph : tbb_graph {
    Src a{g}, b{g};
    Join join;
    flow::function_node<typename Join::output_type, int> fn;
    template <class... JoinArgs>
    join_graph(gb_state *s, JoinArgs... args)
        : join(g, args...),
          fn(g, flow::unlimited, [s](const typename Join::output_type &t) {
              return pair_body(s, std::get<0>(t), std::get<1>(t));
          })
    {
        flow::make_edge(a, flow::input_port<0>(join));
        flow::make_edge(b, flow::input_port<1>(join));
        flow::make_edge(join, fn);
    }
    static int pair_body(gb_state *s, int x, int y)
    {
        gb_add(&s->sum, uint64_t(x + y));
        gb_add(&s->count, 1);
        return x + y;
    }
    static int pair_body(gb_state *s, const gb_kv &x, const gb_kv &y)
    {
        gb_add(&s->sum, uint64_t(x.val + y.val));
        gb_add(&s->count, 1);
        if (x.key != y.key)
            gb_add(&s->mismatches, 1);
        return x.val + y.val;
    }
};

using pair_t = std::tuple<int, int>;
using queueing_graph = join_graph<int, flow::queue_node<int>,
                                  flow::join_node<pair_t, flow::queueing>>;
using reserving_graph = join_graph<int, flow::buffer_node<int>,
                                   flow::join_node<pair_t, flow::reserving>>;
using kv_pair_t = std::tuple<gb_kv, gb_kv>;
using key_graph =
    join_graph<gb_kv, flow::queue_node<gb_kv>,
               flow::join_node<kv_pair_t, flow::key_matching<int32_t>>>;

template <class G> G *join_cached(gb_state *s)
{
    return cached<G>(s, [s] { return new G(s); });
}

template <class G> void join_run(gb_state *s)
{
    G *gg = join_cached<G>(s);
    for (int i = 0; i < int(s->n); i++) {
        gg->a.try_put(i);
        gg->b.try_put(2 * i);
    }
    gg->g.wait_for_all();
}

struct wavefront_graph : tbb_graph {
    using cont = flow::continue_node<flow::continue_msg>;
    std::vector<std::unique_ptr<cont>> grid;
    explicit wavefront_graph(gb_state *s)
    {
        for (int i = 0; i < s->rows; i++)
            for (int j = 0; j < s->cols; j++) {
                grid.emplace_back(
                    new cont(g, [s, i, j](const flow::continue_msg &) {
                        gb_stamp(s, i, j);
                        return flow::continue_msg();
                    }));
                size_t k = grid.size() - 1;
                if (i > 0)
                    flow::make_edge(*grid[k - size_t(s->cols)], *grid[k]);
                if (j > 0)
                    flow::make_edge(*grid[k - 1], *grid[k]);
            }
    }
};

broadcast_graph *broadcast(gb_state *s)
{
    return cached<broadcast_graph>(s, [s] { return new broadcast_graph(s); });
}

key_graph *join_key(gb_state *s)
{
    auto key = [](const gb_kv &m) { return m.key; };
    return cached<key_graph>(s,
                             [s, key] { return new key_graph(s, key, key); });
}

wavefront_graph *wavefront(gb_state *s)
{
    return cached<wavefront_graph>(s, [s] { return new wavefront_graph(s); });
}

} // namespace

extern "C" {

// What each kernel keeps, built before its first run (bench_system_build).
void gb_chain_build(void *arg)
{
    chain(static_cast<gb_state *>(arg));
}

void gb_latency_build(void *arg)
{
    chain(static_cast<gb_state *>(arg));
}

void gb_broadcast_build(void *arg)
{
    broadcast(static_cast<gb_state *>(arg));
}

void gb_join_queueing_build(void *arg)
{
    join_cached<queueing_graph>(static_cast<gb_state *>(arg));
}

void gb_join_reserving_build(void *arg)
{
    join_cached<reserving_graph>(static_cast<gb_state *>(arg));
}

void gb_join_key_build(void *arg)
{
    join_key(static_cast<gb_state *>(arg));
}

void gb_wavefront_build(void *arg)
{
    wavefront(static_cast<gb_state *>(arg));
}

void gb_chain_par(void *arg)
{
    gb_state *s = static_cast<gb_state *>(arg);
    chain_graph *gg = chain(s);
    for (int i = 0; i < int(s->n); i++)
        gg->nodes[0]->try_put(i);
    gg->g.wait_for_all();
}

void gb_latency_par(void *arg)
{
    gb_state *s = static_cast<gb_state *>(arg);
    chain_graph *gg = chain(s);
    for (int i = 0; i < int(s->n); i++) {
        uint64_t t0 = gb_now_ns();
        gg->nodes[0]->try_put(i);
        gg->g.wait_for_all();
        s->rtt_ns[i] = gb_now_ns() - t0;
    }
}

void gb_broadcast_par(void *arg)
{
    gb_state *s = static_cast<gb_state *>(arg);
    broadcast_graph *gg = broadcast(s);
    for (int i = 0; i < int(s->n); i++)
        gg->head.try_put(i);
    gg->g.wait_for_all();
}

void gb_join_queueing_par(void *arg)
{
    join_run<queueing_graph>(static_cast<gb_state *>(arg));
}

void gb_join_reserving_par(void *arg)
{
    join_run<reserving_graph>(static_cast<gb_state *>(arg));
}

void gb_join_key_par(void *arg)
{
    gb_state *s = static_cast<gb_state *>(arg);
    key_graph *gg = join_key(s);
    for (int i = 0; i < int(s->n); i++) {
        int back = int(s->n) - 1 - i;
        gg->a.try_put(gb_kv{i, i});
        gg->b.try_put(gb_kv{back, 2 * back});
    }
    gg->g.wait_for_all();
}

void gb_wavefront_par(void *arg)
{
    gb_state *s = static_cast<gb_state *>(arg);
    wavefront_graph *gg = wavefront(s);
    for (long r = 0; r < s->n; r++) {
        gg->grid[0]->try_put(flow::continue_msg());
        gg->g.wait_for_all();
    }
}

} // extern "C"
