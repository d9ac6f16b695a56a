/* SPDX-License-Identifier: Apache-2.0 */
/* pool_blocking: wf_blocking_begin / wf_blocking_end and spare workers.
 *
 * The core case: N tasks each enter a blocking section and wait at a
 * rendezvous that opens only when all N have arrived.  With N larger than
 * the pool, this completes only if the pool starts spare workers for the
 * blocked ones.  The rendezvous gives up after WAIT_LIMIT seconds with a
 * message (how many arrived), so a missing spare fails the test instead of
 * hanging it.
 *
 * ARGS: one scenario name, or none for all.
 *   barrier     pools of 1 and 2 threads, N = threads + 2, the tasks coming
 *               from a group spawned outside, a group spawned inside a
 *               worker, parallel_for and wf_submit: completes, and
 *               wf_pool_stats then counts more slots than the pool's own
 *               (threads - 1 workers and WF_CALLER_SLOTS).
 *   bounded     max_spares = 2 on 1 thread: a rendezvous of 3 completes,
 *               and 50 blocking tasks never make more than the pool's own
 *               slots + max_spares (wf_pool_stats' count, sampled from
 *               blocked tasks too); max_spares = 1 on 2 threads likewise.
 *   reuse       8 phases in a row with max_spares = 4, all spare threads
 *               gone between phases: retired slots are reused.
 *   retire      spare threads exit once the pool is idle (counted in
 *               /proc/self/task), including a spare that parked while the
 *               worker it replaced was still blocked (regression: it slept
 *               forever).
 *   trickle     a surplus spare retires while tiny tasks keep arriving
 *               (the pool never idle), not only once the pool is idle;
 *   stream      the same with more work than the threads can take.
 *   nesting     begin, begin, end, end: the worker counts as blocked until
 *               the outer end (a rendezvous of 3 on 1 worker completes).
 *   outside     begin / end from a thread that is no worker: 0, no spare.
 *   destroy     destroy right after a blocking phase, spares still alive,
 *               and after they parked: everything freed (test_alloc, ASan).
 *   frame_alloc the config's allocator lived in a frame that has returned
 *               (and been overwritten) when spares start: they allocate
 *               through the pool's own copy (regression).
 *   index       wf_worker_index() is past the pool's own slots on spares,
 *               below wf_pool_stats' count.
 *   spare_start_failure  a spare whose thread cannot start: begin says so
 *               (WF_EAGAIN) and the task still runs; later spares still
 *               start, and no thread that never started is joined
 *               (regression; normal build only). */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "test_alloc.h"

#define WAIT_LIMIT 20.0 /* seconds; well below the ctest TIMEOUT */

/* ---- a rendezvous that opens when `need` threads have arrived ----------- */
typedef struct {
    pthread_mutex_t m;
    pthread_cond_t c;
    int need, arrived;
} rendezvous;

static void rv_init(rendezvous *r, int need)
{
    CHECK(pthread_mutex_init(&r->m, NULL) == 0);
    CHECK(pthread_cond_init(&r->c, NULL) == 0);
    r->need = need;
    r->arrived = 0;
}

static void rv_destroy(rendezvous *r)
{
    pthread_cond_destroy(&r->c);
    pthread_mutex_destroy(&r->m);
}

/* Arrive and wait for the others; fail after WAIT_LIMIT seconds. */
static void rv_wait(rendezvous *r)
{
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += (time_t)WAIT_LIMIT;
    pthread_mutex_lock(&r->m);
    if (++r->arrived == r->need)
        pthread_cond_broadcast(&r->c);
    while (r->arrived < r->need) {
        int err = pthread_cond_timedwait(&r->c, &r->m, &deadline);
        CHECK_MSG(err != ETIMEDOUT,
                  "deadlock: %d of %d blocked tasks arrived after %.0f s "
                  "(not enough spare workers)",
                  r->arrived, r->need, WAIT_LIMIT);
    }
    pthread_mutex_unlock(&r->m);
}

/* ---- what each blocking task does --------------------------------------- */
enum { MAXN = 64 };

typedef struct {
    wf_pool *pool;
    rendezvous rv;
    unsigned max_slots; /* 0: no bound to check */
    _Atomic int visits[MAXN];
    _Atomic int min_index, max_index; /* wf_worker_index() seen */
} phase;

