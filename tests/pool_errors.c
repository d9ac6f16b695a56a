/* SPDX-License-Identifier: Apache-2.0 */
/* pool_errors: every bad input gets its documented error code, never a
 * crash or a hang, and the pool keeps working afterwards.
 *
 * Proves: NULL pool / task / fn / out for each API -> WF_EINVAL (and
 * wf_pool_destroy(NULL) == 0); configuration out of range -> WF_ERANGE with
 * *out untouched; joining twice -> WF_EJOINED; joining a zeroed task ->
 * WF_ENOTSPAWNED; joining from a thread that did not spawn the task ->
 * WF_EPERM, after which the real owner still joins it; destroy or
 * wait_idle from one of the pool's own workers -> WF_EPERM; destroying the
 * default pool -> WF_EPERM; a task spawned twice before its join, a frame
 * submitted twice before it started, a group task spawned while in a
 * group not yet waited for -> WF_EBUSY, each run once, and the frame may be
 * given again afterwards.  Each case is checked from a worker and from a
 * thread that is not one where the API allows both. */
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>

#include "fib_task.h"

static void nop_task(wf_task *t)
{
    (void)t;
}
static void nop_fn(void *arg)
{
    (void)arg;
}
static void nop_range(size_t b, size_t e, void *c)
{
    (void)b, (void)e, (void)c;
}
static void *never_alloc(size_t size, void *ctx)
{
    (void)size, (void)ctx;
    CHECK_MSG(0, "a half allocator was used");
    return NULL;
}

static wf_pool *make_pool(unsigned threads)
{
    return check_pool(threads);
}

static void test_config(void)
{
    wf_pool *sentinel = (wf_pool *)&sentinel, *p = sentinel;
    CHECK_ERR(wf_pool_create(NULL, NULL), WF_EINVAL);
    wf_pool_config cfg = WF_POOL_CONFIG_INIT;
    cfg.threads = WF_MAX_THREADS + 1;
    CHECK_ERR(wf_pool_create(&p, &cfg), WF_ERANGE);
    cfg.threads = UINT_MAX;
    CHECK_ERR(wf_pool_create(&p, &cfg), WF_ERANGE);
    cfg = (wf_pool_config)WF_POOL_CONFIG_INIT;
    cfg.spin = WF_MAX_SPIN + 1;
    CHECK_ERR(wf_pool_create(&p, &cfg), WF_ERANGE);
    cfg = (wf_pool_config)WF_POOL_CONFIG_INIT;
    cfg.deque_capacity = ((size_t)1 << 30) + 1;
    CHECK_ERR(wf_pool_create(&p, &cfg), WF_ERANGE);
    /* Half an allocator: alloc without free. */
    wf_allocator half = {.alloc = never_alloc, .free = NULL};
    cfg = (wf_pool_config)WF_POOL_CONFIG_INIT;
    cfg.alloc = &half;
    CHECK_ERR(wf_pool_create(&p, &cfg), WF_EINVAL);
    CHECK(p == sentinel); /* *out untouched on every error */
    /* The largest accepted spin is accepted. */
    cfg = (wf_pool_config)WF_POOL_CONFIG_INIT;
    cfg.threads = 1;
    cfg.spin = WF_MAX_SPIN;
    CHECK_OK(wf_pool_create(&p, &cfg));
    check_fib_on(p, 10);
    CHECK_OK(wf_pool_destroy(p));
}

