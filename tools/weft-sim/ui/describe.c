/* SPDX-License-Identifier: Apache-2.0 */
/* One log line per step, in the seed's vocabulary (section 5's table):
 * the Java VarHandle call, the C11 call, its order, and the instruction it
 * becomes on x86-64 and on ARM64. */
#include <string.h>

#include "core/memory.h"
#include "ui/describe.h"

/* How a location's values are written: an index, a ring, a task. */
static void value_text(volatile void *addr, uint64_t v, char *out, size_t n)
{
    char loc[32], vb[24];
    sim_loc_name(addr, loc, sizeof loc);
    if (strcmp(loc, "array") == 0) {
        for (int r = 0; r < S.nrings; r++)
            if ((uintptr_t)S.rings[r].ring == v) {
                snprintf(out, n, "a%.*s", r, "''''''''");
                return;
            }
        snprintf(out, n, "%s", v ? "?ring" : "null");
    } else if (loc[0] == 'a' && strchr(loc, '[')) {
        snprintf(out, n, "%s", sim_value_name((void *)(uintptr_t)v, vb));
    } else {
        snprintf(out, n, "%lld", (long long)v);
    }
}

/* The VarHandle that names a location: QA for slots, TOP, BASE, ARRAY. */
static void handle_name(const char *loc, char *out, size_t n)
{
    if (loc[0] == 'a' && strchr(loc, '['))
        snprintf(out, n, "QA");
    else {
        size_t i = 0;
        for (; loc[i] && i + 1 < n; i++)
            out[i] =
                (char)(loc[i] >= 'a' && loc[i] <= 'z' ? loc[i] - 32 : loc[i]);
        out[i] = 0;
    }
}

static const char *java_method(int kind, int order)
{
    static const char *const load[] = {"getOpaque",   "getAcquire",
                                       "getAcquire",  "getAcquire",
                                       "getVolatile", "get"};
    static const char *const store[] = {"setOpaque",   "setRelease",
                                        "setRelease",  "setRelease",
                                        "setVolatile", "set"};
    switch (kind) {
    case K_LOAD: return load[order];
    case K_STORE: return store[order];
    case K_CAS: return "compareAndSet";
    case K_XCHG: return "getAndSet";
    case K_FADD: return "getAndAdd";
    }
    return "?";
}

const char *describe_x86(int kind, int order)
{
    switch (kind) {
    case K_LOAD: return "mov reg, [mem]";
    case K_STORE:
        return order == WF_SIM_SEQ_CST ? "xchg [mem], reg" : "mov [mem], reg";
    case K_CAS: return "lock cmpxchg [mem], reg";
    case K_XCHG: return "xchg [mem], reg";
    case K_FADD: return "lock xadd [mem], reg";
    case K_FENCE:
        /* gcc 11 and later emit a locked no-op on the stack instead, as
         * fast and as strong; clang keeps mfence */
        return order == WF_SIM_SEQ_CST ? "mfence (gcc: lock or [rsp], 0)"
                                       : "(no instruction)";
    }
    return "?";
}

const char *describe_arm64(int kind, int order)
{
    bool acq = order == WF_SIM_ACQUIRE || order >= WF_SIM_ACQ_REL;
    bool rel = order >= WF_SIM_RELEASE;
    switch (kind) {
    case K_LOAD:
        return order == WF_SIM_RELAXED || order == WF_SIM_PLAIN
                   ? "ldr reg, [mem]"
                   : "ldar reg, [mem]";
    case K_STORE:
        return order == WF_SIM_RELAXED || order == WF_SIM_ACQUIRE ||
                       order == WF_SIM_PLAIN
                   ? "str reg, [mem]"
                   : "stlr reg, [mem]";
    case K_CAS:
        return acq && rel ? "casal" : acq ? "casa" : rel ? "casl" : "cas";
    case K_XCHG:
        return acq && rel ? "swpal" : acq ? "swpa" : rel ? "swpl" : "swp";
    case K_FADD:
        return acq && rel ? "ldaddal"
               : acq      ? "ldadda"
               : rel      ? "ldaddl"
                          : "ldadd";
    case K_FENCE: return order == WF_SIM_ACQUIRE ? "dmb ishld" : "dmb ish";
    }
    return "?";
}

/* "owner push A", "T1 poll": the operation an access belongs to. */
void describe_op(int t, int op_index, char *out, size_t n)
{
    const sim_thread *th = &S.th[t];
    if (op_index >= th->nprog) {
        snprintf(out, n, "%s", sim_thread_name(t));
        return;
    }
    const sim_op *op = &th->prog[op_index];
    switch (op->kind) {
    case OP_PUSH:
        if (op->count > 1) {
            size_t k = (size_t)snprintf(out, n, "%s push", sim_thread_name(t));
            for (int i = 0; i < op->count && k < n; i++)
                k += (size_t)snprintf(
                    out + k, n - k, "%c%c", i ? ',' : ' ',
                    sim_op_value(op, i) >= 0 ? 'A' + sim_op_value(op, i) : '?');
        } else {
            snprintf(out, n, "%s push %c", sim_thread_name(t),
                     op->value >= 0 ? 'A' + op->value : '?');
        }
        break;
    case OP_POP: snprintf(out, n, "%s pop", sim_thread_name(t)); break;
    case OP_POLL: snprintf(out, n, "%s poll", sim_thread_name(t)); break;
    default: snprintf(out, n, "%s", sim_thread_name(t));
    }
}

