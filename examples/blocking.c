/* SPDX-License-Identifier: Apache-2.0 */
/* blocking: tasks that block inside wf_blocking_begin / wf_blocking_end.
 *
 * A pool of 2 workers runs 4 tasks that wait at a barrier for all 4.  The
 * first two tasks would hold both workers forever and the other two would
 * never start: a deadlock.  wf_blocking_begin() tells the pool that this
 * worker is about to block, and the pool starts a spare worker (at most
 * cfg.max_spares of them) so that 2 workers keep running; spares retire
 * once idle.  Wrap any blocking call this way: I/O, a lock, a condition
 * variable, a barrier.
 *
 * Build: cc -O2 blocking.c $(pkg-config --cflags --libs weft)
 * Run:   ./blocking  prints  4 tasks met at a barrier on a pool of 2
 *                            workers (spare workers: yes) */
#define _POSIX_C_SOURCE 200809L /* pthread_barrier_t */
#include <pthread.h>
#include <stdio.h>
#include <weft.h>

#define WORKERS 2u
#define TASKS 4u

static void meet(size_t begin, size_t end, void *ctx)
{
    pthread_barrier_t *barrier = ctx;
    for (size_t i = begin; i < end; i++) {
        wf_blocking_begin(); /* may start a spare worker */
        pthread_barrier_wait(barrier);
        wf_blocking_end();
    }
}

int main(void)
{
    wf_pool_config cfg = WF_POOL_CONFIG_INIT;
    cfg.threads = WORKERS;
    cfg.max_spares = 8; /* default 256 */
    wf_pool *pool;
    int err = wf_pool_create(&pool, &cfg);
    if (err) {
        fprintf(stderr, "wf_pool_create: %s\n", wf_strerror(err));
        return 1;
    }
    pthread_barrier_t barrier;
    pthread_barrier_init(&barrier, NULL, TASKS);
    /* Grain 1: one task per index. */
    err = wf_parallel_for(pool, 0, TASKS, 1, meet, &barrier);
    if (err) {
        fprintf(stderr, "wf_parallel_for: %s\n", wf_strerror(err));
        return 1;
    }
    /* wf_pool_stats counts every worker the pool has had, spares too. */
    int workers = wf_pool_stats(pool, NULL, 0);
    printf("%u tasks met at a barrier on a pool of %u workers (spare "
           "workers: %s)\n",
           TASKS, wf_pool_threads(pool), workers > (int)WORKERS ? "yes" : "no");
    pthread_barrier_destroy(&barrier);
    wf_pool_destroy(pool);
    return workers > (int)WORKERS ? 0 : 1;
}
