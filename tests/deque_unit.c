/* SPDX-License-Identifier: Apache-2.0 */
/* deque_unit: single-threaded semantics of wf_deque.
 *
 * Proves: LIFO pop and FIFO poll orders, and their mix, against a reference
 * model; growth across many doublings from capacity 2 keeps every element
 * and its order; indices wrap around a small ring without growing;
 * wf_deque_push_n's order; NULL elements and bad init arguments are
 * rejected; destroy is safe on a zeroed deque and twice; push on a
 * zeroed or destroyed deque is WF_ESTATE and pop/poll find it empty (no
 * crash); a failed grow
 * returns WF_ENOMEM and leaves the deque unchanged; every ring is freed
 * with the size it was allocated with. */
#include <string.h>

#include "check.h"
#include "test_alloc.h"

/* Elements are opaque non-NULL pointers: encode small integers. */
#define P(i) ((void *)(uintptr_t)(i))
#define I(p) ((long)(uintptr_t)(p))

static long poll_one(wf_deque *dq)
{
    void *x = P(0xbad);
    int r = wf_deque_poll(dq, &x);
    if (r == WF_POLL_EMPTY) {
        CHECK(x == P(0xbad)); /* *out untouched when nothing was taken */
        return 0;
    }
    CHECK_EQ(r, WF_POLL_TAKEN); /* single-threaded: never RETRY */
    return I(x);
}

static void test_lifo_fifo_mixed(void)
{
    wf_deque dq;
    CHECK_OK(wf_deque_init(&dq, 4, NULL));
    CHECK(wf_deque_pop(&dq) == NULL);
    CHECK_EQ(poll_one(&dq), 0);
    for (long i = 1; i <= 10; i++)
        CHECK_OK(wf_deque_push(&dq, P(i)));
    CHECK_EQ(wf_deque_size(&dq), 10);
    for (long i = 10; i >= 1; i--) /* owner end: newest first */
        CHECK_EQ(I(wf_deque_pop(&dq)), i);
    CHECK(wf_deque_pop(&dq) == NULL);
    for (long i = 1; i <= 10; i++)
        CHECK_OK(wf_deque_push(&dq, P(i)));
    for (long i = 1; i <= 10; i++) /* thief end: oldest first */
        CHECK_EQ(poll_one(&dq), i);
    CHECK_EQ(poll_one(&dq), 0);
    CHECK_EQ(wf_deque_size(&dq), 0);
    /* Mixed, by hand: the last element goes to whoever asks. */
    CHECK_OK(wf_deque_push(&dq, P(1)));
    CHECK_OK(wf_deque_push(&dq, P(2)));
    CHECK_OK(wf_deque_push(&dq, P(3)));
    CHECK_EQ(poll_one(&dq), 1);
    CHECK_EQ(I(wf_deque_pop(&dq)), 3);
    CHECK_OK(wf_deque_push(&dq, P(4)));
    CHECK_EQ(poll_one(&dq), 2);
    CHECK_EQ(I(wf_deque_pop(&dq)), 4);
    CHECK(wf_deque_pop(&dq) == NULL);
    CHECK_EQ(poll_one(&dq), 0);
    CHECK_OK(wf_deque_push(&dq, P(5))); /* pop of the last one, then poll */
    CHECK_EQ(I(wf_deque_pop(&dq)), 5);
    CHECK_EQ(poll_one(&dq), 0);
    CHECK_OK(wf_deque_push(&dq, P(6))); /* poll of the last one, then pop */
    CHECK_EQ(poll_one(&dq), 6);
    CHECK(wf_deque_pop(&dq) == NULL);
    wf_deque_destroy(&dq);
}

