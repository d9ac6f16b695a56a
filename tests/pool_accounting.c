/* SPDX-License-Identifier: Apache-2.0 */
/* pool_accounting: the statistics and the trace count what the pool runs,
 * whatever layer spawned it (docs/pool.md, "Statistics" and "Tracing").
 *
 * ARGS: a scenario name (none or "all": every one).
 *   pipeline_stats  a 3-stage pipeline on 4 threads, several rounds: the
 *                   token tasks are spawns; summed over the slots,
 *                   tasks_run equals spawns and steals is at most spawns.
 *   graph_stats     a graph on 4 threads fed from outside and from its
 *                   own bodies: the same sums, with the graph's tasks.
 *   submit_stats    M tasks submitted from outside, each submitting K
 *                   more from its worker, and a fork-join run: spawns
 *                   and tasks_run summed are each M * (1 + K) more than
 *                   the fork-join's published spawns, and equal.
 *   pipeline_trace  a traced pipeline of N items through 3 stages: one
 *                   span per stage call, named after its stage (N + 1
 *                   calls of the first stage: the last one stops).
 *   submit_trace    M traced submissions from outside, each submitting K
 *                   from its worker: M * (1 + K) "submitted task" spans. */
#include <stdatomic.h>

#include "check.h"

#define THREADS 4

/* The sums over the slots of pool's counters. */
typedef struct totals {
    uint64_t spawns, tasks_run, steals;
} totals;

static totals sum_stats(wf_pool *pool)
{
    int n = wf_pool_stats(pool, NULL, 0);
    CHECK(n >= THREADS);
    wf_worker_stats *s = calloc((size_t)n, sizeof *s);
    CHECK(s != NULL);
    CHECK_EQ(wf_pool_stats(pool, s, (size_t)n), n);
    totals t = {0, 0, 0};
    for (int i = 0; i < n; i++) {
        t.spawns += s[i].spawns;
        t.tasks_run += s[i].tasks_run;
        t.steals += s[i].steals;
    }
    free(s);
    return t;
}

/* What docs/pool.md promises once the pool is quiet: every spawn ran
 * once, and a steal takes a spawn.  The counters are relaxed snapshots of
 * other threads' words: allow them a moment to arrive. */
static totals check_sums(wf_pool *pool)
{
    totals t = sum_stats(pool);
    for (int i = 0; i < 2000 && t.tasks_run != t.spawns; i++) {
        usleep(1000);
        t = sum_stats(pool);
    }
    printf("  spawns %llu, tasks run %llu, steals %llu\n",
           (unsigned long long)t.spawns, (unsigned long long)t.tasks_run,
           (unsigned long long)t.steals);
    CHECK_EQ(t.tasks_run, t.spawns);
    CHECK(t.steals <= t.spawns);
    return t;
}

static wf_pool *make_pool(void)
{
    wf_pool_config cfg = WF_POOL_CONFIG_INIT;
    cfg.threads = THREADS;
    wf_pool *pool = NULL;
    CHECK_ERR(wf_pool_create(&pool, &cfg), 0);
    return pool;
}

/* ---- pipelines ----------------------------------------------------------- */

typedef struct pipe_state {
    long next, items;
    _Atomic long calls[3];
    long sum; /* the last stage's: serial */
} pipe_state;

static void spin_work(long n)
{
    volatile long x = 0;
    for (long i = 0; i < n; i++)
        x += i;
}

static void *make_item(void *item, void *ctx, wf_pipeline_ctl *ctl)
{
    (void)item;
    pipe_state *s = ctx;
    atomic_fetch_add(&s->calls[0], 1);
    if (s->next == s->items) {
        wf_pipeline_stop(ctl);
        return NULL;
    }
    return (void *)(intptr_t)++s->next;
}

static void *square(void *item, void *ctx, wf_pipeline_ctl *ctl)
{
    (void)ctl;
    pipe_state *s = ctx;
    atomic_fetch_add(&s->calls[1], 1);
    spin_work(2000);
    intptr_t v = (intptr_t)item;
    return (void *)(v * v);
}

static void *add_up(void *item, void *ctx, wf_pipeline_ctl *ctl)
{
    (void)ctl;
    pipe_state *s = ctx;
    atomic_fetch_add(&s->calls[2], 1);
    s->sum += (long)(intptr_t)item;
    return NULL;
}

