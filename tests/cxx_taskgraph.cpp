/* SPDX-License-Identifier: Apache-2.0 */
/* cxx_taskgraph: weft::taskgraph, weft.hpp's task graphs, from C++17.
 *
 *   build      30 targets, each after i / 2 and i / 3, run twice: every
 *              target after its dependencies, twice; emplace of several
 *              callables at once; on a weft::pool that goes first.
 *   condition  a loop through a condition task (ten rounds), run_n and
 *              run_until.
 *   errors     an exception a task throws fails the run, run() throws it
 *              and the tasks after it did not run; the next run is clean;
 *              an edge between two graphs throws weft::error.
 *   subflow_fib   fib(16) by recursive subflows (a subflow per call, a
 *              task adding the two halves), on a weft::pool; run_n(3)
 *              rebuilds every subflow and gives the same value, with each
 *              call built and added once a run.
 *   subflow_throw an exception a subflow's task throws, deep in nested
 *              subflows, and one its builder throws: the run fails,
 *              run() throws it, the parent's successors did not run; the
 *              next run is clean; an edge out of a subflow throws.
 *   subflow_rerun  a subflow with a condition loop, a placeholder join
 *              and depend edges inside, between two tasks of the parent,
 *              run_n(5) and run_until: exact counts and order each run;
 *              clear() frees the callables.
 *   shapes     the four graphs of Taskflow's benchmarks (wavefront, linear
 *              chain, binary tree, level graph) as a user writes them with
 *              weft::taskgraph, each checked (bench/README.md counts their
 *              lines against Taskflow's and examples/taskgraph_shapes.c's). */
#include <weft.hpp>

#include <array>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <stdexcept>
#include <vector>

#include "cxx_check.h"

static void build()
{
    std::atomic<int> times[30] = {};
    std::atomic<int> early{0};
    std::optional<weft::taskgraph> tg;
    {
        weft::pool pool(2);
        tg.emplace(pool); /* outlives the pool object */
    }
    std::vector<weft::task> t;
    for (int i = 0; i < 30; i++)
        t.push_back(tg->emplace([&, i] {
            int mine = times[i].load() + 1;
            if (i > 0 &&
                (times[i / 2].load() < mine || times[i / 3].load() < mine))
                early++;
            times[i].store(mine);
        }));
    for (int i = 1; i < 30; i++) {
        t[i].succeed(t[i / 2]);
        if (i / 3 != i / 2)
            t[i / 3].precede(t[i]);
    }
    tg->run_n(2);
    for (int i = 0; i < 30; i++)
        CHECK(times[i].load() == 2);
    CHECK(early.load() == 0);

    weft::taskgraph two;
    int order[3] = {0, 0, 0}, step = 0;
    auto [a, b, c] =
        two.emplace([&] { order[0] = ++step; }, [&] { order[1] = ++step; },
                    [&] { order[2] = ++step; });
    a.precede(b);
    b.precede(c);
    two.run();
    CHECK(order[0] == 1 && order[1] == 2 && order[2] == 3);
}

static void condition()
{
    weft::taskgraph tg;
    int i = 0, body = 0, done = 0;
    auto init = tg.emplace([&] { i = 0; });
    auto step = tg.emplace([&] { body++; });
    auto again = tg.condition([&] { return ++i < 10 ? 0 : 1; });
    auto end = tg.emplace([&] { done++; });
    init.precede(step);
    step.precede(again);
    again.precede(step, end); /* 0: step, 1: end */
    tg.run();
    CHECK(body == 10 && done == 1);
    tg.run_n(2);
    CHECK(body == 30 && done == 3);
    tg.run_until([&] { return done == 5; });
    CHECK(body == 50 && done == 5);
}

static void errors()
{
    weft::taskgraph tg;
    bool fail = true;
    int after = 0;
    auto a = tg.emplace([&] {
        if (fail)
            throw std::runtime_error("broken target");
    });
    auto b = tg.emplace([&] { after++; });
    a.precede(b);
    CHECK_THROWS(tg.run(), std::runtime_error,
                 std::strcmp(e.what(), "broken target") == 0);
    CHECK(after == 0);
    fail = false;
    tg.run();
    CHECK(after == 1);

    weft::taskgraph other;
    auto o = other.emplace([] {});
    CHECK_THROWS(o.precede(a), weft::error, e.code() == WF_EINVAL);
}

/* fib(n) into *r, a subflow per call: past the leaves, a call adds the
 * two calls below it as subflows and a task after both that adds the
 * values they leave in part (kept alive by the callables that use it,
 * which live until the subflow runs again). */
static std::atomic<long> fib_calls{0}, fib_adds{0};

static void fib_sf(weft::subflow &sf, int n, long *r)
{
    fib_calls++;
    if (n < 2) {
        *r = n;
        return;
    }
    auto part = std::make_shared<std::array<long, 2>>();
    auto [a, b] =
        sf.emplace([=](weft::subflow &s) { fib_sf(s, n - 1, &(*part)[0]); },
                   [=](weft::subflow &s) { fib_sf(s, n - 2, &(*part)[1]); });
    sf.emplace([=] {
          fib_adds++;
          *r = (*part)[0] + (*part)[1];
      }).succeed(a, b);
}

