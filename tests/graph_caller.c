/* SPDX-License-Identifier: Apache-2.0 */
/* graph_caller: a thread that is not a pool worker takes part in the work
 * it waits for (wf_graph_wait_for_all runs the pool's tasks on the calling
 * thread instead of sleeping), and a pool of `threads` = T has T - 1
 * background workers: the waiting caller is the T-th.
 *
 * ARGS: a scenario name (none or "all": every one), then an optional
 * divisor for the iteration counts (TSan passes 2).
 *   stuck_worker  threads = 2.  Graph A's body blocks (at most ~12 s, then
 *           it records a time-out) on every background worker the pool has
 *           (they are found by putting one message at a time into A and
 *           waiting for another body to start; a body that runs on main
 *           returns at once).  Then main puts 1000 messages into graph B, a
 *           chain of 3 serial function nodes, and waits for B: the wait
 *           must return 0 with 1000 messages counted by every node while
 *           A's bodies are still blocked and none has timed out, all of B's
 *           bodies having run on main.  If main slept instead, B finishes
 *           only after A's bodies time out, and the test fails.
 *   one_thread  threads = 1 (no background worker): a chain of 8 serial
 *           function nodes, one message put and waited for, 10000 times;
 *           each round trip delivers exactly one message to every node,
 *           and every body ran on the calling thread (pthread_self).
 *   outside_threads  threads = 2; 4 plain threads, each with its own graph
 *           (even: unlimited -> serial chain, odd: broadcast -> two
 *           unlimited nodes), put N messages in rounds and wait after each
 *           round: after every wait the counts (and sums) equal what that
 *           thread has put so far.
 *   outside_shared  threads = 2; the 4 threads put into one graph
 *           (broadcast -> unlimited + serial) and call wait_for_all
 *           concurrently; each message carries its sender, and after a
 *           sender's wait both nodes have seen exactly what it has put so
 *           far (on failure it tells whether the missing messages ran later,
 *           i.e. were still in flight when the wait returned); exact totals
 *           and sums at the end.
 *   worker_park  a thread inside the pool (a wf_run body on a threads = 2
 *           pool; a wf_submit task on a background worker of a threads = 3
 *           pool) waits ~2 s in wf_graph_wait_for_all on a graph whose only
 *           pending item is a body sleeping 2 s on another thread: the
 *           waiter's thread CPU time over that wait is < 0.05 s (it parks;
 *           it does not poll).  2 s, not 1: polling in 200 us slices costs
 *           about 0.05 s a second here, too close to the limit.
 *   run_here  threads = 1 (no background worker): wf_graph_run_here from
 *           main puts one message into a chain of 8 serial function nodes;
 *           with a budget of 10 s every body has run on main when it
 *           returns (it returns the tasks it ran, at least 1) and
 *           wf_graph_is_idle is true at once; with a budget of 0 it runs
 *           at least one task and wf_graph_wait_for_all does the rest;
 *           1000 times each, exact counts.  From a wf_run body (a thread of
 *           the pool) it only calls fn; NULL arguments give WF_EINVAL.
 * Every wait on another thread is bounded; a watchdog (alarm) turns a hang
 * inside weft into a failure that names where it hung. */
#include "caller_test.h"
#include "graph_test.h"

/* ---- bodies -------------------------------------------------------------- */

/* A body that blocks its thread until released, unless it runs on main. */
typedef struct {
    _Atomic int release;
    _Atomic int started;  /* bodies blocked off the main thread */
    _Atomic int returned; /* of those, how many have returned */
    _Atomic int on_main;  /* bodies that ran on main (returned at once) */
    _Atomic int timed_out;
    double deadline; /* set before the first put */
} blocker;

static int blocker_body(const void *in, void *out, void *ctx)
{
    (void)in;
    (void)out;
    blocker *b = ctx;
    if (on_main()) {
        atomic_fetch_add(&b->on_main, 1);
        return 0;
    }
    atomic_fetch_add(&b->started, 1);
    if (!block_until(&b->release, b->deadline))
        atomic_store(&b->timed_out, 1);
    atomic_fetch_add(&b->returned, 1);
    return 0;
}

