/* SPDX-License-Identifier: Apache-2.0 */
/* weft.hpp — a thin header-only C++17 layer over weft.h.
 *
 * RAII owners for pools, graphs and nodes, lambdas (any callable) as task,
 * loop and node bodies, and exceptions for errors.  Everything here calls
 * the C API, which stays at hand: every object's get() returns the C
 * handle.  docs/cpp.md is the guide.
 *
 *     weft::pool pool;                                  // WEFT_NUM_THREADS
 *     pool.parallel_for(0, n, [&](size_t i) { y[i] = 2 * x[i]; });
 *
 *     weft::graph g(pool);
 *     weft::queue_node<int> q(g);
 *     weft::function_node<int, long> square(g, weft::unlimited,
 *                                           [](int v) { return 1L * v * v; });
 *     weft::function_node<long> sum(g, weft::serial, [&](long v) { s += v; });
 *     weft::make_edge(q, square);
 *     weft::make_edge(square, sum);
 *     for (int i = 0; i < 100; i++) q.try_put(i);
 *     g.wait_for_all();
 *
 * Errors.  A C call that returns a negative WF_E... code throws
 * weft::error, whose code() is that code.  An exception thrown by a body
 * never crosses weft's C frames: it is caught where the body was called and
 * thrown again by the call that waits for the body (run, parallel_for,
 * parallel_invoke, join, graph::wait_for_all).  A loop or invoke goes on
 * with its other pieces meanwhile (later pieces of a loop are skipped); a
 * graph is cancelled, as by a body that returns an error, and needs
 * graph::reset() before it runs again (the reset also drops an exception
 * that no wait_for_all reported).
 *
 * Lifetimes.  A weft::pool and the weft::graph objects made on it share
 * the wf_pool: the last of them to go destroys it, whatever the order.
 * One that cannot be destroyed then (a graph made through the C API
 * still uses it) terminates the program with a message, as std::thread's
 * destructor does, rather than leak the pool and its threads.
 *
 * Messages are copied byte by byte, as in C: a message type must be
 * trivially copyable (int, a struct of numbers, a pointer). */
#ifndef WEFT_HPP
#define WEFT_HPP

#include "weft.h"

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <exception>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

namespace weft
{

/* A negative WF_E... code of the C API, as an exception. */
class error : public std::runtime_error
{
  public:
    explicit error(int code)
        : std::runtime_error(wf_strerror(code)), code_(code)
    {
    }
    /* The WF_E... code. */
    int code() const noexcept
    {
        return code_;
    }

  private:
    int code_;
};

/* Concurrency limits of a function_node. */
constexpr unsigned unlimited = WF_UNLIMITED;
constexpr unsigned serial = WF_SERIAL;

namespace detail
{

/* err when it is >= 0; throws weft::error otherwise. */
inline int check(int err)
{
    if (err < 0)
        throw error(err);
    return err;
}

/* The first exception thrown by bodies that run on pool threads, kept for
 * the thread that waits for them. */
class exception_slot
{
  public:
    /* In a catch block: keep the exception being handled, unless one is
     * kept already. */
    void capture() noexcept
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (!ex_)
            ex_ = std::current_exception();
        failed_.store(true, std::memory_order_relaxed);
    }
    /* A body failed: loops skip the pieces that have not started. */
    bool failed() const noexcept
    {
        return failed_.load(std::memory_order_relaxed);
    }
    /* Forget the kept exception, if any. */
    void clear() noexcept
    {
        std::exception_ptr ex;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            ex = std::move(ex_); /* released outside the lock */
            ex_ = nullptr;
            failed_.store(false, std::memory_order_relaxed);
        }
    }
    /* Throw the kept exception, if any, and forget it. */
    void rethrow()
    {
        std::exception_ptr ex;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            ex = std::move(ex_);
            ex_ = nullptr;
            failed_.store(false, std::memory_order_relaxed);
        }
        if (ex)
            std::rethrow_exception(ex);
    }

  private:
    std::mutex mutex_;
    std::exception_ptr ex_;
    std::atomic<bool> failed_{false};
};

/* A message read from the bytes weft hands a body (which may not be
 * aligned for T). */
template <class T> T load(const void *p)
{
    static_assert(std::is_trivially_copyable<T>::value,
                  "weft messages are copied as bytes: use a trivially "
                  "copyable type");
    alignas(T) unsigned char buf[sizeof(T)];
    std::memcpy(buf, p, sizeof(T));
    return *std::launder(reinterpret_cast<T *>(buf));
}

template <class T> constexpr void check_message()
{
    static_assert(std::is_trivially_copyable<T>::value,
                  "weft messages are copied as bytes: use a trivially "
                  "copyable type");
}

