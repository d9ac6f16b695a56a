/* SPDX-License-Identifier: Apache-2.0 */
/* graph_sequencer_node: process in parallel, deliver in order.
 *
 *   work (function, unlimited) --> order (sequencer) --> print (serial)
 *
 * The work bodies take uneven time, so their results come out of order;
 * the sequencer_node holds each result until every one with a smaller
 * sequence number has gone on, so the serial consumer sees 0, 1, 2, ...
 *
 * Output:
 *   100 results computed in parallel, received in order: yes (sum 338350)
 *
 * Build: cc -O2 graph_sequencer_node.c $(pkg-config --cflags --libs weft) */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
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

typedef struct {
    size_t seq; /* 0, 1, 2, ...: the order to restore */
    long value;
} result;

static int work(const void *in, void *out, void *ctx)
{
    (void)ctx;
    int i = *(const int *)in;
    struct timespec ts = {0, (i % 5) * 100000L}; /* uneven: 0..0.4 ms */
    nanosleep(&ts, NULL);
    result r = {(size_t)i, (long)(i + 1) * (i + 1)};
    *(result *)out = r;
    return 0;
}

static size_t seq_of(const void *msg, void *ctx)
{
    (void)ctx;
    return ((const result *)msg)->seq;
}

typedef struct {
    size_t expect;
    long sum;
    int in_order;
} consumer;

static int consume(const void *in, void *out, void *ctx)
{
    (void)out;
    consumer *c = ctx;
    const result *r = in;
    c->in_order &= r->seq == c->expect++;
    c->sum += r->value;
    return 0;
}

int main(void)
{
    wf_graph *g;
    TRY(wf_graph_create(&g, NULL));
    wf_node *w, *order, *print;
    wf_function_config fc = WF_FUNCTION_CONFIG_INIT;
    fc.in_size = sizeof(int);
    fc.out_size = sizeof(result);
    fc.concurrency = WF_UNLIMITED;
    fc.body = work;
    TRY(wf_function_node_create(&w, g, &fc));
    TRY(wf_sequencer_node_create(&order, g, sizeof(result), seq_of, NULL));
    consumer c = {0, 0, 1};
    wf_function_config pc = WF_FUNCTION_CONFIG_INIT;
    pc.in_size = sizeof(result);
    pc.concurrency = WF_SERIAL;
    pc.body = consume;
    pc.ctx = &c;
    TRY(wf_function_node_create(&print, g, &pc));
    TRY(wf_make_edge(w, order));
    TRY(wf_make_edge(order, print));

    for (int i = 0; i < 100; i++)
        TRY(wf_try_put(w, &i));
    TRY(wf_graph_wait_for_all(g));
    int ok = c.in_order && c.expect == 100;
    printf(
        "%zu results computed in parallel, received in order: %s (sum %ld)\n",
        c.expect, ok ? "yes" : "NO", c.sum);
    TRY(wf_node_destroy(print));
    TRY(wf_node_destroy(order));
    TRY(wf_node_destroy(w));
    TRY(wf_graph_destroy(g));
    return ok ? 0 : 1;
}
