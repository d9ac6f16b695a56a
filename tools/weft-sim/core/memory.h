/* SPDX-License-Identifier: Apache-2.0 */
/* The simulated memory: the arena the algorithms allocate from, the words
 * the simulator keeps for itself (each task's contents and completion
 * flag, the handoff word), the objects arm's address dependencies go
 * through, the rings, and the names the log gives locations. */
#ifndef WEFT_SIM_MEMORY_H
#define WEFT_SIM_MEMORY_H

#include <stddef.h>
#include <stdint.h>

#include "core/sim.h"

/* Empty the arena and forget every object and name; zero the simulator's
 * own words (sim_reset, before the algorithm's init). */
void sim_memory_reset(void);

/* Bump allocator reset by every sim_reset, so that an execution replayed
 * from the start gets the same addresses. */
void *sim_alloc(size_t bytes);
/* A value with arena addresses made relative to the arena, so that it is
 * the same in every run of the program (the arena moves with ASLR). */
uint64_t sim_stable_value(uint64_t v);

/* What a task's contents and its completion flag are, for the arm and c11
 * models: the pusher writes the contents (a plain write) before it
 * pushes; whoever takes the task reads them; with --reuse the taker then
 * sets the flag (release) and the owner reuses a value only once it has
 * read every one of its flags (acquire), as a join does. */
uint64_t *sim_task_contents(int value);
_Atomic int64_t *sim_task_done(int value);
/* A change of owner: the deque passes from one thread to another through
 * a release store and an acquire load of this word, as a caller slot's
 * deque passes from one caller to the next. */
_Atomic int64_t *sim_handoff_word(void);
/* The kernel's ticket counter of the futex word addr (made on first use
 * in an execution, named "futex(epoch)"); NULL when there are too many. */
_Atomic int64_t *sim_futex_word(volatile void *addr);

/* An object whose address range [lo, lo + size) is reached through the
 * pointer value `handle`: arm's address dependencies come from the read
 * that returned it.  Rings and task contents are registered. */
void sim_register_object(uint64_t handle, volatile void *lo, size_t size);
bool sim_object_of(volatile void *addr, uint64_t *handle);

/* Record a ring an algorithm allocated (and its object); false when the
 * table is full.  sim_register_ring (access.h) is what algorithms call. */
bool sim_ring_add(const void *ring, volatile void *slots, int64_t cap);
const sim_ring *sim_ring_of(const void *ring);
/* The header word of the ring whose slot addr is, when the thread must
 * read it first (arm, c11); NULL otherwise. */
volatile void *sim_ring_header_for(int thread, volatile void *addr);

/* Name of a location: "top", "base", "array", "a[3]", "a'[1]", or hex. */
void sim_loc_name(volatile void *addr, char *out, size_t n);
void sim_register_name(volatile void *addr, const char *name);
/* Tell the simulator where an algorithm keeps base, top and the ring
 * pointer: the explorer's checks read them, the log names them. */
void sim_register_deque(volatile void *base, volatile void *top,
                        volatile void *array);

#endif
