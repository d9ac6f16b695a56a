/* SPDX-License-Identifier: Apache-2.0 */
/* The simulated memory (memory.h): the arena, the simulator's own words,
 * objects, rings and the names of locations. */
#include <stdio.h>
#include <string.h>

#include "core/memory.h"

#define ARENA_SIZE (1u << 20)
static _Alignas(128) unsigned char arena[ARENA_SIZE];
static size_t arena_used;

static _Alignas(64) uint64_t contents[SIM_MAX_VALUES];
static _Alignas(64) _Atomic int64_t done_flag[SIM_MAX_VALUES];
static _Alignas(64) _Atomic int64_t handoff_word;

/* The kernel's side of each futex word (Linux futex(2)): a ticket counter
 * that every FUTEX_WAIT and FUTEX_WAKE on the word takes in turn, as the
 * kernel serialises them under the lock of the word's hash bucket. */
#define MAX_FUTEXES 4
typedef struct futex_word {
    volatile void *addr;
    _Alignas(64) _Atomic int64_t ticket;
    char name[40];
} futex_word;
static futex_word futexes[MAX_FUTEXES];
static int nfutexes;

/* Objects reached through a pointer (arm's address dependencies). */
#define MAX_OBJECTS 64
typedef struct sim_object {
    uint64_t handle;
    uintptr_t lo, hi;
} sim_object;
static sim_object objects[MAX_OBJECTS];
static int nobjects;

/* Named locations: the deque's fields, a litmus test's variables. */
#define MAX_NAMES 32
typedef struct loc_name {
    volatile void *addr;
    const char *name;
} loc_name;
static loc_name names[MAX_NAMES];
static int nnames;

void sim_memory_reset(void)
{
    arena_used = 0;
    nnames = 0;
    nobjects = 0;
    memset(contents, 0, sizeof contents);
    for (int v = 0; v < SIM_MAX_VALUES; v++) {
        done_flag[v] = 0;
        sim_register_object((uint64_t)(uintptr_t)SIM_VALUE(v), &contents[v], 8);
    }
    handoff_word = 0;
    sim_register_name(&handoff_word, "handoff");
    nfutexes = 0;
}

_Atomic int64_t *sim_futex_word(volatile void *addr)
{
    for (int i = 0; i < nfutexes; i++)
        if (futexes[i].addr == addr)
            return &futexes[i].ticket;
    if (nfutexes == MAX_FUTEXES)
        return NULL;
    futex_word *f = &futexes[nfutexes++];
    f->addr = addr;
    f->ticket = 0;
    char loc[32];
    sim_loc_name(addr, loc, sizeof loc);
    snprintf(f->name, sizeof f->name, "futex(%s)", loc);
    sim_register_name(&f->ticket, f->name);
    return &f->ticket;
}

void *sim_alloc(size_t bytes)
{
    size_t at = (arena_used + 127) & ~(size_t)127; /* cache-line aligned */
    if (at + bytes > ARENA_SIZE)
        return NULL;
    arena_used = at + bytes;
    memset(arena + at, 0, bytes);
    return arena + at;
}

uint64_t sim_stable_value(uint64_t v)
{
    uintptr_t lo = (uintptr_t)arena;
    return v >= lo && v < lo + ARENA_SIZE ? v - lo : v;
}

uint64_t *sim_task_contents(int value)
{
    return &contents[value];
}

_Atomic int64_t *sim_task_done(int value)
{
    return &done_flag[value];
}

_Atomic int64_t *sim_handoff_word(void)
{
    return &handoff_word;
}

/* ---- objects and rings -------------------------------------------------- */

void sim_register_object(uint64_t handle, volatile void *lo, size_t size)
{
    if (nobjects < MAX_OBJECTS)
        objects[nobjects++] =
            (sim_object){handle, (uintptr_t)lo, (uintptr_t)lo + size};
}

bool sim_object_of(volatile void *addr, uint64_t *handle)
{
    uintptr_t a = (uintptr_t)addr;
    for (int i = nobjects - 1; i >= 0; i--)
        if (a >= objects[i].lo && a < objects[i].hi) {
            *handle = objects[i].handle;
            return true;
        }
    return false;
}

bool sim_ring_add(const void *ring, volatile void *slots, int64_t cap)
{
    if (S.nrings == SIM_MAX_RINGS)
        return false;
    S.rings[S.nrings++] = (sim_ring){ring, slots, cap, S.cur};
    uintptr_t end = (uintptr_t)slots + (uintptr_t)cap * 8;
    sim_register_object((uint64_t)(uintptr_t)ring, (volatile void *)ring,
                        end - (uintptr_t)ring);
    return true;
}

volatile void *sim_ring_header_for(int thread, volatile void *addr)
{
    uintptr_t a = (uintptr_t)addr;
    for (int r = 0; r < S.nrings; r++) {
        const sim_ring *g = &S.rings[r];
        uintptr_t lo = (uintptr_t)g->slots;
        if (a >= lo && a < lo + (uintptr_t)g->cap * 8)
            return g->owner >= 0 && g->owner != thread
                       ? (volatile void *)g->ring
                       : NULL;
    }
    return NULL;
}

const sim_ring *sim_ring_of(const void *ring)
{
    for (int i = 0; i < S.nrings; i++)
        if (S.rings[i].ring == ring)
            return &S.rings[i];
    return NULL;
}

/* ---- names -------------------------------------------------------------- */

void sim_register_name(volatile void *addr, const char *name)
{
    if (nnames < MAX_NAMES)
        names[nnames++] = (loc_name){addr, name};
}

void sim_register_deque(volatile void *base, volatile void *top,
                        volatile void *array)
{
    S.base_addr = (volatile int64_t *)base;
    S.top_addr = (volatile int64_t *)top;
    S.array_addr = (void *volatile *)array;
    sim_register_name(base, "base");
    sim_register_name(top, "top");
    sim_register_name(array, "array");
}

void sim_loc_name(volatile void *addr, char *out, size_t n)
{
    uintptr_t p = (uintptr_t)addr;
    for (int v = 0; v < SIM_MAX_VALUES; v++)
        if (p == (uintptr_t)&contents[v] || p == (uintptr_t)&done_flag[v]) {
            snprintf(out, n, "%c.%s", 'A' + v,
                     p == (uintptr_t)&contents[v] ? "contents" : "done");
            return;
        }
    for (int r = 0; r < S.nrings; r++)
        if (p == (uintptr_t)S.rings[r].ring && S.rings[r].owner >= 0) {
            snprintf(out, n, "a%.*s.header", r, "''");
            return;
        }
    for (int i = 0; i < nnames; i++)
        if (names[i].addr == addr) {
            snprintf(out, n, "%s", names[i].name);
            return;
        }
    /* Ring slots: the first ring is a[], the next ones a'[], a''[] ... */
    for (int r = 0; r < S.nrings; r++) {
        const sim_ring *g = &S.rings[r];
        uintptr_t lo = (uintptr_t)g->slots;
        if (p >= lo && p < lo + (uintptr_t)g->cap * 8) {
            snprintf(out, n, "a%.*s[%d]", r, "''''''''", (int)((p - lo) / 8));
            return;
        }
    }
    snprintf(out, n, "@%p", (void *)addr);
}
