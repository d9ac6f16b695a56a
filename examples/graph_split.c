/* SPDX-License-Identifier: Apache-2.0 */
/* split_node: a tuple in, each element out on its own port.  Here the
 * tuples (id, price) are built by hand with wf_tuple_layout, the layout a
 * join_node's output has; docs/graph/split_node.md explains it. */
#include <stdio.h>
#include <string.h>
#include <weft.h>

int main(void)
{
    wf_graph *g;
    if (wf_graph_create(&g, NULL) != 0)
        return 1;
    const size_t sizes[2] = {sizeof(int), sizeof(double)};
    size_t offsets[2];
    size_t tuple_size = wf_tuple_layout(2, sizes, offsets);
    wf_node *split, *ids, *prices;
    wf_split_node_create(&split, g, 2, sizes);
    wf_queue_node_create(&ids, g, sizeof(int));
    wf_queue_node_create(&prices, g, sizeof(double));
    wf_make_edge(wf_output_port(split, 0), ids);
    wf_make_edge(wf_output_port(split, 1), prices);

    _Alignas(16) unsigned char tuple[64];
    for (int id = 1; id <= 5; id++) {
        double price = id * 1.5 + 1.0;
        memcpy(tuple + offsets[0], &id, sizeof id);
        memcpy(tuple + offsets[1], &price, sizeof price);
        wf_try_put(split, tuple);
    }
    int err = wf_graph_wait_for_all(g);

    int id, id_sum = 0;
    double price, price_sum = 0;
    while (wf_try_get(ids, &id) == 1)
        id_sum += id;
    while (wf_try_get(prices, &price) == 1)
        price_sum += price;
    bool ok = err == 0 && tuple_size == 16 && id_sum == 15 && price_sum == 27.5;
    printf("split 5 (id, price) tuples of %zu bytes: ids sum %d, prices sum "
           "%.2f (%s)\n",
           tuple_size, id_sum, price_sum, ok ? "ok" : "WRONG");
    wf_node_destroy(split);
    wf_node_destroy(ids);
    wf_node_destroy(prices);
    wf_graph_destroy(g);
    return ok ? 0 : 1;
}
