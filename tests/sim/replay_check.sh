#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# --replay: explore writes its counterexample as a REPL script, and the REPL
# stepping through it reaches the same failure (and `weft-sim run` exits 1).
#   replay_check.sh WEFT_SIM WORKDIR
set -u
sim=$1 dir=$2
rm -rf "$dir" && mkdir -p "$dir" || exit 1
"$sim" explore --algo weft-no-storeload --model tso --owner "push push pop" \
    --thieves 2 --polls 1 --replay "$dir/cx.txt" > "$dir/explore.txt"
[ $? = 1 ] || { echo "explore did not find the counterexample"; exit 1; }
want=$(sed -n 's/^FAILED: //p' "$dir/explore.txt")
steps=$(grep -cE '^(step|flush) ' "$dir/cx.txt")
n=$(sed -n 's/^shortest failing trace found (\([0-9]*\) steps.*/\1/p' \
        "$dir/explore.txt")
"$sim" run "$dir/cx.txt" > "$dir/run.txt"
rc=$?
got=$(sed -n 's/^CHECK FAILED: //p' "$dir/run.txt")
fail=0
[ "$steps" = "$n" ] || { echo "the script has $steps steps, the trace $n"; fail=1; }
[ $rc = 1 ] || { echo "weft-sim run exited $rc, not 1"; fail=1; }
[ -n "$want" ] && [ "$got" = "$want" ] ||
    { echo "the REPL failed with '$got', explore with '$want'"; fail=1; }
grep -q '^error' "$dir/run.txt" && { echo "the script had errors:";
                                      grep '^error' "$dir/run.txt"; fail=1; }
[ $fail = 0 ] && echo "replay: $steps steps in the REPL end in: $got"
exit $fail
