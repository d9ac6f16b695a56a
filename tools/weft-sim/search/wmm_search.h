/* SPDX-License-Identifier: Apache-2.0 */
/* The search over execution graphs, for arm, c11, c20 and c11std (the
 * graphs and the models' axioms are models/wmm.h's).
 *
 * The graphs are enumerated as TruSt does (Kokologiannakis, Marmanis,
 * Gladstein, Vafeiadis, "Truly stateless, optimal dynamic partial order
 * reduction", POPL 2022; the algorithm of GenMC): events are added one at
 * a time; a read is tried with every write it may read (forward
 * revisits); a new write is tried in every coherence position and may
 * revisit an earlier read of its location (backward revisit), which
 * deletes what was added after that read, unless the deleted part could be
 * reached otherwise (the maximality condition).  Each graph is reached
 * once.  Threads are the real code in coroutines: a graph is replayed by
 * re-running the threads from the start and handing each read the value of
 * the write it reads from. */
#ifndef WEFT_SIM_WMM_SEARCH_H
#define WEFT_SIM_WMM_SEARCH_H

#include "models/wmm.h"
#include "search/explore.h"

/* ---- replaying a graph (wmm_replay.c) ---------------------------------- */
/* Re-run the job's threads through graph g: 0; 1 when g has a po U rf
 * cycle the code does not repeat; -1 on an internal error.  *pending gets
 * the thread whose RMW read is g's last event and whose write is still to
 * add, or -1. */
int wmm_replay(const wg *g, const explore_job *job, int *pending);
/* Hand thread t the result of its pending access (event ev) and run it
 * to its next access. */
void wmm_deliver(int t, uint64_t result, bool ok, int ev);
/* Memory gets each atomic location's coherence-last value. */
void wmm_write_back(const wg *g);
/* Replay the failing graph of res with the logging hooks of S on (one
 * line per event, and what each read reads from).  Returns the number of
 * events. */
int wmm_replay_failure(const explore_job *job, const explore_result *res);

/* ---- the search (wmm_explore.c) ---------------------------------------- */
int wmm_run(const explore_job *job, explore_result *res);

#endif