/* Put messages into `in` (A's blocking node) one at a time until one more
 * body does not start within a second: then every background worker is
 * inside a body.  Returns how many are; one message may be left queued. */
static int block_workers(blocker *b, wf_node *in, double first_wait)
{
    int blocked = 0;
    for (int i = 0; i < 64; i++) {
        gt_put(in, i);
        if (!wait_count(&b->started, blocked + 1, blocked ? 1.0 : first_wait))
            break;
        blocked = atomic_load(&b->started);
    }
    return blocked;
}

/* A counting node: how many messages, their sum, off-main runs. */
typedef struct {
    _Atomic long n;
    _Atomic long long sum;
    _Atomic long off_main;
    _Atomic long per_src[4];
} counter;

static int count_pass(const void *in, void *out, void *ctx)
{
    counter *c = ctx;
    int v = *(const int *)in;
    if (!on_main())
        atomic_fetch_add(&c->off_main, 1);
    atomic_fetch_add(&c->n, 1);
    atomic_fetch_add(&c->sum, v);
    if (out)
        *(int *)out = v;
    return 0;
}

static int count_src(const void *in, void *out, void *ctx)
{
    counter *c = ctx;
    int v = *(const int *)in;
    atomic_fetch_add(&c->per_src[v & 3], 1);
    return count_pass(in, out, ctx);
}

/* ---- stuck_worker -------------------------------------------------------- */

static void stuck_worker(void)
{
    watch("stuck_worker: setup", WATCH_S);
    wf_pool *p = gt_pool(2);
    wf_graph *a = gt_graph(p);
    blocker bl = {.deadline = check_now() + 12.0};
    wf_node *fa = gt_function(a, sizeof(int), 0, WF_UNLIMITED, WF_QUEUEING,
                              blocker_body, &bl);
    int blocked = block_workers(&bl, fa, 5.0);
    CHECK_MSG(blocked >= 1,
              "no body of graph A started on a background thread in 5 s "
              "(threads = 2 must have one background worker)");

    wf_graph *b = gt_graph(p);
    counter c[3] = {0};
    wf_node *f[3];
    for (int i = 0; i < 3; i++)
        f[i] = gt_function(b, sizeof(int), i < 2 ? sizeof(int) : 0, WF_SERIAL,
                           WF_QUEUEING, count_pass, &c[i]);
    CHECK_OK(wf_make_edge(f[0], f[1]));
    CHECK_OK(wf_make_edge(f[1], f[2]));
    double t0 = check_now();
    watch("stuck_worker: wf_graph_wait_for_all(B) with the workers blocked",
          WATCH_S);
    for (int i = 0; i < 1000; i++)
        gt_put(f[0], i);
    CHECK_OK(wf_graph_wait_for_all(b));
    double took = check_now() - t0;
    int timed_out = atomic_load(&bl.timed_out);
    int still = atomic_load(&bl.started) - atomic_load(&bl.returned);
    printf("stuck_worker: %d background worker(s) blocked in A; B's 1000 "
           "messages done in %.3f s (%ld of 3000 bodies on main)\n",
           blocked, took,
           3000 - (atomic_load(&c[0].off_main) + atomic_load(&c[1].off_main) +
                   atomic_load(&c[2].off_main)));
    CHECK_MSG(!timed_out,
              "B finished only after A's blocked bodies timed out (%.1f s): "
              "the waiting thread did not run B's work",
              took);
    CHECK_MSG(still == blocked, "%d of A's %d blocked bodies returned early",
              blocked - still, blocked);
    for (int i = 0; i < 3; i++) {
        CHECK_EQ(atomic_load(&c[i].n), 1000);
        CHECK_EQ(atomic_load(&c[i].sum), 999 * 1000 / 2);
        /* Every background worker was blocked: only main could run B. */
        CHECK_EQ(atomic_load(&c[i].off_main), 0);
    }

    watch("stuck_worker: wf_graph_wait_for_all(A) after the release", WATCH_S);
    atomic_store(&bl.release, 1);
    CHECK_OK(wf_graph_wait_for_all(a));
    CHECK_MSG(!atomic_load(&bl.timed_out), "one of A's bodies timed out");
    CHECK_EQ(atomic_load(&bl.returned), atomic_load(&bl.started));
    GT_DESTROY(b, f[0], f[1], f[2]);
    GT_DESTROY(a, fa);
    CHECK_OK(wf_pool_destroy(p));
    alarm(0);
}

