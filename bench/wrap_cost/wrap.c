/* SPDX-License-Identifier: Apache-2.0 */
/* What weft.hpp costs over the C calls it wraps (bench/wrap_cost/run.sh),
 * the C side: `wrap_c for|reduce|chain N` runs parallel_for, reduce or a
 * chain of three serial function nodes over N elements or messages.
 * run.sh counts the instructions of two sizes under callgrind, so that
 * set-up and teardown cancel out. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <weft.h>

static double *x, *y;

static void scale(size_t b, size_t e, void *ctx)
{
    (void)ctx;
    for (size_t i = b; i < e; i++)
        y[i] = 2 * x[i];
}

static void sum_body(size_t b, size_t e, void *acc, void *ctx)
{
    (void)ctx;
    double s = *(double *)acc;
    for (size_t i = b; i < e; i++)
        s += x[i];
    *(double *)acc = s;
}

static void sum_combine(void *into, const void *from, void *ctx)
{
    (void)ctx;
    *(double *)into += *(const double *)from;
}

static int inc(const void *in, void *out, void *ctx)
{
    (void)ctx;
    *(int *)out = *(const int *)in + 1;
    return 0;
}

static _Atomic long got;
static int sink(const void *in, void *out, void *ctx)
{
    (void)out;
    (void)ctx;
    got += *(const int *)in;
    return 0;
}

int main(int argc, char **argv)
{
    const char *what = argv[1];
    size_t n = strtoul(argv[2], NULL, 10);
    wf_pool *p = wf_pool_default();
    x = calloc(n + 1, sizeof *x);
    y = calloc(n + 1, sizeof *y);
    if (strcmp(what, "for") == 0) {
        wf_parallel_for(p, 0, n, 0, scale, NULL);
    } else if (strcmp(what, "reduce") == 0) {
        double acc = 0, zero = 0;
        wf_parallel_reduce(p, 0, n, 0, &acc, sizeof acc, &zero, sum_body,
                           sum_combine, NULL);
        printf("%g\n", acc);
    } else {
        wf_graph *g;
        wf_graph_create(&g, p);
        wf_node *f[3];
        for (int k = 0; k < 3; k++) {
            wf_function_config c = WF_FUNCTION_CONFIG_INIT;
            c.in_size = c.out_size = sizeof(int);
            c.concurrency = WF_SERIAL;
            c.body = k == 2 ? sink : inc;
            wf_function_node_create(&f[k], g, &c);
            if (k > 0)
                wf_make_edge(f[k - 1], f[k]);
        }
        for (size_t i = 0; i < n; i++) {
            int v = (int)i;
            wf_try_put(f[0], &v);
        }
        wf_graph_wait_for_all(g);
        printf("%ld\n", (long)got);
        for (int k = 0; k < 3; k++)
            wf_node_destroy(f[k]);
        wf_graph_destroy(g);
    }
    return 0;
}
