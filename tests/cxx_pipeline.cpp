/* SPDX-License-Identifier: Apache-2.0 */
/* cxx_pipeline: weft.hpp's typed pipelines (weft::make_stage, &,
 * weft::parallel_pipeline) over wf_parallel_pipeline, from C++17.
 *
 *   ordered    a counter, a parallel transform and a serial_in_order sink:
 *              the sink sees every item once, in the input's order, on a
 *              weft::pool, the default pool and pool.parallel_pipeline,
 *              with stages joined by & and given one by one; a
 *              serial_out_of_order sink sees each item once.
 *   nested     a pipeline kept in a variable runs three times, once from
 *              a task of the pool; a pipeline inside a parallel stage of
 *              another, for each item.
 *   parallel   two items meet inside a parallel stage (its calls overlap),
 *              while the serial stages never run two calls at once.
 *   stop       the first stage stops after k items: exactly k reach the
 *              sink, the first stage is not called again, and the value
 *              returned with stop() is destroyed, not passed on.
 *   exception  an exception in a middle stage, in the first and in the
 *              last: the run throws it, an endless input stops, the sink
 *              never sees the failing item, every item made is
 *              destroyed; the pipeline runs again cleanly after.
 *   move_only  std::unique_ptr and a counted move-only type as items,
 *              changing type from stage to stage; nothing leaks (every
 *              object made is destroyed).
 *   errors     max_tokens 0 and above the limit, a parallel first stage:
 *              weft::error with the C code; a pipeline of one stage. */
#include <weft.hpp>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "cxx_check.h"

/* A move-only item that counts the objects alive. */
static std::atomic<long> alive{0};
struct counted {
    long v;
    explicit counted(long x) : v(x)
    {
        alive++;
    }
    counted(counted &&o) noexcept : v(o.v)
    {
        alive++;
    }
    counted(const counted &) = delete;
    counted &operator=(const counted &) = delete;
    ~counted()
    {
        alive--;
    }
};

static std::uint64_t mix(std::uint64_t x)
{
    x ^= x >> 31;
    x *= 0x9e3779b97f4a7c15ull;
    return x ^ (x >> 29);
}

/* Work of a few hundred nanoseconds to a few microseconds, varying by
 * item, so that items overtake one another in a parallel stage. */
static std::uint64_t work(long i)
{
    std::uint64_t h = static_cast<std::uint64_t>(i);
    for (std::uint64_t r = mix(h) % 256; r > 0; r--)
        h = mix(h + r);
    return h;
}

static void ordered()
{
    const long n = 20000;
    weft::pool pool(4);
    for (int form = 0; form < 3; form++) {
        long next = 0;
        std::vector<std::uint64_t> out;
        auto chain = weft::make_stage<void, long>(weft::serial_in_order,
                                                  [&](weft::flow_control &fc) {
                                                      if (next == n)
                                                          fc.stop();
                                                      return next++;
                                                  }) &
                     weft::make_stage<long, std::uint64_t>(
                         weft::parallel, [](long i) { return work(i); }) &
                     weft::make_stage<std::uint64_t, void>(
                         weft::serial_in_order,
                         [&](std::uint64_t v) { out.push_back(v); });
        if (form == 0)
            weft::parallel_pipeline(pool, 8, chain);
        else if (form == 1)
            weft::parallel_pipeline(3, chain); /* the default pool */
        else
            pool.parallel_pipeline(64, chain);
        CHECK(static_cast<long>(out.size()) == n);
        for (long i = 0; i < n; i++)
            CHECK(out[i] == work(i));
    }

    /* Stages given one by one; the sink out of order sees each once. */
    long next = 0;
    std::vector<int> seen(n, 0);
    long calls = 0;
    weft::parallel_pipeline(
        pool, 16,
        weft::make_stage<void, long>(weft::serial_out_of_order,
                                     [&](weft::flow_control &fc) {
                                         if (next == n)
                                             fc.stop();
                                         return next++;
                                     }),
        weft::make_stage<long, long>(weft::parallel, [](long i) { return i; }),
        weft::make_stage<long, void>(weft::serial_out_of_order, [&](long i) {
            seen[i]++;
            calls++;
        }));
    CHECK(calls == n);
    for (long i = 0; i < n; i++)
        CHECK(seen[i] == 1);
}

/* A pipeline kept in a variable runs again; a pipeline runs from a task
 * of the pool and from a parallel stage of another pipeline (the calling
 * thread takes part, as in pool::run). */
