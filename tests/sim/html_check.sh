#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The HTML replay in headless Chromium: write the page for a REPL script,
# open it at several steps (the page clicks "step forward" N times for
# #steps=N and keeps its state in the DOM), and compare what it shows with
# the text output of the same run: the current log line, and the picture
# against what `show` printed at that step.
# Then the layout: the page marks itself (body data-layout) "ok" when the
# picture's box ends before the log's and nothing of the picture is cut,
# as Chromium laid it out; checked at every step above, and on a page whose
# picture is wide (a grown ring beside the old one, LAYOUT_SCRIPT), whose
# screenshot is kept in WORKDIR/layout.png.
#   html_check.sh WEFT_SIM SCRIPT WORKDIR [LAYOUT_SCRIPT]
# Exit 77 (ctest: skipped) only when no Chromium can be found.
set -u
sim=$1 script=$2 dir=$3 wide=${4:-}
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
    echo "SKIPPED: chromium is not installed (scripts/deps.sh installs" \
         "Debian's chromium); the HTML page was not checked"
    exit 77
fi
rm -rf "$dir" && mkdir -p "$dir" || exit 1
page="$dir/trace.html"
"$sim" run "$script" --html "$page" > "$dir/run.txt"
rc=$?
[ $rc -le 1 ] && [ -s "$page" ] || { echo "weft-sim run failed ($rc)"; exit 1; }

dom() { # $1: steps; writes the DOM to $dir/dom.$1.html
    timeout 120 "$browser" --headless --no-sandbox --disable-gpu \
        --disable-background-networking --disable-component-update \
        --disable-sync --no-first-run --user-data-dir="$(mktemp -d)" \
        --dump-dom "file://$page#steps=$1" > "$dir/dom.$1.html" 2>/dev/null
}
unescape() { sed 's/&lt;/</g; s/&gt;/>/g; s/&quot;/"/g; s/&amp;/\&/g'; }

# The pictures `show` printed, each with the number of the last step
# before it: show.K.txt
awk -v dir="$dir" 'BEGIN { last = 0 }
    /^> / || /^wrote / { if (f) close(f); f = ""; }
    /^> show/ { f = dir "/show." last ".txt"; next }
    f { print > f; next }
    /^ *[0-9]+  / { last = $1 }' "$dir/run.txt"

fail=0 checked=0
for want in "$dir"/show.*.txt; do
    k=$(basename "$want" .txt | sed 's/show\.//')
    dom "$k" || { echo "chromium failed at #steps=$k"; exit 1; }
    d="$dir/dom.$k.html"
    grep -q "data-step=\"$k\"" "$d" || { echo "steps=$k: page is not at step $k"; fail=1; }
    grep -q 'data-layout="ok"' "$d" ||
        { echo "steps=$k: the picture overlaps the log"; fail=1; }
    # the picture: from <pre id="picture"> to </pre>
    awk '/<pre id="picture">/ { p = 1; sub(/.*<pre id="picture">/, "") }
         p && /<\/pre>/ { sub(/<\/pre>.*/, ""); if ($0 != "") print; exit }
         p { print }' "$d" | unescape > "$dir/pic.$k.txt"
    if ! cmp -s "$want" "$dir/pic.$k.txt"; then
        echo "steps=$k: the page's picture differs from show:"
        diff "$want" "$dir/pic.$k.txt"
        fail=1
    fi
    # the current log line
    line=$(grep "^$(printf '%3d  ' "$k")" "$dir/run.txt" | head -1)
    cur=$(sed -n 's/.*<p id="current">\([^<]*\)<\/p>.*/\1/p' "$d" | unescape)
    if [ -n "$line" ] && [ "$cur" != "$line" ]; then
        echo "steps=$k: current line differs:"
        echo "  log:  $line"
        echo "  page: $cur"
        fail=1
    fi
    checked=$((checked + 1))
done
[ $checked -ge 3 ] || { echo "only $checked pictures checked"; fail=1; }
if [ -n "$wide" ]; then
    "$sim" run "$wide" --html "$dir/wide.html" > "$dir/wide.txt"
    n=$(grep -cE '^ *[0-9]+  ' "$dir/wide.txt")
    timeout 120 "$browser" --headless --no-sandbox --disable-gpu \
        --no-first-run --user-data-dir="$(mktemp -d)" --window-size=1280,900 \
        --dump-dom "file://$dir/wide.html#steps=$n" > "$dir/wide.dom.html" \
        2>/dev/null
    grep -q 'data-layout="ok"' "$dir/wide.dom.html" ||
        { echo "wide picture: it overlaps the log at step $n"; fail=1; }
    timeout 120 "$browser" --headless --no-sandbox --disable-gpu \
        --no-first-run --user-data-dir="$(mktemp -d)" --window-size=1280,900 \
        --screenshot="$dir/layout.png" "file://$dir/wide.html#steps=$n" \
        > /dev/null 2>&1
    [ -s "$dir/layout.png" ] ||
        { echo "wide picture: no screenshot was taken"; fail=1; }
fi
[ $fail = 0 ] && echo "html: $checked steps of $page match the log and show"
exit $fail
