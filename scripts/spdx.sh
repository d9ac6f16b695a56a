#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Give every tracked source file an SPDX licence line as its first line:
#   /* SPDX-License-Identifier: Apache-2.0 */   C and C++ sources and headers
#   # SPDX-License-Identifier: Apache-2.0       CMake, shell, Makefile,
#                                               gnuplot and Python files
# A file that starts with "#!" keeps it first (and a Python coding line
# after it); the SPDX line goes below.  Files whose first three lines
# already name an SPDX licence are left alone, so running it twice changes
# nothing the second time.  File modes are kept.
#
#   scripts/spdx.sh [--check | --dry-run] [DIR]
#
# DIR is any directory inside the git work tree (default: the current
# one); the files are those `git ls-files` lists for the whole tree.
# --dry-run lists the files that would change; --check lists them and
# exits 1 if there is any.
set -eu

mode=write
case "${1:-}" in
--check) mode=check; shift ;;
--dry-run) mode=list; shift ;;
-h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
-*) echo "spdx: unknown option $1" >&2; exit 2 ;;
esac
[ $# -le 1 ] || { echo "usage: spdx.sh [--check | --dry-run] [DIR]" >&2; exit 2; }

root=$(cd "${1:-.}" && git rev-parse --show-toplevel) || {
    echo "spdx: ${1:-.} is not inside a git work tree" >&2
    exit 2
}
cd "$root"

ID="SPDX-License-Identifier: Apache-2.0"
C_LINE="/* $ID */"
HASH_LINE="# $ID"

# The comment style for a file, or nothing when it gets no SPDX line.
style() {
    case "$1" in
    *.c | *.h | *.cc | *.cpp | *.cxx | *.hh | *.hpp) echo c ;;
    CMakeLists.txt | */CMakeLists.txt | *.cmake | *.cmake.in) echo hash ;;
    Makefile | */Makefile | GNUmakefile | */GNUmakefile | *.mk) echo hash ;;
    *.sh | *.py | *.gp | *.gnuplot | *.plt) echo hash ;;
    *)
        # An extensionless script: a shell or Python shebang.
        if head -n 1 "$1" 2>/dev/null |
            grep -Eq '^#!.*(/|env[[:space:]]+)(ba|da|k|z)?sh([[:space:]]|$)|^#!.*python'; then
            echo hash
        fi
        ;;
    esac
}

# Write the file with the line inserted, in place, keeping its mode.
insert() {
    file=$1 line=$2
    tmp=$(mktemp "${TMPDIR:-/tmp}/spdx.XXXXXX")
    # Lines kept above the SPDX line: a shebang, and a Python coding line
    # right after it (which must stay within the first two lines).
    keep=0
    if head -n 1 "$file" | grep -q '^#!'; then
        keep=1
        if sed -n 2p "$file" | grep -Eq '^#.*coding[:=]'; then
            keep=2
        fi
    fi
    if [ "$keep" -gt 0 ]; then
        head -n "$keep" "$file" >"$tmp"
        printf '%s\n' "$line" >>"$tmp"
        tail -n "+$((keep + 1))" "$file" >>"$tmp"
    else
        printf '%s\n' "$line" >"$tmp"
        cat "$file" >>"$tmp"
    fi
    cat "$tmp" >"$file" # through the existing inode: mode and owner stay
    rm -f "$tmp"
}

changed=0
list=$(mktemp "${TMPDIR:-/tmp}/spdx-files.XXXXXX")
trap 'rm -f "$list"' EXIT
git -c core.quotePath=false ls-files >"$list"
while IFS= read -r f; do
    [ -f "$f" ] && [ ! -L "$f" ] || continue
    s=$(style "$f")
    [ -n "$s" ] || continue
    if head -n 3 "$f" | grep -q 'SPDX-License-Identifier:'; then
        continue
    fi
    changed=$((changed + 1))
    if [ "$mode" = write ]; then
        if [ "$s" = c ]; then insert "$f" "$C_LINE"; else insert "$f" "$HASH_LINE"; fi
    else
        echo "$f"
    fi
done <"$list"

case "$mode" in
write) echo "spdx: added the SPDX line to $changed file(s)" ;;
check) [ "$changed" -eq 0 ] || { echo "spdx: $changed file(s) lack an SPDX line" >&2; exit 1; } ;;
esac