static void nested()
{
    weft::pool pool(2);
    long next = 0, total = 0;
    auto chain = weft::make_stage<void, long>(weft::serial_in_order,
                                              [&](weft::flow_control &fc) {
                                                  if (next == 1000)
                                                      fc.stop();
                                                  return next++;
                                              }) &
                 weft::make_stage<long, void>(weft::serial_in_order,
                                              [&](long v) { total += v; });
    for (int round = 1; round <= 3; round++) {
        next = 0;
        if (round == 2)
            pool.run([&] { weft::parallel_pipeline(pool, 4, chain); });
        else
            weft::parallel_pipeline(pool, 4, chain);
        CHECK(total == round * 999L * 1000 / 2);
    }

    /* Item i of the outer pipeline sums 0 .. i - 1 with an inner one. */
    int outer_next = 0;
    std::vector<long> sums;
    weft::parallel_pipeline(
        pool, 4,
        weft::make_stage<
            void, int>(weft::serial_in_order, [&](weft::flow_control &fc) {
            if (outer_next == 40)
                fc.stop();
            return outer_next++;
        }) & weft::make_stage<int, long>(weft::parallel, [&](int n) {
            int i = 0;
            long sum = 0;
            weft::parallel_pipeline(
                pool, 2,
                weft::make_stage<void, int>(weft::serial_in_order,
                                            [&](weft::flow_control &fc) {
                                                if (i == n)
                                                    fc.stop();
                                                return i++;
                                            }) &
                    weft::make_stage<int, void>(weft::serial_out_of_order,
                                                [&](int v) { sum += v; }));
            return sum;
        }) & weft::make_stage<long, void>(weft::serial_in_order, [&](long v) {
            sums.push_back(v);
        }));
    CHECK(sums.size() == 40);
    for (long n = 0; n < 40; n++)
        CHECK(sums[n] == n * (n - 1) / 2);
}

static void parallel()
{
    weft::pool pool(2);
    std::atomic<int> arrived{0};
    std::atomic<bool> met{false};
    /* A serial stage's calls never overlap (each stage has its own). */
    std::atomic<int> in_stage[2] = {};
    std::atomic<bool> overlap{false};
    auto serial_guard = [&](int stage) {
        if (in_stage[stage].fetch_add(1) != 0)
            overlap = true;
        for (int k = 0; k < 50; k++) /* a while, for overlaps to show */
            std::this_thread::yield();
        in_stage[stage].fetch_sub(1);
    };
    int next = 0;
    weft::parallel_pipeline(
        pool, 4,
        weft::make_stage<void, int>(weft::serial_in_order,
                                    [&](weft::flow_control &fc) {
                                        serial_guard(0);
                                        if (next == 200)
                                            fc.stop();
                                        return next++;
                                    }) &
            weft::make_stage<int, int>(
                weft::parallel,
                [&](int i) {
                    if (i < 2) { /* items 0 and 1 wait for each other */
                        arrived++;
                        auto end = std::chrono::steady_clock::now() +
                                   std::chrono::seconds(20);
                        while (arrived.load() < 2 &&
                               std::chrono::steady_clock::now() < end)
                            std::this_thread::yield();
                        if (arrived.load() == 2)
                            met = true;
                    }
                    return i;
                }) &
            weft::make_stage<int, void>(weft::serial_in_order,
                                        [&](int) { serial_guard(1); }));
    CHECK(met.load());
    CHECK(!overlap.load());
}

static void stop()
{
    weft::pool pool(2);
    for (long k : {0L, 1L, 7L, 1000L}) {
        long made = 0, calls = 0, sunk = 0;
        weft::parallel_pipeline(
            pool, 4,
            weft::make_stage<void, counted>(weft::serial_in_order,
                                            [&](weft::flow_control &fc) {
                                                calls++;
                                                if (made == k)
                                                    fc.stop();
                                                return counted(made++);
                                            }) &
                weft::make_stage<counted, counted>(
                    weft::parallel, [](counted c) { return c; }) &
                weft::make_stage<counted, void>(weft::serial_in_order,
                                                [&](counted c) {
                                                    CHECK(c.v == sunk);
                                                    sunk++;
                                                }));
        CHECK(sunk == k);
        CHECK(calls == k + 1);
        CHECK(alive.load() == 0);
    }
}

struct stage_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

