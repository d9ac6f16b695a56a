#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# packaging test: install weft and use it the three ways a project would.
#
#   install_consumer.sh BUILD_DIR SOURCE_DIR [CMAKE] [CC]
#
# (a) pkg-config: compile a consumer with `pkg-config --cflags --libs weft`
#     against the installed tree and run it;
# (b) find_package(weft CONFIG REQUIRED) + weft::weft (shared) and
#     weft::weft_static, with CMAKE_PREFIX_PATH = the install prefix;
# (c) add_subdirectory(SOURCE_DIR): builds weft::weft, and must NOT build
#     weft's tests, benchmarks or examples (weft is not the top level);
#     a Debug parent's build type and flags are what weft is compiled with;
# (d) FetchContent (SOURCE_DIR) + weft::weft_static: a Release parent's
#     own Release flags are what weft is compiled with, not weft's -O2;
# (e) a parent without a build type keeps none (configure only).
# Each consumer computes fib(20) on the default pool and checks the result.
set -eu
BUILD=$(cd "$1" && pwd)
SRC=$(cd "$2" && pwd)
CMAKE=${3:-cmake}
CC=${4:-cc}
CTEST=$(dirname "$CMAKE")/ctest
[ -x "$CTEST" ] || CTEST=ctest

WORK=$(mktemp -d "$BUILD/packaging.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
PREFIX=$WORK/prefix
fail() { echo "packaging: FAIL: $*" >&2; exit 1; }
step() { echo "packaging: $*"; }

step "install into $PREFIX"
"$CMAKE" --install "$BUILD" --prefix "$PREFIX" >"$WORK/install.log" 2>&1 ||
    { cat "$WORK/install.log"; fail "cmake --install"; }
[ -f "$PREFIX/include/weft.h" ] || fail "weft.h not installed"
[ -f "$PREFIX/include/weft/pool.h" ] || fail "weft/pool.h not installed"
[ -f "$PREFIX/include/weft.hpp" ] || fail "weft.hpp not installed"
[ ! -e "$PREFIX/include/internal" ] || fail "private headers installed"
LIBDIR=$(dirname "$(find "$PREFIX" -name 'libweft.a' | head -n 1)")
[ -f "$LIBDIR/libweft.a" ] || fail "libweft.a not installed"
ls "$LIBDIR"/libweft.so* >/dev/null 2>&1 || fail "libweft.so not installed"
PCDIR=$(dirname "$(find "$PREFIX" -name weft.pc | head -n 1)")
[ -f "$PCDIR/weft.pc" ] || fail "weft.pc not installed"
CFGDIR=$(dirname "$(find "$PREFIX" -name weftConfig.cmake | head -n 1)")
[ -f "$CFGDIR/weftConfigVersion.cmake" ] || fail "weftConfigVersion.cmake missing"
# Documentation and examples in share/doc/weft, the trace viewer in share/weft.
for f in README.md LICENSE CHANGELOG.md docs/pool.md docs/graph/running.md \
         docs/reference/README.md docs/graph_reservation.svg examples/fib.c; do
    [ -f "$PREFIX/share/doc/weft/$f" ] || fail "share/doc/weft/$f not installed"
done
[ -f "$PREFIX/share/weft/trace_view.html" ] || fail "trace_view.html not installed"

mkdir -p "$WORK/app"
cat >"$WORK/app/main.c" <<'EOF'
#include <stdio.h>
#include <weft.h>
typedef struct { wf_task task; int n; long out; } frame;
static long fib(int n);
static void body(wf_task *t) { frame *f = (frame *)t; f->out = fib(f->n); }
static long fib(int n)
{
    if (n < 2)
        return n;
    frame a = {.n = n - 1};
    if (wf_spawn(&a.task, body) != 0) return -1000000;
    long b = fib(n - 2);
    if (wf_join(&a.task) != 0) return -1000000;
    return a.out + b;
}
typedef struct { int n; long out; } job;
static void root(void *arg) { job *j = arg; j->out = fib(j->n); }
int main(void)
{
    job j = {20, 0};
    int err = wf_run(wf_pool_default(), root, &j);
    if (err || j.out != 6765) {
        fprintf(stderr, "consumer: err %d, fib(20) = %ld\n", err, j.out);
        return 1;
    }
    printf("consumer ok\n");
    return 0;
}
EOF

# (a) pkg-config ------------------------------------------------------------
step "(a) pkg-config consumer"
command -v pkg-config >/dev/null || fail "pkg-config not found"
FLAGS=$(PKG_CONFIG_PATH="$PCDIR" pkg-config --cflags --libs weft) ||
    fail "pkg-config --cflags --libs weft"
step "    flags: $FLAGS"
# shellcheck disable=SC2086
"$CC" -std=c11 -O2 -o "$WORK/app_pc" "$WORK/app/main.c" $FLAGS ||
    fail "compiling with pkg-config flags"
LD_LIBRARY_PATH="$LIBDIR" "$WORK/app_pc" || fail "pkg-config consumer run"
# The prefix in weft.pc is relative to the .pc file: moving the tree works.
mv "$PREFIX" "$WORK/moved"
MOVED_FLAGS=$(PKG_CONFIG_PATH="$WORK/moved/${PCDIR#"$PREFIX"/}" pkg-config \
    --cflags weft) || fail "pkg-config after moving the prefix"
case "$MOVED_FLAGS" in
*"$WORK/moved"*) ;;
*) fail "weft.pc is not relocatable: $MOVED_FLAGS" ;;
esac
mv "$WORK/moved" "$PREFIX"

