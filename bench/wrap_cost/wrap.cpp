// SPDX-License-Identifier: Apache-2.0
// The C++ side of bench/wrap_cost/run.sh: the same three with weft.hpp,
// the data in calloc's memory as in wrap.c (a std::vector would add
// the zeroing of its elements to the count).
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <weft.hpp>

int main(int argc, char **argv)
{
    const char *what = argv[1];
    std::size_t n = std::strtoul(argv[2], nullptr, 10);
    weft::pool p = weft::pool::default_pool();
    double *x = static_cast<double *>(std::calloc(n + 1, sizeof(double)));
    double *y = static_cast<double *>(std::calloc(n + 1, sizeof(double)));
    if (std::strcmp(what, "for") == 0) {
        p.parallel_for(0, n, [&](std::size_t i) { y[i] = 2 * x[i]; });
    } else if (std::strcmp(what, "reduce") == 0) {
        double s = p.parallel_reduce(
            0, n, 0.0, [&](std::size_t i, double acc) { return acc + x[i]; },
            std::plus<>());
        std::printf("%g\n", s);
    } else {
        std::atomic<long> got{0};
        weft::graph g(p);
        weft::function_node<int, int> a(g, 1, [](int v) { return v + 1; });
        weft::function_node<int, int> b(g, 1, [](int v) { return v + 1; });
        weft::function_node<int> c(g, 1, [&](int v) { got += v; });
        weft::make_edge(a, b);
        weft::make_edge(b, c);
        for (std::size_t i = 0; i < n; i++)
            a.try_put(static_cast<int>(i));
        g.wait_for_all();
        std::printf("%ld\n", got.load());
    }
    return 0;
}
