/* SPDX-License-Identifier: Apache-2.0 */
/* graph_overwrite: an overwrite_node keeps the latest reading; a
 * write_once_node keeps the first setting.
 *
 * A sensor puts three readings into an overwrite_node.  A display (a
 * queue_node) connected afterwards gets the latest one at once, and
 * try_get reads it as often as one likes.  A write_once_node takes the
 * first configuration value and rejects the next until it is cleared.
 *
 * Output, always:
 *   latest reading 23 (new display got 23), config 7 kept, 8 rejected (ok)
 *
 * Build: cc -O2 graph_overwrite.c $(pkg-config --cflags --libs weft) */
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

int main(void)
{
    wf_graph *g;
    TRY(wf_graph_create(&g, NULL));
    wf_node *latest, *display, *config;
    TRY(wf_overwrite_node_create(&latest, g, sizeof(int)));
    TRY(wf_queue_node_create(&display, g, sizeof(int)));
    TRY(wf_write_once_node_create(&config, g, sizeof(int)));

    int readings[] = {20, 21, 23};
    for (int i = 0; i < 3; i++)
        TRY(wf_try_put(latest, &readings[i])); /* each replaces the last */
    TRY(wf_make_edge(latest, display));        /* gets 23 at once */
    TRY(wf_graph_wait_for_all(g));
    int now = 0, again = 0, shown = 0;
    TRY(wf_try_get(latest, &now)); /* a get leaves the value there */
    TRY(wf_try_get(latest, &again));
    TRY(wf_try_get(display, &shown));

    int first = 7, second = 8, kept = 0;
    int took_first = wf_try_put(config, &first);   /* 1: accepted */
    int took_second = wf_try_put(config, &second); /* 0: holds one already */
    TRY(took_first);
    TRY(took_second);
    TRY(wf_try_get(config, &kept));

    int ok = now == 23 && again == 23 && shown == 23 && took_first == 1 &&
             took_second == 0 && kept == 7;
    printf("latest reading %d (new display got %d), config %d kept, %d "
           "rejected (%s)\n",
           now, shown, kept, second, ok ? "ok" : "WRONG");
    TRY(wf_node_destroy(config));
    TRY(wf_node_destroy(display));
    TRY(wf_node_destroy(latest));
    TRY(wf_graph_destroy(g));
    return ok ? 0 : 1;
}
