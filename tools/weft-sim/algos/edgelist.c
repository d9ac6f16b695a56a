/* SPDX-License-Identifier: Apache-2.0 */
/* A port's edge list (rule G7 of docs/protocols.md) on the library's own
 * code: src/internal/graph/edges_steps.h compiled unchanged with
 * -DWF_SIM, driven as src/graph/edge.c drives it.  The owner is the
 * port's editor and its node's aggregator at once: add_edge writes the
 * edge's record (from, to: plain; its state: relaxed), room looks at the
 * list (wf__edges_list, wf__edges_count) and, when its block is full,
 * fills a new one (wf__edges_fill), and set_edges publishes it
 * (wf__edges_replace) and appends the slot (wf__edges_append), or clears
 * a slot (wf__edges_clear).  T1 reads the list outside the aggregator:
 *
 *   g7        a block of two slots: the owner adds edge A, removes it,
 *             adds edge B, in place.  T1 walks the list as the push
 *             helpers do (load_list, then each slot below n, and the
 *             edge's state as a broadcast reads it) and reads each live
 *             edge's from and to.
 *   g7-grow   a block of one slot: the owner adds A in place, then B,
 *             which finds the block full: a new block of two slots holds
 *             A, is published, and B is appended to it.  T1 walks it.
 *   g7-has    as g7-grow, T1 asks wf__edges_has(WF__PULL) (wf__has_edge,
 *             a store's quiet put): no edge is in pull state.
 *
 * The blocks and records come from slabs: their memory held an older
 * list and an older edge.  Each block's slots hold edge X of that older
 * list until the owner writes them, the new block's `n` is 1 until it is
 * filled, as the older list's was, and each record's state is WF__PULL,
 * as X's.  A reader that sees slot i
 * below n must find there the edge the owner put (or NULL once it
 * removed it), with its record as written: from and to (a stale read
 * under the hardware models, a data race under c11) and its state push.
 * X, a NULL the owner never stored, or a pull state is a list seen half
 * built; wf__edges_has answering true is one too.  Each block and record
 * is an object reached through its pointer, so that arm keeps the
 * address dependencies of the loads through it. */

#include <string.h>

#include "algos/evcount.h"
#include "core/access.h"
#include "core/memory.h"
#include "core/threads.h"

#include "internal/graph/edges_steps.h"

enum { MAX_SLOTS = 2, NBLOCKS = 2 };
enum { EA, EB, EX, NEDGES }; /* the owner's A and B, the older list's X */

static _Alignas(64) wf__edges *_Atomic head; /* the port's `edges` */
static wf__edges *blk[NBLOCKS];
static unsigned cap[NBLOCKS];
static wf__edge *rec[NEDGES];
/* What the addresses of ports stand for: the sender's out-port, A's and
 * B's receivers, and the older edge's ends. */
static char port_mem[4];
#define OUT ((wf__port *)&port_mem[0])
#define OLD ((wf__port *)&port_mem[3])
static wf__port *to_of[NEDGES];
/* The edge the owner puts in slot i of block b; whether it cleared it
 * (set before its clear: a reader may read NULL from then on). */
static int want[NBLOCKS][MAX_SLOTS];
static bool cleared[NBLOCKS][MAX_SLOTS];
static bool grow, ask;
static int walked, live_seen; /* T1's: slots walked, live edges seen */
static int answer = -1;       /* wf__edges_has's answer (g7-has) */

static const char *edge_name(const wf__edge *e)
{
    for (int k = 0; k < NEDGES; k++)
        if (e == rec[k])
            return k == EA ? "A" : k == EB ? "B" : "X";
    return "?";
}

/* A record's plain field: plain under arm and c11 (c11 reports an
 * unordered access as a data race), relaxed under sc, tso and pso, whose
 * machines have no other kind. */
static void field_write(wf__port **p, wf__port *v)
{
    if (SIM_GRAPH_MODEL(S.model))
        sim_plain_store(p, (uint64_t)(uintptr_t)v);
    else
        wf__sim_store(p, 8, (uint64_t)(uintptr_t)v, WF_SIM_RELAXED,
                      WF__SIM_SITE(""));
}

static wf__port *field_read(wf__port **p)
{
    if (SIM_GRAPH_MODEL(S.model))
        return (wf__port *)(uintptr_t)sim_plain_load(p);
    return (wf__port *)(uintptr_t)wf__sim_load_i64(p, WF_SIM_RELAXED,
                                                   WF__SIM_SITE(""));
}

