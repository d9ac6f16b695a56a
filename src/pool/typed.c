/* SPDX-License-Identifier: Apache-2.0 */
/* Typed tasks' frames (weft/task.h): per worker, a chain of segments of
 * WF_TASK_SEGMENT frames, used as a stack of stacks.  A typed body that
 * starts on a worker (stolen, run by a slow path, or by WF_RUN) takes the
 * next segment and gives it back when it returns, so it never writes over
 * the frames of the bodies it interrupted; a body whose spawns fill its
 * segment goes on in the next one, and its sync comes back
 * (wf__tsync_slow).
 *
 * The frames of the segment in use from tbp up to the body's frame top
 * (a register of the body, not stored) are private: they are this
 * worker's private stack for typed tasks, as [bp, sp) is for wf_spawn's.
 * A thief's request (tlimit NULL, P2) makes the next typed spawn publish
 * the older half of them: a pointer to each frame's task goes to the
 * deque (its release publishes the frames' contents) and tbp moves past
 * them.  Frames below tbp are the thieves' to take; their syncs wait as
 * wf_join does.  A segment that fills is published whole before the next
 * one is taken, so no frame is left private in a segment that is not in
 * use.  Segments stay allocated until the pool is destroyed.  Their
 * frames' task fields are zero between uses but owner_, which holds the
 * worker (a typed body needs only its frame top to reach it), and the
 * mark WF__TSLOT_SLOW in flags_, which a frame carries from its
 * publication (or, the first of a segment entered on overflow, from its
 * spawn) to its sync's slow path.  Only the worker's own thread touches
 * them but for the frames it has published. */
#include <string.h>

#include "internal/pool.h"

struct wf__tseg {
    WF__ALIGNAS(64) struct wf__tseg *prev, *next;
    wf__tslot *end;
    wf__tslot *tbp; /* the segment's tbp while a newer one is in use */
    bool overflow;  /* entered by a spawn that filled the one before */
    void *raw;      /* what the allocator returned */
    /* The frames, and past them one that is never filled: a spawn into a
     * full segment reads its owner (WF__TSLOT_WORKER) before its test. */
    wf__tslot slots[WF_TASK_SEGMENT + 1];
};

/* Allocate the segment after prev (NULL: the first); abort without
 * memory, since a spawn has no error to return. */
static struct wf__tseg *tseg_new(wf__worker *w, struct wf__tseg *prev)
{
    void *raw;
    struct wf__tseg *g = wf__alloc_aligned(&w->pool->alloc, sizeof *g, &raw);
    if (g == NULL) {
        fprintf(stderr, "weft: out of memory for %u typed task frames\n",
                (unsigned)WF_TASK_SEGMENT);
        abort();
    }
    memset(g, 0, sizeof *g); /* frames' task fields start at zero */
    for (size_t i = 0; i <= WF_TASK_SEGMENT; i++)
        g->slots[i].task.owner_ = &w->fast; /* but the owner, for good */
    g->prev = prev;
    g->end = g->slots + WF_TASK_SEGMENT;
    g->raw = raw;
    if (prev != NULL)
        prev->next = g;
    else
        w->tfirst = g;
    return g;
}

/* Point tlimit, the typed spawn's one test (P9), at end without losing a
 * request: a thief's NULL stored before the exchange is seen by it and
 * put back, one stored after it stays.  acq_rel, as wf__take_request's:
 * a segment change is rare. */
static void set_tlimit(struct wf__fast *f, wf__tslot *end)
{
    if (wf_exchange_acqrel(&f->tlimit, end) == NULL)
        wf_store_relaxed(&f->tlimit, NULL);
}

/* Take the next segment.  One entered on overflow keeps its first frame
 * out of tbp's reach, never published: its sync comes back to the
 * segment before (wf__tsync_slow). */
static wf__tslot *tseg_next(struct wf__fast *f, bool overflow)
{
    wf__worker *w = (wf__worker *)f;
    struct wf__tseg *cur = w->tseg;
    struct wf__tseg *g = cur ? cur->next : w->tfirst;
    if (cur != NULL)
        cur->tbp = w->tbp;
    if (g == NULL)
        g = tseg_new(w, cur);
    w->tseg = g;
    g->overflow = overflow;
    w->tend = g->end;
    w->tbp = g->slots + overflow;
    set_tlimit(f, g->end);
    return g->slots;
}

wf__tslot *wf__tseg_enter(struct wf__fast *f)
{
    return tseg_next(f, false);
}

void wf__tseg_leave(struct wf__fast *f)
{
    wf__worker *w = (wf__worker *)f;
    struct wf__tseg *g = w->tseg->prev;
    w->tseg = g;
    w->tend = g ? g->end : NULL;
    w->tbp = g ? g->tbp : NULL;
    if (g != NULL) /* else no typed body runs: tlimit is not read */
        set_tlimit(f, g->end);
}

bool wf__tseg_overflow_first(wf__worker *w, wf__tslot *s)
{
    return s == w->tseg->slots && w->tseg->overflow;
}

wf__tslot *wf__tseg_back(wf__worker *w)
{
    wf__tseg_leave(&w->fast);
    return w->tseg->end;
}

void wf__tseg_destroy(wf__worker *w)
{
    for (struct wf__tseg *g = w->tfirst, *next; g != NULL; g = next) {
        next = g->next;
        wf__free_aligned(&w->pool->alloc, g->raw, sizeof *g);
    }
    w->tfirst = w->tseg = NULL;
}

/* Publish the k frames from tbp on (P2, P6: the oldest first), and wake
 * a sleeper.  On allocation failure they stay private. */
