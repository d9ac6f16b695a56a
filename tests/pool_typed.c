/* SPDX-License-Identifier: Apache-2.0 */
/* Typed tasks (weft/task.h): values, steals, segments, mixing with
 * wf_spawn, errors.
 *
 * fib           fib(22) at 1, 2 and 4 threads, ten times each, against the
 *               iterative value.
 * tree          a tree of tasks with leaves that spin a little, so thieves
 *               take frames, on 4 threads: the sum of its leaves' values
 *               and wf_pool_stats (every spawn counted and run once).
 * wide          one body spawns 3·WF_TASK_SEGMENT + 7 tasks, then syncs
 *               them all (frames in four segments), on 1 and 3 threads;
 *               and a chain of such bodies nested in one another.
 * deep          3000 nested bodies, each with spawns before and after
 *               its call: frames reused across segments (1 and 3 threads).
 * random [N]    N trees (20) of random shape on 4 threads: spawns, calls
 *               and syncs mixed, leaves that spin; node counts checked.
 * mixed         typed bodies that call wf_spawn/wf_join, wf_parallel_for
 *               and WF_RUN, and untyped tasks that call WF_RUN: every
 *               value right.
 * helpers       spawns and syncs in helper functions (WF_CONTEXT): a
 *               helper spawns a row of children that the body syncs, the
 *               body spawns what a helper syncs, a helper passes the
 *               context on, and one leaves spawns for the body's implicit
 *               sync; at 1 and 4 threads, leaves that spin (steals).
 * void_args     WF_VOID_TASK, a task of five parameters, and one of eight
 *               (a value and 80 bytes of arguments, the frame's second
 *               line used) whose frames thieves take: every argument
 *               arrives whole.
 * registers     integers, doubles and a long double live across spawns
 *               and syncs whose slow paths run (frames published and
 *               stolen, 4 threads): the value equals the sequential one.
 * popped        frames published whole by a segment's overflow, which an
 *               untyped join run before their syncs pops and runs: each
 *               body runs once (1 and 2 threads).
 * implicit_sync bodies that return with spawns not synced (four spawns
 *               and no sync; leaks under a caller's own pending spawn;
 *               more than a segment of them; leaves that spin, so that
 *               thieves hold some): every spawn runs once, before the
 *               body returns, at 1, 2 and 4 threads.
 * errors        WF_RUN on no pool is WF_EINVAL; a sync that names another
 *               task type, a sync with nothing spawned and a sync of the
 *               caller's spawn each abort with a message naming the task
 *               (child processes). */
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

/* Every sync checks the task type it names (the errors scenario). */
#define WF_TASK_CHECKS 1
#include "check.h"
#include "fib_task.h"
#include <weft.h>

WF_TASK(long, fib, int, n)
{
    if (n < 2)
        return n;
    WF_SPAWN(fib, n - 1);
    long b = WF_CALL(fib, n - 2);
    long a = WF_SYNC(fib);
    return a + b;
}

static void fib_values(void)
{
    static const unsigned threads[] = {1, 2, 4};
    for (size_t i = 0; i < 3; i++) {
        wf_pool *p = check_pool(threads[i]);
        for (int k = 0; k < 10; k++) {
            long r = -1;
            CHECK_OK(WF_RUN(p, fib, &r, 22));
            CHECK_EQ(r, fib_seq(22));
        }
        CHECK_OK(wf_pool_destroy(p));
    }
}

/* ---- tree: leaves spin, so the frames above them get stolen ----------- */

static unsigned long spin(unsigned long x)
{
    for (int i = 0; i < 2000; i++)
        x = x * 6364136223846793005u + 1442695040888963407u;
    return x;
}

/* The sum of the leaf numbers of a complete binary tree of depth d whose
 * leftmost leaf is `first`; each leaf also spins. */
WF_TASK(unsigned long, tree, int, d, unsigned long, first)
{
    if (d == 0) {
        volatile unsigned long sink = spin(first);
        (void)sink;
        return first;
    }
    unsigned long half = 1ul << (d - 1);
    WF_SPAWN(tree, d - 1, first + half);
    unsigned long left = WF_CALL(tree, d - 1, first);
    return left + WF_SYNC(tree);
}