/* The wf_pool of a weft::pool, shared by that pool and the weft::graph
 * objects made on it: the last of them to go destroys it.  A wf_pool that
 * cannot be destroyed then, because a graph made through the C API still
 * uses it (WF_EBUSY) or because the last owner goes on one of the pool's
 * own threads (WF_EPERM), would leak with its threads: that terminates
 * the program with a message instead, as std::thread's destructor does
 * for a thread not joined.  A pool made before a fork() is left alone in
 * the child (WF_ESTATE: its threads are the parent's). */
class pool_owner
{
  public:
    explicit pool_owner(wf_pool *p) noexcept : p_(p)
    {
    }
    pool_owner(const pool_owner &) = delete;
    pool_owner &operator=(const pool_owner &) = delete;
    ~pool_owner()
    {
        int err = wf_pool_destroy(p_);
        if (err == WF_EBUSY || err == WF_EPERM) {
            std::fprintf(
                stderr, "weft::pool: cannot destroy the pool: %s (%s)%s\n",
                wf_strerror(err), wf_err_name(err),
                err == WF_EBUSY ? "; a graph made through the C API still "
                                  "uses it: destroy the graph first"
                                : "; the last weft::pool or weft::graph "
                                  "of this pool went on one of its threads");
            std::terminate();
        }
    }
    wf_pool *get() const noexcept
    {
        return p_;
    }

  private:
    wf_pool *p_;
};

/* Calls a callable of type F through a void pointer (wf_parallel_invoke). */
template <class F> void call_erased(void *f)
{
    (*static_cast<F *>(f))();
}

} // namespace detail

/* ---- pools --------------------------------------------------------------- */

/* A task spawned by spawn(): the callable runs on this worker or a thief
 * and join() waits for it.  It is joined at the latest by the destructor,
 * so a scope left by an exception still joins what it spawned (weft's rule:
 * spawned and joined by the same thread, every task joined once).  Not
 * copyable or movable: the pool holds its address until the join. */
template <class F> class spawned
{
  public:
    explicit spawned(F f) : f_(std::move(f))
    {
        frame_.self = this;
        detail::check(wf_spawn(&frame_.task, body));
    }
    spawned(const spawned &) = delete;
    spawned &operator=(const spawned &) = delete;
    ~spawned()
    {
        if (!joined_)
            wf_join_fn(&frame_.task, body);
    }

    /* Wait until the callable has run; throws what it threw.  Once; the
     * destructor joins a task not joined, and drops what it threw. */
    void join()
    {
        if (joined_)
            throw error(WF_EJOINED);
        joined_ = true;
        detail::check(wf_join_fn(&frame_.task, body));
        if (ex_)
            std::rethrow_exception(std::exchange(ex_, nullptr));
    }

  private:
    struct frame {
        wf_task task; /* first: the body casts back to the frame */
        spawned *self;
    };
    static void body(wf_task *t)
    {
        spawned *s = reinterpret_cast<frame *>(t)->self;
        try {
            s->f_();
        } catch (...) {
            s->ex_ = std::current_exception();
        }
    }

    frame frame_{};
    F f_;
    std::exception_ptr ex_;
    bool joined_ = false;
};

/* Spawn f() as a fork-join task (wf_spawn): from a worker of a pool, as in
 * a body that run() or parallel_for() called.  Keep the result and join
 * it:
 *
 *     long fib(int n) {
 *         if (n < 2) return n;
 *         long a;
 *         auto t = weft::spawn([&] { a = fib(n - 1); });
 *         long b = fib(n - 2);
 *         t.join();
 *         return a + b;
 *     }
 */
template <class F> spawned<std::decay_t<F>> spawn(F &&f)
{
    return spawned<std::decay_t<F>>(std::forward<F>(f));
}

/* A weft pool (wf_pool): created by the constructor, or the default pool,
 * which is never destroyed.  A pool it created is destroyed (after its
 * submitted tasks) when the last of this object and the weft::graph
 * objects made on it goes, in whatever order they go: a graph keeps its
 * pool's threads.  A wf_pool still used then by a graph made through the
 * C API (wf_graph_create on get()) terminates the program with a message
 * (std::terminate), as std::thread's destructor does: destroy such a
 * graph first.  Movable, not copyable. */
class pool
{
  public:
    /* A new pool of `threads` threads (0: WEFT_NUM_THREADS, or the CPUs
     * this process may use). */
    explicit pool(unsigned threads = 0)
    {
        wf_pool_config cfg = WF_POOL_CONFIG_INIT;
        cfg.threads = threads;
        create(cfg);
    }
    /* A new pool as cfg says. */
    explicit pool(const wf_pool_config &cfg)
    {
        create(cfg);
    }
    /* The default pool (wf_pool_default), not owned. */
    static pool default_pool()
    {
        wf_pool *p = wf_pool_default();
        if (p == nullptr)
            throw error(WF_EAGAIN);
        return pool(p);
    }
    pool(pool &&o) noexcept
        : p_(std::exchange(o.p_, nullptr)), owner_(std::move(o.owner_))
    {
    }
    /* This object's pool goes (if no graph keeps it); it takes o's. */
    pool &operator=(pool &&o) noexcept
    {
        if (this != &o) {
            destroy();
            p_ = std::exchange(o.p_, nullptr);
            owner_ = std::move(o.owner_);
        }
        return *this;
    }
    pool(const pool &) = delete;
    pool &operator=(const pool &) = delete;
    ~pool()
    {
        destroy();
    }

