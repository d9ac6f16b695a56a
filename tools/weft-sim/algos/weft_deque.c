/* SPDX-License-Identifier: Apache-2.0 */
/* The shipped deque in the simulator.
 *
 * src/deque.c is compiled into weft-sim unchanged, with -DWF_SIM; this
 * file only sets it up (its rings come from the simulator's arena, so that
 * every replay of an execution gets the same addresses) and tells the
 * simulator where base, top, array and the ring slots are.  Its mutants
 * (mutants.c) run the same functions. */
#include <string.h>

#include "algos/weft_deque.h"

wf_deque sim_weft_dq;

static void *ring_alloc(size_t bytes, void *ctx)
{
    (void)ctx;
    struct wf__ring *r = sim_alloc(bytes);
    if (r)
        sim_register_ring(r, r->slot,
                          (int64_t)((bytes - sizeof(struct wf__ring)) / 8));
    return r;
}

static void ring_free(void *p, size_t bytes, void *ctx)
{
    (void)p, (void)bytes, (void)ctx; /* the arena is reset as a whole */
}

int sim_weft_init(int capacity)
{
    wf_deque *dq = &sim_weft_dq;
    memset(dq, 0, sizeof *dq);
    wf_allocator al = {ring_alloc, ring_free, NULL};
    if (wf_deque_init(dq, (size_t)capacity, &al) != 0)
        return -1;
    /* The mirror of the private ring must still match deque.c. */
    const struct wf__ring *r = wf_load_relaxed(&dq->array);
    const sim_ring *g = sim_ring_of(r);
    if (!g || (size_t)g->cap != wf_deque_capacity(dq) ||
        r->mask + 1 != g->cap) {
        fprintf(stderr, "weft-sim: src/deque.c's struct wf__ring no longer "
                        "matches tools/weft-sim/algos/weft_deque.h\n");
        return -1;
    }
    sim_register_deque(&dq->base, &dq->top, &dq->array);
    return 0;
}

void sim_weft_destroy(void)
{
    wf_deque_destroy(&sim_weft_dq);
}

int sim_weft_push(void *x)
{
    return wf_deque_push(&sim_weft_dq, x);
}

int sim_weft_push_n(void *const *xs, size_t n)
{
    return wf_deque_push_n(&sim_weft_dq, xs, n);
}

void *sim_weft_pop(void)
{
    return wf_deque_pop(&sim_weft_dq);
}

int sim_weft_poll(void **out)
{
    return wf_deque_poll(&sim_weft_dq, out);
}
