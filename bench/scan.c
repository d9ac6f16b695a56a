/* SPDX-License-Identifier: Apache-2.0 */
/* scan: the inclusive prefix sum of 10^7 random 32-bit integers into a
 * second array, mod 2^32 (WEFT_BENCH_SCAN_N sets the count), from the
 * runner's main thread (bench_workload.from_main):
 *
 *   seq    one loop
 *   weft   wf_parallel_scan, grain 0, the body a plain loop
 *   tbb    tbb::parallel_scan over a blocked_range (auto_partitioner),
 *          the functional form: scan lambda and combine
 *   omp    `omp parallel for reduction(inscan, +: x)` with `omp scan
 *          inclusive(x)` (OpenMP 5.0; gcc >= 10, clang >= 11) in a region
 *          of T threads
 *
 * Every system writes out[i] = in[0] + ... + in[i] in uint32_t, so the
 * outputs are equal exactly. */
#include <stdint.h>
#include <stdlib.h>

#include "kernel.h"
#include "system.h"

typedef struct {
    size_t n;
    uint32_t *in, *out;
    uint64_t expected; /* a hash of the sequential output */
} scan_state;

#if defined(WEFT_BENCH_SEQ)

static void scan_loop(const uint32_t *in, uint32_t *out, size_t n)
{
    uint32_t x = 0;
    for (size_t i = 0; i < n; i++)
        out[i] = x += in[i];
}

BENCH_KERNEL(scan_kernel)
{
    scan_state *s = (scan_state *)arg;
    scan_loop(s->in, s->out, s->n);
}

#elif defined(WEFT_BENCH_OMP)

BENCH_KERNEL(scan_kernel)
{
    scan_state *s = (scan_state *)arg;
    const uint32_t *in = s->in;
    uint32_t *out = s->out, x = 0;
    long n = (long)s->n;
    /* omp_set_num_threads(T) was called by bench_system_run_graph. */
#if defined(__clang__)
    /* clang's inscan reduction keeps a copy of x per iteration in a
     * temporary on the stack (n of them), which 10^7 iterations overflow:
     * blocks of 2^18, each scan starting from 0 and offset by the last
     * sum of the block before it (clang 14 leaves x itself unchanged). */
    for (long lo = 0; lo < n; lo += 1L << 18) {
        long hi = n - lo > 1L << 18 ? lo + (1L << 18) : n;
        uint32_t base = lo > 0 ? out[lo - 1] : 0;
        x = 0;
#pragma omp parallel for reduction(inscan, + : x)
        for (long i = lo; i < hi; i++) {
            x += in[i];
#pragma omp scan inclusive(x)
            out[i] = base + x;
        }
    }
#else
#pragma omp parallel for reduction(inscan, + : x)
    for (long i = 0; i < n; i++) {
        x += in[i];
#pragma omp scan inclusive(x)
        out[i] = x;
    }
#endif
}

#elif defined(WEFT_BENCH_TBB)

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_scan.h>

BENCH_KERNEL(scan_kernel)
{
    scan_state *s = (scan_state *)arg;
    const uint32_t *in = s->in;
    uint32_t *out = s->out;
    tbb::parallel_scan(
        tbb::blocked_range<size_t>(0, s->n), uint32_t(0),
        [in, out](const tbb::blocked_range<size_t> &r, uint32_t x,
                  bool is_final) {
            for (size_t i = r.begin(); i < r.end(); i++) {
                x += in[i];
                if (is_final)
                    out[i] = x;
            }
            return x;
        },
        [](uint32_t l, uint32_t r) { return l + r; });
}

#else /* weft */

typedef struct {
    const uint32_t *in;
    uint32_t *out;
} scan_arrays;

/* Two loops, so that neither pass tests `final` per element. */
static void scan_body(size_t begin, size_t end, void *acc, bool final,
                      void *ctx)
{
    const scan_arrays *a = (const scan_arrays *)ctx;
    const uint32_t *in = a->in;
    uint32_t *out = a->out, x = *(uint32_t *)acc;
    if (final)
        for (size_t i = begin; i < end; i++)
            out[i] = x += in[i];
    else
        for (size_t i = begin; i < end; i++)
            x += in[i];
    *(uint32_t *)acc = x;
}

static void scan_add(void *l, const void *r, void *ctx)
{
    (void)ctx;
    *(uint32_t *)l += *(const uint32_t *)r;
}

BENCH_KERNEL(scan_kernel)
{
    scan_state *s = (scan_state *)arg;
    scan_arrays a = {s->in, s->out};
    uint32_t zero = 0;
    if (wf_parallel_scan(bench_weft_pool(), 0, s->n, 0, NULL, sizeof zero,
                         &zero, scan_body, scan_add, &a) != 0)
        s->out[0] = ~s->out[0]; /* the check reports it */
}

#endif

/* ---- untimed parts (compiled once) ------------------------------------ */
#ifdef BENCH_HARNESS
#include <stdio.h>

static uint64_t scan_hash(const scan_state *s)
{
    uint64_t h = 0;
    for (size_t i = 0; i < s->n; i++)
        h = h * 31 + s->out[i];
    return h;
}

static void scan_free(void *state)
{
    scan_state *s = (scan_state *)state;
    free(s->in);
    free(s->out);
    free(s);
}

static void *scan_setup(bool quick)
{
    scan_state *s = (scan_state *)calloc(1, sizeof *s);
    if (s == NULL)
        return NULL;
    const char *env = getenv("WEFT_BENCH_SCAN_N");
    s->n = quick ? 100000 : env ? (size_t)strtoull(env, NULL, 10) : 10000000;
    if (s->n < 1)
        s->n = 1;
    s->in = (uint32_t *)malloc(s->n * sizeof(uint32_t));
    s->out = (uint32_t *)calloc(s->n, sizeof(uint32_t));
    if (s->in == NULL || s->out == NULL) {
        scan_free(s);
        return NULL;
    }
    for (size_t i = 0; i < s->n; i++)
        s->in[i] = (uint32_t)bench_mix64(i);
    scan_loop(s->in, s->out, s->n);
    s->expected = scan_hash(s);
    return s;
}

static void scan_prepare(void *state)
{
    scan_state *s = (scan_state *)state;
    memset(s->out, 0, s->n * sizeof *s->out);
}

static int scan_check(void *state, bool seq, char *why, size_t n)
{
    (void)seq;
    const scan_state *s = (const scan_state *)state;
    if (scan_hash(s) == s->expected)
        return 0;
    snprintf(why, n, "scan: the output differs from the sequential one");
    return -1;
}

static const char *scan_describe(const void *state)
{
    static char buf[48];
    snprintf(buf, sizeof buf, "n=%.0e uint32",
             (double)((const scan_state *)state)->n);
    return buf;
}

const bench_workload bench_scan = {
    .name = "scan",
    .setup = scan_setup,
    .prepare = scan_prepare,
    .run_seq = scan_kernel_seq,
    .run_par = scan_kernel_par,
    .check = scan_check,
    .describe = scan_describe,
    .teardown = scan_free,
    .from_main = true,
};
#endif
