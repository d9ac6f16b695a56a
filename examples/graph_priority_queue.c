/* SPDX-License-Identifier: Apache-2.0 */
/* graph_priority_queue: jobs leave a priority_queue_node greatest first.
 *
 * Five jobs wait in a priority_queue_node with no successor.  A serial
 * worker (a function_node) is then connected: the queue hands it the jobs
 * one at a time, always the one with the highest priority it holds.
 *
 * Output, always:
 *   served: urgent high normal low idle (ok)
 *
 * Build: cc -O2 graph_priority_queue.c $(pkg-config --cflags --libs weft) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <weft.h>

#define TRY(call)                                                              \
    do {                                                                       \
        int err_ = (call);                                                     \
        if (err_ < 0) {                                                        \
            fprintf(stderr, "%s: %s\n", #call, wf_strerror(err_));             \
            exit(2);                                                           \
        }                                                                      \
    } while (0)

typedef struct job {
    int priority;
    char name[12];
} job;

/* Greater priority = greater message: it leaves first. */
static int by_priority(const void *a, const void *b, void *ctx)
{
    (void)ctx;
    int x = ((const job *)a)->priority, y = ((const job *)b)->priority;
    return (x > y) - (x < y);
}

/* The worker is serial, so its body never runs twice at once. */
static int serve(const void *in, void *out, void *ctx)
{
    (void)out;
    strcat(ctx, " ");
    strcat(ctx, ((const job *)in)->name);
    return 0;
}

int main(void)
{
    wf_graph *g;
    TRY(wf_graph_create(&g, NULL));
    wf_node *pq, *worker;
    TRY(wf_priority_queue_node_create(&pq, g, sizeof(job), by_priority, NULL));
    char served[128] = "";
    wf_function_config c = WF_FUNCTION_CONFIG_INIT;
    c.in_size = sizeof(job);
    c.concurrency = WF_SERIAL;
    c.body = serve;
    c.ctx = served;
    TRY(wf_function_node_create(&worker, g, &c));

    job jobs[] = {
        {2, "normal"}, {0, "idle"}, {9, "urgent"}, {1, "low"}, {5, "high"}};
    for (int i = 0; i < 5; i++)
        TRY(wf_try_put(pq, &jobs[i]));
    TRY(wf_make_edge(pq, worker)); /* the queue starts handing them out */
    TRY(wf_graph_wait_for_all(g));

    int ok = strcmp(served, " urgent high normal low idle") == 0;
    printf("served:%s (%s)\n", served, ok ? "ok" : "WRONG");
    TRY(wf_node_destroy(worker));
    TRY(wf_node_destroy(pq));
    TRY(wf_graph_destroy(g));
    return ok ? 0 : 1;
}