static void publish_frames(wf__worker *w, size_t k)
{
    wf__tslot *s = w->tbp;
    void *batch[64];
    size_t done = 0;
    while (done < k) {
        size_t n = k - done < 64 ? k - done : 64;
        for (size_t i = 0; i < n; i++) {
            /* Its sync now takes the slow path; the push's release
             * publishes the mark with the frame. */
            s[done + i].task.flags_ = WF__TSLOT_SLOW;
            batch[i] = &s[done + i].task;
        }
        if (wf_deque_push_n(&w->deque, batch, n) != 0) {
            for (size_t i = 0; i < n; i++) /* no memory: these stay private */
                s[done + i].task.flags_ = 0;
            break;
        }
        done += n;
    }
    if (done == 0)
        return;
    w->tbp = s + done;
    /* A typed spawn is counted when it is published: one its own sync
     * calls was a function call, and counting it would cost every spawn
     * a store. */
    wf_store_relaxed(&w->stats.spawns,
                     wf_load_relaxed(&w->stats.spawns) + done);
    wf_counter_inc(&w->stats.publishes);
    wf__wake_one(w->pool, w);
}

/* The thunks through which a typed body enters wf__tspawn_slow and
 * wf__tsync_slow on x86-64 (weft/task.h, WF__THUNK_CALL): jumped to with
 * the arguments in rdi (and rsi), and the address to go back to in r11;
 * they return the C function's value in rdi and keep every other general
 * register but r10 and r11.  Each steps over the caller's red
 * zone, saves the registers the C function may change, aligns the stack
 * for the call, and jumps back.  The CFI says where the caller's rip and
 * rsp are at each instruction, so debuggers and unwinders see through.
 * Defined whenever the target is x86-64 ELF, whether this file is built
 * with ThreadSanitizer or not, since the code that uses them may be. */
#if defined(__x86_64__) && !defined(__ILP32__) && defined(__ELF__)
#if defined(__CET__) && (__CET__ & 1)
#define THUNK_ENDBR "endbr64\n"
#else
#define THUNK_ENDBR ""
#endif
#define THUNK(name, target)                                                    \
    __asm__(".pushsection .text\n"                                             \
            ".globl " #name "\n"                                               \
            ".type " #name ", @function\n"                                     \
            ".p2align 4\n" #name ":\n"                                         \
            ".cfi_startproc simple\n"                                          \
            ".cfi_def_cfa rsp, 0\n"  /* the caller's rsp, untouched */         \
            ".cfi_register 16, 11\n" /* its rip: in r11 */                     \
            THUNK_ENDBR "lea -128(%rsp), %rsp\n" /* over its red zone */       \
            ".cfi_def_cfa_offset 128\n"                                        \
            "push %r11\n"                                                      \
            ".cfi_def_cfa_offset 136\n"                                        \
            ".cfi_offset 16, -136\n"                                           \
            "push %rbp\n"                                                      \
            ".cfi_def_cfa_offset 144\n"                                        \
            ".cfi_offset rbp, -144\n"                                          \
            "mov %rsp, %rbp\n"                                                 \
            ".cfi_def_cfa_register rbp\n"                                      \
            "push %rax\n"                                                      \
            "push %rcx\n"                                                      \
            "push %rdx\n"                                                      \
            "push %rsi\n"                                                      \
            "push %r8\n"                                                       \
            "push %r9\n"                                                       \
            "and $-16, %rsp\n"                                                 \
            "call " #target "\n"                                               \
            "mov %rax, %rdi\n"                                                 \
            "lea -48(%rbp), %rsp\n"                                            \
            "pop %r9\n"                                                        \
            "pop %r8\n"                                                        \
            "pop %rsi\n"                                                       \
            "pop %rdx\n"                                                       \
            "pop %rcx\n"                                                       \
            "pop %rax\n"                                                       \
            "pop %rbp\n"                                                       \
            ".cfi_def_cfa rsp, 136\n"                                          \
            ".cfi_restore rbp\n"                                               \
            "pop %r11\n"                                                       \
            ".cfi_def_cfa_offset 128\n"                                        \
            ".cfi_register 16, 11\n"                                           \
            "lea 128(%rsp), %rsp\n"                                            \
            ".cfi_def_cfa_offset 0\n"                                          \
            "jmp *%r11\n"                                                      \
            ".cfi_endproc\n"                                                   \
            ".size " #name ", .-" #name "\n"                                   \
            ".popsection\n")
THUNK(wf__tspawn_thunk, wf__tspawn_slow);
THUNK(wf__tsync_thunk, wf__tsync_slow);
#endif

wf__tslot *wf__tspawn_slow(wf__tslot *s)
{
    struct wf__fast *f = WF__TSLOT_WORKER(s);
    wf__worker *w = (wf__worker *)f;
    if (s >= w->tend) { /* full: publish what is left, go on in the next */
        publish_frames(w, (size_t)(s - w->tbp));
        s = tseg_next(f, true);
        s->task.flags_ = WF__TSLOT_SLOW; /* its sync goes back (tbp too) */
    }
    /* A request is taken only with a frame to answer it (the asker may be
     * parked, and only a publish wakes it); the spawn after this one has
     * one. */
    size_t priv = s > w->tbp ? (size_t)(s - w->tbp) : 0;
    /* Relaxed: hints, read first so that no request costs no RMW. */
    if (priv > 0 &&
        (wf_load_relaxed(&f->tlimit) == NULL ||
         wf_load_relaxed(&f->limit) == NULL) &&
        wf__take_request(f))
        publish_frames(w, (priv + 1) / 2);
    return s;
}