/* Random push/push_n/pop/poll against an array model, from capacity 2. */
static void test_random_model(void)
{
    enum { OPS = 200000, MAXN = 1 << 16 };
    static long model[MAXN * 4];
    long head = MAXN * 2, tail = MAXN * 2; /* model holds [head, tail) */
    long next = 1;
    uint64_t seed = 12345;
    wf_deque dq;
    CHECK_OK(wf_deque_init(&dq, 2, NULL));
    for (long op = 0; op < OPS; op++) {
        unsigned r = (unsigned)(check_rand(&seed) % 8);
        if (r < 3 && tail - head < MAXN) {
            model[tail++] = next;
            CHECK_OK(wf_deque_push(&dq, P(next++)));
        } else if (r == 3 && tail - head < MAXN - 8) {
            void *xs[5];
            size_t n = (size_t)(check_rand(&seed) % 6); /* 0..5 */
            for (size_t i = 0; i < n; i++) {
                model[tail++] = next;
                xs[i] = P(next++);
            }
            CHECK_OK(wf_deque_push_n(&dq, xs, n));
        } else if (r < 6) {
            long want = tail > head ? model[--tail] : 0;
            CHECK_EQ(I(wf_deque_pop(&dq)), want);
        } else {
            long want = tail > head ? model[head++] : 0;
            CHECK_EQ(poll_one(&dq), want);
        }
        CHECK_EQ(wf_deque_size(&dq), tail - head);
        if (head > MAXN * 3 || tail > MAXN * 3) { /* recentre the model */
            memmove(model + MAXN, model + head,
                    (size_t)(tail - head) * sizeof *model);
            tail = MAXN + (tail - head);
            head = MAXN;
        }
    }
    wf_deque_destroy(&dq);
}

/* 100000 pushes from capacity 2: 16 doublings; order kept both ways. */
static void test_growth(void)
{
    enum { N = 100000 };
    test_alloc ta;
    ta_init(&ta, TA_NEVER, -1);
    wf_deque dq;
    CHECK_OK(wf_deque_init(&dq, 2, &ta.iface));
    CHECK_EQ(wf_deque_capacity(&dq), 2);
    for (long i = 1; i <= N; i++)
        CHECK_OK(wf_deque_push(&dq, P(i)));
    CHECK_EQ(wf_deque_size(&dq), N);
    CHECK_EQ(wf_deque_capacity(&dq), 131072); /* next power of two */
    for (long i = N; i >= 1; i--)
        CHECK_EQ(I(wf_deque_pop(&dq)), i);
    CHECK(wf_deque_pop(&dq) == NULL);
    for (long i = 1; i <= N; i++)
        CHECK_OK(wf_deque_push(&dq, P(i)));
    for (long i = 1; i <= N; i++)
        CHECK_EQ(poll_one(&dq), i);
    CHECK_EQ(poll_one(&dq), 0);
    /* Retired rings are kept until destroy, then all freed, each with the
     * size it was allocated with. */
    CHECK(atomic_load(&ta.live_blocks) >= 2);
    wf_deque_destroy(&dq);
    CHECK_EQ(atomic_load(&ta.live_blocks), 0);
    CHECK_EQ(atomic_load(&ta.live_bytes), 0);
    CHECK_EQ(atomic_load(&ta.bad_frees), 0);

    /* Growth while the live window has wrapped around the ring: base is
     * not at slot 0 when grow copies. */
    CHECK_OK(wf_deque_init(&dq, 4, NULL));
    for (long i = 1; i <= 3; i++)
        CHECK_OK(wf_deque_push(&dq, P(i)));
    CHECK_EQ(poll_one(&dq), 1);
    CHECK_EQ(poll_one(&dq), 2);
    for (long i = 4; i <= 40; i++)
        CHECK_OK(wf_deque_push(&dq, P(i)));
    for (long i = 3; i <= 40; i++)
        CHECK_EQ(poll_one(&dq), i);
    wf_deque_destroy(&dq);
}

/* Indices run far past the capacity; the ring must not grow when at most
 * two elements are live. */
static void test_wraparound(void)
{
    wf_deque dq;
    CHECK_OK(wf_deque_init(&dq, 2, NULL));
    long expect_poll = 1;
    CHECK_OK(wf_deque_push(&dq, P(1)));
    for (long i = 2; i < 10000; i++) {
        CHECK_OK(wf_deque_push(&dq, P(i)));
        CHECK_EQ(poll_one(&dq), expect_poll++);
        CHECK_EQ(wf_deque_capacity(&dq), 2);
    }
    CHECK_EQ(I(wf_deque_pop(&dq)), 9999);
    CHECK(wf_deque_pop(&dq) == NULL);
    wf_deque_destroy(&dq);
}

