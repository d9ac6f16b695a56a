/* SPDX-License-Identifier: Apache-2.0 */
/* pool_unit: the fork-join pool's documented behaviour, on good input.
 *
 * Proves: fib by spawn/join is exact on 1, 2 and 4 workers; wf_submit runs
 * each detached task exactly once and wf_pool_wait_idle waits for them,
 * also when workers submit them (onto their own stacks);
 * wf_parallel_for visits each index exactly once with pieces no larger than
 * the grain, handles empty ranges and rejects begin > end; joins in any
 * order give the right results; one frame survives many spawn/join cycles;
 * spawn/join from a thread that is not a worker use the default pool;
 * wf_pool_stats' counters add up; wf_current_pool / wf_worker_index tell
 * workers from other threads; every error code has its name and message. */
#include <pthread.h>
#include <string.h>

#include "fib_task.h"

#ifdef WF_TEST_SANITIZED
#define FIB_N 20
#else
#define FIB_N 25
#endif

static wf_pool *make_pool(unsigned threads)
{
    wf_pool_config cfg = WF_POOL_CONFIG_INIT;
    cfg.threads = threads;
    wf_pool *p = NULL;
    CHECK_OK(wf_pool_create(&p, &cfg));
    CHECK(p != NULL);
    CHECK_EQ(wf_pool_threads(p), threads);
    return p;
}

static void test_fib_pools(void)
{
    unsigned sizes[] = {1, 2, 4};
    for (int i = 0; i < 3; i++) {
        wf_pool *p = make_pool(sizes[i]);
        for (int n = 0; n <= 12; n++) /* small cases, including n < 2 */
            check_fib_on(p, n);
        for (int rep = 0; rep < 3; rep++)
            check_fib_on(p, FIB_N);
        CHECK_OK(wf_pool_destroy(p));
    }
}

/* ---- wf_submit + wf_pool_wait_idle ------------------------------------- */
enum { NSUB = 3000 };
static _Atomic int sub_hits[NSUB];
static _Atomic int sub_freed;

typedef struct {
    wf_task task;
    int idx;
    int fib_n; /* some tasks fork-join inside */
} sub_task;

static void sub_body(wf_task *t)
{
    sub_task *s = (sub_task *)t;
    if (s->fib_n)
        CHECK_EQ(fib_par(s->fib_n), fib_seq(s->fib_n));
    atomic_fetch_add(&sub_hits[s->idx], 1);
    free(s); /* detached: the task may free itself */
    atomic_fetch_add(&sub_freed, 1);
}

typedef struct {
    wf_pool *pool;
    int from, to;
} submitter;

static void *submit_range(void *arg)
{
    submitter *s = arg;
    for (int i = s->from; i < s->to; i++) {
        sub_task *t = calloc(1, sizeof *t);
        CHECK(t != NULL);
        t->idx = i;
        t->fib_n = i % 10 == 0 ? 12 : 0;
        CHECK_OK(wf_submit(s->pool, &t->task, sub_body));
    }
    return NULL;
}

static void test_submit(void)
{
    wf_pool *p = make_pool(2);
    /* Three threads submit at once: main and two helpers. */
    submitter s[3] = {
        {p, 0, NSUB / 3}, {p, NSUB / 3, 2 * NSUB / 3}, {p, 2 * NSUB / 3, NSUB}};
    pthread_t th[2];
    CHECK(pthread_create(&th[0], NULL, submit_range, &s[1]) == 0);
    CHECK(pthread_create(&th[1], NULL, submit_range, &s[2]) == 0);
    submit_range(&s[0]);
    CHECK(pthread_join(th[0], NULL) == 0);
    CHECK(pthread_join(th[1], NULL) == 0);
    CHECK_OK(wf_pool_wait_idle(p));
    CHECK_EQ(atomic_load(&sub_freed), NSUB);
    for (int i = 0; i < NSUB; i++)
        CHECK_MSG(atomic_load(&sub_hits[i]) == 1, "task %d ran %d times", i,
                  atomic_load(&sub_hits[i]));
    CHECK_OK(wf_pool_wait_idle(p)); /* already idle: returns at once */
    CHECK_OK(wf_pool_destroy(p));
}