/* ---- one_thread ---------------------------------------------------------- */

enum { LEN = 8 };

/* LEN serial function nodes in a row, each counting into c[i] and passing
 * its int on (the last one passes nothing). */
static void make_chain(wf_graph *g, counter c[LEN], wf_node *f[LEN])
{
    for (int i = 0; i < LEN; i++) {
        f[i] = gt_function(g, sizeof(int), i < LEN - 1 ? sizeof(int) : 0,
                           WF_SERIAL, WF_QUEUEING, count_pass, &c[i]);
        if (i > 0)
            CHECK_OK(wf_make_edge(f[i - 1], f[i]));
    }
}

static void one_thread(void)
{
    watch("one_thread: setup", WATCH_S);
    wf_pool *p = gt_pool(1);
    wf_graph *g = gt_graph(p);
    counter c[LEN] = {0};
    wf_node *f[LEN];
    make_chain(g, c, f);
    long rounds = scaled(10000);
    watch("one_thread: put + wf_graph_wait_for_all on a threads = 1 pool",
          WATCH_S);
    long long sum = 0;
    for (long r = 0; r < rounds; r++) {
        gt_put(f[0], (int)r);
        sum += r;
        CHECK_OK(wf_graph_wait_for_all(g));
        for (int i = 0; i < LEN; i++) {
            long got = atomic_load(&c[i].n);
            CHECK_MSG(got == r + 1, "round %ld: node %d has seen %ld messages",
                      r, i, got);
        }
    }
    long off = 0;
    for (int i = 0; i < LEN; i++) {
        CHECK(atomic_load(&c[i].sum) == sum);
        off += atomic_load(&c[i].off_main);
    }
    printf("one_thread: %ld round trips through %d nodes, %ld of %ld bodies "
           "off the calling thread\n",
           rounds, LEN, off, rounds * LEN);
    CHECK_MSG(off == 0,
              "%ld bodies ran on another thread: a threads = 1 pool must "
              "have no background worker",
              off);
    GT_DESTROY(g, f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7]);
    CHECK_OK(wf_pool_destroy(p));
    alarm(0);
}

/* ---- run_here ------------------------------------------------------------ */

typedef struct {
    wf_node *first;
    int v, calls, in_pool;
} put_arg;

static void put_one(void *ctx)
{
    put_arg *a = ctx;
    a->calls++;
    a->in_pool += wf_current_pool() != NULL;
    gt_put(a->first, a->v);
}

typedef struct {
    wf_graph *g;
    put_arg *put;
    int rc;
} inside_arg;

static void run_here_inside(void *arg)
{
    inside_arg *a = arg;
    a->rc = wf_graph_run_here(a->g, put_one, a->put, 1000000000u);
}