    /* The C handle. */
    wf_pool *get() const noexcept
    {
        return p_;
    }
    /* Its number of threads (wf_pool_threads). */
    unsigned threads() const noexcept
    {
        return wf_pool_threads(p_);
    }

    /* Run f() in the pool and wait for it and all it spawned (wf_run);
     * throws what f threw. */
    template <class F> void run(F &&f)
    {
        struct ctx_t {
            std::remove_reference_t<F> *f;
            detail::exception_slot ex;
        } ctx;
        ctx.f = &f;
        detail::check(wf_run(
            p_,
            [](void *arg) {
                ctx_t *c = static_cast<ctx_t *>(arg);
                try {
                    (*c->f)();
                } catch (...) {
                    c->ex.capture();
                }
            },
            &ctx));
        ctx.ex.rethrow();
    }

    /* Call f on [begin, end) in parallel (wf_parallel_for): f(i) for each
     * index, or f(b, e) for each piece when f takes two size_t.  grain 0
     * splits adaptively.  Throws the first exception a call threw; the
     * pieces not started by then are skipped. */
    template <class F>
    void parallel_for(std::size_t begin, std::size_t end, F &&f,
                      std::size_t grain = 0)
    {
        using Fn = std::remove_reference_t<F>;
        struct ctx_t {
            Fn *f;
            detail::exception_slot ex;
        } ctx;
        ctx.f = &f;
        wf_range_fn body = [](std::size_t b, std::size_t e, void *arg) {
            ctx_t *c = static_cast<ctx_t *>(arg);
            if (c->ex.failed())
                return;
            try {
                if constexpr (std::is_invocable_v<Fn &, std::size_t,
                                                  std::size_t>) {
                    (*c->f)(b, e);
                } else {
                    for (std::size_t i = b; i < e; i++)
                        (*c->f)(i);
                }
            } catch (...) {
                c->ex.capture();
            }
        };
        detail::check(wf_parallel_for(p_, begin, end, grain, body, &ctx));
        ctx.ex.rethrow();
    }

    /* Call every f in parallel and wait for all (wf_parallel_invoke);
     * throws the first exception one threw, after all have returned. */
    template <class... F> void parallel_invoke(F &&...fs)
    {
        static_assert(sizeof...(F) > 0, "parallel_invoke of nothing");
        struct item {
            void *f;
            void (*call)(void *);
            detail::exception_slot *ex;
        };
        detail::exception_slot ex;
        item items[] = {item{const_cast<void *>(static_cast<const void *>(&fs)),
                             &detail::call_erased<std::remove_reference_t<F>>,
                             &ex}...};
        constexpr std::size_t n = sizeof...(F);
        wf_invoke_fn fns[n];
        void *ctxs[n];
        for (std::size_t i = 0; i < n; i++) {
            fns[i] = [](void *arg) {
                item *it = static_cast<item *>(arg);
                try {
                    it->call(it->f);
                } catch (...) {
                    it->ex->capture();
                }
            };
            ctxs[i] = &items[i];
        }
        detail::check(wf_parallel_invoke(p_, n, fns, ctxs));
        ex.rethrow();
    }

  private:
    friend class graph;     /* shares owner_ */
    friend class taskgraph; /* likewise */

    explicit pool(wf_pool *p) noexcept : p_(p) /* not owned */
    {
    }
    void create(const wf_pool_config &cfg)
    {
        wf_pool *p = nullptr;
        detail::check(wf_pool_create(&p, &cfg));
        try {
            owner_ = std::make_shared<detail::pool_owner>(p);
        } catch (...) {
            wf_pool_destroy(p);
            throw;
        }
        p_ = p;
    }
    /* Let go of the pool; the last owner destroys it (pool_owner). */
    void destroy() noexcept
    {
        p_ = nullptr;
        owner_.reset();
    }

    wf_pool *p_ = nullptr;
    std::shared_ptr<detail::pool_owner> owner_; /* null: the default pool */
};

/* ---- graphs -------------------------------------------------------------- */

/* A flow graph (wf_graph) on a pool; destroyed, after all its work, by the
 * destructor.  A graph made on a weft::pool keeps that pool alive until
 * the graph is destroyed (weft::pool).  Movable, not copyable. */
