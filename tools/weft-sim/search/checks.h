/* SPDX-License-Identifier: Apache-2.0 */
/* The checks at the end of a complete execution (checks.c). */
#ifndef WEFT_SIM_CHECKS_H
#define WEFT_SIM_CHECKS_H

/* Every task taken once or still in the deque, a consistent final state,
 * LIFO for the owner and FIFO for thieves: fills S.fail. */
void explore_final_check(void);

#endif
