#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The instruction table weft-sim prints (`weft-sim isa`: one row per atomic
# access of src/deque.c, the x86-64 and ARM64 instruction) against what the
# compilers emit for src/deque.c at -O2: x86-64 with cc, ARM64 with
# aarch64-linux-gnu-gcc, both for ARMv8.0 (a CAS is a call of libgcc's
# outline helper, __aarch64_cas8_acq_rel or __aarch64_cas8_relax, which
# runs casal or cas where the CPU has LSE) and for ARMv8.1 (inline).  Every access of deque.c must have a
# row, and every row's instruction must be on that source line (from the
# .loc directives of -g), without a stronger one beside it.
#   isa_check.sh WEFT_SIM SRC_DIR WORKDIR
# Exit 77 (ctest: skipped) only when there is no C compiler at all; without
# aarch64-linux-gnu-gcc the ARM64 half is skipped with a message.
set -u
sim=$1 src=$2 dir=$3
cc=$(command -v cc || command -v gcc || true)
[ -n "$cc" ] || { echo "SKIPPED: no C compiler"; exit 77; }
rm -rf "$dir" && mkdir -p "$dir" || exit 1
"$sim" isa > "$dir/table.txt" || { echo "weft-sim isa failed"; exit 1; }
fail=0

# Every line of deque.c with an atomic access has a row.
grep -nE 'wf_(load|store|cas|exchange|fetch_add|fence)_' "$src/src/deque.c" |
    cut -d: -f1 | sort -u > "$dir/src_lines.txt"
sed 's/^deque\.c:\([0-9]*\) .*/\1/' "$dir/table.txt" | sort -u > "$dir/rows.txt"
if ! cmp -s "$dir/src_lines.txt" "$dir/rows.txt"; then
    echo "deque.c lines with an access but no row (<) or a row but no access (>):"
    diff "$dir/src_lines.txt" "$dir/rows.txt"
    fail=1
fi

# lines.SUFFIX: "LINE mnemonic operands" for each instruction of deque.c.
asm_lines() { # $1: compiler, $2: suffix, then flags
    comp=$1 suf=$2
    shift 2
    (cd "$src" && "$comp" -std=c11 -O2 -g -S -Isrc -Iinclude \
        -DWEFT_STATIC_DEFINE "$@" src/deque.c -o "$dir/deque.$suf.s") ||
        return 1
    awk '/^[ \t]*\.file[ \t]+[0-9]+/ { # gcc: N "path"; clang: N "dir" "path"
             for (i = 3; i <= NF; i++)
                 if ($i ~ /^"(.*\/)?deque\.c"$/) mine[$2] = 1
             next }
         /^[ \t]*\.loc[ \t]/ { line = ($2 in mine) ? $3 : -1; next }
         /^[a-zA-Z_][a-zA-Z0-9_]*:/ { fn = $1; sub(/:.*/, "", fn); next }
         /^[ \t]*\./ || /:[ \t]*$/ || /^[ \t]*$/ || /^[^ \t]/ || /\/\// || /^[ \t]*#/ { next }
         line >= 0 { sub(/^[ \t]+/, ""); gsub(/[ \t]+/, " ")
                     print line, fn, $0 }' \
        "$dir/deque.$suf.s" > "$dir/lines.$suf.txt"
}

# The lines of the statement line $1 belongs to: compilers put a statement
# on its first line (the load in grow's copy is on the line after the
# store it feeds).
stmt_lines() {
    l=$1
    echo "$l"
    while [ "$l" -gt 1 ] &&
          sed -n "$((l - 1))p" "$src/src/deque.c" | grep -qE '[,(][ \t]*$'; do
        l=$((l - 1))
        echo "$l"
    done
}