class graph
{
  public:
    /* A graph on the default pool. */
    graph() : graph(static_cast<wf_pool *>(nullptr))
    {
    }
    /* A graph on p's pool, which stays alive as long as the graph does,
     * even when p goes first. */
    explicit graph(pool &p) : graph(p.get())
    {
        pool_ = p.owner_;
    }
    /* A graph on the C pool p (NULL: the default pool), which must
     * outlive it. */
    explicit graph(wf_pool *p) : ex_(std::make_unique<detail::exception_slot>())
    {
        detail::check(wf_graph_create(&g_, p));
    }
    graph(graph &&o) noexcept
        : g_(std::exchange(o.g_, nullptr)), ex_(std::move(o.ex_)),
          pool_(std::move(o.pool_))
    {
    }
    /* This object's graph goes first (and its pool, if nothing else keeps
     * it); it takes o's. */
    graph &operator=(graph &&o) noexcept
    {
        if (this != &o) {
            destroy();
            g_ = std::exchange(o.g_, nullptr);
            ex_ = std::move(o.ex_);
            pool_ = std::move(o.pool_);
        }
        return *this;
    }
    graph(const graph &) = delete;
    graph &operator=(const graph &) = delete;
    ~graph()
    {
        destroy();
    }

    /* The C handle. */
    wf_graph *get() const noexcept
    {
        return g_;
    }

    /* Wait until no work is left (wf_graph_wait_for_all).  Throws the
     * first exception a body threw, else weft::error for the first error
     * code a body returned or WF_ECANCELED after cancel(). */
    void wait_for_all()
    {
        int err = wf_graph_wait_for_all(g_);
        ex_->rethrow();
        detail::check(err);
    }
    /* wf_graph_reset: waits for the work in flight, empties the buffers,
     * clears cancellation and errors, the exception a body threw included
     * (WF_RESET_* flags, or-ed). */
    void reset(unsigned flags = WF_RESET_PROTOCOL)
    {
        detail::check(wf_graph_reset(g_, flags));
        ex_->clear(); /* the bodies that could have thrown have returned */
    }
    /* wf_graph_cancel. */
    void cancel()
    {
        detail::check(wf_graph_cancel(g_));
    }
    bool is_cancelled() const noexcept
    {
        return wf_graph_is_cancelled(g_);
    }

    /* Where the bodies of this graph's nodes keep what they throw. */
    detail::exception_slot &exceptions() noexcept
    {
        return *ex_;
    }

  private:
    /* The graph first: its tasks run on the pool. */
    void destroy() noexcept
    {
        if (g_ != nullptr)
            wf_graph_destroy(g_);
        g_ = nullptr;
        pool_.reset();
    }

    wf_graph *g_ = nullptr;
    std::unique_ptr<detail::exception_slot> ex_;
    std::shared_ptr<detail::pool_owner> pool_; /* null: not a weft::pool */
};

/* ---- task graphs ---------------------------------------------------------- */

class subflow;
namespace detail
{
class tg_builder;
} // namespace detail

/* A task of a weft::taskgraph or of a weft::subflow (weft/taskgraph.h): a
 * handle, copied freely, valid as long as its graph (a subflow's tasks:
 * until that subflow runs again).  A task made by the default constructor
 * is empty, to be assigned (std::vector<weft::task> v(n), then v[i] =
 * tg.emplace(...)); every call on it throws weft::error (WF_EINVAL). */
class task
{
  public:
    task() noexcept = default;
    /* This task runs before each of ts (wf_tg_precede). */
    template <class... T> task &precede(const T &...ts)
    {
        (detail::check(wf_tg_precede(t_, ts.get())), ...);
        return *this;
    }
    /* This task runs after each of ts. */
    template <class... T> task &succeed(const T &...ts)
    {
        (detail::check(wf_tg_precede(ts.get(), t_)), ...);
        return *this;
    }
    /* Its data dependencies (wf_tg_depend), as OpenMP's depend clauses:
     * t.depend({weft::in(&a), weft::inout(&b)}) runs t after the tasks
     * given dependencies before it that wrote a, or read or wrote b.  Once
     * per task, in the order the tasks must appear to run. */
    task &depend(std::initializer_list<wf_tg_dep> deps)
    {
        detail::check(wf_tg_depend(t_, deps.size(), deps.begin()));
        return *this;
    }
    /* Its name in write_dot; name must outlive the graph. */
    task &name(const char *name)
    {
        detail::check(wf_tg_name(t_, name));
        return *this;
    }
    /* The C handle (NULL: an empty task). */
    wf_tg_task *get() const noexcept
    {
        return t_;
    }

  private:
    friend class detail::tg_builder;
    explicit task(wf_tg_task *t) noexcept : t_(t)
    {
    }
    wf_tg_task *t_ = nullptr;
};

