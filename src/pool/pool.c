/* SPDX-License-Identifier: Apache-2.0 */
/* Pool lifecycle, the default pool, configuration and statistics. */
#include <limits.h>
#include <string.h>

#include "internal/base/env.h"
#include "internal/pool/debug.h"
#include "internal/pool/notify.h"
#include "internal/pool/self.h"
#include "internal/pool/stack.h"
#include "internal/pool/typed.h"
#include "internal/pool/worker.h"
#include "internal/trace.h"

#define WF_DEFAULT_SPIN 1024u
#define WF_DEFAULT_CAPACITY 64u
#define WF_DEFAULT_SPARES 256u
#define WF_MAX_CAPACITY ((size_t)1 << 30)

/* Fill in defaults and check ranges. */
static int resolve_config(const wf_pool_config *in, wf_pool_config *out)
{
    *out = in ? *in : (wf_pool_config)WF_POOL_CONFIG_INIT;
    if (out->alloc && (!out->alloc->alloc || !out->alloc->free))
        return WF_EINVAL;
    if (out->threads == 0)
        out->threads = wf__env_uint("WEFT_NUM_THREADS", 0, WF_MAX_THREADS);
    /* From the CPU count, at least one background worker: then a task
     * submitted and not waited for (wf_submit) runs without a caller.  A
     * pool of 1, asked for, runs its tasks only in the threads that wait
     * on it, as oneTBB's arena of one slot does. */
    if (out->threads == 0) {
        unsigned cpus = wf__available_cpus(); /* reads cgroup files */
        out->threads = cpus > 1 ? cpus : 2;
    }
    if (out->spin == 0)
        out->spin = wf__env_uint("WEFT_SPIN", WF_DEFAULT_SPIN, WF_MAX_SPIN);
    if (out->deque_capacity == 0)
        out->deque_capacity = WF_DEFAULT_CAPACITY;
    if (out->max_spares == 0)
        out->max_spares = WF_DEFAULT_SPARES;
    if (out->threads > WF_MAX_THREADS || out->spin > WF_MAX_SPIN ||
        out->max_spares > WF_MAX_SPARES ||
        out->deque_capacity > WF_MAX_CAPACITY)
        return WF_ERANGE;
    return 0;
}

/* A variable's value for the display, "unset" when there is none. */
static const char *env_shown(const char *name)
{
    const char *v = getenv(name);
    return v ? v : "unset";
}

static const char *on_off(bool on)
{
    return on ? "on" : "off";
}

/* WEFT_DISPLAY_ENV=1: the first pool's effective settings, each with the
 * variable it came from: the sizes, and the modes that change what a run
 * checks, costs or prints (debug, statistics, trace, graph counts), so
 * that a log says how its run was made. */
static void display_env_once(const wf_pool *p)
{
    static _Atomic int shown;
    if (wf__env_uint("WEFT_DISPLAY_ENV", 0, 1) == 0 ||
        wf_exchange_relaxed(&shown, 1)) /* elects one printer (P11) */
        return;
    const wf_pool_config *c = &p->cfg;
    /* Read as graph.c reads it when the first graph is made. */
    bool counts = wf__env_uint("WEFT_GRAPH_COUNTS", 0, 1) != 0;
    fprintf(stderr,
            "weft: threads=%u (WEFT_NUM_THREADS=%s, cpus available=%u)\n"
            "weft: deque_capacity=%zu spin=%u stack_size=%zu%s\n"
            "weft: debug=%s (WEFT_DEBUG=%s) stats=%s (WEFT_STATS=%s)\n"
            "weft: trace=%s (WEFT_TRACE=%s) graph_counts=%s "
            "(WEFT_GRAPH_COUNTS=%s)\n",
            c->threads, env_shown("WEFT_NUM_THREADS"), wf__available_cpus(),
            c->deque_capacity, c->spin, c->stack_size,
            c->stack_size ? "" : " (system default)", on_off(p->debug),
            env_shown("WEFT_DEBUG"), on_off(p->print_stats),
            env_shown("WEFT_STATS"), on_off(wf__trace_enabled()),
            env_shown("WEFT_TRACE"), on_off(counts),
            env_shown("WEFT_GRAPH_COUNTS"));
}

