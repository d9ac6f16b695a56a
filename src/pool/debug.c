/* SPDX-License-Identifier: Apache-2.0 */
/* Debug mode (WEFT_DEBUG=1; on by default in the sanitizer builds, which
 * are built with WF_DEBUG_DEFAULT=1): checks that cost a little on every
 * task, and reports that would be noise in production, for mistakes that
 * otherwise fail silently or far from their cause. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "internal/base/env.h"
#include "internal/pool/debug.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#endif

#ifndef WF_DEBUG_DEFAULT
#define WF_DEBUG_DEFAULT 0
#endif

static bool debug_on;

static void read_debug_env(void)
{
    debug_on = wf__env_uint("WEFT_DEBUG", WF_DEBUG_DEFAULT, 1) != 0;
}

bool wf__debug(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, read_debug_env);
    return debug_on;
}

/* "name" or "file+0xoffset" for a code address, so that addr2line -e file
 * finds a function that is not exported (most of a program's are not). */
static void print_code(FILE *f, const char *what, const void *fn)
{
    Dl_info info;
    if (dladdr(fn, &info) && info.dli_sname)
        fprintf(f, "%s %s", what, info.dli_sname);
    else if (dladdr(fn, &info) && info.dli_fname)
        fprintf(
            f, "%s %s+%#lx", what, info.dli_fname,
            (unsigned long)((const char *)fn - (const char *)info.dli_fbase));
    else
        fprintf(f, "%s %p", what, fn);
}

wf_task *wf__debug_top(wf__worker *w)
{
    return w->fast.sp > w->fast.bp ? w->fast.sp[-1] : NULL;
}

/* This thread's stack, found once. */
static _Thread_local const char *stack_lo, *stack_hi;

/* Is t in a frame that has returned: on this thread's stack below
 * `floor`, the frame that called the body, or (AddressSanitizer) in a
 * frame it has poisoned?  Such a frame must not be read: its flags may be
 * anything by now. */
static bool frame_gone(const wf_task *t, const void *floor)
{
#if defined(__SANITIZE_ADDRESS__)
    if (__asan_region_is_poisoned((void *)t, sizeof *t))
        return true;
#endif
    if (stack_hi == NULL) {
        pthread_attr_t a;
        void *lo;
        size_t size;
        if (pthread_getattr_np(pthread_self(), &a) != 0)
            return false;
        if (pthread_attr_getstack(&a, &lo, &size) == 0) {
            stack_lo = lo;
            stack_hi = stack_lo + size;
        }
        pthread_attr_destroy(&a);
    }
    const char *p = (const char *)t;
    return p >= stack_lo && p < (const char *)floor;
}

/* Private tasks are newest at the top, and the stack may be compacted or
 * moved while the body runs, so the body's own are those found above
 * `top`, the task that was newest when it began (all of them if `top` was
 * published meanwhile: publishing takes the oldest first).  A detached
 * task (wf_submit, a graph's) is not joined, unless its frame is gone. */
void wf__debug_frame_exit(wf__worker *w, wf_task *top, const void *body,
                          const void *floor)
{
    for (wf_task **s = w->fast.sp; s > w->fast.bp && s[-1] != top; s--) {
        wf_task *t = s[-1];
        if (!frame_gone(t, floor) && (t->flags_ & WF__TASK_DETACHED))
            continue;
        fputs("weft: a task was spawned and never joined: ", stderr);
        if (!frame_gone(t, floor))
            print_code(stderr, "its function", (const void *)t->fn);
        else
            fprintf(stderr, "its frame at %p", (void *)t);
        print_code(stderr, ", spawned under", body);
        fputs(", which returned without wf_join.  The task's frame is\n"
              "weft: gone with the function that held it; running it "
              "would crash.  (WEFT_DEBUG; for FILE+0xN, addr2line -f -e "
              "FILE 0xN names the function)\n",
              stderr);
        abort();
    }
}
