/* SPDX-License-Identifier: Apache-2.0 */
/* mpi_uts: Unbalanced Tree Search (Olivier et al., LCPC 2006) across MPI
 * ranks, with a weft pool inside each rank.
 *
 *   mpirun -np 2 ./mpi_uts [--kids N] [--threads T] [--time] [--expect C]
 *
 * The tree is the binomial tree of bench/uts.c: the root has N children
 * (default 2000); every other node has 8 children with probability
 * 0.124875, else none; a node's "randomness" is a hash of its id, so the
 * tree is the same on every run, whoever visits which node.  Its subtrees
 * differ wildly in size and nothing says in advance how big one is: the
 * ranks must balance the work as they go.
 *
 * Inside a rank: a stack of subtree roots.  The main thread takes a batch
 * from it and counts the batch on the pool (wf_parallel_for over the
 * batch, fork-join inside each subtree).  Below SPLIT_DEPTH levels of a
 * subtree, the children are not visited but pushed on the stack as new
 * roots, so no piece of work stays too big to be shared.
 *
 * Between ranks: each rank starts with every P-th child of the root.  A
 * rank whose stack runs dry asks another (the next one round the ring
 * after its last victim) for work; between two batches, a rank that has
 * some answers each request with half of its stack (the oldest roots,
 * nearest the tree's root, so probably the largest), or with "none".
 * Termination: Dijkstra and Safra's token algorithm (EWD998): every rank
 * counts the work messages it sent minus those it received and turns
 * black when it receives one; a token goes round the ring from rank 0,
 * passed on only by a rank with nothing to do, adding up the counts, and
 * rank 0 declares the end when the token comes back white with a sum of 0.
 * A rank with nothing to do polls with a growing sleep (MPI has no wait
 * that sleeps), so it costs next to no CPU.
 *
 * Every MPI call is made by the main thread: MPI_THREAD_FUNNELED is
 * enough.  Rank 0 counts the tree again sequentially (or takes
 * --expect) and prints, e.g.:
 *   mpi_uts: 2 ranks x 1 thread: 2376043 nodes, same as sequential (ok) */
#define _POSIX_C_SOURCE 200809L /* nanosleep, under -std=c11 */
#include <mpi.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <weft.h>

#define M 8            /* children of a node that has any */
#define Q 0.124875     /* probability that a node has children */
#define WORK 8         /* hash rounds per node */
#define SPLIT_DEPTH 16 /* levels of a subtree counted in one piece */
#define BATCH 32       /* subtree roots per round on the pool */
#define MAX_SHARE 4096 /* roots sent in one answer */

enum { TAG_REQUEST = 1, TAG_WORK, TAG_NONE, TAG_TOKEN, TAG_DONE };

static uint64_t threshold; /* Q scaled to the hash's 64-bit range */

/* splitmix64's finaliser, as bench/bench.h: the same tree as the bench. */
static uint64_t mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15u;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9u;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebu;
    return x ^ (x >> 31);
}

static uint64_t node_hash(uint64_t id)
{
    for (int i = 0; i < WORK; i++)
        id = mix64(id);
    return id;
}

static uint64_t child_id(uint64_t parent_hash, uint32_t i)
{
    return mix64(parent_hash + 0x632be59bd9b4e019u * (i + 1u));
}

/* ---- the sequential count, to check against ------------------------------ */

static uint64_t seq_visit(uint64_t id)
{
    uint64_t h = node_hash(id);
    if (h >= threshold)
        return 1;
    uint64_t n = 1;
    for (uint32_t i = 0; i < M; i++)
        n += seq_visit(child_id(h, i));
    return n;
}

static uint64_t seq_count(uint64_t seed, uint32_t kids)
{
    uint64_t h = node_hash(seed), n = 1;
    for (uint32_t i = 0; i < kids; i++)
        n += seq_visit(child_id(h, i));
    return n;
}

/* ---- this rank's stack of subtree roots ---------------------------------- */

typedef struct {
    uint64_t *ids;
    size_t n, cap;
    pthread_mutex_t mu; /* pool workers push what they split off */
} stack;

