/* SPDX-License-Identifier: Apache-2.0 */
/* pool_api: parallel_for, parallel_reduce, parallel_invoke and task groups,
 * each against an oracle.
 *
 * ARGS: one scenario name, or none for all of them.
 *   for     every index of [begin, end) is visited exactly once, by a worker
 *           of the pool, in non-empty in-range pieces no longer than a fixed
 *           grain; adaptive grain 0 over 10^6 and 100 elements, fixed grains
 *           1..SIZE_MAX, ranges ending at SIZE_MAX; pools of 1, 2 and 4
 *           workers, called from outside the pool, from one of its workers
 *           and from a worker of another pool; bad input -> WF_EINVAL.
 *   box     wf_parallel_for_box: every cell of 2-D and 3-D boxes (not at
 *           0, a single row, automatic and explicit grains) once, in
 *           non-empty in-box pieces within the grains; a single row is
 *           cut along its columns; empty boxes call nothing; bad input
 *           and tile counts that overflow -> WF_EINVAL.
 *   per_thread  wf_per_thread: the values bodies add into on 1/2/4
 *           workers sum to the closed form, each started from init, at
 *           most one per thread; NULL outside the pool and from another
 *           pool's worker; bad input -> WF_EINVAL.
 *   reduce  integer sum = closed form; non-commutative combines (ordered
 *           sequence concatenation, 2x2 matrix product) = the sequential
 *           fold; every piece starts from a fresh copy of the identity; a
 *           floating-point sum is bit-identical over 20 runs on 2 and 4
 *           workers; an 8 KiB accumulator (a histogram) works; an empty range
 *           gives the identity; bad input -> WF_EINVAL / WF_ERANGE.
 *   invoke  1, 2, 7 and 100 functions each run exactly once, ctxs NULL
 *           allowed; a NULL function -> WF_EINVAL and nothing runs.
 *   group   1000 tasks each run once on the group's pool (or the calling
 *           worker's), also through child groups; a failing task's error is
 *           what wait returns, the first when two fail in a known order;
 *           after an error at most one task per worker of 1000 ever starts,
 *           and running ones see wf_group_is_cancelled; wf_group_cancel
 *           before and during the run -> WF_ECANCELED; a parent's
 *           cancellation, or a sibling's error, ends a child group's tasks;
 *           wait twice / cancel or spawn after wait -> WF_ESTATE; another
 *           thread or worker -> WF_EPERM; NULL -> WF_EINVAL.
 *   alloc   right after the pool's creation its allocator fails from the
 *           k-th allocation on (and, separately, at the k-th only), for
 *           every k until a run needs no more memory: every group task,
 *           loop iteration, reduction piece and invoked function still runs
 *           exactly once, from outside the pool and from a worker (tasks
 *           that cannot be stored run inline; entry from outside never
 *           allocates), loops return 0, and destroy frees everything.
 *   group_self_spawn  a task that runs inline in wf_group_wait (on the
 *           thread that initialised the group) and spawns into its own
 *           group: the new task runs before wait returns (regression: it
 *           was never joined).
 */
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <time.h>

#include "fib_task.h"
#include "test_alloc.h"

/* Longest a test waits for another thread before declaring a hang; far
 * below the ctest TIMEOUT, so a hang fails with a message. */
#define WAIT_LIMIT 20.0

#define WAIT_UNTIL(cond, what)                                                 \
    do {                                                                       \
        double wait_t0_ = check_now();                                         \
        while (!(cond)) {                                                      \
            CHECK_MSG(check_now() - wait_t0_ < WAIT_LIMIT,                     \
                      "no progress after %.0f s waiting for %s", WAIT_LIMIT,   \
                      (what));                                                 \
            sched_yield();                                                     \
        }                                                                      \
    } while (0)

static const unsigned pool_sizes[] = {1, 2, 4};
#define NSIZES (sizeof pool_sizes / sizeof pool_sizes[0])

/* Call fn(p, arg) from this thread (not a worker) or from a worker of p. */
typedef void (*on_pool_fn)(wf_pool *p, void *arg);
typedef struct {
    on_pool_fn fn;
    wf_pool *p;
    void *arg;
} inside_job;

static void inside_trampoline(void *arg)
{
    inside_job *j = arg;
    CHECK(wf_current_pool() == j->p);
    j->fn(j->p, j->arg);
}

static void run_from(int inside, wf_pool *p, on_pool_fn fn, void *arg)
{
    if (!inside) {
        CHECK(wf_current_pool() == NULL);
        fn(p, arg);
        return;
    }
    inside_job j = {fn, p, arg};
    CHECK_OK(wf_run(p, inside_trampoline, &j));
}

static const char *where(int inside)
{
    return inside ? "inside" : "outside";
}

/* Pieces of at most `grain` needed to cover n elements (no overflow). */
static size_t ceil_div(size_t n, size_t grain)
{
    return n / grain + (n % grain != 0);
}

/* ======================================================================== */
/* ---- parallel_for ------------------------------------------------------ */

enum { BIG = 1000000, SMALL = 100 };
static _Atomic int seen[BIG]; /* visits of index begin + i */

typedef struct {
    wf_pool *pool;
    size_t begin, end, grain;
    _Atomic long pieces;
} for_ctx;

static void for_body(size_t b, size_t e, void *c)
{
    for_ctx *x = c;
    CHECK_MSG(b < e && b >= x->begin && e <= x->end,
              "piece [%zu, %zu) of [%zu, %zu)", b, e, x->begin, x->end);
    CHECK_MSG(x->grain == 0 || e - b <= x->grain,
              "piece of %zu longer than grain %zu", e - b, x->grain);
    CHECK_MSG(wf_current_pool() == x->pool, "body ran outside the pool");
    atomic_fetch_add_explicit(&x->pieces, 1, memory_order_relaxed);
    for (size_t i = b; i < e; i++)
        atomic_fetch_add_explicit(&seen[i - x->begin], 1, memory_order_relaxed);
}

static void check_for(wf_pool *p, size_t begin, size_t n, size_t grain)
{
    memset(seen, 0, n * sizeof seen[0]); /* the last loop joined: no race */
    for_ctx x = {.pool = p, .begin = begin, .end = begin + n, .grain = grain};
    CHECK_OK(wf_parallel_for(p, begin, begin + n, grain, for_body, &x));
    for (size_t i = 0; i < n; i++)
        CHECK_MSG(atomic_load(&seen[i]) == 1,
                  "index %zu of [%zu, +%zu) visited %d times (grain %zu, "
                  "%u workers)",
                  begin + i, begin, n, atomic_load(&seen[i]), grain,
                  wf_pool_threads(p));
    long pieces = atomic_load(&x.pieces);
    size_t want_min = grain ? ceil_div(n, grain)
                            : (n < wf_pool_threads(p) ? n : wf_pool_threads(p));
    CHECK_MSG(pieces >= (long)want_min && pieces <= (long)n,
              "%ld pieces for %zu elements, grain %zu, %u workers", pieces, n,
              grain, wf_pool_threads(p));
}

static void never_range(size_t b, size_t e, void *c)
{
    (void)b, (void)e, (void)c;
    CHECK_MSG(0, "body called for an empty or rejected range");
}

