/* SPDX-License-Identifier: Apache-2.0 */
/* wait_until: wait for a condition of your own while helping the pool.
 *
 * 64 tasks search an array for a key, each its own chunk.  The one that
 * finds it stores the index (release) and calls wf_pool_notify; every
 * task counts itself out of `left` when it ends.  main waits with
 * wf_pool_wait_until until the key is found or every chunk is done: it
 * runs chunks itself meanwhile (in a caller slot), and sleeps only when
 * none is left to take.  It returns as soon as the key is found, while
 * other chunks may still run (they stop early); wf_pool_wait_idle then
 * waits for them before the array is freed.
 *
 * Build: cc -O2 wait_until.c $(pkg-config --cflags --libs weft)
 * Run:   ./wait_until  prints  key 4242424 found at index 4242424 among
 *                              8000000 values (ok) */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <weft.h>

#define VALUES 8000000
#define CHUNKS 64
#define KEY 4242424

typedef struct search search;
typedef struct {
    wf_task task; /* first: scan casts back to the chunk */
    search *s;
    size_t begin, end;
} chunk;

struct search {
    wf_pool *pool;
    const int *data;
    atomic_long found; /* the key's index, or -1 */
    atomic_int left;   /* chunks not done yet */
    chunk chunks[CHUNKS];
};

static void scan(wf_task *t)
{
    chunk *c = (chunk *)t;
    search *s = c->s;
    for (size_t i = c->begin; i < c->end; i++) {
        if (i % 4096 == 0 &&
            atomic_load_explicit(&s->found, memory_order_relaxed) >= 0)
            break; /* another chunk found it */
        if (s->data[i] == KEY) {
            atomic_store_explicit(&s->found, (long)i, memory_order_release);
            wf_pool_notify(s->pool);
            break;
        }
    }
    if (atomic_fetch_sub_explicit(&s->left, 1, memory_order_acq_rel) == 1)
        wf_pool_notify(s->pool); /* the last one: not found, or found */
}

static bool found_or_done(const void *arg)
{
    search *s = (search *)arg;
    return atomic_load_explicit(&s->found, memory_order_acquire) >= 0 ||
           atomic_load_explicit(&s->left, memory_order_acquire) == 0;
}

int main(void)
{
    wf_pool *pool = wf_pool_default();
    int *data = malloc(VALUES * sizeof *data);
    search *s = calloc(1, sizeof *s);
    if (pool == NULL || data == NULL || s == NULL) {
        fprintf(stderr, "wait_until: no pool or no memory\n");
        return 1;
    }
    for (int i = 0; i < VALUES; i++)
        data[i] = i;
    s->pool = pool;
    s->data = data;
    atomic_init(&s->found, -1);
    atomic_init(&s->left, CHUNKS);
    for (size_t k = 0; k < CHUNKS; k++) {
        s->chunks[k] = (chunk){.s = s,
                               .begin = k * VALUES / CHUNKS,
                               .end = (k + 1) * VALUES / CHUNKS};
        wf_submit(pool, &s->chunks[k].task, scan);
    }
    int err = wf_pool_wait_until(pool, found_or_done, s);
    long at = atomic_load_explicit(&s->found, memory_order_acquire);
    wf_pool_wait_idle(pool); /* the chunks still running read data */
    printf("key %d found at index %ld among %d values (%s)\n", KEY, at, VALUES,
           err == 0 && at == KEY ? "ok" : "WRONG");
    free(s);
    free(data);
    return err == 0 && at == KEY ? 0 : 1;
}
