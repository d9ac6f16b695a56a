#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# make fuzz: build tests/fuzz/graph_ops.c with clang's libFuzzer, ASan and
# UBSan, and run it for FUZZ_SECONDS (default 60) from the seed corpus.
# New inputs go to build/fuzz/corpus (the seeds in tests/fuzz/corpus are
# only read); a crash or a hang is written to build/fuzz/ with its bytes.
#
#   scripts/fuzz.sh [SECONDS]
set -e
seconds=${1:-${FUZZ_SECONDS:-60}}
if ! command -v clang >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "fuzz: installing clang (libFuzzer)"
        export DEBIAN_FRONTEND=noninteractive
        { apt-get update -qq && apt-get install -y -qq clang; } >/dev/null
    else
        echo "fuzz: clang is needed (apt-get install clang)" >&2
        exit 1
    fi
fi
out=build/fuzz
mkdir -p "$out/corpus"
clang -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
    -DWF_LIBFUZZER -D_GNU_SOURCE -Iinclude -Isrc \
    tests/fuzz/graph_ops.c src/*.c src/base/*.c src/pool/*.c src/algo/*.c \
    src/graph/*.c -lpthread \
    -o "$out/graph_ops"
echo "fuzz: graph_ops for $seconds s (corpus: $out/corpus, seeds: tests/fuzz/corpus)"
cd "$out"
exec ./graph_ops -max_total_time="$seconds" -timeout=10 -max_len=1536 \
    -artifact_prefix=./ corpus ../../tests/fuzz/corpus
