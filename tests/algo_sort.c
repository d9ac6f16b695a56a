/* SPDX-License-Identifier: Apache-2.0 */
/* wf_parallel_sort and WF_SORT_DEFINE, one scenario per argv[1]:
 *
 *   cmp      random, sorted, reversed, all-equal, sawtooth and few-key
 *            inputs of many lengths (0, 1, around the leaf run and the
 *            grain), 4-byte keys and 12-byte records, pools of 1, 2 and 4
 *            threads, from outside the pool and from inside one: the
 *            result equals qsort's
 *   stable   WF_SORT_STABLE on records with few distinct keys: equal keys
 *            keep their input order (checked against qsort on key, index)
 *   typed    WF_SORT_DEFINE sorts of uint32_t and of records: as qsort
 *   args     bad arguments: WF_EINVAL, nothing written
 *   oom      no scratch (the pool's allocator fails): WF_ENOMEM, the input
 *            untouched, nothing leaked */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "test_alloc.h"

#ifdef WF_TEST_SANITIZED
#define BIG 40000
#else
#define BIG 300000
#endif

typedef struct {
    uint32_t key, idx, pad; /* 12 bytes: no power of two */
} rec;

static uint64_t rng_state = 88172645463325252u;
static uint32_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 16);
}

enum { RANDOM, SORTED, REVERSED, EQUAL, SAWTOOTH, FEWKEYS, NPATTERNS };
static const char *const pattern_names[] = {
    "random", "sorted", "reversed", "all-equal", "sawtooth", "few-keys"};

static uint32_t key_at(int pattern, size_t i, size_t n)
{
    switch (pattern) {
    case RANDOM: return rnd();
    case SORTED: return (uint32_t)i;
    case REVERSED: return (uint32_t)(n - i);
    case EQUAL: return 7;
    case SAWTOOTH: return (uint32_t)(i % 1000);
    default: return rnd() % 5;
    }
}

static void fill(rec *r, size_t n, int pattern)
{
    for (size_t i = 0; i < n; i++)
        r[i] = (rec){key_at(pattern, i, n), (uint32_t)i, 0xabcdu};
}

static int cmp_u32(const void *a, const void *b, void *ctx)
{
    (void)ctx;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}
static int qcmp_u32(const void *a, const void *b)
{
    return cmp_u32(a, b, NULL);
}
/* By key only: the sort under test (ctx counts that it was passed). */
static int cmp_rec_key(const void *a, const void *b, void *ctx)
{
    CHECK(*(const int *)ctx == 42);
    return cmp_u32(&((const rec *)a)->key, &((const rec *)b)->key, NULL);
}
/* By key, then input index: the stable order, for qsort. */
static int qcmp_rec_stable(const void *a, const void *b)
{
    const rec *x = a, *y = b;
    int c = cmp_u32(&x->key, &y->key, NULL);
    return c ? c : cmp_u32(&x->idx, &y->idx, NULL);
}

static const size_t lengths[] = {0,    1,    2,    3,     15,    16,
                                 17,   31,   33,   100,   1000,  4095,
                                 4096, 4097, 8193, 20000, 65537, BIG};
#define NLENGTHS (sizeof lengths / sizeof lengths[0])
static const unsigned pool_sizes[] = {1, 2, 4};

/* Sort `n` records of `pattern` by key (flags), and their keys as
 * uint32_t, from this thread; compare with qsort. */
