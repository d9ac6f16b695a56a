/* SPDX-License-Identifier: Apache-2.0 */
/* pool_pipeline: wf_parallel_pipeline against its oracles.
 *
 * ARGS: a scenario name (none: all of them), then optionally a divisor of
 * the item counts (the sanitizer builds pass one).
 *   order       pipelines of 2 to 6 stages in every mix of modes, on pools
 *               of 1, 2 and 4 threads, max_tokens 1, 2, 3, 8 and 64: every
 *               serial-in-order stage sees exactly 0..N-1 in order (kept in
 *               plain variables: TSan checks that the calls are ordered);
 *               no serial stage ever has two calls at once (an atomic
 *               in-body counter); every stage is called exactly N times
 *               with the value the stage before returned (item 0 is NULL);
 *               at most max_tokens items are in flight (made by the first
 *               stage, not yet through the last), and on 2+ threads with
 *               a parallel stage more than one is at some point.
 *   tokens1     max_tokens = 1: never two items in flight, order kept.
 *   buffers     with an in-order last stage, max_tokens buffers used in
 *               turn (item i in buffer i % max_tokens) are enough: the
 *               first stage never finds its buffer still in use, and TSan
 *               sees the last stage's plain stores ordered before it.
 *   single      n = 1: the first stage alone makes N items; a first stage
 *               that stops at once: no item, result 0.
 *   alloc       the pool's allocator fails: WF_ENOMEM and nothing runs; it
 *               fails after the records (the deques cannot grow): every
 *               item still goes through once, in order; no leak.
 *   args        bad arguments: WF_EINVAL / WF_ERANGE, and no stage runs;
 *               NULL ctl is accepted by stop, fail and is_cancelled.
 *   fail        a stage fails at item F: the call returns its code (the
 *               first of two); no stage call starts after the failure but
 *               for at most one per other token in flight; every item made
 *               either went through every stage or was dropped, once; the
 *               first stage makes no item after the failure is seen; a
 *               failure in the first stage ignores what it returns; a
 *               code >= 0 is WF_EINVAL; wf_pipeline_is_cancelled turns
 *               true; a stop from a later stage lets every item made
 *               through and returns 0.
 *   cancel      a group given in the config: cancelled before the call
 *               (nothing runs), by wf_group_cancel during it, and by the
 *               error of a sibling task when the pipeline runs in a group
 *               task: WF_ECANCELED, and nothing lost.
 *   nested      called from a task of the pool, from a parallel stage of
 *               another pipeline on the same pool (inner pipelines run
 *               while the outer one holds tokens), from a worker of
 *               another pool, and from 6 outside threads at once (more
 *               than the caller slots): every run checked as in order.
 *   stress      random mixes of modes, stage counts, max_tokens and work,
 *               many rounds, on 2 and 4 threads. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>

#include "check.h"
#include "test_alloc.h"

static long divisor = 1;

static long scaled(long n)
{
    n /= divisor;
    return n < 1 ? 1 : n;
}

#define MAX_STAGES 8

/* One stage's oracle state.  `expect` and `sum` are plain: only the
 * stage's own calls touch them, which weft orders for serial stages. */
typedef struct stage_state {
    wf_stage_mode mode;
    int index; /* position in the pipeline */
    struct pipe_test *t;
    _Atomic long calls;
    _Atomic int inbody;
    _Atomic int max_inbody;
    long expect;  /* in order: the next item's number */
    uint64_t sum; /* serial: the items it saw (order-free check) */
} stage_state;

typedef struct pipe_test {
    long items; /* the first stage makes 0 .. items-1 */
    size_t tokens;
    unsigned work; /* spin per parallel call, scaled by the item */
    long made;     /* the first stage's own */
    _Atomic long in_flight, max_in_flight, through;
    _Atomic long late; /* stage calls begun after the failure */
    _Atomic long dropped;
    _Atomic int failed;
    long fail_at; /* -1: never */
    int fail_stage, fail_code;
    stage_state st[MAX_STAGES];
    size_t n;
    _Atomic unsigned char *seen; /* [items]: through or dropped, once */
} pipe_test;

static void atomic_max(_Atomic long *m, long v)
{
    long cur = atomic_load(m);
    while (v > cur && !atomic_compare_exchange_weak(m, &cur, v))
        ;
}

