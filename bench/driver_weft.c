/* weft's runner: one pool per worker count, made on first use and kept,
 * so no run times thread creation; each run is a wf_run.  A flow graph is
 * built on the calling thread for the pool of the coming run
 * (bench_system_build, bench_weft_build_pool). */
#include <stdio.h>
#include <weft.h>

#include "system.h"

const char bench_system_name[] = "weft";
const bool bench_system_is_seq = false;

static wf_pool *pools[WF_MAX_THREADS + 1];

/* The pool of `workers` threads, made on first use; NULL with why. */
static wf_pool *pool_for(unsigned workers, char *why, unsigned long n)
{
    if (workers == 0 || workers > WF_MAX_THREADS) {
        snprintf(why, n, "weft: %u workers is out of range", workers);
        return NULL;
    }
    if (pools[workers] == NULL) {
        wf_pool_config cfg = WF_POOL_CONFIG_INIT;
        cfg.threads = workers;
        int err = wf_pool_create(&pools[workers], &cfg);
        if (err) {
            snprintf(why, n, "weft: %s", wf_strerror(err));
            return NULL;
        }
    }
    return pools[workers];
}

int bench_system_run(void (*fn)(void *), void *state, unsigned workers,
                     char *why, unsigned long n)
{
    wf_pool *pool = pool_for(workers, why, n);
    if (pool == NULL)
        return -1;
    int err = wf_run(pool, fn, state);
    if (err) {
        snprintf(why, n, "weft: %s", wf_strerror(err));
        return -1;
    }
    return 0;
}

static wf_pool *build_pool;

wf_pool *bench_weft_build_pool(void)
{
    return build_pool;
}

int bench_system_build(void (*build)(void *), void *state, unsigned workers,
                       char *why, unsigned long n)
{
    if ((build_pool = pool_for(workers, why, n)) == NULL)
        return -1;
    build(state); /* on this thread: see system.h */
    build_pool = NULL;
    return 0;
}
