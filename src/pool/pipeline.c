/* SPDX-License-Identifier: Apache-2.0 */
/* parallel_pipeline: items through a row of parallel and serial stages, at
 * most max_tokens of them in flight (oneAPI specification,
 * "parallel_pipeline"; the scheme of oneTBB's src/tbb/parallel_pipeline.cpp,
 * written for weft's pool).
 *
 * A token is a preallocated record that carries one item and is, when it
 * must wait for a thread, a detached task of the pool (P7).  A token runs
 * its item through the stages itself, one after the other, until it meets
 * a serial stage that another token holds (or, in order, whose turn is not
 * its own): it then parks in that stage and its task returns.  The token
 * that leaves a serial stage hands the stage to the next parked token and
 * spawns it, or runs it itself when its own item is through (oneTBB's
 * input_buffer and stage_task).  Nothing is allocated per item and no
 * thread blocks on another: the serial stages and the free records are
 * lock-free words.
 *
 * The input (the first stage) is one token at a time: the input token.
 * After each item it takes a free record and spawns it as the next input
 * token (published at once, so an idle thread can take over the input),
 * then carries its item on.  With no free record it marks the input
 * stalled, and the token that next gives a record back runs the input
 * (oneTBB's input_tokens).  The rules below are cited as PL1..PL4;
 * P7 and P8 are those of docs/protocols.md.
 *
 * PL1  free records: one word, `free` (below), changed only by CAS or
 *      exchange, acq_rel.  A record's fields written before the CAS that
 *      gives it back are seen by whoever takes it (a release sequence).
 * PL2  in-order turns: stage s hands the turn from item k to item k + 1
 *      in one word, ring[(k + 1) & mask], by CAS (acq_rel).  The leaver
 *      (k) writes GO(k + 1) there, unless the token of k + 1 has parked
 *      there first (PARKED(k + 1, token)): then it empties the slot and
 *      takes that token, which now holds the stage.  An arriving token of
 *      k + 1 takes GO(k + 1) (emptying the slot), or parks by a CAS from
 *      empty.  Only the leaver of k and the token of k + 1 touch the slot
 *      between the two events, since fewer than `tokens` items beyond k
 *      are in flight while k is (the ring has `tokens` slots or more); a
 *      slot is empty again before its next use.  Each side's CAS is its
 *      last touch of the pipeline unless it holds a token (PL4).
 * PL3  out-of-order stages: one word, 0 (free), 1 (held) or a parked
 *      token | 1 (held, a stack of parked tokens); acq_rel CAS.  Only the
 *      holder takes the stack (all of it, so no ABA), and keeps it oldest
 *      first in `fifo`, its own.
 * PL4  completion: when the input has ended and every record is back,
 *      the thread that brought the last one back sets `done` (seq_cst RMW)
 *      and wakes the pool's waiters (P8).  The caller may free everything
 *      as soon as it sees `done`, so a thread reads what it needs (the
 *      pool) before the CAS that may complete the pipeline, and touches
 *      nothing of it after a CAS that did not, unless it holds a token. */
#include <string.h>

#include "internal/pool.h"
#include "weft/pipeline.h"

typedef struct pl_pipe pl_pipe;
typedef struct pl_token pl_token;

struct wf_pipeline_ctl {
    pl_pipe *pipe;
    bool input;   /* the first stage's */
    bool stopped; /* input only: stop or fail during this call */
};

/* One item in flight.  Owned by one thread at a time: the one running it,
 * or none while it is parked or queued (the hand-offs order its fields). */
struct pl_token {
    _Alignas(WF_CACHE_LINE) wf_task task; /* first: a token is a task */
    pl_pipe *pipe;
    void *item;
    uint64_t seq;   /* the item's number, in the order of the input */
    size_t stage;   /* the stage it runs next (admitted, if serial) */
    pl_token *next; /* free records; a serial-out-of-order stage's stack */
    uint32_t index; /* its place among the records */
    bool dropped;   /* halted: it passes the stages without calls */
};