static void atomic_max_int(_Atomic int *m, int v)
{
    int cur = atomic_load(m);
    while (v > cur && !atomic_compare_exchange_weak(m, &cur, v))
        ;
}

/* Uneven work, so that items overtake each other in parallel stages. */
static unsigned spin_for(unsigned iters)
{
    volatile unsigned x = 0;
    for (unsigned i = 0; i < iters; i++)
        x = x + i;
    return x;
}

static void maybe_fail(pipe_test *t, stage_state *s, long item,
                       wf_pipeline_ctl *ctl)
{
    if (item != t->fail_at || s->index != t->fail_stage)
        return;
    /* Fail first: a thread that sees `failed` then sees the failure. */
    wf_pipeline_fail(ctl, t->fail_code);
    wf_pipeline_fail(ctl, -7777); /* the first code wins */
    CHECK(wf_pipeline_is_cancelled(ctl));
    atomic_store(&t->failed, 1);
}

static void *first_stage(void *item, void *ctx, wf_pipeline_ctl *ctl)
{
    stage_state *s = ctx;
    pipe_test *t = s->t;
    CHECK(item == NULL);
    CHECK_EQ(atomic_fetch_add(&s->inbody, 1), 0); /* one call at a time */
    atomic_fetch_add(&s->calls, 1);
    if (atomic_load(&t->failed))
        atomic_fetch_add(&t->late, 1);
    /* After a stop or a failure, what it returns must be ignored. */
    void *out = (void *)(uintptr_t)0xdead;
    if (t->made == t->items) {
        wf_pipeline_stop(ctl);
    } else if (t->made == t->fail_at && t->fail_stage == 0) {
        maybe_fail(t, s, t->made, ctl);
    } else {
        long i = t->made++;
        atomic_max(&t->max_in_flight, atomic_fetch_add(&t->in_flight, 1) + 1);
        out = (void *)(uintptr_t)i; /* item 0 is NULL */
        if (t->n == 1) {            /* through already */
            CHECK_EQ(atomic_fetch_add(&t->seen[i], 1), 0);
            atomic_fetch_sub(&t->in_flight, 1);
            atomic_fetch_add(&t->through, 1);
        }
    }
    atomic_fetch_sub(&s->inbody, 1);
    return out;
}

/* The value stage k returns for an item: the item, tagged with k (the
 * first stage's, tag 0, is the item itself). */
#define TAGGED(item, k)                                                        \
    ((void *)(uintptr_t)((uint64_t)(item) | (uint64_t)(k) << 32))
#define ITEM_OF(v) ((long)((uintptr_t)(v)&0xffffffffu))
#define TAG_OF(v) ((int)((uint64_t)(uintptr_t)(v) >> 32))

/* Stage k (k >= 1) gets the item tagged k - 1 and returns it tagged k. */
static void *later_stage(void *v, void *ctx, wf_pipeline_ctl *ctl)
{
    stage_state *s = ctx;
    pipe_test *t = s->t;
    long item = ITEM_OF(v);
    CHECK_MSG(TAG_OF(v) == s->index - 1 && item < t->items,
              "stage %d got item %ld from stage %d", s->index, item, TAG_OF(v));
    if (atomic_load(&t->failed))
        atomic_fetch_add(&t->late, 1);
    int in = atomic_fetch_add(&s->inbody, 1) + 1;
    atomic_max_int(&s->max_inbody, in);
    atomic_fetch_add(&s->calls, 1);
    if (s->mode == WF_STAGE_SERIAL_IN_ORDER)
        CHECK_MSG(item == s->expect++,
                  "in-order stage %d: item %ld, "
                  "expected %ld",
                  s->index, item, s->expect - 1);
    if (s->mode != WF_STAGE_PARALLEL)
        s->sum += (uint64_t)item;
    else
        (void)spin_for(t->work ? (unsigned)(item * 2654435761u % t->work) : 0);
    maybe_fail(t, s, item, ctl);
    atomic_fetch_sub(&s->inbody, 1);
    if ((size_t)s->index == t->n - 1) {
        CHECK_EQ(atomic_fetch_add(&t->seen[item], 1), 0);
        atomic_fetch_sub(&t->in_flight, 1);
        atomic_fetch_add(&t->through, 1);
    }
    return TAGGED(item, s->index);
}

