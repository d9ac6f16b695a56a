/* SPDX-License-Identifier: Apache-2.0 */
/* wf_parallel_for_box: 2-D and 3-D index boxes on wf_parallel_for.
 *
 * The box is cut into tiles, tile[d] long in dimension d (the last of a
 * dimension may be shorter), numbered in row-major order, the last
 * dimension fastest, and wf_parallel_for runs over the tile numbers, a
 * call of the body per tile.  Automatic tiles are as many as the calls
 * wf_parallel_for's adaptive grain makes over a long range (8 pieces per
 * worker, 32 calls each), so a tile is the 2-D or 3-D form of one of its
 * chunks, and pieces still split lazily between two tiles. */
#include "weft/pool.h"

/* Automatic tiles: at least this many per thread of the pool, so that
 * wf_parallel_for's adaptive split has room (it starts with 8 pieces per
 * worker, each run as 32 calls). */
#define AUTO_TILES_PER_THREAD 256

typedef struct {
    const wf_box *box;
    size_t tile[3];   /* a tile's length in each dimension */
    size_t ntiles[3]; /* tiles along each dimension */
    wf_box_fn body;
    void *ctx;
} box_spec;

static size_t ceil_div(size_t a, size_t b)
{
    return a / b + (a % b != 0);
}

/* Tiles for grain NULL: cut the outer dimensions first, each only as
 * much as the tiles so far fall short of `want`. */
static void auto_tiles(box_spec *s, const size_t extent[3], size_t want)
{
    size_t tiles = 1;
    for (int d = 0; d < 3; d++) {
        size_t cuts = tiles >= want ? 1 : ceil_div(want, tiles);
        if (cuts > extent[d])
            cuts = extent[d];
        s->tile[d] = ceil_div(extent[d], cuts);
        s->ntiles[d] = ceil_div(extent[d], s->tile[d]);
        tiles *= s->ntiles[d];
    }
}

/* Tiles [t, e) by row-major number, each a call of the body. */
static void run_tiles(size_t t, size_t e, void *arg)
{
    const box_spec *s = arg;
    const size_t *n = s->ntiles;
    for (; t < e; t++) {
        size_t at[3] = {t / (n[1] * n[2]), t / n[2] % n[1], t % n[2]};
        wf_box piece;
        for (int d = 0; d < 3; d++) {
            size_t b = s->box->begin[d] + at[d] * s->tile[d];
            piece.begin[d] = b;
            piece.end[d] = s->box->end[d] - b > s->tile[d] ? b + s->tile[d]
                                                           : s->box->end[d];
        }
        s->body(&piece, s->ctx);
    }
}

int wf_parallel_for_box(wf_pool *pool, const wf_box *box, const size_t grain[3],
                        wf_box_fn body, void *ctx)
{
    if (pool == NULL || box == NULL || body == NULL)
        return WF_EINVAL;
    size_t extent[3];
    for (int d = 0; d < 3; d++) {
        if (box->end[d] < box->begin[d])
            return WF_EINVAL;
        extent[d] = box->end[d] - box->begin[d];
    }
    if (extent[0] == 0 || extent[1] == 0 || extent[2] == 0)
        return 0;
    box_spec s = {.box = box, .body = body, .ctx = ctx};
    if (grain == NULL) {
        auto_tiles(&s, extent,
                   (size_t)AUTO_TILES_PER_THREAD * wf_pool_threads(pool));
    } else {
        for (int d = 0; d < 3; d++) {
            s.tile[d] = grain[d] && grain[d] < extent[d] ? grain[d] : extent[d];
            s.ntiles[d] = ceil_div(extent[d], s.tile[d]);
        }
    }
    size_t tiles;
    if (__builtin_mul_overflow(s.ntiles[0], s.ntiles[1], &tiles) ||
        __builtin_mul_overflow(tiles, s.ntiles[2], &tiles))
        return WF_EINVAL;
    return wf_parallel_for(pool, 0, tiles, grain == NULL ? 0 : 1, run_tiles,
                           &s);
}