/* A serial stage after the first (the input needs no state: it has one
 * token at a time). */
typedef struct pl_serial {
    _Alignas(WF_CACHE_LINE) _Atomic uintptr_t state; /* out of order: PL3 */
    pl_token *fifo;         /* out of order: the holder's, PL3 */
    _Atomic uint64_t *ring; /* in order: PL2 */
} pl_serial;

typedef struct pl_stage {
    wf_stage_fn fn;
    void *ctx;
    wf_stage_mode mode;
    pl_serial *ser; /* NULL for parallel stages and the first */
} pl_stage;

/* The word of free records (PL1): the index + 1 of the top record of a
 * stack of free records (0: none), how many there are, and two flags. */
#define FREE_STALLED 1u /* the input waits for a record */
#define FREE_ENDED 2u   /* the input has ended */
#define FREE_COUNT(w) (((w) >> 2) & 0x3fffffffu)
#define FREE_TOP(w) ((uint32_t)((w) >> 32))
#define FREE_WORD(top, count, flags)                                           \
    ((uint64_t)(top) << 32 | (uint64_t)(count) << 2 | (flags))

struct pl_pipe {
    /* Read-only while it runs. */
    wf_pool *pool;
    size_t n;
    uint32_t tokens;
    uint64_t mask; /* in-order rings: a power of two >= tokens, - 1 */
    bool share;    /* more than one thread: publish spawned tokens */
    pl_stage *stage;
    pl_token *rec;
    wf_group *group;
    void (*drop)(void *item, void *ctx);
    void *drop_ctx;
    wf_pipeline_ctl ctl; /* the later stages' */
    /* Written once, read at every stage call. */
    _Atomic int error;
    _Atomic int stop; /* wf_pipeline_stop from a later stage */
    /* The input token's holder's own. */
    _Alignas(WF_CACHE_LINE) wf_pipeline_ctl in_ctl;
    uint64_t seq;   /* the next item's number */
    pl_token *priv; /* free records taken from `free` */
    void *in_by;    /* the thread that ran the input last */
    uint64_t run;   /* items it has made in a row */
    uint64_t since; /* when its run reached the last multiple of KEEP_RUN */
    bool keep;      /* keep the next input token on this thread */
    _Alignas(WF_CACHE_LINE) _Atomic uint64_t free; /* PL1 */
    _Alignas(WF_CACHE_LINE) _Atomic int done;      /* PL4 */
};

/* ---- errors and cancellation -------------------------------------------- */

static void pipe_fail(pl_pipe *p, int err)
{
    int none = 0;
    /* First error wins.  The caller reads it after `done` (PL4), which
     * orders it; acq_rel costs nothing on this rare path. */
    wf_cas_acqrel(&p->error, &none, err);
}

/* Has the pipeline failed or been cancelled?  Relaxed: a hint polled at
 * every stage call; a stage that misses it by a call only runs once more.
 * A cancelled group is latched into `error`. */
static bool halted(pl_pipe *p)
{
    if (wf_load_relaxed(&p->error) != 0)
        return true;
    if (p->group == NULL || !wf_group_is_cancelled(p->group))
        return false;
    pipe_fail(p, WF_ECANCELED);
    return true;
}

/* ---- free records (PL1) ------------------------------------------------- */

static pl_token *rec_at(pl_pipe *p, uint64_t w)
{
    uint32_t top = FREE_TOP(w);
    return top ? &p->rec[top - 1] : NULL;
}

/* A free record for the next input token, or NULL: then the input is
 * marked stalled (the next record given back restarts it).  The input
 * token's holder only: the one consumer, so taking the whole stack at
 * once has no ABA. */
