#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Install what the build, tests and benchmarks need on a fresh Debian
# machine.  Does nothing when everything is present.  Needs root to install.
set -e
need=""
command -v cmake >/dev/null 2>&1 || need="$need cmake"
command -v cc >/dev/null 2>&1 || need="$need gcc"
command -v make >/dev/null 2>&1 || need="$need make"
command -v pkg-config >/dev/null 2>&1 || need="$need pkg-config"
# Sanitizer runtimes (gcc's ASan, UBSan, TSan).
for lib in libasan.so libtsan.so libubsan.so; do
    cc -print-file-name=$lib 2>/dev/null | grep -q / || need="$need libgcc-12-dev"
done
if [ -n "$need" ]; then
    echo "deps: installing$need"
    if [ "$(id -u)" != 0 ]; then
        echo "deps: need root to install:$need" >&2
        exit 1
    fi
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq $need
fi
# Open MPI, for the optional weft_mpi library, its tests and examples
# (built only where CMake finds MPI).
if ! command -v mpirun >/dev/null 2>&1 ||
   [ -z "$(find /usr/include /usr/lib -name mpi.h 2>/dev/null | head -n 1)" ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "deps: installing libopenmpi-dev openmpi-bin (weft_mpi)"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        apt-get install -y -qq libopenmpi-dev openmpi-bin
    else
        echo "deps: no Open MPI (needs root to install); weft_mpi will not be built" >&2
    fi
fi
# Optional: Debian's chromium, for weft-sim's HTML test (ctest skips that
# one test without it).  Installed when we can; never a reason to fail.
if ! command -v chromium >/dev/null 2>&1 &&
   ! command -v chromium-browser >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "deps: installing chromium (weft-sim's HTML test)"
        { DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
          DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; } \
            >/dev/null 2>&1 ||
            echo "deps: chromium could not be installed; sim_html will be skipped" >&2
    else
        echo "deps: no chromium (needs root to install); sim_html will be skipped" >&2
    fi
fi
# Optional: Debian's cross compilers and qemu-user, for the ARM64 build
# of the tests run under emulation (scripts/aarch64-test.sh) and the ARM64
# half of weft-sim's instruction check; ctest skips those without them.
if ! command -v aarch64-linux-gnu-g++ >/dev/null 2>&1 ||
   ! command -v qemu-aarch64 >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "deps: installing gcc/g++-aarch64-linux-gnu and qemu-user (ARM64 tests)"
        { DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
          DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
              gcc-aarch64-linux-gnu g++-aarch64-linux-gnu qemu-user; } \
            >/dev/null 2>&1 ||
            echo "deps: the ARM64 tools could not be installed; those tests will be skipped" >&2
    else
        echo "deps: no ARM64 cross tools (needs root to install); those tests will be skipped" >&2
    fi
fi
