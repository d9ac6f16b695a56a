/* SPDX-License-Identifier: Apache-2.0 */
/* pool_wait_until: wf_pool_wait_until runs the pool's tasks while it
 * waits for a condition, and wf_pool_notify wakes it when it sleeps.
 *
 * ARGS: a scenario name (none or "all": every one), then an optional
 * divisor for the iteration counts (TSan passes 4, ASan 2).
 *   helps      threads = 1 (no background worker): main submits a task
 *          that writes a value and sets a flag, then waits until the
 *          flag is set: the wait returns, the task ran on main (only a
 *          waiter that helps can run it), and main reads the value.
 *   from_task  threads = 2, many rounds: a task (in wf_run) submits a
 *          second task and waits for its flag; the second task's write
 *          is seen after the wait (ThreadSanitizer checks the order).
 *   parked     threads = 2, every caller slot held by another thread (each
 *          in a wf_run that waits for a release): main finds no slot and
 *          sleeps; a plain thread (no task of the pool, whose end would
 *          wake waiters anyway) sets the flag after a while and calls
 *          wf_pool_notify: main wakes and returns.
 *   errors     NULL pool or condition: WF_EINVAL; a condition already
 *          true returns 0 at once.
 * Every wait is bounded by a watchdog (alarm), which turns a lost wake-up
 * into a failure. */
#include "caller_test.h"

typedef struct {
    wf_task task;
    wf_pool *pool;
    long value;       /* written before the flag */
    _Atomic int flag; /* the condition */
    long delay_us;    /* how long the setter waits first */
    bool ran_on_main;
} cond_task;

static bool flag_set(const void *arg)
{
    /* Acquire pairs with the setter's release: its value is seen. */
    return atomic_load_explicit(&((const cond_task *)arg)->flag,
                                memory_order_acquire) != 0;
}

static void setter(wf_task *t)
{
    cond_task *c = (cond_task *)t;
    wf_pool *pool = c->pool; /* c may be gone once the flag is set */
    if (c->delay_us)
        sleep_us(c->delay_us);
    c->ran_on_main = on_main();
    c->value = 42;
    atomic_store_explicit(&c->flag, 1, memory_order_release);
    wf_pool_notify(pool);
}

static void helps(void)
{
    watch("helps: wait_until on a pool of one thread", WATCH_S);
    wf_pool *p = check_pool(1);
    for (long r = 0; r < scaled(1000); r++) {
        cond_task c = {.pool = p};
        CHECK_OK(wf_submit(p, &c.task, setter));
        CHECK_OK(wf_pool_wait_until(p, flag_set, &c));
        CHECK(c.ran_on_main);
        CHECK_EQ(c.value, 42);
    }
    CHECK_OK(wf_pool_destroy(p));
    alarm(0);
}

static void waiting_task(void *arg)
{
    cond_task *c = arg;
    CHECK_OK(wf_submit(c->pool, &c->task, setter));
    CHECK_OK(wf_pool_wait_until(c->pool, flag_set, c));
    CHECK_EQ(c->value, 42);
}

static void from_task(void)
{
    watch("from_task: wait_until inside the pool", WATCH_S);
    wf_pool *p = check_pool(2);
    for (long r = 0; r < scaled(2000); r++) {
        cond_task c = {.pool = p};
        CHECK_OK(wf_run(p, waiting_task, &c));
    }
    CHECK_OK(wf_pool_destroy(p));
    alarm(0);
}

static void *setter_thread(void *c)
{
    setter(&((cond_task *)c)->task);
    return NULL;
}

static void parked(void)
{
    watch("parked: wait_until with every caller slot taken", WATCH_S);
    wf_pool *p = check_pool(2);
    pthread_t th[WF_CALLER_SLOTS];
    for (int i = 0; i < WF_CALLER_SLOTS; i++)
        CHECK(pthread_create(&th[i], NULL, caller_slot_holder, p) == 0);
    CHECK(wait_count(&holders_in, WF_CALLER_SLOTS, 20.0));
    for (long r = 0; r < scaled(20); r++) {
        cond_task c = {.pool = p, .delay_us = 5000};
        pthread_t set;
        CHECK(pthread_create(&set, NULL, setter_thread, &c) == 0);
        CHECK_OK(wf_pool_wait_until(p, flag_set, &c));
        CHECK(!c.ran_on_main);
        CHECK_EQ(c.value, 42);
        CHECK(pthread_join(set, NULL) == 0);
    }
    atomic_store(&holders_release, 1);
    for (int i = 0; i < WF_CALLER_SLOTS; i++)
        CHECK(pthread_join(th[i], NULL) == 0);
    CHECK_OK(wf_pool_destroy(p));
    alarm(0);
}

static void errors(void)
{
    wf_pool *p = check_pool(2);
    cond_task c = {.pool = p, .flag = 1};
    CHECK_ERR(wf_pool_wait_until(NULL, flag_set, &c), WF_EINVAL);
    CHECK_ERR(wf_pool_wait_until(p, NULL, &c), WF_EINVAL);
    CHECK_OK(wf_pool_wait_until(p, flag_set, &c)); /* true already */
    wf_pool_notify(NULL);                          /* nothing to do */
    wf_pool_notify(p);
    CHECK_OK(wf_pool_destroy(p));
}

static const check_scenario scenarios[] = {
    {"helps", helps},
    {"from_task", from_task},
    {"parked", parked},
    {"errors", errors},
};

int main(int argc, char **argv)
{
    CALLER_TEST_MAIN("pool_wait_until", argc, argv, scenarios);
}
