#!/bin/sh
# packaging test: install weft and use it the three ways a project would.
#
#   install_consumer.sh BUILD_DIR SOURCE_DIR [CMAKE] [CC]
#
# (a) pkg-config: compile a consumer with `pkg-config --cflags --libs weft`
#     against the installed tree and run it;
# (b) find_package(weft CONFIG REQUIRED) + weft::weft (shared) and
#     weft::weft_static, with CMAKE_PREFIX_PATH = the install prefix;
# (c) add_subdirectory(SOURCE_DIR): builds weft::weft, and must NOT build
#     weft's tests, benchmarks or examples (weft is not the top level).
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
step "(c) add_subdirectory consumer"
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

step "all consumers built and ran"
