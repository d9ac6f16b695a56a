/* SPDX-License-Identifier: Apache-2.0 */
/* cilksort: parallel merge sort in the shape of Cilk-5's cilksort example
 * (Frigo, Leiserson, Randall, PLDI 1998): sort the four quarters in
 * parallel, merge them pairwise into a scratch array in parallel, merge the
 * two halves back.  Each merge is itself parallel: split the longer run at
 * its middle, find that key in the shorter run by binary search, merge the
 * two lower parts and the two upper parts in parallel.  Small pieces sort
 * sequentially (insertion sort below 20 elements, else quicksort).
 *
 * Keys are 64-bit hashes of their index, so every run sorts the same input;
 * the reference is the sequential build's output, checked once to be sorted
 * and a permutation of the input. */
#include "kernel.h"

#define CS_SORT_BASE 2048  /* below this, a sequential sort */
#define CS_MERGE_BASE 2048 /* below this, a sequential merge */
#define CS_INSERTION 20

typedef uint64_t cs_key;

typedef struct {
    size_t n;
    cs_key *input; /* never changed */
    cs_key *data;  /* sorted in place */
    cs_key *tmp;   /* scratch, n keys */
    cs_key *ref;   /* the sequential result */
} cs_state;

typedef struct {
    BENCH_TASK
    cs_key *low, *tmp;
    size_t n;
} cs_sort_frame;

typedef struct {
    BENCH_TASK
    cs_key *low1, *high1, *low2, *high2, *dest; /* inclusive highs */
} cs_merge_frame;

static void cs_sort(cs_key *low, cs_key *tmp, size_t n);
static void cs_merge(cs_key *low1, cs_key *high1, cs_key *low2, cs_key *high2,
                     cs_key *dest);

static void cs_sort_child(cs_sort_frame *f)
{
    cs_sort(f->low, f->tmp, f->n);
}
BENCH_TASK_BODY(cs_sort_child, cs_sort_frame)

static void cs_merge_child(cs_merge_frame *f)
{
    cs_merge(f->low1, f->high1, f->low2, f->high2, f->dest);
}
BENCH_TASK_BODY(cs_merge_child, cs_merge_frame)

static void cs_swap(cs_key *a, cs_key *b)
{
    cs_key t = *a;
    *a = *b;
    *b = t;
}

static void cs_insertion(cs_key *low, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        cs_key v = low[i];
        size_t j = i;
        for (; j > 0 && low[j - 1] > v; j--)
            low[j] = low[j - 1];
        low[j] = v;
    }
}

/* Keys below the pivot to the front of [0, n), in one pass without a
 * data-dependent branch (Lomuto's scheme, written so that gcc and clang
 * both compile the step to cmp + adc): on random keys the branch of
 * Hoare's scheme is mispredicted half the time, and how well a compiler
 * hid that decided the race between systems.  Returns how many are
 * below. */
static size_t cs_partition(cs_key *low, size_t n, cs_key pivot)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        cs_key v = low[i];
        low[i] = low[k];
        low[k] = v;
        k += v < pivot;
    }
    return k;
}

/* Quicksort with a median-of-three pivot; recurses on the smaller side.
 * Keys equal to the pivot all go right, so many equal keys would make it
 * quadratic: the input here is distinct hashes. */
static void cs_quick(cs_key *low, size_t n)
{
    while (n > CS_INSERTION) {
        size_t mid = n / 2, last = n - 1;
        if (low[mid] < low[0])
            cs_swap(&low[mid], &low[0]);
        if (low[last] < low[0])
            cs_swap(&low[last], &low[0]);
        if (low[mid] < low[last])
            cs_swap(&low[last], &low[mid]);
        /* low[0] <= low[last] (the pivot) <= low[mid] */
        size_t p = cs_partition(low, last, low[last]);
        cs_swap(&low[p], &low[last]);
        /* [0, p) < pivot = low[p] <= (p, n) */
        if (p < n - p - 1) {
            cs_quick(low, p);
            low += p + 1;
            n -= p + 1;
        } else {
            cs_quick(low + p + 1, n - p - 1);
            n = p;
        }
    }
    cs_insertion(low, n);
}

/* Branchless, as cs_partition: the smaller head goes out and its run
 * advances by a 0/1 step (setcc + cmov in both compilers). */
static void cs_seqmerge(const cs_key *low1, const cs_key *high1,
                        const cs_key *low2, const cs_key *high2, cs_key *dest)
{
    while (low1 <= high1 && low2 <= high2) {
        cs_key a = *low1, b = *low2;
        int take2 = b < a;
        *dest++ = take2 ? b : a;
        low2 += take2;
        low1 += !take2;
    }
    /* One run is left; memcpy, not a loop each compiler copies its own
     * way. */
    if (low1 <= high1)
        memcpy(dest, low1, (size_t)(high1 - low1 + 1) * sizeof *dest);
    if (low2 <= high2)
        memcpy(dest, low2, (size_t)(high2 - low2 + 1) * sizeof *dest);
}

/* The first element of [low, high] greater than val (high + 1 if none). */
static cs_key *cs_upper(cs_key *low, cs_key *high, cs_key val)
{
    while (low <= high) {
        cs_key *mid = low + (high - low) / 2;
        if (val < *mid)
            high = mid - 1;
        else
            low = mid + 1;
    }
    return low;
}

