#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Instructions per element or message of weft.hpp's parallel_for,
# parallel_reduce and a chain of function nodes against the C calls they
# wrap, one worker, under callgrind: each program is run at two sizes and
# the difference divided by the difference of the sizes.
#
#   sh bench/wrap_cost/run.sh [BUILD_DIR]     (default build; needs libweft.a)
set -e
here=$(dirname "$0")
build=${1:-build}
lib=$build/libweft.a
[ -f "$lib" ] || cmake --build "$build" --target weft_static >/dev/null
command -v valgrind >/dev/null || { echo "wrap_cost: valgrind not found" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
gcc -O2 -std=gnu11 -I"$here/../../include" "$here/wrap.c" "$lib" -lpthread -o "$out/wrap_c"
g++ -O2 -std=c++17 -I"$here/../../include" "$here/wrap.cpp" "$lib" -lpthread -o "$out/wrap_cxx"

count() { # program kernel n: instructions of the whole run
    WEFT_NUM_THREADS=1 valgrind --tool=callgrind --callgrind-out-file=/dev/null \
        "$out/$1" "$2" "$3" 2>&1 | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
per() { # program kernel n1 n2
    a=$(count "$1" "$2" "$3") b=$(count "$1" "$2" "$4")
    awk -v a="$a" -v b="$b" -v n1="$3" -v n2="$4" 'BEGIN { print (b - a) / (n2 - n1) }'
}
printf '| kernel | C | weft.hpp | weft.hpp / C |\n|---|---:|---:|---:|\n'
for k in "for 1000000 2000000" "reduce 1000000 2000000" "chain 20000 40000"; do
    set -- $k
    c=$(per wrap_c "$1" "$2" "$3") x=$(per wrap_cxx "$1" "$2" "$3")
    awk -v k="$1" -v c="$c" -v x="$x" \
        'BEGIN { printf "| %s | %.2f | %.2f | %.3f |\n", k, c, x, x / c }'
done
echo "instructions per element (per message for chain), 1 worker"