/* Through the config's drop: the value the last stage it passed gave. */
static void drop_item(void *v, void *ctx)
{
    pipe_test *t = ctx;
    long item = ITEM_OF(v);
    CHECK_MSG(item < t->items && (size_t)TAG_OF(v) < t->n - 1,
              "dropped item %ld from stage %d", item, TAG_OF(v));
    CHECK_EQ(atomic_fetch_add(&t->seen[item], 1), 0); /* dropped once */
    atomic_fetch_add(&t->dropped, 1);
    atomic_fetch_sub(&t->in_flight, 1);
}

static void test_init(pipe_test *t, long items, size_t tokens,
                      const wf_stage_mode *modes, size_t n)
{
    CHECK(n >= 1 && n <= MAX_STAGES);
    memset(t, 0, sizeof *t);
    t->items = items;
    t->tokens = tokens;
    t->n = n;
    t->work = 2000;
    t->fail_at = -1;
    t->seen = calloc((size_t)items + 1, 1);
    CHECK(t->seen != NULL);
    for (size_t i = 0; i < n; i++)
        t->st[i] = (stage_state){.mode = modes[i], .index = (int)i, .t = t};
}

static int test_run(wf_pool *pool, pipe_test *t, wf_group *g)
{
    wf_stage stages[MAX_STAGES];
    for (size_t i = 0; i < t->n; i++)
        stages[i] =
            (wf_stage){t->st[i].mode, i ? later_stage : first_stage, &t->st[i]};
    wf_pipeline_config cfg = WF_PIPELINE_CONFIG_INIT;
    cfg.group = g;
    cfg.drop = drop_item;
    cfg.drop_ctx = t;
    return wf_parallel_pipeline_with(pool, t->tokens, stages, t->n, &cfg);
}

/* Every item was made once and went through every stage, in order where
 * the mode asks; never more than max_tokens at once; serial stages never
 * overlapped. */
static void check_complete(pipe_test *t)
{
    CHECK_EQ(t->made, t->items);
    CHECK_EQ(atomic_load(&t->through), t->items);
    CHECK_EQ(atomic_load(&t->dropped), 0);
    CHECK_EQ(atomic_load(&t->in_flight), 0);
    CHECK_MSG(atomic_load(&t->max_in_flight) <= (long)t->tokens,
              "%ld in flight, max_tokens %zu", atomic_load(&t->max_in_flight),
              t->tokens);
    CHECK_EQ(atomic_load(&t->st[0].calls), t->items + 1); /* + the stop */
    uint64_t total = (uint64_t)t->items * (uint64_t)(t->items - 1) / 2;
    for (size_t i = 1; i < t->n; i++) {
        stage_state *s = &t->st[i];
        CHECK_EQ(atomic_load(&s->calls), t->items);
        if (s->mode == WF_STAGE_SERIAL_IN_ORDER)
            CHECK_EQ(s->expect, t->items);
        if (s->mode != WF_STAGE_PARALLEL) {
            CHECK_EQ(atomic_load(&s->max_inbody), 1);
            CHECK(s->sum == total);
        }
    }
    for (long i = 0; i < t->items; i++)
        CHECK_EQ(atomic_load(&t->seen[i]), 1);
}

static void test_free(pipe_test *t)
{
    free((void *)t->seen);
}

/* Run one pipeline to completion on `pool` and check it. */
static void run_complete(wf_pool *pool, long items, size_t tokens,
                         const wf_stage_mode *modes, size_t n, unsigned work)
{
    pipe_test *t = malloc(sizeof *t);
    CHECK(t != NULL);
    test_init(t, items, tokens, modes, n);
    t->work = work;
    CHECK_OK(test_run(pool, t, NULL));
    check_complete(t);
    test_free(t);
    free(t);
}

/* ---- order --------------------------------------------------------------- */

#define P WF_STAGE_PARALLEL
#define I WF_STAGE_SERIAL_IN_ORDER
#define O WF_STAGE_SERIAL_OUT_OF_ORDER

static const struct {
    size_t n;
    wf_stage_mode m[MAX_STAGES];
} shapes[] = {
    {2, {I, I}},          {2, {I, P}},
    {2, {O, O}},          {3, {I, P, I}},
    {3, {O, P, I}},       {3, {I, P, O}},
    {4, {I, P, P, I}},    {4, {I, O, P, I}},
    {5, {I, P, I, P, I}}, {6, {O, P, O, P, I, O}},
};
#define NSHAPES (sizeof shapes / sizeof shapes[0])

