/* SPDX-License-Identifier: Apache-2.0 */
/* cxx_pipeline: lines of text through a typed pipeline (weft.hpp,
 * docs/cpp.md "Pipelines"), the C++ counterpart of pipeline.c:
 *
 *   read (serial, in order) -> upper (parallel) -> write (serial, in order)
 *
 * `read` takes the next line of the input, `upper` uppercases it and
 * hashes it, `write` appends it to the output and folds the hashes, in
 * input order, into one checksum.  The items are std::string and a
 * struct that holds one: the pipeline keeps them in a slot per token,
 * so nothing is allocated per item but what the strings allocate.  It
 * then checks the output and the checksum against a sequential pass and
 * prints
 *   cxx_pipeline: 20000 lines, 788847 bytes, uppercased in parallel,
 *   written in order: checksum 64a787c7fb2e7a0b (ok)
 * (one line; exit status 1 if anything differs).  It runs on the default
 * pool: WEFT_NUM_THREADS sets its threads.
 *
 * Build: c++ -std=c++17 -O2 cxx_pipeline.cpp $(pkg-config --cflags --libs
 * weft) */
#include <weft.hpp>

#include <cctype>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <sstream>
#include <string>

struct line {
    std::string text;
    std::uint64_t hash; /* FNV-1a of the uppercased text */
};

static std::uint64_t fnv1a(const std::string &s)
{
    std::uint64_t h = 0xcbf29ce484222325u;
    for (unsigned char c : s)
        h = (h ^ c) * 0x100000001b3u;
    return h;
}

static std::uint64_t fold(std::uint64_t sum, std::uint64_t h)
{
    return (sum ^ h) * 0x100000001b3u + 1;
}

static std::string upper(std::string s)
{
    for (char &c : s)
        c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return s;
}

/* The text of examples/pipeline.c's input. */
static std::string make_text()
{
    static const char *const words[] = {
        "the", "quick", "brown", "fox", "jumps", "over", "a", "lazy", "dog"};
    std::string t;
    for (int l = 0; l < 20000; l++) {
        t += "line " + std::to_string(l) + ":";
        for (int w = 0; w < 1 + l % 11; w++)
            t += std::string(" ") + words[(l * 7 + w) % 9];
        t += '\n';
    }
    return t;
}

int main()
{
    const std::string text = make_text();
    std::istringstream in(text);
    std::ostringstream out;
    std::uint64_t checksum = 0;

    try {
        weft::parallel_pipeline(
            16,
            weft::make_stage<void, std::string>(weft::serial_in_order,
                                                [&](weft::flow_control &fc) {
                                                    std::string s;
                                                    if (!std::getline(in, s))
                                                        fc.stop();
                                                    return s;
                                                }) &
                weft::make_stage<std::string, line>(
                    weft::parallel,
                    [](std::string s) {
                        s = upper(std::move(s));
                        std::uint64_t h = fnv1a(s);
                        return line{std::move(s), h};
                    }) &
                weft::make_stage<line, void>(
                    weft::serial_in_order, [&](const line &l) {
                        out << l.text << '\n';
                        checksum = fold(checksum, l.hash);
                    }));
    } catch (const std::exception &e) {
        std::fprintf(stderr, "cxx_pipeline: %s\n", e.what());
        return 2;
    }

    /* The same, one line after another. */
    std::istringstream again(text);
    std::string s, expect;
    std::uint64_t sum = 0;
    std::size_t lines = 0;
    while (std::getline(again, s)) {
        s = upper(s);
        sum = fold(sum, fnv1a(s));
        expect += s + '\n';
        lines++;
    }
    bool ok = out.str() == expect && sum == checksum;
    std::printf("cxx_pipeline: %zu lines, %zu bytes, uppercased in parallel, "
                "written in order: checksum %016" PRIx64 " (%s)\n",
                lines, out.str().size(), checksum, ok ? "ok" : "WRONG");
    return ok ? 0 : 1;
}
