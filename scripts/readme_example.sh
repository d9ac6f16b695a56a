#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The README's 30-second example, as a user copies it: the first C block
# after "## 30-second example", compiled against the library and run; it
# must print what the README says it prints.
#
#   scripts/readme_example.sh README CC LIBWEFT INCLUDE_DIR [EMULATOR...]
#
# EMULATOR: what runs the program when CC cross-compiles (qemu-aarch64 ...).
set -e
readme=$1 cc=$2 lib=$3 inc=$4
shift 4
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
awk '/^## 30-second example/ { f = 1 }
     f && /^```c/ { if (++c == 1) { p = 1; next } }
     p && /^```/ { exit }
     p' "$readme" >"$dir/fib.c"
[ -s "$dir/fib.c" ] || { echo "readme_example: no C block found" >&2; exit 1; }
"$cc" -std=c11 -O2 -Wall -Wextra -Werror -I"$inc" "$dir/fib.c" "$lib" \
    -lpthread -o "$dir/fib"
out=$("$@" "$dir/fib")
echo "$out"
[ "$out" = "fib(30) = 832040" ]