static void exception()
{
    weft::pool pool(4);
    for (int where = 0; where < 3; where++) {
        std::atomic<long> made{0};
        std::atomic<long> sunk{0};
        std::atomic<bool> saw_bad{false};
        const long bad = 37;
        auto chain =
            weft::make_stage<void, counted>(
                weft::serial_in_order,
                [&](weft::flow_control &) { /* never stops */
                                            long i = made++;
                                            if (where == 0 && i == bad)
                                                throw stage_error("input 37");
                                            return counted(i);
                }) &
            weft::make_stage<counted, counted>(weft::parallel,
                                               [&](counted c) {
                                                   if (where == 1 && c.v == bad)
                                                       throw stage_error(
                                                           "middle 37");
                                                   return c;
                                               }) &
            weft::make_stage<counted, void>(
                weft::serial_in_order, [&](const counted &c) {
                    if (c.v == bad)
                        saw_bad = true;
                    if (where == 2 && c.v == bad)
                        throw stage_error("last 37");
                    sunk++;
                });
        const char *want[] = {"input 37", "middle 37", "last 37"};
        CHECK_THROWS(weft::parallel_pipeline(pool, 8, chain), stage_error,
                     std::strcmp(e.what(), want[where]) == 0);
        /* The endless input stopped soon after the failure. */
        CHECK(made.load() < bad + 1000);
        CHECK(sunk.load() <= bad);
        CHECK(saw_bad.load() == (where == 2));
        CHECK(alive.load() == 0);

        /* Runs again after. */
        long next = 0, total = 0;
        weft::parallel_pipeline(
            pool, 8,
            weft::make_stage<void, long>(weft::serial_in_order,
                                         [&](weft::flow_control &fc) {
                                             if (next == 100)
                                                 fc.stop();
                                             return next++;
                                         }) &
                weft::make_stage<long, void>(weft::serial_in_order,
                                             [&](long v) { total += v; }));
        CHECK(total == 99 * 100 / 2);
    }
}

static void move_only()
{
    weft::pool pool(2);
    const int n = 3000;
    int next = 0;
    std::vector<std::string> out;
    weft::parallel_pipeline(
        pool, 6,
        weft::make_stage<void, std::unique_ptr<int>>(
            weft::serial_in_order,
            [&](weft::flow_control &fc) {
                if (next == n)
                    fc.stop();
                return std::make_unique<int>(next++);
            }) &
            weft::make_stage<std::unique_ptr<int>, counted>(
                weft::parallel,
                [](std::unique_ptr<int> p) { return counted(*p * 3L); }) &
            weft::make_stage<counted, std::string>(
                weft::serial_out_of_order,
                [](counted &&c) { return std::to_string(c.v); }) &
            weft::make_stage<std::string, void>(
                weft::serial_in_order,
                [&](std::string s) { out.push_back(std::move(s)); }));
    CHECK(out.size() == static_cast<std::size_t>(n));
    for (int i = 0; i < n; i++)
        CHECK(out[i] == std::to_string(3L * i));
    CHECK(alive.load() == 0);
}

static void errors()
{
    weft::pool pool(2);
    auto src = weft::make_stage<void, int>(weft::serial_in_order,
                                           [](weft::flow_control &fc) {
                                               fc.stop();
                                               return 0;
                                           });
    auto sink = weft::make_stage<int, void>(weft::parallel, [](int) {});
    CHECK_THROWS(weft::parallel_pipeline(pool, 0, src, sink), weft::error,
                 e.code() == WF_EINVAL);
    CHECK_THROWS(
        weft::parallel_pipeline(pool, WF_PIPELINE_MAX_TOKENS + 1, src, sink),
        weft::error, e.code() == WF_ERANGE);
    auto par_src =
        weft::make_stage<void, int>(weft::parallel, [](weft::flow_control &fc) {
            fc.stop();
            return 0;
        });
    CHECK_THROWS(weft::parallel_pipeline(pool, 4, par_src & sink), weft::error,
                 e.code() == WF_EINVAL);

    /* One stage: the input alone, called until it stops. */
    int calls = 0;
    weft::parallel_pipeline(
        pool, 1,
        weft::make_stage<void, void>(weft::serial_in_order,
                                     [&](weft::flow_control &fc) {
                                         if (++calls == 10)
                                             fc.stop();
                                     }));
    CHECK(calls == 10);
}

int main(int argc, char **argv)
{
    const char *s = argc > 1 ? argv[1] : "all";
    bool all = std::strcmp(s, "all") == 0;
    if (all || std::strcmp(s, "ordered") == 0)
        ordered();
    if (all || std::strcmp(s, "nested") == 0)
        nested();
    if (all || std::strcmp(s, "parallel") == 0)
        parallel();
    if (all || std::strcmp(s, "stop") == 0)
        stop();
    if (all || std::strcmp(s, "exception") == 0)
        exception();
    if (all || std::strcmp(s, "move_only") == 0)
        move_only();
    if (all || std::strcmp(s, "errors") == 0)
        errors();
    std::printf("cxx_pipeline %s: ok\n", s);
    return 0;
}