/* ---- wf_submit from inside the pool --------------------------------------
 * A task submitted by a worker goes on that worker's own stack, like a
 * spawn, with nobody to join it.  A tree of such tasks: each submits two
 * children, and some also spawn and join a child around the submission,
 * so the join finds a detached task above its own.  Every task runs once,
 * wf_pool_wait_idle waits for the whole tree, and the statistics count
 * each task run exactly once. */
enum { TREE_DEPTH = 11 }; /* 2^12 - 1 tasks */
static _Atomic int tree_ran;

typedef struct {
    wf_task task;
    wf_pool *pool;
    int depth;
} tree_task;

static void tree_body(wf_task *t);

static void tree_submit(wf_pool *p, int depth)
{
    tree_task *c = calloc(1, sizeof *c);
    CHECK(c != NULL);
    c->pool = p;
    c->depth = depth;
    CHECK_OK(wf_submit(p, &c->task, tree_body));
}

static void tree_body(wf_task *t)
{
    tree_task *s = (tree_task *)t;
    wf_pool *p = s->pool;
    int depth = s->depth;
    free(s); /* detached: the task may free itself */
    atomic_fetch_add(&tree_ran, 1);
    if (depth == 0)
        return;
    if (depth % 3 == 0) { /* a join with a detached task above it */
        fib_frame f = {.n = 8};
        CHECK_OK(wf_spawn(&f.task, fib_body));
        tree_submit(p, depth - 1);
        CHECK_OK(wf_join(&f.task));
        CHECK_EQ(f.out, fib_seq(8));
    } else {
        tree_submit(p, depth - 1);
    }
    tree_submit(p, depth - 1);
}

static void test_submit_from_workers(void)
{
    for (unsigned threads = 1; threads <= 2; threads++) {
        wf_pool *p = make_pool(threads);
        atomic_store(&tree_ran, 0);
        tree_submit(p, TREE_DEPTH); /* from outside; the rest from inside */
        CHECK_OK(wf_pool_wait_idle(p));
        CHECK_EQ(atomic_load(&tree_ran), (1 << (TREE_DEPTH + 1)) - 1);
        wf_worker_stats st[8];
        int n = wf_pool_stats(p, st, 8);
        CHECK(n > 0 && n <= 8);
        uint64_t spawns = 0, run = 0;
        for (int i = 0; i < n; i++) {
            spawns += st[i].spawns;
            run += st[i].tasks_run;
        }
        /* Every submission is a spawn (the first where it left the
         * queue, the others where they were submitted), and every task,
         * of either kind, ran once. */
        CHECK(spawns >= (uint64_t)atomic_load(&tree_ran));
        CHECK_EQ(run, spawns);
        CHECK_OK(wf_pool_destroy(p));
    }
}

/* ---- wf_parallel_for ---------------------------------------------------- */
typedef struct {
    size_t base, n, grain; /* grain 0: only check pieces are non-empty */
    _Atomic int *hits;
    _Atomic long calls;
    wf_pool *pool; /* pool the body must run on */
} loop_ctx;

static void loop_body(size_t begin, size_t end, void *arg)
{
    loop_ctx *c = arg;
    CHECK_MSG(begin < end && begin >= c->base && end <= c->base + c->n,
              "piece [%zu, %zu) outside [%zu, %zu)", begin, end, c->base,
              c->base + c->n);
    CHECK_MSG(c->grain == 0 || end - begin <= c->grain,
              "piece of %zu > grain %zu", end - begin, c->grain);
    CHECK(wf_current_pool() == c->pool);
    for (size_t i = begin; i < end; i++)
        atomic_fetch_add_explicit(&c->hits[i - c->base], 1,
                                  memory_order_relaxed);
    atomic_fetch_add(&c->calls, 1);
}