/* The accesses of task::depend: the task reads *p, writes it, or both
 * (WF_TG_IN, WF_TG_OUT, WF_TG_INOUT). */
inline wf_tg_dep in(const void *p) noexcept
{
    return wf_tg_dep{p, WF_TG_IN};
}
inline wf_tg_dep out(const void *p) noexcept
{
    return wf_tg_dep{p, WF_TG_OUT};
}
inline wf_tg_dep inout(const void *p) noexcept
{
    return wf_tg_dep{p, WF_TG_INOUT};
}

namespace detail
{

/* A task's callable, kept as long as the task can run. */
struct tg_work {
    virtual ~tg_work() = default;
};

/* The callables of one graph's tasks, and where the exceptions they throw
 * go: the weft::taskgraph's slot, for the tasks of its subflows too. */
struct tg_store {
    exception_slot *ex = nullptr;
    std::vector<std::unique_ptr<tg_work>> works;
};

/* The callable of a task or a condition task. */
template <class F> struct tg_task_work final : tg_work {
    tg_task_work(F fn, exception_slot *slot) : f(std::move(fn)), ex(slot)
    {
    }
    F f;
    exception_slot *ex;
};

/* The callable of a subflow task, and those of the tasks it added at its
 * last run: freed when it runs again, once the C graph it builds in has
 * been emptied (wf_tg_subflow), or with the task's graph. */
template <class F> struct tg_subflow_work final : tg_work {
    tg_subflow_work(F fn, exception_slot *slot) : f(std::move(fn))
    {
        children.ex = slot;
    }
    F f;
    tg_store children;
};

/* Adding tasks, shared by weft::taskgraph and weft::subflow (Taskflow's
 * FlowBuilder). */
class tg_builder
{
  public:
    /* The C handle. */
    wf_taskgraph *get() const noexcept
    {
        return g_;
    }

    /* A task that calls f(); or, when f takes a weft::subflow &, a subflow
     * task: each time it runs, f(sf) adds tasks and edges to sf, and they
     * all run before the task's successors (wf_tg_subflow). */
    template <class F> task emplace(F &&f)
    {
        if constexpr (std::is_invocable_v<std::decay_t<F> &, subflow &>)
            return add_subflow(std::forward<F>(f));
        else
            return add<false>(std::forward<F>(f));
    }
    /* A task for each of fs, as an array (auto [a, b] = ...). */
    template <class F, class G, class... H>
    auto emplace(F &&f, G &&g, H &&...hs)
    {
        return std::array<task, 2 + sizeof...(H)>{
            emplace(std::forward<F>(f)), emplace(std::forward<G>(g)),
            emplace(std::forward<H>(hs))...};
    }
    /* A condition task: f() returns the index of the successor to run. */
    template <class F> task condition(F &&f)
    {
        return add<true>(std::forward<F>(f));
    }
    /* A task with no work (wf_tg_placeholder): a point to join at. */
    task placeholder()
    {
        wf_tg_task *t = wf_tg_placeholder(g_);
        if (t == nullptr)
            fail();
        return task(t);
    }

  protected:
    tg_builder() noexcept = default;
    tg_builder(wf_taskgraph *g, tg_store *store) noexcept : g_(g), store_(store)
    {
    }

    wf_taskgraph *g_ = nullptr;
    tg_store *store_ = nullptr; /* null: a moved-from weft::taskgraph */

  private:
    template <bool Condition, class F> task add(F &&f)
    {
        using W = tg_task_work<std::decay_t<F>>;
        tg_store &s = store();
        /* Kept first: a task never points to a callable that is not. */
        s.works.push_back(std::make_unique<W>(std::forward<F>(f), s.ex));
        wf_tg_fn call = [](void *p) -> int {
            W *w = static_cast<W *>(p);
            try {
                if constexpr (Condition) {
                    return static_cast<int>(w->f());
                } else {
                    w->f();
                    return 0;
                }
            } catch (...) {
                w->ex->capture();
                return WF_ECANCELED; /* run() throws the exception */
            }
        };
        void *ctx = static_cast<W *>(s.works.back().get());
        return made(Condition ? wf_tg_condition(g_, call, ctx)
                              : wf_tg_emplace(g_, call, ctx),
                    s);
    }
    template <class F> task add_subflow(F &&f); /* after weft::subflow */

    tg_store &store()
    {
        if (store_ == nullptr)
            throw error(WF_EINVAL);
        return *store_;
    }
    /* The task t, or (NULL) the graph's error, its callable dropped. */
    task made(wf_tg_task *t, tg_store &s)
    {
        if (t == nullptr) {
            s.works.pop_back();
            fail();
        }
        return task(t);
    }
    [[noreturn]] void fail() const
    {
        int err = wf_taskgraph_error(g_);
        throw error(err < 0 ? err : WF_EINVAL);
    }
};

} // namespace detail

