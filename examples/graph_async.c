/* SPDX-License-Identifier: Apache-2.0 */
/* async_node: the graph hands work to a thread outside the pool (a
 * "device" with its own request queue) and gets the answers back through
 * the node's gateway.  reserve_wait keeps wf_graph_wait_for_all waiting
 * until the device has answered.  docs/graph/async_node.md explains it. */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <weft.h>

typedef struct request {
    struct request *next;
    int value;
    wf_gateway *gw;
} request;

/* The outside activity: answers each request with value^2, 1 ms later. */
static struct {
    pthread_mutex_t lock;
    pthread_cond_t more;
    request *head, *tail;
    bool stop;
} device = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, NULL, NULL,
            false};

static void *device_main(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&device.lock);
    for (;;) {
        while (device.head == NULL && !device.stop)
            pthread_cond_wait(&device.more, &device.lock);
        request *r = device.head;
        if (r == NULL)
            break;
        if ((device.head = r->next) == NULL)
            device.tail = NULL;
        pthread_mutex_unlock(&device.lock);
        nanosleep(&(struct timespec){0, 1000000}, NULL);
        long sq = (long)r->value * r->value;
        wf_gateway_try_put(r->gw, &sq); /* to the async node's successors */
        wf_gateway_release_wait(r->gw); /* this piece of work is done   */
        free(r);
        pthread_mutex_lock(&device.lock);
    }
    pthread_mutex_unlock(&device.lock);
    return NULL;
}

/* The body: count the work in flight, hand it over, return at once. */
static int submit(const void *in, wf_gateway *gw, void *ctx)
{
    (void)ctx;
    request *r = malloc(sizeof *r);
    if (r == NULL)
        return WF_ENOMEM;
    *r = (request){NULL, *(const int *)in, gw};
    wf_gateway_reserve_wait(gw);
    pthread_mutex_lock(&device.lock);
    if (device.tail)
        device.tail->next = r;
    else
        device.head = r;
    device.tail = r;
    pthread_cond_signal(&device.more);
    pthread_mutex_unlock(&device.lock);
    return 0;
}

int main(void)
{
    pthread_t dev;
    pthread_create(&dev, NULL, device_main, NULL);
    wf_graph *g;
    if (wf_graph_create(&g, NULL) != 0)
        return 1;
    wf_async_config c = WF_ASYNC_CONFIG_INIT;
    c.in_size = sizeof(int);
    c.out_size = sizeof(long);
    c.concurrency = WF_UNLIMITED;
    c.body = submit;
    wf_node *an, *results;
    wf_async_node_create(&an, g, &c);
    wf_queue_node_create(&results, g, sizeof(long));
    wf_make_edge(an, results);
    for (int i = 1; i <= 12; i++)
        wf_try_put(an, &i);
    int err = wf_graph_wait_for_all(g); /* returns after the 12 answers */

    int n = 0;
    long sq, sum = 0;
    while (wf_try_get(results, &sq) == 1)
        n++, sum += sq;
    bool ok = err == 0 && n == 12 && sum == 650;
    printf(
        "%d requests answered by the outside thread, sum of squares %ld (%s)\n",
        n, sum, ok ? "ok" : "WRONG");
    wf_node_destroy(an);
    wf_node_destroy(results);
    wf_graph_destroy(g);
    pthread_mutex_lock(&device.lock);
    device.stop = true;
    pthread_cond_signal(&device.more);
    pthread_mutex_unlock(&device.lock);
    pthread_join(dev, NULL);
    return ok ? 0 : 1;
}
