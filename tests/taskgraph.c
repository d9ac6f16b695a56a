/* SPDX-License-Identifier: Apache-2.0 */
/* Task graphs (weft/taskgraph.h).
 *
 * chain        a chain of 20000 tasks runs in order, three times
 *              (wf_tg_run_n), at 1, 2 and 4 threads.
 * wavefront    a 64x64 grid (each cell after its left and upper
 *              neighbours) gives the sequential result, built once and
 *              run five times; every cell runs once a run.
 * tree         a binary tree of 2^12 - 1 tasks, root first: each task
 *              once, each after its parent.
 * condition    a loop (init -> body -> condition, back to body nine
 *              times, then to done) and a three-way branch; run_until.
 * placeholder  a task whose work is set after its edges.
 * errors       a task's error fails the run, skips what follows, and a
 *              later clean run works; building errors are kept and
 *              returned by every run; a run from inside its own graph's
 *              task is WF_EBUSY; destroy while running is WF_EBUSY.
 * alloc        allocator calls: one per 128 tasks while building, none
 *              while running; every allocation failing in turn leaves a
 *              graph whose run returns WF_ENOMEM and that frees all.
 * concurrent   four threads each run their own graph on one pool.
 * dot          the DOT text names tasks and marks conditions.
 * subflow      recursive subflows (a tree of depth 8 built while it
 *              runs): every leaf once a run, three runs; the successor
 *              of a subflow runs after all it made; reruns allocate
 *              nothing; an error inside a subflow fails the run.
 * compose      a graph run as one task of another, three times.
 * depend       random programs of 200 tasks over 8 variables with random
 *              in/out/inout accesses: every access sees the version the
 *              program order gives, at 1, 2 and 4 threads.
 * clear        a cleared graph is built again without new memory.
 * trace        a traced run has a span per task run, named as the task
 *              ("task step"), or "task unnamed".
 * cancel       wf_tg_cancel from a task (the rest of the chain skipped)
 *              and from another thread (an endless run_until ends); the
 *              next run is clean.
 * subflow_oom  every allocation of a subflow's first run fails in turn:
 *              the run returns WF_ENOMEM, a later run succeeds, nothing
 *              leaks.
 * grow         a graph that grows between runs (new tasks, edges from
 *              old tasks to new and from a new source to an old one,
 *              failed runs between): every run runs each task once,
 *              after all its predecessors.
 * edit_race    a task added while another thread runs the graph is
 *              refused until the run ends, accepted after it.
 * held         the six successors of one task, which a thread holds
 *              while it runs the first, each wait in wf_blocking_begin
 *              until all six have begun: they run at once, on spare
 *              workers, at 1 and 2 threads.  At one thread, a subflow
 *              whose siblings are held runs its own task before them.
 * held_nomem   a task makes 100 successors ready and runs a subflow,
 *              on a pool whose allocator fails once the pool is made:
 *              the held and spawned tasks find no room on the pool's
 *              stack and run at once; every task runs once a run,
 *              three runs.
 * alone        a task that starts as its round's only one (no locked
 *              arrivals) makes 64 successors ready, holds 32 and spawns
 *              the rest, which another worker steals; all 64 precede one
 *              sink, which runs once a run, 1000 runs at 1 and 2
 *              threads (arrivals made with plain stores after the spawn
 *              race with the stolen tasks' RMWs: the sink then runs
 *              twice in a run, or not at all; TSan's slower runs meet
 *              that race in every run of the test). */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

#include "check.h"

static const unsigned threads[] = {1, 2, 4};

/* ---- chain -------------------------------------------------------------- */

#define CHAIN 20000

typedef struct {
    _Atomic long *next; /* the position the chain is at */
    long pos;
    _Atomic int *bad;
} step;

static int chain_step(void *ctx)
{
    step *s = ctx;
    long want = s->pos;
    /* Relaxed: the graph's edges order the steps. */
    if (atomic_load_explicit(s->next, memory_order_relaxed) % CHAIN != want)
        atomic_store(s->bad, 1);
    atomic_store_explicit(s->next, atomic_load(s->next) + 1,
                          memory_order_relaxed);
    return 0;
}

static void chain(void)
{
    for (size_t k = 0; k < 3; k++) {
        wf_pool *p = check_pool(threads[k]);
        wf_taskgraph_config cfg = WF_TASKGRAPH_CONFIG_INIT;
        cfg.pool = p;
        wf_taskgraph *g;
        CHECK_OK(wf_taskgraph_create(&g, &cfg));
        static step steps[CHAIN];
        _Atomic long next = 0;
        _Atomic int bad = 0;
        wf_tg_task *prev = NULL;
        for (long i = 0; i < CHAIN; i++) {
            steps[i] = (step){&next, i, &bad};
            wf_tg_task *t = wf_tg_emplace(g, chain_step, &steps[i]);
            if (prev)
                wf_tg_precede(prev, t);
            prev = t;
        }
        CHECK_EQ(wf_taskgraph_size(g), CHAIN);
        CHECK_OK(wf_tg_run_n(g, 3));
        CHECK_EQ(atomic_load(&next), 3 * CHAIN);
        CHECK_EQ(atomic_load(&bad), 0);
        CHECK_OK(wf_taskgraph_destroy(g));
        CHECK_OK(wf_pool_destroy(p));
    }
}

/* ---- wavefront ---------------------------------------------------------- */

#define WN 64

typedef struct {
    long (*cell)[WN];
    _Atomic int (*runs)[WN];
    int i, j;
} wcell;

static int wave(void *ctx)
{
    wcell *c = ctx;
    long up = c->i ? c->cell[c->i - 1][c->j] : 1;
    long left = c->j ? c->cell[c->i][c->j - 1] : 1;
    c->cell[c->i][c->j] = (up + left) % 1000003;
    atomic_fetch_add(&c->runs[c->i][c->j], 1);
    return 0;
}

static long wave_seq(void)
{
    static long s[WN][WN];
    for (int i = 0; i < WN; i++)
        for (int j = 0; j < WN; j++)
            s[i][j] = ((i ? s[i - 1][j] : 1) + (j ? s[i][j - 1] : 1)) % 1000003;
    return s[WN - 1][WN - 1];
}

