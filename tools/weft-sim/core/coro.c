/* SPDX-License-Identifier: Apache-2.0 */
/* Coroutines: makecontext for the first entry, _setjmp/_longjmp after.
 * _FORTIFY_SOURCE's longjmp check rejects jumps between stacks, which is
 * exactly what this file does on purpose. */
#undef _FORTIFY_SOURCE
#include "core/coro.h"

#include <stdint.h>
#include <stdlib.h>

/* The scheduler's context while a coroutine runs (one level only: the
 * scheduler never runs inside a coroutine). */
static jmp_buf sched_ctx;
static coro *entering; /* the coroutine whose trampoline is starting */

static void trampoline(void)
{
    coro *c = entering;
    c->entered = 1;
    /* Restart point: coro_switch_in jumps here to start fn afresh. */
    _setjmp(c->restart);
    c->fresh = 0;
    c->fn(c->arg);
    /* fn returned: park for good until the next restart. */
    for (;;)
        coro_yield(c);
}

int coro_init(coro *c, void (*fn)(void *), void *arg, size_t stack_size)
{
    c->stack = malloc(stack_size);
    if (c->stack == NULL)
        return -1;
    c->stack_size = stack_size;
    c->fn = fn;
    c->arg = arg;
    c->entered = 0;
    c->fresh = 1;
    return 0;
}

void coro_free(coro *c)
{
    free(c->stack);
    c->stack = NULL;
}

void coro_reset(coro *c)
{
    c->fresh = 1;
}

void coro_switch_in(coro *c)
{
    if (_setjmp(sched_ctx))
        return; /* the coroutine yielded */
    if (!c->entered) {
        ucontext_t here;
        getcontext(&c->uc);
        c->uc.uc_stack.ss_sp = c->stack;
        c->uc.uc_stack.ss_size = c->stack_size;
        c->uc.uc_link = NULL;
        makecontext(&c->uc, trampoline, 0);
        entering = c;
        swapcontext(&here, &c->uc); /* never returns: we come back by jmp */
        abort();
    }
    if (c->fresh)
        _longjmp(c->restart, 1);
    _longjmp(c->resume, 1);
}

void coro_yield(coro *c)
{
    if (_setjmp(c->resume))
        return; /* switched back in */
    _longjmp(sched_ctx, 1);
}
