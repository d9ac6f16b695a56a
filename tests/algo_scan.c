/* SPDX-License-Identifier: Apache-2.0 */
/* wf_parallel_scan and wf_parallel_scan_array, one scenario per argv[1]:
 *
 *   scan     inclusive and exclusive scans written as bodies, for many n
 *            (0, 1, below the grain, above it) and grains, on pools of 1,
 *            2 and 4 threads, from outside and from inside the pool: every
 *            output and the total equal a sequential scan's; with a
 *            non-commutative combine (composition of affine maps), so a
 *            block combined out of order shows; and with blocks that
 *            another thread folds before their prefix is known
 *   array    wf_parallel_scan_array, inclusive and exclusive, into another
 *            array and in place: as a sequential scan
 *   args     bad arguments: WF_EINVAL, the body never called
 *   oom      block sums that need memory the allocator refuses: WF_ENOMEM,
 *            the body never called, nothing leaked */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "test_alloc.h"

#ifdef WF_TEST_SANITIZED
#define BIG 30000
#else
#define BIG 400000
#endif

/* x -> a*x + b (mod 2^32).  Composition is associative and not
 * commutative: combine(l, r) is "l, then r". */
typedef struct {
    uint32_t a, b;
} affine;

static affine affine_of(size_t i)
{
    return (affine){(uint32_t)(i * 2654435761u) | 1u, (uint32_t)(i * 40503u)};
}

static void compose(void *left, const void *right, void *ctx)
{
    (void)ctx;
    affine *l = left;
    const affine *r = right;
    *l = (affine){r->a * l->a, r->a * l->b + r->b};
}

typedef struct {
    const affine *in;
    affine *out;
    bool exclusive;
    _Atomic long calls;
} body_ctx;

static void affine_body(size_t begin, size_t end, void *acc, bool final,
                        void *ctx)
{
    body_ctx *c = ctx;
    atomic_fetch_add(&c->calls, 1);
    affine *x = acc;
    for (size_t i = begin; i < end; i++) {
        if (final && c->exclusive)
            c->out[i] = *x;
        compose(x, &c->in[i], NULL);
        if (final && !c->exclusive)
            c->out[i] = *x;
    }
}

static const affine ident = {1, 0};

/* Scan [lo, n) of in with `grain`; check outputs and total. */
static void check_scan(wf_pool *p, size_t lo, size_t n, size_t grain,
                       bool exclusive)
{
    affine *in = malloc((n + 1) * sizeof *in);
    affine *out = calloc(n + 1, sizeof *out);
    CHECK(in && out);
    for (size_t i = 0; i < n; i++)
        in[i] = affine_of(i);
    body_ctx c = {in, out, exclusive, 0};
    affine total = {0, 0};
    CHECK_OK(wf_parallel_scan(p, lo, n, grain, &total, sizeof total, &ident,
                              affine_body, compose, &c));
    affine run = ident;
    for (size_t i = lo; i < n; i++) {
        affine before = run;
        compose(&run, &in[i], NULL);
        affine want = exclusive ? before : run;
        CHECK_MSG(out[i].a == want.a && out[i].b == want.b,
                  "n=%zu grain=%zu %s: output %zu differs", n, grain,
                  exclusive ? "exclusive" : "inclusive", i);
    }
    for (size_t i = 0; i < lo; i++)
        CHECK(out[i].a == 0 && out[i].b == 0); /* outside the range */
    CHECK_MSG(total.a == run.a && total.b == run.b, "n=%zu: total", n);
    free(in), free(out);
}

static const size_t lengths[] = {0, 1, 2, 5, 63, 100, 1000, 4097, BIG};
static const size_t grains[] = {0, 1, 7, 1000, (size_t)1 << 40};
static const unsigned pool_sizes[] = {1, 2, 4};

static void all_cases(wf_pool *p)
{
    for (size_t l = 0; l < sizeof lengths / sizeof *lengths; l++)
        for (size_t g = 0; g < sizeof grains / sizeof *grains; g++) {
            if (grains[g] == 1 && lengths[l] > 5000)
                continue; /* a block per element: fine, but slow */
            for (int ex = 0; ex < 2; ex++) {
                check_scan(p, 0, lengths[l], grains[g], ex);
                if (lengths[l] > 3)
                    check_scan(p, 3, lengths[l], grains[g], ex);
            }
        }
}

