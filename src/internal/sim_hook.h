/* SPDX-License-Identifier: Apache-2.0 */
/* The simulator hook: what atomic.h's names become under -DWF_SIM.
 *
 * A build with -DWF_SIM (weft-sim, tools/weft-sim, compiles src/deque.c
 * that way) maps every load, store, CAS, exchange, fetch-add and fence onto
 * the functions declared here, which the simulator implements: each access
 * becomes one step that its scheduler interleaves with the other simulated
 * threads and logs.  The call site travels with each access (file,
 * function, line, the text of the address expression), so a log can name it
 * and a mutant can weaken that one access of the unchanged source.
 *
 * An instrumented object is 8 bytes (int64_t indices, pointers), 4
 * bytes (an int or a uint32_t: the pool's event counts, a task's done
 * word) or 1 byte (an unsigned char: a scan's block states); each call
 * passes the size, a load returns the object's own type, and the checks
 * below turn any other object into a compile error.
 *
 * A futex operation (Linux futex(2): FUTEX_WAIT, FUTEX_WAKE) is an event of
 * the simulator too: src/pool/evcount.c calls wf__sim_futex_wait and
 * wf__sim_futex_wake in place of the system call under WF_SIM. */
#ifndef WF_INTERNAL_SIM_HOOK_H
#define WF_INTERNAL_SIM_HOOK_H

#include <stdbool.h>
#include <stdint.h>

enum wf_sim_order {
    WF_SIM_RELAXED,
    WF_SIM_ACQUIRE,
    WF_SIM_RELEASE,
    WF_SIM_ACQ_REL,
    WF_SIM_SEQ_CST,
    /* a non-atomic access: never made through the names below, only by
     * the simulator's own scaffolding (a task's contents, a ring's header) */
    WF_SIM_PLAIN
};

/* One instrumented call site. */
typedef struct wf_sim_site {
    const char *file;
    const char *func;
    int line;
    const char *expr; /* the address expression as written, e.g. "&dq->top" */
} wf_sim_site;

int64_t wf__sim_load_i64(const volatile void *p, int order, wf_sim_site s);
int32_t wf__sim_load_i32(const volatile void *p, int order, wf_sim_site s);
uint32_t wf__sim_load_u32(const volatile void *p, int order, wf_sim_site s);
uint8_t wf__sim_load_u8(const volatile void *p, int order, wf_sim_site s);
void *wf__sim_load_ptr(const volatile void *p, int order, wf_sim_site s);
/* size: 1, 4 or 8, the object's; v (and a CAS's expected value) is truncated
 * to it, and so is a fetch-add's sum, so adding (uint64_t)-1 to an int
 * subtracts one. */
void wf__sim_store(volatile void *p, int size, uint64_t v, int order,
                   wf_sim_site s);
bool wf__sim_cas(volatile void *p, int size, void *expected, uint64_t desired,
                 int order, wf_sim_site s);
uint64_t wf__sim_xchg(volatile void *p, int size, uint64_t v, int order,
                      wf_sim_site s);
uint64_t wf__sim_fadd(volatile void *p, int size, uint64_t v, int order,
                      wf_sim_site s);
void wf__sim_fence(int order, wf_sim_site s);
/* FUTEX_WAIT on the 4-byte word p: sleep if it holds val (timed: a wait
 * with a timeout, which ends by itself); FUTEX_WAKE: wake up to n threads
 * sleeping on p.  The simulator decides which waits sleep for good. */
void wf__sim_futex_wait(volatile void *p, uint32_t val, bool timed,
                        wf_sim_site s);
void wf__sim_futex_wake(volatile void *p, int n, wf_sim_site s);

#define WF__SIM_SITE(e) ((wf_sim_site){__FILE__, __func__, __LINE__, e})
/* The size an object must have, from the type of a pointer to it: 4 for
 * int and uint32_t, 1 for unsigned char, 8 for anything else (int64_t, a
 * pointer). */
#define WF__SIM_WIDTH(p)                                                       \
    _Generic((p), _Atomic int * : 4, const _Atomic int * : 4,                  \
             _Atomic uint32_t * : 4, const _Atomic uint32_t * : 4,             \
             _Atomic unsigned char * : 1, const _Atomic unsigned char * : 1,   \
             default : 8)
/* The size of *p, usable in an expression; a compile error unless it is
 * the size its type must have. */
#define WF__SIM_SIZE(p)                                                        \
    ((int)sizeof(char[sizeof(*(p)) == WF__SIM_WIDTH(p) ? 1 : -1]) *            \
     (int)sizeof(*(p)))
/* The integer form of a value (an index or a pointer). */
#define WF__SIM_VAL(v) ((uint64_t)(uintptr_t)(v))
/* An RMW's old value in the object's type (an int's sign restored). */
static inline int wf__sim_as_int(uint64_t r)
{
    return (int)(int32_t)(uint32_t)r;
}
static inline uint32_t wf__sim_as_u32(uint64_t r)
{
    return (uint32_t)r;
}
static inline uint64_t wf__sim_load_u64(const volatile void *p, int order,
                                        wf_sim_site s)
{
    return (uint64_t)wf__sim_load_i64(p, order, s);
}