/* NULL arguments, from outside any pool. */
static void test_null_args(wf_pool *p)
{
    wf_task t = {0};
    CHECK_OK(wf_pool_destroy(NULL));
    CHECK_EQ(wf_pool_threads(NULL), 0);
    CHECK_ERR(wf_run(NULL, nop_fn, NULL), WF_EINVAL);
    CHECK_ERR(wf_run(p, NULL, NULL), WF_EINVAL);
    CHECK_ERR(wf_submit(NULL, &t, nop_task), WF_EINVAL);
    CHECK_ERR(wf_submit(p, NULL, nop_task), WF_EINVAL);
    CHECK_ERR(wf_submit(p, &t, NULL), WF_EINVAL);
    CHECK_ERR(wf_pool_wait_idle(NULL), WF_EINVAL);
    CHECK_ERR(wf_parallel_for(NULL, 0, 10, 1, nop_range, NULL), WF_EINVAL);
    CHECK_ERR(wf_parallel_for(p, 0, 10, 1, NULL, NULL), WF_EINVAL);
    wf_worker_stats st[2];
    CHECK_ERR(wf_pool_stats(NULL, st, 2), WF_EINVAL);
    CHECK_ERR(wf_pool_stats(p, NULL, 2), WF_EINVAL);
    CHECK_ERR(wf_spawn(NULL, nop_task), WF_EINVAL);
    CHECK_ERR(wf_spawn(&t, NULL), WF_EINVAL);
    CHECK_ERR(wf_join(NULL), WF_EINVAL);
    CHECK_ERR(wf_join(&t), WF_ENOTSPAWNED); /* the failed spawn left it so */
}

/* The same from inside a worker, plus join misuse. */
static void worker_misuse(void *arg)
{
    wf_pool *p = arg;
    wf_task t = {0};
    CHECK_ERR(wf_spawn(NULL, nop_task), WF_EINVAL);
    CHECK_ERR(wf_spawn(&t, NULL), WF_EINVAL);
    CHECK_ERR(wf_join(NULL), WF_EINVAL);
    CHECK_ERR(wf_join(&t), WF_ENOTSPAWNED);
    CHECK_ERR(wf_pool_destroy(p), WF_EPERM);   /* its own worker */
    CHECK_ERR(wf_pool_wait_idle(p), WF_EPERM); /* would wait for itself */
    CHECK_ERR(wf_run(p, NULL, NULL), WF_EINVAL);
    fib_job j = {.n = 12};
    CHECK_OK(wf_run(p, fib_root, &j)); /* same pool: runs inline */
    CHECK_EQ(j.out, 144);
    /* Join twice, many times, so that some first joins find the task
     * stolen (slow path) and some do not (inline path). */
    for (int i = 0; i < 500; i++) {
        fib_frame f = {.n = 8 + i % 5};
        CHECK_OK(wf_spawn(&f.task, fib_body));
        (void)fib_par(7);
        CHECK_OK(wf_join(&f.task));
        CHECK_ERR(wf_join(&f.task), WF_EJOINED);
        CHECK_EQ(f.out, fib_seq(f.n));
    }
    /* Join twice with an older task still pending below it. */
    fib_frame a = {.n = 5}, b = {.n = 6};
    CHECK_OK(wf_spawn(&a.task, fib_body));
    CHECK_OK(wf_spawn(&b.task, fib_body));
    CHECK_OK(wf_join(&b.task));
    CHECK_ERR(wf_join(&b.task), WF_EJOINED);
    CHECK_OK(wf_join(&a.task));
    CHECK_ERR(wf_join(&a.task), WF_EJOINED);
    CHECK_EQ(a.out + b.out, 13);
}

/* ---- joins from a thread that did not spawn the task -------------------- */
typedef struct {
    fib_frame *_Atomic task; /* handed over by the spawner */
    _Atomic int result;      /* the stranger's wf_join return, +100 */
} handoff;

static void *stranger_join(void *arg)
{
    handoff *h = arg;
    fib_frame *f;
    while ((f = atomic_load_explicit(&h->task, memory_order_acquire)) == NULL)
        sched_yield();
    atomic_store_explicit(&h->result, wf_join(&f->task) + 100,
                          memory_order_release);
    return NULL;
}

static int wait_result(handoff *h)
{
    int r;
    while ((r = atomic_load_explicit(&h->result, memory_order_acquire)) == 0)
        sched_yield();
    return r - 100;
}