/* With a parallel stage and 2+ threads, some items overlap: the pipeline
 * does run in parallel (a long stage makes it certain enough). */
static void check_overlap(wf_pool *pool)
{
    static const wf_stage_mode m[] = {I, P, I};
    pipe_test *t = malloc(sizeof *t);
    CHECK(t != NULL);
    for (int attempt = 0; attempt < 20; attempt++) {
        test_init(t, scaled(400), 8, m, 3);
        t->work = 200000;
        CHECK_OK(test_run(pool, t, NULL));
        check_complete(t);
        int overlap = atomic_load(&t->st[1].max_inbody) > 1;
        test_free(t);
        if (overlap) {
            free(t);
            return;
        }
    }
    CHECK_MSG(0, "a parallel stage never ran two calls at once on %u threads",
              wf_pool_threads(pool));
}

static void scenario_order(void)
{
    static const unsigned threads[] = {1, 2, 4};
    static const size_t tokens[] = {1, 2, 3, 8, 64};
    for (size_t k = 0; k < 3; k++) {
        wf_pool *pool = check_pool(threads[k]);
        for (size_t s = 0; s < NSHAPES; s++)
            for (size_t j = 0; j < 5; j++)
                run_complete(pool, scaled(1500), tokens[j], shapes[s].m,
                             shapes[s].n, 2000);
        if (threads[k] > 1)
            check_overlap(pool);
        CHECK_OK(wf_pool_destroy(pool));
    }
}

static void scenario_tokens1(void)
{
    static const wf_stage_mode m[] = {I, P, O, P, I};
    for (unsigned threads = 1; threads <= 4; threads *= 2) {
        wf_pool *pool = check_pool(threads);
        pipe_test t;
        test_init(&t, scaled(3000), 1, m, 5);
        CHECK_OK(test_run(pool, &t, NULL));
        check_complete(&t);
        CHECK_EQ(atomic_load(&t.max_in_flight), 1);
        test_free(&t);
        CHECK_OK(wf_pool_destroy(pool));
    }
}

/* ---- buffers used in turn ------------------------------------------------ */

/* With an in-order last stage, item i is made after the last stage is done
 * with item i - max_tokens: the first stage writes buffer i % max_tokens
 * and the last one frees it, both with plain stores that TSan checks. */
typedef struct {
    long item;
    int busy;
} ring_buf;

typedef struct {
    ring_buf *bufs;
    size_t tokens;
    long made, items, expect;
} ring_test;

static void *ring_input(void *item, void *ctx, wf_pipeline_ctl *ctl)
{
    (void)item;
    ring_test *r = ctx;
    if (r->made == r->items) {
        wf_pipeline_stop(ctl);
        return NULL;
    }
    ring_buf *b = &r->bufs[(size_t)r->made % r->tokens];
    CHECK_MSG(!b->busy, "buffer of item %ld still in use", r->made);
    b->busy = 1;
    b->item = r->made++;
    return b;
}

static void *ring_pass(void *item, void *ctx, wf_pipeline_ctl *ctl)
{
    (void)ctx, (void)ctl;
    ring_buf *b = item;
    (void)spin_for((unsigned)(b->item * 2654435761u % 3000));
    return item;
}

static void *ring_output(void *item, void *ctx, wf_pipeline_ctl *ctl)
{
    (void)ctl;
    ring_test *r = ctx;
    ring_buf *b = item;
    CHECK_EQ(b->item, r->expect++);
    b->busy = 0;
    return NULL;
}

static void scenario_buffers(void)
{
    static const size_t tokens[] = {1, 2, 3, 8};
    for (unsigned threads = 1; threads <= 4; threads *= 2) {
        wf_pool *pool = check_pool(threads);
        for (size_t k = 0; k < 4; k++) {
            ring_test r = {.tokens = tokens[k], .items = scaled(3000)};
            r.bufs = calloc(r.tokens, sizeof *r.bufs);
            CHECK(r.bufs != NULL);
            wf_stage st[4] = {{O, ring_input, &r},
                              {P, ring_pass, NULL},
                              {O, ring_pass, NULL},
                              {I, ring_output, &r}};
            CHECK_OK(wf_parallel_pipeline(pool, r.tokens, st, 4));
            CHECK_EQ(r.expect, r.items);
            free(r.bufs);
        }
        CHECK_OK(wf_pool_destroy(pool));
    }
}