static void for_cases(wf_pool *p, void *arg)
{
    (void)arg;
    check_for(p, 0, BIG, 0);    /* adaptive, many cheap iterations */
    check_for(p, 7, SMALL, 0);  /* adaptive, few iterations */
    check_for(p, 0, BIG, 1000); /* fixed grains */
    check_for(p, 3, SMALL, 1);
    check_for(p, 0, SMALL, 3);
    check_for(p, 0, SMALL,
              SIZE_MAX); /* grain larger than any range: one piece */
    check_for(p, 11, 1, 0);
    check_for(p, SIZE_MAX - SMALL, SMALL, 0); /* no overflow at the top */
    check_for(p, SIZE_MAX - SMALL, SMALL, 7);
    CHECK_OK(wf_parallel_for(p, 5, 5, 0, never_range, NULL));
    CHECK_ERR(wf_parallel_for(p, 6, 5, 0, never_range, NULL), WF_EINVAL);
    CHECK_ERR(wf_parallel_for(p, SIZE_MAX, 0, 1, never_range, NULL), WF_EINVAL);
    CHECK_ERR(wf_parallel_for(p, 0, 10, 1, NULL, NULL), WF_EINVAL);
    CHECK_ERR(wf_parallel_for(NULL, 0, 10, 1, never_range, NULL), WF_EINVAL);
}

/* A loop on pool p called from a worker of another pool q: the body still
 * runs on p. */
static void for_from_other_pool(void *arg)
{
    wf_pool *p = arg;
    CHECK(wf_current_pool() != p);
    check_for(p, 0, 10000, 0);
}

static void scenario_for(void)
{
    for (size_t s = 0; s < NSIZES; s++) {
        wf_pool *p = make_pool(pool_sizes[s], 0, NULL);
        for (int inside = 0; inside < 2; inside++)
            run_from(inside, p, for_cases, NULL);
        wf_pool *q = make_pool(2, 0, NULL);
        CHECK_OK(wf_run(q, for_from_other_pool, p));
        CHECK_OK(wf_pool_destroy(q));
        CHECK_OK(wf_pool_destroy(p));
    }
    printf("for: exactly-once on 1/2/4 workers, both sides: ok\n");
}

/* ---- parallel_for_box ---------------------------------------------------- */

typedef struct {
    wf_box box;
    size_t grain[3]; /* the limit a piece is checked against; 0: none */
    _Atomic long calls;
} box_case;

static void box_body(const wf_box *piece, void *arg)
{
    box_case *c = arg;
    size_t ext[3];
    for (int d = 0; d < 3; d++) {
        CHECK(c->box.begin[d] <= piece->begin[d]);
        CHECK(piece->begin[d] < piece->end[d]);
        CHECK(piece->end[d] <= c->box.end[d]);
        ext[d] = c->box.end[d] - c->box.begin[d];
        if (c->grain[d])
            CHECK(piece->end[d] - piece->begin[d] <= c->grain[d]);
    }
    for (size_t i = piece->begin[0]; i < piece->end[0]; i++)
        for (size_t j = piece->begin[1]; j < piece->end[1]; j++)
            for (size_t k = piece->begin[2]; k < piece->end[2]; k++) {
                size_t at =
                    ((i - c->box.begin[0]) * ext[1] + (j - c->box.begin[1])) *
                        ext[2] +
                    (k - c->box.begin[2]);
                CHECK(at < BIG);
                atomic_fetch_add_explicit(&seen[at], 1, memory_order_relaxed);
            }
    atomic_fetch_add(&c->calls, 1);
}

/* Every cell of c->box once; grain NULL or c->grain. */
static void box_run(wf_pool *p, box_case *c, bool automatic)
{
    size_t n = 1;
    for (int d = 0; d < 3; d++)
        n *= c->box.end[d] - c->box.begin[d];
    CHECK(n <= BIG);
    for (size_t i = 0; i < n; i++)
        atomic_store_explicit(&seen[i], 0, memory_order_relaxed);
    atomic_store(&c->calls, 0);
    CHECK_OK(wf_parallel_for_box(p, &c->box, automatic ? NULL : c->grain,
                                 box_body, c));
    for (size_t i = 0; i < n; i++)
        CHECK_EQ(atomic_load_explicit(&seen[i], memory_order_relaxed), 1);
}

static void box_cases(wf_pool *p, void *arg)
{
    (void)arg;
    /* Automatic: bands of rows; a single row is cut along its columns;
     * a 3-D box; boxes that do not start at 0. */
    box_case rows = {.box = WF_BOX_2D(0, 300, 0, 1000)};
    box_run(p, &rows, true);
    box_case one_row = {.box = WF_BOX_2D(7, 8, 0, 100000)};
    box_run(p, &one_row, true);
    if (wf_pool_threads(p) > 1)
        CHECK(atomic_load(&one_row.calls) > 1); /* the columns were cut */
    box_case cube = {.box = WF_BOX_3D(3, 8, 10, 17, 100, 400)};
    box_run(p, &cube, true);
    box_case odd = {.box = WF_BOX_3D(1, 2, 5, 1005, 9, 10)};
    box_run(p, &odd, true);
    /* Explicit grains: no piece longer; 0 keeps a dimension whole. */
    box_case tiles = {.box = WF_BOX_2D(0, 301, 0, 999), .grain = {16, 64, 1}};
    box_run(p, &tiles, false);
    CHECK_EQ(atomic_load(&tiles.calls),
             (long)(ceil_div(301, 16) * ceil_div(999, 64)));
    box_case whole_rows = {.box = WF_BOX_3D(0, 9, 0, 11, 0, 500),
                           .grain = {2, 3, 0}};
    box_run(p, &whole_rows, false);
    CHECK_EQ(atomic_load(&whole_rows.calls), 5 * 4);
}

static void scenario_box(void)
{
    for (size_t s = 0; s < NSIZES; s++) {
        wf_pool *p = make_pool(pool_sizes[s], 0, NULL);
        for (int inside = 0; inside < 2; inside++)
            run_from(inside, p, box_cases, NULL);
        /* Empty boxes call nothing; bad input is refused. */
        box_case none = {.box = WF_BOX_2D(5, 5, 0, 10)};
        CHECK_OK(wf_parallel_for_box(p, &none.box, NULL, box_body, &none));
        CHECK_EQ(atomic_load(&none.calls), 0);
        wf_box bad = WF_BOX_2D(0, 10, 4, 3);
        CHECK_ERR(wf_parallel_for_box(p, &bad, NULL, box_body, &none),
                  WF_EINVAL);
        wf_box huge = WF_BOX_3D(0, SIZE_MAX, 0, SIZE_MAX, 0, SIZE_MAX);
        const size_t ones[3] = {1, 1, 1};
        CHECK_ERR(wf_parallel_for_box(p, &huge, ones, box_body, &none),
                  WF_EINVAL);
        CHECK_ERR(wf_parallel_for_box(NULL, &none.box, NULL, box_body, &none),
                  WF_EINVAL);
        CHECK_ERR(wf_parallel_for_box(p, NULL, NULL, box_body, &none),
                  WF_EINVAL);
        CHECK_ERR(wf_parallel_for_box(p, &none.box, NULL, NULL, &none),
                  WF_EINVAL);
        CHECK_OK(wf_pool_destroy(p));
    }
    printf("box: every cell once, pieces within grains, 1/2/4 workers: ok\n");
}

/* ---- per-thread storage -------------------------------------------------- */

typedef struct {
    uint64_t sum;
    uint64_t pieces;
} pt_value;

static void pt_body(size_t b, size_t e, void *ctx)
{
    pt_value *v = wf_per_thread_local(ctx);
    CHECK(v != NULL);
    for (size_t i = b; i < e; i++)
        v->sum += i;
    v->pieces++;
}

static void pt_add(void *value, void *ctx)
{
    pt_value *total = ctx, *v = value;
    total->sum += v->sum - 7; /* each started from init's 7 */
    total->pieces++;
}

