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
 * (oneTBB's input_tokens).  The rules below are cited as PL1..PL4 (A2..A5
 * in docs/protocols.md); P7 and P8 are those of docs/protocols.md.
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
 *      the thread that brought the last one back sets `done` (acq_rel RMW)
 *      and wakes the pool's waiters (P8).  The caller may free everything
 *      as soon as it sees `done`, so a thread reads what it needs (the
 *      pool) before the CAS that may complete the pipeline, and touches
 *      nothing of it after a CAS that did not, unless it holds a token. */
#include <stdio.h>

#include "internal/algo/pipeline.h"
#include "internal/trace.h"
#include "internal/util.h"

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
        /* PL1 (A2): acq_rel, as every change of `free`. */
        if (w == 0 && wf_cas_acqrel(&p->free, &w, FREE_STALLED))
            return NULL;
        if (w != 0) /* acq_rel: the givers' writes to the records, PL1 (A2) */
            p->priv = rec_at(p, wf_exchange_acqrel(&p->free, 0));
    }
}

/* Every record is back and the input has ended: wake the caller (PL4).
 * pool was read before the CAS that brought the last record back. */
static void pipe_complete(pl_pipe *p, wf_pool *pool)
{
    /* A5: release, to pipe_done's acquire.  Acq_rel is enough for P8:
     * wf__wake_waiters' fence orders it before the load of `waiters`. */
    wf_fetch_add_acqrel(&p->done, 1);
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
    } while (!wf_cas_acqrel(&p->free, &w, nw)); /* PL1 (A2) */
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
    } while (!wf_cas_acqrel(&p->free, &w, nw)); /* PL1 (A2) */
    if (FREE_COUNT(nw) == all)
        pipe_complete(p, pool);
}

/* ---- serial stages ------------------------------------------------------ */

/* In order (PL2): true if tok may run the stage now; false if it parked
 * and the token before it will hand it the stage. */
static bool inorder_enter(pl_serial *s, pl_token *tok, uint64_t mask)
{
    _Atomic uint64_t *slot = &s->ring[tok->seq & mask];
    /* Acquire (the load and the CAS): pairs with the leaver's CAS, so
     * the calls of the items before this one happen before its call
     * (A3). */
    uint64_t w = wf_load_acquire(slot);
    /* A3: parks by a CAS from empty. */
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
     * failure, acquire: the parker's writes to its token (A3). */
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
        /* Acq_rel: taking the stage acquires its last holder's release;
         * parking releases tok to the holder that takes the stack (A4). */
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
        /* Release: the next holder sees this one's calls; acquire: the
         * tokens parked meanwhile (A4). */
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
        struct wf__worker *w = wf__current();
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
    if (wf__pl_halted(p)) {
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
    if (wf__pl_halted(p) || wf_load_relaxed(&p->stop))
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
    struct wf__fast *f = wf__self; /* this thread's worker: in the pool */
    for (;;) {
        /* Relaxed: limit is a hint (P2). */
        if (later != NULL && p->share && wf_load_relaxed(&f->limit) == NULL) {
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

/* ---- the caller's part ------------------------------------------------- */

/* Acquire pairs with the release RMW in pipe_complete: the caller sees
 * every stage call's effects, and the error. */
static bool pipe_done(const void *arg)
{
    /* The caller's load of A5. */
    return wf_load_acquire(&((pl_pipe *)arg)->done) != 0;
}

/* The function wf_run runs (internal/algo/pipeline.h). */
void wf__pl_main(void *arg)
{
    pl_pipe *p = arg;
    pl_token *tok = free_take(p);
    tok->stage = 0;
    token_run(p, tok);
    wf__help_until(wf__current(), pipe_done, p);
}
