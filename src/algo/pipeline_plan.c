/* SPDX-License-Identifier: Apache-2.0 */
/* parallel_pipeline's call: its arguments checked, its one block laid out
 * (the pipeline, its records, serial stages and in-order rings, zeroed
 * and set up before anything is shared), the run in the pool (wf_run of
 * src/algo/pipeline.c's wf__pl_main), and the stages' controls
 * (wf_pipeline_stop, _fail, _is_cancelled).  The rules PL1..PL4 are
 * stated at the top of src/algo/pipeline.c. */
#include <string.h>

#include "internal/algo/pipeline.h"

static int check_args(wf_pool *pool, size_t max_tokens, const wf_stage *stages,
                      size_t n)
{
    if (pool == NULL || stages == NULL || n == 0 || max_tokens == 0)
        return WF_EINVAL;
    for (size_t i = 0; i < n; i++)
        if (stages[i].fn == NULL ||
            (unsigned)stages[i].mode > WF_STAGE_SERIAL_OUT_OF_ORDER)
            return WF_EINVAL;
    if (stages[0].mode == WF_STAGE_PARALLEL)
        return WF_EINVAL;
    return max_tokens > WF_PIPELINE_MAX_TOKENS ? WF_ERANGE : 0;
}

/* Where each part of the one block lives. */
typedef struct pl_layout {
    size_t rec, ser, stage, ring, size;
    size_t nser, nord;
} pl_layout;

static size_t round_up(size_t x, size_t to)
{
    return (x + to - 1) / to * to;
}

/* false when the sizes overflow. */
static bool plan(pl_layout *l, const wf_stage *stages, size_t n, size_t tokens,
                 size_t cap)
{
    *l = (pl_layout){0};
    for (size_t i = 1; i < n; i++) {
        l->nser += stages[i].mode != WF_STAGE_PARALLEL;
        l->nord += stages[i].mode == WF_STAGE_SERIAL_IN_ORDER;
    }
    size_t rec, ser, stage, ring;
    l->rec = round_up(sizeof(pl_pipe), WF_CACHE_LINE);
    return !__builtin_mul_overflow(tokens, sizeof(pl_token), &rec) &&
           !__builtin_mul_overflow(l->nser, sizeof(pl_serial), &ser) &&
           !__builtin_mul_overflow(n, sizeof(pl_stage), &stage) &&
           !__builtin_mul_overflow(l->nord, cap * sizeof(uint64_t), &ring) &&
           !__builtin_add_overflow(l->rec, rec, &l->ser) &&
           !__builtin_add_overflow(l->ser, ser, &l->stage) &&
           !__builtin_add_overflow(l->stage, stage, &l->ring) &&
           !__builtin_add_overflow(l->ring, ring, &l->size);
}

static void init_stages(pl_pipe *p, char *base, const pl_layout *l,
                        const wf_stage *stages)
{
    pl_serial *ser = (pl_serial *)(base + l->ser);
    _Atomic uint64_t *ring = (_Atomic uint64_t *)(base + l->ring);
    for (size_t i = 0; i < p->n; i++) {
        pl_stage *s = &p->stage[i];
        *s = (pl_stage){stages[i].fn, stages[i].ctx, stages[i].mode, NULL};
        if (i == 0 || s->mode == WF_STAGE_PARALLEL)
            continue;
        s->ser = ser++;
        if (s->mode == WF_STAGE_SERIAL_IN_ORDER) {
            s->ser->ring = ring;
            ring[0] = SLOT_GO(0); /* item 0's turn; before it is shared */
            ring += p->mask + 1;
        }
    }
}

/* All records start in the input's own list. */
static void init_tokens(pl_pipe *p)
{
    for (uint32_t i = 0; i < p->tokens; i++) {
        pl_token *t = &p->rec[i];
        t->pipe = p;
        t->index = i;
        t->next = i + 1 < p->tokens ? &p->rec[i + 1] : NULL;
    }
    p->priv = &p->rec[0];
}

/* One zeroed block for the pipeline, its records, serial stages and
 * rings.  NULL if there is no memory. */
static pl_pipe *pipe_new(wf_pool *pool, size_t tokens, const wf_stage *stages,
                         size_t n, const wf_pipeline_config *cfg, pl_layout *l,
                         void **raw)
{
    size_t cap = 1;
    while (cap < tokens)
        cap *= 2;
    if (!plan(l, stages, n, tokens, cap))
        return NULL;
    char *base = wf__alloc_aligned(wf__pool_alloc(pool), l->size, raw);
    if (base == NULL)
        return NULL;
    memset(base, 0, l->size); /* before the pipeline is shared */
    pl_pipe *p = (pl_pipe *)base;
    p->pool = pool;
    p->n = n;
    p->tokens = (uint32_t)tokens;
    p->mask = cap - 1;
    p->share = wf_pool_threads(pool) > 1;
    p->stage = (pl_stage *)(base + l->stage);
    p->rec = (pl_token *)(base + l->rec);
    if (cfg != NULL) {
        p->group = cfg->group;
        p->drop = cfg->drop;
        p->drop_ctx = cfg->drop_ctx;
    }
    p->ctl = (wf_pipeline_ctl){p, false, false};
    p->in_ctl = (wf_pipeline_ctl){p, true, false};
    init_stages(p, base, l, stages);
    init_tokens(p);
    return p;
}

int wf_parallel_pipeline_with(wf_pool *pool, size_t max_tokens,
                              const wf_stage *stages, size_t n,
                              const wf_pipeline_config *cfg)
{
    int err = check_args(pool, max_tokens, stages, n);
    if (err != 0)
        return err;
    if (wf__pool_forked(pool))
        return WF_ESTATE; /* its threads are not in this process */
    pl_layout l;
    void *raw;
    pl_pipe *p = pipe_new(pool, max_tokens, stages, n, cfg, &l, &raw);
    if (p == NULL)
        return WF_ENOMEM;
    err = wf_run(pool, wf__pl_main, p);
    if (err == 0) /* relaxed: pipe_done's acquire ordered it */
        err = wf_load_relaxed(&p->error);
    wf__free_aligned(wf__pool_alloc(pool), raw, l.size);
    return err;
}

int wf_parallel_pipeline(wf_pool *pool, size_t max_tokens,
                         const wf_stage *stages, size_t n)
{
    return wf_parallel_pipeline_with(pool, max_tokens, stages, n, NULL);
}

void wf_pipeline_stop(wf_pipeline_ctl *ctl)
{
    if (ctl == NULL)
        return;
    if (ctl->input)
        ctl->stopped = true; /* the input's own */
    else /* relaxed: a hint the input reads at its next call */
        wf_store_relaxed(&ctl->pipe->stop, 1);
}

void wf_pipeline_fail(wf_pipeline_ctl *ctl, int err)
{
    if (ctl == NULL)
        return;
    wf__pl_fail(ctl->pipe, err < 0 ? err : WF_EINVAL);
    if (ctl->input)
        ctl->stopped = true;
}

bool wf_pipeline_is_cancelled(const wf_pipeline_ctl *ctl)
{
    return ctl != NULL && wf__pl_halted(ctl->pipe);
}