# check SUFFIX FIELD: FIELD 1 is the x86-64 column, 2 the ARM64 one.
check() {
    suf=$1 field=$2 n=0
    while IFS= read -r row; do
        line=$(echo "$row" | sed 's/^deque\.c:\([0-9]*\) .*/\1/')
        lines=$(stmt_lines "$line" | tr '\n' ' ')
        want=$(echo "$row" | sed 's/.*x86-64: \(.*\) | ARM64: \(.*\)$/\1|\2/' |
               cut -d'|' -f"$field")
        fn=$(echo "$row" | cut -d' ' -f2)
        got=$(awk -v ls=" $lines" 'index(ls, " " $1 " ") { $1 = $2 = "";
                  print substr($0, 3) }' "$dir/lines.$suf.txt")
        if [ -z "$got" ]; then # clang merges the same store of two branches
            got=$(awk -v f="$fn" '$1 == 0 && $2 == f { $1 = $2 = "";
                      print substr($0, 3) }' "$dir/lines.$suf.txt")
            [ -n "$got" ] && echo "$suf: deque.c:$line: merged with another" \
                                  "line's by the compiler (line 0 of $fn)"
        fi
        ok=0
        case "$want" in
        "mov reg, [mem]"|"mov [mem], reg")
            echo "$got" | grep -q '^mov' &&
                ! echo "$got" | grep -qE '^(mfence|lock|xchg)' && ok=1 ;;
        "lock cmpxchg [mem], reg") echo "$got" | grep -q '^lock cmpxchg' && ok=1 ;;
        "mfence (gcc: lock or [rsp], 0)")
            echo "$got" | grep -qE '^mfence|^lock or[lq]? \$0, ?\(%rsp\)' &&
                ok=1 ;;
        "ldr reg, [mem]")
            echo "$got" | grep -q '^ldr ' &&
                ! echo "$got" | grep -qE '^(ldar|dmb)' && ok=1 ;;
        "ldar reg, [mem]") echo "$got" | grep -q '^ldar ' && ok=1 ;;
        "str reg, [mem]")
            echo "$got" | grep -q '^str ' &&
                ! echo "$got" | grep -qE '^(stlr|dmb)' && ok=1 ;;
        "stlr reg, [mem]") echo "$got" | grep -q '^stlr ' && ok=1 ;;
        "dmb ish") echo "$got" | grep -qx 'dmb ish' && ok=1 ;;
        "casal")
            echo "$got" | grep -qE '^casal |^bl __aarch64_cas8_acq_rel$' &&
                ok=1 ;;
        "cas")
            echo "$got" | grep -qE '^cas |^bl __aarch64_cas8_relax$' &&
                ok=1 ;;
        *) echo "$suf: deque.c:$line: no rule for '$want'" ;;
        esac
        if [ $ok = 1 ]; then
            n=$((n + 1))
        else
            echo "$suf: deque.c:$line: weft-sim prints '$want', the compiler" \
                 "emitted:"
            echo "$got" | sed 's/^/    /'
            fail=1
        fi
    done < "$dir/table.txt"
    echo "$suf: $n of $(wc -l < "$dir/table.txt") accesses compile to the" \
         "instruction weft-sim prints"
}

asm_lines "$cc" x86-64 && check x86-64 1 || fail=1
clang=$(command -v clang || true)
if [ -n "$clang" ]; then
    asm_lines "$clang" x86-64-clang && check x86-64-clang 1 || fail=1
fi
a64=$(command -v aarch64-linux-gnu-gcc || true)
if [ -n "$a64" ]; then
    asm_lines "$a64" arm64 && check arm64 2 || fail=1
    asm_lines "$a64" arm64-lse -march=armv8.1-a && check arm64-lse 2 || fail=1
    # ARMv8.1 has the instruction itself, not the helper.
    grep -q ' casal ' "$dir/lines.arm64-lse.txt" ||
        { echo "arm64-lse: no casal emitted"; fail=1; }
    if [ -n "$clang" ] && [ -d /usr/aarch64-linux-gnu/include ]; then
        asm_lines "$clang" arm64-clang --target=aarch64-linux-gnu \
            -isystem /usr/aarch64-linux-gnu/include &&
            check arm64-clang 2 || fail=1
    fi
else
    echo "aarch64-linux-gnu-gcc not found (scripts/deps.sh installs Debian's" \
         "gcc-aarch64-linux-gnu): the ARM64 column was not checked"
fi
exit $fail
