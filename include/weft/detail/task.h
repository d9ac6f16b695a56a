/* SPDX-License-Identifier: Apache-2.0 */
/* The machinery of weft/task.h's typed tasks: frames, the definitions
 * that WF_TASK expands to, spawn and sync.
 *
 * Not API: the names here may change in any release.  Included by
 * weft/task.h, at its end; never include it directly. */
#ifndef WEFT_DETAIL_TASK_H
#define WEFT_DETAIL_TASK_H

#ifdef __cplusplus
extern "C" {
#endif

/* ", ##__VA_ARGS__", as in weft/task.h. */
#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wgnu-zero-variadic-macro-arguments"
#endif

/* Bytes of arguments and value per frame: a frame is two cache lines,
 * the task and the first 32 bytes in the first, so that a task with few
 * arguments (fib's) touches one line per spawn, and one with more (up to
 * eight pointers and a value; Lace allows six) needs no pointer to a
 * struct. */
#define WF__TSLOT_DATA 96

/* A frame: the task that thieves see, then the arguments and the value. */
typedef struct wf__tslot {
    WF__ALIGNAS(64) wf_task task;
    unsigned char data[WF__TSLOT_DATA];
} wf__tslot;

/* The worker whose segment holds frame s: every frame's task.owner_, and
 * that of the frame past a segment's end, which a spawn reads when the
 * segment is full. */
#define WF__TSLOT_WORKER(s) ((struct wf__fast *)(s)->task.owner_)
/* A frame's task.flags_ bit, set by its owner: its sync takes the slow
 * path (the frame was published, or is the first of a segment entered
 * on overflow).  No other flag of the pool's uses it. */
#define WF__TSLOT_SLOW 8u

/* Slow paths (src/pool/typed.c: segments and spawns; src/pool/join.c:
 * syncs). */
/* The first frame of a new segment for a typed body that starts on
 * the calling worker (a stolen frame, WF_RUN). */
WF_API __attribute__((cold)) wf__tslot *wf__tseg_enter(struct wf__fast *w);
/* The body that entered the newest segment has returned. */
WF_API __attribute__((cold)) void wf__tseg_leave(struct wf__fast *w);
/* A spawn into frame s found a thief's request, or s at its segment's
 * end (the next segment's first frame): publishes frames, or moves the
 * body on to the next segment.  The frame to fill is s, always. */
WF_API __attribute__((cold)) void wf__tspawn_slow(wf__tslot *s);
/* Sync the frame s, published (stolen, perhaps run already), the first
 * of a segment entered on overflow, or marked by debug mode; it then
 * holds the value, and s is the body's frame top again.  run: the task
 * type's runner, which the frame must hold; tp0: the syncing body's first
 * frame, at or below s; name: the task type's name (each else aborts
 * with a message). */
WF_API __attribute__((cold)) void
wf__tsync_slow(wf__tslot *s, wf_task_fn run, wf__tslot *tp0, const char *name);
/* A body returns with frames [tp0, top) not synced: sync them, newest
 * first (the implicit sync at a body's end). */
WF_API __attribute__((cold)) void wf__tsync_rest(wf__tslot *top,
                                                 wf__tslot *tp0);
/* WF_TASK_CHECKS: a sync found a frame of another task type, or one below
 * its body's first frame (aborts with a message naming the task). */
WF_API __attribute__((cold, noreturn)) void
wf__tsync_misuse(wf__tslot *s, wf__tslot *tp0, const char *name);

/* Parameter lists: (T1, A1, T2, A2, ...) -> the pieces each generated
 * function needs, by the number of macro arguments (name included). */
#define WF__CAT(a, b) WF__CAT_(a, b)
#define WF__CAT_(a, b) a##b
#define WF__NARG(...)                                                          \
    WF__NARG_(__VA_ARGS__, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4,   \
              3, 2, 1)
#define WF__NARG_(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, \
                  _15, _16, _17, n, ...)                                       \
    n