static void tree_sum(void)
{
    wf_pool *p = check_pool(4);
    for (int k = 0; k < 5; k++) {
        unsigned long r = 0, n = 1ul << 12;
        CHECK_OK(WF_RUN(p, tree, &r, 12, 0ul));
        CHECK_EQ(r, n * (n - 1) / 2);
    }
    wf_worker_stats st[64];
    int slots = wf_pool_stats(p, st, 64);
    CHECK(slots > 0 && slots <= 64);
    uint64_t spawns = 0, run = 0, steals = 0;
    for (int i = 0; i < slots; i++) {
        spawns += st[i].spawns;
        run += st[i].tasks_run;
        steals += st[i].steals;
    }
    /* Of 4095 spawns a run, those published are counted, and each ran
     * once, here or by a thief (wf_run's function is not a task). */
    CHECK(spawns <= (uint64_t)5 * 4095 && spawns >= steals);
    CHECK_EQ(run, spawns);
    printf("    tree: %llu spawns, %llu steals\n", (unsigned long long)spawns,
           (unsigned long long)steals);
    CHECK_OK(wf_pool_destroy(p));
}

/* ---- registers: values live across the slow paths --------------------- */

/* The body's arithmetic, shared by the typed task and the sequential
 * reference: integers, doubles and a long double (x87) that the body keeps
 * across its spawn and its sync, whatever registers the compiler gives
 * them, so a slow path that changed one would change the result. */
#define REGS_BODY(SPAWN, CALL, SYNC)                                           \
    if (d == 0) {                                                              \
        volatile unsigned long sink = spin((unsigned long)x);                  \
        (void)sink;                                                            \
        return x;                                                              \
    }                                                                          \
    long i = (long)x ^ d;                                                      \
    unsigned long u = (unsigned long)d * 0x9e3779b97f4a7c15u;                  \
    double a = x * 1.25 + d;                                                   \
    long double la = (long double)x / 3.0L;                                    \
    SPAWN;                                                                     \
    double b = CALL;                                                           \
    double c = SYNC;                                                           \
    return a + b * 0.5 + c + (double)(la * 0.5L) + (double)(i & 7) +           \
           (double)(u % 11)

static double regs_seq(int d, double x)
{
    REGS_BODY((void)0, regs_seq(d - 1, x * 0.5), regs_seq(d - 1, x + 1.0));
}

WF_TASK(double, regs, int, d, double, x)
{
    REGS_BODY(WF_SPAWN(regs, d - 1, x + 1.0), WF_CALL(regs, d - 1, x * 0.5),
              WF_SYNC(regs));
}

static void regs_counts(wf_pool *p, uint64_t *publishes, uint64_t *steals)
{
    wf_worker_stats st[64];
    int slots = wf_pool_stats(p, st, 64);
    *publishes = *steals = 0;
    for (int i = 0; i < slots; i++) {
        *publishes += st[i].publishes;
        *steals += st[i].steals;
    }
}

static void live_registers(void)
{
    double want = regs_seq(12, 1.0);
    wf_pool *p = check_pool(4);
    uint64_t publishes = 0, steals = 0;
    /* Until the spawns' and the syncs' slow paths have run (frames
     * published at requests, and stolen), at least 5 runs. */
    for (int k = 0; k < 5 || ((publishes == 0 || steals == 0) && k < 200);
         k++) {
        double r = 0;
        CHECK_OK(WF_RUN(p, regs, &r, 12, 1.0));
        CHECK_MSG(r == want, "run %d: %.17g, not %.17g", k, r, want);
        regs_counts(p, &publishes, &steals);
    }
    CHECK(publishes > 0 && steals > 0);
    printf("    registers: %llu publishes, %llu steals\n",
           (unsigned long long)publishes, (unsigned long long)steals);
    CHECK_OK(wf_pool_destroy(p));
}

/* ---- wide: more frames than one segment -------------------------------- */

#define WIDE (3 * WF_TASK_SEGMENT + 7)

WF_TASK(long, square, long, i)
{
    return i * i;
}

