/* SPDX-License-Identifier: Apache-2.0 */
/* cxx_wrapper: weft.hpp, the C++ layer.
 *
 * Proves: weft::spawn / join compute a fork-join fib inside pool::run, and
 * a task's exception reaches its join, then run's caller; parallel_for
 * calls the index form once per index and the range form on disjoint
 * pieces covering the range, and rethrows a body's exception;
 * per_thread's values fold to the sum and local() outside the pool throws;
 * parallel_for_each visits every element once, parallel_for_2d/_3d every
 * cell, per element or per piece; parallel_reduce's index
 * and range forms give the sequential result, the same bits on every
 * run, the identity on an empty range, and rethrow a body's exception;
 * parallel_invoke runs every callable once; a queue -> function ->
 * function graph delivers every message once; a body returning
 * std::optional sends only what it holds; an input_node feeds a graph until
 * it returns std::nullopt; an exception in a node body comes out of
 * wait_for_all as itself, and after reset() the graph runs again; a C
 * error code comes out as weft::error with that code; moved nodes and
 * graphs stay usable, and every object is freed (the ASan build checks
 * leaks), and so do moves by assignment. */
#include <weft.hpp>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "cxx_check.h"

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

static long fib(int n)
{
    if (n < 2)
        return n;
    long a = 0;
    auto t = weft::spawn([&] { a = fib(n - 1); });
    long b = fib(n - 2);
    t.join();
    return a + b;
}

static long fib_throws(int n)
{
    if (n < 2) {
        if (n == 1)
            throw std::runtime_error("leaf");
        return n;
    }
    long a = 0;
    auto t = weft::spawn([&] { a = fib_throws(n - 1); });
    long b = fib_throws(n - 2); /* if it throws, t's destructor joins t */
    t.join();
    return a + b;
}

