/* SPDX-License-Identifier: Apache-2.0 */
/* The library's protocols other than the deque's under the explorer, on
 * its own code compiled unchanged: the pool's event counts
 * (src/pool/evcount.c; rules P3 and P8 of docs/protocols.md, evcount.c;
 * the shutdown path, P11, shutdown.c), the counts a waiter waits for
 * (G5, P10, counts.c) and a continue_node's rounds (G9, rounds.c), as
 * scenarios
 * (`protocol p3` in a scenario file). */
#ifndef WEFT_SIM_EVCOUNT_H
#define WEFT_SIM_EVCOUNT_H

#include "search/explore.h"

/* Who runs what against the event counts, and the check that no wake-up
 * was lost.  Thread 0 ("owner") makes the change and wakes; the others
 * sleep or wait. */
typedef struct sim_protocol {
    const char *name;
    const char *desc;
    int nthreads;
    void (*setup)(const explore_job *);
    void (*final)(void);
    void (*outcome)(char *buf, size_t n);
    /* What "correct" says; NULL: no lost wake-up. */
    const char *correct;
} sim_protocol;

/* The counts of work in flight a waiter waits for (counts.c): a flow
 * graph's pending (G5) and the pool's roots (P10). */
extern const sim_protocol sim_proto_g5, sim_proto_g5_poll,
    sim_proto_g5_poll_three, sim_proto_p10;
/* A reset's close and reopen against a put held meanwhile, and a
 * gateway's reservation against the outside work that releases it
 * (counts.c, G5). */
extern const sim_protocol sim_proto_g5_reset, sim_proto_g5_reset_flag,
    sim_proto_g5_gateway;
/* Typed frames (frames.c): a frame published, stolen, completed and
 * synced (P9, P5). */
extern const sim_protocol sim_proto_p9;
/* A thief's request to a typed body's worker (requests.c): never lost
 * (P2, P9). */
extern const sim_protocol sim_proto_p9_request;
/* The shutdown path (shutdown.c): stop_workers against a worker that
 * parks or naps; none sleeps through it (P11, P3). */
extern const sim_protocol sim_proto_p11_park, sim_proto_p11_nap, sim_proto_p11;
/* A continue_node's rounds (rounds.c): every completed round runs once
 * and sees its signals' data (G9). */
extern const sim_protocol sim_proto_g9, sim_proto_g9_three, sim_proto_g9_each;
/* The MPI engine's sleep and its kick (mpiwake.c): no kick is lost
 * (M1). */
extern const sim_protocol sim_proto_m1, sim_proto_m1_two, sim_proto_m1_timeout;
/* Termination detection's counts on two ranks (termcount.c): R* <= S',
 * and no false termination (M3). */
extern const sim_protocol sim_proto_m3, sim_proto_m3_end;
/* The scan's frontier (scanfront.c): it moves past each block once,
 * never back, and every prefix is right (A6). */
extern const sim_protocol sim_proto_a6, sim_proto_a6_advance,
    sim_proto_a6_three;
/* A trace recorder against the trace's stop and start (tracestep.c):
 * the stop reads every event of its session whole (B1, B2). */
extern const sim_protocol sim_proto_b1, sim_proto_b1_restart;

/* The pool's spare workers (spares.c): a retire that races with a
 * block leaves no blocked worker without a spare (P12). */
extern const sim_protocol sim_proto_p12, sim_proto_p12_end, sim_proto_p12_two;

/* A port's edge list (edgelist.c): a reader outside the aggregator sees
 * each slot below n filled and its edge as written, never what a reused
 * block or record held (G7). */
extern const sim_protocol sim_proto_g7, sim_proto_g7_grow, sim_proto_g7_has;

/* A task graph's round, its error and its cancel (tgrun.c): the first
 * error is returned with the failing task's writes, and no cancel is
 * lost (T3, T2). */
extern const sim_protocol sim_proto_t3, sim_proto_t3_three, sim_proto_t3_cancel;

/* A task's join counter (tgjoin.c): a task runs once, after all its
 * predecessors, and sees their writes, whether they arrive with RMWs or
 * alone with plain stores (T1, T2). */
extern const sim_protocol sim_proto_t1, sim_proto_t1_spawn;

/* Every protocol, NULL-terminated. */
extern const sim_protocol *const sim_protocols[];
const sim_protocol *sim_protocol_find(const char *name);

#endif