static size_t slots_bytes(const wf_pool *p)
{
    return (size_t)(p->first_spare + p->max_spares) * sizeof *p->workers;
}

static void free_workers(wf_pool *p)
{
    if (p->workers == NULL) /* creation failed before the array existed */
        return;
    for (unsigned i = 0, n = wf__nslots(p); i < n; i++) {
        wf__worker *w = p->workers[i];
        if (w == NULL)
            continue;
        wf__stack_destroy(w);
        wf__tseg_destroy(w);
        wf__records_free(w);
        wf_deque_destroy(&w->deque);
        wf__free_aligned(&p->alloc, w->mem, sizeof *w);
    }
    wf__free(&p->alloc, p->workers, slots_bytes(p));
}

/* WEFT_STATS, below */
static void print_stats(wf_pool *p);
static void print_default_stats(void);

static void free_pool(wf_pool *p)
{
    free_workers(p);
    pthread_mutex_destroy(&p->submit.lock);
    pthread_mutex_destroy(&p->idle_lock);
    pthread_mutex_destroy(&p->spare_lock);
    pthread_cond_destroy(&p->idle_cond);
    wf_allocator a = p->alloc;
    wf__free_aligned(&a, p->mem, sizeof *p);
}

static int make_workers(wf_pool *p)
{
    p->workers = wf__alloc(&p->alloc, slots_bytes(p));
    if (p->workers == NULL)
        return WF_ENOMEM;
    memset(p->workers, 0, slots_bytes(p));
    for (unsigned i = 0; i < p->first_spare; i++) {
        int err = wf__worker_create(p, i);
        if (err)
            return err;
        /* No thread runs yet: relaxed. */
        wf_store_relaxed(&p->nslots, i + 1);
    }
    return 0;
}

/* Stop and join the threads that started. */
static void stop_workers(wf_pool *p)
{
    /* Relaxed: a worker that sees it only stops; the wake below (its
     * release increment of the epoch, P11) carries it to parked workers,
     * spare_lock to start_spare, and pthread_join orders the rest. */
    wf_store_relaxed(&p->shutdown, 1);
    wf__wake_all(p);
    pthread_mutex_lock(&p->spare_lock); /* no spare starts from now on */
    for (unsigned i = 0, n = wf__nslots(p); p->workers && i < n; i++)
        if (p->workers[i] && p->workers[i]->started) {
            pthread_join(p->workers[i]->thread, NULL);
            p->workers[i]->started = false;
        }
    pthread_mutex_unlock(&p->spare_lock);
}

static int start_workers(wf_pool *p)
{
    int err = 0;
    for (unsigned i = 0; i < p->n && !err; i++)
        err = wf__worker_start(p->workers[i]);
    return err;
}

static void watch_fork(void);

/* A trace's name for the calling thread (internal/trace.h): a background
 * worker's or a spare's index; -1 for any other thread, one in a caller
 * slot too, which is the user's. */
static int trace_thread_index(void)
{
    wf__worker *w = wf__current();
    return w && !w->caller ? (int)w->index : -1;
}

