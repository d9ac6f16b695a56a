/* SPDX-License-Identifier: Apache-2.0 */
/* mpi_edge: a cross-rank graph edge (weft/mpi.h) against raw MPI.
 *
 *   mpirun -np 2 bench_mpi_edge [--reps N] [--sizes 8,1024,...] [--level L]
 *                               [--credits C] [--quick] [--lightweight]
 *
 * For each message size, interleaved, N times (median reported):
 *   raw stream   rank 0 MPI_Send's K messages from one buffer, rank 1
 *                MPI_Recv's them into one buffer;
 *   edge stream  rank 0: input_node -> sender (rejecting: the input node
 *                makes a message only when there is a credit for it);
 *                rank 1: receiver -> a serial function node that checks
 *                the sequence numbers; timed on rank 0 from a barrier to
 *                the return of wf_mpi_graph_wait_all (termination
 *                detection included);
 *   raw ping-pong     rank 0 MPI_Send then MPI_Recv, rank 1 the opposite;
 *   edge ping-pong    a loop of two edges: rank 0's function node sends
 *                     through the edge to rank 1, whose function node
 *                     echoes back through the other edge, K round trips.
 * Rank 0 prints a Markdown table: messages per second, and the edge's
 * share of the raw rate; round-trip microseconds, and the edge's over the
 * raw.  Rates and times are medians over the repetitions; each ratio is
 * the median of the repetitions' own ratios (a raw run and an edge run
 * back to back), which a machine whose speed drifts disturbs less than a
 * ratio of two medians.  LEVEL: multiple (default), serialized,
 * funneled.  --lightweight: the sink, the echo and the ping's node are
 * WF_LIGHTWEIGHT (a body that runs on the thread that puts to it, on the
 * message where the receiver holds it), not queueing function nodes. */
#include <mpi.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <weft.h>
#include <weft/mpi.h>

#define MAX_SIZES 16
#define MAX_REPS 31

static int rank;
static bool light; /* --lightweight: the bench's own nodes are */

#define TRY(call)                                                              \
    do {                                                                       \
        int err_ = (call);                                                     \
        if (err_ != 0) {                                                       \
            fprintf(stderr, "rank %d: %s: %s\n", rank, #call,                  \
                    wf_strerror(err_));                                        \
            MPI_Abort(MPI_COMM_WORLD, 1);                                      \
        }                                                                      \
    } while (0)

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* ---- raw MPI ------------------------------------------------------------- */

