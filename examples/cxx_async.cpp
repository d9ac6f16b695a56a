/* SPDX-License-Identifier: Apache-2.0 */
/* cxx_async: tasks with futures and without (weft.hpp, docs/cpp.md
 * "Async tasks").
 *
 * Counts the primes below 200000 in 8 pieces, each an async task whose
 * future gives its count; computes fib(20) by tasks that wait for their
 * children's futures from inside the pool; logs each piece with a
 * silent_async task that nobody waits for but the pool's wait_idle; and
 * catches the exception of a task that fails through its future.  Checks
 * each against a sequential computation and prints
 *   cxx_async: 17984 primes below 200000 in 8 tasks, fib(20) = 6765,
 *   8 silent tasks, error caught: no such piece (ok)
 * (one line; exit status 1 if anything differs).
 *
 * Build: c++ -std=c++17 -O2 cxx_async.cpp $(pkg-config --cflags --libs
 * weft) */
#include <weft.hpp>

#include <atomic>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

static bool is_prime(long n)
{
    if (n < 2)
        return false;
    for (long d = 2; d * d <= n; d++)
        if (n % d == 0)
            return false;
    return true;
}

static long count_primes(long lo, long hi)
{
    long c = 0;
    for (long n = lo; n < hi; n++)
        c += is_prime(n);
    return c;
}

static long fib(weft::pool &pool, int n)
{
    if (n < 2)
        return n;
    /* The child may run on another thread; get() runs it here if nobody
     * has taken it yet. */
    weft::future<long> a =
        weft::async(pool, [&pool, n] { return fib(pool, n - 1); });
    long b = fib(pool, n - 2);
    return a.get() + b;
}

int main()
{
    const long limit = 200000;
    const int pieces = 8;
    weft::pool pool;

    std::vector<weft::future<long>> parts;
    std::atomic<int> logged{0};
    for (int k = 0; k < pieces; k++)
        parts.push_back(weft::async(pool, [&, k] {
            long c = count_primes(limit * k / pieces, limit * (k + 1) / pieces);
            weft::silent_async(pool, [&logged] { logged++; }); /* a log line */
            return c;
        }));
    long primes = 0;
    for (weft::future<long> &f : parts)
        primes += f.get();

    long f20 = weft::async(pool, [&pool] { return fib(pool, 20); }).get();

    std::string caught;
    weft::future<long> bad = weft::async(
        pool, []() -> long { throw std::out_of_range("no such piece"); });
    try {
        bad.get();
    } catch (const std::out_of_range &e) {
        caught = e.what();
    }

    pool.wait_idle(); /* the silent tasks */
    bool ok = primes == count_primes(0, limit) && f20 == 6765 &&
              logged.load() == pieces && caught == "no such piece";
    std::printf("cxx_async: %ld primes below %ld in %d tasks, fib(20) = %ld, "
                "%d silent tasks, error caught: %s (%s)\n",
                primes, limit, pieces, f20, logged.load(), caught.c_str(),
                ok ? "ok" : "WRONG");
    return ok ? 0 : 1;
}