int wf_pool_create(wf_pool **out, const wf_pool_config *cfg)
{
    if (out == NULL)
        return WF_EINVAL;
    wf_pool_config c;
    int err = resolve_config(cfg, &c);
    if (err)
        return err;
    void *raw;
    wf_pool *p = wf__alloc_aligned(c.alloc, sizeof *p, &raw);
    if (p == NULL)
        return WF_ENOMEM;
    memset(p, 0, sizeof *p);
    p->mem = raw;
    p->cfg = c;
    p->alloc = c.alloc ? *c.alloc : (wf_allocator){0};
    /* The caller's allocator may live in a frame that returns before a
     * spare is started: keep only the copy. */
    p->cfg.alloc = c.alloc ? &p->alloc : NULL;
    static pthread_once_t fork_once = PTHREAD_ONCE_INIT;
    pthread_once(&fork_once, watch_fork);
    p->generation = wf__fork_gen;
    p->threads = c.threads;
    p->n = c.threads - 1; /* the thread that waits is the last one */
    p->first_spare = p->n + WF_CALLER_SLOTS;
    p->max_spares = c.max_spares;
    p->spin = c.spin;
    p->debug = wf__debug();
    p->print_stats = wf__env_uint("WEFT_STATS", 0, 1) != 0;
    wf__trace_thread_namer(trace_thread_index); /* before any thread */
    wf__trace_env();                            /* WEFT_TRACE */
    display_env_once(p);
    pthread_mutex_init(&p->submit.lock, NULL);
    pthread_mutex_init(&p->spare_lock, NULL);
    pthread_mutex_init(&p->idle_lock, NULL);
    pthread_cond_init(&p->idle_cond, NULL);
    err = make_workers(p);
    if (!err)
        err = start_workers(p);
    if (err) {
        stop_workers(p);
        free_pool(p);
        return err;
    }
    *out = p;
    return 0;
}

int wf_pool_destroy(wf_pool *pool)
{
    if (pool == NULL)
        return 0;
    if (pool->is_default || wf_current_pool() == pool)
        return WF_EPERM;
    if (wf__pool_forked(pool))
        return WF_ESTATE; /* its threads are the parent's: leave it */
    /* The graphs made before this call, in the caller's order (P11):
     * relaxed, the count publishes nothing. */
    if (wf_load_relaxed(&pool->graphs) > 0)
        return WF_EBUSY; /* a graph still uses it: destroy the graph first */
    wf_pool_wait_idle(pool);
    if (pool->print_stats)
        print_stats(pool);
    stop_workers(pool);
    free_pool(pool);
    return 0;
}

/* The default pool, made on first use in each process; NULL when it could
 * not be made (and not tried again in that process). */
static wf_pool *_Atomic default_pool;
static unsigned default_tried_gen = UINT_MAX; /* under default_lock */
static pthread_mutex_t default_lock = PTHREAD_MUTEX_INITIALIZER;

static void after_fork_in_child(void)
{
    wf__fork_gen++;
    /* Another thread of the parent may have held it: not in this process. */
    default_lock = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER;
}

static void watch_fork(void)
{
    pthread_atfork(NULL, NULL, after_fork_in_child);
}

wf_pool *wf_pool_default(void)
{
    /* Acquire pairs with the release store below: the pool is made
     * (P11). */
    wf_pool *p = wf_load_acquire(&default_pool);
    if (p && !wf__pool_forked(p))
        return p;
    pthread_mutex_lock(&default_lock);
    if (default_tried_gen != wf__fork_gen) {
        default_tried_gen = wf__fork_gen;
        wf_pool *made = NULL;
        int err = wf_pool_create(&made, NULL);
        if (err == 0) {
            made->is_default = true;
            if (made->print_stats) /* it is never destroyed */
                atexit(print_default_stats);
        } else { /* once per process: say why, as nothing else will */
            fprintf(stderr,
                    "weft: the default pool could not be made: %s "
                    "(%s); wf_spawn from outside a pool runs tasks "
                    "inline, and wf_pool_default() is NULL\n",
                    wf_strerror(err), wf_err_name(err));
        }
        /* Release pairs with the acquire loads above: the pool is made
         * (P11). */
        wf_store_release(&default_pool, made);
    }
    p = wf_load_relaxed(&default_pool); /* under the lock, which orders it */
    pthread_mutex_unlock(&default_lock);
    return p;
}

/* Snapshots of the counters: relaxed loads, each of one writer's counter
 * (P4) or of a count ordered with nothing (given).  How they add up:
 * wf__counters in internal/pool/types.h. */