/* add_edge's record, then room and set_edges: append edge k. */
static void add(int k)
{
    wf__edge *e = rec[k];
    field_write(&e->from, OUT);
    field_write(&e->to, to_of[k]);
    wf_store_relaxed(&e->state, WF__PUSH); /* published below */
    /* room: the list as it is; a new block if it is full. */
    wf__edges *old = wf__edges_list(&head);
    unsigned n = wf__edges_count(old);
    wf__edges *fresh = NULL;
    if (n == old->cap) {
        fresh = blk[1];
        wf__edges_fill(fresh, cap[1], old, n);
    }
    /* set_edges */
    wf__edges *l = wf_load_relaxed(&head);
    if (fresh) {
        wf__edges_replace(&head, fresh);
        l = fresh;
    }
    wf__edges_append(l, e, to_of[k]);
}

/* unlist and set_edges: clear the slot of edge k in the current block. */
static void remove_edge(int k)
{
    wf__edges *l = wf_load_relaxed(&head);
    int b = l == blk[0] ? 0 : 1;
    for (unsigned i = 0; i < MAX_SLOTS; i++)
        if (want[b][i] == k) {
            cleared[b][i] = true;
            wf__edges_clear(l, i);
            return;
        }
}

static void owner(int t)
{
    (void)t;
    add(EA);
    if (!grow)
        remove_edge(EA);
    add(EB);
}

/* Slot i of block b read as e: the owner's edge there, or NULL once it
 * cleared it; then the edge's state (relaxed, as a broadcast reads it)
 * and record as add wrote them. */
static void check_slot(int t, int b, unsigned i, wf__edge *e)
{
    int k = want[b][i];
    if (e == NULL) {
        if (!cleared[b][i])
            sim_failf("%s sees slot %u of block %d below its n but reads "
                      "it empty, not edge %s: the slot is half built "
                      "(stale)",
                      sim_thread_name(t), i, b + 1,
                      k >= 0 ? edge_name(rec[k]) : "?");
        return;
    }
    if (k < 0 || e != rec[k]) {
        sim_failf("%s reads slot %u of block %d as edge %s, %s",
                  sim_thread_name(t), i, b + 1, edge_name(e),
                  e == rec[EX] ? "of the older list the block's memory held "
                                 "(stale)"
                               : "not the edge the owner put there");
        return;
    }
    live_seen++;
    if (wf_load_relaxed(&e->state) != WF__PUSH) { /* as a broadcast */
        sim_failf("%s reads the state of edge %s in slot %u as pull, what "
                  "its record's memory held: the edge was published in "
                  "push (stale)",
                  sim_thread_name(t), edge_name(e), i);
        return;
    }
    wf__port *from = field_read(&e->from), *to = field_read(&e->to);
    if (S.fail[0])
        return; /* c11: a race reported */
    if (from != OUT || to != to_of[k])
        sim_failf("%s reads edge %s in slot %u but its %s as %s, not as "
                  "written (stale)",
                  sim_thread_name(t), edge_name(e), i,
                  from != OUT ? "from" : "to",
                  (from != OUT ? from : to) == OLD ? "the older edge's"
                                                   : "unwritten");
}

/* wf__push_single / wf__pull_get: load_list, then each slot below n. */
static void walker(int t)
{
    wf__edges *l = wf__edges_list(&head);
    int b = l == blk[0] ? 0 : 1;
    for (unsigned i = 0, n = wf__edges_count(l); i < n && !S.fail[0]; i++) {
        walked++;
        if (i >= MAX_SLOTS || i >= cap[b]) {
            sim_failf("%s reads n of block %d as %u, past the slots the "
                      "owner filled (stale)",
                      sim_thread_name(t), b + 1, n);
            return;
        }
        check_slot(t, b, i, wf__edges_at(l, i));
    }
}

/* wf__has_edge(port, WF__PULL), as a store asks it. */
static void asker(int t)
{
    answer = wf__edges_has(&head, WF__PULL);
    if (answer)
        sim_failf("%s's wf__has_edge(WF__PULL) answers true, but every "
                  "edge the owner listed is push: it read an edge of the "
                  "older list or a record's state its memory held (stale)",
                  sim_thread_name(t));
}

static size_t list_bytes(unsigned c)
{
    return sizeof(wf__edges) + c * sizeof(wf__edge_slot);
}

/* A block whose memory held the older list: n = 1, X in each slot. */
static wf__edges *old_block(unsigned c, unsigned n)
{
    wf__edges *l = sim_alloc(list_bytes(MAX_SLOTS));
    l->cap = c;
    l->retired = 0;
    wf_store_relaxed(&l->n, n);
    for (unsigned i = 0; i < MAX_SLOTS; i++) {
        wf_store_relaxed(&l->s[i].e, rec[EX]);
        l->s[i].far = OLD;
    }
    sim_register_object((uint64_t)(uintptr_t)l, l, list_bytes(MAX_SLOTS));
    return l;
}