static void wavefront(void)
{
    static long cell[WN][WN];
    static _Atomic int runs[WN][WN];
    static wcell ctx[WN][WN];
    for (size_t k = 0; k < 3; k++) {
        wf_pool *p = check_pool(threads[k]);
        wf_taskgraph_config cfg = {.pool = p};
        wf_taskgraph *g;
        CHECK_OK(wf_taskgraph_create(&g, &cfg));
        static wf_tg_task *t[WN][WN];
        for (int i = 0; i < WN; i++)
            for (int j = 0; j < WN; j++) {
                ctx[i][j] = (wcell){cell, runs, i, j};
                t[i][j] = wf_tg_emplace(g, wave, &ctx[i][j]);
                if (i)
                    wf_tg_precede(t[i - 1][j], t[i][j]);
                if (j)
                    wf_tg_precede(t[i][j - 1], t[i][j]);
            }
        memset(runs, 0, sizeof runs);
        for (int r = 1; r <= 5; r++) {
            memset(cell, 0, sizeof cell);
            CHECK_OK(wf_tg_run(g));
            CHECK_EQ(cell[WN - 1][WN - 1], wave_seq());
            for (int i = 0; i < WN; i++)
                for (int j = 0; j < WN; j++)
                    CHECK_EQ(atomic_load(&runs[i][j]), r);
        }
        CHECK_OK(wf_taskgraph_destroy(g));
        CHECK_OK(wf_pool_destroy(p));
    }
}

/* ---- tree --------------------------------------------------------------- */

#define TREE_DEPTH 12
#define TREE_N ((1 << TREE_DEPTH) - 1)

static _Atomic int tree_runs[TREE_N];
static int tree_idx[TREE_N];
static _Atomic int tree_bad;

static int tree_node(void *ctx)
{
    int i = *(int *)ctx;
    /* Its parent ran before it, and only once. */
    if (i > 0 && atomic_load(&tree_runs[(i - 1) / 2]) != 1)
        atomic_store(&tree_bad, 1);
    atomic_fetch_add(&tree_runs[i], 1);
    return 0;
}

static void tree(void)
{
    for (size_t k = 0; k < 3; k++) {
        wf_pool *p = check_pool(threads[k]);
        wf_taskgraph_config cfg = {.pool = p};
        wf_taskgraph *g;
        CHECK_OK(wf_taskgraph_create(&g, &cfg));
        static wf_tg_task *t[TREE_N];
        for (int i = 0; i < TREE_N; i++) {
            tree_idx[i] = i;
            t[i] = wf_tg_emplace(g, tree_node, &tree_idx[i]);
            if (i > 0)
                CHECK_OK(wf_tg_precede(t[(i - 1) / 2], t[i]));
        }
        memset(tree_runs, 0, sizeof tree_runs);
        CHECK_OK(wf_tg_run(g));
        CHECK_EQ(atomic_load(&tree_bad), 0);
        for (int i = 0; i < TREE_N; i++)
            CHECK_EQ(atomic_load(&tree_runs[i]), 1);
        CHECK_OK(wf_taskgraph_destroy(g));
        CHECK_OK(wf_pool_destroy(p));
    }
}

/* ---- condition ---------------------------------------------------------- */

typedef struct {
    int i, body_runs, done_runs, init_runs;
    int branch, picked[3];
} loop_state;

static int loop_init(void *ctx)
{
    loop_state *s = ctx;
    s->i = 0;
    s->init_runs++;
    return 0;
}

static int loop_body(void *ctx)
{
    ((loop_state *)ctx)->body_runs++;
    return 0;
}

static int loop_cond(void *ctx)
{
    loop_state *s = ctx;
    return ++s->i < 10 ? 0 : 1; /* 0: back to the body, 1: done */
}

static int loop_done(void *ctx)
{
    ((loop_state *)ctx)->done_runs++;
    return 0;
}

static int pick(void *ctx)
{
    return ((loop_state *)ctx)->branch;
}

static int picked0(void *ctx)
{
    ((loop_state *)ctx)->picked[0]++;
    return 0;
}

static int picked1(void *ctx)
{
    ((loop_state *)ctx)->picked[1]++;
    return 0;
}

static int picked2(void *ctx)
{
    ((loop_state *)ctx)->picked[2]++;
    return 0;
}

static bool after_three(void *ctx)
{
    return ((loop_state *)ctx)->done_runs == 3;
}

static void condition(void)
{
    for (size_t k = 0; k < 3; k++) {
        wf_pool *p = check_pool(threads[k]);
        wf_taskgraph_config cfg = {.pool = p};
        wf_taskgraph *g;
        CHECK_OK(wf_taskgraph_create(&g, &cfg));
        loop_state s = {0};
        wf_tg_task *init = wf_tg_emplace(g, loop_init, &s);
        wf_tg_task *body = wf_tg_emplace(g, loop_body, &s);
        wf_tg_task *cond = wf_tg_condition(g, loop_cond, &s);
        wf_tg_task *done = wf_tg_emplace(g, loop_done, &s);
        wf_tg_precede(init, body);
        wf_tg_precede(body, cond);
        wf_tg_precede(cond, body); /* 0: weak, back */
        wf_tg_precede(cond, done); /* 1 */
        CHECK_OK(wf_tg_run(g));
        CHECK_EQ(s.init_runs, 1);
        CHECK_EQ(s.body_runs, 10);
        CHECK_EQ(s.done_runs, 1);
        CHECK_OK(wf_tg_run_until(g, after_three, &s));
        CHECK_EQ(s.body_runs, 30);
        CHECK_EQ(s.done_runs, 3);
        CHECK_OK(wf_tg_run_until(g, after_three, &s)); /* true at once */
        CHECK_EQ(s.done_runs, 3);
        CHECK_OK(wf_taskgraph_destroy(g));

        /* A three-way branch; 3 (one past the last) runs none. */
        CHECK_OK(wf_taskgraph_create(&g, &cfg));
        wf_tg_task *c = wf_tg_condition(g, pick, &s);
        wf_tg_precede(c, wf_tg_emplace(g, picked0, &s));
        wf_tg_precede(c, wf_tg_emplace(g, picked1, &s));
        wf_tg_precede(c, wf_tg_emplace(g, picked2, &s));
        for (s.branch = 0; s.branch <= 3; s.branch++)
            CHECK_OK(wf_tg_run(g));
        CHECK(s.picked[0] == 1 && s.picked[1] == 1 && s.picked[2] == 1);
        s.branch = WF_ERANGE; /* a negative value is an error */
        CHECK_ERR(wf_tg_run(g), WF_ERANGE);
        CHECK_OK(wf_taskgraph_destroy(g));
        CHECK_OK(wf_pool_destroy(p));
    }
}

/* ---- placeholder -------------------------------------------------------- */

static int add_one(void *ctx)
{
    ++*(int *)ctx;
    return 0;
}

static int times_ten(void *ctx)
{
    *(int *)ctx *= 10;
    return 0;
}

static void placeholder(void)
{
    wf_taskgraph *g;
    CHECK_OK(wf_taskgraph_create(&g, NULL));
    int x = 1;
    wf_tg_task *a = wf_tg_placeholder(g);
    wf_tg_task *b = wf_tg_emplace(g, times_ten, &x);
    CHECK_OK(wf_tg_precede(a, b));
    CHECK_OK(wf_tg_run(g)); /* a does nothing yet */
    CHECK_EQ(x, 10);
    CHECK_OK(wf_tg_set_work(a, add_one, &x));
    CHECK_OK(wf_tg_run(g)); /* (10 + 1) * 10 */
    CHECK_EQ(x, 110);
    CHECK_OK(wf_taskgraph_destroy(g));
}

