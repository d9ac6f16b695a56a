/* SPDX-License-Identifier: Apache-2.0 */
/* The picture of the deque, drawn as the seed draws it: the ring's slots
 * with their contents, base's arrow above (thieves' end), top's arrow
 * below (owner's end), the capacity and mask, and under TSO/PSO every
 * thread's store buffer.  Everything shown is memory as the machine holds
 * it; what is still in a store buffer is listed separately. */
#include <string.h>

#include "core/algo.h"
#include "core/machine.h"
#include "ui/describe.h"
#include "ui/picture.h"
#include "weft/deque.h"

static const char *col(bool color, const char *code)
{
    return color ? code : "";
}

#define BLUE "\033[34m"
#define GREEN "\033[32m"
#define RED "\033[31m"
#define BOLD "\033[1m"
#define OFF "\033[0m"

static void ring_name(int r, char *out, size_t n)
{
    snprintf(out, n, "a%.*s", r, "''''''''");
}

/* A line with a marker under (or over) slot `slot` of a ring drawn with
 * cells of width 6 after an indent of 6. */
static void marker(sbuf *b, int64_t slot, const char *text, const char *tail)
{
    int at = 6 + 1 + (int)slot * 6 + 2 - (int)strlen(text) / 2;
    sb_printf(b, "%*s%s%s\n", at > 0 ? at : 0, "", text, tail);
}

static void draw_ring(sbuf *b, const sim_ring *g, int r, int64_t base,
                      int64_t top, bool current, bool color)
{
    int64_t cap = g->cap, m = cap - 1;
    char name[16], vb[24];
    ring_name(r, name, sizeof name);
    if (current) {
        char lab[48];
        snprintf(lab, sizeof lab, "[base = %lld]", (long long)base);
        sb_printf(b, "%s", col(color, BLUE));
        marker(b, base & m, lab, "  thieves poll here (FIFO)");
        marker(b, base & m, "│", "");
        marker(b, base & m, "▼", "");
        sb_printf(b, "%s", col(color, OFF));
    }
    sb_printf(b, "      +");
    for (int64_t i = 0; i < cap; i++)
        sb_printf(b, "-----+");
    sb_printf(b, "\n%-6s|", name);
    for (int64_t i = 0; i < cap; i++) {
        void *x =
            (void *)(uintptr_t)sim_mem_read((volatile char *)g->slots + i * 8);
        /* A slot outside [base, top) keeps its old value: in parentheses. */
        bool live = current && top - base >= 0 && top - base <= cap &&
                    ((i - base) & m) < top - base;
        char stale[32];
        const char *t = x ? sim_value_name(x, vb) : ".";
        if (x && !live) {
            snprintf(stale, sizeof stale, "(%s)", t);
            t = stale;
        }
        int len = (int)strlen(t), left = len < 5 ? (5 - len) / 2 : 0;
        int right = len < 5 ? 5 - len - left : 0;
        sb_printf(b, "%*s%s%*s|", left, "", t, right, "");
    }
    sb_printf(b, "\n      +");
    for (int64_t i = 0; i < cap; i++)
        sb_printf(b, "-----+");
    sb_printf(b, "\n      ");
    for (int64_t i = 0; i < cap; i++)
        sb_printf(b, "  %-2lld  ", (long long)i);
    sb_printf(b, "\n");
    if (current) {
        char lab[48];
        snprintf(lab, sizeof lab, "[top = %lld]", (long long)top);
        sb_printf(b, "%s", col(color, GREEN));
        marker(b, top & m, "▲", "");
        marker(b, top & m, "│", "");
        marker(b, top & m, lab, "  the owner pushes and pops here (LIFO)");
        sb_printf(b, "%s", col(color, OFF));
    }
}

