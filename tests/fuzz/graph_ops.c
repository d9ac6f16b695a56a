/* SPDX-License-Identifier: Apache-2.0 */
/* graph_ops: a fuzz target that reads its input as a program of flow-graph
 * operations on one graph of up to 8 nodes: create nodes of several kinds
 * (queue, buffer, broadcast, serial and rejecting function nodes, limiter,
 * overwrite), make and remove edges, put, get, reserve then release or
 * consume, wait, reset, cancel, decrement a limiter, destroy nodes.
 *
 * Oracle: no crash and no sanitizer report; every call returns 0, 1 or
 * one of weft's WF_E... codes; wait_for_all returns 0, the bodies' error
 * or WF_ECANCELED; a put into a queue that has no out-edge is there to get
 * at once (nothing accepted is lost on the way in); when wait_for_all
 * returns 0, no queue or buffer holds a message while one of its
 * successors takes every message (nothing is stuck on the way out); at
 * the end the graph and every node are destroyed and nothing leaks
 * (LeakSanitizer).
 *
 * Built two ways:
 *   - with clang's libFuzzer (-DWF_LIBFUZZER, `make fuzz`), which
 *     generates the programs;
 *   - as a plain test (ctest fuzz_graph_ops, ASan+UBSan build),
 *     whose main() runs every file named on the command line (a directory:
 *     every file in it, the seed corpus) and then programs from a fixed
 *     pseudo-random seed. */
#include <dirent.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <weft.h>

#define FZ_CHECK(cond, what)                                                   \
    do {                                                                       \
        if (!(cond)) {                                                         \
            fprintf(stderr, "graph_ops: %s (%s:%d)\n", what, __FILE__,         \
                    __LINE__);                                                 \
            abort();                                                           \
        }                                                                      \
    } while (0)

/* 0, 1, or one of the codes in common.h. */
static void check_code(int r, const char *call)
{
    if (r == 0 || r == 1 || (r < 0 && strcmp(wf_err_name(r), "WF_UNKNOWN")))
        return;
    fprintf(stderr, "graph_ops: %s returned %d, not a weft code\n", call, r);
    abort();
}

enum { MAX_NODES = 8, MAX_OPS = 512, BODY_ERROR = -77 };

typedef enum {
    K_QUEUE,
    K_BUFFER,
    K_BROADCAST,
    K_SERIAL,
    K_REJECTING,
    K_LIMITER,
    K_OVERWRITE,
    NKINDS
} kind;

typedef struct {
    wf_node *n;
    kind k;
} slot;

/* edge[x][y]: the program made x -> y and nothing has removed it. */
static bool edge[MAX_NODES][MAX_NODES];

static bool has_out_edge(int x)
{
    for (int y = 0; y < MAX_NODES; y++)
        if (edge[x][y])
            return true;
    return false;
}

/* Nodes that pass every message on unchanged: a cycle made only of them
 * passes a message round for ever, as documented (docs/graph.md, "Edges"),
 * so the program does not close one.  A function node in a cycle ends it
 * (its body stops at some value), and a limiter bounds it. */
static bool passes_on(const slot *s, int i)
{
    return s[i].n && (s[i].k == K_QUEUE || s[i].k == K_BUFFER ||
                      s[i].k == K_BROADCAST || s[i].k == K_OVERWRITE);
}

/* Would x -> y close a cycle of such nodes (y reaches x through them)? */
static bool closes_passing_cycle(const slot *s, int x, int y)
{
    if (!passes_on(s, x) || !passes_on(s, y))
        return false;
    bool seen[MAX_NODES] = {false};
    int stack[MAX_NODES], top = 0;
    stack[top++] = y;
    seen[y] = true;
    while (top > 0) {
        int i = stack[--top];
        if (i == x)
            return true;
        for (int j = 0; j < MAX_NODES; j++)
            if (edge[i][j] && !seen[j] && passes_on(s, j)) {
                seen[j] = true;
                stack[top++] = j;
            }
    }
    return false;
}

/* Receivers that take every message offered (a queueing function node
 * stores what it cannot run yet; a broadcast or overwrite node always
 * takes), so a sender with an edge to one of them cannot keep any. */
static bool takes_all(const slot *s, int i)
{
    return s[i].n &&
           (s[i].k == K_QUEUE || s[i].k == K_BUFFER || s[i].k == K_BROADCAST ||
            s[i].k == K_SERIAL || s[i].k == K_OVERWRITE);
}

/* After a wait_for_all that returned 0 (nothing failed or cancelled, and
 * the graph is idle): a queue or buffer with such a successor is empty.
 * A message left there is stuck: nothing will offer it again. */
