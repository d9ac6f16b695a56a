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
 * Every node kind of weft/graph.h has a typed class here, named as in
 * oneTBB's flow graph (continue_node, multifunction_node, join_node with
 * its four policies, split_node, indexer_node, sequencer_node,
 * limiter_node, priority_queue_node, overwrite_node, write_once_node,
 * composite_node, async_node), with input_port<i> / output_port<i> for
 * nodes of several ports; weft::task_group is oneTBB's task_group.
 * weft::parallel_pipeline runs typed stages (weft::make_stage, joined by
 * &) over wf_parallel_pipeline, as oneTBB's parallel_pipeline;
 * weft::async returns a weft::future, and weft::silent_async keeps none
 * (Taskflow's async and silent_async).
 *
 * Errors.  A C call that returns a negative WF_E... code throws
 * weft::error, whose code() is that code.  An exception thrown by a body
 * never crosses weft's C frames: it is caught where the body was called and
 * thrown again by the call that waits for the body (run, parallel_for,
 * parallel_invoke, join, graph::wait_for_all, parallel_pipeline,
 * future::get).  A loop or invoke goes on with its other pieces meanwhile
 * (later pieces of a loop are skipped); a pipeline stops taking input; a
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
 * trivially copyable (int, a struct of numbers, a pointer), a std::tuple
 * of such types (laid out as wf_tuple_layout says, for join and split
 * nodes), or weft::continue_msg, a signal with no data. */
#ifndef WEFT_HPP
#define WEFT_HPP

#include "weft.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <functional>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <stdexcept>
#include <thread>
#include <tuple>
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

    /* Call f(*it) for every it in [first, last) in parallel, as oneTBB's
     * parallel_for_each over a random-access range (a std::vector's,
     * an array's): parallel_for over the positions, same grain and
     * exceptions. */
    template <class It, class F>
    void parallel_for_each(It first, It last, F &&f, std::size_t grain = 0)
    {
        static_assert(
            std::is_base_of<
                std::random_access_iterator_tag,
                typename std::iterator_traits<It>::iterator_category>::value,
            "weft::pool::parallel_for_each needs random-access iterators");
        parallel_for(
            0, static_cast<std::size_t>(last - first),
            [&](std::size_t b, std::size_t e) {
                for (It it = first + b, end = first + e; it != end; ++it)
                    f(*it);
            },
            grain);
    }

    /* Call f on [r0, r1) x [c0, c1) in parallel (wf_parallel_for_box,
     * OpenMP's collapse(2), oneTBB's blocked_range2d): f(i, j) for each
     * pair, or f(piece) for each piece when f takes a const wf_box &.
     * Throws the first exception a call threw; the pieces not started by
     * then are skipped. */
    template <class F>
    void parallel_for_2d(std::size_t r0, std::size_t r1, std::size_t c0,
                         std::size_t c1, F &&f)
    {
        wf_box box = WF_BOX_2D(r0, r1, c0, c1);
        /* Generic (the indices' type comes from b), so that it is
         * compiled only for an f that it calls. */
        for_box(box, f, [&f](const auto &b) {
            for (auto i = b.begin[0]; i < b.end[0]; i++)
                for (auto j = b.begin[1]; j < b.end[1]; j++)
                    f(i, j);
        });
    }

    /* The same over [a0, a1) x [b0, b1) x [c0, c1): f(i, j, k) for each
     * triple, or f(piece). */
    template <class F>
    void parallel_for_3d(std::size_t a0, std::size_t a1, std::size_t b0,
                         std::size_t b1, std::size_t c0, std::size_t c1, F &&f)
    {
        wf_box box = WF_BOX_3D(a0, a1, b0, b1, c0, c1);
        for_box(box, f, [&f](const auto &b) {
            for (auto i = b.begin[0]; i < b.end[0]; i++)
                for (auto j = b.begin[1]; j < b.end[1]; j++)
                    for (auto k = b.begin[2]; k < b.end[2]; k++)
                        f(i, j, k);
        });
    }

    /* Reduce [begin, end) in parallel (wf_parallel_reduce) and return the
     * result, as oneTBB's functional parallel_reduce: every piece starts
     * from identity; body(b, e, acc) returns acc combined with the
     * contribution of [b, e), or body(i, acc) returns it for one index;
     * combine(x, y) returns x (+) y, associative (std::plus<>() for a
     * sum).  T is copied byte by byte, so it must be trivially copyable
     * (numbers, structs of them).  The split tree depends only on the
     * range, the grain and the pool's size, so the result is the same bit
     * for bit on every run.  Throws the first exception body or combine
     * threw (the pieces not started by then are skipped). */
    template <class T, class Body, class Combine>
    T parallel_reduce(std::size_t begin, std::size_t end, const T &identity,
                      Body &&body, Combine &&combine, std::size_t grain = 0)
    {
        static_assert(std::is_trivially_copyable<T>::value,
                      "weft::pool::parallel_reduce copies its value byte by "
                      "byte: T must be trivially copyable");
        using B = std::remove_reference_t<Body>;
        using C = std::remove_reference_t<Combine>;
        struct ctx_t {
            B *body;
            C *combine;
            detail::exception_slot ex;
        } ctx;
        ctx.body = &body;
        ctx.combine = &combine;
        wf_reduce_fn part = [](std::size_t b, std::size_t e, void *acc,
                               void *arg) {
            ctx_t *c = static_cast<ctx_t *>(arg);
            if (c->ex.failed())
                return;
            try {
                T v = detail::load<T>(acc);
                if constexpr (std::is_invocable_r_v<T, B &, std::size_t,
                                                    std::size_t, const T &>) {
                    v = (*c->body)(b, e, static_cast<const T &>(v));
                } else {
                    static_assert(
                        std::is_invocable_r_v<T, B &, std::size_t, const T &>,
                        "parallel_reduce's body: T(size_t b, size_t e, "
                        "const T &acc) or T(size_t i, const T &acc)");
                    for (std::size_t i = b; i < e; i++)
                        v = (*c->body)(i, static_cast<const T &>(v));
                }
                std::memcpy(acc, &v, sizeof v);
            } catch (...) {
                c->ex.capture();
            }
        };
        wf_combine_fn join = [](void *left, const void *right, void *arg) {
            ctx_t *c = static_cast<ctx_t *>(arg);
            if (c->ex.failed())
                return;
            try {
                T v = (*c->combine)(detail::load<T>(left),
                                    detail::load<T>(right));
                std::memcpy(left, &v, sizeof v);
            } catch (...) {
                c->ex.capture();
            }
        };
        T result = identity;
        detail::check(wf_parallel_reduce(p_, begin, end, grain, &result,
                                         sizeof(T), &identity, part, join,
                                         &ctx));
        ctx.ex.rethrow();
        return result;
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

    /* Wait until every task submitted to the pool has finished
     * (wf_pool_wait_idle), those of weft::async and weft::silent_async
     * included, running the pool's tasks meanwhile.  Throws weft::error
     * WF_EPERM from a worker of the pool, which would wait for itself. */
    void wait_idle()
    {
        detail::check(wf_pool_wait_idle(p_));
    }

    /* Run a pipeline of typed stages on this pool, at most max_tokens
     * items in flight: weft::parallel_pipeline(*this, max_tokens,
     * stages...), defined with the stages below. */
    template <class... S>
    void parallel_pipeline(std::size_t max_tokens, S &&...stages);

  private:
    friend class graph;     /* shares owner_ */
    friend class taskgraph; /* likewise */

    /* wf_parallel_for_box with f(piece) when f takes a const wf_box &,
     * else with each(piece), which calls f per element. */
    template <class F, class Each>
    void for_box(const wf_box &box, F &f, const Each &each)
    {
        using Fn = std::remove_reference_t<F>;
        struct ctx_t {
            Fn *f;
            const Each *each;
            detail::exception_slot ex;
        } ctx;
        ctx.f = &f;
        ctx.each = &each;
        wf_box_fn body = [](const wf_box *piece, void *arg) {
            ctx_t *c = static_cast<ctx_t *>(arg);
            if (c->ex.failed())
                return;
            try {
                if constexpr (std::is_invocable_v<Fn &, const wf_box &>)
                    (*c->f)(*piece);
                else
                    (*c->each)(*piece);
            } catch (...) {
                c->ex.capture();
            }
        };
        detail::check(wf_parallel_for_box(p_, &box, nullptr, body, &ctx));
        ctx.ex.rethrow();
    }

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

/* ---- task groups ---------------------------------------------------------- */

/* A value of T per thread that runs a pool's work (wf_per_thread,
 * weft/pool.h; oneTBB's combinable): local() is the calling thread's,
 * combine(op) folds the values threads took into init (the identity of
 * op), once the work is done.  T is copied byte by byte (trivially
 * copyable).  Neither copyable nor movable: bodies hold its address. */
template <class T> class per_thread
{
    static_assert(std::is_trivially_copyable<T>::value,
                  "weft::per_thread copies its values byte by byte: T must "
                  "be trivially copyable");

  public:
    explicit per_thread(pool &p, const T &init = T()) : init_(init)
    {
        detail::check(wf_per_thread_create(&pt_, p.get(), sizeof(T), &init_));
    }
    per_thread(const per_thread &) = delete;
    per_thread &operator=(const per_thread &) = delete;
    ~per_thread()
    {
        wf_per_thread_destroy(pt_);
    }

    /* The calling thread's value; throws weft::error(WF_EPERM) from a
     * thread that is not running the pool's work. */
    T &local()
    {
        void *v = wf_per_thread_local(pt_);
        if (v == nullptr)
            throw error(WF_EPERM);
        return *static_cast<T *>(v);
    }

    /* f(value) for each value a thread took, in slot order. */
    template <class F> void each(F &&f)
    {
        auto call = [](void *v, void *ctx) {
            (*static_cast<std::remove_reference_t<F> *>(ctx))(
                *static_cast<T *>(v));
        };
        detail::check(wf_per_thread_each(pt_, call, &f));
    }

    /* init op v0 op v1 ...: the values threads took, folded. */
    template <class Op> T combine(Op op)
    {
        T r = init_;
        each([&](const T &v) { r = op(r, v); });
        return r;
    }

  private:
    wf_per_thread *pt_ = nullptr;
    T init_;
};

/* What task_group::wait returns (oneTBB's task_group_status). */
enum class task_group_status {
    not_complete, /* not returned by weft; oneTBB's name, for switches */
    complete,     /* every task ran */
    canceled      /* cancel() came first: the tasks not started did not run */
};

/* A task group (oneTBB's task_group, over wf_group, weft/pool.h): run(f)
 * starts f() as a task, any number of times; wait() waits for them all
 * and throws the first exception one threw (the group is cancelled by
 * it: tasks not yet started do not start).  Then the group serves again.
 *
 *     weft::task_group tg;
 *     for (int i = 0; i < n; i++)
 *         tg.run([&, i] { work(i); });
 *     tg.wait();
 *
 * The thread that made the group calls run and wait (wf_group's rule; a
 * task of the group that calls run gets weft::error WF_EPERM, where
 * oneTBB allows it: give such a task a task_group of its own); cancel
 * and is_canceling may come from any thread while tasks are in flight.
 * Made on a pool's worker (in pool::run, a body), a group's tasks go on
 * that worker's deque, where the pool's thieves take them; made elsewhere,
 * they go to the group's pool (the default pool unless one is given).
 * The destructor cancels and waits for tasks not waited for, dropping
 * what they threw (oneTBB cancels too).  Each run allocates the task and
 * its callable, freed by the wait.  Not copyable or movable: the tasks
 * point to it. */
class task_group
{
  public:
    /* A group on the default pool. */
    task_group() : task_group(static_cast<wf_pool *>(nullptr))
    {
    }
    /* A group on p's pool, which must outlive it. */
    explicit task_group(pool &p) : task_group(p.get())
    {
    }
    /* A group on the C pool p (NULL: the default pool). */
    explicit task_group(wf_pool *p) : pool_(p)
    {
        detail::check(wf_group_init(&g_, pool_, nullptr));
    }
    task_group(const task_group &) = delete;
    task_group &operator=(const task_group &) = delete;
    ~task_group()
    {
        if (!items_.empty()) {
            wf_group_cancel(&g_);
            wf_group_wait(&g_);
        }
    }

    /* Start f() as a task of the group (wf_group_spawn).  After cancel()
     * it does nothing: f will not run.  Throws weft::error for the other
     * errors of wf_group_spawn (WF_EPERM: not the group's thread). */
    template <class F> void run(F &&f)
    {
        using I = item<std::decay_t<F>>;
        auto it = std::make_unique<I>(std::forward<F>(f), &ex_);
        if (items_.size() == items_.capacity()) /* push_back cannot throw */
            items_.reserve(2 * items_.size() + 8);
        int err = wf_group_spawn(&g_, &it->frame.t, I::call);
        if (err == WF_ECANCELED)
            return;
        detail::check(err);
        items_.push_back(std::move(it));
    }
    /* Wait for every task (wf_group_wait), running tasks meanwhile.
     * Throws the first exception a task threw; else canceled when
     * cancel() came, complete when not.  The group then serves again. */
    task_group_status wait()
    {
        int err = wf_group_wait(&g_);
        if (err == WF_EPERM || err == WF_EINVAL || err == WF_ESTATE)
            throw error(err); /* nothing waited for: the items stay */
        items_.clear();
        detail::check(wf_group_init(&g_, pool_, nullptr));
        ex_.rethrow();
        if (err == WF_ECANCELED)
            return task_group_status::canceled;
        detail::check(err);
        return task_group_status::complete;
    }
    /* run(f), then wait(). */
    template <class F> task_group_status run_and_wait(F &&f)
    {
        run(std::forward<F>(f));
        return wait();
    }
    /* Cancel the group (wf_group_cancel): tasks not started will not
     * start; running ones may poll is_canceling(). */
    void cancel() noexcept
    {
        wf_group_cancel(&g_); /* WF_ESTATE: already waited for, no-op */
    }
    /* True once cancel() came or a task threw (wf_group_is_cancelled). */
    bool is_canceling() const noexcept
    {
        return wf_group_is_cancelled(&g_);
    }
    /* The C group. */
    wf_group *get() noexcept
    {
        return &g_;
    }

  private:
    struct item_base {
        virtual ~item_base() = default;
        struct frame_t {
            wf_group_task t; /* first: the body casts back to the frame */
            item_base *self;
        } frame{};
    };
    template <class F> struct item final : item_base {
        item(F fn, detail::exception_slot *slot) : f(std::move(fn)), ex(slot)
        {
            frame.self = this;
        }
        static int call(wf_group_task *t)
        {
            auto *it = static_cast<item *>(
                reinterpret_cast<item_base::frame_t *>(t)->self);
            try {
                it->f();
                return 0;
            } catch (...) {
                it->ex->capture();
                return WF_ECANCELED; /* cancels the group; wait throws */
            }
        }
        F f;
        detail::exception_slot *ex;
    };

    wf_group g_{};
    wf_pool *pool_;
    detail::exception_slot ex_;
    std::vector<std::unique_ptr<item_base>> items_; /* run, not waited */
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

/* ---- flow graph nodes ----------------------------------------------------- */

/* oneTBB's continue_msg: a message with no data, a signal (WF_SIGNAL).  It
 * starts continue_nodes, decrements limiter_nodes, and is what a node of
 * signals carries (queue_node<continue_msg> counts them). */
struct continue_msg {
};

/* The tag of a tag-matching join_node (oneTBB's tag_value). */
using tag_value = std::uint64_t;

namespace detail
{

/* The alignment wf_tuple_layout gives an element of `size` bytes: the
 * largest power of two up to 16 that divides the size. */
constexpr std::size_t tuple_align(std::size_t size)
{
    std::size_t a = 1;
    while (a < 16 && size % (a * 2) == 0)
        a *= 2;
    return a;
}

/* How a message of type T travels through weft's C ports, as bytes:
 * size (WF_SIGNAL for continue_msg), store and load.  A trivially copyable
 * T is its own bytes; a std::tuple is laid out as wf_tuple_layout says, as
 * join_node makes them and split_node takes them. */
template <class T> struct codec {
    static_assert(std::is_trivially_copyable<T>::value,
                  "weft messages are copied as bytes: use a trivially "
                  "copyable type (or a std::tuple of them)");
    static constexpr std::size_t size = sizeof(T);
    static constexpr bool direct = true; /* the bytes of a T are the message */
    static void store(void *p, const T &v) noexcept
    {
        std::memcpy(p, &v, sizeof(T));
    }
    static T load(const void *p) noexcept
    {
        return detail::load<T>(p);
    }
};

template <> struct codec<continue_msg> {
    static constexpr std::size_t size = WF_SIGNAL;
    static constexpr bool direct = false;
    static void store(void *, const continue_msg &) noexcept
    {
    }
    static continue_msg load(const void *) noexcept
    {
        return continue_msg{};
    }
};

template <class... T> struct codec<std::tuple<T...>> {
    static_assert(sizeof...(T) >= 1 && sizeof...(T) <= WF_JOIN_MAX_PORTS,
                  "a weft tuple has 1 to WF_JOIN_MAX_PORTS elements");
    static_assert(((codec<T>::size > 0) && ...),
                  "a weft tuple cannot hold a continue_msg");
    struct layout_t {
        std::size_t offset[sizeof...(T)];
        std::size_t size;
    };
    /* wf_tuple_layout, at compile time (join_node checks the two agree). */
    static constexpr layout_t layout()
    {
        constexpr std::size_t sizes[] = {codec<T>::size...};
        layout_t l{};
        std::size_t off = 0, max_align = 1;
        for (std::size_t i = 0; i < sizeof...(T); i++) {
            std::size_t a = tuple_align(sizes[i]);
            off = (off + a - 1) / a * a;
            l.offset[i] = off;
            off += sizes[i];
            max_align = a > max_align ? a : max_align;
        }
        l.size = (off + max_align - 1) / max_align * max_align;
        return l;
    }
    static constexpr layout_t lay = layout();
    static constexpr std::size_t size = lay.size;
    static constexpr bool direct = false;

    static void store(void *p, const std::tuple<T...> &v) noexcept
    {
        store_each(static_cast<unsigned char *>(p), v,
                   std::index_sequence_for<T...>{});
    }
    static std::tuple<T...> load(const void *p) noexcept
    {
        return load_each(static_cast<const unsigned char *>(p),
                         std::index_sequence_for<T...>{});
    }

  private:
    template <std::size_t... I>
    static void store_each(unsigned char *p, const std::tuple<T...> &v,
                           std::index_sequence<I...>) noexcept
    {
        (codec<T>::store(p + lay.offset[I], std::get<I>(v)), ...);
    }
    template <std::size_t... I>
    static std::tuple<T...> load_each(const unsigned char *p,
                                      std::index_sequence<I...>) noexcept
    {
        return std::tuple<T...>(codec<T>::load(p + lay.offset[I])...);
    }
};

/* Offer v to port p (wf_try_put_port): 1 taken, 0 rejected, or an error. */
template <class T> int put(wf_port p, const T &v)
{
    using C = codec<T>;
    if constexpr (C::size == WF_SIGNAL) {
        return wf_try_put_port(p, nullptr);
    } else if constexpr (C::direct) {
        return wf_try_put_port(p, &v);
    } else {
        alignas(16) unsigned char buf[C::size];
        C::store(buf, v);
        return wf_try_put_port(p, buf);
    }
}

/* Take a message from port p into v (wf_try_get_port): 1, 0 or an error. */
template <class T> int get(wf_port p, T &v)
{
    using C = codec<T>;
    if constexpr (C::size == WF_SIGNAL) {
        return wf_try_get_port(p, nullptr);
    } else if constexpr (C::direct) {
        return wf_try_get_port(p, &v);
    } else {
        alignas(16) unsigned char buf[C::size];
        int r = wf_try_get_port(p, buf);
        if (r == 1)
            v = C::load(buf);
        return r;
    }
}

/* What a node keeps for its callables: freed once the node is (node). */
struct box_base {
    virtual ~box_base() = default;
};

/* A callable, and where the exceptions it throws go. */
template <class F> struct box final : box_base {
    box(F fn, exception_slot *slot) : f(std::move(fn)), ex(slot)
    {
    }
    F f;
    exception_slot *ex;
};

/* f(v) when f takes a V, else f(): a continue_node's body may take the
 * continue_msg or nothing. */
template <class F, class V> decltype(auto) call_with(F &f, const V &v)
{
    if constexpr (std::is_invocable_v<F &, const V &>)
        return f(v);
    else
        return f();
}

/* Write what a body returned (r, of type R) as an Out message to out, for
 * a C body: 0, or WF_NO_OUTPUT for an empty std::optional.  A body that
 * returns nothing sends a continue_msg (Out = continue_msg or void). */
template <class Out, class R> int emit(void *out, R &&r)
{
    using D = std::decay_t<R>;
    if constexpr (std::is_same_v<D, std::optional<Out>>) {
        if (!r)
            return WF_NO_OUTPUT;
        codec<Out>::store(out, *r);
    } else {
        codec<Out>::store(out, static_cast<Out>(std::forward<R>(r)));
    }
    return 0;
}

/* Message size of a node's output of type Out (void: a signal port). */
template <class Out> constexpr std::size_t out_size()
{
    if constexpr (std::is_void_v<Out>)
        return WF_SIGNAL;
    else
        return codec<Out>::size;
}

} // namespace detail

/* An input port of a node, taking messages of type T (oneTBB's
 * receiver<T> &, as input_port<i>(node) returns it).  A small value: valid
 * as long as its node. */
template <class T> class in_port
{
  public:
    /* The C port p, as a port of T messages. */
    explicit in_port(wf_port p) noexcept : p_(p)
    {
    }
    /* The C port. */
    wf_port get() const noexcept
    {
        return p_;
    }
    /* Offer v; true if the node took it (wf_try_put_port). */
    bool try_put(const T &v) const
    {
        return detail::check(detail::put(p_, v)) == 1;
    }

  private:
    wf_port p_;
};

/* An output port of a node, sending messages of type T. */
template <class T> class out_port
{
  public:
    /* The C port p, as a port of T messages. */
    explicit out_port(wf_port p) noexcept : p_(p)
    {
    }
    /* The C port. */
    wf_port get() const noexcept
    {
        return p_;
    }
    /* Take a message from a buffering node's port into v; false when there
     * is none (wf_try_get_port). */
    bool try_get(T &v) const
    {
        return detail::check(detail::get(p_, v)) == 1;
    }

  private:
    wf_port p_;
};

/* Any node: owns a wf_node and destroys it (wf_node_destroy, which waits
 * for the graph's work), then the callables its bodies use.  Movable, not
 * copyable. */
class node
{
  public:
    node(node &&o) noexcept
        : n_(std::exchange(o.n_, nullptr)), body_(std::move(o.body_))
    {
    }
    node &operator=(node &&o) noexcept
    {
        if (this != &o) {
            destroy();
            n_ = std::exchange(o.n_, nullptr);
            body_ = std::move(o.body_);
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
    /* wf_node_set_priority: a higher priority's bodies start first. */
    void set_priority(int priority)
    {
        detail::check(wf_node_set_priority(n_, priority));
    }

  protected:
    node() = default;
    /* The node first: wf_node_destroy waits for the bodies that use
     * body_. */
    void destroy() noexcept
    {
        if (n_ != nullptr)
            wf_node_destroy(n_);
        n_ = nullptr;
        body_.reset();
    }
    /* Keep f, for a body that throws into g's exception slot. */
    template <class F> detail::box<std::decay_t<F>> *hold(F &&f, graph &g)
    {
        auto b = std::make_unique<detail::box<std::decay_t<F>>>(
            std::forward<F>(f), &g.exceptions());
        auto *raw = b.get();
        body_ = std::move(b);
        return raw;
    }

    wf_node *n_ = nullptr;
    std::unique_ptr<detail::box_base> body_; /* the callables, or null */
};

/* Input port I of node n, typed by its input_types (oneTBB's
 * input_port<I>(node)): for join_node, indexer_node, limiter_node
 * (port 1 decrements), composite_node, and any node's port 0. */
template <unsigned I, class N> auto input_port(N &n)
{
    using T = std::tuple_element_t<I, typename N::input_types>;
    return in_port<T>(wf_input_port(n.get(), I));
}

/* Output port I of node n, typed by its output_types (oneTBB's
 * output_port<I>(node)): for split_node, multifunction_node,
 * composite_node, and any node's port 0. */
template <unsigned I, class N> auto output_port(N &n)
{
    using T = std::tuple_element_t<I, typename N::output_types>;
    return out_port<T>(wf_output_port(n.get(), I));
}

template <class T> class receiver;

namespace detail
{

/* The ports make_edge joins: a typed port as it is; a receiver's input
 * port 0, as oneTBB's receiver<T> & (a limiter_node's messages, not its
 * decrement port); another node's only port of that direction. */
inline wf_port as_out(const node &n) noexcept
{
    return wf__only_out(n.get());
}
template <class T> wf_port as_out(const out_port<T> &p) noexcept
{
    return p.get();
}
inline wf_port as_in(const node &n) noexcept
{
    return wf__only_in(n.get());
}
template <class T> wf_port as_in(const receiver<T> &n) noexcept
{
    return wf_input_port(n.get(), 0);
}
template <class T> wf_port as_in(const in_port<T> &p) noexcept
{
    return p.get();
}
/* Two typed ports must carry one type; a node's messages are checked by
 * size, by weft (WF_ESIZE). */
template <class A, class B> constexpr void check_edge(const A &, const B &)
{
}
template <class T, class U>
constexpr void check_edge(const out_port<T> &, const in_port<U> &)
{
    static_assert(std::is_same_v<T, U>, "an edge joins ports of one type");
}

} // namespace detail

/* An edge from `from` to `to` (wf_make_edge): each a node (its only
 * output, a receiver's input 0, or its only input) or a port that
 * output_port / input_port name. */
template <class From, class To> void make_edge(From &&from, To &&to)
{
    detail::check_edge(from, to);
    detail::check(wf_make_edge_ports(detail::as_out(from), detail::as_in(to)));
}
/* Remove that edge (wf_remove_edge). */
template <class From, class To> void remove_edge(From &&from, To &&to)
{
    detail::check_edge(from, to);
    detail::check(
        wf_remove_edge_ports(detail::as_out(from), detail::as_in(to)));
}

/* A node that takes messages of type T. */
template <class T> class receiver : public node
{
  public:
    using input_types = std::tuple<T>;
    /* Offer v; true if the node took it (wf_try_put). */
    bool try_put(const T &v)
    {
        return detail::check(detail::put(wf_input_port(n_, 0), v)) == 1;
    }

  protected:
    receiver()
    {
        static_assert(sizeof(detail::codec<T>) > 0, "a weft message");
    }
};

/* A buffering node of T: a receiver that can also be pulled from. */
template <class T> class buffering : public receiver<T>
{
  public:
    using output_types = std::tuple<T>;
    /* Take the next message into v; false when there is none. */
    bool try_get(T &v)
    {
        return detail::check(detail::get(wf_output_port(this->n_, 0), v)) == 1;
    }
};

/* queue_node: first in, first out (wf_queue_node_create). */
template <class T> class queue_node : public buffering<T>
{
  public:
    explicit queue_node(graph &g)
    {
        detail::check(
            wf_queue_node_create(&this->n_, g.get(), detail::codec<T>::size));
    }
};

/* buffer_node: order unspecified (wf_buffer_node_create). */
template <class T> class buffer_node : public buffering<T>
{
  public:
    explicit buffer_node(graph &g)
    {
        detail::check(
            wf_buffer_node_create(&this->n_, g.get(), detail::codec<T>::size));
    }
};

/* broadcast_node: every message to every successor; keeps nothing. */
template <class T> class broadcast_node : public receiver<T>
{
  public:
    using output_types = std::tuple<T>;
    explicit broadcast_node(graph &g)
    {
        detail::check(wf_broadcast_node_create(&this->n_, g.get(),
                                               detail::codec<T>::size));
    }
};

/* function_node: runs body(in) on each message In, at most `concurrency`
 * at once (weft::unlimited, weft::serial, or N), and sends what it
 * returns to every successor.  Out = void: the body returns nothing, and
 * the output is a signal (a continue_msg, for a continue_node after it).
 * A body that returns std::optional<Out> sends nothing for std::nullopt
 * (WF_NO_OUTPUT).  A body that throws cancels the graph, and
 * graph::wait_for_all throws the exception. */
template <class In, class Out = void> class function_node : public receiver<In>
{
  public:
    using output_types =
        std::tuple<std::conditional_t<std::is_void_v<Out>, continue_msg, Out>>;

    template <class F>
    function_node(graph &g, unsigned concurrency, F &&body,
                  wf_fn_policy policy = WF_QUEUEING)
    {
        using B = detail::box<std::decay_t<F>>;
        wf_function_config cfg = WF_FUNCTION_CONFIG_INIT;
        cfg.in_size = detail::codec<In>::size;
        cfg.out_size = detail::out_size<Out>();
        cfg.concurrency = concurrency;
        cfg.policy = policy;
        cfg.body = call<B>;
        cfg.ctx = this->hold(std::forward<F>(body), g);
        detail::check(wf_function_node_create(&this->n_, g.get(), &cfg));
    }

  private:
    template <class B> static int call(const void *in, void *out, void *ctx)
    {
        B *b = static_cast<B *>(ctx);
        try {
            In v = detail::codec<In>::load(in);
            using R = std::invoke_result_t<decltype(b->f) &, const In &>;
            if constexpr (std::is_void_v<R>) {
                static_assert(std::is_void_v<Out> ||
                                  std::is_same_v<Out, continue_msg>,
                              "the body must return an Out");
                b->f(v);
                return 0;
            } else if constexpr (std::is_void_v<Out>) {
                (void)b->f(v);
                return 0;
            } else {
                return detail::emit<Out>(out, b->f(v));
            }
        } catch (...) {
            b->ex->capture();
            return WF_ECANCELED; /* wait_for_all throws the exception */
        }
    }
};

/* input_node: a source.  Once activate() is called, body() runs on the
 * pool and each T it returns goes to the successors; std::nullopt ends the
 * stream (until graph::reset). */
template <class T> class input_node : public node
{
  public:
    using output_types = std::tuple<T>;

    template <class F> input_node(graph &g, F &&body)
    {
        using B = detail::box<std::decay_t<F>>;
        wf_input_config cfg = WF_INPUT_CONFIG_INIT;
        cfg.out_size = detail::codec<T>::size;
        cfg.body = call<B>;
        cfg.ctx = this->hold(std::forward<F>(body), g);
        detail::check(wf_input_node_create(&this->n_, g.get(), &cfg));
    }

    /* Start making messages (wf_input_node_activate). */
    void activate()
    {
        detail::check(wf_input_node_activate(this->n_));
    }
    /* Take the buffered (or a new) message into v; false when none. */
    bool try_get(T &v)
    {
        return detail::check(detail::get(wf_output_port(this->n_, 0), v)) == 1;
    }

  private:
    template <class B> static int call(void *out, void *ctx)
    {
        B *b = static_cast<B *>(ctx);
        try {
            std::optional<T> r = b->f();
            if (!r)
                return WF_INPUT_DONE;
            detail::codec<T>::store(out, *r);
            return 0;
        } catch (...) {
            b->ex->capture();
            return WF_ECANCELED;
        }
    }
};

/* continue_node (oneTBB's): counts the continue_msg signals on its input
 * and, once it has one from each predecessor (its in-edges, plus the
 * `predecessors` given), runs body() and starts counting again.  The body
 * takes a const continue_msg & or nothing, and returns the Out sent to
 * the successors, a std::optional<Out> (std::nullopt: nothing sent), or,
 * for Out = continue_msg, nothing.  Exceptions as in function_node. */
template <class Out = continue_msg>
class continue_node : public receiver<continue_msg>
{
  public:
    using output_types = std::tuple<Out>;

    /* A node whose count is its in-edges only. */
    template <class F>
    continue_node(graph &g, F &&body)
        : continue_node(g, 0, std::forward<F>(body))
    {
    }
    /* A node that also waits for `predecessors` signals put from
     * outside (oneTBB's number_of_predecessors). */
    template <class F> continue_node(graph &g, unsigned predecessors, F &&body)
    {
        using B = detail::box<std::decay_t<F>>;
        wf_continue_config cfg = WF_CONTINUE_CONFIG_INIT;
        cfg.out_size = detail::codec<Out>::size;
        cfg.predecessors = predecessors;
        cfg.body = call<B>;
        cfg.ctx = this->hold(std::forward<F>(body), g);
        detail::check(wf_continue_node_create(&this->n_, g.get(), &cfg));
    }

  private:
    template <class B> static int call(void *out, void *ctx)
    {
        B *b = static_cast<B *>(ctx);
        try {
            using R = decltype(detail::call_with(b->f, continue_msg{}));
            if constexpr (std::is_void_v<R>) {
                static_assert(std::is_same_v<Out, continue_msg>,
                              "the body must return an Out");
                detail::call_with(b->f, continue_msg{});
                return 0;
            } else {
                return detail::emit<Out>(
                    out, detail::call_with(b->f, continue_msg{}));
            }
        } catch (...) {
            b->ex->capture();
            return WF_ECANCELED;
        }
    }
};

/* multifunction_node<In, std::tuple<Out...>> (oneTBB's): runs
 * body(in, ports) on each input, at most `concurrency` at once; the body
 * sends any number of messages to any output port with
 * std::get<i>(ports).try_put(v).  Exceptions as in function_node (what
 * was sent before the throw stays sent). */
template <class In, class Outs> class multifunction_node;

/* Output port I of a running multifunction_node body: try_put sends v to
 * the port's successors now (wf_output_put); true if one took it. */
template <class T> class multifunction_output
{
  public:
    /* Port i of the body's ports (made by the node for each call). */
    multifunction_output(wf_output_ports *ports, unsigned i) noexcept
        : ports_(ports), i_(i)
    {
    }
    bool try_put(const T &v) const
    {
        int r;
        if constexpr (detail::codec<T>::size == WF_SIGNAL) {
            r = wf_output_put(ports_, i_, nullptr);
        } else {
            alignas(16) unsigned char buf[detail::codec<T>::size];
            detail::codec<T>::store(buf, v);
            r = wf_output_put(ports_, i_, buf);
        }
        return detail::check(r) == 1;
    }

  private:
    wf_output_ports *ports_;
    unsigned i_;
};

template <class In, class... Out>
class multifunction_node<In, std::tuple<Out...>> : public receiver<In>
{
  public:
    using output_types = std::tuple<Out...>;
    /* What the body gets: std::get<i>(ports).try_put(v). */
    using output_ports_type = std::tuple<multifunction_output<Out>...>;

    template <class F>
    multifunction_node(graph &g, unsigned concurrency, F &&body,
                       wf_fn_policy policy = WF_QUEUEING)
    {
        using B = detail::box<std::decay_t<F>>;
        static const std::size_t sizes[] = {detail::codec<Out>::size...};
        wf_multifunction_config cfg = WF_MULTIFUNCTION_CONFIG_INIT;
        cfg.in_size = detail::codec<In>::size;
        cfg.out_ports = sizeof...(Out);
        cfg.out_sizes = sizes;
        cfg.concurrency = concurrency;
        cfg.policy = policy;
        cfg.body = call<B>;
        cfg.ctx = this->hold(std::forward<F>(body), g);
        detail::check(wf_multifunction_node_create(&this->n_, g.get(), &cfg));
    }

  private:
    template <std::size_t... I>
    static output_ports_type ports_of(wf_output_ports *p,
                                      std::index_sequence<I...>)
    {
        return output_ports_type(multifunction_output<Out>(p, I)...);
    }
    template <class B>
    static int call(const void *in, wf_output_ports *p, void *ctx)
    {
        B *b = static_cast<B *>(ctx);
        try {
            In v = detail::codec<In>::load(in);
            output_ports_type ports =
                ports_of(p, std::index_sequence_for<Out...>{});
            b->f(static_cast<const In &>(v), ports);
            return 0;
        } catch (...) {
            b->ex->capture();
            return WF_ECANCELED;
        }
    }
};

/* The policies of join_node (oneTBB's): a FIFO per port; reservation
 * from every port's predecessors, all or none; matching keys (K, given by
 * a function per port and compared byte by byte); matching tag_value
 * tags.  docs/graph.md describes each. */
struct queueing {
};
struct reserving {
};
template <class K> struct key_matching {
};
struct tag_matching {
};

template <class Tuple, class Policy = queueing> class join_node;

namespace detail
{

/* The parts join_node's policies share: the C node made from cfg, with
 * tuple-typed ports. */
template <class... T> class join_base : public node
{
  public:
    using input_types = std::tuple<T...>;
    using output_types = std::tuple<std::tuple<T...>>;

    /* Take a tuple the node holds (a queueing or key-matching join) into
     * v; false when there is none. */
    bool try_get(std::tuple<T...> &v)
    {
        return check(get(wf_output_port(n_, 0), v)) == 1;
    }

  protected:
    void create(graph &g, wf_join_config &cfg)
    {
        static const std::size_t sizes[] = {codec<T>::size...};
        static_assert(sizeof...(T) >= 2, "a join_node has 2 or more ports");
        if (wf_tuple_layout(sizeof...(T), sizes, nullptr) !=
            codec<std::tuple<T...>>::size)
            throw error(WF_ESIZE); /* weft.hpp and weft disagree */
        cfg.ports = sizeof...(T);
        cfg.msg_sizes = sizes;
        check(wf_join_node_create(&n_, g.get(), &cfg));
    }
};

/* Key functions called by weft: they cannot fail a put, so one that
 * throws terminates the program, as a noexcept function does. */
template <class K, class B, std::size_t I, class T>
void key_thunk(const void *msg, void *key, void *ctx) noexcept
{
    K k = std::get<I>(static_cast<B *>(ctx)->f)(codec<T>::load(msg));
    std::memcpy(key, &k, sizeof(K));
}
template <class B, std::size_t I, class T>
std::uint64_t tag_thunk(const void *msg, void *ctx) noexcept
{
    return static_cast<tag_value>(
        std::get<I>(static_cast<B *>(ctx)->f)(codec<T>::load(msg)));
}

} // namespace detail

/* join_node<std::tuple<T...>, queueing or reserving>: input port i
 * (input_port<i>(j)) takes a T_i; when every port has a message (the
 * head of each FIFO, or one reserved from each port's predecessors) it
 * sends the std::tuple of them to every successor. */
template <class... T, class Policy>
class join_node<std::tuple<T...>, Policy> : public detail::join_base<T...>
{
    static_assert(std::is_same_v<Policy, queueing> ||
                      std::is_same_v<Policy, reserving>,
                  "join policies: queueing, reserving, key_matching<K>, "
                  "tag_matching");

  public:
    explicit join_node(graph &g)
    {
        wf_join_config cfg = WF_JOIN_CONFIG_INIT;
        cfg.policy = std::is_same_v<Policy, queueing> ? WF_JOIN_QUEUEING
                                                      : WF_JOIN_RESERVING;
        this->create(g, cfg);
    }
};

/* join_node<std::tuple<T...>, key_matching<K>>: a tuple of the messages,
 * one per port, whose keys are equal; port i's key is f_i(message), one
 * function per port.  K must have a unique byte representation (an
 * integer, a struct of them without padding): weft compares keys byte by
 * byte.  The key functions run on the putting thread, several at once;
 * one that throws terminates the program (weft cannot fail the put). */
template <class... T, class K>
class join_node<std::tuple<T...>, key_matching<K>>
    : public detail::join_base<T...>
{
    static_assert(std::is_trivially_copyable_v<K> &&
                      std::has_unique_object_representations_v<K>,
                  "keys are compared byte by byte: use an integer or a "
                  "struct of them without padding");

  public:
    template <class... F> explicit join_node(graph &g, F &&...key_fns)
    {
        static_assert(sizeof...(F) == sizeof...(T), "a key function a port");
        using B = detail::box<std::tuple<std::decay_t<F>...>>;
        void *ctx = this->hold(
            std::tuple<std::decay_t<F>...>(std::forward<F>(key_fns)...), g);
        make<B>(g, ctx, std::index_sequence_for<T...>{});
    }

  private:
    template <class B, std::size_t... I>
    void make(graph &g, void *ctx, std::index_sequence<I...>)
    {
        static const wf_key_fn fns[] = {&detail::key_thunk<K, B, I, T>...};
        wf_join_config cfg = WF_JOIN_CONFIG_INIT;
        cfg.policy = WF_JOIN_KEY_MATCHING;
        cfg.key_size = sizeof(K);
        cfg.key_fns = fns;
        cfg.ctx = ctx;
        this->create(g, cfg);
    }
};

/* join_node<std::tuple<T...>, tag_matching>: key matching on the
 * tag_value that f_i(message) returns for port i. */
template <class... T>
class join_node<std::tuple<T...>, tag_matching> : public detail::join_base<T...>
{
  public:
    template <class... F> explicit join_node(graph &g, F &&...tag_fns)
    {
        static_assert(sizeof...(F) == sizeof...(T), "a tag function a port");
        using B = detail::box<std::tuple<std::decay_t<F>...>>;
        void *ctx = this->hold(
            std::tuple<std::decay_t<F>...>(std::forward<F>(tag_fns)...), g);
        make<B>(g, ctx, std::index_sequence_for<T...>{});
    }

  private:
    template <class B, std::size_t... I>
    void make(graph &g, void *ctx, std::index_sequence<I...>)
    {
        static const wf_tag_fn fns[] = {&detail::tag_thunk<B, I, T>...};
        wf_join_config cfg = WF_JOIN_CONFIG_INIT;
        cfg.policy = WF_JOIN_TAG_MATCHING;
        cfg.tag_fns = fns;
        cfg.ctx = ctx;
        this->create(g, cfg);
    }
};

/* split_node<std::tuple<T...>> (oneTBB's): sends element i of each tuple
 * it takes from output port i (output_port<i>(s)), at once. */
template <class Tuple> class split_node;
template <class... T>
class split_node<std::tuple<T...>> : public receiver<std::tuple<T...>>
{
  public:
    using output_types = std::tuple<T...>;

    explicit split_node(graph &g)
    {
        static const std::size_t sizes[] = {detail::codec<T>::size...};
        if (wf_tuple_layout(sizeof...(T), sizes, nullptr) !=
            detail::codec<std::tuple<T...>>::size)
            throw error(WF_ESIZE);
        detail::check(
            wf_split_node_create(&this->n_, g.get(), sizeof...(T), sizes));
    }
};

/* An indexer_node's message (oneTBB's tagged_msg): the index of the port
 * the value came in on, tag(), and the value, read as the type of that
 * port (cast_to<U>(), get<I>()).  Laid out as the C wf_tagged_msg, and
 * trivially copyable, so a node of tagged_msg<T...> takes it as any
 * message. */
template <class... T> class tagged_msg
{
    static constexpr std::size_t max_size()
    {
        std::size_t m = 0;
        ((m = detail::codec<T>::size > m ? detail::codec<T>::size : m), ...);
        return m;
    }
    static constexpr std::size_t value_size =
        (max_size() + sizeof(wf_tagged_msg) - 1) / sizeof(wf_tagged_msg) *
        sizeof(wf_tagged_msg);

  public:
    /* The index of the port the value came in on (of T...). */
    std::size_t tag() const noexcept
    {
        return port_;
    }
    /* True when the value is of type U (its port's type is U). */
    template <class U> bool is_a() const noexcept
    {
        std::size_t i = 0;
        bool r = false;
        ((r = r || (i++ == port_ && std::is_same_v<U, T>)), ...);
        return r;
    }
    /* The value, of type U; throws weft::error (WF_EINVAL) when it is not
     * a U (oneTBB throws std::runtime_error). */
    template <class U> U cast_to() const
    {
        if (!is_a<U>())
            throw error(WF_EINVAL);
        return detail::load<U>(value_);
    }
    /* The value of port I's type; throws weft::error (WF_EINVAL) when it
     * came in on another port. */
    template <std::size_t I> auto get() const
    {
        using U = std::tuple_element_t<I, std::tuple<T...>>;
        if (port_ != I)
            throw error(WF_EINVAL);
        return detail::load<U>(value_);
    }

  private:
    std::size_t port_;
    alignas(std::max_align_t) unsigned char value_[value_size];
};

/* oneTBB's free functions over a tagged_msg. */
template <class U, class... T> U cast_to(const tagged_msg<T...> &m)
{
    return m.template cast_to<U>();
}
template <class U, class... T> bool is_a(const tagged_msg<T...> &m) noexcept
{
    return m.template is_a<U>();
}

/* indexer_node<T...> (oneTBB's): input port i takes a T_i
 * (input_port<i>(n)); each message goes at once to every successor as a
 * tagged_msg<T...> naming its port. */
template <class... T> class indexer_node : public node
{
  public:
    using input_types = std::tuple<T...>;
    using output_type = tagged_msg<T...>;
    using output_types = std::tuple<output_type>;

    explicit indexer_node(graph &g)
    {
        static_assert(sizeof(output_type) == WF_TAGGED_MSG_SIZE(std::max(
                                                 {detail::codec<T>::size...})),
                      "tagged_msg is laid out as wf_tagged_msg");
        static const std::size_t sizes[] = {detail::codec<T>::size...};
        detail::check(
            wf_indexer_node_create(&this->n_, g.get(), sizeof...(T), sizes));
    }
};

/* sequencer_node<T> (oneTBB's): a buffer that lets its messages out in
 * the order seq(message) gives, 0, 1, 2, ..., whatever order they come in.
 * seq runs on the putting thread, several at once; one that throws
 * terminates the program (weft cannot fail the put). */
template <class T> class sequencer_node : public buffering<T>
{
  public:
    template <class F> sequencer_node(graph &g, F &&seq)
    {
        using B = detail::box<std::decay_t<F>>;
        void *ctx = this->hold(std::forward<F>(seq), g);
        detail::check(wf_sequencer_node_create(
            &this->n_, g.get(), detail::codec<T>::size, call<B>, ctx));
    }

  private:
    template <class B>
    static std::size_t call(const void *msg, void *ctx) noexcept
    {
        return static_cast<std::size_t>(
            static_cast<B *>(ctx)->f(detail::codec<T>::load(msg)));
    }
};

/* limiter_node<T> (oneTBB's): lets at most `threshold` messages through;
 * each continue_msg on its decrement port (decrementer(), or
 * input_port<1>) lets one more pass.  limiter_node<T, std::int64_t>: the
 * decrement port takes a count (negative: raise).  It keeps nothing: a
 * message over the threshold is rejected, and pulled from a buffering
 * predecessor when a decrement comes. */
template <class T, class D = continue_msg>
class limiter_node : public receiver<T>
{
    static_assert(std::is_same_v<D, continue_msg> ||
                      std::is_same_v<D, std::int64_t>,
                  "the decrement is a continue_msg or a std::int64_t");

  public:
    using input_types = std::tuple<T, D>;
    using output_types = std::tuple<T>;

    limiter_node(graph &g, std::size_t threshold)
    {
        if constexpr (std::is_same_v<D, continue_msg>)
            detail::check(wf_limiter_node_create(
                &this->n_, g.get(), detail::codec<T>::size, threshold));
        else
            detail::check(wf_limiter_node_create_counted(
                &this->n_, g.get(), detail::codec<T>::size, threshold));
    }
    /* The decrement port (input port 1). */
    in_port<D> decrementer() const noexcept
    {
        return in_port<D>(wf_input_port(this->n_, 1));
    }
};

/* priority_queue_node<T, Compare> (oneTBB's): a buffer whose next message
 * is the greatest it holds by `less` (std::less: the largest first).
 * The comparison runs inside the node; one that throws terminates the
 * program. */
template <class T, class Compare = std::less<T>>
class priority_queue_node : public buffering<T>
{
  public:
    explicit priority_queue_node(graph &g, Compare less = Compare())
    {
        using B = detail::box<Compare>;
        void *ctx = this->hold(std::move(less), g);
        detail::check(wf_priority_queue_node_create(
            &this->n_, g.get(), detail::codec<T>::size, call<B>, ctx));
    }

  private:
    template <class B>
    static int call(const void *a, const void *b, void *ctx) noexcept
    {
        auto &less = static_cast<B *>(ctx)->f;
        T x = detail::codec<T>::load(a), y = detail::codec<T>::load(b);
        return less(x, y) ? -1 : less(y, x) ? 1 : 0;
    }
};

namespace detail
{

/* overwrite_node and write_once_node: one value, kept until clear(). */
template <class T> class single_value : public buffering<T>
{
  public:
    /* True while the node holds a value (wf_overwrite_node_is_valid). */
    bool is_valid() const
    {
        return check(wf_overwrite_node_is_valid(this->n_)) == 1;
    }
    /* Forget the value (wf_overwrite_node_clear). */
    void clear()
    {
        check(wf_overwrite_node_clear(this->n_));
    }
};

} // namespace detail

/* overwrite_node<T> (oneTBB's): holds the last message put, and sends
 * each to every successor; try_get copies the value and leaves it. */
template <class T> class overwrite_node : public detail::single_value<T>
{
  public:
    explicit overwrite_node(graph &g)
    {
        detail::check(wf_overwrite_node_create(&this->n_, g.get(),
                                               detail::codec<T>::size));
    }
};

/* write_once_node<T> (oneTBB's): an overwrite_node that keeps its first
 * message; later puts are rejected until clear() or graph::reset. */
template <class T> class write_once_node : public detail::single_value<T>
{
  public:
    explicit write_once_node(graph &g)
    {
        detail::check(wf_write_once_node_create(&this->n_, g.get(),
                                                detail::codec<T>::size));
    }
};

/* composite_node<std::tuple<In...>, std::tuple<Out...>> (oneTBB's): a
 * sub-graph seen as one node.  Its input port i is the inner port
 * inputs[i], its output port j the inner port outputs[j]: edges, puts and
 * gets through it act on the inner ports.  It does not own the inner
 * nodes, and must go before them: declare it after them.  The ports are
 * given to the constructor, or to set_external_ports (once) for a class
 * that derives from it and makes its inner nodes first. */
template <class Ins, class Outs> class composite_node;
template <class... In, class... Out>
class composite_node<std::tuple<In...>, std::tuple<Out...>> : public node
{
  public:
    using input_types = std::tuple<In...>;
    using output_types = std::tuple<Out...>;
    using input_ports_type = std::tuple<in_port<In>...>;
    using output_ports_type = std::tuple<out_port<Out>...>;

    /* Ports to come with set_external_ports. */
    explicit composite_node(graph &g) noexcept : g_(g.get())
    {
    }
    composite_node(graph &g, const input_ports_type &inputs,
                   const output_ports_type &outputs)
        : g_(g.get())
    {
        set_external_ports(inputs, outputs);
    }

    /* Alias the inner ports (wf_composite_node_create); throws
     * weft::error (WF_ESTATE) when they are set already. */
    void set_external_ports(const input_ports_type &inputs,
                            const output_ports_type &outputs)
    {
        if (n_ != nullptr)
            throw error(WF_ESTATE);
        wf_port in[sizeof...(In) + 1], out[sizeof...(Out) + 1];
        std::apply([&](const auto &...p) { fill(in, p...); }, inputs);
        std::apply([&](const auto &...p) { fill(out, p...); }, outputs);
        check_create(in, out);
    }

  private:
    template <class... P> static void fill(wf_port *to, const P &...ps)
    {
        std::size_t i = 0;
        ((to[i++] = ps.get()), ...);
    }
    void check_create(const wf_port *in, const wf_port *out)
    {
        detail::check(wf_composite_node_create(&n_, g_, sizeof...(In), in,
                                               sizeof...(Out), out));
    }

    wf_graph *g_; /* the C graph: a weft::graph may move meanwhile */
};

/* An async_node's gateway (oneTBB's gateway_type): how work outside the
 * pool sends its results.  A copyable handle, valid as long as its node;
 * every call may come from any thread. */
template <class Out> class gateway
{
  public:
    /* The C gateway gw (wf_async_node_gateway). */
    explicit gateway(wf_gateway *gw) noexcept : gw_(gw)
    {
    }
    /* Send v to the node's successors, on this thread
     * (wf_gateway_try_put); true if one took it.  Before the matching
     * release_wait. */
    bool try_put(const Out &v) const
    {
        int r;
        if constexpr (detail::codec<Out>::direct) {
            r = wf_gateway_try_put(gw_, &v);
        } else {
            alignas(16) unsigned char buf[detail::codec<Out>::size];
            detail::codec<Out>::store(buf, v);
            r = wf_gateway_try_put(gw_, buf);
        }
        return detail::check(r) == 1;
    }
    /* One more piece of outside work in flight: wait_for_all waits for
     * it (wf_gateway_reserve_wait). */
    void reserve_wait() const
    {
        detail::check(wf_gateway_reserve_wait(gw_));
    }
    /* That work is done (wf_gateway_release_wait). */
    void release_wait() const
    {
        detail::check(wf_gateway_release_wait(gw_));
    }
    /* The C handle. */
    wf_gateway *get() const noexcept
    {
        return gw_;
    }

  private:
    wf_gateway *gw_;
};

/* async_node<In, Out> (oneTBB's): body(in, gateway) hands each input to
 * work outside the pool (a thread, a device), which calls reserve_wait
 * before the body returns, later gateway.try_put(result) and then
 * release_wait.  At most `concurrency` bodies at once; a body's slot is
 * free once it returns.  Exceptions from the body as in function_node. */
template <class In, class Out> class async_node : public receiver<In>
{
  public:
    using output_types = std::tuple<Out>;
    using gateway_type = weft::gateway<Out>;

    template <class F>
    async_node(graph &g, unsigned concurrency, F &&body,
               wf_fn_policy policy = WF_QUEUEING)
    {
        static_assert(detail::codec<Out>::size > 0, "an async_node's output "
                                                    "carries data");
        using B = detail::box<std::decay_t<F>>;
        wf_async_config cfg = WF_ASYNC_CONFIG_INIT;
        cfg.in_size = detail::codec<In>::size;
        cfg.out_size = detail::codec<Out>::size;
        cfg.concurrency = concurrency;
        cfg.policy = policy;
        cfg.body = call<B>;
        cfg.ctx = this->hold(std::forward<F>(body), g);
        detail::check(wf_async_node_create(&this->n_, g.get(), &cfg));
    }
    /* The node's gateway, for outside work that did not get it from the
     * body. */
    gateway_type gateway() const noexcept
    {
        return gateway_type(wf_async_node_gateway(this->n_));
    }

  private:
    template <class B>
    static int call(const void *in, wf_gateway *gw, void *ctx)
    {
        B *b = static_cast<B *>(ctx);
        try {
            In v = detail::codec<In>::load(in);
            gateway_type gate(gw);
            b->f(static_cast<const In &>(v), gate);
            return 0;
        } catch (...) {
            b->ex->capture();
            return WF_ECANCELED;
        }
    }
};

/* ---- pipelines ------------------------------------------------------------ */

/* How a stage's calls may overlap: oneTBB's filter_mode (oneAPI
 * specification, "filter"), over wf_stage_mode (weft/pipeline.h). */
enum class stage_mode {
    /* any number of calls at once, in any order */
    parallel = WF_STAGE_PARALLEL,
    /* one call at a time, in the order the first stage made the items */
    serial_in_order = WF_STAGE_SERIAL_IN_ORDER,
    /* one call at a time, in any order */
    serial_out_of_order = WF_STAGE_SERIAL_OUT_OF_ORDER
};
/* The modes by their short names: weft::parallel, weft::serial_in_order,
 * weft::serial_out_of_order. */
inline constexpr stage_mode parallel = stage_mode::parallel;
inline constexpr stage_mode serial_in_order = stage_mode::serial_in_order;
inline constexpr stage_mode serial_out_of_order =
    stage_mode::serial_out_of_order;

namespace detail
{
template <class... S> class pipe;
} // namespace detail

/* What the first stage of a pipeline is given (oneTBB's flow_control):
 * stop() ends the input, and the value that call returns is then not an
 * item: it is destroyed, never passed on.  Valid during that call only. */
class flow_control
{
  public:
    /* End of input: the first stage is not called again. */
    void stop() noexcept
    {
        stopped_ = true;
    }
    /* True once a stage has thrown: the pipeline is being cancelled. */
    bool is_cancelled() const noexcept
    {
        return wf_pipeline_is_cancelled(ctl_);
    }

  private:
    template <class...> friend class detail::pipe;
    explicit flow_control(wf_pipeline_ctl *ctl) noexcept : ctl_(ctl)
    {
    }
    wf_pipeline_ctl *ctl_;
    bool stopped_ = false;
};

/* A stage of a pipeline (oneTBB's filter<In, Out>): a mode and a body.
 * The first stage's body takes a flow_control & and returns an Out (In is
 * void); a later stage's takes an In (by value, In &&, const In & or
 * In &) and returns an Out, or nothing when it is the last (Out void).
 * make_stage builds one; & joins stages into a weft::pipeline. */
template <class In, class Out, class F> class stage
{
  public:
    using input_type = In;
    using output_type = Out;
    stage(stage_mode mode, F body) : mode_(mode), body_(std::move(body))
    {
    }
    stage_mode mode() const noexcept
    {
        return mode_;
    }
    /* The callable. */
    F &body() noexcept
    {
        return body_;
    }

  private:
    stage_mode mode_;
    F body_;
};

/* A stage of mode `mode` whose body turns an In into an Out (oneTBB's
 * make_filter<In, Out>): In void for the first stage, Out void for the
 * last. */
template <class In, class Out, class F>
stage<In, Out, std::decay_t<F>> make_stage(stage_mode mode, F &&body)
{
    using Fn = std::decay_t<F>;
    if constexpr (std::is_void_v<In>)
        static_assert(std::is_invocable_v<Fn &, flow_control &>,
                      "the first stage's body takes a weft::flow_control &");
    else
        static_assert(std::is_invocable_v<Fn &, In &&> ||
                          std::is_invocable_v<Fn &, In &>,
                      "a stage's body takes its In");
    return stage<In, Out, Fn>(mode, std::forward<F>(body));
}

/* Stages joined by &, first to last, run by parallel_pipeline.  Kept as
 * values; a pipeline kept in a variable may run again (its serial stages'
 * bodies keep their state between runs). */
template <class... S> class pipeline
{
    static_assert(sizeof...(S) >= 1, "a pipeline has a stage");

  public:
    explicit pipeline(std::tuple<S...> stages) : stages_(std::move(stages))
    {
    }
    /* The stages. */
    std::tuple<S...> &stages() noexcept
    {
        return stages_;
    }

  private:
    std::tuple<S...> stages_;
};

namespace detail
{

template <class T> struct is_stage : std::false_type {
};
template <class In, class Out, class F>
struct is_stage<stage<In, Out, F>> : std::true_type {
};
template <class T> struct is_pipeline : std::false_type {
};
template <class... S> struct is_pipeline<pipeline<S...>> : std::true_type {
};
/* What & joins: a stage or a pipeline. */
template <class T>
constexpr bool is_pipe_part =
    is_stage<std::decay_t<T>>::value || is_pipeline<std::decay_t<T>>::value;

/* A part's stages as a tuple of values (copied from an lvalue, moved from
 * an rvalue). */
template <class T> auto pipe_values(T &&part)
{
    if constexpr (is_stage<std::decay_t<T>>::value)
        return std::make_tuple(std::forward<T>(part));
    else if constexpr (std::is_lvalue_reference_v<T>)
        return part.stages();
    else
        return std::move(part.stages());
}

/* A part's stages as a tuple of references, for a run. */
template <class In, class Out, class F>
std::tuple<stage<In, Out, F> &> pipe_refs(stage<In, Out, F> &s)
{
    return std::tuple<stage<In, Out, F> &>(s);
}
template <class... S> std::tuple<S &...> pipe_refs(pipeline<S...> &p)
{
    return std::apply([](S &...s) { return std::tuple<S &...>(s...); },
                      p.stages());
}

template <class T> struct item_shape {
    static constexpr std::size_t size = sizeof(T), align = alignof(T);
};
template <> struct item_shape<void> {
    static constexpr std::size_t size = 1, align = 1;
};

/* One run of a pipeline over wf_parallel_pipeline_with.  The C pipeline
 * passes each item as a void *; here that pointer is a slot, one per
 * token, made when the run starts (max_tokens of them: nothing is
 * allocated per item), where the item lives as a typed object.  Stage k
 * reads its In from one of the slot's two buffers and makes its Out in the
 * other, so that the body's result is constructed in place (no move) and
 * the In is destroyed only after it.  A slot is free again when the last
 * stage's call for its item ends, which is before the C pipeline frees the
 * item's token: so a free slot exists whenever the first stage is called,
 * since it is called only with a free token (weft/pipeline.h). */
template <class... S> class pipe
{
    static constexpr std::size_t N = sizeof...(S);
    template <std::size_t K>
    using stage_t = std::tuple_element_t<K, std::tuple<S...>>;
    template <std::size_t K> using in_t = typename stage_t<K>::input_type;
    template <std::size_t K> using out_t = typename stage_t<K>::output_type;

    /* Stage K's Out is stage K + 1's In, and an item. */
    template <std::size_t K> static constexpr bool linked()
    {
        return std::is_same_v<out_t<K>, in_t<K + 1>> &&
               !std::is_void_v<out_t<K>>;
    }
    template <std::size_t... K>
    static constexpr bool chained(std::index_sequence<K...>)
    {
        return (linked<K>() && ...);
    }
    static_assert(std::is_void_v<in_t<0>>,
                  "the first stage makes the items: make_stage<void, Out>");
    static_assert(std::is_void_v<out_t<N - 1>>,
                  "the last stage returns nothing: make_stage<In, void>");
    static_assert(chained(std::make_index_sequence<N - 1>{}),
                  "each stage's Out is the next stage's In, and not void");

    static constexpr std::size_t align = std::max(
        {alignof(void *), item_shape<typename S::output_type>::align...});
    static constexpr std::size_t size =
        (std::max({item_shape<typename S::output_type>::size...}) + align - 1) /
        align * align;

    struct slot {
        slot *next = nullptr;              /* in a free list */
        void (*destroy)(void *) = nullptr; /* of the item at live; null: none */
        void *live = nullptr;
        alignas(align) unsigned char buf[2][size];
    };

  public:
    explicit pipe(std::tuple<S &...> stages) : st_(stages)
    {
    }
    pipe(const pipe &) = delete;
    pipe &operator=(const pipe &) = delete;
    /* Items a stage's exception left behind are destroyed here, once no
     * stage call can run (the C pipeline has returned). */
    ~pipe()
    {
        for (std::size_t i = 0; i < nslots_; i++)
            clear(slots_[i]);
    }

    void run(wf_pool *p, std::size_t max_tokens)
    {
        if (p == nullptr && (p = wf_pool_default()) == nullptr)
            throw error(WF_EAGAIN);
        if constexpr (N > 1) {
            /* Checked before the slots are made: the C call would refuse
             * them after the allocation. */
            if (max_tokens == 0)
                throw error(WF_EINVAL);
            if (max_tokens > WF_PIPELINE_MAX_TOKENS)
                throw error(WF_ERANGE);
            slots_.reset(new slot[max_tokens]);
            nslots_ = max_tokens;
            for (std::size_t i = 0; i + 1 < max_tokens; i++)
                slots_[i].next = &slots_[i + 1];
            own_ = &slots_[0];
        }
        wf_stage stages[N];
        fill(stages, std::make_index_sequence<N>{});
        wf_pipeline_config cfg = WF_PIPELINE_CONFIG_INIT;
        cfg.drop = drop;
        cfg.drop_ctx = this;
        int err = wf_parallel_pipeline_with(p, max_tokens, stages, N, &cfg);
        ex_.rethrow();
        check(err);
    }

  private:
    template <std::size_t... K>
    void fill(wf_stage *out, std::index_sequence<K...>)
    {
        ((out[K] = wf_stage{static_cast<wf_stage_mode>(std::get<K>(st_).mode()),
                            &call<K>, this}),
         ...);
    }

    template <std::size_t K>
    static void *call(void *item, void *ctx, wf_pipeline_ctl *ctl)
    {
        pipe *p = static_cast<pipe *>(ctx);
        if constexpr (K == 0)
            return p->input(ctl);
        else
            return p->pass<K>(static_cast<slot *>(item), ctl);
    }

    /* The first stage: serial, so own_ needs no synchronisation. */
    void *input(wf_pipeline_ctl *ctl)
    {
        using Out = out_t<0>;
        flow_control fc(ctl);
        auto &f = std::get<0>(st_).body();
        slot *s = nullptr;
        try {
            if constexpr (std::is_void_v<Out>) {
                f(fc);
            } else {
                if ((s = take()) == nullptr) {
                    /* Only once the pipeline failed: the slots of dropped
                     * items may not be back yet. */
                    wf_pipeline_fail(ctl, WF_ECANCELED);
                    return nullptr;
                }
                ::new (static_cast<void *>(s->buf[0])) Out(f(fc));
                hold<Out>(*s, 0);
            }
        } catch (...) {
            if (s != nullptr)
                give_back(s);
            ex_.capture();
            wf_pipeline_fail(ctl, WF_ECANCELED);
            return nullptr;
        }
        if (fc.stopped_) {
            if (s != nullptr) {
                clear(*s);
                give_back(s);
            }
            wf_pipeline_stop(ctl);
            return nullptr;
        }
        return s;
    }

    /* Stage K >= 1 on the item in slot s. */
    template <std::size_t K> void *pass(slot *s, wf_pipeline_ctl *ctl)
    {
        using In = in_t<K>;
        using Out = out_t<K>;
        In &in = *std::launder(reinterpret_cast<In *>(s->buf[(K - 1) % 2]));
        auto &f = std::get<K>(st_).body();
        try {
            if constexpr (std::is_void_v<Out>) {
                invoke_item(f, in);
                clear(*s);
                release(s);
                return nullptr;
            } else {
                ::new (static_cast<void *>(s->buf[K % 2]))
                    Out(invoke_item(f, in));
                clear(*s);
                hold<Out>(*s, K % 2);
                return s;
            }
        } catch (...) {
            ex_.capture();
            wf_pipeline_fail(ctl, WF_ECANCELED);
            if constexpr (K == N - 1) {
                /* The C pipeline does not drop what the last stage
                 * returns: the item ends here. */
                clear(*s);
                release(s);
                return nullptr;
            }
            return s; /* dropped with its In (drop) */
        }
    }

    /* f(std::move(v)), or f(v) for a body that takes an In &. */
    template <class F, class T> static decltype(auto) invoke_item(F &f, T &v)
    {
        if constexpr (std::is_invocable_v<F &, T &&>)
            return std::invoke(f, std::move(v));
        else
            return std::invoke(f, v);
    }

    template <class T> static void destroy_as(void *p) noexcept
    {
        std::launder(static_cast<T *>(p))->~T();
    }
    template <class T> static void hold(slot &s, std::size_t buf) noexcept
    {
        s.destroy = &destroy_as<T>;
        s.live = s.buf[buf];
    }
    static void clear(slot &s) noexcept
    {
        if (s.destroy != nullptr)
            s.destroy(s.live);
        s.destroy = nullptr;
    }

    /* A free slot for the first stage: from its own list, refilled from
     * the shared one at once when empty. */
    slot *take() noexcept
    {
        if (own_ == nullptr)
            /* Acquire pairs with release()'s CAS: the pusher's writes to
             * the slot, its item's destruction included, come first. */
            own_ = free_.exchange(nullptr, std::memory_order_acquire);
        slot *s = own_;
        if (s != nullptr)
            own_ = s->next;
        return s;
    }
    void give_back(slot *s) noexcept
    {
        s->next = own_;
        own_ = s;
    }
    /* From any stage, several threads at once.  Only the first stage
     * takes from free_, and it takes everything, so a CAS push cannot
     * meet the ABA problem of a stack with several poppers. */
    void release(slot *s) noexcept
    {
        /* Relaxed: a first guess, which the CAS checks. */
        slot *head = free_.load(std::memory_order_relaxed);
        do
            s->next = head;
        /* Release: take()'s acquire exchange sees s->next and what was
         * done to the slot before; a failed CAS publishes nothing. */
        while (!free_.compare_exchange_weak(head, s, std::memory_order_release,
                                            std::memory_order_relaxed));
    }
    /* An item the C pipeline dropped after a failure (NULL: the first
     * stage made none). */
    static void drop(void *item, void *ctx)
    {
        if (item == nullptr)
            return;
        pipe *p = static_cast<pipe *>(ctx);
        clear(*static_cast<slot *>(item));
        p->release(static_cast<slot *>(item));
    }

    std::tuple<S &...> st_;
    exception_slot ex_;
    std::unique_ptr<slot[]> slots_;
    std::size_t nslots_ = 0;
    slot *own_ = nullptr; /* the first stage's free slots */
    std::atomic<slot *> free_{nullptr};
};

/* The wf_pool of a weft::pool given by the caller; a moved-from one has
 * none, and a NULL here would mean the default pool. */
inline wf_pool *pool_of(const pool &p)
{
    if (p.get() == nullptr)
        throw error(WF_EINVAL);
    return p.get();
}

template <class... S>
void run_pipeline(wf_pool *p, std::size_t max_tokens, std::tuple<S &...> st)
{
    pipe<S...>(st).run(p, max_tokens);
}

} // namespace detail

/* Join stages and pipelines, first to last (oneTBB's filter & filter):
 * a weft::pipeline of their stages, copied from lvalues, moved from
 * rvalues.  Whether each stage's Out is the next one's In is checked when
 * the pipeline runs. */
template <class A, class B,
          class = std::enable_if_t<detail::is_pipe_part<A> &&
                                   detail::is_pipe_part<B>>>
auto operator&(A &&a, B &&b)
{
    auto all = std::tuple_cat(detail::pipe_values(std::forward<A>(a)),
                              detail::pipe_values(std::forward<B>(b)));
    return std::apply(
        [](auto &&...s) {
            return pipeline<std::decay_t<decltype(s)>...>(
                std::make_tuple(std::move(s)...));
        },
        std::move(all));
}

/* Run the stages (stages, pipelines, or both, first to last: the pipeline
 * they make together) on pool p, at most max_tokens items in flight, and
 * return once the first stage has stopped and every item it made has
 * passed every stage (wf_parallel_pipeline, oneTBB's parallel_pipeline).
 * The calling thread takes part.  The first stage is serial; a
 * serial_in_order stage sees the items in the order the first stage made
 * them.  Items are the typed values the stages return, kept in
 * max_tokens slots made when the run starts (nothing is allocated per
 * item) and moved into each body; an item type may be move-only.
 *
 * The first exception a stage throws fails the pipeline: the first stage
 * is not called again, calls not yet started do not start, the items in
 * flight are destroyed, and this call throws that exception once the
 * calls under way have returned.  Throws weft::error for a C error:
 * WF_EINVAL (max_tokens 0, a parallel first stage), WF_ERANGE (max_tokens
 * above WF_PIPELINE_MAX_TOKENS), WF_ENOMEM. */
template <class... P>
void parallel_pipeline(pool &p, std::size_t max_tokens, P &&...parts)
{
    detail::run_pipeline(detail::pool_of(p), max_tokens,
                         std::tuple_cat(detail::pipe_refs(parts)...));
}
/* The same on the default pool. */
template <class... P>
void parallel_pipeline(std::size_t max_tokens, P &&...parts)
{
    detail::run_pipeline(nullptr, max_tokens,
                         std::tuple_cat(detail::pipe_refs(parts)...));
}

template <class... S>
void pool::parallel_pipeline(std::size_t max_tokens, S &&...stages)
{
    detail::run_pipeline(detail::pool_of(*this), max_tokens,
                         std::tuple_cat(detail::pipe_refs(stages)...));
}

/* ---- async tasks ---------------------------------------------------------- */

namespace detail
{

/* What an async task and its future share: the task's frame, its state,
 * and the result.  Two references, the future's and the submitted task's
 * (wf_submit's frame lives here until the task has run).
 *
 * Whoever comes first runs the callable: the pool's task, or a get() or
 * wait() that finds it not started (a claim by CAS, as ForkJoinTask's
 * join runs a task not yet taken).  The task frame claimed by a waiter
 * still runs later, and does nothing but let go of its reference.  A
 * waiter that finds the callable running on another thread yields a
 * little, then sleeps until it is done, having said so to the pool
 * (wf_blocking_begin): its private tasks are published, so the running
 * callable's thread may take them, and a spare worker keeps the pool's
 * threads busy meanwhile.  So a wait from a worker cannot deadlock the
 * pool: it runs the task itself, or another thread runs it.  It does not
 * run other tasks while it sleeps, as wf_join does: the pool's helping
 * wait (wf__wait_helping) is not public API. */
class async_base
{
  public:
    explicit async_base(wf_pool *p) noexcept : pool_(p)
    {
        frame_.self = this;
    }
    async_base(const async_base &) = delete;
    async_base &operator=(const async_base &) = delete;

    /* Submit the task (refs 2: the caller's and the task's). */
    int submit() noexcept
    {
        return wf_submit(pool_, &frame_.task, body);
    }
    bool ready() const noexcept
    {
        /* Acquire pairs with complete()'s release: the result is seen. */
        return state_.load(std::memory_order_acquire) == done;
    }
    /* Return once the callable has run (here, if nobody has started it;
     * else running the pool's other tasks meanwhile, as a join does). */
    void wait()
    {
        if (ready())
            return;
        if (claim()) {
            run_here();
            return;
        }
        int err = wf_pool_wait_until(
            pool_,
            [](const void *s) {
                return static_cast<const async_base *>(s)->ready();
            },
            this);
        while (err != 0 && !ready()) /* a pool from before a fork() */
            std::this_thread::yield();
    }
    /* Let go of one reference; the last frees the state. */
    void release() noexcept
    {
        /* Acq_rel, as a shared_ptr's count: each holder's release orders
         * its uses of the state before the last one's acquire and delete. */
        if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1)
            delete this;
    }

  protected:
    virtual ~async_base() = default;
    /* Run the callable and keep its result or exception; never throws. */
    virtual void invoke() noexcept = 0;
    /* Throw the task's exception, if any, taken out of the state: the
     * thread that catches it then holds every reference to it, so it is
     * freed there and not by whichever thread frees the state while the
     * handler may still read it (the reference count of std::exception_ptr
     * is the only order between the two, and it is not one that
     * ThreadSanitizer sees). */
    void rethrow()
    {
        if (ex_)
            std::rethrow_exception(std::exchange(ex_, nullptr));
    }

    std::exception_ptr ex_;

  private:
    enum { pending, claimed, done };
    struct frame {
        wf_task task; /* first: body casts back to the frame */
        async_base *self;
    };

    static void body(wf_task *t) noexcept
    {
        async_base *s = reinterpret_cast<frame *>(t)->self;
        if (s->claim())
            s->complete();
        s->release();
    }
    bool claim() noexcept
    {
        int expected = pending;
        /* One winner runs the callable.  Acq_rel: the winner sees the
         * state as the submitter left it (submit() came first, and the
         * pool's hand-off or the waiter's own thread orders that), and
         * the result itself is published by complete()'s release. */
        return state_.compare_exchange_strong(expected, claimed,
                                              std::memory_order_acq_rel);
    }
    void complete() noexcept
    {
        invoke();
        /* Release pairs with ready()'s acquire: the result comes first.
         * Then wake a waiter that sleeps in wf_pool_wait_until; the state
         * lives on (the task's own reference is dropped after this). */
        state_.store(done, std::memory_order_release);
        wf_pool_notify(pool_);
    }
    /* Claimed by a waiter: run it now, as a thread of the task's pool
     * (inline on one of its threads, else in a caller slot by wf_run), so
     * that what it spawns goes to that pool. */
    void run_here() noexcept
    {
        if (wf_current_pool() == pool_)
            complete();
        else if (wf_run(
                     pool_,
                     [](void *s) { static_cast<async_base *>(s)->complete(); },
                     this) != 0)
            complete(); /* a pool from before a fork(): here rather than never */
    }

    frame frame_{};
    wf_pool *pool_;
    std::atomic<int> state_{pending};
    std::atomic<int> refs_{2};
};

/* The result of an async task: a T or an exception. */
template <class T> class async_value : public async_base
{
  public:
    using async_base::async_base;
    /* After wait(): the value, or throw the exception. */
    T take()
    {
        rethrow();
        return std::move(*value_);
    }

  protected:
    std::optional<T> value_;
};
template <> class async_value<void> : public async_base
{
  public:
    using async_base::async_base;
    void take()
    {
        rethrow();
    }
};

template <class T, class F> class async_task final : public async_value<T>
{
  public:
    async_task(wf_pool *p, F f) : async_value<T>(p), f_(std::move(f))
    {
    }

  private:
    void invoke() noexcept override
    {
        try {
            if constexpr (std::is_void_v<T>)
                f_();
            else
                this->value_.emplace(f_());
        } catch (...) {
            this->ex_ = std::current_exception();
        }
    }
    F f_;
};

/* A silent_async task: its frame and callable, freed when it has run. */
template <class F> class silent_task
{
  public:
    explicit silent_task(F f) : f_(std::move(f))
    {
        frame_.self = this;
    }
    int submit(wf_pool *p) noexcept
    {
        return wf_submit(p, &frame_.task, body);
    }

  private:
    struct frame {
        wf_task task; /* first: body casts back to the frame */
        silent_task *self;
    };
    /* noexcept: an exception nobody can receive terminates the program, as
     * one that leaves a std::thread's function does. */
    static void body(wf_task *t) noexcept
    {
        std::unique_ptr<silent_task> s(reinterpret_cast<frame *>(t)->self);
        s->f_();
    }

    frame frame_{};
    F f_;
};

/* The key of future's constructor from a state. */
struct async_tag {
};

inline wf_pool *pool_or_default(wf_pool *p)
{
    if (p == nullptr && (p = wf_pool_default()) == nullptr)
        throw error(WF_EAGAIN);
    return p;
}

} // namespace detail

/* The result of weft::async (as std::future): get() waits for the task
 * and returns its value or throws its exception, once.  Movable, not
 * copyable.  Waiting runs the task on the waiting thread when no thread
 * has started it, and otherwise runs the pool's other tasks until it is
 * done (wf_pool_wait_until: as a worker, or in a caller slot; it sleeps
 * only when there is nothing to run), so a task of the pool may wait for
 * a future without deadlock or an idle worker.  The destructor does not wait:
 * a task whose future is gone still runs, and the pool's wait_idle or
 * destruction waits for it. */
template <class T> class future
{
  public:
    /* A future with no task: valid() is false. */
    future() noexcept = default;
    /* The future of state s (weft::async makes it). */
    future(detail::async_tag, detail::async_value<T> *s) noexcept : s_(s)
    {
    }
    future(future &&o) noexcept : s_(std::exchange(o.s_, nullptr))
    {
    }
    future &operator=(future &&o) noexcept
    {
        if (this != &o) {
            reset();
            s_ = std::exchange(o.s_, nullptr);
        }
        return *this;
    }
    future(const future &) = delete;
    future &operator=(const future &) = delete;
    ~future()
    {
        reset();
    }

    /* True until get() (or a move from this future). */
    bool valid() const noexcept
    {
        return s_ != nullptr;
    }
    /* True once the task has run; never blocks.  Throws weft::error
     * (WF_ESTATE) when not valid(). */
    bool is_ready() const
    {
        return state().ready();
    }
    /* Wait until the task has run (on this thread, when none has started
     * it).  Throws weft::error (WF_ESTATE) when not valid(). */
    void wait() const
    {
        state().wait();
    }
    /* wait(), then the task's value (moved out), or throw what the task
     * threw.  The future is then not valid().  Throws weft::error
     * (WF_ESTATE) when not valid(). */
    T get()
    {
        wait();
        struct releaser {
            detail::async_value<T> *s;
            ~releaser()
            {
                s->release();
            }
        } r{std::exchange(s_, nullptr)};
        return r.s->take();
    }

  private:
    detail::async_value<T> &state() const
    {
        if (s_ == nullptr)
            throw error(WF_ESTATE);
        return *s_;
    }
    void reset() noexcept
    {
        if (s_ != nullptr)
            std::exchange(s_, nullptr)->release();
    }

    detail::async_value<T> *s_ = nullptr;
};

namespace detail
{

template <class F>
using async_result_t = std::decay_t<std::invoke_result_t<std::decay_t<F> &>>;

template <class F> future<async_result_t<F>> start_async(wf_pool *p, F &&f)
{
    using T = async_result_t<F>;
    p = pool_or_default(p);
    auto *s = new async_task<T, std::decay_t<F>>(p, std::forward<F>(f));
    int err = s->submit();
    if (err != 0) {
        s->release(); /* the task's reference, and the caller's: */
        s->release(); /* nothing else has seen it */
        throw error(err);
    }
    return future<T>(async_tag{}, s);
}

template <class F> void start_silent(wf_pool *p, F &&f)
{
    p = pool_or_default(p);
    auto s = std::make_unique<silent_task<std::decay_t<F>>>(std::forward<F>(f));
    check(s->submit(p));
    s.release(); /* the task frees itself once it has run */
}

} // namespace detail

/* Run f() as a task of pool p (wf_submit), and return the future of its
 * result (std::decay_t of what f returns; void too).  Any thread: from a
 * worker of p the task goes on that worker's own queue, from elsewhere to
 * p's submission queue.  One allocation (the task, the callable and the
 * result).  future::get() gives the value or throws what f threw.  On a
 * pool of one thread (no background worker) the task runs when a thread
 * waits: its future's get() or wait(), or the pool's wait_idle().  Throws
 * weft::error for wf_submit's errors, std::bad_alloc. */
template <class F> future<detail::async_result_t<F>> async(pool &p, F &&f)
{
    return detail::start_async(detail::pool_of(p), std::forward<F>(f));
}
/* The same on the default pool. */
template <class F> future<detail::async_result_t<F>> async(F &&f)
{
    return detail::start_async(nullptr, std::forward<F>(f));
}

/* Run f() as a task of pool p and keep no future (Taskflow's
 * silent_async): the task is never lost, but nothing here waits for it.
 * What does: p.wait_idle(), which waits for every task submitted to p,
 * and p's destruction, which runs or waits for them first (the default
 * pool is never destroyed: wait_idle() it before the program ends).  f
 * must not throw: nobody could receive the exception, so it terminates
 * the program, as one that leaves a std::thread's function does.  One
 * allocation, freed once f has run.  Throws weft::error for wf_submit's
 * errors, std::bad_alloc. */
template <class F> void silent_async(pool &p, F &&f)
{
    detail::start_silent(detail::pool_of(p), std::forward<F>(f));
}
/* The same on the default pool. */
template <class F> void silent_async(F &&f)
{
    detail::start_silent(nullptr, std::forward<F>(f));
}

} // namespace weft

#endif /* WEFT_HPP */