static inline uint64_t wf__sim_as_u64(uint64_t r)
{
    return r;
}
/* The result then takes the object's type, as C11's RMWs give it: a
 * pointer for a pointer (an exchange of a request word, compared with
 * NULL), the integer for an integer.  (void)0, *(p) is the value of *p,
 * whose type C11 gives without _Atomic (<stdatomic.h>'s own trick). */
#define WF__SIM_OLD(p, r)                                                      \
    ((__typeof__((void)0, *(p)))_Generic((p), _Atomic int *: wf__sim_as_int,   \
                                         _Atomic uint32_t *: wf__sim_as_u32,   \
                                         default: wf__sim_as_u64)(r))

/* Loads return the object's type: int64_t, uint64_t (size_t on LP64),
 * int, uint32_t, unsigned char, or void * (which converts to the pointer
 * type the caller assigns it to). */
#define WF__SIM_LOAD(p, o)                                                     \
    ((void)WF__SIM_SIZE(p),                                                    \
     _Generic((p), _Atomic int64_t *: wf__sim_load_i64,                        \
              const _Atomic int64_t *: wf__sim_load_i64,                       \
              _Atomic uint64_t *: wf__sim_load_u64,                            \
              const _Atomic uint64_t *: wf__sim_load_u64,                      \
              _Atomic int *: wf__sim_load_i32,                                 \
              const _Atomic int *: wf__sim_load_i32,                           \
              _Atomic uint32_t *: wf__sim_load_u32,                            \
              const _Atomic uint32_t *: wf__sim_load_u32,                      \
              _Atomic unsigned char *: wf__sim_load_u8,                        \
              const _Atomic unsigned char *: wf__sim_load_u8,                  \
              default: wf__sim_load_ptr)((const volatile void *)(p), (o),      \
                                         WF__SIM_SITE(#p)))
#define WF__SIM_STORE(p, v, o)                                                 \
    wf__sim_store((volatile void *)(p), WF__SIM_SIZE(p), WF__SIM_VAL(v), (o),  \
                  WF__SIM_SITE(#p))
#define WF__SIM_CAS(p, e, d, o)                                                \
    ((void)sizeof(char[sizeof(*(e)) == sizeof(*(p)) ? 1 : -1]),                \
     wf__sim_cas((volatile void *)(p), WF__SIM_SIZE(p), (void *)(e),           \
                 WF__SIM_VAL(d), (o), WF__SIM_SITE(#p)))
#define WF__SIM_RMW(fn, p, v, o)                                               \
    WF__SIM_OLD(p, fn((volatile void *)(p), WF__SIM_SIZE(p), WF__SIM_VAL(v),   \
                      (o), WF__SIM_SITE(#p)))

/* ---- the names of atomic.h ------------------------------------------- */
#define wf_load_relaxed(p) WF__SIM_LOAD(p, WF_SIM_RELAXED)
#define wf_load_acquire(p) WF__SIM_LOAD(p, WF_SIM_ACQUIRE)
#define wf_load_seqcst(p) WF__SIM_LOAD(p, WF_SIM_SEQ_CST)
#define wf_store_relaxed(p, v) WF__SIM_STORE(p, v, WF_SIM_RELAXED)
#define wf_store_release(p, v) WF__SIM_STORE(p, v, WF_SIM_RELEASE)
/* M1's kick (internal/mpi/wake_steps.h). */
#define wf_store_seqcst(p, v) WF__SIM_STORE(p, v, WF_SIM_SEQ_CST)
#define wf_cas_seqcst(p, e, d) WF__SIM_CAS(p, e, d, WF_SIM_SEQ_CST)
#define wf_cas_acqrel(p, e, d) WF__SIM_CAS(p, e, d, WF_SIM_ACQ_REL)
#define wf_cas_relaxed(p, e, d) WF__SIM_CAS(p, e, d, WF_SIM_RELAXED)
/* M1's sleep (internal/mpi/wake_steps.h). */
#define wf_exchange_seqcst(p, v) WF__SIM_RMW(wf__sim_xchg, p, v, WF_SIM_SEQ_CST)
#define wf_exchange_acqrel(p, v) WF__SIM_RMW(wf__sim_xchg, p, v, WF_SIM_ACQ_REL)
#define wf_exchange_relaxed(p, v)                                              \
    WF__SIM_RMW(wf__sim_xchg, p, v, WF_SIM_RELAXED)
#define wf_fetch_add_seqcst(p, v)                                              \
    WF__SIM_RMW(wf__sim_fadd, p, v, WF_SIM_SEQ_CST)
#define wf_fetch_add_acqrel(p, v)                                              \
    WF__SIM_RMW(wf__sim_fadd, p, v, WF_SIM_ACQ_REL)
#define wf_fetch_add_release(p, v)                                             \
    WF__SIM_RMW(wf__sim_fadd, p, v, WF_SIM_RELEASE)
#define wf_fetch_add_relaxed(p, v)                                             \
    WF__SIM_RMW(wf__sim_fadd, p, v, WF_SIM_RELAXED)
#define wf_fence_seqcst() wf__sim_fence(WF_SIM_SEQ_CST, WF__SIM_SITE(""))
#define wf_counter_inc(p) wf_store_relaxed((p), wf_load_relaxed(p) + 1)

#endif /* WF_INTERNAL_SIM_HOOK_H */
