/* SPDX-License-Identifier: Apache-2.0 */
/* weft-sim's core: simulated threads, the memory machine, one step at a time.
 * This header holds the simulator's state and its names; the files of
 * core/ build on it, lowest first: memory.h (the arena and the names of
 * locations), machine.h (what one step does), algo.h (what an algorithm
 * gives the simulator), access.h (the instrumented atomics), threads.h
 * (the simulated threads and a fresh execution).
 *
 * A simulated thread is a coroutine that runs real code (src/deque.c, or a
 * reference algorithm) until it reaches an instrumented access; the access
 * is then *posted* (the thread waits) and the scheduler decides when it is
 * executed.  Executing a posted access, or draining one store from a store
 * buffer, is one *step*.  Processes are what the scheduler chooses between:
 * the threads, and (under TSO and PSO) their store buffers.
 *
 * There is one simulator per program run (the instrumented atomics are
 * global functions), so the state is global: `S`. */
#ifndef WEFT_SIM_SIM_H
#define WEFT_SIM_SIM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "core/coro.h"
#include "core/sim_atomic.h"

#define SIM_MAX_THREADS 5 /* owner + 4 thieves (IRIW needs 4 threads) */
#define SIM_MAX_PROCS 64  /* threads + store-buffer processes          */
#define SIM_MAX_BUF 32    /* buffered stores per thread                */
#define SIM_MAX_OPS 16    /* operations per thread in one scenario     */
#define SIM_MAX_RINGS 8
#define SIM_MAX_VALUES 26     /* task values A..Z                          */
#define SIM_OP_STEP_LIMIT 400 /* an operation longer than this is a hang */

/* sc, tso and pso are machines with store buffers, explored by
 * interleaving (search/dpor.c); arm, c11 and c20 are axiomatic models whose
 * executions are graphs (models/wmm.h).  c20 is c11 with C++20's release
 * sequences; c11std is c11 with C11's own seq_cst rules (7.17.3) in place
 * of RC11's. */
enum sim_model {
    MODEL_SC,
    MODEL_TSO,
    MODEL_PSO,
    MODEL_ARM,
    MODEL_C11,
    MODEL_C20,
    MODEL_C11STD,
    MODEL_COUNT
};
#define SIM_GRAPH_MODEL(m) ((m) >= MODEL_ARM)

enum sim_kind { K_LOAD, K_STORE, K_CAS, K_XCHG, K_FADD, K_FENCE, K_DRAIN };

/* An instrumented access, as posted by a thread and completed by a step. */
typedef struct sim_access {
    int kind;
    int order;     /* the order executed (a mutant may weaken it)          */
    int order_src; /* the order written in the source                     */
    int size;      /* bytes at addr: 4, or 8 (0 also means 8)             */
    volatile void *addr;
    uint64_t val;    /* store value, CAS desired, exchange/add operand     */
    uint64_t expect; /* CAS expected value                                 */
    wf_sim_site site;
    uint64_t result; /* value read: load, or the old value of an RMW      */
    bool ok;         /* CAS succeeded                                      */
    bool forwarded;  /* the load was served by the thread's own buffer     */
    bool buffered;   /* the store went into the store buffer              */
} sim_access;

/* One buffered store.  Under TSO a thread's buffer drains in order; under
 * PSO the oldest store of each location may drain (per-location FIFOs). */
typedef struct sim_bufent {
    volatile void *addr;
    uint64_t val;
    int size;
    int pos; /* trace position of the store that buffered it */
    int order;
    wf_sim_site site;
} sim_bufent;

enum sim_op_kind { OP_PUSH, OP_POP, OP_POLL, OP_CALL };

/* One operation of a thread's program, and its outcome. */
#define SIM_MAX_PUSH_N 4
typedef struct sim_op {
    int kind;
    int value; /* push: value index (A = 0); -1: chosen at run time */
    int count; /* push: tasks pushed at once (wf_deque_push_n), 0: 1 */
    int more[SIM_MAX_PUSH_N - 1]; /* ...the values after the first        */
    void (*call)(int thread);     /* OP_CALL: a thread body (litmus, park)   */
    bool straight; /* OP_CALL: straight-line code, no branch on a load */
    bool if_owner; /* run only if the thread received the deque (handoff) */
    int status;    /* poll: WF_POLL_*; push: 0 or an error             */
    void *got;     /* pop/poll: what it returned                        */
    bool done;
} sim_op;

enum sim_tstate { T_IDLE, T_PENDING };

