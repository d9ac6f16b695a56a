/* weft's runner: one pool per worker count, made on first use and kept,
 * so no run times thread creation; each run is a wf_run. */
#include <stdio.h>
#include <weft.h>

#include "system.h"

const char bench_system_name[] = "weft";
const bool bench_system_is_seq = false;

static wf_pool *pools[WF_MAX_THREADS + 1];

int bench_system_run(void (*fn)(void *), void *state, unsigned workers,
                     char *why, unsigned long n)
{
    if (workers == 0 || workers > WF_MAX_THREADS) {
        snprintf(why, n, "weft: %u workers is out of range", workers);
        return -1;
    }
    int err = 0;
    if (pools[workers] == NULL) {
        wf_pool_config cfg = WF_POOL_CONFIG_INIT;
        cfg.threads = workers;
        err = wf_pool_create(&pools[workers], &cfg);
    }
    if (err == 0)
        err = wf_run(pools[workers], fn, state);
    if (err) {
        snprintf(why, n, "weft: %s", wf_strerror(err));
        return -1;
    }
    return 0;
}
