/* SPDX-License-Identifier: Apache-2.0 */
/* The shipped deque and its mutants, as the list of algorithms shows them.
 * A mutant is the same code with one access weakened at run time (an
 * override), except the two in variants.c, which need code of their own. */
#include "algos/algos.h"
#include "algos/variants.h"
#include "algos/weft_deque.h"

#define WEFT_ALGO(nm, model, description, overrides, pollfn)                   \
    WEFT_ALGO2(nm, model, description, overrides, sim_weft_pop, pollfn)
#define WEFT_ALGO2(nm, model, description, overrides, popfn, pollfn)           \
    {                                                                          \
        .name = nm, .catch_model = model, .desc = description,                 \
        .init = sim_weft_init, .destroy = sim_weft_destroy,                    \
        .push = sim_weft_push, .push_n = sim_weft_push_n, .pop = popfn,        \
        .poll = pollfn, .ovr = overrides                                       \
    }

#define END                                                                    \
    {                                                                          \
        NULL, 0, 0, NULL, 0                                                    \
    }
static const sim_override no_storeload[] = {
    {"wf_deque_pop", K_FENCE, WF_SIM_SEQ_CST, NULL, -1}, END};
static const sim_override relaxed_slot_store[] = {
    {"wf_deque_push_n", K_STORE, WF_SIM_RELEASE, "slot", WF_SIM_RELAXED}, END};
static const sim_override relaxed_top_store[] = {
    {"wf_deque_push_n", K_STORE, WF_SIM_RELEASE, "top", WF_SIM_RELAXED}, END};
static const sim_override relaxed_slot_load[] = {
    {"wf_deque_poll", K_LOAD, WF_SIM_ACQUIRE, "slot", WF_SIM_RELAXED}, END};
static const sim_override relaxed_top_load[] = {
    {"wf_deque_poll", K_LOAD, WF_SIM_ACQUIRE, "top", WF_SIM_RELAXED}, END};
static const sim_override poll_no_fence[] = {
    {"wf_deque_poll", K_FENCE, WF_SIM_SEQ_CST, NULL, -1}, END};
static const sim_override relaxed_array_store[] = {
    {"grow", K_STORE, WF_SIM_RELEASE, "array", WF_SIM_RELAXED}, END};
static const sim_override relaxed_pop_top[] = {
    {"wf_deque_pop", K_STORE, WF_SIM_RELEASE, "top", WF_SIM_RELAXED}, END};
static const sim_override relaxed_array_load[] = {
    {"wf_deque_poll", K_LOAD, WF_SIM_ACQUIRE, "array", WF_SIM_RELAXED}, END};
static const sim_override poll_cas_acqrel[] = {
    {"wf_deque_poll", K_CAS, WF_SIM_SEQ_CST, "base", WF_SIM_ACQ_REL}, END};

/* The pool's event counts (src/pool/evcount.c), run by a protocol of
 * evcount.c (`protocol p3`, `p8`, `p8-fallback`); on a deque scenario
 * these change no access. */
static const sim_override ec_no_wake_fence[] = {
    {"wf__ec_wake_sleeper", K_FENCE, WF_SIM_SEQ_CST, NULL, -1}, END};
static const sim_override ec_no_sleep_fence[] = {
    {"wf__ec_sleep_begin", K_FENCE, WF_SIM_SEQ_CST, NULL, -1}, END};
static const sim_override ec_no_wait_fence[] = {
    {"wf__ec_wait_begin", K_FENCE, WF_SIM_SEQ_CST, NULL, -1}, END};
static const sim_override ec_no_waiters_fence[] = {
    {"wf__ec_wake_waiters", K_FENCE, WF_SIM_SEQ_CST, NULL, -1}, END};
/* The shutdown path, run by a protocol of shutdown.c (`p11-park`,
 * `p11-nap`, `p11`). */
static const sim_override ec_relaxed_wake_all[] = {
    {"wf__ec_wake_all", K_FADD, WF_SIM_RELEASE, "epoch", WF_SIM_RELAXED}, END};
static const sim_override ec_relaxed_epoch[] = {
    {"wf__ec_epoch", K_LOAD, WF_SIM_ACQUIRE, "epoch", WF_SIM_RELAXED}, END};

/* The counts a waiter waits for, run by a protocol of counts.c (`g5`,
 * `g5-poll`: a graph's pending, src/internal/graph/pending.h; `p10`: the
 * pool's roots, src/internal/pool/roots.h). */
static const sim_override g5_relaxed_drop[] = {
    {"wf__pending_drop", K_CAS, WF_SIM_ACQ_REL, "pending", WF_SIM_RELAXED},
    END};
static const sim_override g5_drop_release[] = {
    {"wf__pending_drop", K_CAS, WF_SIM_ACQ_REL, "pending", WF_SIM_RELEASE},
    END};
static const sim_override g5_relaxed_drop_last[] = {{"wf__pending_drop_last",
                                                     K_FADD, WF_SIM_RELEASE,
                                                     "pending", WF_SIM_RELAXED},
                                                    END};
static const sim_override g5_relaxed_idle[] = {
    {"wf__pending_idle", K_LOAD, WF_SIM_ACQUIRE, "pending", WF_SIM_RELAXED},
    END};
/* A reset's close and reopen, a hold, a gateway's reservation (counts.c's
 * `g5-reset`, `g5-reset-flag`, `g5-gateway`; pending.h). */
static const sim_override g5_relaxed_close[] = {
    {"wf__pending_close", K_CAS, WF_SIM_ACQ_REL, "pending", WF_SIM_RELAXED},
    END};
static const sim_override g5_close_acquire[] = {
    {"wf__pending_close", K_CAS, WF_SIM_ACQ_REL, "pending", WF_SIM_ACQUIRE},
    END};
