#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# install_fresh_clone test: what a new user does first, on a fresh copy of
# the repository, with the README's command.
#
#   install_fresh_clone.sh SOURCE_DIR WORK_DIR CMAKE MPI
#
# Copies SOURCE_DIR's files as a clone would have them (git's tracked and
# not-ignored files, taken from the working tree so that uncommitted edits
# are tested too; no build directory) into a temporary directory under
# WORK_DIR, runs `make install PREFIX=<tmp>/prefix` there, and checks the
# prefix: headers, both libraries, weft.pc, the CMake package, the trace
# viewer and, when MPI is ON (the calling build found MPI, so the fresh one
# does too), weft_mpi's libraries, weft-mpi.pc and export set.  It also
# checks that `make install` built the libraries only: no test, example or
# benchmark.  Exit 77 (skipped) when SOURCE_DIR is not a git checkout.
set -eu
SRC=$(cd "$1" && pwd)
WORKDIR=$(cd "$2" && pwd)
CMAKE=$3
MPI=$4
fail() { echo "install_fresh_clone: FAIL: $*" >&2; exit 1; }
step() { echo "install_fresh_clone: $*"; }

command -v git >/dev/null 2>&1 || { echo "no git: skipped"; exit 77; }
git -C "$SRC" rev-parse --is-inside-work-tree >/dev/null 2>&1 ||
    { echo "$SRC is not a git checkout: skipped"; exit 77; }

WORK=$(mktemp -d "$WORKDIR/fresh_clone.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
CLONE=$WORK/weft
PREFIX=$WORK/prefix
mkdir -p "$CLONE"

# The files a commit of the working tree would hold: tracked ones that
# still exist, and untracked ones that .gitignore does not exclude.
step "copy $SRC's tracked files into $CLONE"
git -C "$SRC" ls-files --cached --others --exclude-standard |
    while IFS= read -r f; do
        if [ -e "$SRC/$f" ] || [ -L "$SRC/$f" ]; then
            printf '%s\n' "$f"
        fi
    done | sort -u >"$WORK/files"
tar -C "$SRC" --verbatim-files-from -T "$WORK/files" -cf - |
    tar -C "$CLONE" -xf - || fail "copying the source tree"
[ ! -e "$CLONE/build" ] || fail "a build directory was copied"

# A new user's shell: no make of ours around it, the build's cmake first
# on the PATH.
step "make install PREFIX=$PREFIX"
PATH=$(dirname "$CMAKE"):$PATH
export PATH
start=$(date +%s)
if ! (cd "$CLONE" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
        make install PREFIX="$PREFIX") >"$WORK/install.log" 2>&1; then
    tail -n 40 "$WORK/install.log"
    fail "make install PREFIX=$PREFIX in a fresh clone"
fi
step "    done in $(($(date +%s) - start)) s"

# The libraries only: no executable under tests/, examples/ or bench/
# (CMake's own probes at configure time, in CMakeFiles/ or *.out, aside).
built=$(find "$CLONE/build/tests" "$CLONE/build/examples" \
    "$CLONE/build/bench" -type f -perm -u+x ! -path '*/CMakeFiles/*' \
    ! -name '*.out' 2>/dev/null | head -n 5)
[ -z "$built" ] || fail "make install built more than the libraries: $built"
built=$(find "$CLONE/build" -name 'libweft_[at]san*' | head -n 2)
[ -z "$built" ] || fail "make install built the sanitizer libraries: $built"

need() { [ -n "$(find "$PREFIX" -name "$1" | head -n 1)" ] ||
    fail "$1 not installed under $PREFIX"; }
[ -f "$PREFIX/include/weft.h" ] || fail "include/weft.h not installed"
[ -f "$PREFIX/include/weft.hpp" ] || fail "include/weft.hpp not installed"
[ -f "$PREFIX/include/weft/pool.h" ] || fail "include/weft/pool.h not installed"
for f in libweft.a 'libweft.so*' weft.pc weftConfig.cmake \
         weftConfigVersion.cmake weftTargets.cmake; do
    need "$f"
done
[ -f "$PREFIX/share/weft/trace_view.html" ] ||
    fail "share/weft/trace_view.html not installed"
if [ "$MPI" = ON ]; then
    [ -f "$PREFIX/include/weft/mpi.h" ] || fail "include/weft/mpi.h not installed"
    for f in libweft_mpi.a 'libweft_mpi.so*' weft-mpi.pc weftMpiTargets.cmake; do
        need "$f"
    done
    step "    with weft_mpi: libweft_mpi.a, libweft_mpi.so, weft-mpi.pc"
else
    [ -z "$(find "$PREFIX" -name 'libweft_mpi*' | head -n 1)" ] ||
        fail "weft_mpi installed, but the build found no MPI"
    step "    without MPI: no weft_mpi"
fi
step "the prefix holds the libraries, headers, weft.pc and the CMake package"