static stack work = {NULL, 0, 0, PTHREAD_MUTEX_INITIALIZER};

static void push_locked(uint64_t id)
{
    if (work.n == work.cap) {
        work.cap = work.cap ? work.cap * 2 : 1024;
        work.ids = realloc(work.ids, work.cap * sizeof *work.ids);
        if (work.ids == NULL) {
            fprintf(stderr, "mpi_uts: out of memory\n");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    work.ids[work.n++] = id;
}

/* ---- counting on the pool ------------------------------------------------ */

typedef struct {
    wf_task task;
    uint64_t hash;
    uint32_t lo, hi;
    int depth;
    uint64_t out;
} kids_frame;

static uint64_t visit(uint64_t id, int depth);

static uint64_t kids(uint64_t hash, uint32_t lo, uint32_t hi, int depth);

static void kids_task(wf_task *t)
{
    kids_frame *f = (kids_frame *)t;
    f->out = kids(f->hash, f->lo, f->hi, f->depth);
}

/* Children [lo, hi) of a node: halves, one spawned, as bench/uts.c. */
static uint64_t kids(uint64_t hash, uint32_t lo, uint32_t hi, int depth)
{
    if (hi - lo == 1)
        return visit(child_id(hash, lo), depth);
    uint32_t mid = lo + (hi - lo) / 2;
    kids_frame upper = {.hash = hash, .lo = mid, .hi = hi, .depth = depth};
    wf_spawn(&upper.task, kids_task);
    uint64_t lower = kids(hash, lo, mid, depth);
    wf_join(&upper.task);
    return lower + upper.out;
}

static uint64_t visit(uint64_t id, int depth)
{
    uint64_t h = node_hash(id);
    if (h >= threshold)
        return 1;
    if (depth == SPLIT_DEPTH) { /* deep enough: the children become roots */
        pthread_mutex_lock(&work.mu);
        for (uint32_t i = 0; i < M; i++)
            push_locked(child_id(h, i));
        pthread_mutex_unlock(&work.mu);
        return 1;
    }
    return 1 + kids(h, 0, M, depth + 1);
}

typedef struct {
    uint64_t ids[BATCH];
    uint64_t counts[BATCH];
    size_t n;
} batch;

static void count_range(size_t begin, size_t end, void *ctx)
{
    batch *b = ctx;
    for (size_t i = begin; i < end; i++)
        b->counts[i] = visit(b->ids[i], 0);
}

/* ---- between ranks ------------------------------------------------------- */

typedef struct {
    int rank, size;
    long count;     /* work messages sent minus received (Safra) */
    bool black;     /* received work since it last passed the token */
    bool has_token; /* holds the token, waiting to be idle */
    long token_q;
    int token_black;
    bool token_out; /* rank 0: a token is going round */
    bool asked;     /* a request of ours is unanswered */
    int victim;
    bool done;
} peer_state;

/* Answer a request with half of the stack, or "none". */
static void answer(peer_state *s, int who)
{
    static uint64_t share[MAX_SHARE];
    pthread_mutex_lock(&work.mu);
    size_t give = work.n / 2;
    if (give > MAX_SHARE)
        give = MAX_SHARE;
    memcpy(share, work.ids, give * sizeof *share); /* the oldest */
    memmove(work.ids, work.ids + give, (work.n - give) * sizeof *work.ids);
    work.n -= give;
    pthread_mutex_unlock(&work.mu);
    if (give == 0) {
        MPI_Send(NULL, 0, MPI_BYTE, who, TAG_NONE, MPI_COMM_WORLD);
        return;
    }
    s->count++; /* a basic message of Safra's algorithm */
    MPI_Send(share, (int)give, MPI_UINT64_T, who, TAG_WORK, MPI_COMM_WORLD);
}

static void send_token(peer_state *s, long q, int black)
{
    long t[2] = {q, black};
    MPI_Send(t, 2, MPI_LONG, (s->rank + 1) % s->size, TAG_TOKEN,
             MPI_COMM_WORLD);
}

/* Handle one message, if any.  Returns its tag, or 0 if there was none. */
static int poll_one(peer_state *s)
{
    int flag;
    MPI_Status st;
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
    if (!flag)
        return 0;
    int n;
    MPI_Get_count(&st, MPI_BYTE, &n);
    switch (st.MPI_TAG) {
    case TAG_REQUEST:
        MPI_Recv(NULL, 0, MPI_BYTE, st.MPI_SOURCE, TAG_REQUEST, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
        answer(s, st.MPI_SOURCE);
        break;
    case TAG_WORK: {
        static uint64_t got[MAX_SHARE];
        int k = n / (int)sizeof(uint64_t);
        MPI_Recv(got, k, MPI_UINT64_T, st.MPI_SOURCE, TAG_WORK, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
        pthread_mutex_lock(&work.mu);
        for (int i = 0; i < k; i++)
            push_locked(got[i]);
        pthread_mutex_unlock(&work.mu);
        s->count--;
        s->black = true;
        s->asked = false;
        break;
    }
    case TAG_NONE:
        MPI_Recv(NULL, 0, MPI_BYTE, st.MPI_SOURCE, TAG_NONE, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
        s->asked = false;
        break;
    case TAG_TOKEN: {
        long t[2];
        MPI_Recv(t, 2, MPI_LONG, st.MPI_SOURCE, TAG_TOKEN, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
        s->has_token = true;
        s->token_q = t[0];
        s->token_black = (int)t[1];
        break;
    }
    case TAG_DONE:
        MPI_Recv(NULL, 0, MPI_BYTE, st.MPI_SOURCE, TAG_DONE, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
        s->done = true;
        break;
    }
    return st.MPI_TAG;
}

/* Idle: pass the token on (EWD998's rules), or decide the end (rank 0). */
static void idle_token(peer_state *s)
{
    if (s->rank == 0) {
        if (s->has_token) {
            s->has_token = false;
            s->token_out = false;
            if (!s->token_black && !s->black && s->token_q + s->count == 0) {
                for (int r = 1; r < s->size; r++)
                    MPI_Send(NULL, 0, MPI_BYTE, r, TAG_DONE, MPI_COMM_WORLD);
                s->done = true;
                return;
            }
        }
        if (!s->token_out) { /* start a round */
            s->token_out = true;
            s->black = false;
            send_token(s, 0, 0);
        }
    } else if (s->has_token) {
        s->has_token = false;
        send_token(s, s->token_q + s->count, s->token_black || s->black);
        s->black = false;
    }
}

static void sleep_ns(long ns)
{
    struct timespec ts = {0, ns};
    nanosleep(&ts, NULL);
}

static long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

/* 1 us, doubling, at most 1 ms. */
static long longer(long backoff)
{
    return backoff == 0 ? 1000 : backoff < 1000000 ? backoff * 2 : backoff;
}

/* ---- the rank's loop ----------------------------------------------------- */

typedef struct {
    wf_pool *pool;
    uint64_t nodes;  /* counted by this rank */
    long starved_ns; /* time with an empty stack, before the end */
} rank_state;

static void run_batch(void *arg)
{
    batch *b = arg;
    wf_parallel_for(wf_current_pool(), 0, b->n, 1, count_range, b);
}

static void traverse(rank_state *r, peer_state *s)
{
    long backoff = 0, ask_at = 0, starved_at = 0;
    batch b;
    while (!s->done) {
        pthread_mutex_lock(&work.mu);
        b.n = work.n < BATCH ? work.n : BATCH;
        memcpy(b.ids, work.ids + work.n - b.n,
               b.n * sizeof *b.ids); /* newest */
        work.n -= b.n;
        pthread_mutex_unlock(&work.mu);
        if (b.n > 0 && starved_at) {
            r->starved_ns += now_ns() - starved_at;
            starved_at = 0;
        } else if (b.n == 0 && !starved_at) {
            starved_at = now_ns();
        }
        if (b.n > 0) {
            wf_run(r->pool, run_batch, &b);
            for (size_t i = 0; i < b.n; i++)
                r->nodes += b.counts[i];
            while (poll_one(s)) { /* requests that came meanwhile */
            }
            backoff = ask_at = 0;
            continue;
        }
        if (s->size == 1)
            break;
        /* Nothing here: ask someone (after a "none", not at once), pass
         * the token, and wait a little longer each time nothing comes. */
        if (!s->asked && now_ns() >= ask_at) {
            s->victim = (s->victim + 1) % s->size;
            if (s->victim == s->rank)
                s->victim = (s->victim + 1) % s->size;
            MPI_Send(NULL, 0, MPI_BYTE, s->victim, TAG_REQUEST, MPI_COMM_WORLD);
            s->asked = true;
        }
        idle_token(s);
        if (s->done)
            break;
        int tag = poll_one(s);
        if (tag == TAG_WORK) {
            backoff = ask_at = 0;
        } else if (tag == TAG_NONE) {
            backoff = longer(backoff);
            ask_at = now_ns() + backoff;
        } else if (tag == 0) {
            backoff = longer(backoff);
            sleep_ns(backoff);
        }
    }
    if (starved_at)
        r->starved_ns += now_ns() - starved_at;
    if (s->size == 1)
        return;
    /* The end is decided, but a request may still be on its way, and the
     * answer to ours (never work: the count would not have been 0).  Take
     * our answer, then answer everyone until all ranks have theirs: a rank
     * enters the barrier only once its own request is answered. */
    while (s->asked) {
        if (!poll_one(s))
            sleep_ns(10000);
    }
    MPI_Request all_answered;
    MPI_Ibarrier(MPI_COMM_WORLD, &all_answered);
    for (int fin = 0;;) {
        MPI_Test(&all_answered, &fin, MPI_STATUS_IGNORE);
        if (fin)
            break;
        if (!poll_one(s))
            sleep_ns(20000);
    }
}

int main(int argc, char **argv)
{
    uint32_t kids_n = 2000;
    unsigned threads = 1;
    bool timing = false;
    uint64_t expect = 0;
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--kids") == 0 && i + 1 < argc)
            kids_n = (uint32_t)strtoul(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc)
            threads = (unsigned)strtoul(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--expect") == 0 && i + 1 < argc)
            expect = strtoull(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--time") == 0)
            timing = true;
    }
    threshold = (uint64_t)(Q * 18446744073709551616.0);
    peer_state s = {0};
    MPI_Comm_rank(MPI_COMM_WORLD, &s.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &s.size);
    s.victim = s.rank;
    rank_state r = {0};
    wf_pool_config pc = WF_POOL_CONFIG_INIT;
    pc.threads = threads;
    if (wf_pool_create(&r.pool, &pc) != 0) {
        fprintf(stderr, "mpi_uts: no pool\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    /* The root on rank 0; its children dealt round the ranks. */
    uint64_t seed = 1, root_hash = node_hash(seed);
    for (uint32_t i = (uint32_t)s.rank; i < kids_n; i += (uint32_t)s.size)
        push_locked(child_id(root_hash, i));
    r.nodes = s.rank == 0;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    traverse(&r, &s);
    unsigned long long mine = r.nodes, total = 0;
    MPI_Reduce(&mine, &total, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0,
               MPI_COMM_WORLD);
    double secs = MPI_Wtime() - t0;
    int rc = 0;
    if (s.rank == 0) {
        if (expect == 0)
            expect = seq_count(seed, kids_n);
        rc = total != expect;
        printf("mpi_uts: %d rank%s x %u thread%s: %llu nodes, %s sequential "
               "(%s)\n",
               s.size, s.size == 1 ? "" : "s", threads, threads == 1 ? "" : "s",
               total, rc ? "NOT the same as" : "same as", rc ? "FAILED" : "ok");
        if (timing)
            fprintf(stderr, "mpi_uts: %.4f s\n", secs);
    }
    if (timing) { /* CPU time of the whole process: pool, MPI, all */
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        double cpu = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 +
                     (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6;
        fprintf(stderr,
                "mpi_uts: rank %d counted %llu nodes, %.3f s CPU, %.3f s "
                "without work\n",
                s.rank, mine, cpu, (double)r.starved_ns * 1e-9);
    }
    wf_pool_destroy(r.pool);
    free(work.ids);
    MPI_Finalize();
    return rc;
}
