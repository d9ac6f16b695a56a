/* SPDX-License-Identifier: Apache-2.0 */
/* What weft-sim needs to know of src/deque.c's private ring, and the
 * variants of the shipped deque that no single-access override can make.
 *
 * struct wf__ring is private to deque.c.  This is a mirror of it; weft.c
 * checks at start-up that it still matches (the allocation size and the
 * capacity deque.c reports), and refuses to run if deque.c changed it. */
#ifndef WEFT_SIM_VARIANTS_H
#define WEFT_SIM_VARIANTS_H

#include <stdint.h>

#include "weft/deque.h"

struct wf__ring {
    int64_t mask;
    struct wf__ring *prev;
    _Atomic(void *) slot[];
};

/* The deque every weft algorithm of the simulator runs on (weft.c). */
extern wf_deque sim_weft_dq;

#endif
