/* SPDX-License-Identifier: Apache-2.0 */
/* reservation: oneTBB's run_example2 (Flow Graph Basics: Reservation),
 * written against weft.
 *
 * A reserving join_node has two ports.  Port 0 has two predecessors, the
 * buffer_node buf1 and the broadcast_node bn; port 1 has the buffer_node
 * buf2.  The join keeps nothing: it rejects every push, which turns each
 * edge to pull, and once both ports have a predecessor in pull state it
 * reserves one message at each port, all or none, sends the pair on, and
 * consumes the reservations.
 *
 *   bn.put(2)    the join rejects; bn keeps nothing, so 2 is lost
 *   buf1.put(3)  rejected, buf1 keeps 3; the edge turns to pull
 *   buf2.put(4)  rejected, buf2 keeps 4; both ports available: fire
 *   buf2.put(7)  buf2's edge is in pull state: 7 just waits in buf2
 *   the join tries bn (cannot be reserved: its edge turns back to push),
 *   reserves 3 at buf1 and 4 at buf2, sends (3,4) to buf_out, consumes
 *   both; it tries again, buf1 is empty, and it stops.
 *
 * Output, always:
 *   join_node output (3,4)
 *   buf1 was empty
 *   buf2 had 7
 *
 * Build: cc -O2 reservation.c $(pkg-config --cflags --libs weft)
 * Run:   ./reservation               once, on the default pool
 *        ./reservation W N           N times on a pool of W workers; the
 *                                    output is printed once, and the exit
 *                                    status is 1 if any run differed */
#define _POSIX_C_SOURCE 200809L /* fmemopen */
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

static void run_example2(wf_pool *pool, FILE *out)
{
    wf_graph *g;
    TRY(wf_graph_create(&g, pool));
    wf_node *bn, *buf1, *buf2, *jn, *buf_out;
    TRY(wf_broadcast_node_create(&bn, g, sizeof(int)));
    TRY(wf_buffer_node_create(&buf1, g, sizeof(int)));
    TRY(wf_buffer_node_create(&buf2, g, sizeof(int)));
    size_t sizes[2] = {sizeof(int), sizeof(int)};
    wf_join_config jc = WF_JOIN_CONFIG_INIT;
    jc.ports = 2;
    jc.msg_sizes = sizes;
    jc.policy = WF_JOIN_RESERVING;
    TRY(wf_join_node_create(&jn, g, &jc));
    TRY(wf_buffer_node_create(&buf_out, g,
                              wf_port_msg_size(wf_output_port(jn, 0))));

    /* join_node predecessors: two reservable buffer_nodes and a broadcast */
    TRY(wf_make_edge(buf1, wf_input_port(jn, 0)));
    TRY(wf_make_edge(bn, wf_input_port(jn, 0)));
    TRY(wf_make_edge(buf2, wf_input_port(jn, 1)));
    TRY(wf_make_edge(jn, buf_out));

    int v2 = 2, v3 = 3, v4 = 4, v7 = 7;
    TRY(wf_try_put(bn, &v2));
    TRY(wf_try_put(buf1, &v3));
    TRY(wf_try_put(buf2, &v4));
    TRY(wf_try_put(buf2, &v7));
    TRY(wf_graph_wait_for_all(g));

    /* The pair is laid out in one message; wf_tuple_get finds each part. */
    unsigned char tuple_out[2 * sizeof(int)];
    while (wf_try_get(buf_out, tuple_out) == 1)
        fprintf(out, "join_node output (%d,%d)\n",
                *(int *)wf_tuple_get(tuple_out, jn, 0),
                *(int *)wf_tuple_get(tuple_out, jn, 1));
    int icnt;
    if (wf_try_get(buf1, &icnt) == 1)
        fprintf(out, "buf1 had %d\n", icnt);
    else
        fprintf(out, "buf1 was empty\n");
    if (wf_try_get(buf2, &icnt) == 1)
        fprintf(out, "buf2 had %d\n", icnt);
    else
        fprintf(out, "buf2 was empty\n");

    wf_node *all[] = {bn, buf1, buf2, jn, buf_out};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        TRY(wf_node_destroy(all[i]));
    TRY(wf_graph_destroy(g));
}

/* ---- repeated runs, for the test ----------------------------------------- */

static int repeat(unsigned workers, long runs)
{
    wf_pool_config cfg = WF_POOL_CONFIG_INIT;
    cfg.threads = workers;
    wf_pool *pool;
    TRY(wf_pool_create(&pool, &cfg));
    char first[256] = "", text[256];
    int status = 0;
    for (long i = 0; i < runs && status == 0; i++) {
        FILE *mem = fmemopen(text, sizeof text, "w");
        if (mem == NULL)
            return 2;
        run_example2(pool, mem);
        fclose(mem);
        if (i == 0) {
            strcpy(first, text);
        } else if (strcmp(first, text) != 0) {
            fprintf(stderr, "run %ld differs:\n%s", i, text);
            status = 1;
        }
    }
    fputs(first, stdout);
    TRY(wf_pool_destroy(pool));
    return status;
}

int main(int argc, char **argv)
{
    if (argc == 3)
        return repeat((unsigned)atoi(argv[1]), atol(argv[2]));
    run_example2(NULL, stdout);
    return 0;
}