#define WF__EACH(m, ...) WF__CAT(m, WF__NARG(__VA_ARGS__))(__VA_ARGS__)

/* , T1 A1, T2 A2 ... */
#define WF__PARAMS_1(n)
#define WF__PARAMS_3(n, t1, a1) , t1 a1
#define WF__PARAMS_5(n, t1, a1, t2, a2) , t1 a1, t2 a2
#define WF__PARAMS_7(n, t1, a1, t2, a2, t3, a3) , t1 a1, t2 a2, t3 a3
#define WF__PARAMS_9(n, t1, a1, t2, a2, t3, a3, t4, a4)                        \
    , t1 a1, t2 a2, t3 a3, t4 a4
#define WF__PARAMS_11(n, t1, a1, t2, a2, t3, a3, t4, a4, t5, a5)               \
    , t1 a1, t2 a2, t3 a3, t4 a4, t5 a5
#define WF__PARAMS_13(n, t1, a1, t2, a2, t3, a3, t4, a4, t5, a5, t6, a6)       \
    , t1 a1, t2 a2, t3 a3, t4 a4, t5 a5, t6 a6
#define WF__PARAMS_15(n, t1, a1, t2, a2, t3, a3, t4, a4, t5, a5, t6, a6, t7,   \
                      a7)                                                      \
    , t1 a1, t2 a2, t3 a3, t4 a4, t5 a5, t6 a6, t7 a7
#define WF__PARAMS_17(n, t1, a1, t2, a2, t3, a3, t4, a4, t5, a5, t6, a6, t7,   \
                      a7, t8, a8)                                              \
    , t1 a1, t2 a2, t3 a3, t4 a4, t5 a5, t6 a6, t7 a7, t8 a8
/* , A1, A2 ... */
#define WF__ARGS_1(n)
#define WF__ARGS_3(n, t1, a1) , a1
#define WF__ARGS_5(n, t1, a1, t2, a2) , a1, a2
#define WF__ARGS_7(n, t1, a1, t2, a2, t3, a3) , a1, a2, a3
#define WF__ARGS_9(n, t1, a1, t2, a2, t3, a3, t4, a4) , a1, a2, a3, a4
#define WF__ARGS_11(n, t1, a1, t2, a2, t3, a3, t4, a4, t5, a5)                 \
    , a1, a2, a3, a4, a5
#define WF__ARGS_13(n, t1, a1, t2, a2, t3, a3, t4, a4, t5, a5, t6, a6)         \
    , a1, a2, a3, a4, a5, a6
#define WF__ARGS_15(n, t1, a1, t2, a2, t3, a3, t4, a4, t5, a5, t6, a6, t7, a7) \
    , a1, a2, a3, a4, a5, a6, a7
#define WF__ARGS_17(n, t1, a1, t2, a2, t3, a3, t4, a4, t5, a5, t6, a6, t7, a7, \
                    t8, a8)                                                    \
    , a1, a2, a3, a4, a5, a6, a7, a8
/* T1 A1; T2 A2; ... */
#define WF__FIELDS_1(n)
#define WF__FIELDS_3(n, t1, a1) t1 a1;
#define WF__FIELDS_5(n, t1, a1, t2, a2)                                        \
    t1 a1;                                                                     \
    t2 a2;
#define WF__FIELDS_7(n, t1, a1, t2, a2, t3, a3)                                \
    t1 a1;                                                                     \
    t2 a2;                                                                     \
    t3 a3;
#define WF__FIELDS_9(n, t1, a1, t2, a2, t3, a3, t4, a4)                        \
    t1 a1;                                                                     \
    t2 a2;                                                                     \
    t3 a3;                                                                     \
    t4 a4;
#define WF__FIELDS_11(n, t1, a1, t2, a2, t3, a3, t4, a4, t5, a5)               \
    t1 a1;                                                                     \
    t2 a2;                                                                     \
    t3 a3;                                                                     \
    t4 a4;                                                                     \
    t5 a5;