/* ---- errors ------------------------------------------------------------- */

#define APP_ERROR (-1000) /* the application's own range (weft/common.h) */

static _Atomic int after_fail;

static int fails(void *ctx)
{
    return *(int *)ctx ? APP_ERROR : 0;
}

/* Counts in *ctx, or in after_fail. */
static int counts(void *ctx)
{
    atomic_fetch_add(ctx ? (_Atomic int *)ctx : &after_fail, 1);
    return 0;
}

static wf_taskgraph *self_graph;

static int runs_itself(void *ctx)
{
    (void)ctx;
    /* Its own graph runs: refused, and so are building and destroying. */
    if (wf_tg_run(self_graph) != WF_EBUSY ||
        wf_taskgraph_destroy(self_graph) != WF_EBUSY)
        return WF_ESTATE;
    return 0;
}

static void errors(void)
{
    wf_taskgraph *g;
    CHECK_ERR(wf_taskgraph_create(NULL, NULL), WF_EINVAL);
    CHECK_OK(wf_taskgraph_create(&g, NULL));
    int fail = 1;
    wf_tg_task *f = wf_tg_emplace(g, fails, &fail);
    wf_tg_task *prev = f;
    for (int i = 0; i < 100; i++) { /* a chain after the failing task */
        wf_tg_task *t = wf_tg_emplace(g, counts, NULL);
        wf_tg_precede(prev, t);
        prev = t;
    }
    atomic_store(&after_fail, 0);
    CHECK_ERR(wf_tg_run(g), APP_ERROR);
    CHECK_EQ(atomic_load(&after_fail), 0);
    CHECK_ERR(wf_tg_run_n(g, 5), APP_ERROR); /* stops at the first */
    fail = 0;
    CHECK_OK(wf_tg_run_n(g, 2));
    CHECK_EQ(atomic_load(&after_fail), 200);
    CHECK_OK(wf_taskgraph_destroy(g));

    /* Building errors are kept; every run returns the first. */
    CHECK_OK(wf_taskgraph_create(&g, NULL));
    wf_tg_task *a = wf_tg_emplace(g, counts, NULL);
    CHECK(wf_tg_emplace(g, NULL, NULL) == NULL);
    CHECK_ERR(wf_tg_precede(a, NULL), WF_EINVAL);
    CHECK_ERR(wf_tg_precede(a, a), WF_EINVAL);
    CHECK_ERR(wf_taskgraph_error(g), WF_EINVAL);
    CHECK_ERR(wf_tg_run(g), WF_EINVAL);
    CHECK_ERR(wf_tg_run_until(g, NULL, NULL), WF_EINVAL);
    CHECK_ERR(wf_tg_run(NULL), WF_EINVAL);
    CHECK(wf_tg_emplace(NULL, counts, NULL) == NULL);
    wf_taskgraph *other;
    CHECK_OK(wf_taskgraph_create(&other, NULL));
    wf_tg_task *o = wf_tg_emplace(other, counts, NULL);
    CHECK_ERR(wf_tg_precede(o, a), WF_EINVAL); /* two graphs */
    CHECK_OK(wf_taskgraph_destroy(other));
    CHECK_OK(wf_taskgraph_destroy(g));
    CHECK_OK(wf_taskgraph_destroy(NULL));

    /* From inside a task of its own graph: busy. */
    CHECK_OK(wf_taskgraph_create(&self_graph, NULL));
    wf_tg_emplace(self_graph, runs_itself, NULL);
    CHECK_OK(wf_tg_run(self_graph));
    CHECK_OK(wf_taskgraph_destroy(self_graph));
}

/* ---- alloc -------------------------------------------------------------- */

/* An allocator that counts; thread-safe, as subflows build their graphs
 * on the workers while a run goes on. */
typedef struct {
    _Atomic long calls, live;
    long fail_at; /* the call that fails (1-based), 0: none */
} counting;

static void *count_alloc(size_t size, void *ctx)
{
    counting *c = ctx;
    if (atomic_fetch_add(&c->calls, 1) + 1 == c->fail_at)
        return NULL;
    atomic_fetch_add(&c->live, 1);
    return malloc(size);
}

static void count_free(void *p, size_t size, void *ctx)
{
    (void)size;
    atomic_fetch_add(&((counting *)ctx)->live, -1);
    free(p);
}

/* A 32x32 wavefront plus a task with 40 successors (arrays in the arena):
 * returns the building error. */
static int build(wf_taskgraph *g, _Atomic int *n)
{
    wf_tg_task *t[32][32];
    for (int i = 0; i < 32; i++)
        for (int j = 0; j < 32; j++) {
            t[i][j] = wf_tg_emplace(g, counts, n);
            if (i)
                wf_tg_precede(t[i - 1][j], t[i][j]);
            if (j)
                wf_tg_precede(t[i][j - 1], t[i][j]);
        }
    wf_tg_task *fan = wf_tg_emplace(g, counts, n);
    for (int k = 0; k < 40; k++)
        wf_tg_precede(fan, wf_tg_emplace(g, counts, n));
    return wf_taskgraph_error(g);
}

static void alloc(void)
{
    wf_pool *p = check_pool(2);
    counting c = {0, 0, 0};
    wf_allocator a = {count_alloc, count_free, &c};
    wf_taskgraph_config cfg = {.pool = p, .alloc = &a};
    wf_taskgraph *g;
    CHECK_OK(wf_taskgraph_create(&g, &cfg));
    CHECK_OK(build(g, &after_fail));
    long tasks = 32 * 32 + 41, built = c.calls;
    /* The graph, one slab per 128 tasks, and the arena's chunks. */
    CHECK(built <= 1 + (tasks + 127) / 128 + 2);
    atomic_store(&after_fail, 0);
    CHECK_OK(wf_tg_run_n(g, 10));
    CHECK_EQ(atomic_load(&after_fail), 10 * tasks);
    CHECK_EQ(c.calls, built); /* running allocates nothing */
    CHECK_OK(wf_taskgraph_destroy(g));
    CHECK_EQ(c.live, 0);

    /* Every allocation fails in turn. */
    for (long k = 1; k <= built; k++) {
        atomic_store(&c.calls, 0);
        atomic_store(&c.live, 0);
        c.fail_at = k;
        int err = wf_taskgraph_create(&g, &cfg);
        if (k == 1) {
            CHECK_ERR(err, WF_ENOMEM);
            CHECK_EQ(c.live, 0);
            continue;
        }
        CHECK_OK(err);
        CHECK_ERR(build(g, &after_fail), WF_ENOMEM);
        CHECK_ERR(wf_tg_run(g), WF_ENOMEM);
        CHECK_OK(wf_taskgraph_destroy(g));
        CHECK_EQ(c.live, 0);
    }
    CHECK_OK(wf_pool_destroy(p));
}

