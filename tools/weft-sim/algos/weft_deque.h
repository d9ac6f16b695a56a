/* SPDX-License-Identifier: Apache-2.0 */
/* The shipped deque in the simulator (weft_deque.c), and what weft-sim
 * needs to know of src/deque.c's private ring.
 *
 * struct wf__ring is private to deque.c.  This is a mirror of it;
 * weft_deque.c checks at start-up that it still matches (the allocation
 * size and the capacity deque.c reports), and refuses to run if deque.c
 * changed it. */
#ifndef WEFT_SIM_WEFT_DEQUE_H
#define WEFT_SIM_WEFT_DEQUE_H

#include <stdint.h>

#include "core/algo.h"
#include "weft/deque.h"

struct wf__ring {
    int64_t mask;
    struct wf__ring *prev;
    _Atomic(void *) slot[];
};

/* The deque every weft algorithm of the simulator runs on. */
extern wf_deque sim_weft_dq;

/* The operations of sim_algo_weft and of its mutants (mutants.c). */
int sim_weft_init(int capacity);
void sim_weft_destroy(void);
int sim_weft_push(void *x);
int sim_weft_push_n(void *const *xs, size_t n);
void *sim_weft_pop(void);
int sim_weft_poll(void **out);

#endif
