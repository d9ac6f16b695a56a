/* SPDX-License-Identifier: Apache-2.0 */
/* cxx_nodes: weft.hpp's flow-graph node kinds, typed, with lambdas.
 *
 *   continue     a diamond of continue_nodes runs each node once a round,
 *                the join of the diamond after both branches, three rounds;
 *                a node with predecessors = 2 runs after two signals only.
 *   multifunction  evens to port 0, halves of odds to port 1: every input
 *                on exactly one port, with its value.
 *   join         queueing pairs the heads of the ports in FIFO order;
 *                reserving takes nothing until both queues hold one;
 *                key_matching and tag_matching pair equal keys only, put in
 *                scrambled orders from two threads.
 *   sequencer    messages put in a scrambled order leave in sequence order.
 *   limiter      a threshold of 3 lets 3 of 10 through; each decrement lets
 *                one more, pulled from the queue before it; the counted
 *                decrement (std::int64_t) lets that many more.
 *   priority     try_get gives the largest first (std::less), and the
 *                smallest with std::greater.
 *   split_indexer  a tuple split into its ports; an indexer's tagged_msg
 *                names the port, casts to its type, refuses another.
 *   overwrite    overwrite_node keeps the last value, write_once_node the
 *                first; clear() forgets; a new edge gets the value.
 *   composite    a two-node sub-graph behind one node's ports.
 *   async        an outside thread answers through the gateway;
 *                wait_for_all waits for every answer.
 *   exceptions   a throwing body of each kind (function, continue,
 *                multifunction, async) cancels the graph and wait_for_all
 *                throws it; after reset() the graph runs again.
 *   ordered      input -> parallel transform -> sequencer -> serial sink:
 *                every result once, in order (docs/cpp.md's example).
 *   task_group   1000 tasks in a loop sum exactly; wait rethrows a task's
 *                exception and the group serves again; cancel() before
 *                tasks start keeps them from running; groups inside pool
 *                workers, nested. */
#include <weft.hpp>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>
#include <tuple>
#include <vector>

#include "cxx_check.h"

using weft::continue_msg;

/* A message of a key-matching join: its key and a payload. */
struct rec {
    int key;
    int val;
};

/* A fixed scramble of 0..n-1. */
static std::vector<int> scrambled(int n)
{
    std::vector<int> v(n);
    for (int i = 0; i < n; i++)
        v[i] = (i * 7919) % n; /* n not a multiple of 7919 */
    return v;
}

static void continue_test()
{
    weft::graph g;
    std::atomic<int> a{0}, b{0}, late{0};
    std::vector<int> joined;
    weft::broadcast_node<continue_msg> start(g);
    weft::continue_node<int> left(g, [&] { return ++a; });
    weft::continue_node<int> right(g,
                                   [&](const continue_msg &) { return ++b; });
    weft::function_node<int, continue_msg> l2(
        g, weft::serial, [](int) { return continue_msg{}; });
    weft::function_node<int> r2(g, weft::serial, [](int) {});
    weft::continue_node<> both(g, [&] {
        if (a.load() != b.load())
            late++;
        joined.push_back(a.load());
    });
    weft::make_edge(start, left);
    weft::make_edge(start, right);
    weft::make_edge(left, l2);
    weft::make_edge(right, r2);
    weft::make_edge(l2, both);
    weft::make_edge(r2, both);
    for (int round = 0; round < 3; round++) {
        start.try_put(continue_msg{});
        g.wait_for_all();
    }
    CHECK(a.load() == 3 && b.load() == 3 && late.load() == 0);
    CHECK((joined == std::vector<int>{1, 2, 3}));

    /* predecessors = 2 and no edge: two signals from outside. */
    std::atomic<int> ran{0};
    weft::continue_node<> two(g, 2, [&] { ran++; });
    two.try_put(continue_msg{});
    g.wait_for_all();
    CHECK(ran.load() == 0);
    two.try_put(continue_msg{});
    g.wait_for_all();
    CHECK(ran.load() == 1);
}

