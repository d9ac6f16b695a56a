#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Apply .clang-format to the C and C++ sources, or check that they keep it.
#
#   scripts/format.sh [--check] [CLANG_FORMAT]
#
# CLANG_FORMAT defaults to clang-format-14, the version .clang-format was
# written for.  Run from the repository's root.
set -e
mode=-i
if [ "$1" = --check ]; then
    mode="--dry-run -Werror"
    shift
fi
cf=${1:-clang-format-14}
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    # The working tree's files: tracked ones that still exist, and new
    # ones not yet added (but not those .gitignore names).
    git ls-files --cached --others --exclude-standard 'src/*.[ch]' \
        'include/*.h' 'include/*.hpp' 'tests/*.[ch]' 'tests/*.cpp' \
        'examples/*.[ch]' 'examples/*.cpp' 'bench/*.[ch]' 'bench/*.cpp' \
        'tools/*.[ch]' 'tools/*.cpp' |
        while read -r f; do if [ -f "$f" ]; then echo "$f"; fi; done
else # an unpacked release: the same folders
    find src include tests examples bench tools -type f \
        \( -name '*.[ch]' -o -name '*.cpp' -o -name '*.hpp' \)
fi | xargs "$cf" $mode