static int slots(wf_pool *p)
{
    int n = wf_pool_stats(p, NULL, 0);
    CHECK(n > 0);
    return n;
}

/* The slots a pool of `threads` has before any spare: its background
 * workers and the caller slots. */
static int own_slots(unsigned threads)
{
    return (int)threads - 1 + WF_CALLER_SLOTS;
}

static void check_slot_bound(phase *ph)
{
    if (ph->max_slots)
        CHECK_MSG(slots(ph->pool) <= (int)ph->max_slots,
                  "%d slots exist, more than the pool's + max_spares = %u",
                  slots(ph->pool), ph->max_slots);
}

static void note_index(phase *ph)
{
    int idx = wf_worker_index();
    int lo = atomic_load(&ph->min_index), hi = atomic_load(&ph->max_index);
    while (idx < lo && !atomic_compare_exchange_weak(&ph->min_index, &lo, idx))
        ;
    while (idx > hi && !atomic_compare_exchange_weak(&ph->max_index, &hi, idx))
        ;
}

/* Task i of a phase: block at the rendezvous inside a blocking section. */
static void visit(phase *ph, size_t i)
{
    CHECK_MSG(wf_current_pool() == ph->pool, "task %zu ran off its pool", i);
    note_index(ph);
    CHECK_OK(wf_blocking_begin());
    check_slot_bound(ph);
    rv_wait(&ph->rv);
    check_slot_bound(ph);
    CHECK_OK(wf_blocking_end());
    note_index(ph);
    atomic_fetch_add(&ph->visits[i], 1);
}

/* The same tasks reach the pool four ways. */
enum { FROM_GROUP_OUTSIDE, FROM_GROUP_INSIDE, FROM_FOR, FROM_SUBMIT, NFROM };
static const char *const from_name[NFROM] = {"group outside", "group inside",
                                             "parallel_for", "submit"};

typedef struct {
    wf_group_task gt; /* first member */
    phase *ph;
    size_t i;
} visit_task;

static int visit_group_task(wf_group_task *t)
{
    visit_task *v = (visit_task *)t;
    visit(v->ph, v->i);
    return 0;
}

static void visit_submitted(wf_task *t)
{
    visit_task *v = (visit_task *)t; /* gt.task is the first member */
    visit(v->ph, v->i);
}

static void visit_range(size_t b, size_t e, void *ctx)
{
    for (size_t i = b; i < e; i++)
        visit(ctx, i);
}

static void group_of_visits(phase *ph, int n)
{
    wf_group g;
    visit_task t[MAXN];
    CHECK_OK(wf_group_init(&g, ph->pool, NULL));
    for (int i = 0; i < n; i++) {
        t[i] = (visit_task){.ph = ph, .i = (size_t)i};
        CHECK_OK(wf_group_spawn(&g, &t[i].gt, visit_group_task));
    }
    CHECK_OK(wf_group_wait(&g));
}

typedef struct {
    phase *ph;
    int n;
} group_job;

static void group_job_fn(void *arg)
{
    group_job *j = arg;
    group_of_visits(j->ph, j->n);
}

/* n tasks, each blocked until all n arrive; every one runs exactly once. */
static void run_phase(wf_pool *p, int n, int from, unsigned max_slots,
                      int index_range[2])
{
    CHECK(n <= MAXN);
    phase *ph = calloc(1, sizeof *ph);
    CHECK(ph != NULL);
    ph->pool = p;
    ph->max_slots = max_slots;
    atomic_store(&ph->min_index, INT_MAX);
    atomic_store(&ph->max_index, INT_MIN);
    rv_init(&ph->rv, n);
    switch (from) {
    case FROM_GROUP_OUTSIDE: group_of_visits(ph, n); break;
    case FROM_GROUP_INSIDE: {
        group_job j = {ph, n};
        CHECK_OK(wf_run(p, group_job_fn, &j));
        break;
    }
    case FROM_FOR:
        CHECK_OK(wf_parallel_for(p, 0, (size_t)n, 1, visit_range, ph));
        break;
    case FROM_SUBMIT: {
        visit_task t[MAXN];
        for (int i = 0; i < n; i++) {
            t[i] = (visit_task){.ph = ph, .i = (size_t)i};
            CHECK_OK(wf_submit(p, &t[i].gt.task, visit_submitted));
        }
        CHECK_OK(wf_pool_wait_idle(p));
        break;
    }
    }
    for (int i = 0; i < n; i++)
        CHECK_MSG(atomic_load(&ph->visits[i]) == 1,
                  "task %d of %d (%s) ran %d times", i, n, from_name[from],
                  atomic_load(&ph->visits[i]));
    if (index_range) {
        index_range[0] = atomic_load(&ph->min_index);
        index_range[1] = atomic_load(&ph->max_index);
    }
    rv_destroy(&ph->rv);
    free(ph);
}

