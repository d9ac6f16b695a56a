#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The library's unit and stress tests built for 64-bit ARM and run under
# qemu-user: the portable paths (no x86 inline assembly: wf__self is read
# as a plain thread-local there), ARMv8's weaker ordering as far as an
# emulator shows it, and the instructions of cmake/aarch64-linux-gnu.cmake.
#   aarch64-test.sh SRC_DIR BUILD_DIR build|test
# Exit 77 (ctest: skipped) when the cross compilers or qemu-aarch64 are
# missing; scripts/deps.sh installs Debian's gcc-aarch64-linux-gnu,
# g++-aarch64-linux-gnu and qemu-user.
set -u
src=$1 dir=$2 what=$3
jobs=$(nproc 2>/dev/null || echo 2)
for tool in aarch64-linux-gnu-gcc aarch64-linux-gnu-g++ qemu-aarch64; do
    if ! command -v $tool >/dev/null 2>&1; then
        echo "SKIPPED: $tool is not installed (scripts/deps.sh installs it)"
        exit 77
    fi
done
case $what in
build)
    cmake -S "$src" -B "$dir" -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_TOOLCHAIN_FILE="$src/cmake/aarch64-linux-gnu.cmake" \
        -DWEFT_SANITIZER_VARIANTS=OFF -DWEFT_BUILD_BENCH=OFF \
        -DWEFT_BUILD_EXAMPLES=OFF > "$dir.configure.log" 2>&1 ||
        { cat "$dir.configure.log"; exit 1; }
    cmake --build "$dir" -j "$jobs" ;;
test)
    # Left out, because the emulator is not the machine: pool_idle (limits
    # on the CPU time 1024 threads take to start, which emulation exceeds),
    # debug_mode_no_default (an address-space limit, which applies to
    # qemu's own mappings), graph_runtime_trace_env (re-executes itself,
    # which needs binfmt_misc), refdoc (a check of the docs, not of code).
    cd "$dir" &&
        ctest -L 'unit|stress' -LE aarch64 -j "$jobs" --output-on-failure \
            -E '^(pool_idle|debug_mode_no_default|graph_runtime_trace_env|refdoc)$' ;;
*)
    echo "usage: aarch64-test.sh SRC_DIR BUILD_DIR build|test" >&2
    exit 2 ;;
esac
