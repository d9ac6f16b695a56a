/* SPDX-License-Identifier: Apache-2.0 */
/* cxx_async: weft::async, weft::future and weft::silent_async (weft.hpp),
 * from C++17.
 *
 *   value      a value through get(), on a weft::pool and the default
 *              pool; get() once (then valid() is false and another get()
 *              throws WF_ESTATE); a move-only result; get() from a thread
 *              other than the one that called async.
 *   void       a void task: wait(), is_ready(), get().
 *   exception  get() throws what the task threw (void and value tasks).
 *   many       10000 asyncs, every value once; a future dropped without
 *              get() still runs its task (wait_idle waits for it).
 *   nested     get() from inside pool tasks: fib(17) by recursive
 *              asyncs on 2 threads; a task that waits for a future whose
 *              task another thread is running; every worker waiting on a
 *              future whose task is queued behind it; a task of one
 *              pool waiting for a task of another; a pool of one
 *              thread, where only waiting threads run tasks.
 *   silent     silent_async from outside and from inside the pool, seen
 *              complete after wait_idle() and after the pool's
 *              destruction. */
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

static void value()
{
    weft::pool pool(2);
    weft::future<int> f = weft::async(pool, [] { return 42; });
    CHECK(f.valid());
    CHECK(f.get() == 42);
    CHECK(!f.valid());
    CHECK_THROWS(f.get(), weft::error, e.code() == WF_ESTATE);
    CHECK_THROWS(f.wait(), weft::error, e.code() == WF_ESTATE);

    auto d = weft::async([] { return std::string("default pool"); });
    CHECK(d.get() == "default pool");

    auto p = weft::async(pool, [] { return std::make_unique<int>(7); });
    std::unique_ptr<int> got = p.get();
    CHECK(got && *got == 7);

    /* get() on another thread; a moved future. */
    weft::future<long> m = weft::async(pool, [] { return 6L * 7; });
    weft::future<long> moved = std::move(m);
    CHECK(!m.valid());
    long other = 0;
    std::thread t([&] { other = moved.get(); });
    t.join();
    CHECK(other == 42);
    weft::future<int> none;
    CHECK(!none.valid());
}

static void void_task()
{
    weft::pool pool(2);
    std::atomic<int> ran{0};
    weft::future<void> f = weft::async(pool, [&] { ran++; });
    f.wait();
    CHECK(f.is_ready());
    CHECK(ran.load() == 1);
    f.get();
    CHECK(!f.valid());
    CHECK(ran.load() == 1);
}

static void exception()
{
    weft::pool pool(2);
    auto f =
        weft::async(pool, []() -> int { throw std::runtime_error("boom"); });
    CHECK_THROWS(f.get(), std::runtime_error,
                 std::strcmp(e.what(), "boom") == 0);
    CHECK(!f.valid());
    auto v = weft::async(pool, [] { throw std::logic_error("void boom"); });
    v.wait(); /* wait does not throw */
    CHECK_THROWS(v.get(), std::logic_error,
                 std::strcmp(e.what(), "void boom") == 0);
    /* An exception from a task the waiter ran itself (pool of one thread:
     * nobody else runs it). */
    weft::pool one(1);
    auto w = weft::async(one, []() -> int { throw std::runtime_error("own"); });
    CHECK_THROWS(w.get(), std::runtime_error,
                 std::strcmp(e.what(), "own") == 0);
}

static void many()
{
    weft::pool pool(4);
    const long n = 10000;
    std::vector<weft::future<long>> fs;
    fs.reserve(n);
    for (long i = 0; i < n; i++)
        fs.push_back(weft::async(pool, [i] { return i * i; }));
    long sum = 0;
    for (long i = 0; i < n; i++) {
        long v = fs[i].get();
        CHECK(v == i * i);
        sum += v;
    }
    CHECK(sum == (n - 1) * n * (2 * n - 1) / 6);

    std::atomic<long> ran{0};
    for (int i = 0; i < 100; i++)
        (void)weft::async(pool, [&] { ran++; }); /* dropped at once */
    pool.wait_idle();
    CHECK(ran.load() == 100);
}

