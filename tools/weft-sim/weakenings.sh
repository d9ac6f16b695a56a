#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The orders no model of RC11's family needs (docs/protocols.md D1, D4),
# weakened one at a time and all at once, under arm, c11, c20 and c11std on
# every scenario of the scenario files: basic (2+2 ops), grow (3+3 from
# capacity 2), 3thieves, pushn (wf_deque_push_n) and reuse.  One line per
# run ("caught": a counterexample, exit 1); then the same under c11, c20
# and c11std with --lb (load buffering allowed, no no-thin-air axiom):
#   weakening model scenario executions seconds status
#   weakenings.sh WEFT_SIM [LIMIT]
sim=$1 limit=${2:-300}
slot_store="wf_deque_push_n:store:release:slot:relaxed"
slot_load="wf_deque_poll:load:acquire:slot:relaxed"
poll_cas="wf_deque_poll:cas:seq_cst:base:acq_rel"
run() { # NAME MODEL SCENARIO OWNER THIEVES POLLS [ARGS...]
    name=$1 model=$2 scen=$3 owner=$4 thieves=$5 polls=$6
    shift 6
    out=$(timeout "$limit" "$sim" explore --algo weft --model "$model" \
          --owner "$owner" --thieves "$thieves" --polls "$polls" \
          --capacity 2 "$@" 2>&1)
    rc=$?
    line=$(echo "$out" | grep '^explored')
    execs=$(echo "$line" | sed 's/explored \([0-9]*\) .*/\1/')
    secs=$(echo "$line" | sed 's/.* in \([0-9.]*\) s.*/\1/')
    status=$( [ $rc = 124 ] && echo timeout ||
              { [ $rc = 0 ] && echo correct ||
                { [ $rc = 1 ] && echo caught || echo "rc=$rc"; }; })
    echo "$name $model $scen ${execs:--} ${secs:--} $status"
}
scenarios() { # NAME MODEL MUTATE-ARGS...
    name=$1 model=$2
    shift 2
    run "$name" "$model" basic "push push pop pop" 2 2 "$@"
    run "$name" "$model" grow "push push push pop pop pop" 2 2 "$@"
    run "$name" "$model" 3thieves "push push push pop pop" 3 1 "$@"
    run "$name" "$model" pushn "push2 pop push2 pop pop" 2 1 "$@"
    run "$name" "$model" reuse "push push pop push push pop" 2 2 --reuse "$@"
}
for model in arm c11 c20 c11std c11+lb c20+lb c11std+lb; do
    case $model in
    *+lb) lb=--lb sfx=+lb model=${model%+lb} ;;
    *) lb= sfx= ;;
    esac
    scenarios shipped$sfx $model $lb
    scenarios slot-store$sfx $model $lb --mutate $slot_store
    scenarios slot-load$sfx $model $lb --mutate $slot_load
    scenarios slot-both$sfx $model $lb --mutate $slot_store --mutate $slot_load
    scenarios poll-cas-acqrel$sfx $model $lb --mutate $poll_cas
    scenarios all$sfx $model $lb --mutate $slot_store --mutate $slot_load \
        --mutate $poll_cas
done
