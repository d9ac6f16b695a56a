#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# How executions and time grow with the scenario, per model: the shipped
# deque with 4, 6 and 8 owner operations (pushes then pops) against 1, 2
# and 3 thieves polling twice, capacity 2.  One line per run:
#   model owner-ops thieves executions seconds status
# A run over LIMIT seconds (default 120) is cut and marked "timeout".
#   scaling.sh WEFT_SIM [LIMIT]
sim=$1 limit=${2:-120}
for ops in 4 6 8; do
    half=$((ops / 2)) owner=""
    i=0; while [ $i -lt $half ]; do owner="$owner push"; i=$((i + 1)); done
    i=0; while [ $i -lt $half ]; do owner="$owner pop"; i=$((i + 1)); done
    for thieves in 1 2 3; do
        for model in sc tso pso arm c11 c20; do
            out=$(timeout "$limit" "$sim" explore --algo weft --model $model \
                  --owner "$owner" --thieves $thieves --polls 2 2>&1)
            rc=$?
            line=$(echo "$out" | grep '^explored')
            execs=$(echo "$line" | sed 's/explored \([0-9]*\) .*/\1/')
            secs=$(echo "$line" | sed 's/.* in \([0-9.]*\) s.*/\1/')
            status=$( [ $rc = 124 ] && echo timeout ||
                      { [ $rc = 0 ] && echo correct || echo "rc=$rc"; })
            echo "$model $ops $thieves ${execs:--} ${secs:--} $status"
        done
    done
done