# (b) find_package ----------------------------------------------------------
step "(b) find_package consumer"
cat >"$WORK/app/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.20)
project(consumer C)
find_package(weft 0.1 CONFIG REQUIRED)
add_executable(app main.c)
target_link_libraries(app weft::weft)
add_executable(app_static main.c)
target_link_libraries(app_static weft::weft_static)
EOF
"$CMAKE" -S "$WORK/app" -B "$WORK/app_build" -DCMAKE_C_COMPILER="$CC" \
    -DCMAKE_PREFIX_PATH="$PREFIX" >"$WORK/b.log" 2>&1 ||
    { cat "$WORK/b.log"; fail "configuring the find_package consumer"; }
"$CMAKE" --build "$WORK/app_build" >>"$WORK/b.log" 2>&1 ||
    { cat "$WORK/b.log"; fail "building the find_package consumer"; }
LD_LIBRARY_PATH="$LIBDIR" "$WORK/app_build/app" || fail "weft::weft consumer run"
"$WORK/app_build/app_static" || fail "weft::weft_static consumer run"

# (c) add_subdirectory ------------------------------------------------------
# The parent's build type and flags are the parent's: a Debug parent with
# flags of its own gets exactly them on weft's objects.
step "(c) add_subdirectory consumer, Debug with the parent's flags"
mkdir -p "$WORK/sub"
cp "$WORK/app/main.c" "$WORK/sub/main.c"
cat >"$WORK/sub/CMakeLists.txt" <<EOF
cmake_minimum_required(VERSION 3.20)
project(subconsumer C)
enable_testing()
add_subdirectory("$SRC" weft)
add_executable(app main.c)
target_link_libraries(app weft::weft)
EOF
"$CMAKE" -S "$WORK/sub" -B "$WORK/sub_build" -DCMAKE_C_COMPILER="$CC" \
    -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG="-O0 -g" \
    -DCMAKE_C_FLAGS=-DWEFT_PARENT_FLAG -DCMAKE_EXPORT_COMPILE_COMMANDS=ON \
    >"$WORK/c.log" 2>&1 ||
    { cat "$WORK/c.log"; fail "configuring the add_subdirectory consumer"; }
for d in tests bench examples; do
    [ ! -d "$WORK/sub_build/weft/$d" ] ||
        fail "weft's $d are configured in a parent project"
done
"$CMAKE" --build "$WORK/sub_build" >>"$WORK/c.log" 2>&1 ||
    { cat "$WORK/c.log"; fail "building the add_subdirectory consumer"; }
if "$CMAKE" --build "$WORK/sub_build" --target help 2>/dev/null |
    grep -E 'test_|deque_|pool_|tsan|asan' >"$WORK/targets.txt"; then
    cat "$WORK/targets.txt"
    fail "weft's test targets exist in a parent project"
fi
NTESTS=$(cd "$WORK/sub_build" && "$CTEST" -N 2>/dev/null | sed -n 's/^Total Tests: //p')
[ "${NTESTS:-0}" = 0 ] || fail "parent project sees $NTESTS weft tests"
LD_LIBRARY_PATH="$WORK/sub_build/weft" "$WORK/sub_build/app" ||
    fail "add_subdirectory consumer run"