/* ---- concurrent --------------------------------------------------------- */

static wf_pool *shared_pool;

static void *own_graph(void *arg)
{
    (void)arg;
    wf_taskgraph_config cfg = {.pool = shared_pool};
    wf_taskgraph *g;
    CHECK_OK(wf_taskgraph_create(&g, &cfg));
    _Atomic int n = 0;
    CHECK_OK(build(g, &n));
    CHECK_OK(wf_tg_run_n(g, 20));
    CHECK_EQ(atomic_load(&n), 20 * (32 * 32 + 41));
    CHECK_OK(wf_taskgraph_destroy(g));
    return NULL;
}

static void concurrent(void)
{
    shared_pool = check_pool(2);
    pthread_t th[4];
    for (int i = 0; i < 4; i++)
        CHECK(pthread_create(&th[i], NULL, own_graph, NULL) == 0);
    for (int i = 0; i < 4; i++)
        CHECK(pthread_join(th[i], NULL) == 0);
    CHECK_OK(wf_pool_destroy(shared_pool));
}

/* ---- dot ---------------------------------------------------------------- */

/* g in DOT, in last_dot (the caller frees it). */
static char *last_dot;
static char *dot_text(const wf_taskgraph *g)
{
    size_t len = 0;
    FILE *f = open_memstream(&last_dot, &len);
    CHECK(f != NULL);
    CHECK_OK(wf_taskgraph_write_dot(g, f));
    fclose(f);
    return last_dot;
}

static void dot(void)
{
    wf_taskgraph *g;
    CHECK_OK(wf_taskgraph_create(&g, NULL));
    loop_state s = {0};
    wf_tg_task *a = wf_tg_emplace(g, loop_body, &s);
    wf_tg_task *c = wf_tg_condition(g, loop_cond, &s);
    wf_tg_name(a, "compile");
    wf_tg_name(c, "again?");
    wf_tg_precede(a, c);
    wf_tg_precede(c, a);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    CHECK(f != NULL);
    CHECK_OK(wf_taskgraph_write_dot(g, f));
    fclose(f);
    CHECK(strstr(text, "label=\"compile\" shape=box") != NULL);
    CHECK(strstr(text, "label=\"again?\" shape=diamond") != NULL);
    CHECK(strstr(text, "[style=dashed]") != NULL);
    free(text);
    CHECK_ERR(wf_taskgraph_write_dot(NULL, stdout), WF_EINVAL);
    /* Tasks added after a clear, in the cleared tasks' memory, have no
     * name until named, before and after another task is. */
    CHECK_OK(wf_taskgraph_clear(g));
    wf_tg_task *x = wf_tg_emplace(g, loop_body, &s);
    CHECK(x != NULL);
    CHECK(strstr(dot_text(g), "compile") == NULL);
    free(last_dot);
    wf_tg_task *y = wf_tg_emplace(g, loop_body, &s);
    wf_tg_name(y, "fresh");
    wf_tg_task *z = wf_tg_emplace(g, loop_body, &s);
    CHECK(z != NULL);
    text = dot_text(g);
    CHECK(strstr(text, "compile") == NULL && strstr(text, "again?") == NULL);
    CHECK(strstr(text, "label=\"fresh\"") != NULL);
    char unnamed[64];
    snprintf(unnamed, sizeof unnamed, "label=\"%p\"", (void *)z);
    CHECK(strstr(text, unnamed) != NULL);
    snprintf(unnamed, sizeof unnamed, "label=\"%p\"", (void *)x);
    CHECK(strstr(text, unnamed) != NULL);
    free(last_dot);
    CHECK_OK(wf_taskgraph_destroy(g));
}

/* ---- subflow ------------------------------------------------------------ */

static _Atomic long sub_leaves;
static _Atomic int sub_fail_depth = -1;

static int leaf_count(void *ctx)
{
    (void)ctx;
    atomic_fetch_add(&sub_leaves, 1);
    return 0;
}

static int failing(void *ctx)
{
    (void)ctx;
    return WF_EUSER(7);
}

/* Depth d in ctx: two subflows of depth d - 1, or a leaf. */
static int split(wf_taskgraph *sub, void *ctx)
{
    intptr_t d = (intptr_t)ctx;
    if (d == atomic_load(&sub_fail_depth))
        wf_tg_emplace(sub, failing, NULL);
    else if (d == 0)
        wf_tg_emplace(sub, leaf_count, NULL);
    else
        for (int k = 0; k < 2; k++)
            wf_tg_subflow(sub, split, (void *)(d - 1));
    return 0;
}

/* Every leaf of this run is counted before the subflow's successor. */
static int after_tree(void *ctx)
{
    *(long *)ctx = atomic_load(&sub_leaves);
    return 0;
}

static void subflow(void)
{
    for (size_t k = 0; k < 3; k++) {
        wf_pool *p = check_pool(threads[k]);
        counting c = {0, 0, 0};
        wf_allocator a = {count_alloc, count_free, &c};
        wf_taskgraph_config cfg = {.pool = p, .alloc = &a};
        wf_taskgraph *g;
        CHECK_OK(wf_taskgraph_create(&g, &cfg));
        long seen = 0;
        wf_tg_task *tree = wf_tg_subflow(g, split, (void *)(intptr_t)8);
        wf_tg_precede(tree, wf_tg_emplace(g, after_tree, &seen));
        long calls = 0;
        for (int r = 1; r <= 3; r++) {
            atomic_store(&sub_leaves, 0);
            CHECK_OK(wf_tg_run(g));
            CHECK_EQ(atomic_load(&sub_leaves), 256);
            CHECK_EQ(seen, 256);
            if (r == 1)
                calls = c.calls;
            else
                CHECK_EQ(c.calls, calls); /* reruns reuse every subflow */
        }
        atomic_store(&sub_fail_depth, 3);
        CHECK_ERR(wf_tg_run(g), WF_EUSER(7));
        atomic_store(&sub_fail_depth, -1);
        atomic_store(&sub_leaves, 0);
        CHECK_OK(wf_tg_run(g));
        CHECK_EQ(atomic_load(&sub_leaves), 256);
        CHECK_OK(wf_taskgraph_destroy(g));
        CHECK_EQ(c.live, 0);
        CHECK_OK(wf_pool_destroy(p));
    }
}

/* ---- compose ------------------------------------------------------------ */