static void pt_other_pool(void *arg)
{
    CHECK(wf_per_thread_local(arg) == NULL); /* not this pool's thread */
}

static void scenario_per_thread(void)
{
    for (size_t s = 0; s < NSIZES; s++) {
        wf_pool *p = make_pool(pool_sizes[s], 0, NULL);
        CHECK(wf_pool_slots(p) >= pool_sizes[s] - 1 + WF_CALLER_SLOTS);
        wf_per_thread *pt;
        const pt_value init = {7, 0};
        CHECK_OK(wf_per_thread_create(&pt, p, sizeof init, &init));
        CHECK(wf_per_thread_local(pt) == NULL); /* outside the pool */
        const size_t n = 1000000;
        CHECK_OK(wf_parallel_for(p, 0, n, 0, pt_body, pt));
        CHECK_OK(wf_parallel_for(p, 0, n, 1000, pt_body, pt));
        pt_value total = {0, 0};
        CHECK_OK(wf_per_thread_each(pt, pt_add, &total));
        CHECK_EQ(total.sum, (uint64_t)n * (n - 1)); /* twice n(n-1)/2 */
        /* Only the values threads took, at most one per thread. */
        CHECK(total.pieces >= 1 && total.pieces <= pool_sizes[s]);
        wf_pool *q = make_pool(2, 0, NULL);
        CHECK_OK(wf_run(q, pt_other_pool, pt));
        CHECK_OK(wf_pool_destroy(q));
        wf_per_thread_destroy(pt);
        /* No init: zeroes; bad input. */
        CHECK_OK(wf_per_thread_create(&pt, p, 3, NULL));
        wf_per_thread_destroy(pt);
        wf_per_thread_destroy(NULL);
        CHECK_ERR(wf_per_thread_create(&pt, p, 0, NULL), WF_EINVAL);
        CHECK_ERR(wf_per_thread_create(&pt, NULL, 8, NULL), WF_EINVAL);
        CHECK_ERR(wf_per_thread_create(NULL, p, 8, NULL), WF_EINVAL);
        CHECK_ERR(wf_per_thread_create(&pt, p, SIZE_MAX, NULL), WF_EINVAL);
        CHECK_ERR(wf_per_thread_each(NULL, pt_add, &total), WF_EINVAL);
        CHECK(wf_per_thread_local(NULL) == NULL);
        CHECK_OK(wf_pool_destroy(p));
    }
    CHECK_EQ(wf_pool_slots(NULL), 0u);
    printf("per_thread: sums exact, a value per thread, 1/2/4 workers: ok\n");
}

/* Lazy splitting: all the work of a loop lies in its first adaptive piece
 * (1/16 of the range on 2 workers).  Without splitting on demand one worker
 * would run all of it; with it, the idle worker asks, the piece splits
 * between two chunks, and both workers run heavy iterations. */
enum { LAZY_N = 2048, LAZY_HEAVY = LAZY_N / 16 };
static _Atomic(void *) lazy_ran_on[LAZY_HEAVY];
static _Thread_local char lazy_thread; /* its address names the thread */

static void lazy_body(size_t b, size_t e, void *c)
{
    (void)c;
    for (size_t i = b; i < e && i < LAZY_HEAVY; i++) {
        struct timespec t0, t;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        do /* ~0.3 ms of CPU */
            clock_gettime(CLOCK_MONOTONIC, &t);
        while ((t.tv_sec - t0.tv_sec) * 1000000000L + t.tv_nsec - t0.tv_nsec <
               300000L);
        atomic_store(&lazy_ran_on[i], (void *)&lazy_thread);
    }
}

static void scenario_for_lazy_split(void)
{
    wf_pool *p = make_pool(2, 0, NULL);
    CHECK_OK(wf_parallel_for(p, 0, LAZY_N, 0, lazy_body, NULL));
    void *first = atomic_load(&lazy_ran_on[0]);
    int others = 0;
    for (size_t i = 0; i < LAZY_HEAVY; i++)
        others += atomic_load(&lazy_ran_on[i]) != first;
    CHECK_MSG(others > 0,
              "one worker ran all %d heavy iterations of the "
              "first piece: it never split on demand",
              LAZY_HEAVY);
    CHECK_OK(wf_pool_destroy(p));
    printf("for_lazy_split: %d of %d heavy iterations moved to the other "
           "worker\n",
           others, LAZY_HEAVY);
}

/* ======================================================================== */
/* ---- parallel_reduce --------------------------------------------------- */

static void never_reduce(size_t b, size_t e, void *acc, void *c)
{
    (void)b, (void)e, (void)acc, (void)c;
    CHECK_MSG(0, "reduce body called for an empty or rejected range");
}

/* Integer sum, a commutative monoid. */
static void sum_body(size_t b, size_t e, void *acc, void *c)
{
    (void)c;
    uint64_t *s = acc;
    for (size_t i = b; i < e; i++)
        *s += i;
}

static void sum_combine(void *l, const void *r, void *c)
{
    (void)c;
    *(uint64_t *)l += *(const uint64_t *)r;
}

/* Concatenation of index sequences: associative, not commutative.  The
 * combine notices any piece that does not start right after its left
 * neighbour, so the only passing result is the sequential one.  magic and
 * the zero fields let each body check it started from the identity. */
typedef struct {
    uint64_t magic, first, last, count, broken;
} seq_acc;
#define SEQ_MAGIC 0x5e9ace5e9ace5e9aull
static const seq_acc seq_identity = {SEQ_MAGIC, 0, 0, 0, 0};

static void seq_body(size_t b, size_t e, void *acc, void *c)
{
    _Atomic long *pieces = c;
    seq_acc *s = acc;
    CHECK_MSG(memcmp(s, &seq_identity, sizeof *s) == 0,
              "piece [%zu, %zu) did not start from the identity", b, e);
    atomic_fetch_add_explicit(pieces, 1, memory_order_relaxed);
    for (size_t i = b; i < e; i++) {
        if (s->count == 0)
            s->first = i;
        else if (s->last + 1 != i)
            s->broken++;
        s->last = i;
        s->count++;
    }
}

static void seq_combine(void *l, const void *r, void *c)
{
    (void)c;
    seq_acc *a = l;
    const seq_acc *b = r;
    CHECK(a->magic == SEQ_MAGIC && b->magic == SEQ_MAGIC);
    if (b->count == 0)
        return;
    if (a->count == 0) {
        *a = *b;
        return;
    }
    if (a->last + 1 != b->first)
        a->broken++; /* right piece combined out of order */
    a->last = b->last;
    a->count += b->count;
    a->broken += b->broken;
}

/* 2x2 matrices over Z/2^64: associative, not commutative. */
typedef struct {
    uint64_t m[4]; /* row major */
} mat2;
static const mat2 mat_identity = {{1, 0, 0, 1}};

static void mat_mul(mat2 *a, const mat2 *b)
{
    mat2 r = {{a->m[0] * b->m[0] + a->m[1] * b->m[2],
               a->m[0] * b->m[1] + a->m[1] * b->m[3],
               a->m[2] * b->m[0] + a->m[3] * b->m[2],
               a->m[2] * b->m[1] + a->m[3] * b->m[3]}};
    *a = r;
}

static mat2 mat_of(size_t i)
{
    uint64_t k = i;
    return (mat2){{k + 1, 1, 3 * k + 2, k * k + 1}};
}

