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
 * Every instrumented object is 8 bytes (int64_t indices, pointers); the
 * sizeof checks below turn anything else into a compile error. */
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
void *wf__sim_load_ptr(const volatile void *p, int order, wf_sim_site s);
void wf__sim_store(volatile void *p, uint64_t v, int order, wf_sim_site s);
bool wf__sim_cas(volatile void *p, void *expected, uint64_t desired, int order,
                 wf_sim_site s);
uint64_t wf__sim_xchg(volatile void *p, uint64_t v, int order, wf_sim_site s);
uint64_t wf__sim_fadd(volatile void *p, uint64_t v, int order, wf_sim_site s);
void wf__sim_fence(int order, wf_sim_site s);

#define WF__SIM_SITE(e) ((wf_sim_site){__FILE__, __func__, __LINE__, e})
/* A compile-time check that an object is 8 bytes, usable in an expression. */
#define WF__SIM_8(x) ((void)sizeof(char[sizeof(x) == 8 ? 1 : -1]))
/* The integer form of a value (an index or a pointer). */
#define WF__SIM_VAL(v) ((uint64_t)(uintptr_t)(v))

/* Loads return int64_t for an _Atomic int64_t and void * otherwise (which
 * converts to the pointer type the caller assigns it to). */
#define WF__SIM_LOAD(p, o)                                                     \
    (WF__SIM_8(*(p)),                                                        \
     _Generic((p), _Atomic int64_t *: wf__sim_load_i64,                     \
              const _Atomic int64_t *: wf__sim_load_i64,                    \
              default: wf__sim_load_ptr)((const volatile void *)(p), (o),    \
                                         WF__SIM_SITE(#p)))
#define WF__SIM_STORE(p, v, o)                                                 \
    (WF__SIM_8(*(p)), wf__sim_store((volatile void *)(p), WF__SIM_VAL(v), (o), \
                                    WF__SIM_SITE(#p)))
#define WF__SIM_CAS(p, e, d, o)                                                \
    (WF__SIM_8(*(p)), WF__SIM_8(*(e)),                                         \
     wf__sim_cas((volatile void *)(p), (void *)(e), WF__SIM_VAL(d), (o),       \
                 WF__SIM_SITE(#p)))

/* ---- the names of atomic.h ------------------------------------------- */
#define wf_load_relaxed(p) WF__SIM_LOAD(p, WF_SIM_RELAXED)
#define wf_load_acquire(p) WF__SIM_LOAD(p, WF_SIM_ACQUIRE)
#define wf_store_relaxed(p, v) WF__SIM_STORE(p, v, WF_SIM_RELAXED)
#define wf_store_release(p, v) WF__SIM_STORE(p, v, WF_SIM_RELEASE)
#define wf_cas_seqcst(p, e, d) WF__SIM_CAS(p, e, d, WF_SIM_SEQ_CST)
#define wf_cas_acqrel(p, e, d) WF__SIM_CAS(p, e, d, WF_SIM_ACQ_REL)
#define wf_cas_relaxed(p, e, d) WF__SIM_CAS(p, e, d, WF_SIM_RELAXED)
#define wf_exchange_acqrel(p, v)                                               \
    (WF__SIM_8(*(p)), wf__sim_xchg((volatile void *)(p), WF__SIM_VAL(v),       \
                                   WF_SIM_ACQ_REL, WF__SIM_SITE(#p)))
#define wf_fetch_add_seqcst(p, v)                                              \
    (WF__SIM_8(*(p)), wf__sim_fadd((volatile void *)(p), WF__SIM_VAL(v),       \
                                   WF_SIM_SEQ_CST, WF__SIM_SITE(#p)))
#define wf_fetch_add_release(p, v)                                             \
    (WF__SIM_8(*(p)), wf__sim_fadd((volatile void *)(p), WF__SIM_VAL(v),       \
                                   WF_SIM_RELEASE, WF__SIM_SITE(#p)))
#define wf_fence_seqcst() wf__sim_fence(WF_SIM_SEQ_CST, WF__SIM_SITE(""))
#define wf_counter_inc(p) wf_store_relaxed((p), wf_load_relaxed(p) + 1)

#endif /* WF_INTERNAL_SIM_HOOK_H */
