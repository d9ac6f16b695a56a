/* SPDX-License-Identifier: Apache-2.0 */
/* blur: a 3x3 box blur of an image with wf_parallel_for_box, OpenMP's
 * `collapse(2)` and oneTBB's blocked_range2d in C.
 *
 * The body gets a box of rows by columns and loops over it; weft picks
 * the boxes (bands of whole rows, here) and runs them on its workers.
 * Each output pixel reads only the input, so any split is right.
 *
 * Build: cc -O2 blur.c $(pkg-config --cflags --libs weft)
 * Run:   ./blur    prints  blurred 1024x768: ... same as sequential (ok) */
#include <stdio.h>
#include <stdlib.h>
#include <weft.h>

#define W 1024
#define H 768

typedef struct {
    const float *in;
    float *out;
} images;

/* out = the mean of in's 3x3 neighbourhood, for the interior pixels of
 * the piece (the border is left as it is). */
static void blur(const wf_box *piece, void *ctx)
{
    const images *im = ctx;
    for (size_t y = piece->begin[0]; y < piece->end[0]; y++)
        for (size_t x = piece->begin[1]; x < piece->end[1]; x++) {
            float s = 0;
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++)
                    s += im->in[(y + dy) * W + x + dx];
            im->out[y * W + x] = s / 9;
        }
}

int main(void)
{
    float *in = malloc(sizeof(float) * W * H);
    float *out = calloc(W * H, sizeof(float));
    float *check = calloc(W * H, sizeof(float));
    if (!in || !out || !check)
        return 1;
    for (size_t i = 0; i < (size_t)W * H; i++)
        in[i] = (float)(i * 2654435761u % 1000);

    wf_pool *pool;
    wf_pool_config cfg = WF_POOL_CONFIG_INIT;
    int err = wf_pool_create(&pool, &cfg);
    if (err) {
        fprintf(stderr, "wf_pool_create: %s\n", wf_strerror(err));
        return 1;
    }
    images im = {in, out};
    wf_box interior = WF_BOX_2D(1, H - 1, 1, W - 1);
    err = wf_parallel_for_box(pool, &interior, NULL, blur, &im);
    if (err) {
        fprintf(stderr, "wf_parallel_for_box: %s\n", wf_strerror(err));
        return 1;
    }
    wf_pool_destroy(pool);

    images seq = {in, check}; /* the same body, on the whole box at once */
    blur(&interior, &seq);
    size_t diff = 0;
    for (size_t i = 0; i < (size_t)W * H; i++)
        diff += out[i] != check[i];
    printf("blurred %dx%d: %zu pixels differ from sequential (%s)\n", W, H,
           diff, diff == 0 ? "ok" : "WRONG");
    free(in);
    free(out);
    free(check);
    return diff != 0;
}