static void test_push_n(void)
{
    wf_deque dq;
    CHECK_OK(wf_deque_init(&dq, 2, NULL));
    void *xs[] = {P(1), P(2), P(3), P(4)};
    CHECK_OK(wf_deque_push_n(&dq, xs, 4)); /* xs[3] is the next to pop */
    CHECK_EQ(I(wf_deque_pop(&dq)), 4);
    CHECK_EQ(poll_one(&dq), 1);
    CHECK_EQ(I(wf_deque_pop(&dq)), 3);
    CHECK_EQ(I(wf_deque_pop(&dq)), 2);
    CHECK(wf_deque_pop(&dq) == NULL);
    CHECK_OK(wf_deque_push_n(&dq, xs, 0)); /* nothing, not an error */
    CHECK_EQ(wf_deque_size(&dq), 0);
    /* One call that needs several doublings at once. */
    static void *big[1000];
    for (long i = 0; i < 1000; i++)
        big[i] = P(i + 1);
    CHECK_OK(wf_deque_push(&dq, P(5000)));
    CHECK_OK(wf_deque_push_n(&dq, big, 1000));
    CHECK_EQ(wf_deque_size(&dq), 1001);
    CHECK(wf_deque_capacity(&dq) >= 1001);
    CHECK_EQ(poll_one(&dq), 5000);
    for (long i = 1; i <= 1000; i++)
        CHECK_EQ(poll_one(&dq), i);
    wf_deque_destroy(&dq);
}

static void *half_alloc(size_t size, void *ctx)
{
    (void)size;
    (void)ctx;
    return NULL;
}

static void test_bad_input(void)
{
    wf_deque dq;
    CHECK_ERR(wf_deque_init(NULL, 4, NULL), WF_EINVAL);
    CHECK_ERR(wf_deque_init(&dq, ((size_t)1 << 30) + 1, NULL), WF_EINVAL);
    CHECK_ERR(wf_deque_init(&dq, SIZE_MAX, NULL), WF_EINVAL);
    /* Capacities round up to a power of two, at least 2; 0 means 64. */
    size_t asks[][2] = {{0, 64}, {1, 2}, {2, 2}, {3, 4}, {64, 64}, {65, 128}};
    for (size_t i = 0; i < sizeof asks / sizeof asks[0]; i++) {
        CHECK_OK(wf_deque_init(&dq, asks[i][0], NULL));
        CHECK_EQ(wf_deque_capacity(&dq), asks[i][1]);
        wf_deque_destroy(&dq);
    }
    CHECK_OK(wf_deque_init(&dq, 4, NULL));
    CHECK_OK(wf_deque_push(&dq, P(1)));
    CHECK_ERR(wf_deque_push(&dq, NULL), WF_EINVAL);
    void *xs[] = {P(2), NULL, P(3)};
    CHECK_ERR(wf_deque_push_n(&dq, xs, 3), WF_EINVAL); /* all or nothing */
    CHECK_EQ(wf_deque_size(&dq), 1);
    CHECK_EQ(I(wf_deque_pop(&dq)), 1);
    CHECK(wf_deque_pop(&dq) == NULL);
    wf_deque_destroy(&dq);
    wf_deque_destroy(&dq); /* twice */
    static wf_deque zero;  /* destroy, size, capacity on a zeroed deque */
    wf_deque_destroy(&zero);
    CHECK_EQ(wf_deque_size(&zero), 0);
    CHECK_EQ(wf_deque_capacity(&zero), 0);
    wf_deque_destroy(NULL);
    /* A zeroed deque, and one destroyed while it held elements: push is
     * refused, pop and poll find nothing (no ring to touch). */
    void *got;
    CHECK_ERR(wf_deque_push(&zero, P(1)), WF_ESTATE);
    CHECK_ERR(wf_deque_push_n(&zero, xs, 1), WF_ESTATE);
    CHECK(wf_deque_pop(&zero) == NULL);
    CHECK_EQ(wf_deque_poll(&zero, &got), WF_POLL_EMPTY);
    CHECK_OK(wf_deque_init(&dq, 4, NULL));
    CHECK_OK(wf_deque_push(&dq, P(1)));
    CHECK_OK(wf_deque_push(&dq, P(2)));
    wf_deque_destroy(&dq);
    CHECK_ERR(wf_deque_push(&dq, P(3)), WF_ESTATE);
    CHECK(wf_deque_pop(&dq) == NULL);
    CHECK_EQ(wf_deque_poll(&dq, &got), WF_POLL_EMPTY);
    CHECK_EQ(wf_deque_size(&dq), 0);
    /* NULL deque or output: an error, never a crash. */
    void *out;
    CHECK_ERR(wf_deque_push(NULL, P(1)), WF_EINVAL);
    CHECK_ERR(wf_deque_push_n(NULL, xs, 1), WF_EINVAL);
    CHECK(wf_deque_pop(NULL) == NULL);
    CHECK_ERR(wf_deque_poll(NULL, &out), WF_EINVAL);
    CHECK_EQ(wf_deque_size(NULL), 0);
    CHECK_EQ(wf_deque_capacity(NULL), 0);
    CHECK_OK(wf_deque_init(&dq, 4, NULL));
    CHECK_ERR(wf_deque_poll(&dq, NULL), WF_EINVAL);
    CHECK_ERR(wf_deque_push_n(&dq, NULL, 1), WF_EINVAL);
    CHECK_OK(wf_deque_push_n(&dq, NULL, 0));
    wf_deque_destroy(&dq);
    /* Half an allocator is refused, as by wf_pool_create. */
    wf_allocator half = {.alloc = NULL, .free = NULL, .ctx = NULL};
    half.alloc = half_alloc;
    CHECK_ERR(wf_deque_init(&dq, 4, &half), WF_EINVAL);
}

