#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# make bench / make bench-quick: install the peers that are missing, build
# every system's runner, run them all interleaved, plot.
#
#   bench/run.sh BUILD_DIR JOBS [run_bench options...]
#
# Installing needs root and Debian's apt; without them the peers that are
# not installed are reported as missing in the tables, never dropped.
set -e
build=$1 jobs=$2
shift 2

need=""
[ -f /usr/include/oneapi/tbb.h ] || [ -f /usr/include/tbb/tbb.h ] || need="$need libtbb-dev"
command -v clang >/dev/null 2>&1 || need="$need clang"
ls /usr/lib/llvm-*/lib/libomp.so >/dev/null 2>&1 || need="$need libomp-dev"
command -v gnuplot >/dev/null 2>&1 || need="$need gnuplot"
command -v g++ >/dev/null 2>&1 || need="$need g++"
if [ -n "$need" ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "bench: installing$need"
        export DEBIAN_FRONTEND=noninteractive
        { apt-get update -qq && apt-get install -y -qq $need; } >/dev/null ||
            echo "bench: could not install$need; those peers will show as missing" >&2
    else
        echo "bench: not installed:$need (needs root and apt); those peers will show as missing" >&2
    fi
fi

# Configure again: CMake looks for the peers at configure time.
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j "$jobs" --target bench_all
"$build/bench/run_bench" "$@"

if command -v gnuplot >/dev/null 2>&1; then
    gnuplot -e "stem='$build/bench/results'" bench/plot.gp &&
        echo "plots: $build/bench/results-forkjoin.svg $build/bench/results-graph.svg"
else
    echo "bench: gnuplot not installed, no plots" >&2
fi