static void multifunction_test()
{
    weft::graph g;
    using mf_t = weft::multifunction_node<int, std::tuple<int, double>>;
    mf_t mf(g, weft::unlimited, [](const int &v, mf_t::output_ports_type &p) {
        if (v % 2 == 0)
            std::get<0>(p).try_put(v);
        else
            std::get<1>(p).try_put(v / 2.0);
    });
    weft::queue_node<int> evens(g);
    weft::queue_node<double> halves(g);
    weft::make_edge(weft::output_port<0>(mf), evens);
    weft::make_edge(weft::output_port<1>(mf), halves);
    for (int i = 0; i < 100; i++)
        mf.try_put(i);
    g.wait_for_all();
    int n = 0;
    long sum = 0;
    for (int v; evens.try_get(v); n++) {
        sum += v;
        CHECK(v % 2 == 0);
    }
    CHECK(n == 50 && sum == 2450);
    n = 0;
    double hs = 0;
    for (double d; halves.try_get(d); n++)
        hs += d;
    CHECK(n == 50 && hs == 1250.0); /* (1 + 3 + ... + 99) / 2 */
}

static void join_test()
{
    weft::graph g;
    { /* queueing: FIFO heads, whatever the order of the puts */
        weft::join_node<std::tuple<int, double>> j(g);
        weft::queue_node<std::tuple<int, double>> out(g);
        weft::make_edge(j, out);
        for (int i = 0; i < 5; i++)
            weft::input_port<1>(j).try_put(i + 0.5);
        for (int i = 0; i < 5; i++)
            weft::input_port<0>(j).try_put(i);
        g.wait_for_all();
        for (int i = 0; i < 5; i++) {
            std::tuple<int, double> t;
            CHECK(out.try_get(t));
            CHECK(std::get<0>(t) == i && std::get<1>(t) == i + 0.5);
        }
        std::tuple<int, double> t;
        CHECK(!out.try_get(t));
    }
    { /* reserving: nothing until every port's predecessor holds one */
        weft::queue_node<int> qa(g);
        weft::queue_node<long> qb(g);
        weft::join_node<std::tuple<int, long>, weft::reserving> j(g);
        weft::queue_node<std::tuple<int, long>> out(g);
        weft::make_edge(qa, weft::input_port<0>(j));
        weft::make_edge(qb, weft::input_port<1>(j));
        weft::make_edge(j, out);
        qa.try_put(1);
        qa.try_put(2);
        g.wait_for_all();
        std::tuple<int, long> t;
        CHECK(!out.try_get(t));
        qb.try_put(10L);
        g.wait_for_all();
        CHECK(out.try_get(t) && t == std::make_tuple(1, 10L));
        CHECK(!out.try_get(t));
        int left = 0;
        CHECK(qa.try_get(left) && left == 2); /* released, not taken */
    }
    const int n = 200;
    { /* key_matching: port 0 keyed by rec::key, port 1 by the int */
        weft::join_node<std::tuple<rec, int>, weft::key_matching<int>> j(
            g, [](const rec &r) { return r.key; }, [](int k) { return k; });
        std::atomic<int> pairs{0}, wrong{0};
        weft::function_node<std::tuple<rec, int>> check(
            g, weft::unlimited, [&](const std::tuple<rec, int> &t) {
                const rec &r = std::get<0>(t);
                if (r.key != std::get<1>(t) || r.val != 3 * r.key)
                    wrong++;
                pairs++;
            });
        weft::make_edge(j, check);
        std::vector<int> order = scrambled(n);
        std::thread other([&] {
            for (int k : order)
                weft::input_port<0>(j).try_put(rec{k, 3 * k});
        });
        for (int k = n - 1; k >= 0; k--)
            weft::input_port<1>(j).try_put(k);
        other.join();
        g.wait_for_all();
        CHECK(pairs.load() == n && wrong.load() == 0);
    }
    { /* tag_matching: tags from both ports' messages */
        weft::join_node<std::tuple<rec, long>, weft::tag_matching> j(
            g, [](const rec &r) { return weft::tag_value(r.key); },
            [](long v) { return weft::tag_value(v / 10); });
        std::atomic<int> pairs{0}, wrong{0};
        weft::function_node<std::tuple<rec, long>> check(
            g, weft::unlimited, [&](const std::tuple<rec, long> &t) {
                if (std::get<1>(t) != 10L * std::get<0>(t).key)
                    wrong++;
                pairs++;
            });
        weft::make_edge(j, check);
        for (int k : scrambled(n))
            weft::input_port<1>(j).try_put(10L * k);
        for (int k = 0; k < n; k++)
            weft::input_port<0>(j).try_put(rec{k, 0});
        g.wait_for_all();
        CHECK(pairs.load() == n && wrong.load() == 0);
    }
}

