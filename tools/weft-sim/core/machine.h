/* SPDX-License-Identifier: Apache-2.0 */
/* The memory machine of sc, tso and pso (machine.c): memory, the store
 * buffers, the processes the scheduler chooses between, and what one step
 * does.  The graph models (models/wmm.h) never write memory; they read a
 * location's initial value from it. */
#ifndef WEFT_SIM_MACHINE_H
#define WEFT_SIM_MACHINE_H

#include "core/sim.h"

/* Memory word as the machine holds it (no buffers). */
uint64_t sim_mem_read(volatile void *addr);
/* The same for a word of size bytes (4 or 8; 0 means 8). */
uint64_t sim_mem_read_n(volatile void *addr, int size);
/* v as a word of size bytes holds it (a 4-byte word: its low half). */
uint64_t sim_fit(int size, uint64_t v);
/* The newest value of addr thread t would read (its buffer first). */
uint64_t sim_view(int t, volatile void *addr);

/* pid of a thread's buffer process for addr (PSO) or for all (TSO); -1. */
int sim_buf_pid(int thread, volatile void *addr);
/* Index in its thread's buffer of the store buffer process pid drains
 * next, or -1 when it has nothing to drain. */
int sim_buf_head(int pid);
/* 0: the access runs whatever the buffers hold; 1: it waits for an empty
 * store buffer (RMW, mfence, seq_cst store); 2: PSO release store, waits
 * for the thread's stores to other locations. */
int sim_needs_drain(const sim_access *a);
bool sim_proc_enabled(int pid);

/* Execute access a of thread t on the machine (t = -1: outside any
 * thread, at once on memory). */
void sim_exec(int t, sim_access *a);
/* Fold the values an access read into its thread's hash: two executions
 * that differ only in the order of independent steps read the same values,
 * which is how the tests compare the reduced search with the full one. */
void sim_hash_reads(sim_thread *th, const sim_access *a);
/* Execute one step of process pid (must be enabled); fills *info. */
void sim_step(int pid, sim_step_info *info);
/* Run thread t to its next access (its pending one was executed). */
void sim_resume(int t);

#endif