static pl_token *free_take(pl_pipe *p)
{
    for (;;) {
        pl_token *t = p->priv;
        if (t != NULL) {
            p->priv = t->next;
            return t;
        }
        /* Relaxed: the CAS or the exchange decides.  No flag is set
         * while the input token runs: only it sets them. */
        uint64_t w = wf_load_relaxed(&p->free);
        if (w == 0 && wf_cas_acqrel(&p->free, &w, FREE_STALLED))
            return NULL;
        if (w != 0) /* acq_rel: the givers' writes to the records, PL1 */
            p->priv = rec_at(p, wf_exchange_acqrel(&p->free, 0));
    }
}

/* Every record is back and the input has ended: wake the caller (PL4).
 * pool was read before the CAS that brought the last record back. */
static void pipe_complete(pl_pipe *p, wf_pool *pool)
{
    wf_fetch_add_seqcst(&p->done, 1); /* P8: a seq_cst RMW, then wake */
    wf__wake_waiters(pool);
}

/* tok's item is through (or dropped): give the record back.  Returns tok,
 * now the input token, when the input was stalled (the caller runs it);
 * else NULL, and p may be gone unless the caller holds another token. */
static pl_token *token_finish(pl_pipe *p, pl_token *tok)
{
    wf_pool *pool = p->pool; /* PL4: before the CAS */
    uint32_t all = p->tokens;
    uint64_t w = wf_load_relaxed(&p->free), nw; /* the CAS decides */
    do {
        tok->next = rec_at(p, w);
        nw = w & FREE_STALLED
                 ? 0
                 : FREE_WORD(tok->index + 1, FREE_COUNT(w) + 1, w & FREE_ENDED);
    } while (!wf_cas_acqrel(&p->free, &w, nw)); /* PL1 */
    if (w & FREE_STALLED) { /* stalled: empty, and ours to restart */
        tok->stage = 0;
        return tok;
    }
    if ((nw & FREE_ENDED) && FREE_COUNT(nw) == all)
        pipe_complete(p, pool);
    return NULL;
}

/* The input has ended: its record and those it kept go back, marked
 * ended; complete if nothing is in flight. */
static void input_end(pl_pipe *p, pl_token *tok)
{
    wf_pool *pool = p->pool; /* PL4: before the CAS */
    uint32_t all = p->tokens, k = 1;
    pl_token *last = tok;
    tok->next = p->priv;
    for (; last->next != NULL; last = last->next)
        k++;
    uint64_t w = wf_load_relaxed(&p->free), nw; /* the CAS decides */
    do {
        last->next = rec_at(p, w);
        nw = FREE_WORD(tok->index + 1, FREE_COUNT(w) + k, FREE_ENDED);
    } while (!wf_cas_acqrel(&p->free, &w, nw)); /* PL1 */
    if (FREE_COUNT(nw) == all)
        pipe_complete(p, pool);
}

/* ---- serial stages ------------------------------------------------------ */

/* A ring slot's word (PL2): 0 (empty), GO(k) or PARKED(k, token).  Bit 0
 * says it is not empty, bits 1..21 hold the token's index + 1 (0 for GO),
 * the rest the low bits of k: items in the ring at once differ by less
 * than `tokens`, far below 2^42, so the low bits tell them apart. */
#define SLOT_INDEX_BITS 21 /* index + 1 <= WF_PIPELINE_MAX_TOKENS */
_Static_assert(WF_PIPELINE_MAX_TOKENS < 1u << SLOT_INDEX_BITS, "slot word");
#define SLOT_GO(k) ((uint64_t)(k) << (SLOT_INDEX_BITS + 1) | 1u)
#define SLOT_PARKED(k, index) (SLOT_GO(k) | (uint64_t)((index) + 1) << 1)
#define SLOT_INDEX_MASK ((uint64_t)((1u << SLOT_INDEX_BITS) - 1) << 1)
#define SLOT_TOKEN(w) ((uint32_t)(((w)&SLOT_INDEX_MASK) >> 1))