static wf_pool *make_spare_pool(unsigned threads, unsigned max_spares,
                                const wf_allocator *alloc)
{
    wf_pool_config cfg = WF_POOL_CONFIG_INIT;
    cfg.threads = threads;
    cfg.max_spares = max_spares;
    cfg.alloc = alloc;
    wf_pool *p = NULL;
    CHECK_OK(wf_pool_create(&p, &cfg));
    return p;
}

/* Threads of this process now (the kernel's count: exited spares gone). */
static int thread_count(void)
{
    DIR *d = opendir("/proc/self/task");
    CHECK(d != NULL);
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        if (e->d_name[0] != '.')
            n++;
    closedir(d);
    return n;
}

/* ---- scenarios ----------------------------------------------------------- */

static void scenario_barrier(void)
{
    for (unsigned threads = 1; threads <= 2; threads++) {
        wf_pool *p = make_spare_pool(threads, 0, NULL);
        CHECK_EQ(slots(p), own_slots(threads));
        for (int from = 0; from < NFROM; from++) {
            double t0 = check_now();
            run_phase(p, (int)threads + 2, from, 0, NULL);
            CHECK_MSG(slots(p) > own_slots(threads),
                      "%d workers after %u blocked: no spare was started",
                      slots(p), threads + 2);
            printf("barrier: %u workers, %u tasks, %s: %.3f s, %d slots\n",
                   threads, threads + 2, from_name[from], check_now() - t0,
                   slots(p));
        }
        CHECK_OK(wf_pool_destroy(p));
    }
}

/* A blocking task that does not wait for others: sleeps 0.5 ms. */
static void sleepy_range(size_t b, size_t e, void *ctx)
{
    phase *ph = ctx;
    for (size_t i = b; i < e; i++) {
        CHECK_OK(wf_blocking_begin());
        check_slot_bound(ph);
        usleep(500);
        CHECK_OK(wf_blocking_end());
        atomic_fetch_add(&ph->visits[i], 1);
    }
}

static void check_bounded(unsigned threads, unsigned max_spares)
{
    wf_pool *p = make_spare_pool(threads, max_spares, NULL);
    unsigned bound = (unsigned)own_slots(threads) + max_spares;
    /* A rendezvous that needs every thread the bound allows (the workers,
     * the waiting caller and every spare), 3 times from each source: the
     * slots of retired spares are reused. */
    for (int round = 0; round < 3; round++)
        for (int from = 0; from < NFROM; from++) {
            run_phase(p, (int)(threads + max_spares), from, bound, NULL);
            CHECK(slots(p) <= (int)bound);
        }
    /* Many blocking tasks at once: never more than the bound. */
    phase ph = {.pool = p, .max_slots = bound};
    CHECK_OK(wf_parallel_for(p, 0, 50, 1, sleepy_range, &ph));
    for (int i = 0; i < 50; i++)
        CHECK_EQ(atomic_load(&ph.visits[i]), 1);
    CHECK_MSG(slots(p) <= (int)bound && slots(p) > own_slots(threads),
              "%d slots, bound %u", slots(p), bound);
    printf("bounded: %u threads, max_spares %u: %d slots\n", threads,
           max_spares, slots(p));
    CHECK_OK(wf_pool_destroy(p));
}

static void scenario_bounded(void)
{
    check_bounded(1, 2);
    check_bounded(2, 1);
}

/* Wait until the process is back to `baseline` threads. */
static void nop(void *arg)
{
    (void)arg;
}