/* The graph that a subflow task builds each time it runs: the callable
 * given to emplace takes a weft::subflow & and adds tasks and edges to it
 * as to a weft::taskgraph (emplace, subflows in subflows included,
 * condition, placeholder; a task's precede, succeed, depend, name):
 *
 *     tg.emplace([&](weft::subflow &sf) {         // built as it runs
 *         auto [a, b] = sf.emplace([&] { left(); }, [&] { right(); });
 *         sf.emplace([&] { merge(); }).succeed(a, b);
 *     });
 *
 * All its tasks run, once the callable returns, before the subflow
 * task's successors (the join is implicit; there is no detach).  The
 * subflow, its tasks and their callables last until the subflow task runs
 * again or its graph goes: keep no reference to them past the call, and
 * no data its tasks use on the callable's stack.  An edge to a task of
 * another graph throws weft::error.  An exception the callable or one of
 * the subflow's tasks throws fails the run, and run() throws it. */
class subflow : public detail::tg_builder
{
  public:
    subflow(const subflow &) = delete;
    subflow &operator=(const subflow &) = delete;

  private:
    friend class detail::tg_builder;
    subflow(wf_taskgraph *sub, detail::tg_store *store) noexcept
        : tg_builder(sub, store)
    {
    }
};

namespace detail
{

template <class F> task tg_builder::add_subflow(F &&f)
{
    using W = tg_subflow_work<std::decay_t<F>>;
    tg_store &s = store();
    s.works.push_back(std::make_unique<W>(std::forward<F>(f), s.ex));
    wf_tg_subflow_fn call = [](wf_taskgraph *sub, void *p) -> int {
        W *w = static_cast<W *>(p);
        /* weft emptied sub for this run: the last run's callables go. */
        w->children.works.clear();
        try {
            subflow sf(sub, &w->children);
            w->f(sf);
            return 0;
        } catch (...) {
            w->children.ex->capture();
            return WF_ECANCELED; /* run() throws the exception */
        }
    };
    void *ctx = static_cast<W *>(s.works.back().get());
    return made(wf_tg_subflow(g_, call, ctx), s);
}

} // namespace detail

/* A task graph (wf_taskgraph) whose tasks are callables:
 *
 *     weft::taskgraph tg;
 *     auto [a, b, c] = tg.emplace([&] { load(); }, [&] { parse(); },
 *                                 [&] { report(); });
 *     a.precede(b);
 *     b.precede(c);
 *     tg.run();
 *
 * A task's callable returns nothing; a condition's returns the index of
 * the successor to run (an int); a subflow's takes a weft::subflow & and
 * builds a graph that runs as part of the task (weft::subflow).  An
 * exception a task throws fails the run, as an error code does in C, and
 * run() throws it again.  Each callable is kept in a block of its own,
 * with the graph, until clear() or the destructor.  The graph is
 * destroyed with this object; one made on a weft::pool keeps that pool
 * alive.  Movable, not copyable. */
class taskgraph : public detail::tg_builder
{
  public:
    /* A graph on the default pool. */
    taskgraph() : taskgraph(static_cast<wf_pool *>(nullptr))
    {
    }
    /* A graph on p's pool, which stays alive as long as the graph does. */
    explicit taskgraph(pool &p) : taskgraph(p.get())
    {
        pool_ = p.owner_;
    }
    /* A graph on the C pool p (NULL: the default pool), which must
     * outlive it. */
    explicit taskgraph(wf_pool *p) : root_(std::make_unique<root>())
    {
        root_->store.ex = &root_->ex;
        store_ = &root_->store;
        wf_taskgraph_config cfg = WF_TASKGRAPH_CONFIG_INIT;
        cfg.pool = p;
        detail::check(wf_taskgraph_create(&g_, &cfg));
    }
    taskgraph(taskgraph &&o) noexcept
        : tg_builder(std::exchange(o.g_, nullptr),
                     std::exchange(o.store_, nullptr)),
          root_(std::move(o.root_)), pool_(std::move(o.pool_))
    {
    }
    taskgraph &operator=(taskgraph &&o) noexcept
    {
        if (this != &o) {
            destroy();
            g_ = std::exchange(o.g_, nullptr);
            store_ = std::exchange(o.store_, nullptr);
            root_ = std::move(o.root_);
            pool_ = std::move(o.pool_);
        }
        return *this;
    }
    taskgraph(const taskgraph &) = delete;
    taskgraph &operator=(const taskgraph &) = delete;
    ~taskgraph()
    {
        destroy();
    }