static void inside(void *arg)
{
    all_cases(arg);
}

/* The first block waits until another thread has folded a later block
 * (a first pass), so the blocks past the frontier and their second pass
 * are exercised for sure; the outputs must still be right. */
typedef struct {
    body_ctx c;
    _Atomic long pre_calls;
} slow_ctx;

static void slow_first_body(size_t begin, size_t end, void *acc, bool final,
                            void *ctx)
{
    slow_ctx *s = ctx;
    if (!final)
        atomic_fetch_add(&s->pre_calls, 1);
    if (begin == 0) {
        double give_up = check_now() + 10;
        while (atomic_load(&s->pre_calls) == 0 && check_now() < give_up)
            usleep(200);
    }
    affine_body(begin, end, acc, final, &s->c);
}

static void check_stolen_blocks(wf_pool *p)
{
    size_t n = 50000;
    affine *in = malloc(n * sizeof *in), *out = calloc(n, sizeof *out);
    CHECK(in && out);
    for (size_t i = 0; i < n; i++)
        in[i] = affine_of(i);
    slow_ctx s = {{in, out, false, 0}, 0};
    affine total;
    CHECK_OK(wf_parallel_scan(p, 0, n, 0, &total, sizeof total, &ident,
                              slow_first_body, compose, &s));
    CHECK_MSG(atomic_load(&s.pre_calls) > 0, "no block ran a first pass");
    affine run = ident;
    for (size_t i = 0; i < n; i++) {
        compose(&run, &in[i], NULL);
        CHECK_MSG(out[i].a == run.a && out[i].b == run.b,
                  "after stolen blocks: output %zu differs", i);
    }
    CHECK(total.a == run.a && total.b == run.b);
    free(in), free(out);
}

static void scenario_scan(void)
{
    for (size_t s = 0; s < sizeof pool_sizes / sizeof *pool_sizes; s++) {
        wf_pool *p = make_pool(pool_sizes[s], 0, NULL);
        all_cases(p);
        CHECK_OK(wf_run(p, inside, p));
        if (pool_sizes[s] > 1)
            check_stolen_blocks(p);
        CHECK_OK(wf_pool_destroy(p));
    }
    printf("scan: inclusive and exclusive as sequential, stolen blocks: "
           "ok\n");
}

static void scenario_array(void)
{
    for (size_t s = 0; s < sizeof pool_sizes / sizeof *pool_sizes; s++) {
        wf_pool *p = make_pool(pool_sizes[s], 0, NULL);
        for (size_t l = 0; l < sizeof lengths / sizeof *lengths; l++)
            for (int mode = 0; mode < 4; mode++) {
                size_t n = lengths[l];
                bool ex = mode & 1, in_place = mode & 2;
                affine *in = malloc((n + 1) * sizeof *in);
                affine *out = malloc((n + 1) * sizeof *out);
                CHECK(in && out);
                for (size_t i = 0; i < n; i++)
                    in[i] = affine_of(i);
                affine *dst = in_place ? in : out;
                CHECK_OK(wf_parallel_scan_array(p, in, dst, n, sizeof *in,
                                                &ident, compose, NULL,
                                                ex ? WF_SCAN_EXCLUSIVE : 0));
                affine run = ident;
                for (size_t i = 0; i < n; i++) {
                    affine before = run, x = affine_of(i);
                    compose(&run, &x, NULL);
                    affine want = ex ? before : run;
                    CHECK_MSG(dst[i].a == want.a && dst[i].b == want.b,
                              "array n=%zu mode %d: %zu differs", n, mode, i);
                }
                free(in), free(out);
            }
        CHECK_OK(wf_pool_destroy(p));
    }
    printf("array: inclusive, exclusive, in place: ok\n");
}