/* Wait until the process is back to `baseline` threads.  With nudge, each
 * round also runs an empty task on p: its submission wakes a parked
 * worker, and a spare that wakes to an idle pool retires. */
static void wait_spares_retired(wf_pool *p, int baseline, const char *when,
                                double limit, int nudge)
{
    double t0 = check_now();
    while (thread_count() > baseline) {
        CHECK_MSG(check_now() - t0 < limit,
                  "%s: %d spare threads still alive after %.1f s idle", when,
                  thread_count() - baseline, limit);
        if (nudge)
            CHECK_OK(wf_run(p, nop, NULL));
        usleep(1000);
    }
}

/* Blocking phases back to back, each followed by the exit of every spare
 * thread.  max_spares 4 is all one phase of 6 may use, so later phases
 * complete only if the retired spares' slots are reused.  nudge: wake
 * parked spares (see wait_spares_retired); without it, spares must retire
 * on their own once the pool is idle. */
static void blocking_phases(int nudge)
{
    wf_pool *p = make_spare_pool(2, 4, NULL);
    int baseline = thread_count();
    for (int phase_no = 0; phase_no < 8; phase_no++) {
        run_phase(p, 6, phase_no % NFROM, own_slots(2) + 4, NULL);
        CHECK(slots(p) > own_slots(2) && slots(p) <= own_slots(2) + 4);
        char when[64];
        snprintf(when, sizeof when, "after phase %d (%s)", phase_no,
                 from_name[phase_no % NFROM]);
        wait_spares_retired(p, baseline, when, nudge ? WAIT_LIMIT : 2.0, nudge);
    }
    CHECK_OK(wf_pool_destroy(p));
}

/* Nudged, because a spare that parked while its worker was blocked never
 * wakes on its own (scenario retire). */
static void scenario_reuse(void)
{
    blocking_phases(1);
    printf("reuse: ok\n");
}

/* A spare that finds no work while the worker it replaces is still
 * blocked parks (it is still needed).  Once that worker's blocking section
 * ends and the pool is idle, the spare must retire.  Deterministic: the
 * spare's park is seen in its statistics before the section ends. */
typedef struct {
    wf_task task;
    _Atomic int release;
} parked_task;

static void block_until_released(wf_task *t)
{
    parked_task *b = (parked_task *)t;
    CHECK_OK(wf_blocking_begin());
    double t0 = check_now();
    while (!atomic_load(&b->release)) {
        CHECK_MSG(check_now() - t0 < WAIT_LIMIT, "never released");
        usleep(100);
    }
    CHECK_OK(wf_blocking_end());
}

static void scenario_retire(void)
{
    /* Two threads: the background worker runs the submitted task. */
    wf_pool *p = make_spare_pool(2, 4, NULL);
    int baseline = thread_count();
    parked_task b = {.release = 0};
    CHECK_OK(wf_submit(p, &b.task, block_until_released));
    enum { SPARE = 2 - 1 + WF_CALLER_SLOTS }; /* the first spare's slot */
    wf_worker_stats st[SPARE + 1];
    double t0 = check_now();
    for (;;) { /* until the spare has parked */
        int n = wf_pool_stats(p, st, SPARE + 1);
        if (n == SPARE + 1 && st[SPARE].parks > 0)
            break;
        CHECK_MSG(check_now() - t0 < WAIT_LIMIT,
                  "no spare parked (%d "
                  "slots)",
                  n);
        usleep(100);
    }
    atomic_store(&b.release, 1);
    CHECK_OK(wf_pool_wait_idle(p));
    wait_spares_retired(p, baseline, "a spare that parked while needed", 2.0,
                        0);
    CHECK_OK(wf_pool_destroy(p));
    /* The same through ordinary rendezvous phases (fails now and then). */
    blocking_phases(0);
}

/* A surplus spare retires under a trickle of work too: once the blocked
 * task is released, tasks of work_us keep arriving (one every gap_us), so
 * the pool is never idle; the spare must still be gone within the
 * trickle.  It used to look for retirement only where it would park,
 * which a stream of work that keeps every thread busy never lets it
 * reach. */
static _Atomic int trickle_runs;
static double trickle_work_us;