static void mat_body(size_t b, size_t e, void *acc, void *c)
{
    (void)c;
    for (size_t i = b; i < e; i++) {
        mat2 x = mat_of(i);
        mat_mul(acc, &x);
    }
}

static void mat_combine(void *l, const void *r, void *c)
{
    (void)c;
    mat_mul(l, r);
}

/* A large accumulator (8 KiB, beyond what the frames hold inline):
 * 1024 counters of 8 bytes. */
#define HIST_BINS 1024
typedef struct {
    uint64_t count[HIST_BINS];
} hist_acc;

static void hist_body(size_t b, size_t e, void *acc, void *c)
{
    (void)c;
    hist_acc *h = acc;
    for (size_t i = b; i < e; i++)
        h->count[i % HIST_BINS]++;
}

static void hist_combine(void *l, const void *r, void *c)
{
    (void)c;
    hist_acc *a = l;
    const hist_acc *b = r;
    for (size_t k = 0; k < HIST_BINS; k++)
        a->count[k] += b->count[k];
}

/* Floating point: terms of very different magnitudes, so any change in the
 * order of additions changes the bits. */
static double fp_term(size_t i)
{
    static const double scale[4] = {1e-9, 1.0, 1e9, -3.3};
    return (double)((i * 2654435761u) % 1000003u) * scale[i % 4];
}

static void fp_body(size_t b, size_t e, void *acc, void *c)
{
    (void)c;
    double *s = acc;
    for (size_t i = b; i < e; i++)
        *s += fp_term(i);
}

static void fp_combine(void *l, const void *r, void *c)
{
    (void)c;
    *(double *)l += *(const double *)r;
}

static void check_sum(wf_pool *p, size_t b, size_t n, size_t grain)
{
    uint64_t zero = 0, got = 12345;
    CHECK_OK(wf_parallel_reduce(p, b, b + n, grain, &got, sizeof got, &zero,
                                sum_body, sum_combine, NULL));
    /* b + (b+1) + ... + (b+n-1), modulo 2^64 like the sum itself. */
    uint64_t want = (uint64_t)n * b + (uint64_t)n * (n - 1) / 2;
    CHECK_MSG(got == want, "sum of [%zu, +%zu) grain %zu: %llu, want %llu", b,
              n, grain, (unsigned long long)got, (unsigned long long)want);
    CHECK_EQ(zero, 0); /* the identity is not written */
}

static void check_seq(wf_pool *p, size_t b, size_t n, size_t grain)
{
    _Atomic long pieces = 0;
    seq_acc got;
    memset(&got, 0xab, sizeof got);
    CHECK_OK(wf_parallel_reduce(p, b, b + n, grain, &got, sizeof got,
                                &seq_identity, seq_body, seq_combine,
                                (void *)&pieces));
    CHECK_MSG(got.magic == SEQ_MAGIC && got.first == b &&
                  got.last == b + n - 1 && got.count == n && got.broken == 0,
              "sequence [%zu, +%zu) grain %zu: first %llu last %llu count "
              "%llu, %llu pieces out of order",
              b, n, grain, (unsigned long long)got.first,
              (unsigned long long)got.last, (unsigned long long)got.count,
              (unsigned long long)got.broken);
    long k = atomic_load(&pieces);
    CHECK_MSG(k >= 1 && k <= (long)n &&
                  (grain == 0 || k >= (long)ceil_div(n, grain)),
              "%ld pieces for %zu elements, grain %zu", k, n, grain);
}

static void check_mat(wf_pool *p, size_t b, size_t n, size_t grain)
{
    mat2 want = mat_identity, got;
    for (size_t i = b; i < b + n; i++) {
        mat2 x = mat_of(i);
        mat_mul(&want, &x);
    }
    CHECK_OK(wf_parallel_reduce(p, b, b + n, grain, &got, sizeof got,
                                &mat_identity, mat_body, mat_combine, NULL));
    CHECK_MSG(memcmp(&got, &want, sizeof got) == 0,
              "matrix product over [%zu, +%zu) grain %zu differs from the "
              "sequential one",
              b, n, grain);
}

static void check_hist(wf_pool *p, size_t n, size_t grain)
{
    hist_acc zero = {{0}}, got;
    CHECK_OK(wf_parallel_reduce(p, 0, n, grain, &got, sizeof got, &zero,
                                hist_body, hist_combine, NULL));
    for (size_t k = 0; k < HIST_BINS; k++)
        CHECK_EQ(got.count[k], n / HIST_BINS + (k < n % HIST_BINS));
}

/* Empty range: the identity, and no call. */
static void check_empty(wf_pool *p)
{
    seq_acc got;
    memset(&got, 0xcd, sizeof got);
    CHECK_OK(wf_parallel_reduce(p, 9, 9, 0, &got, sizeof got, &seq_identity,
                                never_reduce, seq_combine, NULL));
    CHECK(memcmp(&got, &seq_identity, sizeof got) == 0);
}

static void check_reduce_errors(wf_pool *p)
{
    uint64_t r = 7, id = 0;
    CHECK_ERR(wf_parallel_reduce(NULL, 0, 10, 0, &r, 8, &id, never_reduce,
                                 sum_combine, NULL),
              WF_EINVAL);
    CHECK_ERR(wf_parallel_reduce(p, 0, 10, 0, NULL, 8, &id, never_reduce,
                                 sum_combine, NULL),
              WF_EINVAL);
    CHECK_ERR(wf_parallel_reduce(p, 0, 10, 0, &r, 8, NULL, never_reduce,
                                 sum_combine, NULL),
              WF_EINVAL);
    CHECK_ERR(
        wf_parallel_reduce(p, 0, 10, 0, &r, 8, &id, NULL, sum_combine, NULL),
        WF_EINVAL);
    CHECK_ERR(
        wf_parallel_reduce(p, 0, 10, 0, &r, 8, &id, never_reduce, NULL, NULL),
        WF_EINVAL);
    CHECK_ERR(wf_parallel_reduce(p, 0, 10, 0, &r, 0, &id, never_reduce,
                                 sum_combine, NULL),
              WF_EINVAL);
    CHECK_ERR(wf_parallel_reduce(p, 10, 9, 0, &r, 8, &id, never_reduce,
                                 sum_combine, NULL),
              WF_EINVAL);
    CHECK_EQ(r, 7); /* nothing written on error */
}

static void reduce_cases(wf_pool *p, void *arg)
{
    (void)arg;
    static const size_t grains[] = {0, 1, 3, 1000, SIZE_MAX};
    for (size_t g = 0; g < sizeof grains / sizeof grains[0]; g++) {
        size_t grain = grains[g];
        check_sum(p, 0, grain == 1 ? 20000 : BIG, grain);
        check_sum(p, 5, SMALL, grain);
        check_sum(p, 5, 1, grain);
        check_sum(p, SIZE_MAX / 4, 1000, grain);
        check_seq(p, 0, grain == 1 ? 20000 : BIG, grain);
        check_seq(p, 17, SMALL, grain);
        check_seq(p, SIZE_MAX - SMALL, SMALL, grain);
        check_mat(p, 0, 20000, grain);
        check_mat(p, 3, 37, grain);
        check_hist(p, 10007, grain);
    }
    check_empty(p);
    check_reduce_errors(p);
}

typedef struct {
    size_t n, grain;
    double out;
} fp_job;

static void fp_run(wf_pool *p, void *arg)
{
    fp_job *j = arg;
    double zero = 0.0;
    CHECK_OK(wf_parallel_reduce(p, 0, j->n, j->grain, &j->out, sizeof j->out,
                                &zero, fp_body, fp_combine, NULL));
}