/* ---- n = 1 --------------------------------------------------------------- */

static void *stop_at_once(void *item, void *ctx, wf_pipeline_ctl *ctl)
{
    (void)item;
    atomic_fetch_add((_Atomic long *)ctx, 1);
    wf_pipeline_stop(ctl);
    return (void *)1; /* ignored */
}

static void scenario_single(void)
{
    static const wf_stage_mode in_order[] = {I}, out_of_order[] = {O};
    wf_pool *pool = check_pool(2);
    run_complete(pool, scaled(20000), 4, in_order, 1, 0);
    run_complete(pool, scaled(20000), 1, out_of_order, 1, 0);
    _Atomic long calls = 0;
    wf_stage st = {I, stop_at_once, &calls};
    CHECK_OK(wf_parallel_pipeline(pool, 4, &st, 1));
    CHECK_EQ(atomic_load(&calls), 1);
    CHECK_OK(wf_pool_destroy(pool));
}

/* ---- bad arguments ------------------------------------------------------- */

static _Atomic long never_calls;

static void *never(void *item, void *ctx, wf_pipeline_ctl *ctl)
{
    (void)item, (void)ctx, (void)ctl;
    atomic_fetch_add(&never_calls, 1);
    return NULL;
}

static void scenario_args(void)
{
    wf_pool *pool = check_pool(2);
    wf_stage ok[2] = {{I, never, NULL}, {P, never, NULL}};
    wf_stage bad[2];
    CHECK_ERR(wf_parallel_pipeline(NULL, 4, ok, 2), WF_EINVAL);
    CHECK_ERR(wf_parallel_pipeline(pool, 4, NULL, 2), WF_EINVAL);
    CHECK_ERR(wf_parallel_pipeline(pool, 4, ok, 0), WF_EINVAL);
    CHECK_ERR(wf_parallel_pipeline(pool, 0, ok, 2), WF_EINVAL);
    for (int k = 0; k < 2; k++) {
        memcpy(bad, ok, sizeof bad);
        bad[k].fn = NULL;
        CHECK_ERR(wf_parallel_pipeline(pool, 4, bad, 2), WF_EINVAL);
        memcpy(bad, ok, sizeof bad);
        bad[k].mode = (wf_stage_mode)7;
        CHECK_ERR(wf_parallel_pipeline(pool, 4, bad, 2), WF_EINVAL);
        bad[k].mode = (wf_stage_mode)-1;
        CHECK_ERR(wf_parallel_pipeline(pool, 4, bad, 2), WF_EINVAL);
    }
    memcpy(bad, ok, sizeof bad);
    bad[0].mode = P; /* a parallel first stage is refused */
    CHECK_ERR(wf_parallel_pipeline(pool, 4, bad, 2), WF_EINVAL);
    CHECK_ERR(wf_parallel_pipeline(pool, WF_PIPELINE_MAX_TOKENS + 1ul, ok, 2),
              WF_ERANGE);
    CHECK_ERR(wf_parallel_pipeline(pool, SIZE_MAX, ok, 2), WF_ERANGE);
    CHECK_ERR(wf_parallel_pipeline_with(pool, 4, ok, 0, NULL), WF_EINVAL);
    CHECK_EQ(atomic_load(&never_calls), 0);
    wf_pipeline_stop(NULL);
    wf_pipeline_fail(NULL, WF_EINVAL);
    CHECK(!wf_pipeline_is_cancelled(NULL));
    CHECK_OK(wf_pool_destroy(pool));
}

/* ---- memory -------------------------------------------------------------- */

/* The records come from the pool's allocator: when it fails, WF_ENOMEM and
 * nothing runs; when everything after them fails (the deques cannot grow,
 * so spawned tokens stay private), every item still goes through once, in
 * order; nothing leaks. */