static void pause_us(double us)
{
    double until = check_now() + us * 1e-6;
    while (check_now() < until)
        continue; /* shorter than any sleep */
}

static void trickle_task(wf_task *t)
{
    (void)t;
    pause_us(trickle_work_us);
    atomic_fetch_add(&trickle_runs, 1);
}

static void trickle_every(double gap_us, double work_us)
{
    trickle_work_us = work_us;
    wf_pool *p = make_spare_pool(2, 4, NULL);
    int baseline = thread_count();
    parked_task b = {.release = 0};
    CHECK_OK(wf_submit(p, &b.task, block_until_released));
    double t0 = check_now();
    while (thread_count() <= baseline) { /* the spare has started */
        CHECK_MSG(check_now() - t0 < WAIT_LIMIT, "no spare started");
        usleep(100);
    }
    atomic_store(&b.release, 1);
    enum { N = 40000 };
    static wf_task tasks[N];
    int submitted = 0;
    double gone = -1;
    atomic_store(&trickle_runs, 0);
    t0 = check_now();
    while (check_now() - t0 < 2.0 && submitted < N) {
        CHECK_OK(wf_submit(p, &tasks[submitted++], trickle_task));
        if (gone < 0 && submitted % 16 == 0 && thread_count() == baseline)
            gone = check_now() - t0;
        pause_us(gap_us);
    }
    CHECK_OK(wf_pool_wait_idle(p));
    CHECK_EQ(atomic_load(&trickle_runs), submitted);
    printf("trickle every %.0f us: %d tasks; the spare retired after %.3f s "
           "of them\n",
           gap_us, submitted, gone);
    CHECK_MSG(gone >= 0,
              "the surplus spare was still alive after %d tasks "
              "over 2 s",
              submitted);
    CHECK_OK(wf_pool_destroy(p));
}

static void scenario_trickle(void)
{
    trickle_every(50, 0);
}

/* More work than the threads take: no thread is ever idle. */
static void scenario_stream(void)
{
    trickle_every(5, 20);
}

static void nested_visit(size_t b, size_t e, void *ctx)
{
    phase *ph = ctx;
    for (size_t i = b; i < e; i++) {
        CHECK_OK(wf_blocking_begin());
        CHECK_OK(wf_blocking_begin());
        CHECK_OK(wf_blocking_end()); /* still inside the outer section */
        rv_wait(&ph->rv);
        CHECK_OK(wf_blocking_end());
        atomic_fetch_add(&ph->visits[i], 1);
    }
}

static void scenario_nesting(void)
{
    wf_pool *p = make_spare_pool(1, 0, NULL);
    phase ph = {.pool = p};
    rv_init(&ph.rv, 3);
    CHECK_OK(wf_parallel_for(p, 0, 3, 1, nested_visit, &ph));
    for (int i = 0; i < 3; i++)
        CHECK_EQ(atomic_load(&ph.visits[i]), 1);
    rv_destroy(&ph.rv);
    /* And balanced nesting still leaves the pool usable. */
    run_phase(p, 3, FROM_FOR, 0, NULL);
    CHECK_OK(wf_pool_destroy(p));
    printf("nesting: ok\n");
}

static void scenario_outside(void)
{
    wf_pool *p = make_spare_pool(1, 0, NULL);
    int threads = thread_count();
    CHECK(wf_current_pool() == NULL);
    CHECK_OK(wf_blocking_begin());
    CHECK_OK(wf_blocking_begin());
    CHECK_OK(wf_blocking_end());
    CHECK_OK(wf_blocking_end());
    CHECK_OK(wf_blocking_end()); /* unbalanced: still nothing */
    CHECK_EQ(slots(p), own_slots(1));
    CHECK_EQ(thread_count(), threads);
    /* The pool is unaffected: one thread (the caller), which a 3-task
     * rendezvous still extends with spares. */
    run_phase(p, 3, FROM_GROUP_OUTSIDE, 0, NULL);
    CHECK_OK(wf_pool_destroy(p));
    printf("outside: ok\n");
}

static test_alloc ta;