/* In order (PL2): true if tok may run the stage now; false if it parked
 * and the token before it will hand it the stage. */
static bool inorder_enter(pl_serial *s, pl_token *tok, uint64_t mask)
{
    _Atomic uint64_t *slot = &s->ring[tok->seq & mask];
    /* Acquire (the load and the CAS): pairs with the leaver's CAS, so
     * the calls of the items before this one happen before its call. */
    uint64_t w = wf_load_acquire(slot);
    if (w == 0 && wf_cas_acqrel(slot, &w, SLOT_PARKED(tok->seq, tok->index)))
        return false; /* the leaver will find it; tok is not ours now */
    if (w != SLOT_GO(tok->seq))
        WF_BUG("pipeline: an in-order slot holds another item");
    /* Ours until the next use of the slot, which the turns order after
     * this call: relaxed. */
    wf_store_relaxed(slot, 0);
    return true;
}

/* In order (PL2): pass the turn to the next item; returns its token if it
 * had parked (it now holds the stage), else NULL. */
static pl_token *inorder_leave(pl_pipe *p, pl_serial *s, pl_token *tok)
{
    uint64_t k = tok->seq + 1, w = 0;
    _Atomic uint64_t *slot = &s->ring[k & p->mask];
    /* Release: the next item's call sees this one's (see enter).  On
     * failure, acquire: the parker's writes to its token. */
    if (wf_cas_acqrel(slot, &w, SLOT_GO(k)))
        return NULL;
    if ((w & ~SLOT_INDEX_MASK) != SLOT_GO(k) || SLOT_TOKEN(w) == 0)
        WF_BUG("pipeline: an in-order slot holds another item");
    wf_store_relaxed(slot, 0); /* as in enter */
    return &p->rec[SLOT_TOKEN(w) - 1];
}

/* Out of order (PL3): hold the stage, or park on its stack. */
static bool ooo_enter(pl_serial *s, pl_token *tok)
{
    uintptr_t w = wf_load_relaxed(&s->state), nw; /* the CAS decides */
    do {
        tok->next = (pl_token *)(w & ~(uintptr_t)1);
        nw = w == 0 ? 1 : (uintptr_t)tok | 1;
    } while (!wf_cas_acqrel(&s->state, &w, nw));
    return w == 0;
}

static pl_token *reverse(pl_token *t)
{
    pl_token *r = NULL;
    while (t != NULL) {
        pl_token *next = t->next;
        t->next = r;
        r = t;
        t = next;
    }
    return r;
}

/* Out of order (PL3): give the stage to the oldest parked token (returned,
 * it now holds the stage), or free it (NULL). */
static pl_token *ooo_leave(pl_serial *s)
{
    if (s->fifo == NULL) {
        uintptr_t w = wf_load_relaxed(&s->state); /* the CAS decides */
        while (!wf_cas_acqrel(&s->state, &w, w == 1 ? 0 : 1))
            ;
        if (w == 1)
            return NULL;
        s->fifo = reverse((pl_token *)(w & ~(uintptr_t)1));
    }
    pl_token *t = s->fifo;
    s->fifo = t->next;
    return t;
}

static bool serial_enter(pl_pipe *p, const pl_stage *s, pl_token *tok)
{
    return s->mode == WF_STAGE_SERIAL_IN_ORDER
               ? inorder_enter(s->ser, tok, p->mask)
               : ooo_enter(s->ser, tok);
}

static pl_token *serial_leave(pl_pipe *p, const pl_stage *s, pl_token *tok)
{
    return s->mode == WF_STAGE_SERIAL_IN_ORDER ? inorder_leave(p, s->ser, tok)
                                               : ooo_leave(s->ser);
}

/* ---- running tokens ------------------------------------------------------ */

static void token_task(wf_task *t);

