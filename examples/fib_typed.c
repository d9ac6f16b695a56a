/* SPDX-License-Identifier: Apache-2.0 */
/* fib_typed: the 30-second example with typed tasks (weft/task.h).
 *
 *   fib_typed N [WORKERS]      prints fib(N) = X
 *
 * Build: cc -O2 fib_typed.c $(pkg-config --cflags --libs weft) */
#include <stdio.h>
#include <stdlib.h>
#include <weft.h>

WF_TASK(long, fib, int, n)
{
    if (n < 2)
        return n;
    WF_SPAWN(fib, n - 1);         /* may run on another worker */
    long b = WF_CALL(fib, n - 2); /* meanwhile, the other half */
    long a = WF_SYNC(fib);        /* a direct call if nobody stole it */
    return a + b;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 30;
    wf_pool_config cfg = WF_POOL_CONFIG_INIT;
    cfg.threads = argc > 2 ? (unsigned)atoi(argv[2]) : 0;
    wf_pool *pool = NULL;
    int err = wf_pool_create(&pool, &cfg);
    long r = 0;
    if (err == 0)
        err = WF_RUN(pool, fib, &r, n);
    if (err != 0) {
        fprintf(stderr, "fib_typed: %s\n", wf_strerror(err));
        return 1;
    }
    printf("fib(%d) = %ld\n", n, r);
    return wf_pool_destroy(pool) != 0;
}