/* Spawn WIDE squares, then sync them newest first; with depth > 0 the
 * middle of the spawns also runs a nested wide body. */
WF_TASK(long, wide, int, depth)
{
    long sum = 0;
    for (long i = 0; i < WIDE; i++) {
        WF_SPAWN(square, i);
        if (depth > 0 && i == WIDE / 2)
            sum += WF_CALL(wide, depth - 1);
    }
    for (long i = WIDE - 1; i >= 0; i--) {
        long v = WF_SYNC(square);
        CHECK_EQ(v, i * i);
        sum += v;
    }
    return sum;
}

static long wide_sum(int depth)
{
    long one = 0;
    for (long i = 0; i < WIDE; i++)
        one += i * i;
    return one * (depth + 1);
}

static void wide_segments(void)
{
    static const unsigned threads[] = {1, 3};
    for (size_t i = 0; i < 2; i++) {
        wf_pool *p = check_pool(threads[i]);
        for (int depth = 0; depth < 3; depth++) {
            long r = 0;
            CHECK_OK(WF_RUN(p, wide, &r, depth));
            CHECK_EQ(r, wide_sum(depth));
        }
        CHECK_OK(wf_pool_destroy(p));
    }
}

/* A chain of bodies, each with one spawn pending across the call below it
 * and twenty more after it returns: the callees fill segment after
 * segment and come back, and each caller's later spawns land in frames
 * its callees published and synced. */
WF_TASK(long, one, int, x)
{
    return x;
}

WF_TASK(long, deep, int, d)
{
    if (d == 0)
        return 0;
    WF_SPAWN(one, 1);
    long r = WF_CALL(deep, d - 1);
    r += WF_SYNC(one);
    for (int i = 0; i < 20; i++)
        WF_SPAWN(one, 1);
    for (int i = 0; i < 20; i++)
        r += WF_SYNC(one);
    return r - 20;
}

static void deep_chain(void)
{
    static const unsigned threads[] = {1, 3};
    for (size_t i = 0; i < 2; i++) {
        wf_pool *p = check_pool(threads[i]);
        for (int d = 1000; d <= 3000; d += 1000) {
            long r = 0;
            CHECK_OK(WF_RUN(p, deep, &r, d));
            CHECK_EQ(r, d);
        }
        CHECK_OK(wf_pool_destroy(p));
    }
}

/* ---- random: trees of random shape, stolen from at random ------------- */

/* splitmix64: the shape of the tree below a node comes from its seed. */
static uint64_t mix(uint64_t x)
{
    x += 0x9E3779B97F4A7C15u;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9u;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBu;
    return x ^ (x >> 31);
}

/* The number of nodes of the tree of seed s at depth d: 0 to 4 children,
 * each spawned, called or spawned after a call, synced newest first;
 * some leaves spin so that thieves find work. */
static unsigned long rnodes_seq(uint64_t s, int d)
{
    unsigned long n = 1;
    unsigned kids = d > 0 ? (unsigned)(s % 5) : 0;
    for (unsigned i = 0; i < kids; i++)
        n += rnodes_seq(mix(s + i), d - 1);
    return n;
}

WF_TASK(unsigned long, rnodes, uint64_t, s, int, d)
{
    unsigned long n = 1;
    unsigned kids = d > 0 ? (unsigned)(s % 5) : 0;
    if (kids == 0 && s % 7 == 0) {
        volatile unsigned long sink = spin(s);
        (void)sink;
    }
    unsigned spawned = 0;
    for (unsigned i = 0; i < kids; i++) {
        if (mix(s ^ i) % 3 == 0) {
            n += WF_CALL(rnodes, mix(s + i), d - 1);
        } else {
            WF_SPAWN(rnodes, mix(s + i), d - 1);
            spawned++;
        }
    }
    while (spawned-- > 0)
        n += WF_SYNC(rnodes);
    return n;
}