/* Make tok a task of the pool, on this worker's own stack (P7); with more
 * than one thread, published at once: the token may hold a serial stage
 * or the input, which must not wait until this thread's stage call ends
 * for a thief to get it. */
static void token_spawn(pl_pipe *p, pl_token *tok)
{
    if (!wf__spawn_detached(p->pool, &tok->task, token_task, 0))
        WF_BUG("a pipeline token outside its pool");
    if (p->share) {
        wf__worker *w = wf__current();
        wf__publish_all(w);
    }
}

/* tok has left its stage, and `woken` (or NULL) now holds that stage: go
 * on to the next stage.  Returns the token this thread runs next. */
static pl_token *advance(pl_pipe *p, pl_token *tok, pl_token *woken)
{
    size_t i = tok->stage + 1;
    if (i < p->n) {
        if (woken != NULL)
            token_spawn(p, woken);
        tok->stage = i;
        const pl_stage *s = &p->stage[i];
        return s->ser == NULL || serial_enter(p, s, tok) ? tok : NULL;
    }
    /* Through: run what was woken here (a serial stage's next item),
     * rather than spawn it, and the input too if this restarted it. */
    pl_token *in = token_finish(p, tok); /* p may be gone if both NULL */
    if (in != NULL && woken != NULL)
        token_spawn(p, in);
    return woken != NULL ? woken : in;
}

/* Call stage s; in a trace, as a span named after its place (the first
 * stage is 0).  The tokens' tasks get no span of their own: a stage call
 * is the work, wherever its token runs. */
static void *call_stage(pl_pipe *p, const pl_stage *s, void *item,
                        wf_pipeline_ctl *ctl)
{
    if (!wf__trace_enabled())
        return s->fn(item, s->ctx, ctl);
    char name[32];
    snprintf(name, sizeof name, "pipeline stage %zu", (size_t)(s - p->stage));
    wf__trace_record('B', WF__TRACE_STAGE, name, 0);
    item = s->fn(item, s->ctx, ctl);
    wf__trace_record('E', WF__TRACE_STAGE, NULL, 0);
    return item;
}

/* Run stage s on tok's item, unless the pipeline has halted: then the
 * item is dropped, once, and it only passes the stages that remain, so
 * that the serial stages' turns go on. */
static void stage_call(pl_pipe *p, const pl_stage *s, pl_token *tok)
{
    if (tok->dropped)
        return;
    if (halted(p)) {
        tok->dropped = true;
        if (p->drop != NULL)
            p->drop(tok->item, p->drop_ctx);
        return;
    }
    tok->item = call_stage(p, s, tok->item, &p->ctl);
}

/* Call the first stage.  False when the input has ended. */
static bool input_call(pl_pipe *p, pl_token *tok)
{
    /* Relaxed: a stop from a later stage is a hint, seen soon. */
    if (halted(p) || wf_load_relaxed(&p->stop))
        return false;
    const pl_stage *s = &p->stage[0];
    p->in_ctl.stopped = false;
    void *item = call_stage(p, s, NULL, &p->in_ctl);
    if (p->in_ctl.stopped)
        return false;
    tok->item = item;
    tok->seq = p->seq++;
    tok->dropped = false;
    return true;
}

/* Publish the next input token at once, or keep it on this thread?  At
 * once, as oneTBB spawns its next input task, unless the input has stayed
 * on this thread for a run of KEEP_RUN items that took less than
 * CHEAP_NS each: then nobody is taking it, and a published token that
 * this thread pops back costs it a publish and a pop, each with a fence
 * (the deque; P3), more than such an item.  A kept token runs when this
 * thread is done with its item, or goes to the pool as soon as a thief
 * asks (P2, token_run): a thread that wants work gets it after one stage
 * call of this thread, and items cheaper than a hand-off lose nothing by
 * the wait.  Judged once per run of KEEP_RUN items (one clock read), and
 * again from the start whenever the input moves. */
#define KEEP_RUN 64u
#define CHEAP_NS 100u

