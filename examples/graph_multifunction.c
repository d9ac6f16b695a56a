/* SPDX-License-Identifier: Apache-2.0 */
/* multifunction_node: one input, several outputs, any number of messages
 * per input.  Numbers 1..20 go in; evens leave on port 0, the squares of
 * multiples of 3 on port 1, and 1, 5, 7, ... send nothing.
 * docs/graph/multifunction_node.md walks through it. */
#include <stdio.h>
#include <weft.h>

static int classify(const void *in, wf_output_ports *ports, void *ctx)
{
    (void)ctx;
    int v = *(const int *)in;
    if (v % 2 == 0)
        wf_output_put(ports, 0, &v);
    if (v % 3 == 0) {
        long sq = (long)v * v;
        wf_output_put(ports, 1, &sq);
    }
    return 0;
}

int main(void)
{
    wf_graph *g;
    if (wf_graph_create(&g, NULL) != 0)
        return 1;
    const size_t sizes[2] = {sizeof(int), sizeof(long)};
    wf_multifunction_config c = WF_MULTIFUNCTION_CONFIG_INIT;
    c.in_size = sizeof(int);
    c.out_ports = 2;
    c.out_sizes = sizes;
    c.concurrency = WF_UNLIMITED;
    c.body = classify;
    wf_node *mf, *evens, *squares;
    wf_multifunction_node_create(&mf, g, &c);
    wf_queue_node_create(&evens, g, sizeof(int));
    wf_queue_node_create(&squares, g, sizeof(long));
    wf_make_edge(wf_output_port(mf, 0), evens);
    wf_make_edge(wf_output_port(mf, 1), squares);
    for (int i = 1; i <= 20; i++)
        wf_try_put(mf, &i);
    int err = wf_graph_wait_for_all(g);

    int n_even = 0, e, sum_even = 0, n_sq = 0;
    long sq, sum_sq = 0;
    while (wf_try_get(evens, &e) == 1)
        n_even++, sum_even += e;
    while (wf_try_get(squares, &sq) == 1)
        n_sq++, sum_sq += sq;
    bool ok = err == 0 && n_even == 10 && sum_even == 110 && n_sq == 6 &&
              sum_sq == 819;
    printf("evens: %d (sum %d), squares of multiples of 3: %d (sum %ld) (%s)\n",
           n_even, sum_even, n_sq, sum_sq, ok ? "ok" : "WRONG");
    wf_node_destroy(mf);
    wf_node_destroy(evens);
    wf_node_destroy(squares);
    wf_graph_destroy(g);
    return ok ? 0 : 1;
}