static void run_here(void)
{
    watch("run_here: setup", WATCH_S);
    wf_pool *p = gt_pool(1);
    wf_graph *g = gt_graph(p);
    counter c[LEN] = {0};
    wf_node *f[LEN];
    make_chain(g, c, f);
    CHECK_EQ(wf_graph_run_here(NULL, put_one, NULL, 0), WF_EINVAL);
    CHECK_EQ(wf_graph_run_here(g, NULL, NULL, 0), WF_EINVAL);
    CHECK(!wf_graph_is_idle(NULL));
    CHECK(wf_graph_is_idle(g));
    long rounds = scaled(1000);
    watch("run_here: wf_graph_run_here on a threads = 1 pool", WATCH_S);
    long long sum = 0;
    put_arg a = {.first = f[0]};
    for (long r = 0; r < 2 * rounds; r++) {
        bool whole = r < rounds;
        a.v = (int)r;
        sum += r;
        int ran = wf_graph_run_here(g, put_one, &a, whole ? 10000000000u : 0);
        CHECK_MSG(ran >= 1, "round %ld: wf_graph_run_here ran %d tasks", r,
                  ran);
        if (whole) {
            CHECK_MSG(wf_graph_is_idle(g),
                      "round %ld: work left after wf_graph_run_here", r);
            CHECK_EQ(atomic_load(&c[LEN - 1].n), r + 1);
        } else {
            CHECK_OK(wf_graph_wait_for_all(g));
        }
        for (int i = 0; i < LEN; i++)
            CHECK_EQ(atomic_load(&c[i].n), r + 1);
    }
    CHECK_EQ(a.calls, (int)(2 * rounds));
    CHECK_EQ(a.in_pool, (int)(2 * rounds)); /* fn ran in a caller slot */
    long off = 0;
    for (int i = 0; i < LEN; i++) {
        CHECK(atomic_load(&c[i].sum) == sum);
        off += atomic_load(&c[i].off_main);
    }
    CHECK_EQ(off, 0);
    /* From a thread of the pool: fn only, no task run by the call. */
    inside_arg in = {.g = g, .put = &a};
    a.v = 0;
    CHECK_OK(wf_run(p, run_here_inside, &in));
    CHECK_EQ(in.rc, 0);
    CHECK_OK(wf_graph_wait_for_all(g));
    CHECK_EQ(atomic_load(&c[LEN - 1].n), 2 * rounds + 1);
    printf("run_here: %ld messages through %d nodes run by "
           "wf_graph_run_here, %ld more with a budget of 0\n",
           rounds, LEN, rounds);
    GT_DESTROY(g, f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7]);
    CHECK_OK(wf_pool_destroy(p));
    alarm(0);
}

/* ---- outside_threads, outside_shared ------------------------------------- */

enum { NTHREADS = 4 };

typedef struct {
    wf_pool *pool;
    int id;
    long n;
    /* shared variant */
    wf_graph *g;
    wf_node *in;
    counter *c; /* 2 counters */
} outside_arg;

/* Rounds of 1..64 puts, each followed by a wait. */
static long round_size(long r, int id)
{
    return 1 + (r * 37 + id * 11) % 64;
}

static void *own_graph_thread(void *p)
{
    outside_arg *a = p;
    wf_graph *g = gt_graph(a->pool);
    counter c[2] = {0};
    wf_node *n[3];
    int chain = a->id % 2 == 0;
    if (chain) {
        n[0] = gt_function(g, sizeof(int), sizeof(int), WF_UNLIMITED,
                           WF_QUEUEING, count_pass, &c[0]);
        n[1] = gt_function(g, sizeof(int), 0, WF_SERIAL, WF_QUEUEING,
                           count_pass, &c[1]);
        n[2] = NULL;
        CHECK_OK(wf_make_edge(n[0], n[1]));
    } else {
        n[0] = gt_broadcast(g, sizeof(int));
        n[1] = gt_function(g, sizeof(int), 0, WF_UNLIMITED, WF_QUEUEING,
                           count_pass, &c[0]);
        n[2] = gt_function(g, sizeof(int), 0, WF_UNLIMITED, WF_QUEUEING,
                           count_pass, &c[1]);
        CHECK_OK(wf_make_edge(n[0], n[1]));
        CHECK_OK(wf_make_edge(n[0], n[2]));
    }
    long put = 0, r = 0;
    long long sum = 0;
    while (put < a->n) {
        long k = round_size(r++, a->id);
        for (long i = 0; i < k && put < a->n; i++, put++) {
            gt_put(n[0], (int)put);
            sum += put;
        }
        CHECK_OK(wf_graph_wait_for_all(g));
        for (int i = 0; i < 2; i++) {
            long got = atomic_load(&c[i].n);
            CHECK_MSG(got == put,
                      "thread %d (%s), round %ld: node %d has %ld of %ld",
                      a->id, chain ? "chain" : "broadcast", r, i, got, put);
            CHECK(atomic_load(&c[i].sum) == sum);
        }
    }
    if (chain)
        GT_DESTROY(g, n[0], n[1]);
    else
        GT_DESTROY(g, n[0], n[1], n[2]);
    return NULL;
}

