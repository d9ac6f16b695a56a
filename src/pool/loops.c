/* Loops on top of spawn/join: wf_parallel_for. */
#include "internal/pool.h"

typedef struct {
    size_t grain;
    wf_range_fn body;
    void *ctx;
} loop_spec;

typedef struct {
    wf_task task;
    const loop_spec *spec;
    size_t begin, end;
} range_frame;

static void split_range(const loop_spec *s, size_t begin, size_t end);

static void range_body(wf_task *t)
{
    range_frame *f = (range_frame *)t;
    split_range(f->spec, f->begin, f->end);
}

/* Halve until a piece fits the grain; the upper half goes to a task, so a
 * thief takes the largest piece left (the oldest task). */
static void split_range(const loop_spec *s, size_t begin, size_t end)
{
    if (end - begin <= s->grain) {
        s->body(begin, end, s->ctx);
        return;
    }
    size_t mid = begin + (end - begin) / 2;
    range_frame upper = {.spec = s, .begin = mid, .end = end};
    wf_spawn(&upper.task, range_body);
    split_range(s, begin, mid);
    wf_join(&upper.task);
}

typedef struct {
    const loop_spec *spec;
    size_t begin, end;
} loop_root;

static void loop_root_fn(void *arg)
{
    loop_root *r = arg;
    split_range(r->spec, r->begin, r->end);
}

int wf_parallel_for(wf_pool *pool, size_t begin, size_t end, size_t grain,
                    wf_range_fn body, void *ctx)
{
    if (pool == NULL || body == NULL || end < begin)
        return WF_EINVAL;
    if (begin == end)
        return 0;
    if (grain == 0) { /* about 8 pieces per worker: room to balance */
        grain = (end - begin) / (8 * (size_t)wf_pool_threads(pool));
        if (grain == 0)
            grain = 1;
    }
    loop_spec spec = {.grain = grain, .body = body, .ctx = ctx};
    loop_root root = {.spec = &spec, .begin = begin, .end = end};
    return wf_run(pool, loop_root_fn, &root);
}