/* In a worker: spawn, let a plain thread try to join, then join here. */
static void spawn_and_hand_over(void *arg)
{
    handoff *h = arg;
    fib_frame f = {.n = 15};
    CHECK_OK(wf_spawn(&f.task, fib_body));
    atomic_store_explicit(&h->task, &f, memory_order_release);
    CHECK_ERR(wait_result(h), WF_EPERM);
    CHECK_OK(wf_join(&f.task)); /* the real owner still can */
    CHECK_EQ(f.out, 610);
}

static void join_from_other_pool(void *arg)
{
    fib_frame *f = arg;
    CHECK(wf_current_pool() != NULL);
    CHECK_ERR(wf_join(&f->task), WF_EPERM);
}

/* In a worker of p: spawn, let a worker of another pool try to join. */
static void spawn_and_cross_pool(void *arg)
{
    wf_pool *q = arg;
    fib_frame f = {.n = 14};
    CHECK_OK(wf_spawn(&f.task, fib_body));
    CHECK_OK(wf_run(q, join_from_other_pool, &f));
    CHECK_OK(wf_join(&f.task));
    CHECK_EQ(f.out, 377);
}

/* Two roots on the two workers of one pool: A spawns and hands the task to
 * B, which runs on the other worker (A never returns before B answers). */
typedef struct {
    wf_task task;
    handoff *h;
    _Atomic int *done;
    int worker; /* index of the worker that ran this root */
} root_task;

static void root_a(wf_task *t)
{
    root_task *r = (root_task *)t;
    r->worker = wf_worker_index();
    spawn_and_hand_over(r->h);
    atomic_fetch_add(r->done, 1);
}

static void root_b(wf_task *t)
{
    root_task *r = (root_task *)t;
    r->worker = wf_worker_index();
    stranger_join(r->h);
    atomic_fetch_add(r->done, 1);
}

static void test_same_pool_join(wf_pool *p)
{
    for (int rep = 0; rep < 20; rep++) {
        handoff h = {NULL, 0};
        _Atomic int done = 0;
        root_task a = {.h = &h, .done = &done}, b = {.h = &h, .done = &done};
        CHECK_OK(wf_submit(p, &a.task, root_a));
        CHECK_OK(wf_submit(p, &b.task, root_b));
        CHECK_OK(wf_pool_wait_idle(p));
        CHECK_EQ(atomic_load(&done), 2);
        CHECK(a.worker != b.worker && a.worker >= 0 && b.worker >= 0);
    }
}

static void test_foreign_join(wf_pool *p)
{
    test_same_pool_join(p);
    for (int rep = 0; rep < 20; rep++) {
        handoff h = {NULL, 0};
        pthread_t th;
        CHECK(pthread_create(&th, NULL, stranger_join, &h) == 0);
        CHECK_OK(wf_run(p, spawn_and_hand_over, &h));
        CHECK(pthread_join(th, NULL) == 0);
    }
    wf_pool *q = make_pool(1);
    for (int rep = 0; rep < 20; rep++)
        CHECK_OK(wf_run(p, spawn_and_cross_pool, q));
    CHECK_OK(wf_pool_destroy(q));

    /* Two plain threads: main spawns (default pool), another joins. */
    for (int rep = 0; rep < 20; rep++) {
        handoff h = {NULL, 0};
        pthread_t th;
        fib_frame f = {.n = 13};
        CHECK(pthread_create(&th, NULL, stranger_join, &h) == 0);
        CHECK_OK(wf_spawn(&f.task, fib_body));
        atomic_store_explicit(&h.task, &f, memory_order_release);
        CHECK_ERR(wait_result(&h), WF_EPERM);
        CHECK(pthread_join(th, NULL) == 0);
        CHECK_OK(wf_join(&f.task));
        CHECK_EQ(f.out, 233);
        CHECK_ERR(wf_join(&f.task), WF_EJOINED);
    }
}

/* ---- a frame given twice ------------------------------------------------- */
static _Atomic int twice_runs;

static void count_task(wf_task *t)
{
    (void)t;
    atomic_fetch_add(&twice_runs, 1);
}