static void check_loop(wf_pool *p, size_t base, size_t n, size_t grain)
{
    loop_ctx c = {.base = base, .n = n, .grain = grain, .pool = p};
    c.hits = calloc(n ? n : 1, sizeof *c.hits);
    CHECK(c.hits != NULL);
    CHECK_OK(wf_parallel_for(p, base, base + n, grain, loop_body, &c));
    for (size_t i = 0; i < n; i++)
        CHECK_MSG(atomic_load(&c.hits[i]) == 1,
                  "index %zu visited %d times "
                  "(grain %zu)",
                  base + i, atomic_load(&c.hits[i]), grain);
    if (grain)
        CHECK(atomic_load(&c.calls) >= (long)((n + grain - 1) / grain));
    free(c.hits);
}

static void nested_loop_root(void *arg)
{
    wf_pool *p = arg;
    check_loop(p, 0, 5000, 0); /* from a worker: runs on its own pool */
    check_loop(p, 100, 777, 10);
}

static void no_call_body(size_t b, size_t e, void *ctx)
{
    (void)b, (void)e, (void)ctx;
    CHECK_MSG(0, "body called on an empty range");
}

static void test_parallel_for(void)
{
    wf_pool *p = make_pool(2);
    enum { N = 10007 };
    size_t grains[] = {0, 1, 3, 64, 1000, N, N + 100};
    for (size_t i = 0; i < sizeof grains / sizeof grains[0]; i++) {
        check_loop(p, 0, N, grains[i]);
        check_loop(p, 5, N, grains[i]); /* a range not starting at 0 */
    }
    check_loop(p, 0, 1, 0);
    check_loop(p, SIZE_MAX - 10, 10, 1); /* no overflow near SIZE_MAX */
    CHECK_OK(wf_run(p, nested_loop_root, p));
    CHECK_OK(wf_parallel_for(p, 7, 7, 0, no_call_body, NULL)); /* empty */
    CHECK_OK(wf_parallel_for(p, 7, 7, 5, no_call_body, NULL));
    CHECK_ERR(wf_parallel_for(p, 8, 7, 0, no_call_body, NULL), WF_EINVAL);
    CHECK_ERR(wf_parallel_for(p, SIZE_MAX, 0, 1, no_call_body, NULL),
              WF_EINVAL);
    CHECK_OK(wf_pool_destroy(p));
}

/* ---- join order and frame reuse ----------------------------------------- */
typedef struct {
    wf_task task;
    int n;
    long out;
    _Atomic int runs;
} counted_frame;

static void counted_body(wf_task *t)
{
    counted_frame *f = (counted_frame *)t;
    f->out = fib_par(f->n);
    atomic_fetch_add(&f->runs, 1);
}