static void random_trees(void)
{
    long rounds = check_arg_long(0, 20);
    wf_pool *p = check_pool(4);
    uint64_t seed = 0x5eed;
    for (long k = 0; k < rounds; k++) {
        uint64_t s = check_rand(&seed);
        int d = 8 + (int)(s % 7);
        unsigned long r = 0;
        CHECK_OK(WF_RUN(p, rnodes, &r, s, d));
        CHECK_EQ(r, rnodes_seq(s, d));
    }
    wf_worker_stats st[64];
    int slots = wf_pool_stats(p, st, 64);
    uint64_t steals = 0;
    for (int i = 0; i < slots && i < 64; i++)
        steals += st[i].steals;
    printf("    random: %ld trees, %llu steals\n", rounds,
           (unsigned long long)steals);
    CHECK_OK(wf_pool_destroy(p));
}

/* ---- mixed: typed and untyped on the same workers ----------------------- */

typedef struct {
    wf_task task;
    int n;
    long out;
} untyped_frame;

static wf_pool *mixed_pool;

/* An untyped task whose body runs a typed fib through WF_RUN (nested: the
 * calling thread is already in the pool). */
static void untyped_body(wf_task *t)
{
    untyped_frame *f = (untyped_frame *)t;
    CHECK_OK(WF_RUN(mixed_pool, fib, &f->out, f->n));
}

typedef struct {
    _Atomic long sum;
} range_acc;

static void add_range(size_t lo, size_t hi, void *arg)
{
    range_acc *acc = arg;
    for (size_t i = lo; i < hi; i++)
        atomic_fetch_add_explicit(&acc->sum, (long)i, memory_order_relaxed);
}

/* fib(n) in three ways at once from a typed body: a typed spawn, an
 * untyped spawn that runs typed code, and a parallel_for. */
WF_TASK(long, mixed, int, n)
{
    if (n < 8)
        return WF_CALL(fib, n);
    WF_SPAWN(mixed, n - 1);
    untyped_frame u = {.n = n - 2};
    CHECK_OK(wf_spawn(&u.task, untyped_body));
    range_acc acc = {0};
    CHECK_OK(wf_parallel_for(mixed_pool, 0, 100, 7, add_range, &acc));
    CHECK_EQ(atomic_load(&acc.sum), 4950);
    long a = WF_SYNC(mixed);
    CHECK_OK(wf_join(&u.task));
    return a + u.out;
}

static void mixed_layers(void)
{
    static const unsigned threads[] = {1, 2, 4};
    for (size_t i = 0; i < 3; i++) {
        mixed_pool = check_pool(threads[i]);
        for (int k = 0; k < 3; k++) {
            long r = 0;
            CHECK_OK(WF_RUN(mixed_pool, mixed, &r, 18));
            CHECK_EQ(r, fib_seq(18));
        }
        CHECK_OK(wf_pool_destroy(mixed_pool));
    }
}

/* ---- published frames that another join runs ------------------------------ */

static _Atomic long popped_runs;

WF_VOID_TASK(count_run, int, i)
{
    (void)i;
    atomic_fetch_add_explicit(&popped_runs, 1, memory_order_relaxed);
}

static void noop_body(wf_task *t)
{
    (void)t;
}

/* An untyped task published first, then a segment of typed frames
 * published whole by the spawn that overflows it; joining the untyped
 * task pops the deque from its newest end, so it runs the typed frames
 * (their owner runs them, as it would any task of its own) before it
 * finds its own.  The typed syncs after it must see those frames as run,
 * not call their bodies again. */
WF_TASK(long, popped, int, k)
{
    wf_task u;
    CHECK_OK(wf_spawn(&u, noop_body));
    wf_blocking_begin(); /* publishes u */
    wf_blocking_end();
    for (int i = 0; i < k; i++)
        WF_SPAWN(count_run, i);
    CHECK_OK(wf_join(&u));
    for (int i = 0; i < k; i++)
        WF_SYNC(count_run);
    return k;
}

static void popped_frames(void)
{
    static const unsigned threads[] = {1, 2};
    for (size_t i = 0; i < 2; i++) {
        wf_pool *p = check_pool(threads[i]);
        for (int rep = 0; rep < 3; rep++) {
            atomic_store(&popped_runs, 0);
            long r = 0;
            int k = WF_TASK_SEGMENT + 5;
            CHECK_OK(WF_RUN(p, popped, &r, k));
            CHECK_EQ(r, k);
            CHECK_EQ(atomic_load(&popped_runs), k); /* each body once */
        }
        CHECK_OK(wf_pool_destroy(p));
    }
}