static void compose(void)
{
    for (size_t k = 0; k < 3; k++) {
        wf_pool *p = check_pool(threads[k]);
        wf_taskgraph_config cfg = {.pool = p};
        wf_taskgraph *module, *g;
        CHECK_OK(wf_taskgraph_create(&module, &cfg));
        CHECK_OK(wf_taskgraph_create(&g, &cfg));
        _Atomic int n = 0, before = 0;
        CHECK_OK(build(module, &n));
        wf_tg_task *m = wf_tg_compose(g, module);
        wf_tg_precede(wf_tg_emplace(g, counts, &before), m);
        CHECK_OK(wf_tg_run_n(g, 3));
        CHECK_EQ(atomic_load(&n), 3 * (32 * 32 + 41));
        CHECK_EQ(atomic_load(&before), 3);
        CHECK(wf_tg_compose(g, g) == NULL); /* itself: kept as an error */
        CHECK_ERR(wf_tg_run(g), WF_EINVAL);
        CHECK_OK(wf_taskgraph_destroy(g));
        CHECK_OK(wf_taskgraph_destroy(module));
        CHECK_OK(wf_pool_destroy(p));
    }
}

/* ---- depend ------------------------------------------------------------- */

#define DEP_VARS 8
#define DEP_TASKS 200

typedef struct {
    _Atomic int *version; /* per variable, bumped by each write */
    int nacc;
    int var[3], mode[3]; /* up to three accesses, distinct variables */
    int expect[3];       /* the version each access must see */
    _Atomic int *bad;
} dep_task;

static int dep_body(void *ctx)
{
    dep_task *t = ctx;
    for (int i = 0; i < t->nacc; i++)
        if (atomic_load(&t->version[t->var[i]]) != t->expect[i])
            atomic_store(t->bad, 1);
    for (int i = 0; i < t->nacc; i++)
        if (t->mode[i] != WF_TG_IN)
            atomic_fetch_add(&t->version[t->var[i]], 1);
    return 0;
}

static uint64_t next_rand(uint64_t *r)
{
    *r = *r * 6364136223846793005u + 1442695040888963407u;
    return *r >> 33;
}

/* A random task: its accesses, and the versions program order gives. */
static void dep_make(dep_task *t, int seq[DEP_VARS], uint64_t *rng,
                     wf_tg_dep deps[3])
{
    t->nacc = 1 + (int)(next_rand(rng) % 3);
    int v = (int)(next_rand(rng) % DEP_VARS);
    for (int a = 0; a < t->nacc; a++) {
        v = (v + 1 + (int)(next_rand(rng) % 2)) % DEP_VARS; /* distinct */
        t->var[a] = v;
        t->mode[a] = 1 + (int)(next_rand(rng) % 3);
        t->expect[a] = seq[v];
        deps[a] = (wf_tg_dep){&seq[v], (wf_tg_access)t->mode[a]};
    }
    for (int a = 0; a < t->nacc; a++)
        if (t->mode[a] != WF_TG_IN)
            seq[t->var[a]]++;
}

static void depend(void)
{
    static dep_task tasks[DEP_TASKS];
    uint64_t rng = 42;
    for (size_t k = 0; k < 3; k++) {
        wf_pool *p = check_pool(threads[k]);
        for (int prog = 0; prog < 20; prog++) {
            wf_taskgraph_config cfg = {.pool = p};
            wf_taskgraph *g;
            CHECK_OK(wf_taskgraph_create(&g, &cfg));
            _Atomic int version[DEP_VARS] = {0}, bad = 0;
            int seq[DEP_VARS] = {0}; /* their addresses name the variables */
            for (int i = 0; i < DEP_TASKS; i++) {
                wf_tg_dep deps[3];
                tasks[i].version = version;
                tasks[i].bad = &bad;
                dep_make(&tasks[i], seq, &rng, deps);
                wf_tg_task *t = wf_tg_emplace(g, dep_body, &tasks[i]);
                CHECK_OK(wf_tg_depend(t, (size_t)tasks[i].nacc, deps));
            }
            CHECK_OK(wf_tg_run(g));
            CHECK_EQ(atomic_load(&bad), 0);
            for (int v = 0; v < DEP_VARS; v++)
                CHECK_EQ(atomic_load(&version[v]), seq[v]);
            CHECK_OK(wf_taskgraph_destroy(g));
        }
        CHECK_OK(wf_pool_destroy(p));
    }
    /* Bad arguments are kept. */
    wf_taskgraph *g;
    CHECK_OK(wf_taskgraph_create(&g, NULL));
    wf_tg_task *t = wf_tg_emplace(g, counts, NULL);
    CHECK_ERR(wf_tg_depend(t, 1, NULL), WF_EINVAL);
    CHECK_ERR(wf_tg_depend(NULL, 0, NULL), WF_EINVAL);
    CHECK_ERR(wf_tg_run(g), WF_EINVAL);
    CHECK_OK(wf_taskgraph_destroy(g));
}

/* ---- clear -------------------------------------------------------------- */

static void clear(void)
{
    counting c = {0, 0, 0};
    wf_allocator a = {count_alloc, count_free, &c};
    wf_taskgraph_config cfg = {.alloc = &a};
    wf_taskgraph *g;
    CHECK_OK(wf_taskgraph_create(&g, &cfg));
    _Atomic int n = 0;
    CHECK_OK(build(g, &n));
    CHECK_OK(wf_tg_run(g));
    long calls = c.calls;
    for (int r = 0; r < 3; r++) {
        CHECK_OK(wf_taskgraph_clear(g));
        CHECK_EQ(wf_taskgraph_size(g), 0);
        CHECK_OK(wf_tg_run(g)); /* empty */
        CHECK_OK(build(g, &n));
        CHECK_OK(wf_tg_run(g));
    }
    CHECK_EQ(atomic_load(&n), 4 * (32 * 32 + 41));
    CHECK_EQ(c.calls, calls); /* the same graph again: no new memory */
    CHECK(wf_tg_emplace(g, NULL, NULL) == NULL);
    CHECK_ERR(wf_tg_run(g), WF_EINVAL);
    CHECK_OK(wf_taskgraph_clear(g)); /* the building error goes too */
    CHECK_OK(wf_tg_run(g));
    CHECK_ERR(wf_taskgraph_clear(NULL), WF_EINVAL);
    CHECK_OK(wf_taskgraph_destroy(g));
    CHECK_EQ(c.live, 0);
}

/* ---- trace -------------------------------------------------------------- */