static void cs_merge(cs_key *low1, cs_key *high1, cs_key *low2, cs_key *high2,
                     cs_key *dest)
{
    if (high2 - low2 > high1 - low1) { /* run 1 is the longer */
        cs_key *t = low1;
        low1 = low2;
        low2 = t;
        t = high1;
        high1 = high2;
        high2 = t;
    }
    if (high1 < low1)
        return; /* both empty */
    if (high1 - low1 + high2 - low2 + 2 < CS_MERGE_BASE) {
        cs_seqmerge(low1, high1, low2, high2, dest);
        return;
    }
    BENCH_SCOPE;
    cs_key *split1 = low1 + (high1 - low1 + 1) / 2;
    cs_key *split2 = cs_upper(low2, high2, *split1);
    cs_key *lowdest = dest + (split1 - low1) + (split2 - low2);
    *lowdest = *split1;
    cs_merge_frame lower = {.low1 = low1,
                            .high1 = split1 - 1,
                            .low2 = low2,
                            .high2 = split2 - 1,
                            .dest = dest};
    BENCH_SPAWN(&lower, cs_merge_child);
    cs_merge(split1 + 1, high1, split2, high2, lowdest + 1);
    BENCH_JOIN(&lower, cs_merge_child);
}

static void cs_sort(cs_key *low, cs_key *tmp, size_t n)
{
    if (n < CS_SORT_BASE) {
        cs_quick(low, n);
        return;
    }
    BENCH_SCOPE;
    size_t q = n / 4;
    cs_key *a = low, *b = a + q, *c = b + q, *d = c + q;
    cs_key *ta = tmp, *tb = ta + q, *tc = tb + q, *td = tc + q;
    cs_sort_frame s[3] = {{.low = a, .tmp = ta, .n = q},
                          {.low = b, .tmp = tb, .n = q},
                          {.low = c, .tmp = tc, .n = q}};
    for (int i = 0; i < 3; i++)
        BENCH_SPAWN(&s[i], cs_sort_child);
    cs_sort(d, td, n - 3 * q);
    for (int i = 2; i >= 0; i--)
        BENCH_JOIN(&s[i], cs_sort_child);

    cs_merge_frame m = {
        .low1 = a, .high1 = b - 1, .low2 = b, .high2 = c - 1, .dest = ta};
    BENCH_SPAWN(&m, cs_merge_child);
    cs_merge(c, d - 1, d, low + n - 1, tc);
    BENCH_JOIN(&m, cs_merge_child);

    cs_merge(ta, tc - 1, tc, tmp + n - 1, low);
}

BENCH_KERNEL(cs_kernel)
{
    cs_state *s = (cs_state *)arg;
    cs_sort(s->data, s->tmp, s->n);
}

/* ---- untimed parts (compiled once) ------------------------------------ */
#ifdef BENCH_HARNESS
#include <stdio.h>
#include <stdlib.h>

static void cs_teardown(void *state)
{
    cs_state *s = (cs_state *)state;
    if (s == NULL)
        return;
    free(s->input);
    free(s->data);
    free(s->tmp);
    free(s->ref);
    free(s);
}

/* Order-independent fingerprint of a multiset of keys. */
static uint64_t cs_fingerprint(const cs_key *v, size_t n)
{
    uint64_t h = 0;
    for (size_t i = 0; i < n; i++)
        h += bench_mix64(v[i] ^ 0x5bd1e995u);
    return h;
}

static void *cs_setup(bool quick)
{
    cs_state *s = (cs_state *)calloc(1, sizeof *s);
    if (s == NULL)
        return NULL;
    s->n = quick ? 100000 : 20000000;
    size_t bytes = s->n * sizeof(cs_key);
    s->input = (cs_key *)malloc(bytes);
    s->data = (cs_key *)malloc(bytes);
    s->tmp = (cs_key *)malloc(bytes);
    s->ref = (cs_key *)malloc(bytes);
    if (!s->input || !s->data || !s->tmp || !s->ref) {
        cs_teardown(s);
        return NULL;
    }
    for (size_t i = 0; i < s->n; i++)
        s->input[i] = bench_mix64(i + 7);
    /* The reference: the sequential kernel, checked independently. */
    memcpy(s->ref, s->input, bytes);
    cs_sort(s->ref, s->tmp, s->n);
    bool sorted = true;
    for (size_t i = 1; i < s->n; i++)
        sorted &= s->ref[i - 1] <= s->ref[i];
    if (!sorted ||
        cs_fingerprint(s->ref, s->n) != cs_fingerprint(s->input, s->n)) {
        fprintf(stderr, "cilksort: the sequential sort is wrong\n");
        cs_teardown(s);
        return NULL;
    }
    return s;
}

static void cs_prepare(void *state)
{
    cs_state *s = (cs_state *)state;
    memcpy(s->data, s->input, s->n * sizeof(cs_key));
}

static int cs_check(void *state, bool seq, char *why, size_t len)
{
    (void)seq;
    const cs_state *s = (const cs_state *)state;
    for (size_t i = 0; i < s->n; i++)
        if (s->data[i] != s->ref[i]) {
            snprintf(why, len,
                     "cilksort: element %zu differs from the "
                     "sequential result",
                     i);
            return -1;
        }
    return 0;
}

static const char *cs_describe(const void *state)
{
    static char buf[32];
    snprintf(buf, sizeof buf, "n=%.0e", (double)((const cs_state *)state)->n);
    return buf;
}

const bench_workload bench_cilksort = {
    .name = "cilksort",
    .setup = cs_setup,
    .prepare = cs_prepare,
    .run_seq = cs_kernel_seq,
    .run_par = cs_kernel_par,
    .check = cs_check,
    .describe = cs_describe,
    .teardown = cs_teardown,
};
#endif