static const sim_override g5_relaxed_reopen[] = {
    {"wf__pending_reopen", K_FADD, WF_SIM_RELEASE, "pending", WF_SIM_RELAXED},
    END};
static const sim_override g5_relaxed_hold[] = {
    {"wf__pending_hold", K_FADD, WF_SIM_ACQ_REL, "pending", WF_SIM_RELAXED},
    END};
static const sim_override g5_hold_release[] = {
    {"wf__pending_hold", K_FADD, WF_SIM_ACQ_REL, "pending", WF_SIM_RELEASE},
    END};
static const sim_override g5_hold_acquire[] = {
    {"wf__pending_hold", K_FADD, WF_SIM_ACQ_REL, "pending", WF_SIM_ACQUIRE},
    END};
static const sim_override g5_relaxed_reserve[] = {
    {"wf__gateway_reserve", K_FADD, WF_SIM_RELEASE, "waits", WF_SIM_RELAXED},
    END};
static const sim_override g5_relaxed_take[] = {
    {"wf__gateway_take", K_CAS, WF_SIM_ACQ_REL, "waits", WF_SIM_RELAXED}, END};
static const sim_override p10_relaxed_drop[] = {
    {"wf__roots_drop", K_CAS, WF_SIM_ACQ_REL, "roots", WF_SIM_RELAXED}, END};

/* A task's done word, run by a protocol of frames.c (`p9`: a typed
 * frame published, stolen, completed and synced) or evcount.c (`p8`):
 * src/internal/pool/done.h. */
static const sim_override p9_relaxed_done_mark[] = {
    {"wf__done_mark", K_XCHG, WF_SIM_ACQ_REL, "done", WF_SIM_RELAXED}, END};
static const sim_override p9_done_mark_acquire[] = {
    {"wf__done_mark", K_XCHG, WF_SIM_ACQ_REL, "done", WF_SIM_ACQUIRE}, END};
static const sim_override p9_done_mark_release[] = {
    {"wf__done_mark", K_XCHG, WF_SIM_ACQ_REL, "done", WF_SIM_RELEASE}, END};
static const sim_override p9_relaxed_done_seen[] = {
    {"wf__done_seen", K_LOAD, WF_SIM_ACQUIRE, "done", WF_SIM_RELAXED}, END};
/* A request's words, run by requests.c (`p9-request`):
 * src/internal/pool/request.h.  Every step is relaxed already; these take
 * one away (-1: skipped). */
static const sim_override p9_set_tlimit_no_putback[] = {
    {"wf__request_set_tlimit", K_STORE, WF_SIM_RELAXED, "tlimit", -1}, END};
static const sim_override p9_ask_limit_only[] = {
    {"wf__request_ask_tlimit", K_STORE, WF_SIM_RELAXED, "tlimit", -1}, END};

/* A continue_node's rounds, run by a protocol of rounds.c (`g9`,
 * `g9-three`): src/internal/graph/cont_count.h. */
static const sim_override g9_relaxed_signal[] = {
    {"wf__cont_signal", K_CAS, WF_SIM_ACQ_REL, "sig", WF_SIM_RELAXED}, END};
static const sim_override g9_release_signal[] = {
    {"wf__cont_signal", K_CAS, WF_SIM_ACQ_REL, "sig", WF_SIM_RELEASE}, END};
static const sim_override g9_acquire_signal[] = {
    {"wf__cont_signal", K_CAS, WF_SIM_ACQ_REL, "sig", WF_SIM_ACQUIRE}, END};

/* The scan's frontier, run by a protocol of scanfront.c (`a6`,
 * `a6-advance`, `a6-three`): src/internal/algo/scan_front.h. */
static const sim_override a6_relaxed_at[] = {
    {"wf__scan_front_at", K_LOAD, WF_SIM_ACQUIRE, "frontier", WF_SIM_RELAXED},
    END};
static const sim_override a6_relaxed_pass[] = {{"wf__scan_front_pass", K_STORE,
                                                WF_SIM_RELEASE, "frontier",
                                                WF_SIM_RELAXED},
                                               END};
static const sim_override a6_relaxed_folded[] = {
    {"wf__scan_front_folded", K_STORE, WF_SIM_RELEASE, "state", WF_SIM_RELAXED},
    END};
static const sim_override a6_relaxed_take[] = {{"wf__scan_front_advance",
                                                K_XCHG, WF_SIM_ACQ_REL,
                                                "advancing", WF_SIM_RELAXED},
                                               END};
static const sim_override a6_take_acquire[] = {{"wf__scan_front_advance",
                                                K_XCHG, WF_SIM_ACQ_REL,
                                                "advancing", WF_SIM_ACQUIRE},
                                               END};
static const sim_override a6_take_release[] = {{"wf__scan_front_advance",
                                                K_XCHG, WF_SIM_ACQ_REL,
                                                "advancing", WF_SIM_RELEASE},
                                               END};
static const sim_override a6_relaxed_give[] = {{"wf__scan_front_advance",
                                                K_STORE, WF_SIM_RELEASE,
                                                "advancing", WF_SIM_RELAXED},
                                               END};
static const sim_override a6_relaxed_advance_load[] = {
    {"wf__scan_front_advance", K_LOAD, WF_SIM_ACQUIRE, "frontier",
     WF_SIM_RELAXED},
    END};
static const sim_override a6_relaxed_advance_state[] = {
    {"wf__scan_front_advance", K_LOAD, WF_SIM_ACQUIRE, "state", WF_SIM_RELAXED},
    END};
static const sim_override a6_relaxed_advance_store[] = {
    {"wf__scan_front_advance", K_STORE, WF_SIM_RELEASE, "frontier",
     WF_SIM_RELAXED},
    END};