void describe_access(const sim_access *a, char *java, size_t jn, char *c11,
                     size_t cn)
{
    char loc[32], h[16], v[24], r[24], e[24];
    const char *o = sim_order_name(a->order);
    if (a->kind == K_FENCE) {
        snprintf(java, jn, "VarHandle.%s()",
                 a->order == WF_SIM_SEQ_CST   ? "fullFence"
                 : a->order == WF_SIM_ACQUIRE ? "acquireFence"
                                              : "releaseFence");
        snprintf(c11, cn, "atomic_thread_fence(%s)", o);
        return;
    }
    sim_loc_name(a->addr, loc, sizeof loc);
    handle_name(loc, h, sizeof h);
    value_text(a->addr, a->val, v, sizeof v);
    value_text(a->addr, a->result, r, sizeof r);
    value_text(a->addr, a->expect, e, sizeof e);
    if (a->order == WF_SIM_PLAIN) { /* the simulator's own, non-atomic */
        if (a->kind == K_LOAD) {
            snprintf(java, jn, "%s -> %s", loc, r);
            snprintf(c11, cn, "%s -> %s (non-atomic read)", loc, r);
        } else {
            snprintf(java, jn, "%s = %s", loc, v);
            snprintf(c11, cn, "%s = %s (non-atomic write)", loc, v);
        }
        return;
    }
    const char *m = java_method(a->kind, a->order);
    switch (a->kind) {
    case K_LOAD:
        snprintf(java, jn, "%s.%s(%s) -> %s", h, m, loc, r);
        snprintf(c11, cn, "atomic_load_explicit(&%s, %s) -> %s", loc, o, r);
        break;
    case K_STORE:
        snprintf(java, jn, "%s.%s(%s = %s)", h, m, loc, v);
        snprintf(c11, cn, "atomic_store_explicit(&%s, %s, %s)", loc, v, o);
        break;
    case K_CAS:
        snprintf(java, jn, "%s.%s(%s, %s -> %s) -> %s", h, m, loc, e, v,
                 a->ok ? "true" : "false");
        if (!a->ok)
            snprintf(java + strlen(java), jn - strlen(java), " (was %s)", r);
        snprintf(c11, cn,
                 "atomic_compare_exchange_strong_explicit(&%s, %s, %s, "
                 "%s) -> %s",
                 loc, e, v, o, a->ok ? "true" : "false");
        break;
    case K_XCHG:
        snprintf(java, jn, "%s.%s(%s = %s) -> %s", h, m, loc, v, r);
        snprintf(c11, cn, "atomic_exchange_explicit(&%s, %s, %s) -> %s", loc, v,
                 o, r);
        break;
    case K_FADD:
        snprintf(java, jn, "%s.%s(%s + %s) -> %s", h, m, loc, v, r);
        snprintf(c11, cn, "atomic_fetch_add_explicit(&%s, %s, %s) -> %s", loc,
                 v, o, r);
        break;
    }
}

void describe_cut_result(char *java)
{
    int depth = 0;
    for (char *p = java; *p; p++) {
        depth += (*p == '(') - (*p == ')');
        if (depth == 0 && strncmp(p, " -> ", 4) == 0) {
            *p = 0; /* the first arrow outside the parentheses */
            return;
        }
    }
}

static const char *basename_of(const char *f)
{
    const char *s = strrchr(f, '/');
    return s ? s + 1 : f;
}

void describe_step(const sim_step_info *in, int pos, char *out, size_t n)
{
    char op[32], java[128], c11[160], loc[32], v[24];
    const sim_access *a = &in->acc;
    if (in->kind == K_DRAIN) {
        sim_loc_name(a->addr, loc, sizeof loc);
        value_text(a->addr, a->val, v, sizeof v);
        snprintf(out, n,
                 "%3d  %-12s %s = %s leaves %s's store buffer for "
                 "memory (stored at %s:%d)",
                 pos, "[drain]", loc, v, sim_thread_name(in->thread),
                 basename_of(a->site.file), a->site.line);
        return;
    }
    describe_op(in->thread, in->op_index, op, sizeof op);
    describe_access(a, java, sizeof java, c11, sizeof c11);
    char ord[40];
    if (a->order != a->order_src)
        snprintf(ord, sizeof ord, "%s (MUTANT, was %s)",
                 sim_order_name(a->order), sim_order_name(a->order_src));
    else
        snprintf(ord, sizeof ord, "%s", sim_order_name(a->order));
    const char *note = a->buffered    ? "  [buffered]"
                       : a->forwarded ? "  [from own buffer]"
                                      : "";
    snprintf(out, n,
             "%3d  %-12s %s | %s | %s | x86-64: %s | ARM64: %s | "
             "%s:%d%s",
             pos, op, java, c11, ord, describe_x86(a->kind, a->order),
             describe_arm64(a->kind, a->order), basename_of(a->site.file),
             a->site.line, note);
}

void describe_skip(int thread, const sim_access *a, char *out, size_t n)
{
    char op[32], java[128], c11[160];
    describe_op(thread, S.th[thread].pc, op, sizeof op);
    describe_access(a, java, sizeof java, c11, sizeof c11);
    snprintf(out, n,
             "     %-12s MUTANT: %s at %s:%d is removed (no step, no "
             "instruction)",
             op, c11, basename_of(a->site.file), a->site.line);
}