static void outside_threads(void)
{
    watch("outside_threads: 4 threads putting into and waiting on their "
          "own graphs",
          WATCH_S);
    wf_pool *p = gt_pool(2);
    long n = scaled(100000);
    pthread_t th[NTHREADS];
    outside_arg a[NTHREADS];
    for (int i = 0; i < NTHREADS; i++) {
        a[i] = (outside_arg){.pool = p, .id = i, .n = n};
        CHECK(pthread_create(&th[i], NULL, own_graph_thread, &a[i]) == 0);
    }
    for (int i = 0; i < NTHREADS; i++)
        CHECK(pthread_join(th[i], NULL) == 0);
    printf("outside_threads: 4 threads x %ld messages, each on its own graph\n",
           n);
    CHECK_OK(wf_pool_destroy(p));
    alarm(0);
}

/* After a sender's wait, node `node` must have run all `put` of its
 * messages.  If not, say whether the rest were still in flight (they
 * arrive later) or lost. */
static void check_seen(_Atomic long *seen, long put, int id, long round,
                       int node)
{
    long got = atomic_load(seen);
    if (got == put)
        return;
    double t0 = check_now();
    while (atomic_load(seen) < put && check_now() - t0 < 2.0)
        sleep_us(100);
    long later = atomic_load(seen);
    CHECK_MSG(got == put,
              "thread %d, round %ld: wf_graph_wait_for_all returned with "
              "node %d having run %ld of the %ld messages this thread put; "
              "%s",
              id, round, node, got, put,
              later == put ? "the rest ran later: they were still in flight"
                           : "the rest never ran");
}

static void *shared_graph_thread(void *p)
{
    outside_arg *a = p;
    long put = 0, r = 0;
    while (put < a->n) {
        long k = round_size(r++, a->id);
        for (long i = 0; i < k && put < a->n; i++, put++)
            gt_put(a->in, (int)(put << 2 | a->id));
        CHECK_OK(wf_graph_wait_for_all(a->g));
        for (int i = 0; i < 2; i++)
            check_seen(&a->c[i].per_src[a->id], put, a->id, r, i);
    }
    return NULL;
}

static void outside_shared(void)
{
    watch("outside_shared: 4 threads putting into and waiting on one graph",
          WATCH_S);
    wf_pool *p = gt_pool(2);
    wf_graph *g = gt_graph(p);
    counter c[2] = {0};
    wf_node *bc = gt_broadcast(g, sizeof(int));
    wf_node *f0 = gt_function(g, sizeof(int), 0, WF_UNLIMITED, WF_QUEUEING,
                              count_src, &c[0]);
    wf_node *f1 = gt_function(g, sizeof(int), 0, WF_SERIAL, WF_QUEUEING,
                              count_src, &c[1]);
    CHECK_OK(wf_make_edge(bc, f0));
    CHECK_OK(wf_make_edge(bc, f1));
    long n = scaled(100000);
    pthread_t th[NTHREADS];
    outside_arg a[NTHREADS];
    for (int i = 0; i < NTHREADS; i++) {
        a[i] =
            (outside_arg){.pool = p, .id = i, .n = n, .g = g, .in = bc, .c = c};
        CHECK(pthread_create(&th[i], NULL, shared_graph_thread, &a[i]) == 0);
    }
    for (int i = 0; i < NTHREADS; i++)
        CHECK(pthread_join(th[i], NULL) == 0);
    CHECK_OK(wf_graph_wait_for_all(g));
    long long sum = 0;
    for (long v = 0; v < n; v++)
        for (int id = 0; id < NTHREADS; id++)
            sum += v << 2 | id;
    for (int i = 0; i < 2; i++) {
        CHECK_EQ(atomic_load(&c[i].n), NTHREADS * n);
        CHECK(atomic_load(&c[i].sum) == sum);
        for (int id = 0; id < NTHREADS; id++)
            CHECK_EQ(atomic_load(&c[i].per_src[id]), n);
    }
    printf("outside_shared: 4 threads x %ld messages into one graph\n", n);
    GT_DESTROY(g, bc, f0, f1);
    CHECK_OK(wf_pool_destroy(p));
    alarm(0);
}

/* ---- worker_park --------------------------------------------------------- */

typedef struct {
    _Atomic int started, done;
    pthread_t tid;
} sleeper;

