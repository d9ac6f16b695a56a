// SPDX-License-Identifier: Apache-2.0
// cxx_blur: the 3x3 box blur of examples/blur.c with weft.hpp, what a
// oneTBB user writes with blocked_range2d or an OpenMP user with
// `parallel for collapse(2)`: the loop body is a lambda of (row, column),
// and weft picks the pieces (bands of whole rows) it runs on its workers.
//
// Build: c++ -std=c++17 -O2 cxx_blur.cpp $(pkg-config --cflags --libs weft)
// Run:   ./cxx_blur    prints  blurred 1024x768: ... same as sequential (ok)
#include <cstdio>
#include <vector>
#include <weft.hpp>

int main()
{
    const std::size_t W = 1024, H = 768;
    std::vector<float> in(W * H), out(W * H), check(W * H);
    for (std::size_t i = 0; i < in.size(); i++)
        in[i] = static_cast<float>(i * 2654435761u % 1000);
    auto mean = [&](std::size_t y, std::size_t x) { // of the 3x3 around
        float s = 0;
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++)
                s += in[(y + dy) * W + x + dx];
        return s / 9;
    };

    weft::pool pool; // WEFT_NUM_THREADS, else every CPU
    pool.parallel_for_2d(1, H - 1, 1, W - 1, [&](std::size_t y, std::size_t x) {
        float s = 0;
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++)
                s += in[(y + dy) * W + x + dx];
        out[y * W + x] = s / 9;
    });

    std::size_t diff = 0;
    for (std::size_t y = 1; y + 1 < H; y++)
        for (std::size_t x = 1; x + 1 < W; x++)
            diff += out[y * W + x] != mean(y, x);
    std::printf("blurred %zux%zu: %zu pixels differ from sequential (%s)\n", W,
                H, diff, diff == 0 ? "ok" : "WRONG");
    return diff != 0;
}