/* Spawn a, b, c; join them in every one of the 6 orders, many times. */
static void out_of_order_root(void *arg)
{
    (void)arg;
    static const int orders[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2},
                                     {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    for (int rep = 0; rep < 600; rep++) {
        const int *ord = orders[rep % 6];
        counted_frame f[3] = {{.n = 10}, {.n = 11}, {.n = 12}};
        for (int i = 0; i < 3; i++)
            CHECK_OK(wf_spawn(&f[i].task, counted_body));
        for (int i = 0; i < 3; i++)
            CHECK_OK(wf_join(&f[ord[i]].task));
        for (int i = 0; i < 3; i++) {
            CHECK_EQ(f[i].out, fib_seq(f[i].n));
            CHECK_EQ(atomic_load(&f[i].runs), 1);
        }
    }
}

/* One frame, spawned and joined again and again (a reused stack slot). */
static void reuse_root(void *arg)
{
    long *total = arg;
    counted_frame f = {.n = 6};
    for (int i = 0; i < 10000; i++) {
        f.n = 4 + i % 8;
        CHECK_OK(wf_spawn(&f.task, counted_body));
        long mine = fib_par(6); /* meanwhile a thief may take f */
        CHECK_OK(wf_join(&f.task));
        CHECK_EQ(f.out, fib_seq(f.n));
        CHECK_EQ(mine, 8);
    }
    *total = atomic_load(&f.runs);
}

static void test_join_order_and_reuse(void)
{
    wf_pool *p = make_pool(2);
    CHECK_OK(wf_run(p, out_of_order_root, NULL));
    long total = 0;
    CHECK_OK(wf_run(p, reuse_root, &total));
    CHECK_EQ(total, 10000);
    CHECK_OK(wf_pool_destroy(p));
}

/* ---- spawn/join from a thread that is not a worker ----------------------- */
typedef struct {
    wf_task task;
    int n;
    long out;
    wf_pool *ran_on;
    int index;
} ext_frame;

static void ext_body(wf_task *t)
{
    ext_frame *f = (ext_frame *)t;
    f->ran_on = wf_current_pool();
    f->index = wf_worker_index();
    f->out = fib_par(f->n);
}

static void test_external_spawn(void)
{
    wf_pool *def = wf_pool_default();
    CHECK(def != NULL);
    CHECK(wf_pool_default() == def);
    ext_frame f[3] = {{.n = 15}, {.n = 16}, {.n = 17}};
    for (int i = 0; i < 3; i++)
        CHECK_OK(wf_spawn(&f[i].task, ext_body));
    int order[3] = {1, 0, 2}; /* out of order too */
    for (int i = 0; i < 3; i++)
        CHECK_OK(wf_join(&f[order[i]].task));
    for (int i = 0; i < 3; i++) {
        CHECK_EQ(f[i].out, fib_seq(f[i].n));
        CHECK(f[i].ran_on == def);
        CHECK(f[i].index >= 0 && f[i].index < (int)wf_pool_threads(def));
    }
    /* More pending spawns than the submission queue's first ring holds,
     * joined newest first. */
    enum { MANY = 500 };
    ext_frame *many = calloc(MANY, sizeof *many);
    CHECK(many != NULL);
    for (int i = 0; i < MANY; i++) {
        many[i].n = i % 15;
        CHECK_OK(wf_spawn(&many[i].task, ext_body));
    }
    for (int i = MANY - 1; i >= 0; i--) {
        CHECK_OK(wf_join(&many[i].task));
        CHECK_EQ(many[i].out, fib_seq(i % 15));
    }
    free(many);
    for (int i = 0; i < 200; i++) { /* the same frame, reused */
        f[0].n = i % 12;
        CHECK_OK(wf_spawn(&f[0].task, ext_body));
        CHECK_OK(wf_join(&f[0].task));
        CHECK_EQ(f[0].out, fib_seq(f[0].n));
    }
}

/* ---- statistics and identity -------------------------------------------- */
static void sum_stats(wf_pool *p, wf_worker_stats *sum)
{
    wf_worker_stats st[16];
    int n = wf_pool_stats(p, st, 16);
    CHECK_EQ(n, wf_pool_threads(p) - 1 + WF_CALLER_SLOTS);
    memset(sum, 0, sizeof *sum);
    for (int i = 0; i < n; i++) {
        sum->spawns += st[i].spawns;
        sum->tasks_run += st[i].tasks_run;
        sum->steals += st[i].steals;
    }
}

static void nop_task(wf_task *t)
{
    (void)t;
}

static void test_stats(void)
{
    wf_pool *p = make_pool(2);
    wf_worker_stats sum;
    sum_stats(p, &sum);
    CHECK_EQ(sum.spawns, 0);
    CHECK_EQ(sum.tasks_run, 0);
    /* fib(21) - 1 = 10945 spawns, of which those published count; each
     * of those ran once.  wf_run's root runs inline in the caller's slot,
     * as on a worker: not a task. */
    check_fib_on(p, 20);
    sum_stats(p, &sum);
    CHECK(sum.spawns <= (uint64_t)fib_seq(21) - 1);
    CHECK_EQ(sum.tasks_run, sum.spawns);
    CHECK(sum.steals <= sum.spawns);
    static wf_task subs[100]; /* 100 submissions: spawns where they run */
    uint64_t before = sum.spawns;
    for (int i = 0; i < 100; i++)
        CHECK_OK(wf_submit(p, &subs[i], nop_task));
    CHECK_OK(wf_pool_wait_idle(p));
    sum_stats(p, &sum);
    CHECK_EQ(sum.spawns, before + 100);
    CHECK_EQ(sum.tasks_run, sum.spawns);
    /* n smaller than the pool: only out[0..n-1] written. */
    enum { SLOTS = 2 - 1 + WF_CALLER_SLOTS };
    wf_worker_stats one[2];
    memset(one, 0xab, sizeof one);
    CHECK_EQ(wf_pool_stats(p, one, 1), SLOTS);
    CHECK_EQ(one[1].spawns, 0xababababababababull);
    CHECK_EQ(wf_pool_stats(p, NULL, 0), SLOTS);
    CHECK_OK(wf_pool_destroy(p));
}

typedef struct {
    wf_pool *pool;
    _Atomic int bad;
} ident_ctx;

static void ident_body(size_t b, size_t e, void *arg)
{
    (void)b, (void)e;
    ident_ctx *c = arg;
    int i = wf_worker_index();
    if (wf_current_pool() != c->pool || i < 0 ||
        i >= (int)wf_pool_threads(c->pool))
        atomic_fetch_add(&c->bad, 1);
}

static void test_identity(void)
{
    CHECK(wf_current_pool() == NULL);
    CHECK_EQ(wf_worker_index(), -1);
    wf_pool *p = make_pool(3);
    ident_ctx c = {.pool = p};
    CHECK_OK(wf_parallel_for(p, 0, 3000, 1, ident_body, &c));
    CHECK_EQ(atomic_load(&c.bad), 0);
    CHECK_OK(wf_pool_destroy(p));
    CHECK(wf_current_pool() == NULL); /* the caller did not become one */
    CHECK_EQ(wf_worker_index(), -1);
}

static void test_error_text(void)
{
    int seen = 0;
    unsigned long long used = 0; /* bit k: code -(k+1) is in the table */
#define CHECK_CODE(name, val, msg)                                             \
    CHECK_EQ(WF_##name, (val));                                                \
    CHECK((val) < 0 && (val) > -64);                                           \
    CHECK(!(used & (1ull << (-(val)-1)))); /* codes are distinct */            \
    used |= 1ull << (-(val)-1);                                                \
    CHECK(strcmp(wf_strerror(WF_##name), (msg)) == 0);                         \
    CHECK(strcmp(wf_err_name(WF_##name), "WF_" #name) == 0);                   \
    seen++;
    WF_ERRNO_MAP(CHECK_CODE)
#undef CHECK_CODE
    /* The codes are -1 .. -seen, with no gap. */
    CHECK_EQ(used, (seen == 64 ? ~0ull : (1ull << seen) - 1));
    int unknown[] = {1, -100, 12345, -2147483647 - 1};
    for (int i = 0; i < 4; i++) {
        CHECK(strcmp(wf_strerror(unknown[i]), "unknown error") == 0);
        CHECK(strcmp(wf_err_name(unknown[i]), "WF_UNKNOWN") == 0);
    }
    CHECK(wf_strerror(0) != NULL && wf_err_name(0) != NULL);
}

int main(void)
{
    test_error_text();
    test_identity();
    test_fib_pools();
    test_submit();
    test_submit_from_workers();
    test_parallel_for();
    test_join_order_and_reuse();
    test_external_spawn();
    test_stats();
    CHECK_DONE("pool_unit");
}