static bool input_keep(pl_pipe *p)
{
    void *self = wf__current();
    if (self != p->in_by) { /* the input moved: publish, judge anew */
        p->in_by = self;
        p->run = 0;
        p->keep = false;
    }
    if (++p->run % KEEP_RUN == 0) {
        uint64_t t = wf__now_ns();
        p->keep = p->run > KEEP_RUN && t - p->since < KEEP_RUN * CHEAP_NS;
        p->since = t;
    }
    return p->keep;
}

/* tok is the input token: make an item, hand the input to the next
 * token, and carry the item on.  The next input token is published at
 * once (input_keep), or goes to *later, to run when this thread is done
 * with the item, rather than through the deque; on a pool of one thread,
 * where nobody could take it, always. */
static pl_token *input_step(pl_pipe *p, pl_token *tok, pl_token **later)
{
    if (!input_call(p, tok)) {
        input_end(p, tok);
        return NULL;
    }
    pl_token *next = free_take(p);
    if (next != NULL) {
        next->stage = 0;
        if (p->share && !input_keep(p))
            token_spawn(p, next);
        else
            *later = next;
    }
    return advance(p, tok, NULL);
}

static pl_token *stage_step(pl_pipe *p, pl_token *tok)
{
    const pl_stage *s = &p->stage[tok->stage];
    stage_call(p, s, tok);
    pl_token *woken = s->ser != NULL ? serial_leave(p, s, tok) : NULL;
    return advance(p, tok, woken);
}

/* Run tokens until one parks, or ends with nothing to hand on.  Between
 * stage calls, an input token kept on this thread goes to the pool if a
 * thief has asked for work (P2): the spawn answers the request. */
static void token_run(pl_pipe *p, pl_token *tok)
{
    pl_token *later = NULL; /* the input kept on this thread: input_step */
    wf__worker *w = wf__current();
    for (;;) {
        /* Relaxed: limit is a hint (P2). */
        if (later != NULL && p->share &&
            wf_load_relaxed(&w->fast.limit) == NULL) {
            token_spawn(p, later);
            later = NULL;
        }
        if (tok == NULL && (tok = later) != NULL)
            later = NULL;
        if (tok == NULL)
            return;
        tok = tok->stage == 0 ? input_step(p, tok, &later) : stage_step(p, tok);
    }
}

static void token_task(wf_task *t)
{
    pl_token *tok = (pl_token *)t;
    token_run(tok->pipe, tok);
    wf__linger(); /* tok and its pipeline may be gone: it touches neither */
}

/* ---- the call ------------------------------------------------------------ */

/* Acquire pairs with the seq_cst RMW in pipe_complete: the caller sees
 * every stage call's effects, and the error. */
static bool pipe_done(const void *arg)
{
    return wf_load_acquire(&((pl_pipe *)arg)->done) != 0;
}

/* In the pool (wf_run): this thread runs the input first, then the pool's
 * work until the pipeline is done, parking as a waiter when there is none
 * (P8). */
static void pipe_main(void *arg)
{
    pl_pipe *p = arg;
    pl_token *tok = free_take(p);
    tok->stage = 0;
    token_run(p, tok);
    wf__help_until(wf__current(), pipe_done, p);
}

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
    char *base = wf__alloc_aligned(&pool->alloc, l->size, raw);
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
    err = wf_run(pool, pipe_main, p);
    if (err == 0) /* relaxed: pipe_done's acquire ordered it */
        err = wf_load_relaxed(&p->error);
    wf__free_aligned(&pool->alloc, raw, l.size);
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
    pipe_fail(ctl->pipe, err < 0 ? err : WF_EINVAL);
    if (ctl->input)
        ctl->stopped = true;
}

bool wf_pipeline_is_cancelled(const wf_pipeline_ctl *ctl)
{
    return ctl != NULL && halted(ctl->pipe);
}