static void check_one(wf_pool *p, size_t n, int pattern, unsigned flags)
{
    rec *r = malloc((n + 1) * sizeof *r), *q = malloc((n + 1) * sizeof *q);
    uint32_t *k = malloc((n + 1) * sizeof *k), *kq = malloc((n + 1) * 4);
    CHECK(r && q && k && kq);
    fill(r, n, pattern);
    memcpy(q, r, n * sizeof *r);
    for (size_t i = 0; i < n; i++)
        k[i] = kq[i] = r[i].key;
    int ctx = 42;
    CHECK_OK(wf_parallel_sort(p, r, n, sizeof *r, cmp_rec_key, &ctx, flags));
    CHECK_OK(wf_parallel_sort(p, k, n, sizeof *k, cmp_u32, NULL, flags));
    qsort(q, n, sizeof *q, qcmp_rec_stable);
    qsort(kq, n, sizeof *kq, qcmp_u32);
    for (size_t i = 0; i < n; i++) {
        CHECK_MSG(k[i] == kq[i] && r[i].key == q[i].key && r[i].pad == 0xabcdu,
                  "n=%zu %s: element %zu differs from qsort's", n,
                  pattern_names[pattern], i);
        if (flags & WF_SORT_STABLE)
            CHECK_MSG(r[i].idx == q[i].idx, "n=%zu %s: %zu is out of order", n,
                      pattern_names[pattern], i);
    }
    /* Unstable: still a permutation of the input (every index once). */
    memset(q, 0, n * sizeof *q);
    for (size_t i = 0; i < n; i++) {
        CHECK(r[i].idx < n && q[r[i].idx].pad == 0);
        q[r[i].idx].pad = 1;
    }
    free(r), free(q), free(k), free(kq);
}

typedef struct {
    wf_pool *p;
    unsigned flags;
} inside_arg;

/* From a worker of the pool (a task's body): the sort runs on it. */
static void inside(void *arg)
{
    inside_arg *a = arg;
    check_one(a->p, 5000, RANDOM, a->flags);
    check_one(a->p, BIG / 3, FEWKEYS, a->flags);
}

static void scenario_cmp(void)
{
    for (size_t s = 0; s < sizeof pool_sizes / sizeof *pool_sizes; s++) {
        wf_pool *p = make_pool(pool_sizes[s], 0, NULL);
        for (size_t l = 0; l < NLENGTHS; l++)
            for (int pat = 0; pat < NPATTERNS; pat++)
                check_one(p, lengths[l], pat, 0);
        inside_arg a = {p, 0};
        CHECK_OK(wf_run(p, inside, &a));
        CHECK_OK(wf_pool_destroy(p));
    }
    printf("cmp: %zu lengths x %d inputs x 2 types on 3 pools, as qsort: ok\n",
           NLENGTHS, NPATTERNS);
}

static void scenario_stable(void)
{
    for (size_t s = 0; s < sizeof pool_sizes / sizeof *pool_sizes; s++) {
        wf_pool *p = make_pool(pool_sizes[s], 0, NULL);
        for (size_t l = 0; l < NLENGTHS; l++)
            for (int pat = 0; pat < NPATTERNS; pat++)
                check_one(p, lengths[l], pat, WF_SORT_STABLE);
        inside_arg a = {p, WF_SORT_STABLE};
        CHECK_OK(wf_run(p, inside, &a));
        CHECK_OK(wf_pool_destroy(p));
    }
    printf("stable: equal keys keep their input order: ok\n");
}

/* ---- typed sorts ---------------------------------------------------------- */

WF_SORT_DEFINE(sort_u32, uint32_t, a < b)
WF_SORT_DEFINE(sort_rec, rec, a.key < b.key)
/* Descending, to be sure the expression is the one used. */
WF_SORT_DEFINE(sort_u32_desc, uint32_t, b < a)

static void check_typed(wf_pool *p, size_t n, int pattern)
{
    rec *r = malloc((n + 1) * sizeof *r), *q = malloc((n + 1) * sizeof *q);
    uint32_t *k = malloc((n + 1) * 4), *kq = malloc((n + 1) * 4);
    uint32_t *kd = malloc((n + 1) * 4);
    CHECK(r && q && k && kq && kd);
    fill(r, n, pattern);
    memcpy(q, r, n * sizeof *r);
    for (size_t i = 0; i < n; i++)
        k[i] = kq[i] = kd[i] = r[i].key;
    CHECK_OK(sort_rec(p, r, n));
    CHECK_OK(sort_u32(p, k, n));
    CHECK_OK(sort_u32_desc(p, kd, n));
    qsort(q, n, sizeof *q, qcmp_rec_stable);
    qsort(kq, n, sizeof *kq, qcmp_u32);
    for (size_t i = 0; i < n; i++)
        CHECK_MSG(k[i] == kq[i] && kd[i] == kq[n - 1 - i] &&
                      r[i].key == q[i].key && r[i].idx == q[i].idx,
                  "typed n=%zu %s: element %zu differs from qsort's", n,
                  pattern_names[pattern], i);
    free(r), free(q), free(k), free(kq), free(kd);
}