static int sleeper_body(const void *in, void *out, void *ctx)
{
    (void)in;
    (void)out;
    sleeper *s = ctx;
    s->tid = pthread_self(); /* read after `started` (acquire) */
    atomic_store(&s->started, 1);
    sleep_us(2000000);
    atomic_store(&s->done, 1);
    return 0;
}

typedef struct {
    wf_task task; /* the submitted variant's frame */
    wf_graph *g;
    sleeper *s;
    int rc, done_at_return, worker, same_thread;
    double cpu, wall;
    _Atomic int finished;
} waiter;

static double thread_cpu(void)
{
    struct timespec ts;
    CHECK(clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void waiter_fn(void *arg)
{
    waiter *w = arg;
    w->worker = wf_worker_index();
    w->same_thread = pthread_equal(pthread_self(), w->s->tid);
    double c0 = thread_cpu(), t0 = check_now();
    w->rc = wf_graph_wait_for_all(w->g);
    w->cpu = thread_cpu() - c0;
    w->wall = check_now() - t0;
    w->done_at_return = atomic_load(&w->s->done);
    atomic_store(&w->finished, 1);
}

static void waiter_task(wf_task *t)
{
    waiter_fn(t);
}

#define MAX_WAIT_CPU 0.05

static waiter park_case(bool submitted)
{
    const char *how = submitted ? "a wf_submit task on a threads = 3 pool"
                                : "a wf_run body on a threads = 2 pool";
    wf_pool *p = gt_pool(submitted ? 3 : 2);
    wf_graph *g = gt_graph(p);
    sleeper s = {0};
    wf_node *f = gt_function(g, sizeof(int), 0, WF_UNLIMITED, WF_QUEUEING,
                             sleeper_body, &s);
    gt_put(f, 1);
    CHECK_MSG(wait_count(&s.started, 1, 10.0),
              "the sleeping body did not start on a background worker in 10 s");
    waiter w = {.g = g, .s = &s};
    if (submitted) {
        CHECK_OK(wf_submit(p, &w.task, waiter_task));
        /* main does not wait on weft: a background worker runs the waiter */
        CHECK_MSG(wait_count(&w.finished, 1, 10.0),
                  "the submitted waiter did not finish in 10 s");
        CHECK_OK(wf_pool_wait_idle(p));
    } else {
        CHECK_OK(wf_run(p, waiter_fn, &w));
    }
    printf("worker_park: %s waited %.3f s (worker index %d): %.4f s of its "
           "thread's CPU (limit %.2f)\n",
           how, w.wall, w.worker, w.cpu, MAX_WAIT_CPU);
    CHECK_OK(w.rc);
    CHECK_MSG(w.done_at_return, "%s: wait_for_all returned before the body",
              how);
    CHECK_MSG(!w.same_thread, "%s: the waiter ran on the sleeper's thread",
              how);
    CHECK_MSG(w.wall > 1.0, "%s: waited only %.3f s", how, w.wall);
    if (submitted)
        CHECK_MSG(w.worker >= 0, "the submitted waiter ran outside the pool");
    GT_DESTROY(g, f);
    CHECK_OK(wf_pool_destroy(p));
    return w;
}

/* Both cases measured before either is judged, so a failure shows both. */
static void worker_park(void)
{
    watch("worker_park: a wf_run body waiting on a graph", WATCH_S);
    waiter a = park_case(false);
    watch("worker_park: a submitted task waiting on a graph", WATCH_S);
    waiter b = park_case(true);
    CHECK_MSG(a.cpu < MAX_WAIT_CPU,
              "the wf_run body burnt %.4f s of CPU in a %.3f s wait", a.cpu,
              a.wall);
    CHECK_MSG(b.cpu < MAX_WAIT_CPU,
              "the submitted task burnt %.4f s of CPU in a %.3f s wait", b.cpu,
              b.wall);
    alarm(0);
}

static const check_scenario scenarios[] = {
    {"stuck_worker", stuck_worker},       {"one_thread", one_thread},
    {"outside_threads", outside_threads}, {"outside_shared", outside_shared},
    {"worker_park", worker_park},         {"run_here", run_here},
};

int main(int argc, char **argv)
{
    CALLER_TEST_MAIN("graph_caller", argc, argv, scenarios);
}
