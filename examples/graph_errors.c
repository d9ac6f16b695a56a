/* SPDX-License-Identifier: Apache-2.0 */
/* A body that fails: the graph cancels, wf_graph_wait_for_all returns the
 * body's code, wf_graph_failed_node says which node failed, and a long
 * body elsewhere stops early through its cancel callback.  Then a reset
 * clears the error and the same graph runs again.
 *
 * Prints:
 *   node "parse" failed on record 13: wait_for_all returned -100, the slow
 *   node stopped early
 *   after reset: 20 records parsed, error 0 */
#define _POSIX_C_SOURCE 200809L /* nanosleep, getdelim */
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

#include <weft.h>

#define ERR_BAD_RECORD (-100)

typedef struct {
    _Atomic int parsed, bad;
} parse_state;

static int parse(const void *in, void *out, void *ctx)
{
    (void)out;
    parse_state *s = ctx;
    int record = *(const int *)in;
    if (record == 13) {
        atomic_store(&s->bad, record);
        return ERR_BAD_RECORD; /* fails the graph */
    }
    atomic_fetch_add(&s->parsed, 1);
    return 0;
}

/* A long computation that polls a flag its cancel callback sets. */
static _Atomic int stop_slow;
static void slow_cancelled(void *ctx)
{
    (void)ctx;
    atomic_store(&stop_slow, 1);
}

static int slow(const void *in, void *out, void *ctx)
{
    (void)in, (void)out, (void)ctx;
    struct timespec ms = {0, 1000000};
    for (int i = 0; i < 10000 && !atomic_load(&stop_slow); i++)
        nanosleep(&ms, NULL); /* at most 10 s */
    return 0;
}

int main(void)
{
    /* Two workers, so the slow body and the failing one run side by side. */
    wf_pool_config pc = WF_POOL_CONFIG_INIT;
    pc.threads = 2;
    wf_pool *pool;
    if (wf_pool_create(&pool, &pc) != 0)
        return 1;
    wf_graph *g;
    wf_graph_create(&g, pool);
    parse_state st = {0};
    wf_function_config c = WF_FUNCTION_CONFIG_INIT;
    c.in_size = sizeof(int);
    c.concurrency = WF_SERIAL;
    c.body = parse;
    c.ctx = &st;
    wf_node *p, *s;
    wf_function_node_create(&p, g, &c);
    wf_node_set_name(p, "parse");
    c.body = slow;
    wf_function_node_create(&s, g, &c);
    wf_node_set_name(s, "slow");
    wf_node_set_cancel(s, slow_cancelled, NULL);

    int one = 1;
    wf_try_put(s, &one);
    for (int i = 0; i < 20; i++)
        if (wf_try_put(p, &i) != 1)
            break; /* WF_ECANCELED: the graph already failed */
    int rc = wf_graph_wait_for_all(g);
    wf_node *bad = wf_graph_failed_node(g);
    printf("node \"%s\" failed on record %d: wait_for_all returned %d, "
           "the slow node %s\n",
           wf_node_name(bad), atomic_load(&st.bad), rc,
           atomic_load(&stop_slow) ? "stopped early" : "ran to the end");

    wf_graph_reset(g, WF_RESET_PROTOCOL);
    atomic_store(&st.parsed, 0);
    for (int i = 0; i < 20; i++) {
        int r = i == 13 ? 113 : i; /* the bad record, fixed */
        wf_try_put(p, &r);
    }
    rc = wf_graph_wait_for_all(g);
    printf("after reset: %d records parsed, error %d\n",
           atomic_load(&st.parsed), rc);
    wf_node_destroy(p);
    wf_node_destroy(s);
    wf_graph_destroy(g);
    wf_pool_destroy(pool);
    return 0;
}
