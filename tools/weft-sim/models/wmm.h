/* SPDX-License-Identifier: Apache-2.0 */
/* The weak memory models `arm` and `c11`: executions as graphs.
 *
 * Under sc, tso and pso an execution is an interleaving of steps on a
 * machine with store buffers (core/machine.c, search/dpor.c).  ARMv8 and
 * C11 are defined axiomatically instead: an execution is a graph of events
 * (the loads, stores, RMWs and fences each thread performed, in program
 * order po), with a reads-from edge rf from each read to the write it
 * reads and a coherence order co of the writes to each location; the
 * model is a set of axioms the graph must satisfy (herd7's .cat files
 * state them).
 *
 *  c11  RC11 (Lahav, Vafeiadis, Kang, Hur, Dreyer, "Repairing sequential
 *       consistency in C/C++11", PLDI 2017), as herd7's rc11.cat: coherence
 *       (irreflexive hb;eco?), atomicity of RMWs, acyclic psc for seq_cst
 *       accesses and fences, no thin air (acyclic po U rf); plus its race
 *       rule: a non-atomic access that races is undefined behaviour, and is
 *       reported.  Release sequences as C11 defines them (same-thread
 *       stores included).
 *  c20  the same with C++20's release sequences (P0982R1): only RMWs
 *       continue one, as in GenMC's RC11.
 *  c11std  c11 with C11's own seq_cst rules (ISO/IEC 9899:2011 7.17.3) in
 *       place of RC11's psc: a total order S consistent with hb and co,
 *       whose fence rules reach only the fence's own thread's accesses
 *       (wmm_rc11.c).
 *  arm  ARMv8 (Pulte, Flur, Deacon, French, Sarkar, Sewell, "Simplifying
 *       ARM concurrency: multicopy-atomic axiomatic and operational models
 *       for ARMv8", POPL 2018), as herd7's aarch64.cat: internal (SC per
 *       location), external (acyclic ob), atomic; each access mapped to the
 *       instruction weft-sim prints for it (ldr/ldar, str/stlr, casal,
 *       dmb ish, dmb ishld).
 *
 * The search that enumerates the graphs, running the threads' real code,
 * is in search/ (wmm_search.h). */
#ifndef WEFT_SIM_WMM_H
#define WEFT_SIM_WMM_H

#include "core/sim.h"

#define WG_MAX_EV 256 /* events of one execution */
#define WG_MAX_LOC 64 /* locations                */
#define WG_MAX_W 64   /* writes to one location   */
#define WG_NT SIM_MAX_THREADS

enum { WE_R, WE_W, WE_F };
#define WEF_RMW 1   /* the read or the write part of an RMW            */
#define WEF_PLAIN 2 /* a non-atomic access                             */
#define WEF_STRAIGHT                                                           \
    4 /* of straight-line code (a litmus test's body):
                        * no branch on what it loaded before later stores */

/* A view: for each thread, the po index of the last of its events that is
 * before (or is) the event; -1 for none. */
typedef int16_t wg_view[WG_NT];

typedef struct wg_ev {
    uint8_t type, thread, order, flags;
    int16_t po;   /* index in its thread                                 */
    int16_t loc;  /* location, -1 for a fence                            */
    int16_t rf;   /* R: the write it reads, -1 for the initial value      */
    int16_t dep;  /* arm: the read its address came from (a pointer), -1 */
    int16_t cop;  /* W: position in its location's co, from 1            */
    uint64_t val; /* W: the value written; R: the value read            */
    uint64_t arg; /* R of a CAS: the value it expects                   */
    uint8_t kind; /* the access's K_* (an RMW's read: K_CAS, ...)       */
    wg_view porf; /* (po U rf)* predecessors                             */
    wg_view hb;   /* c11: happens-before predecessors                    */
    wg_view rsv;  /* c11, W: what a read of it acquires (release seq.)   */
} wg_ev;

