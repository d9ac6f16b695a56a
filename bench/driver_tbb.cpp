/* SPDX-License-Identifier: Apache-2.0 */
// The oneTBB runner.  Fork-join: one task_arena per thread count T (the
// calling thread is one of its T), kept across runs; a global_control
// lets an arena be larger than the machine.  Flow graphs: no arena of our
// own, as in a user's main(): the graph is built and run on the calling
// thread, outside task_arena::execute, with global_control
// max_allowed_parallelism = T, which counts that thread.  Also the loop
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

namespace
{
std::map<unsigned, std::unique_ptr<tbb::task_arena>> arenas;
std::unique_ptr<tbb::global_control> limit;
unsigned limit_n;
unsigned graph_threads; // T of the graph build or run in progress

// A reduction value of up to BENCH_REDUCE_MAX_SIZE bytes.
struct acc_t {
    alignas(16) unsigned char b[BENCH_REDUCE_MAX_SIZE];
};
} // namespace

static void limit_to(unsigned threads)
{
    limit.reset(); // one global_control of this kind at a time
    limit.reset(new tbb::global_control(
        tbb::global_control::max_allowed_parallelism, threads));
    limit_n = threads;
}

// The arena of `threads` threads, made on first use and kept.
static tbb::task_arena &arena_for(unsigned threads)
{
    if (threads > limit_n)
        limit_to(threads);
    auto &arena = arenas[threads];
    if (!arena)
        arena.reset(new tbb::task_arena(int(threads)));
    return *arena;
}

extern "C" int bench_system_run(void (*fn)(void *), void *state,
                                unsigned threads, char *why, unsigned long n)
{
    if (threads == 0) {
        std::snprintf(why, n, "tbb: 0 threads");
        return -1;
    }
    arena_for(threads).execute([=] { fn(state); });
    return 0;
}

extern "C" unsigned bench_tbb_threads(void)
{
    return graph_threads;
}

// fn on this thread, outside any execute: a graph made here attaches to
// this thread's arena or makes one of the default size (graph's
// prepare_task_arena), whose workers global_control holds to T - 1, and
// the caller's wait_for_all is the T-th thread.  The limit is set to
// exactly T, not only raised as for the arenas above, since a default
// arena has a slot per CPU of the machine.
static int on_this_thread(void (*fn)(void *), void *state, unsigned threads,
                          char *why, unsigned long n)
{
    if (threads == 0) {
        std::snprintf(why, n, "tbb: 0 threads");
        return -1;
    }
    if (threads != limit_n)
        limit_to(threads);
    graph_threads = threads;
    fn(state);
    graph_threads = 0;
    return 0;
}

extern "C" int bench_system_run_graph(void (*fn)(void *), void *state,
                                      unsigned threads, char *why,
                                      unsigned long n)
{
    return on_this_thread(fn, state, threads, why, n);
}

extern "C" int bench_system_build(void (*build)(void *), void *state,
                                  unsigned threads, char *why, unsigned long n)
{
    return on_this_thread(build, state, threads, why, n);
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
                  tbb::blocked_range<size_t>(begin, end, grain), id, part, join,
                  tbb::simple_partitioner());
    std::memcpy(result, out.b, size);
}