#define WF__FIELDS_13(n, t1, a1, t2, a2, t3, a3, t4, a4, t5, a5, t6, a6)       \
    t1 a1;                                                                     \
    t2 a2;                                                                     \
    t3 a3;                                                                     \
    t4 a4;                                                                     \
    t5 a5;                                                                     \
    t6 a6;
#define WF__FIELDS_15(n, t1, a1, t2, a2, t3, a3, t4, a4, t5, a5, t6, a6, t7,   \
                      a7)                                                      \
    t1 a1;                                                                     \
    t2 a2;                                                                     \
    t3 a3;                                                                     \
    t4 a4;                                                                     \
    t5 a5;                                                                     \
    t6 a6;                                                                     \
    t7 a7;
#define WF__FIELDS_17(n, t1, a1, t2, a2, t3, a3, t4, a4, t5, a5, t6, a6, t7,   \
                      a7, t8, a8)                                              \
    t1 a1;                                                                     \
    t2 a2;                                                                     \
    t3 a3;                                                                     \
    t4 a4;                                                                     \
    t5 a5;                                                                     \
    t6 a6;                                                                     \
    t7 a7;                                                                     \
    t8 a8;
/* , f_->A1, f_->A2 ... */
#define WF__READ_1(n)
#define WF__READ_3(n, t1, a1) , f_->a1
#define WF__READ_5(n, t1, a1, t2, a2) , f_->a1, f_->a2
#define WF__READ_7(n, t1, a1, t2, a2, t3, a3) , f_->a1, f_->a2, f_->a3
#define WF__READ_9(n, t1, a1, t2, a2, t3, a3, t4, a4)                          \
    , f_->a1, f_->a2, f_->a3, f_->a4
#define WF__READ_11(n, t1, a1, t2, a2, t3, a3, t4, a4, t5, a5)                 \
    , f_->a1, f_->a2, f_->a3, f_->a4, f_->a5
#define WF__READ_13(n, t1, a1, t2, a2, t3, a3, t4, a4, t5, a5, t6, a6)         \
    , f_->a1, f_->a2, f_->a3, f_->a4, f_->a5, f_->a6
#define WF__READ_15(n, t1, a1, t2, a2, t3, a3, t4, a4, t5, a5, t6, a6, t7, a7) \
    , f_->a1, f_->a2, f_->a3, f_->a4, f_->a5, f_->a6, f_->a7
#define WF__READ_17(n, t1, a1, t2, a2, t3, a3, t4, a4, t5, a5, t6, a6, t7, a7, \
                    t8, a8)                                                    \
    , f_->a1, f_->a2, f_->a3, f_->a4, f_->a5, f_->a6, f_->a7, f_->a8
/* f_->A1 = A1; f_->A2 = A2; ... */
#define WF__WRITE_1(n)
#define WF__WRITE_3(n, t1, a1) f_->a1 = a1;
#define WF__WRITE_5(n, t1, a1, t2, a2)                                         \
    f_->a1 = a1;                                                               \
    f_->a2 = a2;
#define WF__WRITE_7(n, t1, a1, t2, a2, t3, a3)                                 \
    f_->a1 = a1;                                                               \
    f_->a2 = a2;                                                               \
    f_->a3 = a3;
#define WF__WRITE_9(n, t1, a1, t2, a2, t3, a3, t4, a4)                         \
    f_->a1 = a1;                                                               \
    f_->a2 = a2;                                                               \
    f_->a3 = a3;                                                               \
    f_->a4 = a4;
#define WF__WRITE_11(n, t1, a1, t2, a2, t3, a3, t4, a4, t5, a5)                \
    f_->a1 = a1;                                                               \
    f_->a2 = a2;                                                               \
    f_->a3 = a3;                                                               \
    f_->a4 = a4;                                                               \
    f_->a5 = a5;