typedef struct wg_loc {
    volatile void *addr;
    uint64_t init;
    int nw;
    int16_t co[WG_MAX_W]; /* its writes in coherence order */
    bool plain;           /* has non-atomic accesses       */
    uint8_t size;         /* 4 or 8 bytes                  */
} wg_loc;

/* Events are kept in the order they were added (TruSt's <_G): an index
 * is the event's stamp. */
typedef struct wg {
    int n, nloc;
    int cyclic; /* arm: has a po U rf cycle (load buffering) */
    wg_ev ev[WG_MAX_EV];
    wg_loc loc[WG_MAX_LOC];
    int nt[WG_NT];                /* derived: events per thread */
    int16_t th[WG_NT][WG_MAX_EV]; /* derived: po lists          */
} wg;

/* ---- graphs (wmm_graph.c) --------------------------------------------- */
/* Whether a release sequence goes on through later stores of the same
 * thread to the location (C11: yes; C++20: no). */
extern bool wg_rs_same_thread;
/* c11std: C11's own seq_cst rules (7.17.3) instead of RC11's psc. */
extern bool wg_psc_std;
/* The location of the size-byte word at addr: adds it; -1 when full. */
int wg_loc_of(wg *g, volatile void *addr, int size);
/* Append an event of thread t after its last one; views computed.  For
 * a write, cop is where it goes in co (1 = first after the initial
 * value).  Returns its index. */
int wg_add(wg *g, int type, int t, int order, int flags, int loc, uint64_t val,
           int rf, int cop);
void wg_pop_last(wg *g);
void wg_views(wg *g, int e);
/* All views again, until they settle (a graph with a po U rf cycle). */
void wg_views_all(wg *g);
void wg_rebuild_threads(wg *g);
/* Keep only the events whose bit is set (a porf-closed set): indices are
 * compacted, rf and co renumbered.  Returns the new index of old event k
 * through map (may be NULL). */
void wg_restrict(wg *g, const uint64_t *keep, int16_t *map);
bool wg_hb(const wg *g, int x, int y); /* x = -1: the initial write */
bool wg_in_view(const wg *g, const wg_view v, int x);
int wg_cop(const wg *g, int w); /* -1 (initial write) -> 0 */
size_t wg_blob_size(const wg *g);
void wg_save(const wg *g, void *blob);
void wg_load(wg *g, const void *blob);

/* ---- the models ------------------------------------------------------- */
/* Coherence of event e against the events of its location, with before()
 * the order that must agree with eco: RC11's hb, or ARMv8's po (SC per
 * location).  Shared by both models (wmm_coherence.c). */
bool wg_coherent(const wg *g, int e, bool (*before)(const wg *, int, int));
/* After event e was added (its rf or co position chosen): is the graph
 * still consistent?  The graph was consistent before e, so only what e
 * takes part in is checked. */
bool rc11_ok(const wg *g, int e);
bool arm_ok(const wg *g, int e);
/* c11's race rule for event e: "" or a message. */
void rc11_race(const wg *g, int e, char *msg, size_t n);
/* arm keeps the locally-ordered-before closure of each thread beside the
 * graph; call after any change that is not wg_add/wg_pop_last. */
void arm_sync(const wg *g);
void arm_added(const wg *g, int e);
void arm_removed(const wg *g, int e);

/* ---- events of an access (search/wmm_replay.c, search/wmm_explore.c) -- */
/* The order of an RMW's read and of its write (a store's order is its
 * write's). */
static inline int wmm_read_order(int o)
{
    return o == WF_SIM_ACQ_REL   ? WF_SIM_ACQUIRE
           : o == WF_SIM_RELEASE ? WF_SIM_RELAXED
                                 : o;
}

static inline int wmm_write_order(int o)
{
    return o == WF_SIM_ACQ_REL   ? WF_SIM_RELEASE
           : o == WF_SIM_ACQUIRE ? WF_SIM_RELAXED
                                 : o;
}

static inline bool wmm_is_rmw(const sim_access *a)
{
    return a->kind == K_CAS || a->kind == K_XCHG || a->kind == K_FADD;
}

#endif