/* Same range, grain and pool size: the same bits every run, from outside
 * and from inside, whatever the thieves did. */
static void check_fp_deterministic(wf_pool *p, size_t n, size_t grain)
{
    double seq = 0.0;
    for (size_t i = 0; i < n; i++)
        seq += fp_term(i);
    fp_job first = {n, grain, 0.0};
    fp_run(p, &first);
    double err = first.out - seq, mag = seq < 0 ? -seq : seq;
    CHECK_MSG((err < 0 ? -err : err) <= 1e-9 * mag,
              "fp sum %.17g far from the sequential %.17g", first.out, seq);
    for (int run = 0; run < 20; run++) {
        fp_job j = {n, grain, 0.0};
        run_from(run & 1, p, fp_run, &j);
        CHECK_MSG(memcmp(&j.out, &first.out, sizeof j.out) == 0,
                  "run %d (%s, %u workers, grain %zu): %.17g != %.17g", run,
                  where(run & 1), wf_pool_threads(p), grain, j.out, first.out);
    }
}

static void scenario_reduce(void)
{
    for (size_t s = 0; s < NSIZES; s++) {
        wf_pool *p = make_pool(pool_sizes[s], 0, NULL);
        for (int inside = 0; inside < 2; inside++)
            run_from(inside, p, reduce_cases, NULL);
        if (pool_sizes[s] > 1) {
            check_fp_deterministic(p, 100000, 0);
            check_fp_deterministic(p, 100000, 1);
            check_fp_deterministic(p, 100000, 777);
        }
        CHECK_OK(wf_pool_destroy(p));
    }
    printf("reduce: closed forms, sequential order, bit-identical fp: ok\n");
}

/* ======================================================================== */
/* ---- parallel_invoke --------------------------------------------------- */

enum { MAXFN = 100, NKINDS = 4 };
static _Atomic int fn_hits[MAXFN];    /* per call, through ctx */
static _Atomic int kind_hits[NKINDS]; /* per function, when ctx is NULL */

#define KIND_FN(k)                                                             \
    static void kind##k(void *ctx)                                             \
    {                                                                          \
        if (ctx)                                                               \
            atomic_fetch_add((_Atomic int *)ctx, 1);                           \
        else                                                                   \
            atomic_fetch_add(&kind_hits[k], 1);                                \
    }
KIND_FN(0)
KIND_FN(1)
KIND_FN(2)
KIND_FN(3)
static const wf_invoke_fn kinds[NKINDS] = {kind0, kind1, kind2, kind3};

static void check_invoke(wf_pool *p, size_t n, int with_ctx)
{
    wf_invoke_fn fns[MAXFN];
    void *ctxs[MAXFN];
    memset(fn_hits, 0, sizeof fn_hits);
    memset(kind_hits, 0, sizeof kind_hits);
    for (size_t i = 0; i < n; i++) {
        fns[i] = kinds[i % NKINDS];
        ctxs[i] = (void *)&fn_hits[i];
    }
    CHECK_OK(wf_parallel_invoke(p, n, fns, with_ctx ? ctxs : NULL));
    for (size_t i = 0; i < n && with_ctx; i++)
        CHECK_MSG(atomic_load(&fn_hits[i]) == 1,
                  "fns[%zu] of %zu ran %d "
                  "times",
                  i, n, atomic_load(&fn_hits[i]));
    for (size_t k = 0; k < NKINDS; k++)
        CHECK_EQ(atomic_load(&kind_hits[k]),
                 with_ctx ? 0 : (long long)(n / NKINDS + (k < n % NKINDS)));
}

static void invoke_cases(wf_pool *p, void *arg)
{
    (void)arg;
    static const size_t counts[] = {1, 2, 7, 100};
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++)
        for (int with_ctx = 0; with_ctx < 2; with_ctx++)
            check_invoke(p, counts[c], with_ctx);
    CHECK_OK(wf_parallel_invoke(p, 0, NULL, NULL));
    /* A NULL function anywhere: rejected before anything runs. */
    wf_invoke_fn fns[7] = {kind0, kind1, kind2, kind3, kind0, kind1, kind2};
    memset(kind_hits, 0, sizeof kind_hits);
    for (size_t bad = 0; bad < 7; bad++) {
        wf_invoke_fn keep = fns[bad];
        fns[bad] = NULL;
        CHECK_ERR(wf_parallel_invoke(p, 7, fns, NULL), WF_EINVAL);
        fns[bad] = keep;
    }
    for (size_t k = 0; k < NKINDS; k++)
        CHECK_EQ(atomic_load(&kind_hits[k]), 0);
    CHECK_ERR(wf_parallel_invoke(p, 3, NULL, NULL), WF_EINVAL);
    CHECK_ERR(wf_parallel_invoke(NULL, 1, fns, NULL), WF_EINVAL);
}

static void scenario_invoke(void)
{
    for (size_t s = 0; s < NSIZES; s++) {
        wf_pool *p = make_pool(pool_sizes[s], 0, NULL);
        for (int inside = 0; inside < 2; inside++)
            run_from(inside, p, invoke_cases, NULL);
        CHECK_OK(wf_pool_destroy(p));
    }
    printf("invoke: each function once: ok\n");
}

/* ======================================================================== */
/* ---- task groups ------------------------------------------------------- */

enum { NTASKS = 1000 };

/* What a group task does. */
enum {
    G_COUNT,      /* count itself, check which pool it runs on */
    G_FAIL,       /* count itself as started, return ret at once */
    G_FAIL_GATED, /* the same, once *gate is non-zero */
    G_HOLD,       /* count itself as started, then run until it sees its
                     group cancelled (only a cancellation can end it) */
    G_CHILD_HOLD, /* G_HOLD in a child group, counted in child_started */
    G_HOLD_FAIL,  /* G_HOLD counted in late_started, then return ret */
    G_CHILDREN,   /* run a child group of 10 G_CHILD_HOLD tasks; return
                     (and record) what the child's wait returned */
    G_NESTED,     /* run a child group of 10 G_COUNT tasks */
    G_SELF_SPAWN, /* spawn tasks[idx + 1] (G_COUNT) into its own group */
};

typedef struct {
    wf_pool *expect;   /* pool G_COUNT tasks must run on; NULL: any */
    _Atomic int *gate; /* G_FAIL_GATED */
    _Atomic int hits[NTASKS];
    _Atomic int started, child_started, saw_cancel, child_err;
    _Atomic int late_started;   /* G_HOLD_FAIL tasks started */
    _Atomic int self_spawn_err; /* what G_SELF_SPAWN's spawn returned */
} gshared;

typedef struct {
    wf_group_task gt; /* first member: the body casts back */
    gshared *sh;
    wf_group *g; /* its group, for wf_group_is_cancelled */
    int idx, kind, ret;
} gtask;

static gtask tasks[NTASKS];
static gshared shared;

static void reset_shared(wf_pool *expect)
{
    memset(&shared, 0, sizeof shared); /* every task was joined */
    shared.expect = expect;
}

static void hold_until_cancelled(gtask *t, _Atomic int *started)
{
    atomic_fetch_add(started, 1);
    WAIT_UNTIL(wf_group_is_cancelled(t->g),
               "a running task to see its group cancelled");
    atomic_fetch_add(&t->sh->saw_cancel, 1);
}

static int gtask_body(wf_group_task *wt);

static void spawn_kind(wf_group *g, gtask *t, int idx, int kind, int ret)
{
    *t = (gtask){.sh = &shared, .g = g, .idx = idx, .kind = kind, .ret = ret};
    CHECK_OK(wf_group_spawn(g, &t->gt, gtask_body));
}