static void sequencer_test()
{
    weft::graph g;
    weft::sequencer_node<rec> seq(g, [](const rec &r) { return r.key; });
    std::vector<int> got;
    weft::function_node<rec> sink(g, weft::serial,
                                  [&](const rec &r) { got.push_back(r.key); });
    weft::make_edge(seq, sink);
    const int n = 500;
    for (int k : scrambled(n))
        CHECK(seq.try_put(rec{k, 0}));
    CHECK(!seq.try_put(rec{0, 0})); /* 0 has gone out already */
    g.wait_for_all();
    CHECK(static_cast<int>(got.size()) == n);
    for (int i = 0; i < n; i++)
        CHECK(got[i] == i);
}

static void limiter_test()
{
    weft::graph g;
    weft::queue_node<int> in(g);
    weft::limiter_node<int> lim(g, 3);
    weft::queue_node<int> out(g);
    weft::make_edge(in, lim);
    weft::make_edge(lim, out);
    for (int i = 0; i < 10; i++)
        in.try_put(i);
    g.wait_for_all();
    auto drain = [&] {
        std::vector<int> v;
        for (int x; out.try_get(x);)
            v.push_back(x);
        return v;
    };
    CHECK((drain() == std::vector<int>{0, 1, 2}));
    lim.decrementer().try_put(continue_msg{});
    weft::input_port<1>(lim).try_put(continue_msg{});
    g.wait_for_all();
    CHECK((drain() == std::vector<int>{3, 4}));

    weft::limiter_node<int, std::int64_t> counted(g, 2);
    weft::queue_node<int> in2(g), out2(g);
    weft::make_edge(in2, counted);
    weft::make_edge(counted, out2);
    for (int i = 0; i < 10; i++)
        in2.try_put(i);
    g.wait_for_all();
    counted.decrementer().try_put(std::int64_t{2});
    g.wait_for_all();
    int n = 0;
    for (int x; out2.try_get(x); n++)
        CHECK(x == n);
    CHECK(n == 4);
}

static void priority_test()
{
    weft::graph g;
    weft::priority_queue_node<int> pq(g);
    weft::priority_queue_node<int, std::greater<int>> least(g);
    for (int k : scrambled(50)) {
        pq.try_put(k);
        least.try_put(k);
    }
    g.wait_for_all();
    for (int i = 49; i >= 0; i--) {
        int v = -1;
        CHECK(pq.try_get(v) && v == i);
    }
    for (int i = 0; i < 50; i++) {
        int v = -1;
        CHECK(least.try_get(v) && v == i);
    }
}

static void split_indexer_test()
{
    weft::graph g;
    weft::split_node<std::tuple<int, double, char>> split(g);
    weft::queue_node<int> qi(g);
    weft::queue_node<double> qd(g);
    weft::indexer_node<char, int> ix(g);
    using tagged = weft::tagged_msg<char, int>;
    weft::queue_node<tagged> qt(g);
    weft::make_edge(weft::output_port<0>(split), qi);
    weft::make_edge(weft::output_port<1>(split), qd);
    weft::make_edge(weft::output_port<2>(split), weft::input_port<0>(ix));
    weft::make_edge(ix, qt);
    split.try_put(std::make_tuple(7, 2.5, 'x'));
    weft::input_port<1>(ix).try_put(42);
    g.wait_for_all();
    int i = 0;
    double d = 0;
    CHECK(qi.try_get(i) && i == 7);
    CHECK(qd.try_get(d) && d == 2.5);
    tagged m1, m2;
    CHECK(qt.try_get(m1) && qt.try_get(m2));
    CHECK(m1.tag() == 0 && m1.is_a<char>() && !m1.is_a<int>());
    CHECK(weft::cast_to<char>(m1) == 'x' && m1.get<0>() == 'x');
    CHECK(m2.tag() == 1 && weft::is_a<int>(m2) && m2.cast_to<int>() == 42);
    CHECK_THROWS(m2.cast_to<char>(), weft::error, e.code() == WF_EINVAL);
    CHECK_THROWS(m1.get<1>(), weft::error, e.code() == WF_EINVAL);
}

