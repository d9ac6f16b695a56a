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
 *              an edge between two graphs throws weft::error. */
#include <weft.hpp>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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
    std::printf("cxx_taskgraph %s: ok\n", s);
    return 0;
}
