// The oneTBB runner: one task_arena per worker count (the calling thread
// is one of its threads, as in wf_run), kept across runs; a
// global_control lets an arena be larger than the machine.  Also the loop
// helpers of kernel.h for this build: parallel_for, parallel_reduce.
#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/parallel_reduce.h>
#include <oneapi/tbb/task_arena.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>

#include "kernel.h"
#include "system.h"

extern "C" {
const char bench_system_name[] = "tbb";
const bool bench_system_is_seq = false;
}

namespace {
std::map<unsigned, std::unique_ptr<tbb::task_arena>> arenas;
std::unique_ptr<tbb::global_control> limit;
unsigned limit_n;

// A reduction value of up to BENCH_REDUCE_MAX_SIZE bytes.
struct acc_t {
    alignas(16) unsigned char b[BENCH_REDUCE_MAX_SIZE];
};
} // namespace

// The arena of `workers` threads, made on first use and kept.
static tbb::task_arena &arena_for(unsigned workers)
{
    if (workers > limit_n) {
        limit.reset(); // one global_control of this kind at a time
        limit.reset(new tbb::global_control(
            tbb::global_control::max_allowed_parallelism, workers));
        limit_n = workers;
    }
    auto &arena = arenas[workers];
    if (!arena)
        arena.reset(new tbb::task_arena(int(workers)));
    return *arena;
}

extern "C" int bench_system_run(void (*fn)(void *), void *state,
                                unsigned workers, char *why, unsigned long n)
{
    if (workers == 0) {
        std::snprintf(why, n, "tbb: 0 workers");
        return -1;
    }
    arena_for(workers).execute([=] { fn(state); });
    return 0;
}

// execute runs on the calling thread, which joins the arena: a graph
// built here is bound to that arena, as one built by run_par.
extern "C" int bench_system_build(void (*build)(void *), void *state,
                                  unsigned workers, char *why, unsigned long n)
{
    return bench_system_run(build, state, workers, why, n);
}

// grain 0: auto_partitioner (TBB's adaptive split); grain > 0: halve
// down to at most grain, as wf_parallel_for does.
extern "C" void bench_parallel_for(size_t begin, size_t end, size_t grain,
                                   bench_range_fn body, void *ctx)
{
    auto f = [=](const tbb::blocked_range<size_t> &r) {
        body(r.begin(), r.end(), ctx);
    };
    if (grain == 0)
        tbb::parallel_for(tbb::blocked_range<size_t>(begin, end), f,
                          tbb::auto_partitioner());
    else
        tbb::parallel_for(tbb::blocked_range<size_t>(begin, end, grain), f,
                          tbb::simple_partitioner());
}

extern "C" void bench_parallel_reduce(size_t begin, size_t end, size_t grain,
                                      void *result, size_t size,
                                      const void *identity,
                                      bench_reduce_fn body,
                                      bench_combine_fn combine, void *ctx)
{
    if (size > sizeof(acc_t)) {
        std::fprintf(stderr, "bench_parallel_reduce: %zu-byte value\n", size);
        std::abort();
    }
    acc_t id{};
    std::memcpy(id.b, identity, size);
    // Pieces and partitioners as in bench_parallel_for.  TBB may combine
    // in another tree on every run: the kernels' combines are exact.
    auto part = [=](const tbb::blocked_range<size_t> &r, acc_t a) {
        body(r.begin(), r.end(), a.b, ctx);
        return a;
    };
    auto join = [=](acc_t l, const acc_t &r) {
        combine(l.b, r.b, ctx);
        return l;
    };
    acc_t out =
        grain == 0
            ? tbb::parallel_reduce(tbb::blocked_range<size_t>(begin, end), id,
                                   part, join, tbb::auto_partitioner())
            : tbb::parallel_reduce(
                  tbb::blocked_range<size_t>(begin, end, grain), id, part,
                  join, tbb::simple_partitioner());
    std::memcpy(result, out.b, size);
}