    /* Run the graph once (wf_tg_run), n times, or until done() is true
     * (tested before each run); throws what a task threw, else
     * weft::error for the first error. */
    void run()
    {
        finish(wf_tg_run(g_));
    }
    void run_n(unsigned n)
    {
        finish(wf_tg_run_n(g_, n));
    }
    template <class P> void run_until(P &&done)
    {
        using Pn = std::remove_reference_t<P>;
        finish(wf_tg_run_until(
            g_,
            [](void *p) {
                return static_cast<bool>((*static_cast<Pn *>(p))());
            },
            &done));
    }
    /* Remove every task and edge, and free their callables
     * (wf_taskgraph_clear): the graph's memory serves the next ones.  The
     * handles of the old tasks are invalid. */
    void clear()
    {
        detail::check(wf_taskgraph_clear(g_));
        store_->works.clear();
    }
    /* wf_taskgraph_write_dot. */
    void write_dot(FILE *f) const
    {
        detail::check(wf_taskgraph_write_dot(g_, f));
    }

  private:
    struct root {
        detail::exception_slot ex;
        detail::tg_store store;
    };

    void finish(int err)
    {
        if (root_ != nullptr)
            root_->ex.rethrow();
        detail::check(err);
    }
    void destroy() noexcept
    {
        if (g_ != nullptr)
            wf_taskgraph_destroy(g_);
        g_ = nullptr;
        store_ = nullptr;
        root_.reset(); /* the callables, once no task can call them */
        pool_.reset();
    }

    std::unique_ptr<root> root_;
    std::shared_ptr<detail::pool_owner> pool_; /* null: not a weft::pool */
};

/* Any node: owns a wf_node and destroys it (wf_node_destroy, which waits
 * for the graph's work).  Movable, not copyable. */
class node
{
  public:
    node(node &&o) noexcept : n_(std::exchange(o.n_, nullptr))
    {
    }
    node &operator=(node &&o) noexcept
    {
        if (this != &o) {
            destroy();
            n_ = std::exchange(o.n_, nullptr);
        }
        return *this;
    }
    node(const node &) = delete;
    node &operator=(const node &) = delete;
    ~node()
    {
        destroy();
    }

    /* The C handle. */
    wf_node *get() const noexcept
    {
        return n_;
    }
    /* Input and output port i, for the C functions that take a wf_port. */
    wf_port input(unsigned i = 0) const noexcept
    {
        return wf_input_port(n_, i);
    }
    wf_port output(unsigned i = 0) const noexcept
    {
        return wf_output_port(n_, i);
    }
    /* wf_node_set_name / wf_node_name. */
    void set_name(const char *name)
    {
        detail::check(wf_node_set_name(n_, name));
    }
    const char *name() const noexcept
    {
        return wf_node_name(n_);
    }

  protected:
    node() = default;
    void destroy() noexcept
    {
        if (n_ != nullptr)
            wf_node_destroy(n_);
        n_ = nullptr;
    }

    wf_node *n_ = nullptr;
};

/* Edges between the only output of `from` and the only input of `to`
 * (wf_make_edge, wf_remove_edge). */
inline void make_edge(node &from, node &to)
{
    detail::check(wf_make_edge(from.get(), to.get()));
}
inline void remove_edge(node &from, node &to)
{
    detail::check(wf_remove_edge(from.get(), to.get()));
}

/* A node that takes messages of type T. */
template <class T> class receiver : public node
{
  public:
    /* Offer v; true if the node took it (wf_try_put). */
    bool try_put(const T &v)
    {
        return detail::check(wf_try_put(n_, &v)) == 1;
    }

  protected:
    receiver()
    {
        detail::check_message<T>();
    }
};

/* A buffering node of T: a receiver that can also be pulled from. */
template <class T> class buffering : public receiver<T>
{
  public:
    /* Take the next message into v; false when there is none. */
    bool try_get(T &v)
    {
        return detail::check(wf_try_get(this->n_, &v)) == 1;
    }
};

/* queue_node: first in, first out (wf_queue_node_create). */
template <class T> class queue_node : public buffering<T>
{
  public:
    explicit queue_node(graph &g)
    {
        detail::check(wf_queue_node_create(&this->n_, g.get(), sizeof(T)));
    }
};

/* buffer_node: order unspecified (wf_buffer_node_create). */
template <class T> class buffer_node : public buffering<T>
{
  public:
    explicit buffer_node(graph &g)
    {
        detail::check(wf_buffer_node_create(&this->n_, g.get(), sizeof(T)));
    }
};

/* broadcast_node: every message to every successor; keeps nothing. */
template <class T> class broadcast_node : public receiver<T>
{
  public:
    explicit broadcast_node(graph &g)
    {
        detail::check(wf_broadcast_node_create(&this->n_, g.get(), sizeof(T)));
    }
};

/* function_node: runs body(in) on each message In, at most `concurrency`
 * at once (weft::unlimited, weft::serial, or N), and sends what it
 * returns to every successor.  Out = void: no output port, the body
 * returns nothing.  A body that returns std::optional<Out> sends nothing
 * for std::nullopt (WF_NO_OUTPUT). */
