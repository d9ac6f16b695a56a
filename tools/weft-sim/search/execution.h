/* SPDX-License-Identifier: Apache-2.0 */
/* One execution of a job (execution.c): both searches start each of
 * theirs here, and a failing schedule is replayed here for its report. */
#ifndef WEFT_SIM_EXECUTION_H
#define WEFT_SIM_EXECUTION_H

#include "search/explore.h"

/* Start an execution: reset, queue the job's operations, run every thread
 * to its first access.  Returns 0 or -1. */
int explore_start(const explore_job *job);
/* Replay one schedule from the start (logging hooks in S apply); stops
 * early at a failure; runs the final checks (which drain the deque) when
 * final_check is set.  Returns the number of steps executed. */
int explore_replay(const explore_job *job, const int *sched, int n,
                   bool final_check);

#endif