typedef struct sim_thread {
    coro co;
    int state;
    sim_access pend; /* valid when state == T_PENDING */
    sim_bufent buf[SIM_MAX_BUF];
    int nbuf;
    sim_op prog[SIM_MAX_OPS];
    int nprog;  /* operations queued                     */
    int pc;     /* index of the current / next operation  */
    bool in_op; /* prog[pc] has started and not finished  */
    int op_steps;
    uint64_t reads_hash; /* every value this thread has read, hashed */
    /* its last futex wait (access.c): the word, the kernel's ticket (the
     * place of the wait among the futex operations on that word), and
     * whether it found the expected value, so went to sleep */
    volatile void *futex_addr;
    int64_t futex_ticket;
    bool futex_slept, futex_timed;
} sim_thread;

/* A futex wake (FUTEX_WAKE): its word, its ticket, how many it wakes. */
#define SIM_MAX_WAKES 16
typedef struct sim_wake {
    volatile void *addr;
    int64_t ticket;
    int n;
} sim_wake;

/* A process: a thread, or one store buffer (TSO: a thread's whole buffer,
 * addr NULL; PSO: the FIFO of one location). */
typedef struct sim_proc {
    int thread;
    bool is_buf;
    volatile void *addr;
} sim_proc;

/* What a step did, for the log, the explorer and the picture. */
typedef struct sim_step_info {
    int pid, thread;
    int kind;       /* K_*; K_DRAIN for a buffer's step */
    sim_access acc; /* the access (for a drain: the store drained) */
    int op_index;   /* the thread's operation the access belongs to */
} sim_step_info;

/* A ring registered by an algorithm adapter, to name and draw its slots. */
typedef struct sim_ring {
    const void *ring;     /* the value stored in the algorithm's array field */
    volatile void *slots; /* first slot                                      */
    int64_t cap;
    int owner; /* the thread that allocated it; -1: at set-up     */
} sim_ring;

/* Hooks an algorithm gives the simulator. */
typedef struct sim_algo sim_algo;

typedef struct sim_state {
    int model;
    const sim_algo *algo;
    int nthreads;
    sim_thread th[SIM_MAX_THREADS];
    sim_proc proc[SIM_MAX_PROCS];
    int nprocs;
    int cur; /* thread running its coroutine, or -1 (direct) */
    int pos; /* steps executed in this execution             */
    /* the deque's shared words, for the picture and the checks */
    volatile int64_t *base_addr, *top_addr;
    void *volatile *array_addr;
    sim_ring rings[SIM_MAX_RINGS];
    int nrings;
    /* checks run as the execution goes */
    int pushed[SIM_MAX_VALUES], taken[SIM_MAX_VALUES];
    int next_value;   /* next fresh value to push                    */
    bool reuse;       /* push a value already taken (frame reuse)    */
    int64_t base_max; /* largest base written to memory so far       */
    char fail[256];   /* first failure of this execution, or ""     */
    /* a change of owner: the thread the deque is handed to (0: none), and
     * whether its acquire read of the handoff saw it */
    int handoff_thread;
    bool handed;
    /* the futex wakes of this execution, in the order they were made */
    sim_wake wakes[SIM_MAX_WAKES];
    int nwakes;
    /* output */
    bool logging;
    void (*on_step)(const sim_step_info *);
    /* an access a mutant removed (it is no step): thread and access */
    void (*on_skip)(int thread, const sim_access *);
    /* arm, c11: what a replayed event reads from, said before its step */
    void (*on_note)(const char *text);
} sim_state;

extern sim_state S;

/* ---- the state's names and failures (state.c) ------------------------- */
/* Record a failure (the first one wins) and make the explorer stop. */
void sim_failf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Name of thread t ("owner", "T1", ...). */
const char *sim_thread_name(int t);
/* "sc", "tso", "pso", "arm", "c11"; and back (-1: unknown). */
const char *sim_model_name(int m);
int sim_model_parse(const char *s);
/* "relaxed", "acquire", "release", "acq_rel", "seq_cst", "plain". */
const char *sim_order_name(int order);

/* ---- values (state.c) --------------------------------------------------- */
#define SIM_VALUE(i) ((void *)(uintptr_t)(0xA0 + (i)))
int sim_value_index(const void *v); /* -1 when not a task value */
/* Value i of a push operation (i < count). */
int sim_op_value(const sim_op *op, int i);
/* "A", "B", ... ; "null" for NULL; "#hex" for anything else. */
const char *sim_value_name(const void *v, char buf[24]);

#endif