/* The MPI engine's sleep and its kick, run by a protocol of mpiwake.c
 * (`m1`, `m1-two`): src/internal/mpi/wake_steps.h. */
static const sim_override m1_sleep_inc_acqrel[] = {
    {"wf__mpi_sleep_begin", K_FADD, WF_SIM_SEQ_CST, "sleeping", WF_SIM_ACQ_REL},
    END};
static const sim_override m1_sleep_xchg_acqrel[] = {
    {"wf__mpi_sleep_begin", K_XCHG, WF_SIM_SEQ_CST, "kicked", WF_SIM_ACQ_REL},
    END};
static const sim_override m1_recheck_relaxed[] = {
    {"wf__mpi_sleep_recheck", K_XCHG, WF_SIM_ACQ_REL, "kicked", WF_SIM_RELAXED},
    END};
static const sim_override m1_kick_store_release[] = {{"wf__mpi_kick_needs_wake",
                                                      K_STORE, WF_SIM_SEQ_CST,
                                                      "kicked", WF_SIM_RELEASE},
                                                     END};
static const sim_override m1_kick_load_acquire[] = {
    {"wf__mpi_kick_needs_wake", K_LOAD, WF_SIM_SEQ_CST, "sleeping",
     WF_SIM_ACQUIRE},
    END};

/* Termination detection's counts, run by a protocol of termcount.c
 * (`m3`, `m3-end`): src/internal/mpi/count_steps.h. */
static const sim_override m3_relaxed_received[] = {
    {"wf__mpi_count_received_step", K_FADD, WF_SIM_RELEASE, "n_received",
     WF_SIM_RELAXED},
    END};
static const sim_override m3_relaxed_round_received[] = {
    {"wf__mpi_counts_round", K_LOAD, WF_SIM_ACQUIRE, "n_received",
     WF_SIM_RELAXED},
    END};

/* A trace recorder and the trace's stop and start, run by a protocol of
 * tracestep.c (`b1`, `b1-restart`): src/internal/base/trace_steps.h. */
static const sim_override b1_no_enter_fence[] = {
    {"wf__trace_enter", K_FENCE, WF_SIM_SEQ_CST, NULL, -1}, END};
static const sim_override b1_relaxed_enter_load[] = {
    {"wf__trace_enter", K_LOAD, WF_SIM_ACQUIRE, "tracing", WF_SIM_RELAXED},
    END};
static const sim_override b1_relaxed_leave[] = {
    {"wf__trace_leave", K_STORE, WF_SIM_RELEASE, "busy", WF_SIM_RELAXED}, END};
static const sim_override b1_no_stop_fence[] = {
    {"wf__trace_switch_off", K_FENCE, WF_SIM_SEQ_CST, NULL, -1}, END};
static const sim_override b1_relaxed_busy[] = {
    {"wf__trace_busy", K_LOAD, WF_SIM_ACQUIRE, "busy", WF_SIM_RELAXED}, END};
static const sim_override b1_relaxed_switch_on[] = {
    {"wf__trace_switch_on", K_STORE, WF_SIM_RELEASE, "tracing", WF_SIM_RELAXED},
    END};

/* The pool's spare workers, run by a protocol of spares.c (`p12`,
 * `p12-end`, `p12-two`): src/internal/pool/spares.h. */
static const sim_override p12_block_acqrel[] = {
    {"wf__spares_block", K_FADD, WF_SIM_SEQ_CST, "blocked", WF_SIM_ACQ_REL},
    END};
static const sim_override p12_block_load_acquire[] = {
    {"wf__spares_block", K_LOAD, WF_SIM_SEQ_CST, "spares", WF_SIM_ACQUIRE},
    END};
static const sim_override p12_retire_acqrel[] = {
    {"wf__spares_retire", K_CAS, WF_SIM_SEQ_CST, "spares", WF_SIM_ACQ_REL},
    END};
static const sim_override p12_retire_load_acquire[] = {
    {"wf__spares_retire", K_LOAD, WF_SIM_SEQ_CST, "blocked", WF_SIM_ACQUIRE},
    END};

/* A port's edge list, run by a protocol of edgelist.c (`g7`, `g7-grow`,
 * `g7-has`): src/internal/graph/edges_steps.h. */
static const sim_override g7_relaxed_list[] = {
    {"wf__edges_list", K_LOAD, WF_SIM_ACQUIRE, "head", WF_SIM_RELAXED}, END};
static const sim_override g7_relaxed_replace[] = {
    {"wf__edges_replace", K_STORE, WF_SIM_RELEASE, "head", WF_SIM_RELAXED},
    END};
static const sim_override g7_relaxed_has[] = {
    {"wf__edges_has", K_LOAD, WF_SIM_ACQUIRE, "head", WF_SIM_RELAXED}, END};
static const sim_override g7_relaxed_append[] = {
    {"wf__edges_append", K_STORE, WF_SIM_RELEASE, "->n", WF_SIM_RELAXED}, END};
static const sim_override g7_relaxed_count[] = {
    {"wf__edges_count", K_LOAD, WF_SIM_ACQUIRE, "->n", WF_SIM_RELAXED}, END};

/* A task graph's round, its error and its cancel, run by a protocol of
 * tgrun.c (`t3`, `t3-three`, `t3-cancel`):
 * src/internal/taskgraph/run_steps.h. */
static const sim_override t3_relaxed_fail[] = {
    {"wf__tg_fail", K_CAS, WF_SIM_ACQ_REL, "run_error", WF_SIM_RELAXED}, END};
static const sim_override t3_fail_acquire[] = {
    {"wf__tg_fail", K_CAS, WF_SIM_ACQ_REL, "run_error", WF_SIM_ACQUIRE}, END};