static void scenario_alloc(void)
{
    static const wf_stage_mode m[] = {I, P, O, P, I};
    static test_alloc ta;
    for (unsigned threads = 1; threads <= 4; threads *= 2) {
        ta_init(&ta, TA_NEVER, 0);
        wf_pool *pool = make_pool(threads, 2, &ta.iface);
        pipe_test *t = malloc(sizeof *t);
        CHECK(t != NULL);
        test_init(t, scaled(2000), 8, m, 5);
        ta_fail_from_now(&ta, 1);
        CHECK_ERR(test_run(pool, t, NULL), WF_ENOMEM);
        CHECK_EQ(atomic_load(&t->st[0].calls), 0);
        test_free(t);
        /* The records only; the deques (2 slots each) cannot grow. */
        atomic_store(&ta.fail_at, atomic_load(&ta.calls) + 1);
        test_init(t, scaled(2000), 8, m, 5);
        CHECK_OK(test_run(pool, t, NULL));
        check_complete(t);
        test_free(t);
        free(t);
        ta_fail_from_now(&ta, 0);
        CHECK_OK(wf_pool_destroy(pool));
        ta_check_no_leak(&ta, "pipeline with a failing allocator");
    }
}

/* ---- failure ------------------------------------------------------------- */

/* Made = through + dropped, each item exactly once; what the failure
 * allows: one late call per other token, nothing made after it but what
 * the tokens in flight allowed. */
static void check_failed(pipe_test *t)
{
    long made = t->made;
    CHECK_EQ(atomic_load(&t->through) + atomic_load(&t->dropped), made);
    CHECK_EQ(atomic_load(&t->in_flight), 0);
    for (long i = 0; i < made; i++)
        CHECK_MSG(atomic_load(&t->seen[i]) == 1,
                  "item %ld through or dropped %d times", i,
                  (int)atomic_load(&t->seen[i]));
    CHECK_MSG(atomic_load(&t->late) <= (long)t->tokens - 1,
              "%ld stage calls after the failure, %zu tokens",
              atomic_load(&t->late), t->tokens);
    CHECK_MSG(atomic_load(&t->max_in_flight) <= (long)t->tokens,
              "%ld in flight, max_tokens %zu", atomic_load(&t->max_in_flight),
              t->tokens);
}

static void fail_case(wf_pool *pool, const wf_stage_mode *m, size_t n,
                      int stage, long at, size_t tokens, int code, int want)
{
    pipe_test *t = malloc(sizeof *t);
    CHECK(t != NULL);
    test_init(t, scaled(4000), tokens, m, n);
    t->fail_stage = stage;
    t->fail_at = at;
    t->fail_code = code;
    CHECK_ERR(test_run(pool, t, NULL), want);
    check_failed(t);
    if (stage == 0) { /* the failing call made no item; no call after it */
        CHECK_EQ(t->made, at);
        CHECK_EQ(atomic_load(&t->st[0].calls), at + 1);
    } else {
        CHECK(t->made > at);
    }
    test_free(t);
    free(t);
}

static void *stop_later(void *v, void *ctx, wf_pipeline_ctl *ctl)
{
    stage_state *s = ctx;
    if ((long)(uintptr_t)v == 100)
        wf_pipeline_stop(ctl);
    (void)s;
    return v;
}

static void *endless(void *item, void *ctx, wf_pipeline_ctl *ctl)
{
    (void)item, (void)ctl;
    long *made = ctx;
    CHECK_MSG(*made < 10000000, "a later stage's stop never took effect");
    return (void *)(uintptr_t)(*made)++;
}

static void *count_last(void *v, void *ctx, wf_pipeline_ctl *ctl)
{
    (void)ctl;
    long *expect = ctx;
    CHECK_EQ((long)(uintptr_t)v, *expect);
    (*expect)++;
    return NULL;
}

/* wf_pipeline_stop from a later stage: the input stops, every item made
 * goes through. */
static void stop_from_later(wf_pool *pool)
{
    long made = 0, expect = 0;
    wf_stage st[3] = {
        {I, endless, &made}, {P, stop_later, NULL}, {I, count_last, &expect}};
    CHECK_OK(wf_parallel_pipeline(pool, 8, st, 3));
    CHECK(made > 100);
    CHECK_EQ(expect, made);
}