static void scenario_args(void)
{
    wf_pool *p = make_pool(2, 0, NULL);
    affine v[4] = {{1, 1}, {1, 2}, {1, 3}, {1, 4}}, t;
    body_ctx c = {v, v, false, 0};
    size_t z = sizeof t;
    CHECK_ERR(wf_parallel_scan(NULL, 0, 4, 0, &t, z, &ident, affine_body,
                               compose, &c),
              WF_EINVAL);
    CHECK_ERR(
        wf_parallel_scan(p, 0, 4, 0, &t, z, NULL, affine_body, compose, &c),
        WF_EINVAL);
    CHECK_ERR(wf_parallel_scan(p, 0, 4, 0, &t, z, &ident, NULL, compose, &c),
              WF_EINVAL);
    CHECK_ERR(
        wf_parallel_scan(p, 0, 4, 0, &t, z, &ident, affine_body, NULL, &c),
        WF_EINVAL);
    CHECK_ERR(
        wf_parallel_scan(p, 0, 4, 0, &t, 0, &ident, affine_body, compose, &c),
        WF_EINVAL);
    CHECK_ERR(
        wf_parallel_scan(p, 4, 0, 0, &t, z, &ident, affine_body, compose, &c),
        WF_EINVAL);
    CHECK_EQ(atomic_load(&c.calls), 0);
    CHECK_ERR(
        wf_parallel_scan_array(p, NULL, v, 4, z, &ident, compose, NULL, 0),
        WF_EINVAL);
    CHECK_ERR(
        wf_parallel_scan_array(p, v, NULL, 4, z, &ident, compose, NULL, 0),
        WF_EINVAL);
    CHECK_ERR(wf_parallel_scan_array(p, v, v, 4, 300, v, compose, NULL, 0),
              WF_EINVAL);
    CHECK_ERR(wf_parallel_scan_array(p, v, v, 4, z, &ident, compose, NULL, 2),
              WF_EINVAL);
    CHECK_ERR(wf_parallel_scan_array(p, v, v, 4, z, &ident, NULL, NULL, 0),
              WF_EINVAL);
    CHECK(v[3].b == 4); /* nothing written */
    /* n = 0: the total is the identity, the body is not called. */
    t = (affine){9, 9};
    CHECK_OK(
        wf_parallel_scan(p, 2, 2, 0, &t, z, &ident, affine_body, compose, &c));
    CHECK(t.a == 1 && t.b == 0 && atomic_load(&c.calls) == 0);
    CHECK_OK(
        wf_parallel_scan_array(p, NULL, NULL, 0, z, &ident, compose, NULL, 0));
    CHECK_OK(wf_pool_destroy(p));
    printf("args: WF_EINVAL for every bad argument, n=0: ok\n");
}

static void scenario_oom(void)
{
    static test_alloc ta;
    ta_init(&ta, TA_NEVER, 0);
    wf_pool *p = make_pool(2, 0, &ta.iface);
    size_t n = 5000;
    affine *in = malloc(n * sizeof *in), *out = calloc(n, sizeof *out);
    CHECK(in && out);
    for (size_t i = 0; i < n; i++)
        in[i] = affine_of(i);
    body_ctx c = {in, out, false, 0};
    affine t;
    ta_fail_from_now(&ta, 1);
    /* grain 1: accumulators per element, 80 KB: from the allocator. */
    CHECK_ERR(wf_parallel_scan(p, 0, n, 1, &t, sizeof t, &ident, affine_body,
                               compose, &c),
              WF_ENOMEM);
    CHECK_EQ(atomic_load(&c.calls), 0);
    CHECK(atomic_load(&ta.failures) >= 1);
    ta_fail_from_now(&ta, 0);
    check_scan(p, 0, n, 1, false); /* and works again */
    CHECK_OK(wf_pool_destroy(p));
    ta_check_no_leak(&ta, "scan after WF_ENOMEM");
    free(in), free(out);
    printf("oom: WF_ENOMEM before any body call, nothing leaked: ok\n");
}

int main(int argc, char **argv)
{
    static const check_scenario scenarios[] = {
        {"scan", scenario_scan},
        {"array", scenario_array},
        {"args", scenario_args},
        {"oom", scenario_oom},
    };
    return CHECK_RUN_SCENARIOS("algo_scan", argc, argv, scenarios);
}
