/* SPDX-License-Identifier: Apache-2.0 */
/* A parallel pipeline's state (src/algo/pipeline.c runs it,
 * src/algo/pipeline_plan.c lays it out and makes the call): the one block
 * that holds the pipeline, its records (tokens), its serial stages and
 * their rings.  The rules PL1..PL4 cited here are stated at the top of
 * src/algo/pipeline.c.  Never installed. */
#ifndef WF_INTERNAL_ALGO_PIPELINE_H
#define WF_INTERNAL_ALGO_PIPELINE_H

#include "internal/atomic.h"
#include "internal/pool_hooks.h"
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

/* Errors and cancellation, read and written by every stage call. */

static inline void wf__pl_fail(pl_pipe *p, int err)
{
    int none = 0;
    /* First error wins: the CAS's modification order, not its memory
     * order.  Relaxed: only stage calls fail a pipeline, and each gives
     * its record back afterwards (A2's release sequence), which the last
     * one's increment of `done` passes on to the caller's acquire (A5). */
    wf_cas_relaxed(&p->error, &none, err);
}

/* Has the pipeline failed or been cancelled?  Relaxed: a hint polled at
 * every stage call; a stage that misses it by a call only runs once more.
 * A cancelled group is latched into `error`. */
static inline bool wf__pl_halted(pl_pipe *p)
{
    if (wf_load_relaxed(&p->error) != 0)
        return true;
    if (p->group == NULL || !wf_group_is_cancelled(p->group))
        return false;
    wf__pl_fail(p, WF_ECANCELED);
    return true;
}

/* In the pool (wf_run): this thread runs the input first, then the pool's
 * work until the pipeline is done, parking as a waiter when there is none
 * (P8).  arg: the pl_pipe. */
void wf__pl_main(void *arg);

#endif /* WF_INTERNAL_ALGO_PIPELINE_H */