# cache_value BUILD_DIR NAME: a variable of a build tree's CMakeCache.txt.
cache_value() {
    sed -n "s/^$2:[A-Z]*=//p" "$1/CMakeCache.txt"
}
# weft_flags BUILD_DIR: the compile command of weft's src/deque.c there.
weft_flags() {
    grep '"command"' "$1/compile_commands.json" | grep '/src/deque\.c' |
        head -n 1
}
# expect_flags WHAT COMMAND WORD...: each WORD is on the command, each
# !WORD is not.
expect_flags() {
    what=$1 cmd=$2
    shift 2
    [ -n "$cmd" ] || fail "$what: no compile command for src/deque.c"
    for w in "$@"; do
        case "$w" in
        !*)
            case " $cmd " in *" ${w#!} "*)
                fail "$what: ${w#!} on weft's objects: $cmd" ;;
            esac ;;
        *)
            case " $cmd " in *" $w "*) ;;
            *) fail "$what: $w missing on weft's objects: $cmd" ;;
            esac ;;
        esac
    done
}
[ "$(cache_value "$WORK/sub_build" CMAKE_BUILD_TYPE)" = Debug ] ||
    fail "the parent's CMAKE_BUILD_TYPE was changed"
expect_flags "Debug parent" "$(weft_flags "$WORK/sub_build")" \
    -DWEFT_PARENT_FLAG -O0 -g '!-O2' '!-O3' '!-DNDEBUG'
step "    weft's objects: -DWEFT_PARENT_FLAG -O0 -g, no -O2 or -DNDEBUG"

# (d) FetchContent -----------------------------------------------------------
# A Release parent with Release flags of its own: weft's objects get them,
# not weft's -O2.  FetchContent takes weft's source from SOURCE_DIR.
step "(d) FetchContent consumer, Release with the parent's Release flags"
mkdir -p "$WORK/fetch"
cp "$WORK/app/main.c" "$WORK/fetch/main.c"
cat >"$WORK/fetch/CMakeLists.txt" <<EOF
cmake_minimum_required(VERSION 3.20)
project(fetchconsumer C)
include(FetchContent)
FetchContent_Declare(weft SOURCE_DIR "$SRC")
FetchContent_MakeAvailable(weft)
add_executable(app main.c)
target_link_libraries(app weft::weft_static)
EOF
"$CMAKE" -S "$WORK/fetch" -B "$WORK/fetch_build" -DCMAKE_C_COMPILER="$CC" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_FLAGS_RELEASE="-O1 -DWEFT_PARENT_RELEASE" \
    -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >"$WORK/d.log" 2>&1 ||
    { cat "$WORK/d.log"; fail "configuring the FetchContent consumer"; }
[ "$(cache_value "$WORK/fetch_build" CMAKE_C_FLAGS_RELEASE)" = \
  "-O1 -DWEFT_PARENT_RELEASE" ] ||
    fail "the parent's CMAKE_C_FLAGS_RELEASE was changed"
expect_flags "Release parent" "$(weft_flags "$WORK/fetch_build")" \
    -O1 -DWEFT_PARENT_RELEASE '!-O2' '!-DNDEBUG'
"$CMAKE" --build "$WORK/fetch_build" --target app >>"$WORK/d.log" 2>&1 ||
    { cat "$WORK/d.log"; fail "building the FetchContent consumer"; }
"$WORK/fetch_build/app" || fail "FetchContent consumer run"
step "    weft's objects: the parent's -O1 -DWEFT_PARENT_RELEASE"

# (e) no build type ----------------------------------------------------------
# A parent that sets no build type keeps none: weft does not pick Release
# for it (configure only).
step "(e) add_subdirectory consumer without a build type"
"$CMAKE" -S "$WORK/sub" -B "$WORK/plain_build" -DCMAKE_C_COMPILER="$CC" \
    -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >"$WORK/e.log" 2>&1 ||
    { cat "$WORK/e.log"; fail "configuring the consumer without a build type"; }
[ -z "$(cache_value "$WORK/plain_build" CMAKE_BUILD_TYPE)" ] ||
    fail "weft set CMAKE_BUILD_TYPE in a parent project:" \
         "$(cache_value "$WORK/plain_build" CMAKE_BUILD_TYPE)"
expect_flags "parent without a build type" \
    "$(weft_flags "$WORK/plain_build")" '!-O2' '!-O3' '!-DNDEBUG'
step "    CMAKE_BUILD_TYPE left empty, no -O2 or -DNDEBUG on weft's objects"

step "all consumers built and ran"