static void test_pool()
{
    weft::pool pool(4);
    CHECK(pool.threads() == 4);
    CHECK(pool.get() != nullptr);

    long r = 0;
    pool.run([&] { r = fib(20); });
    CHECK(r == fib_seq(20));

    CHECK_THROWS(pool.run([] { fib_throws(12); }), std::runtime_error,
                 std::string(e.what()) == "leaf");
    /* The pool is fine afterwards. */
    pool.run([&] { r = fib(15); });
    CHECK(r == fib_seq(15));

    /* parallel_for: each index once; pieces disjoint and covering. */
    const std::size_t n = 100000;
    std::vector<std::atomic<int>> hits(n);
    pool.parallel_for(0, n, [&](std::size_t i) { hits[i].fetch_add(1); });
    for (std::size_t i = 0; i < n; i++)
        CHECK(hits[i].load() == 1);
    std::atomic<std::size_t> covered(0);
    pool.parallel_for(
        10, n,
        [&](std::size_t b, std::size_t e) {
            CHECK(b < e && e - b <= 1000);
            for (std::size_t i = b; i < e; i++)
                hits[i].fetch_add(1);
            covered.fetch_add(e - b);
        },
        1000);
    CHECK(covered.load() == n - 10);
    for (std::size_t i = 0; i < n; i++)
        CHECK(hits[i].load() == (i < 10 ? 1 : 2));
    CHECK_THROWS(pool.parallel_for(0, n,
                                   [](std::size_t i) {
                                       if (i == 777)
                                           throw std::out_of_range("777");
                                   }),
                 std::out_of_range, std::string(e.what()) == "777");

    /* parallel_for_each: every element of a vector once. */
    std::vector<int> elems(n, 1);
    pool.parallel_for_each(elems.begin(), elems.end(), [](int &v) { v += 2; });
    for (int v : elems)
        CHECK(v == 3);

    /* parallel_for_2d / _3d: every cell once, per element or per piece;
     * a body's exception comes out. */
    {
        const std::size_t rows = 123, cols = 457;
        std::vector<std::atomic<int>> cell(rows * cols);
        pool.parallel_for_2d(0, rows, 0, cols,
                             [&](std::size_t i, std::size_t j) {
                                 cell[i * cols + j].fetch_add(1);
                             });
        pool.parallel_for_2d(3, rows, 0, cols, [&](const wf_box &b) {
            for (std::size_t i = b.begin[0]; i < b.end[0]; i++)
                for (std::size_t j = b.begin[1]; j < b.end[1]; j++)
                    cell[i * cols + j].fetch_add(1);
        });
        for (std::size_t i = 0; i < rows * cols; i++)
            CHECK(cell[i].load() == (i < 3 * cols ? 1 : 2));
        std::vector<std::atomic<int>> cube(5 * 6 * 70);
        pool.parallel_for_3d(0, 5, 0, 6, 0, 70,
                             [&](std::size_t i, std::size_t j, std::size_t k) {
                                 cube[(i * 6 + j) * 70 + k].fetch_add(1);
                             });
        for (auto &c : cube)
            CHECK(c.load() == 1);
        CHECK_THROWS(pool.parallel_for_2d(0, rows, 0, cols,
                                          [](std::size_t i, std::size_t j) {
                                              if (i == 77 && j == 5)
                                                  throw std::out_of_range("77");
                                          }),
                     std::out_of_range, std::string(e.what()) == "77");
    }

    /* per_thread: the values the bodies add into fold to the sum;
     * local() outside the pool throws. */
    {
        weft::per_thread<long> counts(pool, 0L);
        pool.parallel_for(0, n,
                          [&](std::size_t i) { counts.local() += long(i); });
        CHECK(counts.combine(std::plus<>()) == long(n) * long(n - 1) / 2);
        int taken = 0;
        counts.each([&](long &) { taken++; });
        CHECK(taken >= 1 && taken <= int(pool.threads()));
        CHECK_THROWS(counts.local(), weft::error, e.code() == WF_EPERM);
    }

    /* parallel_reduce: the index and the range forms give the sequential
     * sum; a struct value; the same bits on every run; an exception from
     * the body comes out of the call. */
    std::vector<double> xs(n);
    for (std::size_t i = 0; i < n; i++)
        xs[i] = 1.0 / double(i + 1);
    double sum = pool.parallel_reduce(
        0, n, 0.0, [&](std::size_t i, double acc) { return acc + xs[i]; },
        std::plus<>());
    double seq = 0;
    for (double x : xs)
        seq += x;
    CHECK(std::abs(sum - seq) < 1e-9);
    for (int rep = 0; rep < 5; rep++) /* deterministic: same bits */
        CHECK(pool.parallel_reduce(
                  0, n, 0.0,
                  [&](std::size_t i, double acc) { return acc + xs[i]; },
                  std::plus<>()) == sum);
    struct minmax {
        long lo, hi;
    };
    minmax mm = pool.parallel_reduce(
        0, n, minmax{long(n), -1},
        [](std::size_t b, std::size_t e, const minmax &acc) {
            return minmax{std::min(acc.lo, long(b)),
                          std::max(acc.hi, long(e) - 1)};
        },
        [](const minmax &x, const minmax &y) {
            return minmax{std::min(x.lo, y.lo), std::max(x.hi, y.hi)};
        },
        100);
    CHECK(mm.lo == 0 && mm.hi == long(n) - 1);
    CHECK(pool.parallel_reduce(
              5, 5, 42, [](std::size_t, int a) { return a; }, std::plus<>()) ==
          42);
    CHECK_THROWS(pool.parallel_reduce(
                     0, n, 0L,
                     [](std::size_t i, long acc) {
                         if (i == 4321)
                             throw std::out_of_range("4321");
                         return acc + 1;
                     },
                     std::plus<>()),
                 std::out_of_range, std::string(e.what()) == "4321");

    /* parallel_invoke: each callable once; lvalues and rvalues. */
    std::atomic<int> a(0), b(0), c(0);
    auto inc_c = [&] { c.fetch_add(1); };
    pool.parallel_invoke([&] { a.fetch_add(1); }, [&] { b.fetch_add(1); },
                         inc_c);
    CHECK(a.load() == 1 && b.load() == 1 && c.load() == 1);
    CHECK_THROWS(pool.parallel_invoke([&] { a.fetch_add(1); },
                                      [] { throw std::logic_error("x"); }),
                 std::logic_error, true);
    CHECK(a.load() == 2);

    /* The default pool is not owned: its handle may go and come back. */
    {
        weft::pool dflt = weft::pool::default_pool();
        dflt.run([&] { r = fib(10); });
        CHECK(r == fib_seq(10));
    }
    CHECK(weft::pool::default_pool().get() == wf_pool_default());

    /* Moving a pool moves its ownership. */
    weft::pool moved(std::move(pool));
    CHECK(pool.get() == nullptr);
    moved.run([&] { r = fib(12); });
    CHECK(r == fib_seq(12));
}