static const sim_override t3_fail_release[] = {
    {"wf__tg_fail", K_CAS, WF_SIM_ACQ_REL, "run_error", WF_SIM_RELEASE}, END};
static const sim_override t3_relaxed_start[] = {
    {"wf__tg_round_start", K_XCHG, WF_SIM_ACQ_REL, "run_error", WF_SIM_RELAXED},
    END};
static const sim_override t3_start_acquire[] = {
    {"wf__tg_round_start", K_XCHG, WF_SIM_ACQ_REL, "run_error", WF_SIM_ACQUIRE},
    END};
static const sim_override t3_start_release[] = {
    {"wf__tg_round_start", K_XCHG, WF_SIM_ACQ_REL, "run_error", WF_SIM_RELEASE},
    END};
static const sim_override t2_relaxed_retire[] = {
    {"wf__tg_retire", K_FADD, WF_SIM_ACQ_REL, "active", WF_SIM_RELAXED}, END};
static const sim_override t2_retire_release[] = {
    {"wf__tg_retire", K_FADD, WF_SIM_ACQ_REL, "active", WF_SIM_RELEASE}, END};
static const sim_override t2_relaxed_round_over[] = {
    {"wf__tg_round_over", K_LOAD, WF_SIM_ACQUIRE, "active", WF_SIM_RELAXED},
    END};
static const sim_override t1_relaxed_alone[] = {
    {"wf__tg_alone", K_LOAD, WF_SIM_ACQUIRE, "active", WF_SIM_RELAXED}, END};
static const sim_override t1_relaxed_last[] = {
    {"wf__tg_arrive", K_LOAD, WF_SIM_ACQUIRE, "join", WF_SIM_RELAXED}, END};
static const sim_override t1_arrive_release[] = {
    {"wf__tg_arrive", K_FADD, WF_SIM_ACQ_REL, "join", WF_SIM_RELEASE}, END};
static const sim_override t1_arrive_acquire[] = {
    {"wf__tg_arrive", K_FADD, WF_SIM_ACQ_REL, "join", WF_SIM_ACQUIRE}, END};

const sim_algo sim_algo_weft =
    WEFT_ALGO("weft", "-",
              "the shipped deque: src/deque.c compiled unchanged with -DWF_SIM",
              NULL, sim_weft_poll);