static void stats_of(wf__worker *w, wf_worker_stats *out)
{
    wf__counters *c = &w->stats;
    uint64_t spawns = wf_load_relaxed(&c->spawns);
    uint64_t unjoined = wf_load_relaxed(&c->run_unjoined);
    *out = (wf_worker_stats){
        .spawns = spawns + unjoined + wf_load_relaxed(&w->given),
        .tasks_run = spawns - wf_load_relaxed(&c->lost) +
                     wf_load_relaxed(&c->run_stolen) + unjoined,
        .steals = wf_load_relaxed(&c->steals),
        .failed_steals = wf_load_relaxed(&c->failed_steals),
        .publishes = wf_load_relaxed(&c->publishes),
        .parks = wf_load_relaxed(&c->parks),
        .wakes = wf_load_relaxed(&c->wakes),
    };
}

int wf_pool_stats(wf_pool *pool, wf_worker_stats *out, size_t n)
{
    if (pool == NULL || (out == NULL && n > 0))
        return WF_EINVAL;
    unsigned slots = wf__nslots(pool);
    for (size_t i = 0; i < n && i < slots; i++)
        stats_of(pool->workers[i], &out[i]);
    return (int)slots;
}

/* ---- WEFT_STATS=1: each pool's counters on stderr when it ends --------- */

/* "worker 0", "caller 1", "spare 0": slot i's name. */
static void slot_name(const wf_pool *p, unsigned i, char *out, size_t n)
{
    if (i < p->n)
        snprintf(out, n, "worker %u", i);
    else if (i < p->first_spare)
        snprintf(out, n, "caller %u", i - p->n);
    else
        snprintf(out, n, "spare %u", i - p->first_spare);
}

static void print_row(const char *name, const wf_worker_stats *s)
{
    fprintf(stderr,
            "weft:   %-10s %12llu %12llu %10llu %13llu %10llu "
            "%8llu %8llu\n",
            name, (unsigned long long)s->spawns,
            (unsigned long long)s->tasks_run, (unsigned long long)s->steals,
            (unsigned long long)s->failed_steals,
            (unsigned long long)s->publishes, (unsigned long long)s->parks,
            (unsigned long long)s->wakes);
}

static void add_stats(wf_worker_stats *sum, const wf_worker_stats *s)
{
    sum->spawns += s->spawns;
    sum->tasks_run += s->tasks_run;
    sum->steals += s->steals;
    sum->failed_steals += s->failed_steals;
    sum->publishes += s->publishes;
    sum->parks += s->parks;
    sum->wakes += s->wakes;
}

/* A slot that never did anything (a caller slot nobody took) is left
 * out; the total counts every slot. */
static void print_stats(wf_pool *p)
{
    fprintf(stderr,
            "weft: %s pool of %u threads (WEFT_STATS):\n"
            "weft:   slot             spawns    tasks run     steals "
            "failed steals  publishes    parks    wakes\n",
            p->is_default ? "the default" : "a", p->threads);
    wf_worker_stats total = {0}, s;
    for (unsigned i = 0, n = wf__nslots(p); i < n; i++) {
        stats_of(p->workers[i], &s);
        add_stats(&total, &s);
        char name[24];
        slot_name(p, i, name, sizeof name);
        if (s.tasks_run || s.failed_steals || s.parks)
            print_row(name, &s);
    }
    print_row("total", &total);
}

static void print_default_stats(void)
{
    /* Relaxed: this handler was registered by the thread that made the
     * pool, after it made it, and exit() runs the handlers it finds in
     * the C library's list, which every thread shares and which orders a
     * registration before its call (glibc takes __exit_funcs_lock on
     * both sides); the pool is made before the handler runs (P11). */
    wf_pool *p = wf_load_relaxed(&default_pool);
    if (p && !wf__pool_forked(p))
        print_stats(p);
}
