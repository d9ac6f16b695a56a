/* SPDX-License-Identifier: Apache-2.0 */
/* The instrumented atomics (access.c).  The wf__sim_* functions that
 * src/internal/sim_hook.h declares are defined there; this header adds
 * the simulator's own accesses. */
#ifndef WEFT_SIM_ACCESS_H
#define WEFT_SIM_ACCESS_H

#include "core/sim.h"

/* Called with every instrumented access as the code makes it, before a
 * mutant changes it, direct-mode ones included (weft-sim isa). */
extern void (*sim_site_hook)(const sim_access *a);
/* Non-atomic accesses of the simulator's scaffolding (arm and c11). */
uint64_t sim_plain_load(volatile void *p);
void sim_plain_store(volatile void *p, uint64_t v);
/* The same on a word of size bytes (4 or 8): a 4-byte field of a struct,
 * as a task's flags_. */
uint64_t sim_plain_load_n(volatile void *p, int size);
void sim_plain_store_n(volatile void *p, int size, uint64_t v);
/* A ring an algorithm allocated.  Under arm and c11, a ring allocated by
 * a thread gets a header: a plain write by that thread when it is
 * allocated, and a plain read before each other thread's first access to
 * its slots, so that reading a ring before its fields are written shows
 * (a stale read under arm, a race under c11). */
void sim_register_ring(const void *ring, volatile void *slots, int64_t cap);
/* Is thread t asleep for good at the end of an execution: its last futex
 * wait found the value it expected (so slept), had no timeout, and no
 * FUTEX_WAKE on the word with a later ticket woke it? */
bool sim_futex_asleep(int t);
/* Did thread t's last futex wait have a timeout, sleep, and get woken by
 * no FUTEX_WAKE: it ends only when its timeout runs out? */
bool sim_futex_sleeps_out(int t);

#endif
