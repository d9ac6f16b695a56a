/* SPDX-License-Identifier: Apache-2.0 */
/* An outside activity for async_node tests: a thread of its own (not a
 * pool worker) with a request queue.  An async body hands it (value,
 * gateway) after wf_gateway_reserve_wait; the thread answers later with
 * wf_gateway_try_put(gw, value * 3) and then wf_gateway_release_wait.
 * Shared by tests/graph_bodies.c and tests/graph_bodies_stress.c. */
#ifndef WEFT_TEST_GRAPH_SERVICE_H
#define WEFT_TEST_GRAPH_SERVICE_H

#include <pthread.h>

#include "graph_test.h"

typedef struct svc_req {
    struct svc_req *next;
    long value;
    wf_gateway *gw;
} svc_req;

typedef struct service {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t more;
    svc_req *head, *tail; /* under lock */
    bool stop;            /* under lock */
    long delay_us;        /* per request */
    long linger_us;       /* before answering the last one queued */
    _Atomic long answered, put_failed, canceled;
} service;

static void *service_main(void *p)
{
    service *s = p;
    pthread_mutex_lock(&s->lock);
    for (;;) {
        while (s->head == NULL && !s->stop)
            pthread_cond_wait(&s->more, &s->lock);
        if (s->head == NULL)
            break;
        svc_req *r = s->head;
        s->head = r->next;
        if (s->head == NULL)
            s->tail = NULL;
        bool last = s->head == NULL;
        pthread_mutex_unlock(&s->lock);
        if (s->delay_us)
            gt_sleep_us(s->delay_us);
        if (last && s->linger_us) /* a graph that did not wait would end */
            gt_sleep_us(s->linger_us);
        CHECK(wf_worker_index() < 0); /* really outside the pool */
        long out = r->value * 3;
        int rc = wf_gateway_try_put(r->gw, &out);
        if (rc == WF_ECANCELED)
            atomic_fetch_add(&s->canceled, 1);
        else if (rc != 1)
            atomic_fetch_add(&s->put_failed, 1);
        atomic_fetch_add(&s->answered, 1);
        CHECK_OK(wf_gateway_release_wait(r->gw));
        free(r);
        pthread_mutex_lock(&s->lock);
    }
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

static inline void service_start(service *s, long delay_us, long linger_us)
{
    memset(s, 0, sizeof *s);
    s->delay_us = delay_us;
    s->linger_us = linger_us;
    CHECK(pthread_mutex_init(&s->lock, NULL) == 0);
    CHECK(pthread_cond_init(&s->more, NULL) == 0);
    CHECK(pthread_create(&s->thread, NULL, service_main, s) == 0);
}

/* Called from an async body: count the work, then queue it. */
static inline void service_submit(service *s, long value, wf_gateway *gw)
{
    svc_req *r = malloc(sizeof *r);
    CHECK(r != NULL);
    r->next = NULL;
    r->value = value;
    r->gw = gw;
    CHECK_OK(wf_gateway_reserve_wait(gw));
    pthread_mutex_lock(&s->lock);
    if (s->tail)
        s->tail->next = r;
    else
        s->head = r;
    s->tail = r;
    pthread_cond_signal(&s->more);
    pthread_mutex_unlock(&s->lock);
}

static inline void service_stop(service *s)
{
    pthread_mutex_lock(&s->lock);
    s->stop = true;
    pthread_cond_signal(&s->more);
    pthread_mutex_unlock(&s->lock);
    pthread_join(s->thread, NULL);
    pthread_cond_destroy(&s->more);
    pthread_mutex_destroy(&s->lock);
}

#endif /* WEFT_TEST_GRAPH_SERVICE_H */