static void test_graph()
{
    weft::pool pool(3);
    weft::graph g(pool);
    weft::queue_node<int> q(g);
    weft::function_node<int, long> square(g, weft::unlimited,
                                          [](int v) { return 1L * v * v; });
    long sum = 0; /* serial: one body at a time */
    weft::function_node<long> add(g, weft::serial, [&](long v) { sum += v; });
    weft::make_edge(q, square);
    weft::make_edge(square, add);
    long want = 0;
    for (int i = 1; i <= 1000; i++) {
        want += 1L * i * i;
        CHECK(q.try_put(i));
    }
    g.wait_for_all();
    CHECK(sum == want);

    /* std::optional: only the even values pass, into a queue. */
    weft::function_node<int, int> evens(
        g, weft::unlimited, [](int v) -> std::optional<int> {
            return v % 2 ? std::nullopt : std::optional<int>(v);
        });
    weft::queue_node<int> out(g);
    weft::make_edge(evens, out);
    for (int i = 0; i < 100; i++)
        CHECK(evens.try_put(i));
    g.wait_for_all();
    int v = 0, count = 0, total = 0;
    while (out.try_get(v)) {
        CHECK(v % 2 == 0);
        count++;
        total += v;
    }
    CHECK(count == 50 && total == 2450);

    /* An input_node as the source of the first chain. */
    weft::remove_edge(q, square);
    int next = 0;
    weft::input_node<int> src(g, [&]() -> std::optional<int> {
        if (next == 100)
            return std::nullopt;
        return ++next;
    });
    weft::make_edge(src, square);
    sum = 0;
    src.activate();
    g.wait_for_all();
    CHECK(sum == 338350); /* 1^2 + ... + 100^2 */

    /* A C error code: message sizes differ. */
    weft::queue_node<char> small(g);
    CHECK_THROWS(weft::make_edge(small, square), weft::error,
                 e.code() == WF_ESIZE);
    weft::make_edge(q, square);
    CHECK_THROWS(weft::make_edge(q, square), weft::error,
                 e.code() == WF_EEXIST);
}

static void test_graph_exceptions()
{
    weft::graph g; /* the default pool */
    std::atomic<int> calls(0);
    weft::function_node<int> fails(g, weft::serial, [&](int v) {
        calls.fetch_add(1);
        if (v == 3)
            throw std::runtime_error("three");
    });
    for (int i = 0; i < 3; i++)
        CHECK(fails.try_put(i));
    g.wait_for_all();
    CHECK(fails.try_put(3));
    CHECK_THROWS(g.wait_for_all(), std::runtime_error,
                 std::string(e.what()) == "three");
    CHECK(g.is_cancelled());
    /* Cancelled: a put from outside is refused with WF_ECANCELED. */
    CHECK_THROWS(fails.try_put(4), weft::error, e.code() == WF_ECANCELED);
    g.reset();
    CHECK(!g.is_cancelled());
    CHECK(fails.try_put(5));
    g.wait_for_all();
    CHECK(calls.load() == 5);

    /* Moved graph and node: the same C objects, still working. */
    weft::graph g2(std::move(g));
    CHECK(g.get() == nullptr);
    wf_node *raw = fails.get();
    weft::function_node<int> fails2(std::move(fails));
    CHECK(fails2.get() == raw && fails.get() == nullptr);
    CHECK(fails2.try_put(6));
    g2.wait_for_all();
    CHECK(calls.load() == 6);
    fails2.set_name("fails");
    CHECK(std::string(fails2.name()) == "fails");

    /* Move assignment: the target's own node goes first, then it takes
     * the other's node and body. */
    weft::function_node<int> other(g2, weft::serial, [](int) {});
    other = std::move(fails2);
    CHECK(other.get() == raw && fails2.get() == nullptr);
    weft::graph g3;
    g3 = std::move(g2);
    CHECK(other.try_put(7));
    g3.wait_for_all();
    CHECK(calls.load() == 7);
    int left = 3;
    weft::input_node<int> src(g3, [&]() -> std::optional<int> {
        return left > 0 ? std::optional<int>(10 + left--) : std::nullopt;
    });
    weft::input_node<int> src2(g3, []() -> std::optional<int> { return 1; });
    src2 = std::move(src);
    weft::make_edge(src2, other);
    src2.activate();
    g3.wait_for_all();
    CHECK(calls.load() == 10);
}

int main()
{
    test_pool();
    test_graph();
    test_graph_exceptions();
    std::printf("cxx_wrapper: all checks passed\n");
    return 0;
}
