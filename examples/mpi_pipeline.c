/* SPDX-License-Identifier: Apache-2.0 */
/* mpi_pipeline: a three-stage pipeline whose middle stage runs on every
 * MPI rank, with graph edges that cross ranks (weft/mpi.h).
 *
 *   mpirun -np 2 ./mpi_pipeline [ITEMS]
 *
 *   rank 0:  read ──route──┬─> transform (rank 0's share) ──┐
 *                          ├─> sender(1) ···> rank 1         ├─> sequencer
 *                          │                                 │     ─> write
 *                          └─> sender(2) ···> rank 2   receivers(1..P-1)──┘
 *   rank r:  receiver(0) ─> transform ─> sender(0)
 *
 * Stage 1 (rank 0) reads ITEMS records (an input_node); item i goes to
 * rank i mod P (a multifunction node routes it).  Stage 2, on every rank,
 * transforms it (a function node, any number at once).  Stage 3 (rank 0)
 * puts the results back in input order (a sequencer node keyed by the
 * item's number) and writes them (a serial function node), checking the
 * order as it goes.  Rank 0 prints, e.g. with 2 ranks and 1000 items:
 *   mpi_pipeline: 1000 items, middle stage on 2 ranks (500 500), written
 *   in input order, checksum 0x..., same as sequential (ok)
 * (one line). */
#include <inttypes.h>
#include <mpi.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <weft.h>
#include <weft/mpi.h>

#define MAX_RANKS 64
#define CH_OUT 1  /* rank 0 -> rank r: items   */
#define CH_BACK 2 /* rank r -> rank 0: results */

typedef struct {
    uint64_t seq; /* the item's place in the input */
    uint64_t value;
} item;

/* The work of the middle stage: a few rounds of a hash. */
static uint64_t transform(uint64_t x)
{
    for (int i = 0; i < 200; i++) {
        x += 0x9e3779b97f4a7c15u;
        x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9u;
        x = (x ^ (x >> 27)) * 0x94d049bb133111ebu;
        x ^= x >> 31;
    }
    return x;
}

/* ---- stage 1: read, and route by item number ----------------------------- */

typedef struct {
    uint64_t next, n;
} reader;

static int read_body(void *out, void *ctx)
{
    reader *r = ctx;
    if (r->next == r->n)
        return WF_INPUT_DONE;
    item it = {r->next, r->next * 7919u + 1};
    r->next++;
    *(item *)out = it;
    return 0;
}

static int nranks;

static int route_body(const void *in, wf_output_ports *ports, void *ctx)
{
    (void)ctx;
    const item *it = in;
    int rc = wf_output_put(ports, (unsigned)(it->seq % (uint64_t)nranks), it);
    return rc == 1 ? 0 : -1; /* every successor queues: never rejected */
}

/* ---- stage 2: transform, on every rank ----------------------------------- */

static _Atomic long transformed; /* items this rank transformed */

static int transform_body(const void *in, void *out, void *ctx)
{
    (void)ctx;
    item it = *(const item *)in;
    it.value = transform(it.value);
    *(item *)out = it;
    atomic_fetch_add(&transformed, 1);
    return 0;
}

/* ---- stage 3: in order, write -------------------------------------------- */

static size_t item_seq(const void *msg, void *ctx)
{
    (void)ctx;
    return (size_t)((const item *)msg)->seq;
}

typedef struct {
    uint64_t next; /* the item expected next */
    uint64_t checksum;
    int out_of_order;
} writer;

static int write_body(const void *in, void *out, void *ctx)
{
    (void)out;
    writer *w = ctx;
    const item *it = in;
    if (it->seq != w->next)
        w->out_of_order++;
    w->next = it->seq + 1;
    w->checksum = w->checksum * 31 + it->value; /* depends on the order */
    return 0;
}

static wf_node *make_transform(wf_graph *g)
{
    wf_function_config c = WF_FUNCTION_CONFIG_INIT;
    c.in_size = c.out_size = sizeof(item);
    c.concurrency = WF_UNLIMITED;
    c.body = transform_body;
    wf_node *n;
    if (wf_function_node_create(&n, g, &c) != 0)
        MPI_Abort(MPI_COMM_WORLD, 1);
    return n;
}

#define TRY(call)                                                              \
    do {                                                                       \
        int err_ = (call);                                                     \
        if (err_ != 0) {                                                       \
            fprintf(stderr, "mpi_pipeline: %s: %s\n", #call,                   \
                    wf_strerror(err_));                                        \
            MPI_Abort(MPI_COMM_WORLD, 1);                                      \
        }                                                                      \
    } while (0)

