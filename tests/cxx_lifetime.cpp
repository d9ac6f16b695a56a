/* SPDX-License-Identifier: Apache-2.0 */
/* cxx_lifetime: weft.hpp's owners across resets and destruction orders.
 *
 * ARGS: a scenario name (none or "all": every one).
 *   reset_clears  an exception a body threw and that no wait_for_all
 *                 reported is dropped by graph::reset(): the next clean
 *                 run's wait_for_all returns, and a new exception after it
 *                 is reported as itself.
 *   pool_outlived a weft::graph that outlives the weft::pool it was made
 *                 on (the pool's scope ends first, or the pool is moved
 *                 over) keeps the pool working, and the pool's threads end
 *                 with the last graph: the process's thread count
 *                 (/proc/self/task) comes back to what it was.  A pool no
 *                 graph uses still ends with its own destructor.
 *   pool_busy     a weft::pool whose wf_pool is still used by a graph made
 *                 through the C API cannot be destroyed: its destructor
 *                 terminates the process with a message (run in a forked
 *                 child: SIGABRT, and the message on its stderr). */
#include <weft.hpp>

#include <dirent.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>

#include "cxx_check.h"

static void reset_clears()
{
    weft::pool pool(2);
    weft::graph g(pool);
    std::atomic<int> calls(0);
    weft::function_node<int> f(g, weft::serial, [&](int v) {
        calls.fetch_add(1);
        if (v == 1)
            throw std::runtime_error("old");
    });
    CHECK(f.try_put(1));
    g.reset(); /* waits for the body, which throws; clears the error */
    CHECK(calls.load() == 1);
    CHECK(!g.is_cancelled());
    CHECK(f.try_put(2));
    g.wait_for_all(); /* a clean run: nothing to report */
    CHECK(calls.load() == 2);

    /* After the reset, a new exception is reported, and only once. */
    CHECK(f.try_put(1));
    CHECK_THROWS(g.wait_for_all(), std::runtime_error,
                 std::string(e.what()) == "old");
    g.reset();
    CHECK(f.try_put(3));
    g.wait_for_all();
    CHECK(calls.load() == 4);
}

/* The threads of this process now. */
static int thread_count()
{
    DIR *d = opendir("/proc/self/task");
    CHECK(d != nullptr);
    int n = 0;
    while (struct dirent *e = readdir(d))
        if (e->d_name[0] != '.')
            n++;
    closedir(d);
    return n;
}

/* Wait (5 s at most) until the process has `want` threads: a joined
 * thread leaves /proc a moment after its join returns, and under an
 * emulator a new one may come a moment after its creation. */
static bool threads_back_to(int want)
{
    for (int i = 0; i < 5000; i++) {
        if (thread_count() == want)
            return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    std::fprintf(stderr, "threads: %d, expected %d\n", thread_count(), want);
    return false;
}

/* The thread count once it has stopped changing for 20 ms (5 s at most):
 * a thread just joined may still be in /proc, longer under an emulator. */
static int settled_thread_count()
{
    int n = thread_count(), same = 0;
    for (int i = 0; i < 5000 && same < 20; i++) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        int m = thread_count();
        same = m == n ? same + 1 : 0;
        n = m;
    }
    return n;
}

static void pool_outlived()
{
    /* A first thread may start threads of the runtime (ThreadSanitizer's
     * background thread): counted after one, once it has left /proc. */
    std::thread([] {}).join();
    const int before = settled_thread_count();

    /* No graph: the pool's threads end with its destructor. */
    {
        weft::pool pool(3);
        CHECK(threads_back_to(before + 2));
    }
    CHECK(threads_back_to(before));

    /* The pool's scope ends before the graph's. */
    {
        std::optional<weft::graph> g;
        {
            weft::pool pool(3);
            g.emplace(pool);
        }
        long sum = 0;
        weft::function_node<int> add(*g, weft::serial,
                                     [&](int v) { sum += v; });
        for (int i = 1; i <= 100; i++)
            CHECK(add.try_put(i));
        g->wait_for_all();
        CHECK(sum == 5050);
        CHECK(threads_back_to(before + 2)); /* still there, and working */
    }
    CHECK(threads_back_to(before));

    /* A pool moved over (its old wf_pool goes), and two graphs on the old
     * one, destroyed in either order. */
    {
        weft::pool pool(3);
        std::optional<weft::graph> g1(std::in_place, pool);
        std::optional<weft::graph> g2(std::in_place, pool);
        pool = weft::pool(2); /* the old pool stays for g1 and g2 */
        CHECK(threads_back_to(before + 2 + 1));
        g1.reset();
        CHECK(threads_back_to(before + 2 + 1));
        std::atomic<int> ran(0);
        weft::function_node<int> count(*g2, weft::unlimited,
                                       [&](int) { ran.fetch_add(1); });
        for (int i = 0; i < 10; i++)
            CHECK(count.try_put(i));
        g2->wait_for_all();
        CHECK(ran.load() == 10);
        /* A graph moved by assignment drops the pool it had. */
        weft::graph g3(pool);
        *g2 = std::move(g3);
        CHECK(threads_back_to(before + 1)); /* the old pool went */
    }
    CHECK(threads_back_to(before));
}

/* In the child: a C graph on the pool when the pool's destructor runs. */
static void pool_busy_child()
{
    wf_graph *g = nullptr;
    {
        weft::pool pool(2);
        CHECK(wf_graph_create(&g, pool.get()) == 0);
    } /* must terminate here */
    std::printf("the pool's destructor returned\n");
    std::exit(0);
}

static void pool_busy()
{
    std::fflush(nullptr);
    int fds[2];
    CHECK(pipe(fds) == 0);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        dup2(fds[1], 2);
        close(fds[0]);
        pool_busy_child();
    }
    close(fds[1]);
    char err[4096];
    std::size_t got = 0;
    for (ssize_t r; got + 1 < sizeof err &&
                    (r = read(fds[0], err + got, sizeof err - 1 - got)) > 0;)
        got += static_cast<std::size_t>(r);
    err[got] = '\0';
    close(fds[0]);
    int st = 0;
    CHECK(waitpid(pid, &st, 0) == pid);
    std::printf("  child: %s %d; stderr: %s",
                WIFSIGNALED(st) ? "signal" : "exit",
                WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st), err);
    CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT);
    CHECK(std::strstr(err, "weft::pool") != nullptr);
    CHECK(std::strstr(err, "graph") != nullptr);
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        void (*run)();
    } scenarios[] = {{"reset_clears", reset_clears},
                     {"pool_outlived", pool_outlived},
                     {"pool_busy", pool_busy}};
    const char *name = argc > 1 ? argv[1] : "all";
    bool all = std::strcmp(name, "all") == 0, found = false;
    for (const auto &s : scenarios) {
        if (!all && std::strcmp(name, s.name) != 0)
            continue;
        s.run();
        found = true;
    }
    if (!found) {
        std::fprintf(stderr, "cxx_lifetime: unknown scenario '%s'\n", name);
        return 2;
    }
    std::printf("cxx_lifetime: all checks passed\n");
    return 0;
}
