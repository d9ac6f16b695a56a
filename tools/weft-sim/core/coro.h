/* SPDX-License-Identifier: Apache-2.0 */
/* Coroutines for simulated threads.
 *
 * A coroutine is entered once through makecontext/swapcontext, which puts it
 * on its own stack; after that, switches use _setjmp/_longjmp, which do not
 * save the signal mask (swapcontext makes a system call per switch, and the
 * explorer switches millions of times).  A coroutine can be restarted from
 * the top of its function at any time, abandoning whatever it was doing: the
 * explorer does that at the start of every execution. */
#ifndef WEFT_SIM_CORO_H
#define WEFT_SIM_CORO_H

#include <setjmp.h>
#include <stddef.h>
#include <ucontext.h>

typedef struct coro {
    jmp_buf resume;  /* where the coroutine continues               */
    jmp_buf restart; /* top of its trampoline, to start over        */
    ucontext_t uc;   /* only for the first entry onto the stack     */
    char *stack;
    size_t stack_size;
    void (*fn)(void *);
    void *arg;
    int entered; /* the trampoline runs on the stack            */
    int fresh;   /* next switch_in starts fn from the top        */
} coro;

/* Prepare c to run fn(arg) on a stack of its own.  Returns 0 or -1. */
int coro_init(coro *c, void (*fn)(void *), void *arg, size_t stack_size);
void coro_free(coro *c);
/* Make the next coro_switch_in start fn from the top. */
void coro_reset(coro *c);
/* Run c until it calls coro_yield (or its fn returns). */
void coro_switch_in(coro *c);
/* From inside the running coroutine: back to whoever switched it in. */
void coro_yield(coro *c);

#endif