static void subflow_fib()
{
    weft::pool pool(2);
    weft::taskgraph tg(pool);
    long r = -1;
    int after = 0;
    auto top = tg.emplace([&](weft::subflow &sf) { fib_sf(sf, 16, &r); });
    auto check = tg.emplace([&] {
        if (r == 987) /* runs only after every task of every subflow */
            after++;
    });
    top.precede(check);
    tg.run();
    CHECK(r == 987 && after == 1);
    /* fib(16) makes 2 * fib(17) - 1 calls, fib(17) - 1 of them adds. */
    CHECK(fib_calls.load() == 3193 && fib_adds.load() == 1596);
    r = -1;
    tg.run_n(3);
    CHECK(r == 987 && after == 4);
    CHECK(fib_calls.load() == 4 * 3193 && fib_adds.load() == 4 * 1596);
}

static void subflow_throw()
{
    weft::taskgraph tg;
    int depth_to_throw = 5; /* < 0: no throw */
    bool builder_throws = false;
    std::atomic<int> leaves{0};
    int after = 0;
    /* A chain of nested subflows, depth 8, with a leaf task at each level
     * that throws at depth_to_throw. */
    struct nest {
        int *to_throw;
        std::atomic<int> *leaves;
        void operator()(weft::subflow &sf, int depth) const
        {
            nest self = *this;
            auto leaf = sf.emplace([self, depth] {
                if (depth == *self.to_throw)
                    throw std::runtime_error("leaf failed");
                (*self.leaves)++;
            });
            if (depth < 8)
                sf.emplace([self, depth](weft::subflow &s) {
                      self(s, depth + 1);
                  }).succeed(leaf);
        }
    };
    nest n{&depth_to_throw, &leaves};
    auto top = tg.emplace([&](weft::subflow &sf) {
        if (builder_throws)
            throw std::logic_error("builder failed");
        n(sf, 0);
    });
    auto b = tg.emplace([&] { after++; });
    top.precede(b);
    CHECK_THROWS(tg.run(), std::runtime_error,
                 std::strcmp(e.what(), "leaf failed") == 0);
    CHECK(after == 0 && leaves.load() == 5); /* depths 0 to 4 */

    depth_to_throw = -1; /* the next run is clean, and rebuilds */
    tg.run();
    CHECK(after == 1 && leaves.load() == 5 + 9);

    builder_throws = true;
    CHECK_THROWS(tg.run(), std::logic_error,
                 std::strcmp(e.what(), "builder failed") == 0);
    CHECK(after == 1 && leaves.load() == 14);
    builder_throws = false;

    /* An edge from a subflow's task to one of the parent graph. */
    weft::taskgraph other;
    other.emplace([&](weft::subflow &sf) { sf.emplace([] {}).precede(b); });
    CHECK_THROWS(other.run(), weft::error, e.code() == WF_EINVAL);
    tg.run();
    CHECK(after == 2 && leaves.load() == 23);
}

/* A callable's capture that counts the copies alive. */
struct counted {
    std::atomic<int> *live;
    explicit counted(std::atomic<int> *l) : live(l)
    {
        (*live)++;
    }
    counted(const counted &o) : live(o.live)
    {
        (*live)++;
    }
    counted &operator=(const counted &) = delete;
    ~counted()
    {
        (*live)--;
    }
};

static void subflow_rerun()
{
    weft::taskgraph tg;
    std::atomic<int> live{0}; /* copies of c alive, in subflow callables */
    struct {
        int i, steps, loops, x, y, in_order, before, after, built;
        std::vector<int> order;
    } st{};
    auto first = tg.emplace([&] { st.before++; });
    auto sub = tg.emplace([&, c = counted(&live)](weft::subflow &sf) {
        CHECK(st.before == st.built + 1); /* after first */
        st.built++;
        /* A loop of 4 steps through a condition, then a placeholder. */
        auto init = sf.emplace([&, c] { st.i = 0; });
        auto step = sf.emplace([&, c] { st.steps++; });
        auto again = sf.condition([&] { return ++st.i < 4 ? 0 : 1; });
        auto join = sf.placeholder();
        auto done = sf.emplace([&] { st.loops++; });
        init.precede(step);
        step.precede(again);
        again.precede(step, join); /* 0: step again, 1: the join */
        join.precede(done);
        /* Edges from data, in the order the tasks must run. */
        sf.emplace([&] {
              st.order.push_back(1);
              st.x = 1;
          }).depend({weft::out(&st.x)});
        sf.emplace([&] {
              st.order.push_back(2);
              st.y = st.x + 1;
          }).depend({weft::in(&st.x), weft::out(&st.y)});
        sf.emplace([&] {
              st.order.push_back(3);
              st.x = st.y + 1;
          }).depend({weft::in(&st.y), weft::inout(&st.x)});
        sf.emplace([&] { st.in_order += st.x == 3; }).depend({weft::in(&st.x)});
    });
    auto last = tg.emplace([&] {
        /* After every task of the subflow, of this run. */
        if (st.loops == st.before && st.steps == 4 * st.before &&
            st.in_order == st.before && st.order.size() == 3u * st.before)
            st.after++;
    });
    first.precede(sub);
    sub.precede(last);
    CHECK(live.load() == 1); /* the subflow's own, not yet run */
    tg.run();
    CHECK(st.built == 1 && st.after == 1 && st.steps == 4);
    CHECK(live.load() == 3); /* and those of init and step */
    tg.run_n(5);
    CHECK(st.built == 6 && st.before == 6 && st.after == 6);
    CHECK(st.steps == 24 && st.loops == 6 && st.in_order == 6);
    for (std::size_t k = 0; k < st.order.size(); k++)
        CHECK(st.order[k] == int(k % 3) + 1);
    CHECK(live.load() == 3); /* each run freed the last one's callables */
    tg.run_until([&] { return st.built == 8; });
    CHECK(st.after == 8 && st.steps == 32 && live.load() == 3);
    tg.clear();
    CHECK(live.load() == 0 && wf_taskgraph_size(tg.get()) == 0);
    tg.run(); /* empty */
    CHECK(st.built == 8);
}