static void scenario_typed(void)
{
    for (size_t s = 0; s < sizeof pool_sizes / sizeof *pool_sizes; s++) {
        wf_pool *p = make_pool(pool_sizes[s], 0, NULL);
        for (size_t l = 0; l < NLENGTHS; l++)
            for (int pat = 0; pat < NPATTERNS; pat++)
                check_typed(p, lengths[l], pat);
        CHECK_OK(wf_pool_destroy(p));
    }
    printf("typed: WF_SORT_DEFINE sorts as qsort, stably: ok\n");
}

/* ---- bad arguments and no memory ---------------------------------------- */

static void scenario_args(void)
{
    wf_pool *p = make_pool(2, 0, NULL);
    uint32_t v[3] = {3, 1, 2};
    CHECK_ERR(wf_parallel_sort(NULL, v, 3, 4, cmp_u32, NULL, 0), WF_EINVAL);
    CHECK_ERR(wf_parallel_sort(p, NULL, 3, 4, cmp_u32, NULL, 0), WF_EINVAL);
    CHECK_ERR(wf_parallel_sort(p, v, 3, 0, cmp_u32, NULL, 0), WF_EINVAL);
    CHECK_ERR(wf_parallel_sort(p, v, 3, 4, NULL, NULL, 0), WF_EINVAL);
    CHECK_ERR(wf_parallel_sort(p, v, 3, 4, cmp_u32, NULL, 2), WF_EINVAL);
    CHECK_ERR(sort_u32(NULL, v, 3), WF_EINVAL);
    CHECK_ERR(sort_u32(p, NULL, 3), WF_EINVAL);
    CHECK(v[0] == 3 && v[1] == 1 && v[2] == 2); /* nothing written */
    CHECK_OK(wf_parallel_sort(p, NULL, 0, 4, cmp_u32, NULL, 0));
    CHECK_OK(sort_u32(p, NULL, 0));
    CHECK_OK(wf_parallel_sort(p, v, 3, 4, cmp_u32, NULL, WF_SORT_STABLE));
    CHECK(v[0] == 1 && v[1] == 2 && v[2] == 3);
    CHECK_OK(wf_pool_destroy(p));
    printf("args: WF_EINVAL for every bad argument, n=0 with NULL: ok\n");
}

static void scenario_oom(void)
{
    static test_alloc ta;
    ta_init(&ta, TA_NEVER, 0);
    wf_pool *p = make_pool(2, 0, &ta.iface);
    size_t n = 10000;
    uint32_t *v = malloc(n * 4), *w = malloc(n * 4);
    CHECK(v && w);
    for (size_t i = 0; i < n; i++)
        v[i] = w[i] = rnd();
    ta_fail_from_now(&ta, 1);
    CHECK_ERR(wf_parallel_sort(p, v, n, 4, cmp_u32, NULL, WF_SORT_STABLE),
              WF_ENOMEM);
    CHECK_ERR(sort_u32(p, v, n), WF_ENOMEM);
    CHECK(memcmp(v, w, n * 4) == 0); /* untouched */
    CHECK(atomic_load(&ta.failures) >= 2);
    ta_fail_from_now(&ta, 0);
    CHECK_OK(sort_u32(p, v, n)); /* and works again */
    for (size_t i = 1; i < n; i++)
        CHECK(v[i - 1] <= v[i]);
    CHECK_OK(wf_pool_destroy(p));
    ta_check_no_leak(&ta, "sort after WF_ENOMEM");
    free(v), free(w);
    printf("oom: WF_ENOMEM, input untouched, nothing leaked: ok\n");
}

int main(int argc, char **argv)
{
    static const check_scenario scenarios[] = {
        {"cmp", scenario_cmp},     {"stable", scenario_stable},
        {"typed", scenario_typed}, {"args", scenario_args},
        {"oom", scenario_oom},
    };
    return CHECK_RUN_SCENARIOS("algo_sort", argc, argv, scenarios);
}