static void trace(void)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/weft_tg_trace_%d.json", (int)getpid());
    wf_taskgraph *g;
    CHECK_OK(wf_taskgraph_create(&g, NULL));
    _Atomic int n = 0;
    wf_tg_task *prev = NULL;
    for (int i = 0; i < 20; i++) { /* 20 named "step", then 1 unnamed */
        wf_tg_task *t = wf_tg_emplace(g, counts, &n);
        wf_tg_name(t, "step");
        if (prev)
            wf_tg_precede(prev, t);
        prev = t;
    }
    wf_tg_precede(prev, wf_tg_emplace(g, counts, &n));
    CHECK_OK(wf_trace_start(path));
    CHECK_OK(wf_tg_run_n(g, 3));
    CHECK_OK(wf_trace_stop());
    CHECK_EQ(atomic_load(&n), 3 * 21);
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    static char text[1 << 20];
    size_t len = fread(text, 1, sizeof text - 1, f);
    text[len] = '\0';
    fclose(f);
    remove(path);
    CHECK_EQ(check_trace_count(text, "task step"), 3 * 20);
    CHECK_EQ(check_trace_count(text, "task unnamed"), 3);
    CHECK_OK(wf_taskgraph_destroy(g));
}

/* ---- cancel ------------------------------------------------------------- */

static wf_taskgraph *cancel_graph;

static int cancels(void *ctx)
{
    (void)ctx;
    return wf_tg_cancel(cancel_graph);
}

static bool never(void *ctx)
{
    (void)ctx;
    return false;
}

static void *cancel_later(void *arg)
{
    (void)arg;
    struct timespec ts = {0, 20 * 1000 * 1000};
    nanosleep(&ts, NULL);
    CHECK_OK(wf_tg_cancel(cancel_graph));
    return NULL;
}

static void cancel(void)
{
    for (size_t k = 0; k < 3; k++) {
        wf_pool *p = check_pool(threads[k]);
        wf_taskgraph_config cfg = {.pool = p};
        CHECK_OK(wf_taskgraph_create(&cancel_graph, &cfg));
        _Atomic int n = 0;
        wf_tg_task *prev = wf_tg_emplace(cancel_graph, counts, &n);
        wf_tg_task *c = wf_tg_emplace(cancel_graph, cancels, NULL);
        wf_tg_precede(prev, c);
        prev = c;
        for (int i = 0; i < 50; i++) { /* skipped after the cancel */
            wf_tg_task *t = wf_tg_emplace(cancel_graph, counts, &n);
            wf_tg_precede(prev, t);
            prev = t;
        }
        CHECK_ERR(wf_tg_run_n(cancel_graph, 3), WF_ECANCELED);
        CHECK_EQ(atomic_load(&n), 1); /* the one before, one round */
        CHECK_OK(wf_taskgraph_destroy(cancel_graph));

        /* An endless loop, ended from another thread. */
        CHECK_OK(wf_taskgraph_create(&cancel_graph, &cfg));
        loop_state s = {0};
        wf_tg_task *body = wf_tg_emplace(cancel_graph, loop_body, &s);
        wf_tg_task *again = wf_tg_condition(cancel_graph, pick, &s);
        wf_tg_precede(body, again);
        wf_tg_precede(again, body); /* branch 0, for ever */
        wf_tg_precede(wf_tg_emplace(cancel_graph, loop_init, &s), body);
        s.branch = 0;
        pthread_t th;
        CHECK(pthread_create(&th, NULL, cancel_later, NULL) == 0);
        CHECK_ERR(wf_tg_run_until(cancel_graph, never, NULL), WF_ECANCELED);
        CHECK(pthread_join(th, NULL) == 0);
        CHECK(s.body_runs > 0);
        s.branch = 1; /* past the last successor: the loop ends */
        int before = s.body_runs;
        CHECK_OK(wf_tg_run(cancel_graph)); /* the cancel is gone */
        CHECK_EQ(s.body_runs, before + 1);
        CHECK_OK(wf_taskgraph_destroy(cancel_graph));
        CHECK_OK(wf_pool_destroy(p));
    }
    CHECK_ERR(wf_tg_cancel(NULL), WF_EINVAL);
}

/* ---- subflow_oom -------------------------------------------------------- */

static void subflow_oom(void)
{
    wf_pool *p = check_pool(2);
    counting c = {0, 0, 0};
    wf_allocator a = {count_alloc, count_free, &c};
    wf_taskgraph_config cfg = {.pool = p, .alloc = &a};
    wf_taskgraph *g;
    /* How many allocations building takes, and the first run. */
    CHECK_OK(wf_taskgraph_create(&g, &cfg));
    wf_tg_subflow(g, split, (void *)(intptr_t)4);
    long built = atomic_load(&c.calls);
    atomic_store(&sub_leaves, 0);
    CHECK_OK(wf_tg_run(g));
    long ran = atomic_load(&c.calls);
    CHECK(ran > built); /* the subflows' graphs */
    CHECK_OK(wf_taskgraph_destroy(g));
    CHECK_EQ(atomic_load(&c.live), 0);
    for (long k = built + 1; k <= ran; k++) {
        atomic_store(&c.calls, 0);
        atomic_store(&c.live, 0);
        c.fail_at = k;
        CHECK_OK(wf_taskgraph_create(&g, &cfg));
        wf_tg_subflow(g, split, (void *)(intptr_t)4);
        CHECK_ERR(wf_tg_run(g), WF_ENOMEM);
        c.fail_at = 0; /* the next run has memory */
        atomic_store(&sub_leaves, 0);
        CHECK_OK(wf_tg_run(g));
        CHECK_EQ(atomic_load(&sub_leaves), 16);
        CHECK_OK(wf_taskgraph_destroy(g));
        CHECK_EQ(atomic_load(&c.live), 0);
    }
    CHECK_OK(wf_pool_destroy(p));
}

/* ---- grow --------------------------------------------------------------- */

#define GROW 1500
#define GROW_PRED 6

static int grow_npred[GROW], grow_pred[GROW][GROW_PRED];
static bool grow_head[GROW]; /* precedes a task of lower index */
static _Atomic long grow_ticket, grow_stamp[GROW];
static _Atomic int grow_runs[GROW], grow_bad, grow_fail_at = -1;

/* Takes a ticket, checks that every predecessor has a smaller one. */
static int grow_task(void *ctx)
{
    int i = (int)(intptr_t)ctx;
    long me = atomic_fetch_add(&grow_ticket, 1) + 1;
    for (int k = 0; k < grow_npred[i]; k++) {
        long p = atomic_load(&grow_stamp[grow_pred[i][k]]);
        if (p == 0 || p > me)
            atomic_store(&grow_bad, 1);
    }
    atomic_store(&grow_stamp[i], me);
    atomic_fetch_add(&grow_runs[i], 1);
    return i == atomic_load(&grow_fail_at) ? -1001 : 0;
}

/* One run of g's n tasks: it fails at task fail (and is not checked
 * further) or every task runs once, in order. */