int main(int argc, char **argv)
{
    int provided, rank;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (nranks > MAX_RANKS)
        MPI_Abort(MPI_COMM_WORLD, 2);
    uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 1000;

    wf_graph *g;
    TRY(wf_graph_create(&g, NULL));
    wf_mpi *m;
    TRY(wf_mpi_create(&m, g, MPI_COMM_WORLD, NULL));

    wf_node *mid = make_transform(g);
    reader rd = {0, n};
    writer wr = {0, 0, 0};
    wf_node *read = NULL, *route = NULL, *order = NULL, *write = NULL;
    if (rank == 0) {
        wf_input_config ic = WF_INPUT_CONFIG_INIT;
        ic.out_size = sizeof(item);
        ic.body = read_body;
        ic.ctx = &rd;
        TRY(wf_input_node_create(&read, g, &ic));
        size_t sizes[MAX_RANKS];
        for (int r = 0; r < nranks; r++)
            sizes[r] = sizeof(item);
        wf_multifunction_config mc = WF_MULTIFUNCTION_CONFIG_INIT;
        mc.in_size = sizeof(item);
        mc.out_ports = (unsigned)nranks;
        mc.out_sizes = sizes;
        mc.body = route_body;
        TRY(wf_multifunction_node_create(&route, g, &mc));
        TRY(wf_sequencer_node_create(&order, g, sizeof(item), item_seq, NULL));
        wf_function_config wc = WF_FUNCTION_CONFIG_INIT;
        wc.in_size = sizeof(item);
        wc.concurrency = WF_SERIAL;
        wc.body = write_body;
        wc.ctx = &wr;
        TRY(wf_function_node_create(&write, g, &wc));
        TRY(wf_make_edge(read, route));
        TRY(wf_make_edge_ports(wf_output_port(route, 0),
                               wf_input_port(mid, 0)));
        TRY(wf_make_edge(mid, order));
        TRY(wf_make_edge(order, write));
        for (int r = 1; r < nranks; r++) {
            wf_node *out, *back;
            TRY(wf_mpi_sender_create(&out, m, r, CH_OUT, sizeof(item)));
            TRY(wf_mpi_receiver_create(&back, m, r, CH_BACK, sizeof(item)));
            TRY(wf_make_edge_ports(wf_output_port(route, (unsigned)r),
                                   wf_input_port(out, 0)));
            TRY(wf_make_edge(back, order));
        }
        TRY(wf_input_node_activate(read));
    } else {
        wf_node *in, *back;
        TRY(wf_mpi_receiver_create(&in, m, 0, CH_OUT, sizeof(item)));
        TRY(wf_mpi_sender_create(&back, m, 0, CH_BACK, sizeof(item)));
        TRY(wf_make_edge(in, mid));
        TRY(wf_make_edge(mid, back));
    }
    TRY(wf_mpi_graph_wait_all(MPI_COMM_WORLD, g));

    long mine = atomic_load(&transformed), per_rank[MAX_RANKS];
    MPI_Gather(&mine, 1, MPI_LONG, per_rank, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    int rc = 0;
    if (rank == 0) {
        uint64_t want = 0;
        for (uint64_t i = 0; i < n; i++)
            want = want * 31 + transform(i * 7919u + 1);
        bool ok = wr.next == n && wr.out_of_order == 0 && wr.checksum == want;
        rc = !ok;
        printf("mpi_pipeline: %" PRIu64 " items, middle stage on %d rank%s (",
               n, nranks, nranks == 1 ? "" : "s");
        for (int r = 0; r < nranks; r++)
            printf("%s%ld", r ? " " : "", per_rank[r]);
        printf("), written in %s, checksum 0x%016" PRIx64 ", %s (%s)\n",
               wr.out_of_order ? "the WRONG order" : "input order", wr.checksum,
               wr.checksum == want ? "same as sequential" : "NOT as sequential",
               ok ? "ok" : "FAILED");
    }
    TRY(wf_mpi_destroy(m)); /* collective; frees the senders and receivers */
    wf_node *mine_nodes[] = {read, route, mid, order, write};
    for (int i = 0; i < 5; i++)
        wf_node_destroy(mine_nodes[i]); /* NULL is accepted */
    wf_graph_destroy(g);
    MPI_Finalize();
    return rc;
}