/* ---- Taskflow's benchmark shapes ----------------------------------------- */

constexpr int MB = 64, NB = 64;
static int cell[MB][NB]; /* 1 + the larger of the upper and left ones */

static void block_computation(int i, int j)
{
    int up = i > 0 ? cell[i - 1][j] : 0, left = j > 0 ? cell[i][j - 1] : 0;
    cell[i][j] = 1 + (up > left ? up : left);
}

static void wavefront()
{
    weft::taskgraph tg;
    std::vector<std::vector<weft::task>> node(MB, std::vector<weft::task>(NB));
    for (int i = 0; i < MB; i++) {
        for (int j = 0; j < NB; j++) {
            node[i][j] = tg.emplace([=] { block_computation(i, j); });
            if (j > 0)
                node[i][j - 1].precede(node[i][j]);
            if (i > 0)
                node[i - 1][j].precede(node[i][j]);
        }
    }
    tg.run();
}

static void linear_chain(std::size_t length, std::size_t &counter)
{
    weft::taskgraph tg;
    auto prev = tg.emplace([&] { counter++; });
    for (std::size_t i = 1; i < length; i++)
        prev = tg.emplace([&] { counter++; }).succeed(prev);
    tg.run();
}

static void binary_tree(unsigned layers, std::atomic<std::size_t> &counter)
{
    weft::taskgraph tg;
    std::vector<weft::task> tasks(std::size_t{1} << layers);
    for (std::size_t i = 1; i < tasks.size(); i++) {
        tasks[i] = tg.emplace(
            [&] { counter.fetch_add(1, std::memory_order_relaxed); });
        if (i > 1)
            tasks[i / 2].precede(tasks[i]);
    }
    tg.run();
}

struct lg_node {
    std::vector<int> out; /* successors: their indices in the next level */
    bool visited = false;
};

static void level_graph(std::vector<std::vector<lg_node>> &graph)
{
    weft::taskgraph tg;
    std::vector<std::vector<weft::task>> tasks(graph.size());
    for (std::size_t l = graph.size(); l-- > 0;) {
        for (lg_node &n : graph[l]) {
            tasks[l].push_back(tg.emplace([&n] { n.visited = true; }));
            for (int k : n.out)
                tasks[l].back().precede(tasks[l + 1][k]);
        }
    }
    tg.run();
}

static void shapes()
{
    wavefront();
    CHECK(cell[MB - 1][NB - 1] == MB + NB - 1);

    std::size_t chain = 0;
    linear_chain(10000, chain);
    CHECK(chain == 10000);

    std::atomic<std::size_t> in_tree{0};
    binary_tree(14, in_tree);
    CHECK(in_tree.load() == (1u << 14) - 1);

    std::vector<std::vector<lg_node>> graph(100, std::vector<lg_node>(64));
    std::srand(1);
    for (std::size_t l = 0; l + 1 < graph.size(); l++)
        for (lg_node &n : graph[l]) {
            int first = std::rand() % 64, nout = 1 + std::rand() % 4;
            for (int e = 0; e < nout; e++)
                n.out.push_back((first + e) % 64);
        }
    level_graph(graph);
    for (auto &level : graph)
        for (lg_node &n : level)
            CHECK(n.visited);
}

int main(int argc, char **argv)
{
    const char *s = argc > 1 ? argv[1] : "all";
    bool all = std::strcmp(s, "all") == 0;
    if (all || std::strcmp(s, "build") == 0)
        build();
    if (all || std::strcmp(s, "condition") == 0)
        condition();
    if (all || std::strcmp(s, "errors") == 0)
        errors();
    if (all || std::strcmp(s, "subflow_fib") == 0)
        subflow_fib();
    if (all || std::strcmp(s, "subflow_throw") == 0)
        subflow_throw();
    if (all || std::strcmp(s, "subflow_rerun") == 0)
        subflow_rerun();
    if (all || std::strcmp(s, "shapes") == 0)
        shapes();
    std::printf("cxx_taskgraph %s: ok\n", s);
    return 0;
}