static void grow_run(wf_taskgraph *g, int n, int fail)
{
    atomic_store(&grow_ticket, 0);
    atomic_store(&grow_bad, 0);
    atomic_store(&grow_fail_at, fail);
    for (int i = 0; i < n; i++) {
        atomic_store(&grow_stamp[i], 0);
        atomic_store(&grow_runs[i], 0);
    }
    CHECK_EQ(wf_tg_run(g), fail >= 0 ? -1001 : 0);
    if (fail >= 0)
        return;
    for (int i = 0; i < n; i++)
        CHECK_EQ(atomic_load(&grow_runs[i]), 1);
    CHECK_EQ(atomic_load(&grow_bad), 0);
}

/* An edge a -> b unless b's predecessors are full or have a already, or
 * b is a head: an edge into it could close a cycle. */
static void grow_edge(wf_tg_task **t, int a, int b)
{
    if (grow_npred[b] == GROW_PRED || grow_head[b])
        return;
    for (int q = 0; q < grow_npred[b]; q++)
        if (grow_pred[b][q] == a)
            return;
    grow_pred[b][grow_npred[b]++] = a;
    CHECK_OK(wf_tg_precede(t[a], t[b]));
}

static void grow(void)
{
    wf_pool *p = check_pool(2);
    wf_taskgraph_config cfg = WF_TASKGRAPH_CONFIG_INIT;
    cfg.pool = p;
    static wf_tg_task *t[GROW];
    uint64_t seed = 88172645463325252u;
    for (int rep = 0; rep < 4; rep++) {
        wf_taskgraph *g;
        CHECK_OK(wf_taskgraph_create(&g, &cfg));
        int n = 0;
        while (n < GROW - 1) {
            /* New tasks, and edges from lower indices to higher (a DAG),
             * some from old tasks to new ones. */
            int add = 1 + (int)(check_rand(&seed) % 200);
            for (; add > 0 && n < GROW - 1; add--, n++) {
                grow_npred[n] = 0;
                grow_head[n] = false;
                t[n] = wf_tg_emplace(g, grow_task, (void *)(intptr_t)n);
            }
            for (int e = (int)(check_rand(&seed) % 400); e > 0; e--) {
                int a = (int)(check_rand(&seed) % (uint64_t)n);
                int b = (int)(check_rand(&seed) % (uint64_t)n);
                if (a != b)
                    grow_edge(t, a < b ? a : b, a < b ? b : a);
            }
            /* A new source that precedes an old one: no cycle, since the
             * old one had no predecessor and the new one never gets one. */
            int src = n++;
            grow_npred[src] = 0;
            grow_head[src] = true;
            t[src] = wf_tg_emplace(g, grow_task, (void *)(intptr_t)src);
            for (int b = 0; b < src; b++)
                if (grow_npred[b] == 0 && check_rand(&seed) % 4 == 0) {
                    grow_edge(t, src, b);
                    break;
                }
            for (int r = 1 + (int)(check_rand(&seed) % 3); r > 0; r--) {
                if (check_rand(&seed) % 5 == 0)
                    grow_run(g, n, (int)(check_rand(&seed) % (uint64_t)n));
                grow_run(g, n, -1);
            }
        }
        CHECK_OK(wf_taskgraph_destroy(g));
    }
    CHECK_OK(wf_pool_destroy(p));
}

/* ---- an edit racing with the end of a run ------------------------------- */

static _Atomic int chain_started;

static int bump(void *ctx)
{
    (*(long *)ctx)++; /* the chain runs in order: one task at a time */
    atomic_store(&chain_started, 1);
    return 0;
}

static void *run_once(void *g)
{
    wf_tg_run(g);
    return NULL;
}

/* A thread adds a task while another runs the graph (once its first task
 * has run: an edit racing with the start of a run is the program's race,
 * docs/taskgraph.md): refused (WF_EBUSY, kept as the graph's error) until
 * the run ends, accepted after.  The
 * accepted edit happens after the run's last writes (T4 in
 * docs/protocols.md: the run's release of `running`, the edit's acquire
 * load of it); under ThreadSanitizer, either relaxed is a data race on
 * the graph's fields. */
static void edit_race(void)
{
    wf_pool *pool = check_pool(2);
    for (int round = 0; round < 20; round++) {
        wf_taskgraph_config cfg = WF_TASKGRAPH_CONFIG_INIT;
        cfg.pool = pool;
        wf_taskgraph *g;
        CHECK_OK(wf_taskgraph_create(&g, &cfg));
        long count = 0, extra = 0;
        wf_tg_task *prev = NULL;
        for (int i = 0; i < 500; i++) {
            wf_tg_task *t = wf_tg_emplace(g, bump, &count);
            if (prev)
                CHECK_OK(wf_tg_precede(prev, t));
            prev = t;
        }
        pthread_t th;
        atomic_store(&chain_started, 0);
        CHECK(pthread_create(&th, NULL, run_once, g) == 0);
        while (!atomic_load(&chain_started))
            sched_yield();
        wf_tg_task *added;
        while ((added = wf_tg_emplace(g, bump, &extra)) == NULL)
            sched_yield();
        /* The chain's last task, whose successors the run read last. */
        CHECK_OK(wf_tg_precede(prev, added));
        CHECK(pthread_join(th, NULL) == 0);
        int err = wf_taskgraph_error(g);
        CHECK(err == 0 || err == WF_EBUSY);
        CHECK_EQ(count, 500);
        CHECK_OK(wf_taskgraph_destroy(g));
    }
    CHECK_OK(wf_pool_destroy(pool));
}

/* ---- held ---------------------------------------------------------------- */

#define HELD_FANOUT 6

/* Blocks until all HELD_FANOUT tasks have begun, 20 s at most: they all
 * must run at once.  1 if they did not. */
static int rendezvous(void *ctx)
{
    _Atomic int *begun = ctx;
    int err = wf_blocking_begin();
    CHECK(err == 0 || err == WF_EAGAIN);
    atomic_fetch_add(begun, 1);
    double deadline = check_now() + 20;
    while (atomic_load(begun) < HELD_FANOUT && check_now() < deadline)
        sched_yield();
    CHECK_OK(wf_blocking_end());
    return atomic_load(begun) < HELD_FANOUT;
}

static int nothing(void *ctx)
{
    (void)ctx;
    return 0;
}

static _Atomic int siblings_run;

static int sibling(void *ctx)
{
    (void)ctx;
    atomic_fetch_add(&siblings_run, 1);
    return 0;
}

/* The subflow's one task: how many siblings ran before it (+1). */
static int child_task(void *ctx)
{
    *(int *)ctx = 1 + atomic_load(&siblings_run);
    return 0;
}

static int make_child(wf_taskgraph *child, void *ctx)
{
    return wf_tg_emplace(child, child_task, ctx) ? 0 : WF_ENOMEM;
}