/* items through make_item -> square -> add_up; checks the result. */
static void run_pipeline(wf_pool *pool, pipe_state *s, long items)
{
    memset(s, 0, sizeof *s);
    s->items = items;
    wf_stage st[3] = {{WF_STAGE_SERIAL_IN_ORDER, make_item, s},
                      {WF_STAGE_PARALLEL, square, s},
                      {WF_STAGE_SERIAL_OUT_OF_ORDER, add_up, s}};
    CHECK_ERR(wf_parallel_pipeline(pool, 8, st, 3), 0);
    CHECK_EQ(s->sum, items * (items + 1) * (2 * items + 1) / 6);
    CHECK_EQ(atomic_load(&s->calls[0]), items + 1);
    CHECK_EQ(atomic_load(&s->calls[1]), items);
    CHECK_EQ(atomic_load(&s->calls[2]), items);
}

static void pipeline_stats(void)
{
    wf_pool *pool = make_pool();
    pipe_state s;
    for (int round = 0; round < 5; round++)
        run_pipeline(pool, &s, 400);
    totals t = check_sums(pool);
    CHECK(t.spawns > 0); /* the tokens that went to the pool */
    CHECK_ERR(wf_pool_destroy(pool), 0);
}

/* ---- graphs -------------------------------------------------------------- */

typedef struct graph_state {
    wf_node *again; /* puts a second message from inside a body */
    _Atomic long calls, sum;
} graph_state;

static int twice(const void *in, void *out, void *ctx)
{
    (void)out;
    graph_state *s = ctx;
    int v = *(const int *)in;
    atomic_fetch_add(&s->calls, 1);
    spin_work(500);
    if (v > 0) { /* from a body: the graph's tasks start on this worker */
        int neg = -v;
        CHECK(wf_try_put(s->again, &neg) == 1);
    }
    atomic_fetch_add(&s->sum, v < 0 ? -v : v);
    return 0;
}

static void graph_stats(void)
{
    wf_pool *pool = make_pool();
    wf_graph *g = NULL;
    CHECK_ERR(wf_graph_create(&g, pool), 0);
    graph_state s = {.calls = 0, .sum = 0};
    wf_function_config cfg = WF_FUNCTION_CONFIG_INIT;
    cfg.in_size = sizeof(int);
    cfg.concurrency = WF_UNLIMITED;
    cfg.body = twice;
    cfg.ctx = &s;
    wf_node *f = NULL;
    CHECK_ERR(wf_function_node_create(&f, g, &cfg), 0);
    s.again = f;
    const int n = 2000;
    for (int i = 1; i <= n; i++)
        CHECK(wf_try_put(f, &i) == 1);
    CHECK_ERR(wf_graph_wait_for_all(g), 0);
    CHECK_EQ(atomic_load(&s.calls), 2 * n);
    CHECK_EQ(atomic_load(&s.sum), (long)n * (n + 1));
    totals t = check_sums(pool);
    CHECK(t.spawns > 0);
    CHECK_ERR(wf_node_destroy(f), 0);
    CHECK_ERR(wf_graph_destroy(g), 0);
    CHECK_ERR(wf_pool_destroy(pool), 0);
}

/* ---- submissions --------------------------------------------------------- */

#define M 200
#define K 5

typedef struct sub_task {
    wf_task task; /* first */
    _Atomic long *ran;
    struct sub_task *kids; /* K of them, or NULL */
} sub_task;

static void sub_body(wf_task *t)
{
    sub_task *s = (sub_task *)t;
    atomic_fetch_add(s->ran, 1);
    spin_work(1000);
    if (s->kids != NULL) /* from a worker: onto its own stack */
        for (int k = 0; k < K; k++)
            CHECK_ERR(wf_submit(wf_current_pool(), &s->kids[k].task, sub_body),
                      0);
}