template <class In, class Out = void> class function_node : public receiver<In>
{
  public:
    template <class F>
    function_node(graph &g, unsigned concurrency, F &&body,
                  wf_fn_policy policy = WF_QUEUEING)
        : body_(std::make_unique<holder<std::decay_t<F>>>(std::forward<F>(body),
                                                          g.exceptions()))
    {
        wf_function_config cfg = WF_FUNCTION_CONFIG_INIT;
        cfg.in_size = sizeof(In);
        cfg.out_size = out_size();
        cfg.concurrency = concurrency;
        cfg.policy = policy;
        cfg.body = call;
        cfg.ctx = body_.get();
        detail::check(wf_function_node_create(&this->n_, g.get(), &cfg));
    }
    function_node(function_node &&) noexcept = default;
    function_node &operator=(function_node &&o) noexcept
    {
        this->destroy(); /* no body may run once body_ is replaced */
        receiver<In>::operator=(std::move(o));
        body_ = std::move(o.body_);
        return *this;
    }
    /* The node goes first: it waits for the bodies that use body_. */
    ~function_node()
    {
        this->destroy();
    }

  private:
    static constexpr std::size_t out_size()
    {
        if constexpr (std::is_void_v<Out>) {
            return 0;
        } else {
            detail::check_message<Out>();
            return sizeof(Out);
        }
    }

    struct holder_base {
        virtual ~holder_base() = default;
        virtual int invoke(const void *in, void *out) = 0;
    };

    template <class F> struct holder final : holder_base {
        holder(F body, detail::exception_slot &slot)
            : f(std::move(body)), ex(&slot)
        {
        }
        int invoke(const void *in, void *out) override
        {
            try {
                In v = detail::load<In>(in);
                if constexpr (std::is_void_v<Out>) {
                    f(v);
                    return 0;
                } else {
                    using R = std::invoke_result_t<F &, const In &>;
                    R r = f(v);
                    if constexpr (std::is_same_v<R, std::optional<Out>>) {
                        if (!r)
                            return WF_NO_OUTPUT;
                        Out o = *r;
                        std::memcpy(out, &o, sizeof(Out));
                    } else {
                        Out o = r;
                        std::memcpy(out, &o, sizeof(Out));
                    }
                    return 0;
                }
            } catch (...) {
                ex->capture();
                return WF_ECANCELED;
            }
        }
        F f;
        detail::exception_slot *ex;
    };

    static int call(const void *in, void *out, void *ctx)
    {
        return static_cast<holder_base *>(ctx)->invoke(in, out);
    }

    std::unique_ptr<holder_base> body_;
};

/* input_node: a source.  Once activate() is called, body() runs on the
 * pool and each T it returns goes to the successors; std::nullopt ends the
 * stream (until graph::reset). */
template <class T> class input_node : public node
{
  public:
    template <class F>
    input_node(graph &g, F &&body)
        : body_(std::make_unique<holder<std::decay_t<F>>>(std::forward<F>(body),
                                                          g.exceptions()))
    {
        detail::check_message<T>();
        wf_input_config cfg = WF_INPUT_CONFIG_INIT;
        cfg.out_size = sizeof(T);
        cfg.body = call;
        cfg.ctx = body_.get();
        detail::check(wf_input_node_create(&this->n_, g.get(), &cfg));
    }
    input_node(input_node &&) noexcept = default;
    input_node &operator=(input_node &&o) noexcept
    {
        this->destroy();
        node::operator=(std::move(o));
        body_ = std::move(o.body_);
        return *this;
    }
    ~input_node()
    {
        this->destroy();
    }

    /* Start making messages (wf_input_node_activate). */
    void activate()
    {
        detail::check(wf_input_node_activate(this->n_));
    }
    /* Take the buffered (or a new) message into v; false when none. */
    bool try_get(T &v)
    {
        return detail::check(wf_try_get(this->n_, &v)) == 1;
    }

  private:
    struct holder_base {
        virtual ~holder_base() = default;
        virtual int invoke(void *out) = 0;
    };

    template <class F> struct holder final : holder_base {
        holder(F body, detail::exception_slot &slot)
            : f(std::move(body)), ex(&slot)
        {
        }
        int invoke(void *out) override
        {
            try {
                std::optional<T> r = f();
                if (!r)
                    return WF_INPUT_DONE;
                T v = *r;
                std::memcpy(out, &v, sizeof(T));
                return 0;
            } catch (...) {
                ex->capture();
                return WF_ECANCELED;
            }
        }
        F f;
        detail::exception_slot *ex;
    };

    static int call(void *out, void *ctx)
    {
        return static_cast<holder_base *>(ctx)->invoke(out);
    }

    std::unique_ptr<holder_base> body_;
};

} // namespace weft

#endif /* WEFT_HPP */