static double raw_stream(char *buf, size_t size, long k)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (long i = 0; i < k; i++) {
        if (rank == 0)
            MPI_Send(buf, (int)size, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
        else if (rank == 1)
            MPI_Recv(buf, (int)size, MPI_BYTE, 0, 0, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
    }
    /* Done when the receiver has them all: rank 1 says so. */
    if (rank == 1)
        MPI_Send(NULL, 0, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
    else if (rank == 0)
        MPI_Recv(NULL, 0, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return MPI_Wtime() - t0;
}

static double raw_pingpong(char *buf, size_t size, long k)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (long i = 0; i < k; i++) {
        if (rank == 0) {
            MPI_Send(buf, (int)size, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
            MPI_Recv(buf, (int)size, MPI_BYTE, 1, 0, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            MPI_Recv(buf, (int)size, MPI_BYTE, 0, 0, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
            MPI_Send(buf, (int)size, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
        }
    }
    return MPI_Wtime() - t0;
}

/* ---- through the edges --------------------------------------------------- */

typedef struct {
    long next, k;
} source_ctx;

static int source_body(void *out, void *ctx)
{
    source_ctx *s = ctx;
    if (s->next == s->k)
        return WF_INPUT_DONE;
    memcpy(out, &s->next, sizeof s->next); /* the rest is left as it is */
    s->next++;
    return 0;
}

typedef struct {
    long next, bad;
} sink_ctx;

static int sink_body(const void *in, void *out, void *ctx)
{
    (void)out;
    sink_ctx *s = ctx;
    long seq;
    memcpy(&seq, in, sizeof seq);
    s->bad += seq != s->next;
    s->next = seq + 1;
    return 0;
}

/* One size's channels: 2*i for the stream and the ping, 2*i+1 for the
 * pong. */
typedef struct {
    size_t size;
    wf_node *send, *recv, *sink, *back_send, *back_recv, *turn;
    sink_ctx sink_state;
    long turns, k;
} size_edges;

/* The ping-pong's function nodes: rank 1 echoes, rank 0 sends the next
 * ping until k round trips are done. */
static int echo_body(const void *in, void *out, void *ctx)
{
    size_edges *e = ctx;
    memcpy(out, in, e->size);
    return 0;
}

/* Called once for the first ping, then once per pong: k pings in all. */
static int turn_body(const void *in, void *out, void *ctx)
{
    size_edges *e = ctx;
    if (e->turns++ == e->k)
        return WF_NO_OUTPUT;
    memcpy(out, in, e->size);
    return 0;
}

static wf_node *function(wf_graph *g, size_t in, size_t out, wf_body_fn body,
                         void *ctx)
{
    wf_function_config c = WF_FUNCTION_CONFIG_INIT;
    c.in_size = in;
    c.out_size = out;
    c.concurrency = WF_SERIAL;
    c.policy = light ? WF_LIGHTWEIGHT : WF_QUEUEING;
    c.body = body;
    c.ctx = ctx;
    wf_node *n;
    TRY(wf_function_node_create(&n, g, &c));
    return n;
}

static void make_edges(wf_graph *g, wf_mpi *m, size_edges *e, int ch)
{
    wf_mpi_channel_config c = WF_MPI_CHANNEL_CONFIG_INIT;
    c.msg_size = e->size;
    if (rank == 0) {
        c.peer = 1;
        c.channel = ch;
        c.policy = WF_REJECTING;
        TRY(wf_mpi_sender_create_with(&e->send, m, &c));
        TRY(wf_mpi_receiver_create(&e->back_recv, m, 1, ch + 1, e->size));
        e->turn = function(g, e->size, e->size, turn_body, e);
        TRY(wf_make_edge(e->back_recv, e->turn));
        TRY(wf_make_edge(e->turn, e->send));
    } else if (rank == 1) {
        TRY(wf_mpi_receiver_create(&e->recv, m, 0, ch, e->size));
        TRY(wf_mpi_sender_create(&e->back_send, m, 0, ch + 1, e->size));
        e->sink = function(g, e->size, 0, sink_body, &e->sink_state);
        e->turn = function(g, e->size, e->size, echo_body, e);
        TRY(wf_make_edge(e->recv, e->sink));
        TRY(wf_make_edge(e->recv, e->turn)); /* both: the edge broadcasts */
        TRY(wf_make_edge(e->turn, e->back_send));
    }
}

/* The receiver broadcasts to the sink and the echo; the stream must not
 * bounce back, so rank 1 removes the echo's edge while streaming. */
static double edge_stream(wf_graph *g, size_edges *e, long k)
{
    if (rank == 1) {
        TRY(wf_remove_edge(e->recv, e->turn));
        e->sink_state = (sink_ctx){0, 0};
    }
    source_ctx src = {0, k};
    wf_node *in = NULL;
    if (rank == 0) {
        wf_input_config ic = WF_INPUT_CONFIG_INIT;
        ic.out_size = e->size;
        ic.body = source_body;
        ic.ctx = &src;
        TRY(wf_input_node_create(&in, g, &ic));
        TRY(wf_make_edge(in, e->send));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (in)
        TRY(wf_input_node_activate(in));
    TRY(wf_mpi_graph_wait_all(MPI_COMM_WORLD, g));
    double t = MPI_Wtime() - t0;
    if (rank == 1) {
        if (e->sink_state.next != k || e->sink_state.bad) {
            fprintf(stderr, "edge stream: %ld of %ld, %ld out of order\n",
                    e->sink_state.next, k, e->sink_state.bad);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        TRY(wf_make_edge(e->recv, e->turn));
        TRY(wf_remove_edge(e->recv, e->sink));
    }
    if (in)
        wf_node_destroy(in);
    return t;
}

static double edge_pingpong(wf_graph *g, size_edges *e, char *buf, long k)
{
    e->turns = 0;
    e->k = k;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (rank == 0)
        TRY(wf_try_put(e->turn, buf) == 1 ? 0 : WF_ESTATE); /* the first ping */
    TRY(wf_mpi_graph_wait_all(MPI_COMM_WORLD, g));
    double t = MPI_Wtime() - t0;
    if (rank == 0 && e->turns != k + 1) {
        fprintf(stderr, "edge ping-pong: %ld of %ld round trips\n",
                e->turns - 1, k);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (rank == 1)
        TRY(wf_make_edge(e->recv, e->sink));
    return t;
}

/* Messages per size: about 0.1-0.3 s of raw traffic here. */
static long stream_count(size_t size, bool quick)
{
    long k = (long)((256u << 20) / size);
    if (k > 300000)
        k = 300000;
    if (k < 256)
        k = 256;
    return quick ? k / 8 + 1 : k;
}

static long pingpong_count(size_t size, bool quick)
{
    long k = (long)((32u << 20) / size);
    if (k > 20000)
        k = 20000;
    if (k < 64)
        k = 64;
    return quick ? k / 8 + 1 : k;
}

int main(int argc, char **argv)
{
    size_t sizes[MAX_SIZES] = {8, 64, 1024, 8192, 65536, 262144, 1048576};
    int nsizes = 7, reps = 5;
    bool quick = false;
    unsigned credits = 0;
    int want = MPI_THREAD_MULTIPLE, got;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
            reps = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--quick") == 0) {
            quick = true;
        } else if (strcmp(argv[i], "--lightweight") == 0) {
            light = true;
        } else if (strcmp(argv[i], "--credits") == 0 && i + 1 < argc) {
            credits = (unsigned)atoi(argv[++i]);
        } else if (strcmp(argv[i], "--level") == 0 && i + 1 < argc) {
            const char *l = argv[++i];
            want = strcmp(l, "serialized") == 0 ? MPI_THREAD_SERIALIZED
                   : strcmp(l, "funneled") == 0 ? MPI_THREAD_FUNNELED
                                                : MPI_THREAD_MULTIPLE;
        } else if (strcmp(argv[i], "--sizes") == 0 && i + 1 < argc) {
            nsizes = 0;
            for (char *s = strtok(argv[++i], ","); s && nsizes < MAX_SIZES;
                 s = strtok(NULL, ","))
                sizes[nsizes++] = (size_t)strtoul(s, NULL, 10);
        }
    }
    if (reps < 1 || reps > MAX_REPS)
        reps = 5;
    MPI_Init_thread(&argc, &argv, want, &got);
    int nranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (nranks != 2) {
        if (rank == 0)
            fprintf(stderr, "bench_mpi_edge: run it with 2 ranks\n");
        MPI_Finalize();
        return 2;
    }
    size_t biggest = 0;
    for (int s = 0; s < nsizes; s++)
        biggest = sizes[s] > biggest ? sizes[s] : biggest;
    char *buf = calloc(1, biggest);
    wf_graph *g;
    TRY(wf_graph_create(&g, NULL));
    wf_mpi *m;
    wf_mpi_config mc = WF_MPI_CONFIG_INIT;
    mc.credits = credits;
    TRY(wf_mpi_create(&m, g, MPI_COMM_WORLD, &mc));
    static size_edges edges[MAX_SIZES];
    for (int s = 0; s < nsizes; s++) {
        edges[s].size = sizes[s] < sizeof(long) ? sizeof(long) : sizes[s];
        make_edges(g, m, &edges[s], 2 * s);
    }
    static const char *modes[] = {"auto", "funneled", "serialized", "multiple"};
    if (rank == 0) {
        printf("2 ranks, %s mode, median of %d (interleaved), pool threads "
               "%u per rank, %s successors\n\n",
               modes[wf_mpi_get_mode(m)], reps,
               wf_pool_threads(wf_pool_default()),
               light ? "lightweight" : "queueing");
        printf("| size | raw stream msg/s | edge stream msg/s | edge/raw | "
               "raw RTT us | edge RTT us | edge/raw |\n");
        printf("|---:|---:|---:|---:|---:|---:|---:|\n");
    }
    for (int s = 0; s < nsizes; s++) {
        size_t size = edges[s].size;
        long ks = stream_count(size, quick), kp = pingpong_count(size, quick);
        double rs[MAX_REPS], es[MAX_REPS], rp[MAX_REPS], ep[MAX_REPS];
        double sr[MAX_REPS], pr[MAX_REPS];
        for (int r = 0; r < reps; r++) {
            rs[r] = ks / raw_stream(buf, size, ks);
            es[r] = ks / edge_stream(g, &edges[s], ks);
            rp[r] = raw_pingpong(buf, size, kp) / kp * 1e6;
            ep[r] = edge_pingpong(g, &edges[s], buf, kp) / kp * 1e6;
            sr[r] = es[r] / rs[r]; /* each ratio from back-to-back runs */
            pr[r] = ep[r] / rp[r];
        }
        if (rank == 0) {
            double a = median(rs, reps), b = median(es, reps);
            double c = median(rp, reps), d = median(ep, reps);
            printf("| %zu | %.0f | %.0f | %.0f%% | %.2f | %.2f | %.2fx |\n",
                   size, a, b, 100 * median(sr, reps), c, d, median(pr, reps));
            fflush(stdout);
        }
    }
    wf_mpi_stats st;
    TRY(wf_mpi_get_stats(m, &st));
    if (rank == 0)
        printf("\nrank 0: %llu polls, %llu sleeps, %llu wait_all rounds, "
               "credit waits %llu\n",
               (unsigned long long)st.polls, (unsigned long long)st.sleeps,
               (unsigned long long)st.rounds,
               (unsigned long long)st.credit_waits);
    TRY(wf_mpi_destroy(m));
    wf_graph_destroy(g);
    free(buf);
    MPI_Finalize();
    return 0;
}
