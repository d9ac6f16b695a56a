/* SPDX-License-Identifier: Apache-2.0 */
/* weft's runner: one pool per thread count, made on first use and kept,
 * so no run times thread creation.  A pool of `cfg.threads = T` counts the
 * thread that waits on it (wf_run, wf_graph_wait_for_all, wf_join) as one
 * of its T, as OpenMP's num_threads and oneTBB's max_allowed_parallelism
 * count the caller.  A fork-join run is a wf_run; a graph run calls the
 * kernel on this thread (bench_system_run_graph); a flow graph is built on
 * this thread for the pool of the coming run (bench_system_build).  The
 * kernels find that pool with bench_weft_pool.
 *
 * Built with WEFT_BENCH_TYPED it is weft-typed's runner: the same pools,
 * but a fork-join run calls the kernel on this thread, and the kernel
 * enters the pool itself with WF_RUN (kernel.h, BENCH_TYPED_RUN), since a
 * typed task is started by WF_RUN, not from a wf_run body.  Either way a
 * run is one wf_run from this thread. */
#include <stdio.h>
#include <weft.h>

#include "system.h"

#ifdef WEFT_BENCH_TYPED
const char bench_system_name[] = "weft-typed";
#else
const char bench_system_name[] = "weft";
#endif
const bool bench_system_is_seq = false;

static wf_pool *pools[WF_MAX_THREADS + 1];

/* The pool of the build or run in progress; written and read by the
 * runner's main thread, and read by a worker only inside a wf_run, which
 * orders the write before it. */
static wf_pool *current;

/* The pool of `threads` threads, made on first use; NULL with why. */
static wf_pool *pool_for(unsigned threads, char *why, unsigned long n)
{
    if (threads == 0 || threads > WF_MAX_THREADS) {
        snprintf(why, n, "weft: %u threads is out of range", threads);
        return NULL;
    }
    if (pools[threads] == NULL) {
        wf_pool_config cfg = WF_POOL_CONFIG_INIT;
        cfg.threads = threads;
        int err = wf_pool_create(&pools[threads], &cfg);
        if (err) {
            snprintf(why, n, "weft: %s", wf_strerror(err));
            return NULL;
        }
    }
    return pools[threads];
}

wf_pool *bench_weft_pool(void)
{
    return current;
}

#ifdef WEFT_BENCH_TYPED
/* What the kernel's WF_RUN returned, once it has reported. */
static int typed_err;
static bool typed_reported;

void bench_weft_typed_done(int err)
{
    typed_err = err;
    typed_reported = true;
}
#endif

int bench_system_run(void (*fn)(void *), void *state, unsigned threads,
                     char *why, unsigned long n)
{
    if ((current = pool_for(threads, why, n)) == NULL)
        return -1;
#ifdef WEFT_BENCH_TYPED
    typed_reported = false;
    fn(state); /* its WF_RUN enters current from this thread */
    int err = typed_err;
    if (!typed_reported) {
        current = NULL;
        snprintf(why, n, "weft-typed: the kernel made no WF_RUN");
        return -1;
    }
#else
    int err = wf_run(current, fn, state);
#endif
    current = NULL;
    if (err) {
        snprintf(why, n, "%s: %s", bench_system_name, wf_strerror(err));
        return -1;
    }
    return 0;
}

/* No wf_run: the kernel's puts come from outside the pool and its
 * wf_graph_wait_for_all is this thread's, as in a program's main(). */
int bench_system_run_graph(void (*fn)(void *), void *state, unsigned threads,
                           char *why, unsigned long n)
{
    if ((current = pool_for(threads, why, n)) == NULL)
        return -1;
    fn(state);
    current = NULL;
    return 0;
}

int bench_system_build(void (*build)(void *), void *state, unsigned threads,
                       char *why, unsigned long n)
{
    if ((current = pool_for(threads, why, n)) == NULL)
        return -1;
    build(state); /* on this thread: see system.h */
    current = NULL;
    return 0;
}