static void spawn_all(wf_group *g, int n, int kind)
{
    for (int i = 0; i < n; i++)
        spawn_kind(g, &tasks[i], i, kind, 0);
}

/* A child of t's group with 10 tasks of `kind`; its wait's result. */
static int run_child_group(gtask *t, int kind)
{
    wf_group child;
    gtask sub[10];
    /* pool NULL: a task runs on a worker, where the pool is not used. */
    CHECK_OK(wf_group_init(&child, NULL, t->g));
    for (int i = 0; i < 10; i++) {
        sub[i] = (gtask){
            .sh = t->sh, .g = &child, .idx = t->idx * 10 + i, .kind = kind};
        int err = wf_group_spawn(&child, &sub[i].gt, gtask_body);
        /* The parent may be cancelled already: then so is the child. */
        CHECK_MSG(err == 0 || (err == WF_ECANCELED && kind == G_CHILD_HOLD),
                  "child spawn: %s", wf_err_name(err));
    }
    return wf_group_wait(&child);
}

static int gtask_body(wf_group_task *wt)
{
    gtask *t = (gtask *)wt;
    gshared *sh = t->sh;
    switch (t->kind) {
    case G_COUNT:
        CHECK_MSG(sh->expect == NULL || wf_current_pool() == sh->expect,
                  "group task %d ran on pool %p, not %p", t->idx,
                  (void *)wf_current_pool(), (void *)sh->expect);
        atomic_fetch_add(&sh->hits[t->idx], 1);
        return 0;
    case G_FAIL: atomic_fetch_add(&sh->started, 1); return t->ret;
    case G_FAIL_GATED:
        atomic_fetch_add(&sh->started, 1);
        WAIT_UNTIL(atomic_load(sh->gate), "the gate of a failing task");
        return t->ret;
    case G_HOLD: hold_until_cancelled(t, &sh->started); return 0;
    case G_CHILD_HOLD: hold_until_cancelled(t, &sh->child_started); return 0;
    case G_HOLD_FAIL: hold_until_cancelled(t, &sh->late_started); return t->ret;
    case G_CHILDREN: {
        int err = run_child_group(t, G_CHILD_HOLD);
        atomic_store(&sh->child_err, err);
        return err;
    }
    case G_NESTED: return run_child_group(t, G_COUNT);
    case G_SELF_SPAWN: {
        gtask *next = &tasks[t->idx + 1];
        *next =
            (gtask){.sh = sh, .g = t->g, .idx = t->idx + 1, .kind = G_COUNT};
        atomic_store(&sh->self_spawn_err,
                     wf_group_spawn(t->g, &next->gt, gtask_body));
        return 0;
    }
    }
    CHECK_MSG(0, "bad task kind %d", t->kind);
    return 0;
}

static void check_hits(int n, const char *what)
{
    for (int i = 0; i < n; i++)
        CHECK_MSG(atomic_load(&shared.hits[i]) == 1, "%s: task %d ran %d times",
                  what, i, atomic_load(&shared.hits[i]));
}

/* 1000 tasks, twice through the same frames (a waited group can be
 * initialised again), then 100 tasks with child groups of 10, then an
 * empty group.  arg: the group's pool (NULL: the default pool). */
static void group_count(wf_pool *p, void *arg)
{
    (void)p;
    wf_pool *gp = arg;
    /* From a worker, tasks go to that worker's pool; from outside, to the
     * group's. */
    wf_pool *expect = wf_current_pool() ? wf_current_pool()
                      : gp              ? gp
                                        : wf_pool_default();
    wf_group g;
    for (int round = 0; round < 2; round++) {
        reset_shared(expect);
        CHECK_OK(wf_group_init(&g, gp, NULL));
        spawn_all(&g, NTASKS, G_COUNT);
        CHECK_OK(wf_group_wait(&g));
        check_hits(NTASKS, "group of 1000");
    }
    reset_shared(expect);
    CHECK_OK(wf_group_init(&g, gp, NULL));
    spawn_all(&g, NTASKS / 10, G_NESTED);
    CHECK_OK(wf_group_wait(&g));
    check_hits(NTASKS, "nested groups");
    CHECK_OK(wf_group_init(&g, gp, NULL));
    CHECK_OK(wf_group_wait(&g));
}

/* One worker: the order is fixed, so exactly one task runs, fails, and no
 * other starts.  Every task fails, each with its own code, so the code
 * wait returns names the first to run: in spawn order from outside (the
 * submission queue), newest first from inside (the join order). */
static void group_fail_one_worker(wf_pool *p, void *arg)
{
    (void)arg;
    CHECK_EQ(wf_pool_threads(p), 1);
    int inside = wf_current_pool() != NULL;
    wf_group g;
    reset_shared(NULL);
    CHECK_OK(wf_group_init(&g, p, NULL));
    int spawned = 0;
    for (int i = 0; i < NTASKS; i++) {
        tasks[i] = (gtask){
            .sh = &shared, .g = &g, .idx = i, .kind = G_FAIL, .ret = -1000 - i};
        int err = wf_group_spawn(&g, &tasks[i].gt, gtask_body);
        /* From outside the first task may have failed already. */
        CHECK_MSG(err == 0 || (err == WF_ECANCELED && !inside), "spawn %d: %s",
                  i, wf_err_name(err));
        if (err == 0)
            spawned++;
        else
            CHECK(wf_group_is_cancelled(&g));
    }
    int want = inside ? -1000 - (spawned - 1) : -1000;
    CHECK_ERR(wf_group_wait(&g), want);
    CHECK_EQ(atomic_load(&shared.started), 1);
    CHECK(wf_group_is_cancelled(&g));
}

/* Several workers: the failing task returns only once all 1000 tasks are
 * spawned, and every other task holds its worker until it sees the
 * cancellation.  So before the error each worker can start at most one
 * task, and after it none starts: at most `threads` of 1000 ever start. */
static void group_fail_gated(wf_pool *p, void *arg)
{
    (void)arg;
    int inside = wf_current_pool() != NULL;
    _Atomic int gate = 0;
    wf_group g;
    reset_shared(NULL);
    shared.gate = &gate;
    CHECK_OK(wf_group_init(&g, p, NULL));
    /* From outside the failing task goes first (FIFO), from inside last
     * (the waiter joins it first): either way it cannot be stuck behind
     * held tasks. */
    int fail_at = inside ? NTASKS - 1 : 0;
    for (int i = 0; i < NTASKS; i++)
        spawn_kind(&g, &tasks[i], i, i == fail_at ? G_FAIL_GATED : G_HOLD,
                   i == fail_at ? -77 : 0);
    atomic_store(&gate, 1);
    CHECK_ERR(wf_group_wait(&g), -77);
    int started = atomic_load(&shared.started); /* the failing one too */
    CHECK_MSG(started >= 1 && started <= (int)wf_pool_threads(p),
              "%d of %d tasks started on %u workers (%s)", started, NTASKS,
              wf_pool_threads(p), where(inside));
    CHECK_EQ(atomic_load(&shared.saw_cancel), started - 1);
    CHECK(wf_group_is_cancelled(&g));
}

