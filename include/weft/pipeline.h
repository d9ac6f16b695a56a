/* SPDX-License-Identifier: Apache-2.0 */
/* weft — parallel_pipeline: a stream of items through a row of stages.
 *
 * The first stage makes items; every later stage takes the previous
 * stage's item and returns the next one; at most max_tokens items are in
 * flight at once.  Each stage is parallel (calls may overlap),
 * serial-in-order (one call at a time, in the order the first stage made
 * the items) or serial-out-of-order (one call at a time, any order): the
 * filter modes of oneTBB's parallel_pipeline (oneAPI specification,
 * "parallel_pipeline" and "filter").  The calling thread takes part, as it
 * does in wf_run, so a pool of T threads runs a pipeline on T threads.
 *
 *     static void *read_line(void *item, void *ctx, wf_pipeline_ctl *ctl)
 *     {
 *         char *line = next_line(ctx);
 *         if (line == NULL)
 *             wf_pipeline_stop(ctl);     // end of input; NULL is ignored
 *         return line;
 *     }
 *     ...
 *     wf_stage stages[] = {
 *         {WF_STAGE_SERIAL_IN_ORDER, read_line, file},
 *         {WF_STAGE_PARALLEL, transform, NULL},
 *         {WF_STAGE_SERIAL_IN_ORDER, write_line, out},
 *     };
 *     int err = wf_parallel_pipeline(pool, 16, stages, 3);
 *
 * Items are pointers (void *), passed on as they are, never copied; NULL
 * is an item like any other.  docs/pipeline.md is the guide. */
#ifndef WEFT_PIPELINE_H
#define WEFT_PIPELINE_H

#include <stdbool.h>
#include <stddef.h>

#include "common.h"
#include "pool.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How a stage's calls may overlap (oneTBB's filter_mode). */
typedef enum wf_stage_mode {
    WF_STAGE_PARALLEL = 0,       /* any number at once, any order        */
    WF_STAGE_SERIAL_IN_ORDER,    /* one at a time, in the first stage's
                                     order                                 */
    WF_STAGE_SERIAL_OUT_OF_ORDER /* one at a time, in any order           */
} wf_stage_mode;

/* What a stage function is given to stop the input or fail the pipeline;
 * valid during that call only.  Opaque. */
typedef struct wf_pipeline_ctl wf_pipeline_ctl;

/* A stage's function.  The first stage is called with item NULL and
 * returns a new item (or calls wf_pipeline_stop); every later stage gets
 * the item the stage before it returned and returns the item for the next
 * one; the last stage's return value is ignored.  ctx is the stage's
 * wf_stage.ctx. */
typedef void *(*wf_stage_fn)(void *item, void *ctx, wf_pipeline_ctl *ctl);

typedef struct wf_stage {
    wf_stage_mode mode;
    wf_stage_fn fn;
    void *ctx;
} wf_stage;

/* Largest max_tokens accepted; a larger one gives WF_ERANGE.  The records
 * of the tokens (128 bytes each, and 8 to 16 more per serial-in-order
 * stage) are allocated, from the pool's allocator, when the pipeline
 * starts, and freed when it returns. */
#define WF_PIPELINE_MAX_TOKENS (1u << 20)

/* Options of wf_parallel_pipeline_with.  Zero means "none" everywhere. */
typedef struct wf_pipeline_config {
    /* NULL, or a task group: once it (or a group it is nested in) is
     * cancelled, by wf_group_cancel from any thread or by an error of one
     * of its tasks, the pipeline stops as after wf_pipeline_fail and
     * returns WF_ECANCELED.  A pipeline run from a group task does not see
     * that task's group unless it is given here. */
    wf_group *group;
    /* NULL, or called once for every item that is dropped, i.e. made by
     * the first stage but not passed through every stage because the
     * pipeline failed or was cancelled first; it gets the value the last
     * stage the item did pass returned.  From any thread taking part,
     * possibly several at once: free the item's memory here. */
    void (*drop)(void *item, void *ctx);
    void *drop_ctx;
} wf_pipeline_config;

#define WF_PIPELINE_CONFIG_INIT                                                \
    {                                                                          \
        NULL, NULL, NULL                                                       \
    }

/* Run the n stages over the items the first one makes, at most max_tokens
 * items in flight, and return when every item has passed every stage (or
 * was dropped, below).  Runs on `pool`; the calling thread takes part: a
 * thread outside the pool runs the pipeline in one of its caller slots, as
 * wf_run does, and a task of the pool (a stage of another pipeline too)
 * may call it: it then runs pool work on its own thread until the
 * pipeline is done.
 *
 * The first stage must be serial (either serial mode: it is called one
 * call at a time, and the order of its calls is the order that
 * serial-in-order stages keep).  oneTBB also accepts a parallel input
 * filter; weft does not: put a parallel stage after a serial input.
 *
 * An item is in flight from the first stage's call that makes it until
 * the last stage's call for it returns.  When the last stage is
 * serial-in-order, the call of the first stage that makes item i begins
 * after the last stage's call for item i - max_tokens has returned (and
 * sees its effects): max_tokens buffers used in turn are enough.
 *
 * Returns 0 once the first stage has stopped (wf_pipeline_stop) and every
 * item it made has passed all stages.  WF_EINVAL: pool or stages NULL, n
 * or max_tokens 0, a NULL fn, a mode that is none of the three, or a
 * parallel first stage.  WF_ERANGE: max_tokens above
 * WF_PIPELINE_MAX_TOKENS.  WF_ENOMEM: no memory for the tokens (nothing
 * ran).  WF_ESTATE: the pool was made before a fork().  The first code a
 * stage gave wf_pipeline_fail: then the first stage is not called again,
 * no stage call starts once the failure is seen, the calls under way
 * finish, and the items in flight are dropped (nothing is lost: each item
 * made either passed every stage or was dropped). */
WF_API int wf_parallel_pipeline(wf_pool *pool, size_t max_tokens,
                                const wf_stage *stages, size_t n);

/* wf_parallel_pipeline with options (cfg NULL: none).  Also returns
 * WF_ECANCELED when cfg->group was cancelled before the pipeline finished
 * (and no stage failed first). */
WF_API int wf_parallel_pipeline_with(wf_pool *pool, size_t max_tokens,
                                     const wf_stage *stages, size_t n,
                                     const wf_pipeline_config *cfg);

/* End of input.  From the first stage: it will not be called again, and
 * the value this call returns is not an item (it is ignored).  From a
 * later stage: the first stage is not called again after the call under
 * way, if any; its item, like every item already made, goes through all
 * stages.  ctl NULL: nothing is done. */
WF_API void wf_pipeline_stop(wf_pipeline_ctl *ctl);

/* Fail the pipeline with err (a negative code, a WF_E... or the caller's
 * own; 0 or above is taken as WF_EINVAL): the first stage is not called
 * again, no stage call starts once the failure is seen, and
 * wf_parallel_pipeline returns the first error given.  The value the
 * failing call returns is not passed on: from the first stage it is
 * ignored, from a later one it is dropped with its item.  Any stage; ctl
 * NULL: nothing is done. */
WF_API void wf_pipeline_fail(wf_pipeline_ctl *ctl, int err);

/* True once the pipeline has failed or been cancelled: a long stage call
 * may poll it and return early (its item is then dropped).  Any stage. */
WF_API bool wf_pipeline_is_cancelled(const wf_pipeline_ctl *ctl);

#ifdef __cplusplus
}
#endif
#endif /* WEFT_PIPELINE_H */