static void draw_buffers(sbuf *b, bool color)
{
    sb_printf(b, "store buffers (%s, oldest first):", sim_model_name(S.model));
    for (int t = 0; t < S.nthreads; t++) {
        const sim_thread *th = &S.th[t];
        if (t > 0 && th->nprog == 0)
            continue; /* a thief that never ran */
        sb_printf(b, "  %s%s%s: [", col(color, BOLD), sim_thread_name(t),
                  col(color, OFF));
        for (int i = 0; i < th->nbuf; i++) {
            char loc[32], java[128], c11[160];
            sim_access a = {.kind = K_STORE,
                            .addr = th->buf[i].addr,
                            .val = th->buf[i].val,
                            .order = th->buf[i].order};
            sim_loc_name(a.addr, loc, sizeof loc);
            describe_access(&a, java, sizeof java, c11, sizeof c11);
            /* java is "HANDLE.setX(loc = v)": keep "loc = v" */
            char *p = strchr(java, '('), *q = strrchr(java, ')');
            if (p && q)
                *q = 0;
            sb_printf(b, "%s%s", i ? ", " : "", p ? p + 1 : java);
        }
        sb_printf(b, "]");
    }
    sb_printf(b, "\n");
}

static void draw_threads(sbuf *b, bool color)
{
    for (int t = 0; t < S.nthreads; t++) {
        const sim_thread *th = &S.th[t];
        char op[32], java[128], c11[160];
        if (t > 0 && th->nprog == 0)
            continue;
        sb_printf(b, "%s%-6s%s ", col(color, BOLD), sim_thread_name(t),
                  col(color, OFF));
        if (th->state != T_PENDING) {
            sb_printf(b, "idle");
            if (th->pc > 0) {
                const sim_op *last = &th->prog[th->pc - 1];
                char vb[24];
                if (last->kind == OP_POP || last->kind == OP_POLL)
                    sb_printf(b, " (last %s returned %s)",
                              last->kind == OP_POP ? "pop" : "poll",
                              last->kind == OP_POLL &&
                                      last->status != WF_POLL_TAKEN
                                  ? (last->status == WF_POLL_EMPTY ? "empty"
                                                                   : "retry")
                                  : sim_value_name(last->got, vb));
            }
            sb_printf(b, "\n");
            continue;
        }
        describe_op(t, th->pc, op, sizeof op);
        describe_access(&th->pend, java, sizeof java, c11, sizeof c11);
        describe_cut_result(java); /* not executed yet: no result */
        sb_printf(b, "in %s, next: %s", op + strlen(sim_thread_name(t)) + 1,
                  java);
        if (!sim_proc_enabled(t))
            sb_printf(b, "  %s(waits for its store buffer to drain)%s",
                      col(color, RED), col(color, OFF));
        sb_printf(b, "\n");
    }
}

void picture_draw(sbuf *b, bool color)
{
    if (!S.algo || !S.array_addr) {
        sb_printf(b, "(no deque)\n");
        return;
    }
    const void *cur = (const void *)(uintptr_t)sim_mem_read(S.array_addr);
    int64_t base = (int64_t)sim_mem_read(S.base_addr);
    int64_t top = (int64_t)sim_mem_read(S.top_addr);
    int r = 0;
    while (r < S.nrings && S.rings[r].ring != cur)
        r++;
    if (r == S.nrings) {
        sb_printf(b, "(array points to no known ring)\n");
        return;
    }
    const sim_ring *g = &S.rings[r];
    char name[16];
    ring_name(r, name, sizeof name);
    sb_printf(b,
              "%s%s%s, model %s: ring %s, capacity %lld, mask %lld; "
              "base = %lld, top = %lld, top - base = %lld\n",
              col(color, BOLD), S.algo->name, col(color, OFF),
              sim_model_name(S.model), name, (long long)g->cap,
              (long long)(g->cap - 1), (long long)base, (long long)top,
              (long long)(top - base));
    draw_ring(b, g, r, base, top, true, color);
    for (int i = 0; i < S.nrings; i++) /* rings come in allocation order */
        if (i != r) {
            sb_printf(b,
                      i < r ? "retired ring (kept until destroy):\n"
                            : "new ring, not yet published (array still "
                              "points to %s):\n",
                      name);
            draw_ring(b, &S.rings[i], i, base, top, false, color);
        }
    if (S.model == MODEL_TSO || S.model == MODEL_PSO)
        draw_buffers(b, color);
    draw_threads(b, color);
}