static void overwrite_test()
{
    weft::graph g;
    weft::overwrite_node<int> ow(g);
    int v = 0;
    CHECK(!ow.is_valid() && !ow.try_get(v));
    CHECK(ow.try_put(1) && ow.try_put(2));
    CHECK(ow.is_valid() && ow.try_get(v) && v == 2);
    CHECK(ow.try_get(v) && v == 2); /* kept */
    weft::queue_node<int> late(g);
    weft::make_edge(ow, late); /* gets the current value */
    g.wait_for_all();
    CHECK(late.try_get(v) && v == 2);
    ow.clear();
    CHECK(!ow.is_valid());

    weft::write_once_node<int> wo(g);
    CHECK(wo.try_put(1));
    CHECK(!wo.try_put(2));
    CHECK(wo.try_get(v) && v == 1);
    wo.clear();
    CHECK(wo.try_put(3) && wo.try_get(v) && v == 3);
}

static void composite_test()
{
    weft::graph g;
    weft::function_node<int, int> twice(g, weft::unlimited,
                                        [](int x) { return 2 * x; });
    weft::function_node<int, long> plus1(g, weft::unlimited,
                                         [](int x) { return x + 1L; });
    weft::make_edge(twice, plus1);
    /* After its inner nodes: it goes first. */
    weft::composite_node<std::tuple<int>, std::tuple<long>> comp(
        g, std::make_tuple(weft::input_port<0>(twice)),
        std::make_tuple(weft::output_port<0>(plus1)));
    weft::queue_node<int> src(g);
    weft::queue_node<long> out(g);
    weft::make_edge(src, comp);
    weft::make_edge(comp, out);
    for (int i = 0; i < 10; i++)
        src.try_put(i);
    weft::input_port<0>(comp).try_put(100);
    g.wait_for_all();
    long sum = 0;
    int n = 0;
    for (long x; out.try_get(x); n++)
        sum += x;
    CHECK(n == 11 && sum == 90 + 10 + 201);

    weft::composite_node<std::tuple<int>, std::tuple<long>> later(g);
    later.set_external_ports(std::make_tuple(weft::input_port<0>(twice)),
                             std::make_tuple(weft::output_port<0>(plus1)));
    CHECK_THROWS(
        later.set_external_ports(std::make_tuple(weft::input_port<0>(twice)),
                                 std::make_tuple(weft::output_port<0>(plus1))),
        weft::error, e.code() == WF_ESTATE);
}

/* An outside "device": a thread that answers requests through gateways. */
class device
{
  public:
    device() : t_([this] { loop(); })
    {
    }
    ~device()
    {
        {
            std::lock_guard<std::mutex> l(m_);
            stop_ = true;
        }
        more_.notify_one();
        t_.join();
    }
    void submit(int v, weft::gateway<long> gw)
    {
        gw.reserve_wait(); /* before the body returns */
        {
            std::lock_guard<std::mutex> l(m_);
            q_.push_back({v, gw});
        }
        more_.notify_one();
    }

