/* SPDX-License-Identifier: Apache-2.0 */
/* Trace a small pipeline into a Chrome trace: open the file in Perfetto
 * (ui.perfetto.dev) or chrome://tracing, or tools/trace_view.html.
 *
 *   graph_trace [FILE]      (default graph_trace.json)
 *
 * Without the calls below, WEFT_TRACE=FILE in the environment traces any
 * program the same way.  Prints:
 *   traced 3 nodes x 40 messages: 120 body spans in FILE (ok) */
#define _POSIX_C_SOURCE 200809L /* nanosleep, getdelim */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <weft.h>

static double work(int n) /* a few tens of microseconds */
{
    double x = 1;
    for (int i = 0; i < 20000 + n * 100; i++)
        x = x * 1.0000001 + 1e-9;
    return x;
}

static int decode(const void *in, void *out, void *ctx)
{
    (void)ctx;
    int v = *(const int *)in;
    *(int *)out = v + (work(v) > 0);
    return 0;
}

static int encode(const void *in, void *out, void *ctx)
{
    (void)ctx;
    int v = *(const int *)in;
    *(int *)out = 2 * v + (work(v) < 0);
    return 0;
}

static int sum(const void *in, void *out, void *ctx)
{
    (void)out;
    *(long *)ctx += *(const int *)in;
    return 0;
}

static int count(const char *text, const char *needle)
{
    int n = 0;
    for (const char *p = text; (p = strstr(p, needle)) != NULL; p++)
        n++;
    return n;
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "graph_trace.json";
    enum { N = 40 };
    if (wf_trace_start(path) != 0)
        return 1;
    wf_graph *g;
    wf_graph_create(&g, NULL);
    long total = 0;
    wf_node *q, *d, *e, *s;
    wf_queue_node_create(&q, g, sizeof(int));
    wf_function_config c = WF_FUNCTION_CONFIG_INIT;
    c.in_size = c.out_size = sizeof(int);
    c.body = decode;
    wf_function_node_create(&d, g, &c);
    c.body = encode;
    wf_function_node_create(&e, g, &c);
    c.out_size = 0;
    c.concurrency = WF_SERIAL;
    c.body = sum;
    c.ctx = &total;
    wf_function_node_create(&s, g, &c);
    wf_node_set_name(d, "decode");
    wf_node_set_name(e, "encode");
    wf_node_set_name(s, "sum");
    wf_make_edge(q, d);
    wf_make_edge(d, e);
    wf_make_edge(e, s);
    for (int i = 0; i < N; i++)
        wf_try_put(q, &i);
    wf_graph_wait_for_all(g);
    if (wf_trace_stop() != 0)
        return 1;

    /* Check the file: one body span per node and message. */
    FILE *f = fopen(path, "r");
    char *text = NULL;
    size_t cap = 0;
    if (f == NULL || getdelim(&text, &cap, '\0', f) < 0)
        return 1;
    fclose(f);
    int spans = count(text, "\"cat\":\"body\"");
    long want = 0;
    for (int i = 0; i < N; i++)
        want += 2 * (i + 1);
    printf("traced 3 nodes x %d messages: %d body spans in %s (%s)\n", N, spans,
           path, spans == 3 * N && total == want ? "ok" : "WRONG");
    free(text);
    wf_node_destroy(q);
    wf_node_destroy(d);
    wf_node_destroy(e);
    wf_node_destroy(s);
    wf_graph_destroy(g);
    return 0;
}