static void scenario_fail(void)
{
    static const wf_stage_mode m3[] = {I, P, I}, m5[] = {I, P, O, P, I},
                               m4[] = {O, O, P, P};
    for (unsigned threads = 1; threads <= 4; threads *= 2) {
        wf_pool *pool = check_pool(threads);
        for (size_t tokens = 1; tokens <= 16; tokens *= 4) {
            fail_case(pool, m3, 3, 1, 500, tokens, -1234, -1234);
            fail_case(pool, m3, 3, 2, 10, tokens, WF_ENOMEM, WF_ENOMEM);
            fail_case(pool, m5, 5, 2, 0, tokens, -5, -5);
            fail_case(pool, m5, 5, 4, scaled(4000) - 1, tokens, -6, -6);
            fail_case(pool, m4, 4, 3, 77, tokens, 3, WF_EINVAL);
            fail_case(pool, m3, 3, 0, 250, tokens, -42, -42);
            fail_case(pool, m4, 4, 0, 0, tokens, -43, -43);
        }
        stop_from_later(pool);
        CHECK_OK(wf_pool_destroy(pool));
    }
}

/* ---- cancellation -------------------------------------------------------- */

typedef struct {
    wf_group_task gt;
    wf_pool *pool;
    pipe_test *t;
    wf_group *group; /* the one it runs in */
    int result;
    _Atomic int *started;
} group_job;

static void *cancel_in_stage(void *v, void *ctx, wf_pipeline_ctl *ctl)
{
    wf_group *g = ctx;
    if ((long)(uintptr_t)v == 300) {
        CHECK_OK(wf_group_cancel(g));
        CHECK(wf_pipeline_is_cancelled(ctl));
    }
    return v;
}

/* The endless input, for pipelines that only a cancellation ends. */
static int pipeline_job(wf_group_task *gt)
{
    group_job *j = (group_job *)gt;
    test_init(j->t, 2000000, 8, (const wf_stage_mode[]){I, P, I}, 3);
    atomic_store(j->started, 1);
    j->result = test_run(j->pool, j->t, j->group);
    return 0;
}

static int failing_job(wf_group_task *gt)
{
    group_job *j = (group_job *)gt;
    while (!atomic_load(j->started))
        sched_yield();
    return -31; /* cancels the group */
}

static void cancel_in_group(wf_pool *pool)
{
    wf_group g;
    CHECK_OK(wf_group_init(&g, pool, NULL));
    _Atomic int started = 0;
    pipe_test *t = malloc(sizeof *t);
    CHECK(t != NULL);
    group_job a = {.pool = pool, .t = t, .group = &g, .started = &started};
    group_job b = {.pool = pool, .started = &started};
    CHECK_OK(wf_group_spawn(&g, &a.gt, pipeline_job));
    CHECK_OK(wf_group_spawn(&g, &b.gt, failing_job));
    CHECK_ERR(wf_group_wait(&g), -31);
    CHECK_ERR(a.result, WF_ECANCELED);
    CHECK(t->made < t->items);
    check_failed(t);
    test_free(t);
    free(t);
}

static void scenario_cancel(void)
{
    for (unsigned threads = 1; threads <= 4; threads *= 2) {
        wf_pool *pool = check_pool(threads);
        /* Cancelled before: the first stage is never called. */
        wf_group g;
        CHECK_OK(wf_group_init(&g, pool, NULL));
        CHECK_OK(wf_group_cancel(&g));
        pipe_test *t = malloc(sizeof *t);
        CHECK(t != NULL);
        test_init(t, 100, 4, (const wf_stage_mode[]){I, P}, 2);
        CHECK_ERR(test_run(pool, t, &g), WF_ECANCELED);
        CHECK_EQ(atomic_load(&t->st[0].calls), 0);
        CHECK_EQ(wf_group_wait(&g), WF_ECANCELED);
        test_free(t);
        free(t);
        /* Cancelled by a stage, through the group. */
        CHECK_OK(wf_group_init(&g, pool, NULL));
        long made = 0, expect = 0;
        wf_stage st[3] = {{I, endless, &made},
                          {P, cancel_in_stage, &g},
                          {I, count_last, &expect}};
        wf_pipeline_config cfg = WF_PIPELINE_CONFIG_INIT;
        cfg.group = &g;
        CHECK_ERR(wf_parallel_pipeline_with(pool, 8, st, 3, &cfg),
                  WF_ECANCELED);
        CHECK(expect <= made && made <= 300 + 8);
        CHECK_EQ(wf_group_wait(&g), WF_ECANCELED);
        if (threads > 1) /* the group's two tasks must run at once */
            cancel_in_group(pool);
        CHECK_OK(wf_pool_destroy(pool));
    }
}

/* ---- nested calls -------------------------------------------------------- */