  private:
    struct req {
        int v;
        weft::gateway<long> gw;
    };
    void loop()
    {
        for (;;) {
            std::vector<req> batch;
            {
                std::unique_lock<std::mutex> l(m_);
                more_.wait(l, [this] { return stop_ || !q_.empty(); });
                if (stop_ && q_.empty())
                    return;
                batch.swap(q_);
            }
            for (const req &r : batch) {
                r.gw.try_put(1L * r.v * r.v);
                r.gw.release_wait();
            }
        }
    }
    std::mutex m_;
    std::condition_variable more_;
    std::vector<req> q_;
    bool stop_ = false;
    std::thread t_;
};

static void async_test()
{
    device dev;
    weft::graph g;
    weft::async_node<int, long> an(
        g, weft::unlimited,
        [&](const int &v, weft::gateway<long> &gw) { dev.submit(v, gw); });
    long sum = 0;
    int n = 0;
    weft::function_node<long> sink(g, weft::serial, [&](long sq) {
        sum += sq;
        n++;
    });
    weft::make_edge(an, sink);
    for (int i = 1; i <= 12; i++)
        an.try_put(i);
    g.wait_for_all(); /* after the 12 answers */
    CHECK(n == 12 && sum == 650);
    CHECK(an.gateway().get() != nullptr);
}

/* g's wait_for_all throws a std::runtime_error saying `what`; the graph
 * is cancelled; after reset it runs `again` cleanly. */
template <class Again>
static void expect_throw(weft::graph &g, const char *what, Again &&again)
{
    CHECK_THROWS(g.wait_for_all(), std::runtime_error,
                 std::strcmp(e.what(), what) == 0);
    CHECK(g.is_cancelled());
    g.reset();
    again();
    g.wait_for_all();
    CHECK(!g.is_cancelled());
}

static void exceptions_test()
{
    weft::graph g;
    std::atomic<int> ok{0};
    weft::function_node<int> f(g, weft::unlimited, [&](int v) {
        if (v == 3)
            throw std::runtime_error("function");
        ok++;
    });
    /* 3 last: a put after the throw would find the graph cancelled and
     * throw weft::error (WF_ECANCELED). */
    for (int i : {0, 1, 2, 4, 3})
        f.try_put(i);
    expect_throw(g, "function", [&] { f.try_put(1); });
    CHECK(ok.load() >= 1 && ok.load() <= 5); /* 4 may not start */

    weft::continue_node<> c(g, 1, [] { throw std::runtime_error("continue"); });
    c.try_put(continue_msg{});
    expect_throw(g, "continue", [] {});

    using mf_t = weft::multifunction_node<int, std::tuple<int>>;
    mf_t mf(g, weft::serial, [](int v, mf_t::output_ports_type &p) {
        std::get<0>(p).try_put(v);
        throw std::runtime_error("multifunction");
    });
    mf.try_put(1);
    expect_throw(g, "multifunction", [] {});

    weft::async_node<int, long> an(g, weft::serial,
                                   [](const int &, weft::gateway<long> &) {
                                       throw std::runtime_error("async");
                                   });
    an.try_put(1);
    expect_throw(g, "async", [] {});

    weft::input_node<int> src(
        g, []() -> std::optional<int> { throw std::runtime_error("input"); });
    weft::queue_node<int> sink(g);
    weft::make_edge(src, sink);
    src.activate();
    expect_throw(g, "input", [] {});
}

/* The program oneTBB users write: a source, a parallel transform, and a
 * sink that must see the results in order (docs/cpp.md). */
static void ordered_test()
{
    struct item {
        std::size_t seq;
        double value;
    };
    const std::size_t n = 2000;
    std::vector<double> out;

    weft::graph g;
    std::size_t next = 0;
    weft::input_node<item> source(g, [&]() -> std::optional<item> {
        if (next == n)
            return std::nullopt;
        std::size_t i = next++;
        return item{i, double(i)};
    });
    weft::function_node<item, item> transform(g, weft::unlimited, [](item it) {
        it.value = it.value * it.value;
        return it;
    });
    weft::sequencer_node<item> reorder(g,
                                       [](const item &it) { return it.seq; });
    weft::function_node<item> sink(
        g, weft::serial, [&](const item &it) { out.push_back(it.value); });
    weft::make_edge(source, transform);
    weft::make_edge(transform, reorder);
    weft::make_edge(reorder, sink);
    source.activate();
    g.wait_for_all();

    CHECK(out.size() == n);
    for (std::size_t i = 0; i < n; i++)
        CHECK(out[i] == double(i) * double(i));
}

