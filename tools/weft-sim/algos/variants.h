/* SPDX-License-Identifier: Apache-2.0 */
/* The variants of the shipped deque that no single-access override can
 * make (variants.c): deliberately wrong, for weft-sim to catch. */
#ifndef WEFT_SIM_VARIANTS_H
#define WEFT_SIM_VARIANTS_H

/* weft-cas-before-read's poll: base advanced before the slot is read. */
int sim_weft_poll_cas_first(void **out);
/* weft-pop-oldest's pop: the owner takes the oldest task, at base. */
void *sim_weft_pop_oldest(void);

#endif
