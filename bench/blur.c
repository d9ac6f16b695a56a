/* SPDX-License-Identifier: Apache-2.0 */
/* blur: a 3x3 box blur of a 4096 x 4096 float image, the 2-D loop that
 * OpenMP users write with collapse(2) and oneTBB users with
 * blocked_range2d.  Each output pixel is the mean of the input's 3x3
 * neighbourhood (the border is not written); every system computes each
 * pixel the same way, so the images are equal bit for bit.  Driven from
 * the runner's main thread, as a program's main() runs the loop
 * (bench_workload.from_main):
 *
 *   seq    the two loops
 *   weft   wf_parallel_for_box over the interior, grain NULL (automatic)
 *   tbb    tbb::parallel_for over a blocked_range2d, auto_partitioner
 *   omp    `omp parallel for collapse(2)` in a region of T threads
 *          (static schedule, the default) */
#include "kernel.h"
#include "system.h"

typedef struct {
    size_t w, h;
    float *in, *out;
    double expected; /* the sum of the sequential output, row by row */
} blur_state;

static inline float blur_px(const blur_state *s, size_t y, size_t x)
{
    const float *r0 = s->in + (y - 1) * s->w + x;
    const float *r1 = r0 + s->w, *r2 = r1 + s->w;
    return (r0[-1] + r0[0] + r0[1] + r1[-1] + r1[0] + r1[1] + r2[-1] + r2[0] +
            r2[1]) /
           9;
}

#ifndef WEFT_BENCH_OMP /* OpenMP loops over pixels */
static inline void blur_rows(blur_state *s, size_t y0, size_t y1, size_t x0,
                             size_t x1)
{
    for (size_t y = y0; y < y1; y++)
        for (size_t x = x0; x < x1; x++)
            s->out[y * s->w + x] = blur_px(s, y, x);
}
#endif

#if defined(WEFT_BENCH_SEQ)

BENCH_KERNEL(blur_kernel)
{
    blur_state *s = (blur_state *)arg;
    blur_rows(s, 1, s->h - 1, 1, s->w - 1);
}

#elif defined(WEFT_BENCH_OMP)

BENCH_KERNEL(blur_kernel)
{
    blur_state *s = (blur_state *)arg;
    size_t h = s->h, w = s->w;
    /* omp_set_num_threads(T) was called by bench_system_run_graph. */
#pragma omp parallel for collapse(2)
    for (size_t y = 1; y < h - 1; y++)
        for (size_t x = 1; x < w - 1; x++)
            s->out[y * w + x] = blur_px(s, y, x);
}

#elif defined(WEFT_BENCH_TBB)

#include <oneapi/tbb/blocked_range2d.h>
#include <oneapi/tbb/parallel_for.h>

BENCH_KERNEL(blur_kernel)
{
    blur_state *s = (blur_state *)arg;
    tbb::parallel_for(tbb::blocked_range2d<size_t>(1, s->h - 1, 1, s->w - 1),
                      [s](const tbb::blocked_range2d<size_t> &r) {
                          blur_rows(s, r.rows().begin(), r.rows().end(),
                                    r.cols().begin(), r.cols().end());
                      });
}

#else /* weft */

static void blur_piece(const wf_box *piece, void *ctx)
{
    blur_rows((blur_state *)ctx, piece->begin[0], piece->end[0],
              piece->begin[1], piece->end[1]);
}

BENCH_KERNEL(blur_kernel)
{
    blur_state *s = (blur_state *)arg;
    wf_box interior = WF_BOX_2D(1, s->h - 1, 1, s->w - 1);
    if (wf_parallel_for_box(bench_weft_pool(), &interior, NULL, blur_piece,
                            s) != 0)
        s->out[s->w + 1] = -1; /* the check reports it */
}

#endif

/* ---- untimed parts (compiled once) ------------------------------------ */
#ifdef BENCH_HARNESS
#include <stdio.h>
#include <stdlib.h>

static double blur_sum(const blur_state *s)
{
    double sum = 0;
    for (size_t i = 0; i < s->w * s->h; i++)
        sum += s->out[i];
    return sum;
}

static void blur_free(void *state)
{
    blur_state *s = (blur_state *)state;
    free(s->in);
    free(s->out);
    free(s);
}

static void *blur_setup(bool quick)
{
    blur_state *s = (blur_state *)calloc(1, sizeof *s);
    if (s == NULL)
        return NULL;
    s->w = s->h = quick ? 1024 : 4096;
    s->in = (float *)malloc(s->w * s->h * sizeof(float));
    s->out = (float *)calloc(s->w * s->h, sizeof(float));
    if (s->in == NULL || s->out == NULL) {
        blur_free(s);
        return NULL;
    }
    for (size_t i = 0; i < s->w * s->h; i++)
        s->in[i] = (float)(bench_mix64(i) % 1000);
    blur_rows(s, 1, s->h - 1, 1, s->w - 1);
    s->expected = blur_sum(s);
    return s;
}

static void blur_prepare(void *state)
{
    blur_state *s = (blur_state *)state;
    for (size_t i = 0; i < s->w * s->h; i++)
        s->out[i] = 0;
}

static int blur_check(void *state, bool seq, char *why, size_t n)
{
    (void)seq;
    const blur_state *s = (const blur_state *)state;
    double sum = blur_sum(s);
    if (sum == s->expected)
        return 0;
    snprintf(why, n, "blur: output sums to %.17g, expected %.17g", sum,
             s->expected);
    return -1;
}

static const char *blur_describe(const void *state)
{
    static char buf[32];
    const blur_state *s = (const blur_state *)state;
    snprintf(buf, sizeof buf, "%zux%zu floats", s->w, s->h);
    return buf;
}

const bench_workload bench_blur = {
    .name = "blur",
    .setup = blur_setup,
    .prepare = blur_prepare,
    .run_seq = blur_kernel_seq,
    .run_par = blur_kernel_par,
    .check = blur_check,
    .describe = blur_describe,
    .teardown = blur_free,
    .from_main = true,
};
#endif
