/* SPDX-License-Identifier: Apache-2.0 */
/* deque_stress: one owner, T thieves, recurring pointer values.
 *
 *   usage: test_deque_stress THIEVES OWNER_OPS ROUNDS
 *
 * The owner pushes (one at a time or with push_n) and pops at random, in
 * phases that fill, drain or hover near empty, so both the steady state and
 * the race for the last element are exercised; T thieves poll without
 * pause.  Each round starts from a ring of capacity 2, so grow also runs
 * while thieves read.
 *
 * Elements are pointers into a small array of K objects, and an object is
 * pushed again as soon as it has been taken: the same pointer value recurs
 * at ever larger indices, as a reused stack frame does (the ABA case of
 * docs/protocols.md).  Each push stamps the object with a fresh sequence
 * number;
 * whoever takes it (owner pop, thief poll or the final drain) marks that
 * number in a side table, which must go from 0 to 1 exactly once, and then
 * poisons the object (ck's 0xdead) before handing it back.
 *
 * Oracle per round: every sequence number pushed is taken exactly once
 * (no loss, no duplicate), pops + polls + drain == pushes, and the deque is
 * empty at the end.  The stamp is a plain field: under TSan this also checks
 * that push/poll order the element's contents (rule D1). */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>

#include "check.h"

#define K 100 /* objects, hence distinct pointer values */
#define POISON 0xdeaddeaddeaddeadull
enum { FREE = 0, LIVE = 1 };

typedef struct {
    uint64_t seq;      /* stamp of the push that holds it, or POISON */
    _Atomic int state; /* FREE: the owner may push it again */
} object;

typedef struct {
    pthread_t thread;
    long taken, retries, empties;
} thief;

static wf_deque dq;
static object objs[K];
static _Atomic unsigned char *taken_seq; /* per push: times taken */
static uint64_t max_seq;
static _Atomic int stop;

/* Called by whoever took x: record its stamp once, poison it, free it. */
static void take(void *x)
{
    object *o = x;
    CHECK_MSG(o >= objs && o < objs + K, "foreign pointer %p", x);
    CHECK_MSG(atomic_load_explicit(&o->state, memory_order_relaxed) == LIVE,
              "object %ld taken while free", (long)(o - objs));
    uint64_t s = o->seq;
    CHECK_MSG(s != POISON, "object %ld taken twice (poisoned)",
              (long)(o - objs));
    CHECK_MSG(s < max_seq, "garbage stamp %llx", (unsigned long long)s);
    unsigned char before =
        atomic_exchange_explicit(&taken_seq[s], 1, memory_order_relaxed);
    CHECK_MSG(before == 0, "push #%llu taken twice", (unsigned long long)s);
    o->seq = POISON;
    /* Pairs with the owner's acquire before it stamps and pushes again. */
    atomic_store_explicit(&o->state, FREE, memory_order_release);
}

static void *thief_main(void *arg)
{
    thief *me = arg;
    while (!atomic_load_explicit(&stop, memory_order_acquire)) {
        void *x = NULL;
        int r = wf_deque_poll(&dq, &x);
        if (r == WF_POLL_TAKEN) {
            take(x);
            me->taken++;
        } else if (r == WF_POLL_RETRY) {
            me->retries++;
        } else {
            CHECK_EQ(r, WF_POLL_EMPTY);
            if (++me->empties % 64 == 0)
                sched_yield(); /* 2 cores: let the owner run */
        }
    }
    return NULL;
}

/* Owner: the next free object, stamped and marked live, or NULL. */
static object *grab(unsigned *cursor, uint64_t *seq)
{
    for (unsigned i = 0; i < K; i++) {
        object *o = &objs[(*cursor + i) % K];
        if (atomic_load_explicit(&o->state, memory_order_acquire) == FREE) {
            *cursor = (*cursor + i + 1) % K;
            o->seq = (*seq)++;
            atomic_store_explicit(&o->state, LIVE, memory_order_relaxed);
            return o;
        }
    }
    return NULL;
}

typedef struct {
    long pushes, pops, polls, retries, empties, drained;
} totals;