static void check_nothing_stuck(const slot *s)
{
    for (int x = 0; x < MAX_NODES; x++) {
        if (!s[x].n || (s[x].k != K_QUEUE && s[x].k != K_BUFFER))
            continue;
        bool outlet = false;
        for (int y = 0; y < MAX_NODES; y++)
            outlet |= edge[x][y] && takes_all(s, y);
        int got = 0;
        FZ_CHECK(!outlet || wf_try_get(s[x].n, &got) == 0,
                 "a message is stuck in a buffer whose successor takes all");
    }
}

static void forget_edges_of(int x)
{
    for (int i = 0; i < MAX_NODES; i++)
        edge[x][i] = edge[i][x] = false;
}

static int body(const void *in, void *out, void *ctx)
{
    (void)ctx;
    int v = *(const int *)in;
    if (v % 101 == 13)
        return BODY_ERROR; /* fails the graph */
    if (v % 7 == 3)
        return WF_NO_OUTPUT;
    *(int *)out = v + 1;
    return 0;
}

static wf_pool *pool;

static wf_node *make(wf_graph *g, kind k, uint8_t arg)
{
    wf_node *n = NULL;
    int r = 0;
    wf_function_config fc = WF_FUNCTION_CONFIG_INIT;
    fc.in_size = fc.out_size = sizeof(int);
    fc.body = body;
    switch (k) {
    case K_QUEUE: r = wf_queue_node_create(&n, g, sizeof(int)); break;
    case K_BUFFER: r = wf_buffer_node_create(&n, g, sizeof(int)); break;
    case K_BROADCAST: r = wf_broadcast_node_create(&n, g, sizeof(int)); break;
    case K_SERIAL:
        fc.concurrency = WF_SERIAL;
        r = wf_function_node_create(&n, g, &fc);
        break;
    case K_REJECTING:
        fc.concurrency = 1u + arg % 3u;
        fc.policy = WF_REJECTING;
        r = wf_function_node_create(&n, g, &fc);
        break;
    case K_LIMITER:
        r = wf_limiter_node_create(&n, g, sizeof(int), arg % 4u);
        break;
    default: r = wf_overwrite_node_create(&n, g, sizeof(int)); break;
    }
    FZ_CHECK(r == 0 && n != NULL, "a node could not be created");
    return n;
}

/* Reads the program's bytes; 0 once they run out. */
typedef struct {
    const uint8_t *p, *end;
} reader;

static uint8_t next(reader *r)
{
    return r->p < r->end ? *r->p++ : 0;
}