/* Cancelled before anything was spawned. */
static void group_cancel_before(wf_pool *p, void *arg)
{
    (void)arg;
    wf_group g;
    reset_shared(NULL);
    CHECK_OK(wf_group_init(&g, p, NULL));
    CHECK(!wf_group_is_cancelled(&g));
    CHECK_OK(wf_group_cancel(&g));
    CHECK_OK(wf_group_cancel(&g)); /* again: not finished yet */
    CHECK(wf_group_is_cancelled(&g));
    tasks[0] = (gtask){.sh = &shared, .g = &g, .kind = G_COUNT};
    CHECK_ERR(wf_group_spawn(&g, &tasks[0].gt, gtask_body), WF_ECANCELED);
    CHECK_ERR(wf_group_wait(&g), WF_ECANCELED);
    CHECK_EQ(atomic_load(&shared.hits[0]), 0);
}

/* Spawned, then cancelled while the only background worker (of a pool of
 * 2 threads) is busy elsewhere: none of the 100 tasks runs. */
typedef struct {
    wf_task task;
    _Atomic int running, release;
} blocker_task;

static void blocker_body(wf_task *t)
{
    blocker_task *b = (blocker_task *)t;
    atomic_store(&b->running, 1);
    WAIT_UNTIL(atomic_load(&b->release), "the blocker's release");
}

static void group_cancel_queued(void)
{
    wf_pool *p = make_pool(2, 0, NULL);
    blocker_task b = {.running = 0};
    CHECK_OK(wf_submit(p, &b.task, blocker_body));
    WAIT_UNTIL(atomic_load(&b.running), "the blocker to start");
    wf_group g;
    reset_shared(p);
    CHECK_OK(wf_group_init(&g, p, NULL));
    spawn_all(&g, 100, G_COUNT);
    CHECK_OK(wf_group_cancel(&g));
    atomic_store(&b.release, 1);
    CHECK_ERR(wf_group_wait(&g), WF_ECANCELED);
    for (int i = 0; i < 100; i++)
        CHECK_EQ(atomic_load(&shared.hits[i]), 0);
    CHECK_OK(wf_pool_destroy(p));
}

/* Cancelled from another thread (any thread may cancel) once a task
 * runs: running tasks see it, the others never start. */
static void *cancel_thread(void *arg)
{
    WAIT_UNTIL(
        atomic_load(&shared.started) + atomic_load(&shared.child_started) >= 1,
        "a held task to start");
    CHECK_OK(wf_group_cancel(arg));
    return NULL;
}

static void group_cancel_running(wf_pool *p)
{
    wf_group g;
    reset_shared(NULL);
    CHECK_OK(wf_group_init(&g, p, NULL));
    spawn_all(&g, NTASKS, G_HOLD);
    pthread_t th;
    CHECK(pthread_create(&th, NULL, cancel_thread, &g) == 0);
    CHECK_ERR(wf_group_wait(&g), WF_ECANCELED);
    CHECK(pthread_join(th, NULL) == 0);
    int started = atomic_load(&shared.started);
    CHECK_MSG(started >= 1 && started <= (int)wf_pool_threads(p),
              "%d of %d held tasks started on %u workers", started, NTASKS,
              wf_pool_threads(p));
    CHECK_EQ(atomic_load(&shared.saw_cancel), started);
}

/* One parent task runs a child group of held tasks: cancelling the parent
 * ends them, and the child's wait reports the cancellation. */
static void group_cancel_parent(wf_pool *p)
{
    wf_group g;
    reset_shared(NULL);
    CHECK_OK(wf_group_init(&g, p, NULL));
    spawn_kind(&g, &tasks[0], 0, G_CHILDREN, 0);
    pthread_t th;
    CHECK(pthread_create(&th, NULL, cancel_thread, &g) == 0);
    CHECK_ERR(wf_group_wait(&g), WF_ECANCELED);
    CHECK(pthread_join(th, NULL) == 0);
    CHECK_EQ(atomic_load(&shared.child_err), WF_ECANCELED);
    int started = atomic_load(&shared.child_started);
    CHECK_MSG(started >= 1 && started <= (int)wf_pool_threads(p),
              "%d of 10 child tasks started on %u workers", started,
              wf_pool_threads(p));
    CHECK_EQ(atomic_load(&shared.saw_cancel), started);
}

/* A sibling's error cancels the parent, which ends another sibling's
 * child group; wait returns the sibling's error, the first.  The failing
 * task is spawned first and holds its worker until a child task runs, so
 * the other sibling necessarily runs on another worker. */
static void group_error_reaches_children(wf_pool *p)
{
    wf_group g;
    reset_shared(NULL);
    shared.gate = &shared.child_started;
    CHECK_OK(wf_group_init(&g, p, NULL));
    spawn_kind(&g, &tasks[0], 0, G_FAIL_GATED, -55);
    spawn_kind(&g, &tasks[1], 1, G_CHILDREN, 0);
    CHECK_ERR(wf_group_wait(&g), -55);
    CHECK_EQ(atomic_load(&shared.child_err), WF_ECANCELED);
    CHECK_EQ(atomic_load(&shared.saw_cancel),
             atomic_load(&shared.child_started));
}

/* Two tasks fail, in a known order: A returns -1 once B runs, and B
 * returns -2 once it sees the cancellation that A's error caused.  wait
 * must return -1, the first.  A is spawned first and holds its worker
 * until B starts, so B runs on another worker. */
static void group_first_error_wins(wf_pool *p)
{
    wf_group g;
    reset_shared(NULL);
    shared.gate = &shared.late_started;
    CHECK_OK(wf_group_init(&g, p, NULL));
    spawn_kind(&g, &tasks[0], 0, G_FAIL_GATED, -1);
    spawn_kind(&g, &tasks[1], 1, G_HOLD_FAIL, -2);
    CHECK_ERR(wf_group_wait(&g), -1);
    CHECK_EQ(atomic_load(&shared.late_started), 1); /* B did run */
    CHECK_EQ(atomic_load(&shared.saw_cancel), 1);
}

/* Lifecycle errors: EPERM from other threads, ESTATE once waited, EINVAL
 * for NULL. */
typedef struct {
    wf_group *g;
    gtask *t;
} foreign_args;

static void foreign_checks(foreign_args *a)
{
    CHECK_ERR(wf_group_spawn(a->g, &a->t->gt, gtask_body), WF_EPERM);
    CHECK_ERR(wf_group_wait(a->g), WF_EPERM);
}

static void *foreign_thread(void *arg)
{
    foreign_checks(arg);
    return NULL;
}

static void foreign_worker(void *arg)
{
    foreign_checks(arg);
}

