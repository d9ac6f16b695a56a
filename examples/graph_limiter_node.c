/* SPDX-License-Identifier: Apache-2.0 */
/* graph_limiter_node: at most 3 jobs in flight.
 *
 *   jobs (queue) --> limiter(3) --> run (function, unlimited)
 *                       ^ port 1            |
 *                       +---- one signal ---+  per finished job
 *
 * The limiter lets 3 jobs through, then rejects: the rest wait in the
 * queue, and the edge turns to pull.  Each finished job puts a signal on
 * the limiter's decrement port (input 1), which lowers its count and makes
 * it pull the next job from the queue.
 *
 * Output:
 *   20 jobs done, never more than 3 in flight
 *
 * Build: cc -O2 graph_limiter_node.c $(pkg-config --cflags --libs weft) */
#define _POSIX_C_SOURCE 200809L /* nanosleep; before any header */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <weft.h>

#define TRY(call)                                                              \
    do {                                                                       \
        int err_ = (call);                                                     \
        if (err_ < 0) {                                                        \
            fprintf(stderr, "%s: %s\n", #call, wf_strerror(err_));             \
            exit(2);                                                           \
        }                                                                      \
    } while (0)

#define LIMIT 3

typedef struct {
    wf_node *limiter;
    _Atomic int in_flight, most, done;
} jobs;

static int run_job(const void *in, void *out, void *ctx)
{
    (void)in, (void)out;
    jobs *j = ctx;
    int now = atomic_fetch_add(&j->in_flight, 1) + 1;
    int most = atomic_load(&j->most);
    while (now > most && !atomic_compare_exchange_weak(&j->most, &most, now))
        ;
    struct timespec ts = {0, 500000}; /* half a millisecond of "work" */
    nanosleep(&ts, NULL);
    atomic_fetch_sub(&j->in_flight, 1);
    atomic_fetch_add(&j->done, 1);
    /* This job has left: let the next one in. */
    return wf_try_put(wf_input_port(j->limiter, 1), NULL) == 1 ? 0 : -1;
}

int main(void)
{
    wf_graph *g;
    TRY(wf_graph_create(&g, NULL));
    jobs j = {0};
    wf_node *queue, *run;
    TRY(wf_queue_node_create(&queue, g, sizeof(int)));
    TRY(wf_limiter_node_create(&j.limiter, g, sizeof(int), LIMIT));
    wf_function_config fc = WF_FUNCTION_CONFIG_INIT;
    fc.in_size = sizeof(int);
    fc.concurrency = WF_UNLIMITED;
    fc.body = run_job;
    fc.ctx = &j;
    TRY(wf_function_node_create(&run, g, &fc));
    TRY(wf_make_edge(queue, wf_input_port(j.limiter, 0)));
    TRY(wf_make_edge(j.limiter, run));

    for (int i = 0; i < 20; i++)
        TRY(wf_try_put(queue, &i));
    TRY(wf_graph_wait_for_all(g));
    int ok = atomic_load(&j.most) <= LIMIT;
    printf("%d jobs done, %s %d in flight\n", atomic_load(&j.done),
           ok ? "never more than" : "MORE THAN", LIMIT);
    TRY(wf_node_destroy(run));
    TRY(wf_node_destroy(j.limiter));
    TRY(wf_node_destroy(queue));
    TRY(wf_graph_destroy(g));
    return ok ? 0 : 1;
}