/* ---- void tasks, five and eight parameters -------------------------------- */

static _Atomic long visits;

WF_VOID_TASK(visit, int, d)
{
    atomic_fetch_add_explicit(&visits, 1, memory_order_relaxed);
    if (d == 0)
        return;
    WF_SPAWN(visit, d - 1);
    WF_CALL(visit, d - 1);
    WF_SYNC(visit);
}

WF_TASK(int, five, int, a, int, b, short, c, char, d, int, e)
{
    if (a == 0)
        return b + c + d + e;
    WF_SPAWN(five, a - 1, b, c, d, e);
    int x = WF_CALL(five, a - 1, b + 1, c, d, e);
    return x + WF_SYNC(five);
}

/* Eight parameters: a depth, a key and six pointers into `cells`, each
 * a function of the key, checked in every body, stolen ones included (the
 * leaves spin so that thieves take frames). */
#define EIGHT_DEPTH 12
static long cells[(2l << EIGHT_DEPTH) + 8];

WF_TASK(long, eight, int, d, long, key, const long *, p1, const long *, p2,
        const long *, p3, const long *, p4, const long *, p5, const long *, p6)
{
    const long *ps[] = {p1, p2, p3, p4, p5, p6};
    for (int i = 0; i < 6; i++)
        if (ps[i] != cells + key + i)
            return -1000000; /* an argument did not arrive whole */
    if (d == 0)
        return key + (long)(spin((unsigned long)key) & 1);
    const long *q = cells + 2 * key, *r = q + 1;
    WF_SPAWN(eight, d - 1, 2 * key, q, q + 1, q + 2, q + 3, q + 4, q + 5);
    long b = WF_CALL(eight, d - 1, 2 * key + 1, r, r + 1, r + 2, r + 3, r + 4,
                     r + 5);
    return WF_SYNC(eight) + b;
}

static long eight_seq(int d, long key)
{
    if (d == 0)
        return key + (long)(spin((unsigned long)key) & 1);
    return eight_seq(d - 1, 2 * key) + eight_seq(d - 1, 2 * key + 1);
}

static void void_args(void)
{
    wf_pool *p = check_pool(2);
    atomic_store(&visits, 0);
    CHECK_OK(WF_RUN(p, visit, NULL, 14));
    CHECK_EQ(atomic_load(&visits), (1l << 15) - 1);
    int r = 0;
    CHECK_OK(WF_RUN(p, five, &r, 10, 1, 2, 3, 4));
    /* 1024 leaves of 1 + 2 + 3 + 4, plus each leaf's count of left
     * turns: 10 · 512. */
    CHECK_EQ(r, 1024 * 10 + 10 * 512);
    CHECK_OK(wf_pool_destroy(p));
    p = check_pool(4);
    const long *c = cells + 1;
    for (int round = 0; round < 5; round++) {
        long v = 0;
        CHECK_OK(WF_RUN(p, eight, &v, EIGHT_DEPTH, 1, c, c + 1, c + 2, c + 3,
                        c + 4, c + 5));
        CHECK_EQ(v, eight_seq(EIGHT_DEPTH, 1));
    }
    CHECK_OK(wf_pool_destroy(p));
}

/* ---- helpers: spawns and syncs outside the body (WF_CONTEXT) ------------ */

static _Atomic long helper_leaves;

WF_TASK(long, hleaf, int, i)
{
    atomic_fetch_add_explicit(&helper_leaves, 1, memory_order_relaxed);
    return (long)i + (long)(spin((unsigned long)i) & 1);
}

static long hleaf_seq(int i)
{
    return (long)i + (long)(spin((unsigned long)i) & 1);
}

/* Spawn hleaf(lo .. hi - 1), newest last. */
static void spawn_leaves(WF_CONTEXT, int lo, int hi)
{
    for (int i = lo; i < hi; i++)
        WF_SPAWN(hleaf, i);
}