/* Allocation failure: at init, and in grow (push and push_n). */
static void test_alloc_failure(void)
{
    test_alloc ta;
    wf_deque dq;
    ta_init(&ta, TA_ONE, 0);
    CHECK_ERR(wf_deque_init(&dq, 8, &ta.iface), WF_ENOMEM);
    CHECK_EQ(atomic_load(&ta.live_blocks), 0);

    /* The ring of 2 is allocation 0; the first grow (allocation 1) fails. */
    ta_init(&ta, TA_FROM, 1);
    CHECK_OK(wf_deque_init(&dq, 2, &ta.iface));
    CHECK_OK(wf_deque_push(&dq, P(1)));
    CHECK_OK(wf_deque_push(&dq, P(2)));
    CHECK_ERR(wf_deque_push(&dq, P(3)), WF_ENOMEM);
    void *xs[] = {P(3), P(4), P(5)};
    CHECK_ERR(wf_deque_push_n(&dq, xs, 3), WF_ENOMEM);
    CHECK_EQ(atomic_load(&ta.failures), 2);
    /* Unchanged: same size and ring, contents intact in both orders. */
    CHECK_EQ(wf_deque_size(&dq), 2);
    CHECK_EQ(wf_deque_capacity(&dq), 2);
    CHECK_EQ(poll_one(&dq), 1);
    CHECK_OK(wf_deque_push(&dq, P(3))); /* fits without growing */
    CHECK_ERR(wf_deque_push(&dq, P(4)), WF_ENOMEM);
    CHECK_EQ(I(wf_deque_pop(&dq)), 3);
    CHECK_EQ(I(wf_deque_pop(&dq)), 2);
    CHECK(wf_deque_pop(&dq) == NULL);
    /* Memory comes back: the same deque grows again. */
    ta_fail_from_now(&ta, 0);
    for (long i = 1; i <= 100; i++)
        CHECK_OK(wf_deque_push(&dq, P(i)));
    for (long i = 1; i <= 100; i++)
        CHECK_EQ(poll_one(&dq), i);
    wf_deque_destroy(&dq);
    CHECK_EQ(atomic_load(&ta.live_blocks), 0);
    CHECK_EQ(atomic_load(&ta.live_bytes), 0);
    CHECK_EQ(atomic_load(&ta.bad_frees), 0);

    /* Failure in the middle of many doublings: everything pushed before
     * the failure is still there, in order. */
    ta_init(&ta, TA_ONE, 5); /* init + 4 grows succeed: capacity 32 */
    CHECK_OK(wf_deque_init(&dq, 2, &ta.iface));
    long n = 0;
    while (wf_deque_push(&dq, P(n + 1)) == 0)
        n++;
    CHECK_EQ(n, 32);
    CHECK_EQ(wf_deque_capacity(&dq), 32);
    CHECK_OK(wf_deque_push(&dq, P(n + 1))); /* allocation 6 succeeds */
    n++;
    for (long i = n; i >= 1; i--)
        CHECK_EQ(I(wf_deque_pop(&dq)), i);
    wf_deque_destroy(&dq);
    CHECK_EQ(atomic_load(&ta.live_bytes), 0);
    CHECK_EQ(atomic_load(&ta.bad_frees), 0);
}

int main(void)
{
    test_lifo_fifo_mixed();
    test_random_model();
    test_growth();
    test_wraparound();
    test_push_n();
    test_bad_input();
    test_alloc_failure();
    CHECK_DONE("deque_unit");
}
