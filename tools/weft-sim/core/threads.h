/* SPDX-License-Identifier: Apache-2.0 */
/* The simulated threads and their programs (threads.c): a fresh
 * execution, the operations queued on each thread, and running them to
 * their first access.  Steps are then the scheduler's (machine.h). */
#ifndef WEFT_SIM_THREADS_H
#define WEFT_SIM_THREADS_H

#include "core/algo.h"

/* Start a fresh execution: empty memory arena, threads without programs,
 * the algorithm initialised with a ring of `capacity`.  Returns 0 or -1. */
int sim_reset(const sim_algo *algo, int model, int nthreads, int capacity);
/* Queue an operation on a thread (it starts when the thread is idle). */
void sim_add_op(int thread, sim_op op);
/* A change of owner (OP_CALL bodies): the owner's release store of the
 * handoff word after its last operation, and the new owner's acquire load
 * of it, which decides whether its operations (if_owner) run. */
void sim_handoff_give(int thread);
void sim_handoff_take(int thread);
/* Let idle threads with queued operations run to their first access. */
void sim_start_ops(void);
bool sim_all_done(void);

#endif