/* Sync k hleaf spawns of the caller's, through one more helper. */
static long sync_leaves(WF_CONTEXT, int k);
static long sync_one(WF_CONTEXT)
{
    return WF_SYNC(hleaf);
}
static long sync_leaves(WF_CONTEXT, int k)
{
    long sum = 0;
    while (k-- > 0)
        sum += sync_one(WF_CONTEXT_ARG);
    return sum;
}

/* Rows of leaves spawned by a helper and synced by the body, then leaves
 * the body spawns and a helper syncs, then a row left for the implicit
 * sync; and a recursive spawn of itself in between. */
WF_TASK(long, hrow, int, d, int, width)
{
    long sum = 0;
    spawn_leaves(WF_CONTEXT_ARG, 0, width);
    if (d > 0)
        WF_SPAWN(hrow, d - 1, width);
    long below = d > 0 ? WF_CALL(hrow, d - 1, width) : 0;
    if (d > 0)
        below += WF_SYNC(hrow);
    for (int k = 0; k < width; k++)
        sum += WF_SYNC(hleaf);
    for (int i = 0; i < width; i++)
        WF_SPAWN(hleaf, i);
    sum += sync_leaves(WF_CONTEXT_ARG, width);
    spawn_leaves(WF_CONTEXT_ARG, 0, 3); /* synced when hrow returns */
    return sum + below;
}

static long hrow_seq(int d, int width)
{
    long row = 0;
    for (int i = 0; i < width; i++)
        row += hleaf_seq(i);
    return 2 * row + (d > 0 ? 2 * hrow_seq(d - 1, width) : 0);
}

static long hrow_count(int d, int width)
{
    return 2 * width + 3 + (d > 0 ? 2 * hrow_count(d - 1, width) : 0);
}

static void helpers(void)
{
    static const unsigned threads[] = {1, 4};
    for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++) {
        wf_pool *p = check_pool(threads[t]);
        for (int round = 0; round < 5; round++) {
            atomic_store(&helper_leaves, 0);
            long v = 0;
            CHECK_OK(WF_RUN(p, hrow, &v, 6, 9));
            CHECK_EQ(v, hrow_seq(6, 9));
            CHECK_EQ(atomic_load(&helper_leaves), hrow_count(6, 9));
        }
        CHECK_OK(wf_pool_destroy(p));
    }
}

/* ---- implicit_sync: spawns a body does not sync ------------------------ */

static _Atomic long forgotten_runs;

WF_VOID_TASK(forgotten, int, spins)
{
    for (int i = 0; i < spins; i++) {
        volatile unsigned long sink = spin((unsigned long)i);
        (void)sink;
    }
    atomic_fetch_add_explicit(&forgotten_runs, 1, memory_order_relaxed);
}

/* Spawns n tasks and returns without a sync. */
WF_TASK(int, forget, int, n, int, spins)
{
    for (int i = 0; i < n; i++)
        WF_SPAWN(forgotten, spins);
    return n;
}

/* With a spawn of its own pending, calls a body that forgets n spawns,
 * then spawns again: the later spawn lands where the forgotten frames
 * were, and each sync must get its own task's value. */
WF_TASK(long, around_forget, int, n, int, spins)
{
    WF_SPAWN(square, 7);
    long r = WF_CALL(forget, n, spins);
    WF_SPAWN(square, 5);
    r += WF_SYNC(square); /* 25 */
    r += WF_SYNC(square); /* 49 */
    return r;
}

/* A tree whose every node also forgets two spins-long spawns. */
WF_TASK(long, forgetful_tree, int, d, int, spins)
{
    WF_SPAWN(forgotten, spins);
    WF_SPAWN(forgotten, spins);
    if (d == 0)
        return 1;
    WF_SPAWN(forgetful_tree, d - 1, spins);
    long a = WF_CALL(forgetful_tree, d - 1, spins);
    return a + WF_SYNC(forgetful_tree);
}