static void task_group_test()
{
    { /* N tasks in a loop, from a thread outside the pool */
        weft::task_group tg;
        std::atomic<long> sum{0};
        for (int i = 1; i <= 1000; i++)
            tg.run([&sum, i] { sum += i; });
        CHECK(tg.wait() == weft::task_group_status::complete);
        CHECK(sum.load() == 500500);
        for (int i = 0; i < 10; i++) /* it serves again */
            tg.run([&sum] { sum++; });
        CHECK(tg.wait() == weft::task_group_status::complete);
        CHECK(sum.load() == 500510);
    }
    { /* an exception: wait throws it, once */
        weft::pool pool(4);
        weft::task_group tg(pool);
        std::atomic<int> ran{0};
        for (int i = 0; i < 100; i++)
            tg.run([&ran, i] {
                ran++;
                if (i == 17)
                    throw std::runtime_error("task 17");
            });
        CHECK_THROWS(tg.wait(), std::runtime_error,
                     std::strcmp(e.what(), "task 17") == 0);
        CHECK(ran.load() >= 1 && ran.load() <= 100);
        tg.run([&ran] { ran = -1; });
        CHECK(tg.wait() == weft::task_group_status::complete);
        CHECK(ran.load() == -1);
    }
    { /* cancel before the tasks start: none runs; run after it: nothing */
        weft::pool pool(2);
        std::atomic<int> ran{0};
        pool.run([&] {
            weft::task_group tg; /* on a worker: tasks on its deque */
            tg.cancel();
            for (int i = 0; i < 50; i++)
                tg.run([&ran] { ran++; });
            CHECK(tg.is_canceling());
            CHECK(tg.wait() == weft::task_group_status::canceled);
            CHECK(!tg.is_canceling());
        });
        CHECK(ran.load() == 0);
    }
    { /* cancel from a task: the waiter sees canceled; nested groups */
        weft::pool pool(4);
        std::atomic<long> leaves{0};
        weft::task_group_status st = weft::task_group_status::not_complete;
        pool.run([&] {
            weft::task_group outer;
            for (int i = 0; i < 8; i++)
                outer.run([&leaves] {
                    weft::task_group inner;
                    for (int j = 0; j < 8; j++)
                        inner.run([&leaves] { leaves++; });
                    inner.wait();
                });
            CHECK(outer.wait() == weft::task_group_status::complete);
            outer.run([&outer] { outer.cancel(); });
            st = outer.wait();
        });
        CHECK(leaves.load() == 64);
        CHECK(st == weft::task_group_status::canceled);
    }
    { /* the destructor waits for what was not waited for */
        std::atomic<int> ran{0};
        {
            weft::task_group tg;
            tg.run([&ran] { ran++; });
        }
        CHECK(ran.load() <= 1); /* cancelled, maybe after it started */
    }
}

int main(int argc, char **argv)
{
    const char *s = argc > 1 ? argv[1] : "all";
    bool all = std::strcmp(s, "all") == 0;
    struct {
        const char *name;
        void (*fn)();
    } tests[] = {{"continue", continue_test},
                 {"multifunction", multifunction_test},
                 {"join", join_test},
                 {"sequencer", sequencer_test},
                 {"limiter", limiter_test},
                 {"priority", priority_test},
                 {"split_indexer", split_indexer_test},
                 {"overwrite", overwrite_test},
                 {"composite", composite_test},
                 {"async", async_test},
                 {"exceptions", exceptions_test},
                 {"ordered", ordered_test},
                 {"task_group", task_group_test}};
    bool found = false;
    for (const auto &t : tests)
        if (all || std::strcmp(s, t.name) == 0) {
            t.fn();
            found = true;
        }
    CHECK(found);
    std::printf("cxx_nodes %s: ok\n", s);
    return 0;
}