#define WF__WRITE_13(n, t1, a1, t2, a2, t3, a3, t4, a4, t5, a5, t6, a6)        \
    f_->a1 = a1;                                                               \
    f_->a2 = a2;                                                               \
    f_->a3 = a3;                                                               \
    f_->a4 = a4;                                                               \
    f_->a5 = a5;                                                               \
    f_->a6 = a6;
#define WF__WRITE_15(n, t1, a1, t2, a2, t3, a3, t4, a4, t5, a5, t6, a6, t7,    \
                     a7)                                                       \
    f_->a1 = a1;                                                               \
    f_->a2 = a2;                                                               \
    f_->a3 = a3;                                                               \
    f_->a4 = a4;                                                               \
    f_->a5 = a5;                                                               \
    f_->a6 = a6;                                                               \
    f_->a7 = a7;
#define WF__WRITE_17(n, t1, a1, t2, a2, t3, a3, t4, a4, t5, a5, t6, a6, t7,    \
                     a7, t8, a8)                                               \
    f_->a1 = a1;                                                               \
    f_->a2 = a2;                                                               \
    f_->a3 = a3;                                                               \
    f_->a4 = a4;                                                               \
    f_->a5 = a5;                                                               \
    f_->a6 = a6;                                                               \
    f_->a7 = a7;                                                               \
    f_->a8 = a8;

#if defined(__cplusplus)
#define WF__STATIC_ASSERT static_assert
#else
#define WF__STATIC_ASSERT _Static_assert
#endif

/* Jump to label if s is at or past w's tlimit: the typed spawn's one test
 * (P9), a relaxed load of tlimit.  On x86-64 one compare with memory and a
 * branch, in asm: an aligned 8-byte load is single-copy atomic there; gcc
 * does not fold an atomic load into a compare, and would keep tlimit's
 * address in one more callee-saved register of every typed body; and a
 * branch in asm keeps the body's loop laid out with the test on top.
 * Under ThreadSanitizer, which must see the load, the atomic one. */
#if defined(__x86_64__) && !defined(__ILP32__) && !defined(WF__TSAN)
#define WF__TSPAWN_CHECK(w, s, label)                                          \
    __asm__ goto("cmpq %1, %0\n\tjae %l2"                                      \
                 :                                                             \
                 : "r"(s), "m"((w)->tlimit)                                    \
                 : "cc"                                                        \
                 : label)
#else
#define WF__TSPAWN_CHECK(w, s, label)                                          \
    do {                                                                       \
        if (__builtin_expect((uintptr_t)(s) >=                                 \
                                 (uintptr_t)WF__LOAD_RELAXED(&(w)->tlimit),    \
                             0))                                               \
            goto label;                                                        \
    } while (0)
#endif

/* How a typed body reaches its slow paths.  On x86-64 ELF (but under
 * ThreadSanitizer) through thunks (src/internal/pool/thunk.h) that keep every
 * general register but r10 and r11: a body then keeps its values in
 * caller-saved registers across a spawn and a sync, instead of in
 * callee-saved ones that every call of it, leaves included, would push and
 * pop.  The asm says what the thunk's C code may change: memory, the
 * flags, and the vector, x87 and mask registers (the compiler keeps no
 * value in those across it).  A thunk is entered by a jump through the
 * GOT (no PLT stub, which could change r11), with the address to come
 * back to in r11, so the caller's red zone and stack are untouched and the
 * thunk's unwind information finds the caller (an indirect jump's target
 * starts with endbr64 under -fcf-protection).
 * APX's extra registers are not listed: those builds use the calls. */
#if defined(__x86_64__) && !defined(__ILP32__) && defined(__ELF__) &&          \
    !defined(WF__TSAN) && !defined(__APX_F__)
WF_API void wf__tspawn_thunk(void);
WF_API void wf__tsync_thunk(void);
WF_API void wf__trest_thunk(void);
#if defined(__CET__) && (__CET__ & 1)
#define WF__ENDBR "endbr64\n\t"
#else
#define WF__ENDBR ""
#endif
#ifdef __AVX512F__
#define WF__AVX512_CLOBBERS                                                    \
    , "xmm16", "xmm17", "xmm18", "xmm19", "xmm20", "xmm21", "xmm22", "xmm23",  \
        "xmm24", "xmm25", "xmm26", "xmm27", "xmm28", "xmm29", "xmm30",         \
        "xmm31", "k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7"
