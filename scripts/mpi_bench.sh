#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# weft_mpi's benchmarks on this machine (docs/mpi.md, "Measured"):
#   1. bench_mpi_edge: a cross-rank edge against raw MPI_Send/MPI_Recv,
#      streaming and ping-pong, 8 B to 1 MiB, 2 ranks; with the pool's
#      default spin, with lightweight successors (the receiver's successor
#      takes the message where MPI put it), and with WEFT_SPIN=16;
#   2. examples/mpi_uts --kids 20000 (25.5 M nodes) on 1, 2 and 4 ranks of
#      1 pool thread each: the median time of REPS runs, interleaved.
# Usage: sh scripts/mpi_bench.sh [BUILD_DIR]   (REPS=5 by default)
set -e
build=${1:-build}
reps=${REPS:-5}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl=self,vader
# mpirun's defaults (a rank per core, bound to it); --oversubscribe only
# for more ranks than cores, as it makes Open MPI yield in its waits.
run="mpirun --allow-run-as-root"
over() { [ "$1" -gt "$(nproc)" ] && echo --oversubscribe; }
for exe in "$build/bench/bench_mpi_edge" "$build/examples/example_mpi_uts"; do
    [ -x "$exe" ] || { echo "mpi_bench: $exe not built (is MPI installed?)" >&2; exit 1; }
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"
echo
echo "## cross-rank edge vs raw MPI (pool spin: default)"
$run -np 2 "$build/bench/bench_mpi_edge" --reps "$reps"
echo
echo "## cross-rank edge vs raw MPI (lightweight successors)"
$run -np 2 "$build/bench/bench_mpi_edge" --reps "$reps" --lightweight
echo
echo "## cross-rank edge vs raw MPI (WEFT_SPIN=16)"
WEFT_SPIN=16 $run -x WEFT_SPIN -np 2 "$build/bench/bench_mpi_edge" --reps "$reps"
echo
echo "## mpi_uts, 25531033 nodes, 1 pool thread per rank (seconds)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
i=0
while [ "$i" -lt "$reps" ]; do
    for np in 1 2 4; do
        $run $(over "$np") -np "$np" "$build/examples/example_mpi_uts" --kids 20000 \
            --expect 25531033 --time >"$tmp/out" 2>"$tmp/err"
        grep -q '(ok)' "$tmp/out" || { cat "$tmp/out" "$tmp/err"; exit 1; }
        sed -n 's/^mpi_uts: \([0-9.]*\) s$/\1/p' "$tmp/err" >>"$tmp/t$np"
        grep 'CPU' "$tmp/err" >>"$tmp/cpu$np"
        # The busiest rank's CPU seconds, and the longest a rank went
        # without work, in this run.
        awk '/ s CPU/ {c = $(NF-6); w = $(NF-3); if (c > mc) mc = c; if (w > mw) mw = w}
             END {print mc; print mw > "/dev/stderr"}' "$tmp/err" \
            >>"$tmp/c$np" 2>>"$tmp/w$np"
    done
    i=$((i + 1))
done
median() { sort -n "$1" | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
t1=$(median "$tmp/t1")
c1=$(median "$tmp/c1")
# "CPU speedup": one rank's CPU seconds over the busiest rank's, i.e. the
# speedup if every rank had had a core of its own for its CPU time; where
# it is far above the wall-clock speedup, the ranks waited for a core.
echo "| ranks | median s | speedup | busiest rank's CPU s | CPU speedup | longest without work s | runs |"
echo "|---:|---:|---:|---:|---:|---:|---|"
for np in 1 2 4; do
    t=$(median "$tmp/t$np")
    c=$(median "$tmp/c$np")
    echo "| $np | $t | $(awk "BEGIN {printf \"%.2f\", $t1 / $t}")x | $c | $(awk "BEGIN {printf \"%.2f\", $c1 / $c}")x | $(median "$tmp/w$np") | $(tr '\n' ' ' <"$tmp/t$np")|"
done
echo
echo "last run's CPU seconds per rank (whole process):"
tail -n 7 "$tmp/cpu4" "$tmp/cpu2" 2>/dev/null | grep CPU || true