/* M submissions from outside, each submitting K from its worker. */
static void submit_all(wf_pool *pool, _Atomic long *ran)
{
    static sub_task top[M], kids[M][K];
    memset(top, 0, sizeof top);
    memset(kids, 0, sizeof kids);
    for (int i = 0; i < M; i++) {
        top[i].ran = ran;
        top[i].kids = kids[i];
        for (int k = 0; k < K; k++)
            kids[i][k].ran = ran;
    }
    for (int i = 0; i < M; i++)
        CHECK_ERR(wf_submit(pool, &top[i].task, sub_body), 0);
    CHECK_ERR(wf_pool_wait_idle(pool), 0);
    CHECK_EQ(atomic_load(ran), M * (1 + K));
}

typedef struct fib_frame {
    wf_task task;
    int n;
    long out;
} fib_frame;

static long fib(int n);
static void fib_body(wf_task *t)
{
    fib_frame *f = (fib_frame *)t;
    f->out = fib(f->n);
}
static long fib(int n)
{
    if (n < 2)
        return n;
    fib_frame a;
    a.n = n - 1;
    wf_spawn(&a.task, fib_body);
    long b = fib(n - 2);
    wf_join(&a.task);
    return a.out + b;
}

static void run_fib(void *arg)
{
    *(long *)arg = fib(22);
}

static void submit_stats(void)
{
    wf_pool *pool = make_pool();
    long r = 0;
    CHECK_ERR(wf_run(pool, run_fib, &r), 0);
    CHECK_EQ(r, 17711);
    totals forkjoin = check_sums(pool); /* published spawns, if any */
    _Atomic long ran = 0;
    submit_all(pool, &ran);
    totals t = check_sums(pool);
    CHECK_EQ(t.spawns - forkjoin.spawns, M * (1 + K));
    CHECK_ERR(wf_pool_destroy(pool), 0);
}

/* ---- traces -------------------------------------------------------------- */

/* A fresh file name for a trace; removed by read_trace. */
static void trace_path(char *path, size_t n)
{
    snprintf(path, n, "/tmp/weft_pool_accounting_%ld.json", (long)getpid());
}

static char *read_trace(const char *path)
{
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    CHECK(fseek(f, 0, SEEK_END) == 0);
    long len = ftell(f);
    CHECK(len > 0);
    rewind(f);
    char *text = malloc((size_t)len + 1);
    CHECK(text != NULL);
    CHECK(fread(text, 1, (size_t)len, f) == (size_t)len);
    text[len] = '\0';
    fclose(f);
    remove(path);
    return text;
}

static void pipeline_trace(void)
{
    wf_pool *pool = make_pool();
    char path[128];
    trace_path(path, sizeof path);
    CHECK_ERR(wf_trace_start(path), 0);
    pipe_state s;
    const long items = 300;
    run_pipeline(pool, &s, items);
    CHECK_ERR(wf_trace_stop(), 0);
    char *text = read_trace(path);
    long in = check_trace_count(text, "pipeline stage 0");
    long mid = check_trace_count(text, "pipeline stage 1");
    long out = check_trace_count(text, "pipeline stage 2");
    printf("  stage spans: %ld %ld %ld\n", in, mid, out);
    CHECK_EQ(in, items + 1);
    CHECK_EQ(mid, items);
    CHECK_EQ(out, items);
    CHECK(strstr(text, "\"dropped_events\":0}") != NULL);
    free(text);
    CHECK_ERR(wf_pool_destroy(pool), 0);
}

static void submit_trace(void)
{
    wf_pool *pool = make_pool();
    char path[128];
    trace_path(path, sizeof path);
    CHECK_ERR(wf_trace_start(path), 0);
    _Atomic long ran = 0;
    submit_all(pool, &ran);
    CHECK_ERR(wf_trace_stop(), 0);
    char *text = read_trace(path);
    long spans = check_trace_count(text, "submitted task");
    printf("  submitted task spans: %ld\n", spans);
    CHECK_EQ(spans, M * (1 + K));
    free(text);
    CHECK_ERR(wf_pool_destroy(pool), 0);
}

static const check_scenario scenarios[] = {
    {"pipeline_stats", pipeline_stats}, {"graph_stats", graph_stats},
    {"submit_stats", submit_stats},     {"pipeline_trace", pipeline_trace},
    {"submit_trace", submit_trace},
};

int main(int argc, char **argv)
{
    return CHECK_RUN_SCENARIOS("pool_accounting", argc, argv, scenarios);
}