#else
#define WF__AVX512_CLOBBERS
#endif
#define WF__THUNK_CLOBBERS                                                     \
    "cc", "memory", "r10", "r11", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4",      \
        "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12",     \
        "xmm13", "xmm14", "xmm15", "st", "st(1)", "st(2)", "st(3)", "st(4)",   \
        "st(5)", "st(6)", "st(7)", "mm0", "mm1", "mm2", "mm3", "mm4", "mm5",   \
        "mm6", "mm7" WF__AVX512_CLOBBERS
#define WF__THUNK_CALL(thunk)                                                  \
    "lea 1f(%%rip), %%r11\n\t"                                                 \
    "jmp *" #thunk "@GOTPCREL(%%rip)\n"                                        \
    "1:\n\t" WF__ENDBR
/* Each thunk changes rdi (the C function's first argument), and keeps
 * every other general register but r10 and r11. */
#define WF__TSPAWN_SLOW(s)                                                     \
    do {                                                                       \
        wf__tslot *ts_ = (s);                                                  \
        __asm__ volatile(WF__THUNK_CALL(wf__tspawn_thunk)                      \
                         : "+D"(ts_)                                           \
                         :                                                     \
                         : WF__THUNK_CLOBBERS);                                \
    } while (0)
#define WF__TSYNC_SLOW(s, run, tp0, name)                                      \
    do {                                                                       \
        wf__tslot *ts_ = (s);                                                  \
        __asm__ volatile(WF__THUNK_CALL(wf__tsync_thunk)                       \
                         : "+D"(ts_)                                           \
                         : "S"(run), "d"(tp0), "c"(name)                       \
                         : WF__THUNK_CLOBBERS);                                \
    } while (0)
#define WF__TSYNC_REST(top, tp0)                                               \
    do {                                                                       \
        wf__tslot *ts_ = (top);                                                \
        __asm__ volatile(WF__THUNK_CALL(wf__trest_thunk)                       \
                         : "+D"(ts_)                                           \
                         : "S"(tp0)                                            \
                         : WF__THUNK_CLOBBERS);                                \
    } while (0)
/* The runner's address, made where it is stored: gcc would otherwise keep
 * it in a callee-saved register of the body. */
#define WF__RUNNER(fn)                                                         \
    __extension__({                                                            \
        wf_task_fn r_;                                                         \
        __asm__ volatile("lea %c1(%%rip), %0" : "=r"(r_) : "i"(fn));           \
        r_;                                                                    \
    })
#else
#define WF__TSPAWN_SLOW(s) wf__tspawn_slow(s)
#define WF__TSYNC_SLOW(s, run, tp0, name) wf__tsync_slow(s, run, tp0, name)
#define WF__TSYNC_REST(top, tp0) wf__tsync_rest(top, tp0)
#define WF__RUNNER(fn) (fn)
#endif

/* Everything a task type needs, generated by WF_TASK and WF_VOID_TASK.
 * R: the value's type (char for void tasks), V: the functions' (void for
 * void tasks); SET, CALLRET, VALRET, KEEP and GIVE: how a value is
 * stored, returned and kept; name and parameters in __VA_ARGS__.
 *
 * wf__b_NAME is the task as a function of its first frame (the frame
 * top when it starts) and its arguments.  It runs the body, wf__u_NAME,
 * inlined, on a frame top of its own, and syncs on return what the body
 * left unsynced (Cilk's implicit sync): no spawn is ever lost.  No slow
 * path moves the frame top, so where a body's spawns and syncs pair up
 * the compiler sees the top come back to the first frame, and the test
 * costs nothing. */
