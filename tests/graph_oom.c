/* SPDX-License-Identifier: Apache-2.0 */
/* graph_oom: a message that a node's successor cannot store for lack of
 * memory fails the graph (WF_ENOMEM from wf_graph_wait_for_all); it is not
 * dropped as if it had been rejected.
 *
 * function (serial, ints) -> function (serial, 16-byte messages, held
 * until the puts are done) with 2000 messages: the second node's input
 * queue must grow past 1024 entries (16 KiB), and every malloc of 16 KiB
 * or more fails meanwhile (the first node's queue of ints stays below).
 * Either every accepted message ran, or wait_for_all returned WF_ENOMEM;
 * the run is built so that the queue does overflow.
 *
 * The same for queue -> serial function, where the queue's forwarder is
 * the sender: the graph fails (it used to stall with wait_for_all
 * returning 0 and the messages still queued).
 *
 * The failures come from this program's own malloc, which the C library's
 * callers (weft included) use instead of glibc's: normal build only (the
 * sanitizers bring their own malloc). */
#include <stdatomic.h>
#include <stddef.h>

#include "graph_test.h"

extern void *__libc_malloc(size_t size);

static _Atomic int failing;
static _Atomic long failed;

void *malloc(size_t size)
{
    if (atomic_load_explicit(&failing, memory_order_relaxed) && size >= 16384) {
        atomic_fetch_add_explicit(&failed, 1, memory_order_relaxed);
        return NULL;
    }
    return __libc_malloc(size);
}

static _Atomic int ran, gate;

typedef struct {
    int v, pad[3];
} wide;

static int pass_on(const void *in, void *out, void *ctx)
{
    (void)ctx;
    *(wide *)out = (wide){.v = *(const int *)in};
    return 0;
}

static int slow_sink(const void *in, void *out, void *ctx)
{
    (void)in, (void)out, (void)ctx;
    while (!atomic_load(&gate)) /* hold the node: its queue fills */
        gt_sleep_us(100);
    atomic_fetch_add(&ran, 1);
    return 0;
}

/* Put msg; 1 if the node took it.  Out of memory or after the graph
 * failed, a put from outside is refused with a code (never lost). */
static int put_counted(wf_node *n, const void *msg)
{
    int r = wf_try_put(n, msg);
    CHECK_MSG(r == 1 || r == WF_ECANCELED || r == WF_ENOMEM, "put: %s",
              wf_err_name(r));
    return r == 1;
}

/* Allocations did fail, and then either every accepted message ran or the
 * graph says WF_ENOMEM. */
static void check_outcome(int err, int accepted)
{
    CHECK_MSG(atomic_load(&failed) > 0, "no allocation failed: the test did "
                                        "not reach the queue's growth");
    CHECK_MSG(err == WF_ENOMEM || (err == 0 && atomic_load(&ran) == accepted),
              "wait_for_all returned %s with %d of %d accepted messages run: "
              "messages were lost without an error",
              wf_err_name(err), atomic_load(&ran), accepted);
}

/* queue -> serial function: the queue's forwarder offers to a node whose
 * input queue cannot grow.  The graph fails with WF_ENOMEM, and what the
 * function did not take is still in the queue (accepted = run + held). */
static void queue_to_function(wf_pool *pool)
{
    enum { N = 3000 };
    wf_graph *g = gt_graph(pool);
    wf_node *q = gt_queue(g, sizeof(wide));
    wf_node *sink = gt_function(g, sizeof(wide), 0, WF_SERIAL, WF_QUEUEING,
                                slow_sink, NULL);
    CHECK_OK(wf_make_edge(q, sink));
    atomic_store(&ran, 0);
    atomic_store(&gate, 0);
    atomic_store(&failed, 0);
    atomic_store(&failing, 1);
    int accepted = 0;
    for (int i = 0; i < N; i++)
        accepted += put_counted(q, &(wide){.v = i});
    atomic_store(&gate, 1);
    int err = wf_graph_wait_for_all(g);
    atomic_store(&failing, 0);
    int held = 0;
    wide w;
    while (wf_try_get(q, &w) == 1)
        held++;
    printf("graph_oom: queue -> function: %d accepted, %d ran, %d held in "
           "the queue, %d left in the function's queue (the graph failed, "
           "so they did not start); wait_for_all: %s\n",
           accepted, atomic_load(&ran), held,
           accepted - atomic_load(&ran) - held, wf_err_name(err));
    check_outcome(err, accepted);
    GT_DESTROY(g, q, sink);
}

int main(void)
{
    enum { N = 2000 };
    wf_pool *pool = gt_pool(2);
    wf_graph *g = gt_graph(pool);
    wf_node *src = gt_function(g, sizeof(int), sizeof(wide), WF_SERIAL,
                               WF_QUEUEING, pass_on, NULL);
    wf_node *sink = gt_function(g, sizeof(wide), 0, WF_SERIAL, WF_QUEUEING,
                                slow_sink, NULL);
    CHECK_OK(wf_make_edge(src, sink));
    atomic_store(&failing, 1);
    int accepted = 0;
    for (int i = 0; i < N; i++)
        accepted += put_counted(src, &i);
    atomic_store(&gate, 1);
    int err = wf_graph_wait_for_all(g);
    atomic_store(&failing, 0);
    printf("graph_oom: %d of %d accepted messages ran, %ld allocations "
           "failed, wait_for_all: %s\n",
           atomic_load(&ran), accepted, atomic_load(&failed), wf_err_name(err));
    check_outcome(err, accepted);
    CHECK_OK(wf_graph_reset(g, WF_RESET_PROTOCOL)); /* usable again */
    atomic_store(&ran, 0);
    for (int i = 0; i < 10; i++)
        gt_put(src, i);
    CHECK_OK(wf_graph_wait_for_all(g));
    CHECK_EQ(atomic_load(&ran), 10);
    GT_DESTROY(g, src, sink);
    queue_to_function(pool);
    CHECK_OK(wf_pool_destroy(pool));
    CHECK_DONE("graph_oom");
}