static void reset(bool grow_, bool ask_)
{
    static const char *const names[NEDGES][3] = {{"A.from", "A.to", "A.state"},
                                                 {"B.from", "B.to", "B.state"},
                                                 {"X.from", "X.to", "X.state"}};
    static const char *const bn[NBLOCKS][1 + MAX_SLOTS] = {
        {"l1.n", "l1.s[0]", "l1.s[1]"}, {"l2.n", "l2.s[0]", "l2.s[1]"}};
    grow = grow_;
    ask = ask_;
    walked = live_seen = 0;
    answer = -1;
    to_of[EA] = (wf__port *)&port_mem[1];
    to_of[EB] = (wf__port *)&port_mem[2];
    to_of[EX] = OLD;
    for (int k = 0; k < NEDGES; k++) { /* records that held edge X */
        wf__edge *e = sim_alloc(sizeof *e);
        e->from = OLD;
        e->to = OLD;
        e->link = NULL;
        wf_store_relaxed(&e->state, WF__PULL);
        rec[k] = e;
        sim_register_object((uint64_t)(uintptr_t)e, e, sizeof *e);
    }
    /* Twelve names are left to a protocol: X's record is named only
     * where the second block is not. */
    for (int k = 0; k < (grow ? EX : NEDGES); k++)
        for (int f = 0; f < 3; f++)
            if (k != EX || f == 2)
                sim_register_name(f == 0   ? (void *)&rec[k]->from
                                  : f == 1 ? (void *)&rec[k]->to
                                           : (void *)&rec[k]->state,
                                  names[k][f]);
    memset(cleared, 0, sizeof cleared);
    for (int b = 0; b < NBLOCKS; b++)
        for (int i = 0; i < MAX_SLOTS; i++)
            want[b][i] = -1;
    if (grow) { /* A in block 1 of one slot; A, B in block 2 */
        cap[0] = 1;
        cap[1] = 2;
        want[0][0] = want[1][0] = EA;
        want[1][1] = EB;
    } else { /* A, B in block 1 of two slots */
        cap[0] = 2;
        cap[1] = 0;
        want[0][0] = EA;
        want[0][1] = EB;
    }
    blk[0] = old_block(cap[0], 0); /* the port's list: empty */
    blk[1] = old_block(0, 1);      /* a slab block, not yet filled */
    for (int b = 0; b < (grow ? NBLOCKS : 1); b++) {
        sim_register_name(&blk[b]->n, bn[b][0]);
        for (unsigned i = 0; i < cap[b]; i++)
            sim_register_name(&blk[b]->s[i].e, bn[b][1 + i]);
    }
    wf_store_relaxed(&head, blk[0]);
    sim_register_name(&head, "edges");
    sim_add_op(0, (sim_op){.kind = OP_CALL, .call = owner});
    sim_add_op(1, (sim_op){.kind = OP_CALL, .call = ask ? asker : walker});
}

static void setup_g7(const explore_job *job)
{
    (void)job;
    reset(false, false);
}

static void setup_grow(const explore_job *job)
{
    (void)job;
    reset(true, false);
}

static void setup_has(const explore_job *job)
{
    (void)job;
    reset(true, true);
}

static void final(void)
{
}

static void outcome(char *buf, size_t n)
{
    if (ask)
        snprintf(buf, n, "wf__has_edge(pull) %s",
                 answer < 0 ? "-"
                 : answer   ? "true"
                            : "false");
    else
        snprintf(buf, n, "T1 walked %d slots, %d live", walked, live_seen);
}

#define CORRECT                                                                \
    "every slot a reader saw below n held the owner's edge (or was "           \
    "cleared), with its record as written; no edge of the older list"

const sim_protocol sim_proto_g7 = {
    "g7",
    "the aggregator appends edge A to a port's list, removes it, appends "
    "B, in place, while T1 walks the list and reads each live edge",
    2,
    setup_g7,
    final,
    outcome,
    CORRECT};
const sim_protocol sim_proto_g7_grow = {
    "g7-grow",
    "the aggregator appends A to a block of one slot, then B: a new block "
    "(memory that held an older list) holds A, is published, gets B; T1 "
    "walks the list",
    2,
    setup_grow,
    final,
    outcome,
    CORRECT};
const sim_protocol sim_proto_g7_has = {
    "g7-has",
    "as g7-grow, while T1 asks wf__has_edge(pull): every edge is push, so "
    "the answer is false",
    2,
    setup_has,
    final,
    outcome,
    "wf__has_edge(pull) answered false: no edge of the older list, no "
    "state its records held"};