#define WF__TASK_DEFS(R, V, SET, CALLRET, VALRET, KEEP, GIVE, name, ...)       \
    typedef struct {                                                           \
        R wf__res;                                                             \
        WF__EACH(WF__FIELDS_, name, ##__VA_ARGS__)                             \
    } wf__f_##name;                                                            \
    WF__STATIC_ASSERT(sizeof(wf__f_##name) <= WF__TSLOT_DATA,                  \
                      "a typed task's arguments and value exceed 96 bytes: "   \
                      "pass a pointer");                                       \
    static V wf__b_##name(                                                     \
        wf__tslot *wf__tp0 WF__EACH(WF__PARAMS_, name, ##__VA_ARGS__));        \
    static inline __attribute__((always_inline)) V wf__u_##name(               \
        wf__tslot **wf__tpp,                                                   \
        wf__tslot *wf__tp0 WF__EACH(WF__PARAMS_, name, ##__VA_ARGS__));        \
    /* The body on the frame's arguments, in a segment of its own: run by   \
     * a thief or a slow path of this worker (wf__r_), or by WF_RUN. */  \
    static void wf__o_##name(void *p_)                                         \
    {                                                                          \
        wf__f_##name *f_ = (wf__f_##name *)p_;                                 \
        struct wf__fast *w_ = wf__self_get();                                  \
        SET(f_->wf__res, wf__b_##name(wf__tseg_enter(w_) WF__EACH(             \
                             WF__READ_, name, ##__VA_ARGS__)));                \
        wf__tseg_leave(w_);                                                    \
    }                                                                          \
    /* The frame's runner: its address also names the task type. */            \
    static void wf__r_##name(wf_task *t_)                                      \
    {                                                                          \
        wf__o_##name(((wf__tslot *)t_)->data);                                 \
    }                                                                          \
    static inline __attribute__((always_inline, unused)) void wf__s_##name(    \
        wf__tslot **tp_ WF__EACH(WF__PARAMS_, name, ##__VA_ARGS__))            \
    {                                                                          \
        wf__tslot *s_ = *tp_;                                                  \
        struct wf__fast *w_ = WF__TSLOT_WORKER(s_);                            \
        /* One test for a full segment and a thief's request: tlimit is     \
         * the segment's end, or NULL.  Relaxed: a request is a hint (P9). */  \
        WF__TSPAWN_CHECK(w_, s_, slow_);                                       \
    fill_ : /* a block: C++ does not jump past an initialisation */            \
    {                                                                          \
        wf__f_##name *f_ = (wf__f_##name *)s_->data;                           \
        WF__EACH(WF__WRITE_, name, ##__VA_ARGS__)                              \
        s_->task.fn = WF__RUNNER(wf__r_##name);                                \
        *tp_ = s_ + 1;                                                         \
        return;                                                                \
    }                                                                          \
    slow_:                                                                     \
        WF__TSPAWN_SLOW(s_);                                                   \
        goto fill_;                                                            \
    }                                                                          \
    static inline __attribute__((always_inline, unused))                       \
    V wf__y_##name(wf__tslot **tp_, wf__tslot *tp0_)                           \
    {                                                                          \
        wf__tslot *s_ = *tp_ - 1;                                              \
        *tp_ = s_;                                                             \
        /* Unmarked: not published, nobody else can see it.  Marked:     \
         * published, the first of a segment entered on overflow, or       \
         * checked by debug mode (wf__tsync_slow). */     \
        if (__builtin_expect(!(s_->task.flags_ & WF__TSLOT_SLOW), 1)) {        \
            wf__f_##name *f_ = (wf__f_##name *)s_->data;                       \
            WF__TASK_CHECK(s_, tp0_, wf__r_##name, #name);                     \
            CALLRET(                                                           \
                wf__b_##name(s_ WF__EACH(WF__READ_, name, ##__VA_ARGS__)));    \
        }                                                                      \
        WF__TSYNC_SLOW(s_, wf__r_##name, tp0_, #name);                         \
        VALRET(((wf__f_##name *)s_->data)->wf__res);                           \
    }                                                                          \
    static inline __attribute__((unused)) int wf__g_##name(                    \
        wf_pool *pool_, R *out_ WF__EACH(WF__PARAMS_, name, ##__VA_ARGS__))    \
    {                                                                          \
        wf__f_##name frame_, *f_ = &frame_;                                    \
        WF__EACH(WF__WRITE_, name, ##__VA_ARGS__)                              \
        int err_ = wf_run(pool_, wf__o_##name, f_);                            \
        if (err_ == 0 && out_ != NULL)                                         \
            *out_ = f_->wf__res;                                               \
        return err_;                                                           \
    }                                                                          \
    static V wf__b_##name(                                                     \
        wf__tslot *wf__tp0 WF__EACH(WF__PARAMS_, name, ##__VA_ARGS__))         \
    {                                                                          \
        wf__tslot *wf__top = wf__tp0;                                          \
        KEEP(R, wf__u_##name(&wf__top, wf__tp0 WF__EACH(WF__ARGS_, name,       \
                                                        ##__VA_ARGS__)));      \
        if (__builtin_expect(wf__top != wf__tp0, 0))                           \
            WF__TSYNC_REST(wf__top, wf__tp0);                                  \
        GIVE;                                                                  \
    }                                                                          \
    static inline __attribute__((always_inline)) V wf__u_##name(               \
        wf__tslot **wf__tpp __attribute__((unused)), wf__tslot *wf__tp0        \
        __attribute__((unused)) WF__EACH(WF__PARAMS_, name, ##__VA_ARGS__))

#define WF__SET_VALUE(lhs, call) ((lhs) = (call))
#define WF__SET_VOID(lhs, call) ((void)(lhs), (call))
#define WF__CALLRET_VALUE(call) return (call)
#define WF__CALLRET_VOID(call)                                                 \
    do {                                                                       \
        (call);                                                                \
        return;                                                                \
    } while (0)
#define WF__VALRET_VALUE(x) return (x)
#define WF__VALRET_VOID(x)                                                     \
    do {                                                                       \
        (void)(x);                                                             \
        return;                                                                \
    } while (0)
#define WF__KEEP_VALUE(R, call) R wf__r = (call)
#define WF__KEEP_VOID(R, call) (call)
#define WF__GIVE_VALUE return wf__r
#define WF__GIVE_VOID return
/* WF_TASK_CHECKS defined before this header: every sync checks that the
 * frame it takes is the body's own (at or above its first frame) and of
 * the task type it names.  Without it, the syncs that take the slow path
 * check the same, and debug mode (WEFT_DEBUG=1) sends every sync there. */
#ifdef WF_TASK_CHECKS
#define WF__TASK_CHECK(s, tp0, run, name)                                      \
    do {                                                                       \
        if ((s) < (tp0) || (s)->task.fn != (run))                              \
            wf__tsync_misuse(s, tp0, name);                                    \
    } while (0)
#else
#define WF__TASK_CHECK(s, tp0, run, name) ((void)0)
#endif

/* The two kinds of definition. */
#define WF__TASK_DEFS_V(type, name, ...)                                       \
    WF__TASK_DEFS(type, type, WF__SET_VALUE, WF__CALLRET_VALUE,                \
                  WF__VALRET_VALUE, WF__KEEP_VALUE, WF__GIVE_VALUE, name,      \
                  ##__VA_ARGS__)
#define WF__TASK_DEFS_N(name, ...)                                             \
    WF__TASK_DEFS(char, void, WF__SET_VOID, WF__CALLRET_VOID, WF__VALRET_VOID, \
                  WF__KEEP_VOID, WF__GIVE_VOID, name, ##__VA_ARGS__)

#if defined(__clang__)
#pragma clang diagnostic pop
#endif
#ifdef __cplusplus
}
#endif
#endif /* WEFT_DETAIL_TASK_H */