const sim_algo sim_weft_mutants[] = {
    WEFT_ALGO("weft-no-storeload", "tso",
              "pop: the seq_cst fence between the store of top and the load "
              "of base is skipped (no StoreLoad)",
              no_storeload, sim_weft_poll),
    WEFT_ALGO("weft-relaxed-slot-store", "c11+lb",
              "push: the release store of the slot becomes relaxed (with "
              "--lb, load buffering: a thief reads the slot's next lap, "
              "written after the owner read the thief's CAS; RC11 and ARMv8 "
              "rule that out, C11 does not)",
              relaxed_slot_store, sim_weft_poll),
    WEFT_ALGO("weft-relaxed-top-store", "pso",
              "push: the release store of top becomes relaxed (a thief may "
              "see top before the slot)",
              relaxed_top_store, sim_weft_poll),
    WEFT_ALGO("weft-relaxed-slot-load", "c11+lb",
              "poll: the acquire load of the slot becomes relaxed (as the "
              "slot store: caught with --lb, docs/protocols.md D1)",
              relaxed_slot_load, sim_weft_poll),
    WEFT_ALGO("weft-relaxed-top-load", "arm",
              "poll: the acquire load of top becomes relaxed (LoadLoad: "
              "ARMv8 may read the slot before top; SC, TSO and PSO never "
              "reorder loads)",
              relaxed_top_load, sim_weft_poll),
    WEFT_ALGO("weft-poll-no-fence", "arm",
              "poll: the seq_cst fence between the loads of base and top is "
              "skipped (ARMv8 may then read top before the relaxed load of "
              "base; C11's fences order only against fences; TSO and PSO "
              "keep loads in order)",
              poll_no_fence, sim_weft_poll),
    WEFT_ALGO("weft-relaxed-array-store", "pso",
              "grow: the release store of the new ring becomes relaxed (a "
              "thief may see the ring before its slots)",
              relaxed_array_store, sim_weft_poll),
    WEFT_ALGO("weft-relaxed-pop-top", "c20",
              "pop: the release stores of top become relaxed (C++20's release "
              "sequences hold RMWs only: a thief that reads pop's claim no "
              "longer synchronises with the pushes before it)",
              relaxed_pop_top, sim_weft_poll),
    WEFT_ALGO("weft-relaxed-array-load", "c11",
              "poll: the acquire load of array becomes relaxed (C11: the "
              "thief reads a grown ring's mask without happens-before, a "
              "data race; ARMv8 orders it by the address dependency)",
              relaxed_array_load, sim_weft_poll),
    WEFT_ALGO("weft-poll-cas-acqrel", "c11std",
              "poll: the seq_cst CAS on base becomes acq_rel (C11's fence "
              "rules reach the CAS a thief read only through S: pop may miss "
              "it and take the same task; RC11's fences need no S, "
              "docs/protocols.md D4)",
              poll_cas_acqrel, sim_weft_poll),
    WEFT_ALGO2("weft-pop-oldest", "sc",
               "pop: the owner takes the oldest task, at base (nothing lost or "
               "duplicated: only the LIFO order is wrong; variants.c)",
               NULL, sim_weft_pop_oldest, sim_weft_poll),
    WEFT_ALGO("weft-cas-before-read", "sc",
              "poll: base is advanced (the CAS) before the slot is read, so "
              "the owner may reuse the slot first (variants.c)",
              NULL, sim_weft_poll_cas_first),
    WEFT_ALGO("evcount-no-wake-fence", "tso",
              "wake_sleeper: the seq_cst fence after the publish is skipped "
              "(P3: the load of sleepers passes the store of top; p3, "
              "p8-fallback)",
              ec_no_wake_fence, sim_weft_poll),
    WEFT_ALGO("evcount-no-sleep-fence", "arm",
              "sleep_begin: the seq_cst fence after the increment of "
              "sleepers is skipped (P3; on x86 the locked increment is a "
              "full fence; p3)",
              ec_no_sleep_fence, sim_weft_poll),
    WEFT_ALGO("evcount-no-wait-fence", "arm",
              "wait_begin: the seq_cst fence after the increment of waiters "
              "is skipped (P8; ARMv8 loses a wake-up only when the check is "
              "a relaxed load, p8-fallback; c11 in p8 too)",
              ec_no_wait_fence, sim_weft_poll),
    WEFT_ALGO("evcount-no-waiters-fence", "arm",
              "wake_waiters: the seq_cst fence after the condition is made "
              "true is skipped (P8; on x86 the exchange is a full fence; p8)",
              ec_no_waiters_fence, sim_weft_poll),
    WEFT_ALGO("evcount-relaxed-wake-all", "arm",
              "wake_all: the release increment of epoch becomes relaxed (P3, "
              "P11: a worker reads the new epoch but not shutdown, stored "
              "before it, and sleeps on the new epoch after the wake; "
              "p11-park, p11-nap)",
              ec_relaxed_wake_all, sim_weft_poll),
    WEFT_ALGO("evcount-relaxed-epoch", "arm",
              "wf__ec_epoch: the nap's acquire load of epoch becomes relaxed "
              "(P3, P11: ARMv8 may read shutdown first, as 0, then the new "
              "epoch, and the nap sleeps out its timeout; p11-nap)",
              ec_relaxed_epoch, sim_weft_poll),
    WEFT_ALGO("g5-relaxed-drop", "arm",
              "wf__pending_drop: the acq_rel CAS above 1 becomes relaxed (G5: "
              "a task's effects no longer reach a waiter that reads 0; g5, "
              "g5-poll)",
              g5_relaxed_drop, sim_weft_poll),
    WEFT_ALGO("g5-drop-release", "-",
              "wf__pending_drop: the acq_rel CAS above 1 becomes release (a "
              "release sequence needs no acquire in its RMWs)",
              g5_drop_release, sim_weft_poll),
    WEFT_ALGO("g5-relaxed-drop-last", "arm",
              "wf__pending_drop_last: the release decrement to 0 becomes "
              "relaxed (G5: the last task's effects reach wf_graph_is_idle, "
              "which takes no lock, only through its release; g5-poll)",
              g5_relaxed_drop_last, sim_weft_poll),
    WEFT_ALGO("g5-relaxed-idle", "arm",
              "wf__pending_idle: the acquire load becomes relaxed (G5: "
              "wf_graph_is_idle may read the effects before the count; "
              "g5-poll; wait_for_all's idle_lock orders them, g5)",
              g5_relaxed_idle, sim_weft_poll),
    WEFT_ALGO("g5-relaxed-close", "arm",
              "wf__pending_close: the acq_rel CAS 0 -> RESETTING becomes "
              "relaxed (G5: the reset misses a put that ended between its "
              "wait and its close, and reads the node's state stale; "
              "g5-reset)",
              g5_relaxed_close, sim_weft_poll),
    WEFT_ALGO("g5-close-acquire", "-",
              "wf__pending_close: the CAS loses its release half (acq_rel "
              "to acquire: a hold or a waiter that reads RESETTING only "
              "waits; g5-reset)",
              g5_close_acquire, sim_weft_poll),
    WEFT_ALGO("g5-relaxed-reopen", "arm",
              "wf__pending_reopen: the release add becomes relaxed (G5: a "
              "put held after waiting for the reset reads cancelled and the "
              "node's state from before it; g5-reset, g5-reset-flag)",
              g5_relaxed_reopen, sim_weft_poll),
    WEFT_ALGO("g5-relaxed-hold", "arm",
              "wf__pending_hold: the acq_rel add becomes relaxed (G5: as "
              "g5-relaxed-reopen, from the hold's side; g5-reset-flag)",
              g5_relaxed_hold, sim_weft_poll),
    WEFT_ALGO("g5-hold-release", "c11",
              "wf__pending_hold: the add loses its acquire half (acq_rel to "
              "release; G5: a held put reads cancelled stale; ARMv8 orders "
              "the held put's acquire load of the flag after the release "
              "add; g5-reset-flag)",
              g5_hold_release, sim_weft_poll),
    WEFT_ALGO("g5-hold-acquire", "-",
              "wf__pending_hold: the add loses its release half (acq_rel to "
              "acquire: a hold publishes nothing; g5-reset, g5-gateway)",
              g5_hold_acquire, sim_weft_poll),
    WEFT_ALGO("g5-relaxed-reserve", "-",
              "wf__gateway_reserve: the release add becomes relaxed (needed "
              "by C11 alone: the count drops below the work in flight only "
              "through load buffering, the hold reading the taker's "
              "release, which RC11 and ARMv8 rule out and --lb does not "
              "build through two RMWs of pending; g5-gateway)",
              g5_relaxed_reserve, sim_weft_poll),
    WEFT_ALGO("g5-relaxed-take", "-",
              "wf__gateway_take: the acq_rel CAS becomes relaxed (as "
              "g5-relaxed-reserve; g5-gateway)",
              g5_relaxed_take, sim_weft_poll),
    WEFT_ALGO("p10-relaxed-drop", "arm",
              "wf__roots_drop: the acq_rel CAS above 1 becomes relaxed (P10: "
              "a root's effects no longer reach wf_pool_wait_idle; p10)",
              p10_relaxed_drop, sim_weft_poll),
    WEFT_ALGO("p9-relaxed-done-mark", "arm",
              "wf__done_mark: the acq_rel exchange that completes a task "
              "becomes relaxed (P5, P9: the owner's sync reads the frame's "
              "value stale; p9)",
              p9_relaxed_done_mark, sim_weft_poll),
    WEFT_ALGO("p9-done-mark-acquire", "arm",
              "wf__done_mark: the exchange loses its release half (acq_rel "
              "to acquire; p9)",
              p9_done_mark_acquire, sim_weft_poll),
    WEFT_ALGO("p9-done-mark-release", "-",
              "wf__done_mark: the exchange loses its acquire half (acq_rel "
              "to release: the completer reads nothing of the joiner's after "
              "it; p9, p8)",
              p9_done_mark_release, sim_weft_poll),
    WEFT_ALGO("p9-relaxed-done-seen", "arm",
              "wf__done_seen: the joiner's acquire load of done_ becomes "
              "relaxed (P5, P9: the sync may read the value before done_; "
              "p9)",
              p9_relaxed_done_seen, sim_weft_poll),
    WEFT_ALGO("p9-set-tlimit-no-putback", "sc",
              "wf__request_set_tlimit: the NULL its exchange read is not put "
              "back (P9: a request stored before a segment is entered is "
              "lost; p9-request)",
              p9_set_tlimit_no_putback, sim_weft_poll),
    WEFT_ALGO("p9-ask-limit-only", "sc",
              "wf__request_ask_tlimit: the thief's NULL goes to limit only "
              "(P9: a typed spawn tests tlimit alone, so the request waits "
              "for an untyped spawn or a join; p9-request)",
              p9_ask_limit_only, sim_weft_poll),
    WEFT_ALGO("g9-relaxed-signal", "arm",
              "wf__cont_signal: the acq_rel CAS on sig becomes relaxed (G9: "
              "the body misses the other sender's datum; g9)",
              g9_relaxed_signal, sim_weft_poll),
    WEFT_ALGO("g9-release-signal", "arm",
              "wf__cont_signal: the acq_rel CAS on sig becomes release (G9: "
              "the signal that completes the round acquires nothing, and "
              "the body misses the other sender's datum; g9)",
              g9_release_signal, sim_weft_poll),
    WEFT_ALGO("g9-acquire-signal", "arm",
              "wf__cont_signal: the acq_rel CAS on sig becomes acquire (G9: "
              "a signal releases nothing, and the body misses its sender's "
              "datum; g9)",
              g9_acquire_signal, sim_weft_poll),
    WEFT_ALGO("a6-relaxed-at", "arm",
              "wf__scan_front_at: the acquire load of the frontier becomes "
              "relaxed (A6: the block at the frontier reads its prefix "
              "stale; a6)",
              a6_relaxed_at, sim_weft_poll),
    WEFT_ALGO("a6-relaxed-pass", "pso",
              "wf__scan_front_pass: the release store of the frontier "
              "becomes relaxed (A6: the next block reads the prefix stale; "
              "a6)",
              a6_relaxed_pass, sim_weft_poll),
    WEFT_ALGO("a6-relaxed-folded", "pso",
              "wf__scan_front_folded: the release store of a block's state "
              "becomes relaxed (A6: the advancer reads its sum stale; a6)",
              a6_relaxed_folded, sim_weft_poll),
    WEFT_ALGO("a6-relaxed-take", "arm",
              "wf__scan_front_advance: the acq_rel exchange that takes the "
              "token becomes relaxed (A6: the next holder reads the "
              "frontier the last one moved stale and steps past a block "
              "again, two writers of its prefix; a6)",
              a6_relaxed_take, sim_weft_poll),
    WEFT_ALGO("a6-take-acquire", "-",
              "wf__scan_front_advance: the exchange loses its release half "
              "(acq_rel to acquire: the token's release store hands on "
              "everything its holder did; a6, a6-advance)",
              a6_take_acquire, sim_weft_poll),
    WEFT_ALGO("a6-take-release", "c11",
              "wf__scan_front_advance: the exchange loses its acquire half "
              "(acq_rel to release; A6: the next holder steps past a block "
              "again, a race on its prefix; ARMv8 orders the release "
              "exchange's store before the acquire load of the frontier; "
              "a6)",
              a6_take_release, sim_weft_poll),
    WEFT_ALGO("a6-relaxed-give", "pso",
              "wf__scan_front_advance: the release store that gives the "
              "token back becomes relaxed (A6: the next holder reads the "
              "frontier stale and steps past a block again; a6)",
              a6_relaxed_give, sim_weft_poll),
    WEFT_ALGO("a6-relaxed-advance-load", "arm",
              "wf__scan_front_advance: the acquire load of the frontier "
              "becomes relaxed (A6: the advancer reads the prefix a block's "
              "pass wrote stale; a6)",
              a6_relaxed_advance_load, sim_weft_poll),
    WEFT_ALGO("a6-relaxed-advance-state", "arm",
              "wf__scan_front_advance: the acquire load of a block's state "
              "becomes relaxed (A6: the advancer reads its folded sum "
              "stale; a6)",
              a6_relaxed_advance_state, sim_weft_poll),
    WEFT_ALGO("a6-relaxed-advance-store", "pso",
              "wf__scan_front_advance: the release store of the frontier "
              "becomes relaxed (A6: the block the advance reached reads "
              "the prefix it wrote stale; a6-advance)",
              a6_relaxed_advance_store, sim_weft_poll),
    WEFT_ALGO("m1-sleep-inc-acqrel", "c11",
              "wf__mpi_sleep_begin: the seq_cst increment of sleeping becomes "
              "acq_rel (M1's store-buffering pair: a kick lost; ARMv8's "
              "acq_rel RMW is its seq_cst one; m1)",
              m1_sleep_inc_acqrel, sim_weft_poll),
    WEFT_ALGO("m1-sleep-xchg-acqrel", "c11",
              "wf__mpi_sleep_begin: the seq_cst exchange of kicked becomes "
              "acq_rel (M1's store-buffering pair: a kick lost; ARMv8's "
              "acq_rel RMW is its seq_cst one; m1)",
              m1_sleep_xchg_acqrel, sim_weft_poll),
    WEFT_ALGO("m1-recheck-relaxed", "arm",
              "wf__mpi_sleep_recheck: the acq_rel exchange of kicked becomes "
              "relaxed (a wait that timed out as the kick came takes it "
              "without the kicker's work: stale under ARMv8, a race under "
              "C11; m1-timeout)",
              m1_recheck_relaxed, sim_weft_poll),
    WEFT_ALGO("m1-kick-store-release", "tso",
              "wf__mpi_kick_needs_wake: the seq_cst store of kicked becomes "
              "release (M1's store-buffering pair: a kick lost; ARMv8's "
              "release store is ordered before its seq_cst load; m1)",
              m1_kick_store_release, sim_weft_poll),
    WEFT_ALGO("m1-kick-load-acquire", "c11",
              "wf__mpi_kick_needs_wake: the seq_cst load of sleeping becomes "
              "acquire (M1's store-buffering pair: a kick lost; ARMv8's "
              "acquire load is its seq_cst one; m1)",
              m1_kick_load_acquire, sim_weft_poll),
    WEFT_ALGO("m3-relaxed-received", "arm",
              "wf__mpi_count_received_step: the release increment of "
              "n_received becomes relaxed (M3: a round that counts a "
              "receipt misses the work it started, and the next local wait "
              "returns before it, a false termination under ARMv8, m3-end; "
              "under C11 the sender's next round also misses the send, "
              "R* > S', m3)",
              m3_relaxed_received, sim_weft_poll),
    WEFT_ALGO("m3-relaxed-round-received", "c11",
              "wf__mpi_counts_round: the acquire load of n_received becomes "
              "relaxed (M3: a round counts a receipt whose send the "
              "sender's next round misses, R* > S', m3; a false "
              "termination, m3-end; ARMv8 orders the load before the "
              "collective's release)",
              m3_relaxed_round_received, sim_weft_poll),
    WEFT_ALGO("b1-no-enter-fence", "tso",
              "wf__trace_enter: the seq_cst fence between the store of busy "
              "and the load of the switch is skipped (B1's store-buffering "
              "pair: the stop reads the buffer while the recorder writes "
              "it; b1)",
              b1_no_enter_fence, sim_weft_poll),
    WEFT_ALGO("b1-relaxed-enter-load", "arm",
              "wf__trace_enter: the acquire load of the switch becomes "
              "relaxed (B2: a recorder that sees a new session's switch "
              "reads the old time origin; b1-restart)",
              b1_relaxed_enter_load, sim_weft_poll),
    WEFT_ALGO("b1-relaxed-leave", "pso",
              "wf__trace_leave: the release store of busy becomes relaxed "
              "(B1: the stop sees the buffer idle before the event is "
              "written; b1)",
              b1_relaxed_leave, sim_weft_poll),
    WEFT_ALGO("b1-no-stop-fence", "tso",
              "wf__trace_switch_off: the seq_cst fence between the store of "
              "the switch and the loads of busy is skipped (B1's "
              "store-buffering pair: the stop reads the buffer while the "
              "recorder writes it; b1)",
              b1_no_stop_fence, sim_weft_poll),
    WEFT_ALGO("b1-relaxed-busy", "arm",
              "wf__trace_busy: the stop's acquire load of busy becomes "
              "relaxed (B1: the stop may read the event before busy, and "
              "reads it unwritten; b1)",
              b1_relaxed_busy, sim_weft_poll),
    WEFT_ALGO("b1-relaxed-switch-on", "pso",
              "wf__trace_switch_on: the start's release store of the switch "
              "becomes relaxed (B2: a recorder that sees the new switch "
              "reads the old time origin; b1-restart)",
              b1_relaxed_switch_on, sim_weft_poll),
    WEFT_ALGO("p12-block-acqrel", "c11",
              "wf__spares_block: the seq_cst increment of blocked becomes "
              "acq_rel (P12's store-buffering pair: a spare retires while "
              "the blocker starts none; ARMv8's acq_rel RMW is its seq_cst "
              "one; p12)",
              p12_block_acqrel, sim_weft_poll),
    WEFT_ALGO("p12-block-load-acquire", "c11",
              "wf__spares_block: the seq_cst load of spares_running becomes "
              "acquire (P12's store-buffering pair: a spare retires while "
              "the blocker starts none; ARMv8's acquire load is its seq_cst "
              "one; p12)",
              p12_block_load_acquire, sim_weft_poll),
    WEFT_ALGO("p12-retire-acqrel", "c11",
              "wf__spares_retire: the seq_cst CAS of spares_running becomes "
              "acq_rel (P12's store-buffering pair: a spare retires while "
              "the blocker starts none; ARMv8's acq_rel RMW is its seq_cst "
              "one; p12)",
              p12_retire_acqrel, sim_weft_poll),
    WEFT_ALGO("p12-retire-load-acquire", "c11",
              "wf__spares_retire: the seq_cst load of blocked after the CAS "
              "becomes acquire (P12's store-buffering pair: a spare retires "
              "while the blocker starts none; ARMv8's acquire load is its "
              "seq_cst one; p12)",
              p12_retire_load_acquire, sim_weft_poll),
    WEFT_ALGO("g7-relaxed-list", "c11",
              "wf__edges_list (edge.c's load_list): the acquire load of a "
              "port's list becomes relaxed (G7: a reader of the new block "
              "reads its slots as its memory held them; ARMv8 keeps the "
              "address dependency; g7-grow)",
              g7_relaxed_list, sim_weft_poll),
    WEFT_ALGO("g7-relaxed-replace", "pso",
              "wf__edges_replace (set_edges): the release store of a new "
              "block becomes relaxed (G7: a reader that finds it before the "
              "append's release of n reads its slots half built, or as its "
              "memory held them; g7-grow)",
              g7_relaxed_replace, sim_weft_poll),
    WEFT_ALGO("g7-relaxed-has", "c11",
              "wf__edges_has (wf__has_edge): the acquire load of a port's "
              "list becomes relaxed (G7: it answers for an edge of the "
              "older list, or a state its record's memory held; ARMv8 "
              "keeps the address dependency; g7-has)",
              g7_relaxed_has, sim_weft_poll),
    WEFT_ALGO("g7-relaxed-append", "pso",
              "wf__edges_append (set_edges): the release store of n becomes "
              "relaxed (G7: a reader that sees the new count reads the slot "
              "unfilled; g7)",
              g7_relaxed_append, sim_weft_poll),
    WEFT_ALGO("g7-relaxed-count", "arm",
              "wf__edges_count: the acquire load of n becomes relaxed (G7: "
              "the reader reads a slot below it unfilled; g7)",
              g7_relaxed_count, sim_weft_poll),
    WEFT_ALGO(
        "t3-relaxed-fail", "arm",
        "wf__tg_fail: the acq_rel CAS of the error becomes relaxed (T3: a "
        "round's start that clears a cancel's error misses its flag "
        "and runs, the cancel lost; t3-cancel)",
        t3_relaxed_fail, sim_weft_poll),
    WEFT_ALGO("t3-fail-acquire", "arm",
              "wf__tg_fail: the CAS of the error loses its release half "
              "(acq_rel to acquire; T3: the cancel lost, as "
              "t3-relaxed-fail; t3-cancel)",
              t3_fail_acquire, sim_weft_poll),
    WEFT_ALGO("t3-fail-release", "-",
              "wf__tg_fail: the CAS of the error loses its acquire half "
              "(acq_rel to release: it reads 0 from a round's start, which "
              "publishes nothing; t3, t3-three, t3-cancel)",
              t3_fail_release, sim_weft_poll),
    WEFT_ALGO("t3-relaxed-start", "arm",
              "wf__tg_round_start: the acq_rel exchange of the error "
              "becomes relaxed (T3: the round's start clears a cancel's "
              "error but misses its flag, the cancel lost; t3-cancel)",
              t3_relaxed_start, sim_weft_poll),
    WEFT_ALGO("t3-start-acquire", "-",
              "wf__tg_round_start: the exchange loses its release half "
              "(acq_rel to acquire: the CASes that read its 0 need nothing "
              "of the round's thread; t3, t3-three, t3-cancel)",
              t3_start_acquire, sim_weft_poll),
    WEFT_ALGO("t3-start-release", "arm",
              "wf__tg_round_start: the exchange loses its acquire half "
              "(acq_rel to release; T3: the cancel lost, as "
              "t3-relaxed-start; t3-cancel)",
              t3_start_release, sim_weft_poll),
    WEFT_ALGO("t2-relaxed-retire", "c11",
              "wf__tg_retire: the acq_rel decrement of the round's count "
              "becomes relaxed (T2: the caller returns a task's error and "
              "races with its datum; ARMv8 orders it after the task's "
              "acq_rel CAS of the error; t3)",
              t2_relaxed_retire, sim_weft_poll),
    WEFT_ALGO("t2-retire-release", "-",
              "wf__tg_retire: the decrement loses its acquire half (acq_rel "
              "to release: nothing after it reads what others wrote; the "
              "wake that follows, P8, is not modelled here; t3, t3-three)",
              t2_retire_release, sim_weft_poll),
    WEFT_ALGO("t2-relaxed-round-over", "arm",
              "wf__tg_round_over: the caller's acquire load of the round's "
              "count becomes relaxed (T2: it reads the failing task's "
              "datum stale; t3)",
              t2_relaxed_round_over, sim_weft_poll),
    WEFT_ALGO("t1-relaxed-alone", "arm",
              "wf__tg_alone: the acquire load of the round's count becomes "
              "relaxed (T1: a task that finds itself alone does not see "
              "the retired task's arrival and writes, and S runs on stale "
              "data; t1, t1-spawn)",
              t1_relaxed_alone, sim_weft_poll),
    WEFT_ALGO("t1-relaxed-last", "arm",
              "wf__tg_arrive: the last arrival's acquire load of the join "
              "counter becomes relaxed (T1: the task runs without the "
              "other predecessors' writes; t1)",
              t1_relaxed_last, sim_weft_poll),
    WEFT_ALGO("t1-arrive-release", "arm",
              "wf__tg_arrive: the acq_rel decrement loses its acquire half "
              "(T1: a last arrival by RMW runs the task without the other "
              "predecessors' writes; t1)",
              t1_arrive_release, sim_weft_poll),
    WEFT_ALGO("t1-arrive-acquire", "arm",
              "wf__tg_arrive: the acq_rel decrement loses its release half "
              "(T1: the last arrival, by its acquire load, does not see the "
              "writes of the predecessor before it; t1)",
              t1_arrive_acquire, sim_weft_poll),
    {0}};
