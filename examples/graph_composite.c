/* SPDX-License-Identifier: Apache-2.0 */
/* graph_composite: two function nodes packaged as one composite_node.
 *
 *   src (queue) --> [ box:  double --> plus_one ] --> sink (queue)
 *
 * The composite's input port stands for double's input and its output
 * port for plus_one's output, so the outer graph makes edges to and from
 * the box without knowing what is inside.
 *
 * Output, always:
 *   box(1..5) = 3 5 7 9 11 (ok)
 *
 * Build: cc -O2 graph_composite.c $(pkg-config --cflags --libs weft) */
#include <stdio.h>
#include <stdlib.h>
#include <weft.h>

#define TRY(call)                                                              \
    do {                                                                       \
        int err_ = (call);                                                     \
        if (err_ < 0) {                                                        \
            fprintf(stderr, "%s: %s\n", #call, wf_strerror(err_));             \
            exit(2);                                                           \
        }                                                                      \
    } while (0)

static int twice(const void *in, void *out, void *ctx)
{
    (void)ctx;
    *(int *)out = 2 * *(const int *)in;
    return 0;
}

static int plus_one(const void *in, void *out, void *ctx)
{
    (void)ctx;
    *(int *)out = *(const int *)in + 1;
    return 0;
}

static wf_node *serial_fn(wf_graph *g, wf_body_fn body)
{
    wf_function_config c = WF_FUNCTION_CONFIG_INIT;
    c.in_size = c.out_size = sizeof(int);
    c.concurrency = WF_SERIAL; /* keeps the order, for a stable output */
    c.body = body;
    wf_node *n;
    TRY(wf_function_node_create(&n, g, &c));
    return n;
}

int main(void)
{
    wf_graph *g;
    TRY(wf_graph_create(&g, NULL));
    /* The inside of the box. */
    wf_node *dbl = serial_fn(g, twice), *inc = serial_fn(g, plus_one);
    TRY(wf_make_edge(dbl, inc));
    wf_port in = wf_input_port(dbl, 0), out = wf_output_port(inc, 0);
    wf_node *box;
    TRY(wf_composite_node_create(&box, g, 1, &in, 1, &out));

    /* The outside sees one node. */
    wf_node *src, *sink;
    TRY(wf_queue_node_create(&src, g, sizeof(int)));
    TRY(wf_queue_node_create(&sink, g, sizeof(int)));
    TRY(wf_make_edge(src, box));
    TRY(wf_make_edge(box, sink));
    for (int i = 1; i <= 5; i++)
        TRY(wf_try_put(src, &i));
    TRY(wf_graph_wait_for_all(g));

    int v, ok = 1, want = 3;
    printf("box(1..5) =");
    while (wf_try_get(sink, &v) == 1) {
        printf(" %d", v);
        ok &= v == want;
        want += 2;
    }
    ok &= want == 13;
    printf(" (%s)\n", ok ? "ok" : "WRONG");
    /* The box does not own dbl and inc: destroy it first, then them. */
    wf_node *all[] = {box, dbl, inc, src, sink};
    for (int i = 0; i < 5; i++)
        TRY(wf_node_destroy(all[i]));
    TRY(wf_graph_destroy(g));
    return ok ? 0 : 1;
}