static void implicit_sync(void)
{
    static const unsigned threads[] = {1, 2, 4};
    for (size_t i = 0; i < 3; i++) {
        wf_pool *p = check_pool(threads[i]);
        for (int spins = 0; spins <= 4; spins += 4) {
            /* Four spawns, no sync: the four run before WF_RUN returns. */
            atomic_store(&forgotten_runs, 0);
            int four = 0;
            CHECK_OK(WF_RUN(p, forget, &four, 4, spins));
            CHECK_EQ(four, 4);
            CHECK_EQ(atomic_load(&forgotten_runs), 4);
            /* Under a pending spawn, a few and more than a segment. */
            static const int ns[] = {1, 3, WF_TASK_SEGMENT + 9};
            for (size_t k = 0; k < 3; k++) {
                atomic_store(&forgotten_runs, 0);
                long r = 0;
                CHECK_OK(WF_RUN(p, around_forget, &r, ns[k], spins));
                CHECK_EQ(r, ns[k] + 25 + 49);
                CHECK_EQ(atomic_load(&forgotten_runs), ns[k]);
            }
            /* 2^9 leaves, 2 forgotten spawns at each of 2^10 - 1 nodes. */
            atomic_store(&forgotten_runs, 0);
            long leaves = 0;
            CHECK_OK(WF_RUN(p, forgetful_tree, &leaves, 9, spins));
            CHECK_EQ(leaves, 512);
            CHECK_EQ(atomic_load(&forgotten_runs), 2 * 1023);
        }
        CHECK_OK(wf_pool_destroy(p));
    }
}

/* ---- errors ------------------------------------------------------------- */

/* Spawns a square, then syncs it as a fib. */
WF_TASK(long, wrong_sync, int, n)
{
    WF_SPAWN(square, n);
    return WF_SYNC(fib);
}

static void wrong_sync_child(void *arg)
{
    (void)arg;
    wf_pool *p = check_pool(2);
    long r;
    (void)WF_RUN(p, wrong_sync, &r, 3);
}

/* Syncs with nothing spawned. */
WF_TASK(long, sync_nothing, int, n)
{
    (void)n;
    return WF_SYNC(square);
}

/* Spawns a square, then calls a body that syncs it. */
WF_TASK(long, sync_for_callee, int, n)
{
    WF_SPAWN(square, n);
    long r = WF_CALL(sync_nothing, n);
    return r + WF_SYNC(square);
}

static void run_sync_nothing(void *arg)
{
    (void)arg;
    wf_pool *p = check_pool(2);
    long r;
    (void)WF_RUN(p, sync_nothing, &r, 3);
}

static void run_sync_for_callee(void *arg)
{
    (void)arg;
    wf_pool *p = check_pool(2);
    long r;
    (void)WF_RUN(p, sync_for_callee, &r, 3);
}

/* fn aborts, with a message that contains said. */
static void expect_abort(void (*fn)(void *), const char *said)
{
    char err[4096];
    int st = check_child_stderr(fn, NULL, err, sizeof err);
    CHECK_MSG(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT,
              "the child did not abort (status %#x): %s", st, err);
    CHECK_MSG(strstr(err, said) != NULL, "unexpected message: %s", err);
}

static void errors(void)
{
    long r = 7;
    CHECK_ERR(WF_RUN(NULL, fib, &r, 10), WF_EINVAL);
    CHECK_EQ(r, 7);
    expect_abort(wrong_sync_child,
                 "WF_SYNC(fib) found a frame of another task type");
    expect_abort(run_sync_nothing, "WF_SYNC(square) in a body with no spawn "
                                   "of its own left to sync");
    expect_abort(run_sync_for_callee, "WF_SYNC(square) in a body with no "
                                      "spawn of its own left to sync");
}

static const check_scenario scenarios[] = {
    {"fib", fib_values},       {"tree", tree_sum},
    {"wide", wide_segments},   {"deep", deep_chain},
    {"mixed", mixed_layers},   {"random", random_trees},
    {"helpers", helpers},      {"void_args", void_args},
    {"errors", errors},        {"registers", live_registers},
    {"popped", popped_frames}, {"implicit_sync", implicit_sync},
};

int main(int argc, char **argv)
{
    return CHECK_RUN_SCENARIOS("pool_typed", argc, argv, scenarios);
}