static wf_pool *nested_pool;
static _Atomic long inner_runs;

static void inner_pipeline(void *arg)
{
    (void)arg;
    static const wf_stage_mode m[] = {I, P, I};
    run_complete(nested_pool, scaled(200), 4, m, 3, 500);
    atomic_fetch_add(&inner_runs, 1);
}

static void *outer_stage(void *v, void *ctx, wf_pipeline_ctl *ctl)
{
    (void)ctx, (void)ctl;
    CHECK(wf_current_pool() == nested_pool);
    inner_pipeline(NULL);
    return v;
}

static void *outside_thread(void *arg)
{
    (void)arg;
    CHECK(wf_current_pool() == NULL);
    static const wf_stage_mode m[] = {O, P, I, P};
    run_complete(nested_pool, scaled(2000), 6, m, 4, 1000);
    return NULL;
}

/* The first stage of the outer pipeline: 0 .. limit-1. */
typedef struct {
    long made, limit;
} counted;

static void *count_input(void *item, void *ctx, wf_pipeline_ctl *ctl)
{
    (void)item;
    counted *c = ctx;
    if (c->made == c->limit)
        wf_pipeline_stop(ctl);
    return (void *)(uintptr_t)c->made++;
}

static void scenario_nested(void)
{
    for (unsigned threads = 1; threads <= 4; threads *= 2) {
        nested_pool = check_pool(threads);
        atomic_store(&inner_runs, 0);
        CHECK_OK(wf_run(nested_pool, inner_pipeline, NULL)); /* a task */
        /* In a parallel stage of a pipeline on the same pool. */
        counted c = {0, 12};
        long expect = 0;
        wf_stage st[3] = {{I, count_input, &c},
                          {P, outer_stage, NULL},
                          {I, count_last, &expect}};
        CHECK_OK(wf_parallel_pipeline(nested_pool, 4, st, 3));
        CHECK_EQ(expect, 12);
        CHECK_EQ(atomic_load(&inner_runs), 13);
        /* From a worker of another pool. */
        wf_pool *other = check_pool(2);
        CHECK_OK(wf_run(other, inner_pipeline, NULL));
        CHECK_OK(wf_pool_destroy(other));
        CHECK_EQ(atomic_load(&inner_runs), 14);
        /* From more outside threads than there are caller slots. */
        pthread_t th[6];
        for (int i = 0; i < 6; i++)
            CHECK(pthread_create(&th[i], NULL, outside_thread, NULL) == 0);
        for (int i = 0; i < 6; i++)
            CHECK(pthread_join(th[i], NULL) == 0);
        CHECK_OK(wf_pool_destroy(nested_pool));
    }
}

/* ---- stress -------------------------------------------------------------- */

static void scenario_stress(void)
{
    uint64_t rng = 0x9e3779b97f4a7c15u;
    for (unsigned threads = 2; threads <= 4; threads *= 2) {
        wf_pool *pool = check_pool(threads);
        for (long round = 0; round < scaled(2000); round++) {
            wf_stage_mode m[MAX_STAGES];
            size_t n = 1 + check_rand(&rng) % 6;
            m[0] = check_rand(&rng) % 2 ? I : O;
            for (size_t i = 1; i < n; i++)
                m[i] = (wf_stage_mode)(check_rand(&rng) % 3);
            size_t tokens = 1 + check_rand(&rng) % 32;
            long items = 1 + (long)(check_rand(&rng) % 1500);
            unsigned work = (unsigned)(check_rand(&rng) % 5000);
            run_complete(pool, items, tokens, m, n, work);
        }
        CHECK_OK(wf_pool_destroy(pool));
    }
}

int main(int argc, char **argv)
{
    if (argc > 2)
        divisor = strtol(argv[2], NULL, 10) > 0 ? strtol(argv[2], NULL, 10) : 1;
    static const check_scenario scenarios[] = {
        {"order", scenario_order},     {"tokens1", scenario_tokens1},
        {"single", scenario_single},   {"args", scenario_args},
        {"fail", scenario_fail},       {"cancel", scenario_cancel},
        {"nested", scenario_nested},   {"stress", scenario_stress},
        {"buffers", scenario_buffers}, {"alloc", scenario_alloc},
    };
    return CHECK_RUN_SCENARIOS("pool_pipeline", argc, argv, scenarios);
}