static void held(void)
{
    /* One thread: the subflow's task runs before the held siblings. */
    wf_pool *one = check_pool(1);
    wf_taskgraph_config one_cfg = {.pool = one};
    wf_taskgraph *sg;
    CHECK_OK(wf_taskgraph_create(&sg, &one_cfg));
    int seen = 0;
    wf_tg_task *first = wf_tg_emplace(sg, nothing, NULL);
    CHECK_OK(wf_tg_precede(first, wf_tg_subflow(sg, make_child, &seen)));
    for (int i = 0; i < 3; i++)
        CHECK_OK(wf_tg_precede(first, wf_tg_emplace(sg, sibling, NULL)));
    CHECK_OK(wf_tg_run(sg));
    CHECK_EQ(seen, 1); /* no sibling before it */
    CHECK_EQ(atomic_load(&siblings_run), 3);
    CHECK_OK(wf_taskgraph_destroy(sg));
    CHECK_OK(wf_pool_destroy(one));

    for (size_t k = 0; k < 2; k++) {
        wf_pool *p = check_pool(threads[k]);
        wf_taskgraph_config cfg = {.pool = p};
        wf_taskgraph *g;
        CHECK_OK(wf_taskgraph_create(&g, &cfg));
        _Atomic int begun[3] = {0, 0, 0};
        wf_tg_task *src = wf_tg_emplace(g, nothing, NULL);
        for (int round = 0; round < 3; round++) {
            wf_tg_task *sink = wf_tg_emplace(g, nothing, NULL);
            for (int i = 0; i < HELD_FANOUT; i++) {
                wf_tg_task *t = wf_tg_emplace(g, rendezvous, &begun[round]);
                CHECK_OK(wf_tg_precede(src, t));
                CHECK_OK(wf_tg_precede(t, sink));
            }
            src = sink; /* the next six after these */
        }
        CHECK_OK(wf_tg_run(g));
        for (int round = 0; round < 3; round++)
            CHECK_EQ(atomic_load(&begun[round]), HELD_FANOUT);
        CHECK_OK(wf_taskgraph_destroy(g));
        CHECK_OK(wf_pool_destroy(p));
    }
}

/* ---- alone --------------------------------------------------------------- */

#define ALONE_FANOUT 64 /* 1 run next, 32 held, 31 spawned */
#define ALONE_RUNS 1000

/* A successor of the source: a few microseconds of work, then counted. */
static int fanned(void *ctx)
{
    double until = check_now() + 2e-6;
    while (check_now() < until)
        ;
    atomic_fetch_add((_Atomic int *)ctx, 1);
    return 0;
}

static void alone(void)
{
    for (unsigned threads = 1; threads <= 2; threads++) {
        wf_pool *p = check_pool(threads);
        wf_taskgraph_config cfg = {.pool = p};
        wf_taskgraph *g;
        CHECK_OK(wf_taskgraph_create(&g, &cfg));
        _Atomic int fanned_runs = 0, sink_runs = 0;
        wf_tg_task *src = wf_tg_emplace(g, nothing, NULL);
        wf_tg_task *sink = wf_tg_emplace(g, counts, &sink_runs);
        for (int i = 0; i < ALONE_FANOUT; i++) {
            wf_tg_task *t = wf_tg_emplace(g, fanned, &fanned_runs);
            CHECK_OK(wf_tg_precede(src, t));
            CHECK_OK(wf_tg_precede(t, sink));
        }
        CHECK_OK(wf_tg_run_n(g, ALONE_RUNS));
        CHECK_EQ(atomic_load(&fanned_runs), ALONE_FANOUT * ALONE_RUNS);
        CHECK_EQ(atomic_load(&sink_runs), ALONE_RUNS);
        CHECK_OK(wf_taskgraph_destroy(g));
        CHECK_OK(wf_pool_destroy(p));
    }
}

/* ---- held_nomem ----------------------------------------------------------- */

/* malloc, or nothing once `failing` is set; counts the calls. */
typedef struct {
    _Atomic long calls, refused;
    _Atomic bool failing;
} fail_switch;

static void *switch_alloc(size_t size, void *ctx)
{
    fail_switch *f = ctx;
    atomic_fetch_add(&f->calls, 1);
    if (atomic_load(&f->failing)) {
        atomic_fetch_add(&f->refused, 1);
        return NULL;
    }
    return malloc(size);
}

static void switch_free(void *p, size_t size, void *ctx)
{
    (void)size;
    (void)ctx;
    free(p);
}

static int three_counts(wf_taskgraph *child, void *ctx)
{
    for (int i = 0; i < 3; i++)
        if (wf_tg_emplace(child, counts, ctx) == NULL)
            return WF_ENOMEM;
    return 0;
}

static void held_nomem(void)
{
    fail_switch sw = {0};
    wf_allocator a = {switch_alloc, switch_free, &sw};
    wf_pool_config pc = {.threads = 1, .deque_capacity = 2, .alloc = &a};
    wf_pool *p;
    CHECK_OK(wf_pool_create(&p, &pc));
    wf_taskgraph_config cfg = {.pool = p};
    wf_taskgraph *g;
    CHECK_OK(wf_taskgraph_create(&g, &cfg));
    _Atomic int n = 0;
    wf_tg_task *src = wf_tg_emplace(g, nothing, NULL);
    CHECK_OK(wf_tg_precede(src, wf_tg_subflow(g, three_counts, &n)));
    for (int i = 0; i < 100; i++)
        CHECK_OK(wf_tg_precede(src, wf_tg_emplace(g, counts, &n)));
    CHECK_OK(wf_taskgraph_error(g));
    atomic_store(&sw.failing, true); /* the graph's memory is malloc's */
    CHECK_OK(wf_tg_run_n(g, 3));
    CHECK(atomic_load(&sw.refused) > 0); /* the stack could not grow */
    atomic_store(&sw.failing, false);
    CHECK_EQ(atomic_load(&n), 3 * 103);
    CHECK_OK(wf_taskgraph_destroy(g));
    CHECK_OK(wf_pool_destroy(p));
}

static const check_scenario scenarios[] = {
    {"chain", chain},
    {"wavefront", wavefront},
    {"tree", tree},
    {"condition", condition},
    {"placeholder", placeholder},
    {"errors", errors},
    {"alloc", alloc},
    {"concurrent", concurrent},
    {"dot", dot},
    {"subflow", subflow},
    {"compose", compose},
    {"depend", depend},
    {"clear", clear},
    {"trace", trace},
    {"cancel", cancel},
    {"subflow_oom", subflow_oom},
    {"grow", grow},
    {"edit_race", edit_race},
    {"held", held},
    {"held_nomem", held_nomem},
    {"alone", alone},
};

int main(int argc, char **argv)
{
    return CHECK_RUN_SCENARIOS("taskgraph", argc, argv, scenarios);
}