static void scenario_destroy(void)
{
    for (int wait_first = 0; wait_first < 2; wait_first++)
        for (int from = 0; from < NFROM; from++) {
            ta_init(&ta, TA_NEVER, 0);
            wf_pool *p = make_spare_pool(2, 0, &ta.iface);
            run_phase(p, 4, from, 0, NULL);
            CHECK(slots(p) > 2);
            if (wait_first)
                usleep(20000); /* spares retire or park */
            CHECK_OK(wf_pool_destroy(p));
            ta_check_no_leak(&ta, "destroy with spares");
        }
    printf("destroy: ok\n");
}

/* The allocator a config points to may live in a frame that has returned
 * by the time a spare is started: the pool must use its own copy.  The
 * frame is overwritten before the spares start, so a pool that kept the
 * pointer calls garbage. */
static __attribute__((noinline)) wf_pool *pool_with_frame_allocator(void)
{
    wf_allocator a = ta.iface; /* only in this frame */
    return make_spare_pool(1, 0, &a);
}

static __attribute__((noinline)) void scribble_stack(void)
{
    volatile unsigned char junk[8192];
    for (size_t i = 0; i < sizeof junk; i++)
        junk[i] = 0xa5;
}

static void scenario_frame_alloc(void)
{
    ta_init(&ta, TA_NEVER, 0);
    wf_pool *p = pool_with_frame_allocator();
    scribble_stack();
    run_phase(p, 3, FROM_GROUP_OUTSIDE, 0, NULL); /* starts 2 spares */
    CHECK(slots(p) > own_slots(1));
    CHECK_OK(wf_pool_destroy(p));
    ta_check_no_leak(&ta, "a pool whose config's allocator went out of scope");
    printf("frame_alloc: ok\n");
}

/* wf_worker_index(): below own_slots on the pool's workers and callers,
 * own_slots and above on spares, below the number of slots wf_pool_stats
 * counts.  N - threads of the tasks must run on spares (each of the pool's
 * workers and the caller hold one blocked task), so a spare's index shows
 * up. */
static void scenario_index(void)
{
    for (unsigned threads = 1; threads <= 2; threads++) {
        wf_pool *p = make_spare_pool(threads, 0, NULL);
        for (int from = 0; from < NFROM; from++) {
            int range[2];
            run_phase(p, (int)threads + 2, from, 0, range);
            CHECK_MSG(range[0] >= 0 && range[1] < slots(p) &&
                          range[1] >= own_slots(threads),
                      "%s: tasks saw wf_worker_index() %d..%d on a pool of "
                      "%u threads and %d slots",
                      from_name[from], range[0], range[1], threads, slots(p));
        }
        CHECK_OK(wf_pool_destroy(p));
    }
    CHECK_EQ(wf_worker_index(), -1);
    printf("index: ok\n");
}

/* A spare whose thread cannot start (the address space is full) leaves its
 * slot marked retired; the next spare must still start cleanly, not join
 * a thread that never existed.  Runs in a forked child (the limit must not
 * reach the rest of the test); not under the sanitizers, whose shadow
 * memory an address-space limit breaks, and whose own pthread interceptors
 * the spy below would clash with.
 *
 * The spy: this program's pthread_create and pthread_join come before the
 * C library's, so the library's calls go through them.  While spy_on, a
 * join must name a thread that a spied pthread_create started and that was
 * not joined yet; anything else is counted, not passed on (it is
 * undefined behaviour). */
#ifndef WF_TEST_SANITIZED
enum { SPY_MAX = 256 };
typedef int (*create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *),
                         void *);
typedef int (*join_fn)(pthread_t, void **);
static create_fn real_create;
static join_fn real_join;
static pthread_mutex_t spy_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_t spy_ids[SPY_MAX];
static int spy_live[SPY_MAX], spy_n;
static _Atomic int spy_on, spy_bad_joins;

__attribute__((constructor)) static void spy_init(void)
{
    real_create = (create_fn)dlsym(RTLD_NEXT, "pthread_create");
    real_join = (join_fn)dlsym(RTLD_NEXT, "pthread_join");
    CHECK(real_create != NULL && real_join != NULL);
}

int pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *),
                   void *arg)
{
    int err = real_create(t, a, fn, arg);
    if (err == 0 && atomic_load(&spy_on)) {
        pthread_mutex_lock(&spy_lock);
        CHECK(spy_n < SPY_MAX);
        spy_ids[spy_n] = *t;
        spy_live[spy_n++] = 1;
        pthread_mutex_unlock(&spy_lock);
    }
    return err;
}

int pthread_join(pthread_t t, void **ret)
{
    if (atomic_load(&spy_on)) {
        int found = 0;
        pthread_mutex_lock(&spy_lock);
        for (int i = 0; i < spy_n && !found; i++)
            if (spy_live[i] && pthread_equal(spy_ids[i], t)) {
                spy_live[i] = 0;
                found = 1;
            }
        pthread_mutex_unlock(&spy_lock);
        if (!found) {
            fprintf(stderr, "pthread_join(%#lx): no such live thread\n",
                    (unsigned long)t);
            atomic_fetch_add(&spy_bad_joins, 1);
            return ESRCH;
        }
    }
    return real_join(t, ret);
}

/* ctx: the code wf_blocking_begin must return (int *). */
static void short_block(size_t b, size_t e, void *ctx)
{
    for (size_t i = b; i < e; i++) {
        CHECK_ERR(wf_blocking_begin(), *(const int *)ctx);
        usleep(1000);
        CHECK_OK(wf_blocking_end());
    }
}

static void spare_start_failure_child(void)
{
    atomic_store(&spy_on, 1); /* before the pool's threads start */
    wf_pool_config cfg = WF_POOL_CONFIG_INIT;
    cfg.threads = 1;
    cfg.stack_size = (size_t)64 << 20;
    wf_pool *p = NULL;
    CHECK_OK(wf_pool_create(&p, &cfg));
    CHECK_OK(wf_run(p, nop, NULL)); /* the submission queue exists */
    long pages = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    CHECK(f && fscanf(f, "%ld", &pages) == 1);
    fclose(f);
    struct rlimit old, rl;
    CHECK(getrlimit(RLIMIT_AS, &old) == 0);
    rl = old;
    rl.rlim_cur = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + (16u << 20);
    CHECK(setrlimit(RLIMIT_AS, &rl) == 0); /* no room for a 64 MiB stack */
    /* One blocking task: its spare cannot start; then another. */
    int threads = thread_count();
    static const int no_spare = WF_EAGAIN; /* reported, and it runs on */
    CHECK_OK(wf_parallel_for(p, 0, 1, 1, short_block, (void *)&no_spare));
    CHECK_EQ(slots(p), own_slots(1) + 1); /* a slot was made...       */
    CHECK_EQ(thread_count(), threads);    /* ...but no thread started */
    CHECK_OK(wf_parallel_for(p, 0, 1, 1, short_block, (void *)&no_spare));
    CHECK(setrlimit(RLIMIT_AS, &old) == 0);
    /* With room again, spares start: a rendezvous of 3 on 1 worker. */
    run_phase(p, 3, FROM_GROUP_OUTSIDE, 0, NULL);
    CHECK_OK(wf_pool_destroy(p));
    CHECK_MSG(atomic_load(&spy_bad_joins) == 0,
              "the pool called pthread_join %d times on a thread that never "
              "started (a spare slot whose thread failed to start)",
              atomic_load(&spy_bad_joins));
}
#endif

static void scenario_spare_start_failure(void)
{
#ifdef WF_TEST_SANITIZED
    printf("spare_start_failure: skipped under the sanitizers\n");
#else
    check_in_child("a spare whose thread failed to start",
                   spare_start_failure_child);
    printf("spare_start_failure: ok\n");
#endif
}

int main(int argc, char **argv)
{
    static const check_scenario scenarios[] = {
        {"barrier", scenario_barrier},
        {"bounded", scenario_bounded},
        {"reuse", scenario_reuse},
        {"retire", scenario_retire},
        {"nesting", scenario_nesting},
        {"outside", scenario_outside},
        {"destroy", scenario_destroy},
        {"frame_alloc", scenario_frame_alloc},
        {"trickle", scenario_trickle},
        {"stream", scenario_stream},
        {"index", scenario_index},
        {"spare_start_failure", scenario_spare_start_failure},
    };
    return CHECK_RUN_SCENARIOS("pool_blocking", argc, argv, scenarios);
}