static void group_lifecycle(wf_pool *p)
{
    wf_group g;
    reset_shared(p);
    CHECK_OK(wf_group_init(&g, p, NULL));
    spawn_all(&g, 10, G_COUNT);
    /* Neither another thread nor a worker may spawn into g or wait. */
    gtask extra = {.sh = &shared, .g = &g, .idx = 10, .kind = G_COUNT};
    foreign_args fa = {&g, &extra};
    pthread_t th;
    CHECK(pthread_create(&th, NULL, foreign_thread, &fa) == 0);
    CHECK(pthread_join(th, NULL) == 0);
    CHECK_OK(wf_run(p, foreign_worker, &fa));
    CHECK_OK(wf_group_wait(&g));
    check_hits(10, "lifecycle");
    CHECK_ERR(wf_group_wait(&g), WF_ESTATE);
    CHECK_ERR(wf_group_cancel(&g), WF_ESTATE);
    CHECK_ERR(wf_group_spawn(&g, &extra.gt, gtask_body), WF_ESTATE);
    CHECK(!wf_group_is_cancelled(&g));
    CHECK_OK(wf_pool_wait_idle(p));
    CHECK_EQ(atomic_load(&shared.hits[10]), 0); /* refused: never ran */
    /* A group that failed is finished too. */
    CHECK_OK(wf_group_init(&g, p, NULL));
    spawn_kind(&g, &tasks[0], 0, G_FAIL, -3);
    CHECK_ERR(wf_group_wait(&g), -3);
    CHECK_ERR(wf_group_wait(&g), WF_ESTATE);
    /* A positive return is no error: wait returns 0, nothing cancelled. */
    CHECK_OK(wf_group_init(&g, p, NULL));
    spawn_kind(&g, &tasks[0], 0, G_FAIL, 5);
    CHECK_OK(wf_group_wait(&g));
    CHECK(!wf_group_is_cancelled(&g));
    CHECK_OK(wf_group_init(&g, p, NULL)); /* failed again, then waited */
    spawn_kind(&g, &tasks[0], 0, G_FAIL, -3);
    CHECK_ERR(wf_group_wait(&g), -3);
    CHECK_ERR(wf_group_cancel(&g), WF_ESTATE);
    CHECK_ERR(wf_group_spawn(&g, &extra.gt, gtask_body), WF_ESTATE);
    /* NULL arguments. */
    CHECK_ERR(wf_group_init(NULL, p, NULL), WF_EINVAL);
    CHECK_OK(wf_group_init(&g, p, NULL));
    CHECK_ERR(wf_group_spawn(NULL, &extra.gt, gtask_body), WF_EINVAL);
    CHECK_ERR(wf_group_spawn(&g, NULL, gtask_body), WF_EINVAL);
    CHECK_ERR(wf_group_spawn(&g, &extra.gt, NULL), WF_EINVAL);
    CHECK_ERR(wf_group_wait(NULL), WF_EINVAL);
    CHECK_ERR(wf_group_cancel(NULL), WF_EINVAL);
    CHECK_OK(wf_group_wait(&g));
    CHECK_OK(wf_pool_wait_idle(p));
    CHECK_EQ(atomic_load(&shared.hits[10]), 0);
}

static void scenario_group(void)
{
    for (size_t s = 0; s < NSIZES; s++) {
        wf_pool *p = make_pool(pool_sizes[s], 0, NULL);
        for (int inside = 0; inside < 2; inside++) {
            run_from(inside, p, group_count, p);
            run_from(inside, p, group_cancel_before, NULL);
            run_from(inside, p,
                     pool_sizes[s] == 1 ? group_fail_one_worker
                                        : group_fail_gated,
                     NULL);
        }
        if (pool_sizes[s] > 1) {
            group_first_error_wins(p);
            group_cancel_running(p);
            group_cancel_parent(p);
            group_error_reaches_children(p);
        }
        group_lifecycle(p);
        CHECK_OK(wf_pool_destroy(p));
    }
    group_count(NULL, NULL); /* from outside, on the default pool */
    group_cancel_queued();
    printf("group: counts, errors, cancellation, lifecycle: ok\n");
}

/* A task of g that runs on the thread that initialised g (here: inline in
 * the wait, on a 1-worker pool) spawns into g.  The spawn is either
 * refused, or the new task runs before wait returns.  (A spawn that
 * returned 0 for a task wait never joined lost the task and left it on the
 * worker's stack, pointing at a group that is gone; a thief doing the same
 * gets WF_EPERM.)  Everything is static so a lost task cannot touch a dead
 * frame if this check fails. */
static wf_group self_group;

static void group_self_spawn(wf_pool *p, void *arg)
{
    (void)arg;
    reset_shared(NULL);
    atomic_store(&shared.self_spawn_err, 1);
    CHECK_OK(wf_group_init(&self_group, p, NULL));
    spawn_kind(&self_group, &tasks[0], 0, G_SELF_SPAWN, 0);
    CHECK_OK(wf_group_wait(&self_group));
    int err = atomic_load(&shared.self_spawn_err);
    int ran = atomic_load(&shared.hits[1]);
    CHECK_MSG((err == 0 && ran == 1) || (err < 0 && ran == 0),
              "a task spawned into its own group during wf_group_wait: "
              "spawn returned %s, and the task had run %d times when wait "
              "returned",
              wf_err_name(err), ran);
}

static void scenario_group_self_spawn(void)
{
    wf_pool *p = make_pool(1, 0, NULL);
    run_from(1, p, group_self_spawn, NULL);
    CHECK_OK(wf_pool_destroy(p));
    printf("group_self_spawn: ok\n");
}

/* ======================================================================== */
/* ---- allocation failure ------------------------------------------------ */

static test_alloc ta;

enum { ALLOC_N = 2000 };

/* From a worker, everything that may need memory: loops (the worker's
 * stack and deque grow), a reduction, invoke, fork-join, groups with
 * children.  Every piece of work must happen exactly once. */
static void alloc_inside(wf_pool *p, void *arg)
{
    (void)arg;
    check_for(p, 0, ALLOC_N, 1);
    check_for(p, 0, ALLOC_N, 0);
    check_seq(p, 0, ALLOC_N, 1);
    check_invoke(p, 100, 1);
    CHECK_EQ(fib_par(15), 610);
    group_count(p, p);
}

/* From outside, a group's tasks go through the submission queue; those
 * that cannot be queued run inline, on this thread, so where they run is
 * not checked. */
static void alloc_group_outside(wf_pool *p)
{
    wf_group g;
    reset_shared(NULL);
    CHECK_OK(wf_group_init(&g, p, NULL));
    spawn_all(&g, NTASKS, G_COUNT);
    CHECK_OK(wf_group_wait(&g));
    check_hits(NTASKS, "group under allocation failure");
}

/* One run with the allocator failing as (mode, k) says, k counted from
 * the first allocation after the pool's creation.  Returns the number of
 * failed allocations. */
static long alloc_run(int mode, long k)
{
    ta_init(&ta, TA_NEVER, 0);
    wf_pool *p = make_pool(2, 4, &ta.iface); /* tiny: stacks must grow */
    atomic_store(&ta.fail_at, atomic_load(&ta.calls) + k);
    atomic_store(&ta.mode, mode);
    /* Loops from outside: documented to return 0 (or WF_EINVAL). */
    check_for(p, 0, ALLOC_N, 1);
    check_seq(p, 0, ALLOC_N, 0);
    inside_job j = {alloc_inside, p, NULL};
    CHECK_OK(wf_run(p, inside_trampoline, &j));
    alloc_group_outside(p);
    CHECK_OK(wf_run(p, inside_trampoline, &j));
    long failures = atomic_load(&ta.failures);
    CHECK_OK(wf_pool_destroy(p));
    ta_check_no_leak(&ta, "destroy after allocation failures");
    return failures;
}

static void scenario_alloc(void)
{
    int points = 0;
    for (int mode = TA_FROM; mode >= TA_ONE; mode--) {
        long k = 0;
        while (alloc_run(mode, k) > 0) {
            k++;
            points++;
            CHECK_MSG(k < 1000, "still failing after %ld allocations", k);
        }
    }
    printf("alloc: %d failure points swept, nothing lost or leaked: ok\n",
           points);
}

/* ======================================================================== */

int main(int argc, char **argv)
{
    static const check_scenario scenarios[] = {
        {"for", scenario_for},
        {"for_lazy_split", scenario_for_lazy_split},
        {"box", scenario_box},
        {"per_thread", scenario_per_thread},
        {"reduce", scenario_reduce},
        {"invoke", scenario_invoke},
        {"group", scenario_group},
        {"group_self_spawn", scenario_group_self_spawn},
        {"alloc", scenario_alloc},
    };
    return CHECK_RUN_SCENARIOS("pool_api", argc, argv, scenarios);
}
