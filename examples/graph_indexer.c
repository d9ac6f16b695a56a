/* SPDX-License-Identifier: Apache-2.0 */
/* indexer_node: messages of different types arrive on its ports and leave
 * one by one, tagged with their port (wf_tagged_msg).  A serial
 * function_node reads the tag to know the type.
 * docs/graph/indexer_node.md explains it. */
#include <stdio.h>
#include <weft.h>

typedef struct {
    int ints, int_sum; /* only the serial body writes these */
    int doubles;
    double double_sum;
} tally;

static int count(const void *in, void *out, void *ctx)
{
    (void)out;
    const wf_tagged_msg *m = in;
    tally *t = ctx;
    if (m->port == 0) {
        t->ints++;
        t->int_sum += *(const int *)m->value;
    } else {
        t->doubles++;
        t->double_sum += *(const double *)m->value;
    }
    return 0;
}

int main(void)
{
    wf_graph *g;
    if (wf_graph_create(&g, NULL) != 0)
        return 1;
    const size_t sizes[2] = {sizeof(int), sizeof(double)};
    wf_node *ix, *f;
    wf_indexer_node_create(&ix, g, 2, sizes);
    tally t = {0};
    wf_function_config c = WF_FUNCTION_CONFIG_INIT;
    c.in_size = WF_TAGGED_MSG_SIZE(sizeof(double)); /* the largest input */
    c.concurrency = WF_SERIAL;
    c.body = count;
    c.ctx = &t;
    wf_function_node_create(&f, g, &c);
    wf_make_edge(ix, f);
    for (int i = 1; i <= 3; i++)
        wf_try_put(wf_input_port(ix, 0), &i);
    double halves[2] = {1.5, 2.5};
    for (int i = 0; i < 2; i++)
        wf_try_put(wf_input_port(ix, 1), &halves[i]);
    int err = wf_graph_wait_for_all(g);

    bool ok = err == 0 && t.ints == 3 && t.int_sum == 6 && t.doubles == 2 &&
              t.double_sum == 4.0;
    printf("indexer: %d ints (sum %d) and %d doubles (sum %.1f) tagged by port "
           "(%s)\n",
           t.ints, t.int_sum, t.doubles, t.double_sum, ok ? "ok" : "WRONG");
    wf_node_destroy(ix);
    wf_node_destroy(f);
    wf_graph_destroy(g);
    return ok ? 0 : 1;
}