static int count_group_task(wf_group_task *t)
{
    (void)t;
    atomic_fetch_add(&twice_runs, 1);
    return 0;
}

/* In a worker (arg: NULL) or outside (arg: any): a frame that was never
 * zeroed spawns and joins, once; after the join it spawns again and a
 * second join says WF_EJOINED. */
static void spawn_twice(void *arg)
{
    (void)arg;
    atomic_store(&twice_runs, 0);
    wf_task t;
    memset(&t, 0xa5, sizeof t); /* no zeroing needed: spawn sets it */
    CHECK_OK(wf_spawn(&t, count_task));
    CHECK_OK(wf_join(&t));
    CHECK_EQ(atomic_load(&twice_runs), 1);
    CHECK_OK(wf_spawn(&t, count_task)); /* joined: may be reused */
    CHECK_OK(wf_join(&t));
    CHECK_ERR(wf_join(&t), WF_EJOINED);
    CHECK_EQ(atomic_load(&twice_runs), 2);
}

static void test_given_twice(void)
{
    spawn_twice(NULL); /* from outside: the default pool */
    wf_pool *p = make_pool(2);
    CHECK_OK(wf_run(p, spawn_twice, NULL));
    CHECK_OK(wf_pool_destroy(p));
    /* wf_submit while still queued: a pool of 1 thread runs nothing until
     * someone waits, so the frame is certainly queued. */
    p = make_pool(1);
    atomic_store(&twice_runs, 0);
    wf_task t = {0};
    CHECK_OK(wf_submit(p, &t, count_task));
    CHECK_ERR(wf_submit(p, &t, count_task), WF_EBUSY);
    CHECK_OK(wf_pool_wait_idle(p));
    CHECK_EQ(atomic_load(&twice_runs), 1);
    CHECK_OK(wf_submit(p, &t, count_task)); /* started: may be reused */
    CHECK_OK(wf_pool_wait_idle(p));
    CHECK_EQ(atomic_load(&twice_runs), 2);
    /* A group task twice, and into a second group while in the first. */
    wf_group g, h;
    wf_group_task gt = {0};
    atomic_store(&twice_runs, 0);
    CHECK_OK(wf_group_init(&g, p, NULL));
    CHECK_OK(wf_group_init(&h, p, NULL));
    CHECK_OK(wf_group_spawn(&g, &gt, count_group_task));
    CHECK_ERR(wf_group_spawn(&g, &gt, count_group_task), WF_EBUSY);
    CHECK_ERR(wf_group_spawn(&h, &gt, count_group_task), WF_EBUSY);
    CHECK_OK(wf_group_wait(&g));
    CHECK_OK(wf_group_spawn(&h, &gt, count_group_task)); /* g waited */
    CHECK_OK(wf_group_wait(&h));
    CHECK_EQ(atomic_load(&twice_runs), 2);
    CHECK_OK(wf_pool_destroy(p));
}

int main(void)
{
    test_config();
    test_given_twice();
    wf_pool *p = make_pool(2);
    test_null_args(p);
    CHECK_OK(wf_run(p, worker_misuse, p));
    test_foreign_join(p);
    /* Outside a worker: join twice and a zeroed task. */
    fib_frame f = {.n = 10};
    CHECK_OK(wf_spawn(&f.task, fib_body));
    CHECK_OK(wf_join(&f.task));
    CHECK_ERR(wf_join(&f.task), WF_EJOINED);
    CHECK_EQ(f.out, 55);
    /* The default pool cannot be destroyed, and still works after. */
    wf_pool *def = wf_pool_default();
    CHECK(def != NULL);
    CHECK_ERR(wf_pool_destroy(def), WF_EPERM);
    check_fib_on(def, 15);
    /* After all that, p still works and shuts down cleanly. */
    check_fib_on(p, 18);
    CHECK_OK(wf_pool_destroy(p));
    CHECK_DONE("pool_errors");
}