static void run_program(const uint8_t *data, size_t size)
{
    wf_graph *g = NULL;
    FZ_CHECK(wf_graph_create(&g, pool) == 0, "wf_graph_create");
    slot s[MAX_NODES] = {{0}};
    memset(edge, 0, sizeof edge);
    reader rd = {data, data + size};
    for (int op = 0; op < MAX_OPS && rd.p < rd.end; op++) {
        uint8_t code = next(&rd), a = next(&rd), b = next(&rd);
        int xi = a % MAX_NODES, yi = b % MAX_NODES;
        slot *x = &s[xi], *y = &s[yi];
        int v = (int)(a * 256 + b), got = 0, r = 0;
        switch (code % 12) {
        case 0: /* create */
            if (x->n == NULL) {
                x->k = (kind)(b % NKINDS);
                x->n = make(g, x->k, a);
                forget_edges_of(xi);
            }
            break;
        case 1: /* edge */
            if (x->n && y->n && !closes_passing_cycle(s, xi, yi)) {
                r = wf_make_edge(x->n, y->n);
                check_code(r, "wf_make_edge");
                FZ_CHECK(r != 0 || x != y, "an edge to itself was made");
                edge[xi][yi] |= r == 0;
            }
            break;
        case 2: /* remove an edge */
            if (x->n && y->n) {
                r = wf_remove_edge(x->n, y->n);
                check_code(r, "wf_remove_edge");
                if (r == 0)
                    edge[xi][yi] = false;
            }
            break;
        case 3: /* put */
            if (x->n) {
                r = wf_try_put(x->n, &v);
                check_code(r, "wf_try_put");
                /* A queue with nowhere to send keeps what it took. */
                if (r == 1 && x->k == K_QUEUE && !has_out_edge(xi)) {
                    int held = 0, w = -1;
                    while ((r = wf_try_get(x->n, &w)) == 1)
                        held += w == v;
                    check_code(r, "wf_try_get");
                    FZ_CHECK(held >= 1, "a queue lost the message it took");
                }
            }
            break;
        case 4: /* get */
            if (x->n)
                check_code(wf_try_get(x->n, &got), "wf_try_get");
            break;
        case 5: /* reserve, then release or consume */
            if (x->n && (r = wf_try_reserve(x->n, &got)) == 1) {
                r = (b & 1) ? wf_try_consume(x->n) : wf_try_release(x->n);
                FZ_CHECK(r == 1, "release/consume after a reservation");
            } else if (x->n) {
                check_code(r, "wf_try_reserve");
            }
            break;
        case 6: /* wait */
            r = wf_graph_wait_for_all(g);
            FZ_CHECK(r == 0 || r == BODY_ERROR || r == WF_ECANCELED,
                     "wait_for_all's result");
            if (r == 0)
                check_nothing_stuck(s);
            break;
        case 7: /* reset */
            check_code(
                wf_graph_reset(g, a & (WF_RESET_BODIES | WF_RESET_CLEAR_EDGES)),
                "wf_graph_reset");
            if (a & WF_RESET_CLEAR_EDGES)
                memset(edge, 0, sizeof edge);
            break;
        case 8: /* cancel */
            check_code(wf_graph_cancel(g), "wf_graph_cancel");
            break;
        case 9: /* destroy a node */
            if (x->n) {
                FZ_CHECK(wf_node_destroy(x->n) == 0, "wf_node_destroy");
                x->n = NULL;
                forget_edges_of(xi); /* its edges went with it */
            }
            break;
        case 10: /* a limiter's decrement */
            if (x->n && x->k == K_LIMITER) {
                r = wf_try_put(wf_input_port(x->n, 1), NULL);
                FZ_CHECK(r == 1 || r == WF_ECANCELED, "a limiter's decrement");
            }
            break;
        default: /* the size of what a node holds, through the DOT text */
            if (b == 0) {
                FILE *f = fopen("/dev/null", "w");
                if (f) {
                    check_code(wf_graph_write_dot(g, f), "write_dot");
                    fclose(f);
                }
            }
            break;
        }
    }
    int last = wf_graph_wait_for_all(g);
    FZ_CHECK(last == 0 || last == BODY_ERROR || last == WF_ECANCELED,
             "the last wait_for_all's result");
    if (last == 0)
        check_nothing_stuck(s);
    FZ_CHECK(wf_graph_destroy(g) == 0, "wf_graph_destroy");
    for (int i = 0; i < MAX_NODES; i++)
        if (s[i].n)
            FZ_CHECK(wf_node_destroy(s[i].n) == 0, "wf_node_destroy");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (pool == NULL) {
        wf_pool_config cfg = WF_POOL_CONFIG_INIT;
        cfg.threads = 2;
        FZ_CHECK(wf_pool_create(&pool, &cfg) == 0, "wf_pool_create");
    }
    run_program(data, size);
    return 0;
}

#ifndef WF_LIBFUZZER
static void run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    FZ_CHECK(f != NULL, "a corpus file could not be opened");
    uint8_t buf[3 * MAX_OPS];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    LLVMFuzzerTestOneInput(buf, n);
}

static int run_path(const char *path)
{
    struct stat st;
    FZ_CHECK(stat(path, &st) == 0, "a corpus path does not exist");
    if (!S_ISDIR(st.st_mode)) {
        run_file(path);
        return 1;
    }
    DIR *d = opendir(path);
    FZ_CHECK(d != NULL, "a corpus directory could not be opened");
    int files = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.')
            continue;
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", path, e->d_name);
        files += run_path(p);
    }
    closedir(d);
    return files;
}

/* usage: graph_ops [PATH...] [--random N]: corpus files, then N programs
 * from a fixed seed (default 2000). */
int main(int argc, char **argv)
{
    long random_programs = 2000;
    int files = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--random") == 0 && i + 1 < argc)
            random_programs = atol(argv[++i]);
        else
            files += run_path(argv[i]);
    }
    uint64_t seed = 0x5eed5eedull;
    uint8_t buf[3 * 96];
    for (long k = 0; k < random_programs; k++) {
        size_t n = 3 * (1 + (size_t)(seed % 96));
        for (size_t i = 0; i < n; i++) {
            seed ^= seed << 13; /* xorshift64 */
            seed ^= seed >> 7;
            seed ^= seed << 17;
            buf[i] = (uint8_t)(seed >> 24);
        }
        LLVMFuzzerTestOneInput(buf, n);
    }
    printf("graph_ops: %d corpus files and %ld random programs passed\n", files,
           random_programs);
    if (pool)
        wf_pool_destroy(pool);
    return 0;
}
#endif
