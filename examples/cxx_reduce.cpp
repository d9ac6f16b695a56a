// SPDX-License-Identifier: Apache-2.0
// cxx_reduce: a parallel_for and a reduction over a vector with weft.hpp,
// what a oneTBB user writes with tbb::parallel_for and the functional
// tbb::parallel_reduce, or an OpenMP user with `parallel for` and
// `reduction(+ : sum)`.  The lambdas capture by reference; the first
// exception one throws comes out of the call.
//
// Build: c++ -std=c++17 -O2 cxx_reduce.cpp $(pkg-config --cflags --libs weft)
// Run:   ./cxx_reduce    prints  sum of sqrt over 1048576 elements: ... (ok)
#include <cmath>
#include <cstdio>
#include <functional>
#include <vector>
#include <weft.hpp>

int main()
{
    std::vector<double> x(1 << 20), y(x.size());
    for (std::size_t i = 0; i < x.size(); i++)
        x[i] = static_cast<double>(i % 1000);

    weft::pool pool; // WEFT_NUM_THREADS, else every CPU
    pool.parallel_for(0, x.size(),
                      [&](std::size_t i) { y[i] = std::sqrt(x[i]); });
    double sum = pool.parallel_reduce(
        0, y.size(), 0.0, [&](std::size_t i, double acc) { return acc + y[i]; },
        std::plus<>());

    double check = 0;
    for (std::size_t i = 0; i < x.size(); i++)
        check += std::sqrt(x[i]);
    bool ok = std::fabs(sum - check) <= 1e-9 * check;
    std::printf("sum of sqrt over %zu elements: %.6e (%s)\n", x.size(), sum,
                ok ? "ok" : "WRONG");
    return ok ? 0 : 1;
}