static void run_round(int nthieves, long ops, uint64_t *rng, totals *tot)
{
    thief th[8];
    uint64_t seq = 0;
    unsigned cursor = 0;
    long pops = 0;
    max_seq = (uint64_t)ops * 4 + 4; /* push_n stamps up to 4 per op */
    taken_seq = calloc(max_seq, 1);
    CHECK(taken_seq != NULL);
    for (int i = 0; i < K; i++) {
        objs[i].seq = POISON;
        atomic_store(&objs[i].state, FREE);
    }
    CHECK_OK(wf_deque_init(&dq, 2, NULL));
    atomic_store(&stop, 0);
    memset(th, 0, sizeof th);
    for (int i = 0; i < nthieves; i++)
        CHECK(pthread_create(&th[i].thread, NULL, thief_main, &th[i]) == 0);

    unsigned push_pct = 50;
    for (long op = 0; op < ops; op++) {
        if (op % 1024 == 0) /* phase: fill (80), drain (20), hover (50) */
            push_pct = (unsigned[]){80, 20, 50, 50}[check_rand(rng) % 4];
        uint64_t r = check_rand(rng);
        object *o = NULL;
        if (r % 100 < push_pct && (o = grab(&cursor, &seq)) != NULL) {
            if ((r >> 32) % 8 == 0) { /* a batch: push_n */
                void *xs[4] = {o};
                size_t n = 1;
                while (n < 4 && (xs[n] = grab(&cursor, &seq)) != NULL)
                    n++;
                CHECK_OK(wf_deque_push_n(&dq, xs, n));
            } else {
                CHECK_OK(wf_deque_push(&dq, o));
            }
        } else {
            void *x = wf_deque_pop(&dq);
            if (x) {
                take(x);
                pops++;
            }
        }
    }
    atomic_store_explicit(&stop, 1, memory_order_release);
    long polls = 0, retries = 0, empties = 0, drained = 0;
    for (int i = 0; i < nthieves; i++) {
        CHECK(pthread_join(th[i].thread, NULL) == 0);
        polls += th[i].taken;
        retries += th[i].retries;
        empties += th[i].empties;
    }
    for (void *x; (x = wf_deque_pop(&dq)) != NULL; drained++)
        take(x);
    void *x;
    CHECK_EQ(wf_deque_poll(&dq, &x), WF_POLL_EMPTY);
    CHECK_EQ(wf_deque_size(&dq), 0);

    /* The oracle: each push taken exactly once, and the counts agree. */
    for (uint64_t s = 0; s < seq; s++)
        CHECK_MSG(atomic_load(&taken_seq[s]) == 1, "push #%llu lost",
                  (unsigned long long)s);
    CHECK_EQ(pops + polls + drained, (long long)seq);
    for (int i = 0; i < K; i++)
        CHECK(atomic_load(&objs[i].state) == FREE);
    wf_deque_destroy(&dq);
    free((void *)taken_seq);

    tot->pushes += (long)seq;
    tot->pops += pops;
    tot->polls += polls;
    tot->retries += retries;
    tot->empties += empties;
    tot->drained += drained;
}

int main(int argc, char **argv)
{
    int nthieves = argc > 1 ? atoi(argv[1]) : 2;
    long owner_ops = argc > 2 ? atol(argv[2]) : 1000000;
    int rounds = argc > 3 ? atoi(argv[3]) : 10;
    CHECK_MSG(nthieves >= 1 && nthieves <= 8 && owner_ops > 0 && rounds > 0,
              "usage: %s THIEVES(1-8) OWNER_OPS ROUNDS", argv[0]);
    uint64_t rng = 0x5eed0000u + (uint64_t)nthieves;
    totals tot = {0};
    double t0 = check_now();
    for (int r = 0; r < rounds; r++)
        run_round(nthieves, owner_ops / rounds, &rng, &tot);
    double dt = check_now() - t0;
    printf("deque_stress: %d thieves, %d rounds, %.2f s\n"
           "  owner ops %ld, pushes %ld, owner pops %ld, thief polls taken "
           "%ld, drained %ld\n"
           "  WF_POLL_RETRY %ld, WF_POLL_EMPTY %ld\n",
           nthieves, rounds, dt, owner_ops, tot.pushes, tot.pops, tot.polls,
           tot.drained, tot.retries, tot.empties);
    CHECK_MSG(tot.polls > 0, "no thief ever took an element: no concurrency");
    CHECK_DONE("deque_stress");
}