static weft::pool *fib_pool;
static long fib(int n)
{
    if (n < 2)
        return n;
    auto a = weft::async(*fib_pool, [n] { return fib(n - 1); });
    long b = fib(n - 2);
    return a.get() + b;
}

static void nested()
{
    weft::pool pool(2);
    fib_pool = &pool;
    long r = 0;
    pool.run([&] { r = fib(17); });
    CHECK(r == 1597);
    /* From a thread outside the pool, at the top. */
    CHECK(weft::async(pool, [] { return fib(15); }).get() == 610);

    /* A task that waits for a future whose task runs on another thread
     * (the waiter cannot run it itself: it sleeps until it is done). */
    std::atomic<bool> started{false}, release{false};
    auto slow = weft::async(pool, [&] {
        started = true;
        while (!release.load())
            std::this_thread::yield();
        return 5;
    });
    while (!started.load())
        std::this_thread::yield();
    auto waiter = weft::async(pool, [&] { return slow.get() + 1; });
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    release = true;
    CHECK(waiter.get() == 6);

    /* Every thread of the pool waits on a future whose task is queued
     * behind it, on its own queue: each runs its own. */
    std::vector<weft::future<int>> outer;
    for (int i = 0; i < 8; i++)
        outer.push_back(weft::async(pool, [i] {
            auto inner = weft::async(*fib_pool, [i] { return i + 100; });
            return inner.get();
        }));
    for (int i = 0; i < 8; i++)
        CHECK(outer[i].get() == i + 100);

    /* A task of another pool waits for a task of this one: it runs it
     * in a caller slot of this pool when nobody has started it. */
    weft::pool other(2);
    std::atomic<int> mixed{0};
    other.run([&] {
        auto f = weft::async(
            pool, [] { return weft::async([] { return 3; }).get(); });
        mixed = f.get();
    });
    CHECK(mixed.load() == 3);

    /* One thread: no background worker, so only a waiting thread runs
     * the tasks, and a get() from outside must run its task itself. */
    weft::pool one(1);
    fib_pool = &one;
    CHECK(weft::async(one, [] { return fib(12); }).get() == 144);
    long in = 0;
    one.run([&] { in = fib(10); });
    CHECK(in == 55);
    fib_pool = nullptr;
}

static void silent()
{
    std::atomic<long> count{0};
    {
        weft::pool pool(2);
        for (int i = 0; i < 1000; i++)
            weft::silent_async(pool, [&] { count++; });
        pool.wait_idle();
        CHECK(count.load() == 1000);
        /* From inside the pool: onto the worker's own queue. */
        pool.run([&] {
            for (int i = 0; i < 100; i++)
                weft::silent_async(pool, [&] { count++; });
        });
        pool.wait_idle();
        CHECK(count.load() == 1100);
        CHECK_THROWS(pool.run([&] { pool.wait_idle(); }), weft::error,
                     e.code() == WF_EPERM);
        /* Left for the destruction to wait for. */
        for (int i = 0; i < 500; i++)
            weft::silent_async(pool, [&] {
                std::this_thread::yield();
                count++;
            });
    }
    CHECK(count.load() == 1600);
    /* A pool of one thread runs them when a thread waits on it. */
    weft::pool one(1);
    for (int i = 0; i < 10; i++)
        weft::silent_async(one, [&] { count++; });
    one.wait_idle();
    CHECK(count.load() == 1610);
}

int main(int argc, char **argv)
{
    const char *s = argc > 1 ? argv[1] : "all";
    bool all = std::strcmp(s, "all") == 0;
    if (all || std::strcmp(s, "value") == 0)
        value();
    if (all || std::strcmp(s, "void") == 0)
        void_task();
    if (all || std::strcmp(s, "exception") == 0)
        exception();
    if (all || std::strcmp(s, "many") == 0)
        many();
    if (all || std::strcmp(s, "nested") == 0)
        nested();
    if (all || std::strcmp(s, "silent") == 0)
        silent();
    std::printf("cxx_async %s: ok\n", s);
    return 0;
}
