#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Mutation run of the library's memory orders: is each order tested?

Every shared atomic access in src/ goes through the named-order wrappers of
src/internal/atomic.h (wf_load_acquire, wf_cas_seqcst, wf_fence_seqcst...).
This script weakens one call site at a time, one step, rebuilds, and runs
the checks that could notice.  A mutant the checks do not notice ("missed")
is an order no test depends on: either the order is stronger than needed,
or the tests cannot see what it protects.

    python3 scripts/mutate.py --list           # the mutants, from the source
    python3 scripts/mutate.py --list --check   # exit 1 if an atomic stronger
                                               # than relaxed cannot be parsed
    python3 scripts/mutate.py --area deque     # run the deque's mutants
    python3 scripts/mutate.py --only evcount.c:54 --tsan-reps 5
    python3 scripts/mutate.py --out mutants.md # everything, Markdown report

The mutants come from the source, never from a kept list.  Scanned:
src/**/*.c and src/**/*.h (but atomic.h and sim_hook.h, which define the
wrappers) and include/weft/detail/*.h.  A call of a wrapper whose order is
stronger than relaxed is a site; each site gives exactly one mutant, its
order one step weaker:

    fence seq_cst             removed (the call becomes ((void)0))
    load  seq_cst -> acquire  acquire -> relaxed
    store seq_cst -> release  release -> relaxed
    RMW   seq_cst -> acq_rel  acq_rel, acquire, release -> relaxed
          (CAS, exchange, fetch_add...)

acq_rel goes straight to relaxed (one mutant, not one each for acquire and
release): it keeps the run half as long, and a site whose acq_rel is
needed only on one side shows up as caught here all the same.  A seq_cst
RMW steps to acq_rel only: what seq_cst adds to acq_rel (the single total
order, StoreLoad) is what such a site is there for; relaxed is two steps.
The weaker wrapper is used when atomic.h defines it; otherwise the mutated
copy calls atomic_*_explicit with the weaker memory_order.  In a file that
weft-sim compiles, a mutant that sim_hook.h cannot express (no such
wrapper there, or a raw call) skips the sim check, and says so.  Public
headers may define
their own WF__* wrappers on __atomic/atomic_*_explicit; one whose order is
stronger than relaxed is mutated to the sibling macro with the weaker order
in its name.  --check fails when the scanned files hold what this cannot
turn into a mutant: a raw atomic with an order stronger than relaxed, an
implicitly seq_cst atomic_*() or __sync_* call, a wf_ name that looks like
a wrapper but is not defined, or a wrapper with no weaker step.  (A ++ or
+= on an _Atomic variable is also seq_cst and is not seen: the sources
never do that; keep it so.)

A mutant's id is FILE:LINE:WRAPPER->WEAKER (#2... when one line holds two
such calls), e.g. src/pool/evcount.c:54:wf_fence_seqcst->none.  Listed with
it: the function it is in, and the rule the nearest comment cites (the
D, P, G, T, A, B and M rules of docs/protocols.md): the comment on the
same line, else the closest comment above it in the same
function, else the comment above the function; "none" when that comment
cites no rule.  The area comes from the file: deque, pool: sleep/wake
(evcount, park, notify), pool: other, graph, taskgraph, algo, base, mpi.

How a mutant is run.  One persistent copy of the repository (--tree,
default /tmp/mut-tree; refreshed from this checkout, only changed files
rewritten, so their timestamps stay and the build stays incremental) and
one build of it (--build, default /tmp/mut-build: Release, with the
sanitizer variants).  For each mutant the one file is rewritten, the
targets the checks need are rebuilt (so only that file recompiles, and
the tests relink), the checks run, and the file is put back:

  tsan     the area's ThreadSanitizer tests (ctest -L tsan -R AREA_REGEX),
           each repeated up to --tsan-reps times until it fails;
  sim      weft-sim's scenarios of the shipped code that expect it correct
           (tests/sim/*.scn with algo weft and expect pass; ctest -L sim),
           when the file is compiled into weft-sim (read from
           tools/weft-sim/CMakeLists.txt and the headers of src/ that
           weft-sim's own files include).  The scenarios of weft-sim's
           built-in mutants are left out: with the library weakened too,
           one fails whether or not the mutant shows (its override may
           find no access left to weaken, which is an error), as do the
           tests of weft-sim's own output;
  aarch64  the area's unit and stress tests cross-built for ARM64 and run
           under qemu-aarch64 (scripts/aarch64-test.sh makes the build, in
           BUILD-aarch64), when the cross compiler and qemu are installed.

A mutant is caught when any check fails, hanging tests included (ctest's
TIMEOUT, or the mutant's own --timeout; listed as "timeout").  A mutant
that does not compile is "n/a", not caught.  Before the mutants, each
area's checks run once on the unmutated tree: a test that fails there is
left out of that area's runs (and reported), so a flaky test cannot pass
for a catch.  Mutants run one after another (one tree); --jobs is the
build's and ctest's parallelism.  `make verify` runs everything.
"""

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

ATOMIC_H = "src/internal/atomic.h"
SIM_HOOK_H = "src/internal/sim_hook.h"
SIM_CMAKE = "tools/weft-sim/CMakeLists.txt"

C11_ORDER = {"relaxed": "memory_order_relaxed",
             "acquire": "memory_order_acquire",
             "release": "memory_order_release",
             "acqrel": "memory_order_acq_rel",
             "seqcst": "memory_order_seq_cst"}
# A CAS's failure order may be neither release nor acq_rel.
CAS_FAILURE = {"relaxed": "relaxed", "acquire": "acquire",
               "release": "relaxed", "acqrel": "acquire",
               "seqcst": "seqcst"}
RMW_OPS = ("cas", "exchange", "fetch_add", "fetch_sub", "fetch_or",
           "fetch_and", "fetch_xor")
RAW_CALL = {"load": "atomic_load_explicit",
            "store": "atomic_store_explicit",
            "cas": "atomic_compare_exchange_strong_explicit",
            "exchange": "atomic_exchange_explicit"}
for _op in RMW_OPS[2:]:
    RAW_CALL[_op] = "atomic_%s_explicit" % _op

# (area, path regex), first match wins; then the tests each area runs.
AREAS = [
    ("deque", r"^src/deque\.c$"),
    ("pool: sleep/wake",
     r"^src/(pool|internal/pool)/(evcount|park|notify|done)\.[ch]$"),
    ("pool: other", r"^(src/pool/|src/internal/pool/"
                    r"|src/internal/pool_hooks\.h|include/weft/detail/)"),
    ("taskgraph", r"^src/(taskgraph/|internal/taskgraph(\.h|/))"),
    ("graph", r"^src/(graph/|internal/graph/)"),
    ("algo", r"^src/(algo/|internal/algo/)"),
    ("mpi", r"^src/(mpi/|internal/mpi/)"),
    ("base", r"^src/"),
]
AREA_NAMES = [a for a, _ in AREAS]
# ctest -R for each area (tsan, and the aarch64 build's normal variant).
# The deque's and the pool's tests also run the code above them: a lost
# wake-up or a lost task shows there as a hang or a wrong count.
AREA_TESTS = {
    "deque": r"^(deque_|pool_stress_|pool_typed_(fib|random|deep)\b)",
    "pool: sleep/wake": r"^(pool_(unit|stress_|blocking_|caller_|load_)"
                        r"|wait_cancel_|graph_caller_)",
    "pool: other": r"^(pool_(unit|stress_|typed_|blocking_|caller_|api_|"
                   r"errors|fault_|load_)|debug_mode_|wait_cancel_pool)",
    "taskgraph": r"^(taskgraph_|example_taskgraph_|cxx_taskgraph_)",
    "graph": r"^(graph_|wait_cancel_graph|example_reservation|"
             r"example_graph_|cxx_nodes_)",
    "algo": r"^(pool_pipeline_|pool_api_|pool_accounting_|example_pipeline|"
             r"algo_(sort|scan)_|example_sort_scan)",
    "base": r"^(pool_accounting_|graph_runtime_trace|taskgraph_trace|"
            r"pool_env_|pool_fault_)",
    "mpi": r"^mpi_",
}

RULE_RE = re.compile(r"\b([DPGTABM][1-9][0-9]*)\b")
WRAPPER_RE = re.compile(
    r"\bwf_([a-z]\w*?)_(relaxed|acquire|release|acqrel|seqcst)\b")
LOOKALIKE_RE = re.compile(
    r"\bwf_(load|store|cas|exchange|fetch_[a-z]+|fence)_[a-z_]+\b")
HDR_WRAPPER_RE = re.compile(
    r"\bWF__([A-Z0-9_]*?)_(RELAXED|ACQUIRE|RELEASE|ACQ_?REL|SEQ_?CST)\b")
STRONG_RAW_RE = re.compile(
    r"\b(memory_order_(consume|acquire|release|acq_rel|seq_cst)"
    r"|__ATOMIC_(CONSUME|ACQUIRE|RELEASE|ACQ_REL|SEQ_CST)"
    r"|__sync_\w+"
    r"|atomic_(load|store|exchange|compare_exchange_(strong|weak)"
    r"|fetch_(add|sub|or|and|xor)|flag_test_and_set|flag_clear"
    r"|thread_fence)(?=\s*\())\b")


# ---- reading C --------------------------------------------------------------

def blank(text):
    """(code, comments): code is text with comments, string and character
    literals replaced by spaces (newlines kept, so offsets and lines hold);
    comments is a list of (start, end) offsets."""
    out = list(text)
    comments = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j += 1
            for k in range(i + 1, min(j - 1, n)):
                if out[k] != "\n":
                    out[k] = " "
            i = j
            continue
        else:
            i += 1
            continue
        comments.append((i, j))
        for k in range(i, j):
            if out[k] != "\n":
                out[k] = " "
        i = j
    return "".join(out), comments


def directive_spans(code):
    """(start, end, name) of each preprocessor directive, continuations
    included; name is the macro a #define defines, else ''."""
    spans = []
    for m in re.finditer(r"(?m)^[ \t]*#", code):
        end = m.start()
        while True:
            nl = code.find("\n", end)
            if nl < 0:
                end = len(code)
                break
            if code[nl - 1] == "\\":
                end = nl + 1
                continue
            end = nl
            break
        d = re.match(r"[ \t]*#\s*define\s+(\w+)", code[m.start():end])
        spans.append((m.start(), end, d.group(1) if d else ""))
    return spans


def functions(code, directives):
    """(start_of_header, body_open, body_close, name) of each top-level
    brace block that follows a parenthesised list: the functions."""
    flat = list(code)
    for s, e, _ in directives:
        for k in range(s, e):
            if flat[k] != "\n":
                flat[k] = " "
    flat = "".join(flat)
    out = []
    depth = 0
    last_top = 0  # just after the last top-level ';' or '}'
    opened = None
    for i, c in enumerate(flat):
        if c == "{":
            if depth == 0:
                opened = i
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0 and opened is not None:
                head = flat[last_top:opened].rstrip()
                name = None
                if head.endswith(")"):  # the parameter list's "("
                    d, k = 0, len(head) - 1
                    while k >= 0:
                        d += {")": 1, "(": -1}.get(head[k], 0)
                        if d == 0:
                            break
                        k -= 1
                    m = re.search(r"(\w+)\s*$", head[:max(k, 0)])
                    name = m.group(1) if m else None
                if name:
                    hs = last_top + len(head) - len(head.lstrip())
                    out.append((hs, opened, i, name))
                last_top = i + 1
        elif c == ";" and depth == 0:
            last_top = i + 1
    return out


def close_paren(code, open_at):
    depth = 0
    for i in range(open_at, len(code)):
        if code[i] == "(":
            depth += 1
        elif code[i] == ")":
            depth -= 1
            if depth == 0:
                return i
    return -1


def split_args(text, code, open_at, close_at):
    args, depth, start = [], 0, open_at + 1
    for i in range(open_at + 1, close_at):
        c = code[i]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "," and depth == 0:
            args.append(text[start:i].strip())
            start = i + 1
    last = text[start:close_at].strip()
    if last or args:
        args.append(last)
    return args


def line_of(text, off):
    return text.count("\n", 0, off) + 1


# ---- the wrappers -----------------------------------------------------------

def read(rel, root=ROOT):
    with open(os.path.join(root, rel), encoding="utf-8") as f:
        return f.read()


def defined_names(text):
    return set(re.findall(r"(?m)^[ \t]*#\s*define\s+(\w+)", text))


def weaker(op, order):
    """One step weaker order, 'none' (remove) or None (no rule)."""
    if op == "fence":
        return "none" if order == "seqcst" else None
    if op == "load":
        return {"seqcst": "acquire", "acquire": "relaxed"}.get(order)
    if op == "store":
        return {"seqcst": "release", "release": "relaxed"}.get(order)
    if op in RMW_OPS:
        return {"seqcst": "acqrel", "acqrel": "relaxed",
                "acquire": "relaxed", "release": "relaxed"}.get(order)
    return None


def sim_own_includes(root):
    """Headers of src/ that weft-sim's own files include (the inline
    steps of a protocol, as internal/graph/pending.h)."""
    out = set()
    sim_dir = os.path.join(root, os.path.dirname(SIM_CMAKE))
    for dp, dn, fn in os.walk(sim_dir):
        for f in fn:
            if not f.endswith((".c", ".h")):
                continue
            with open(os.path.join(dp, f), encoding="utf-8") as fh:
                t = fh.read()
            for inc in re.findall(r'(?m)^\s*#\s*include\s+"(internal/[\w/.-]+'
                                  r'\.h)"', t):
                if os.path.exists(os.path.join(root, "src", inc)):
                    out.add("src/" + inc)
    return out


def sim_sources(root):
    """Files of src/ compiled into weft-sim, and the headers they include."""
    try:
        cm = read(SIM_CMAKE, root)
    except OSError:
        return set()
    srcs = set(re.findall(r"\$\{PROJECT_SOURCE_DIR\}/(src/[\w/.-]+\.[ch])",
                          cm)) | sim_own_includes(root)
    for s in list(srcs):
        try:
            t = read(s, root)
        except OSError:
            continue
        for inc in re.findall(r'(?m)^\s*#\s*include\s+"([\w/.-]+\.h)"', t):
            for base in (os.path.dirname(s), "src", "src/internal"):
                cand = os.path.normpath(os.path.join(base, inc))
                if os.path.exists(os.path.join(root, cand)):
                    srcs.add(cand)
                    break
    return srcs


def sim_correct_tests(root):
    """The ctest names (sim_NAME) of tests/sim/NAME.scn that run the shipped
    code (algo weft, the default) and expect it correct (expect pass):
    the only weft-sim tests whose failure shows a mutant of the library."""
    d = os.path.join(root, "tests/sim")
    out = set()
    for f in sorted(os.listdir(d)) if os.path.isdir(d) else ():
        if not f.endswith(".scn"):
            continue
        with open(os.path.join(d, f), encoding="utf-8") as fh:
            kv = dict(re.findall(r"(?m)^\s*(algo|expect)\s+(\S+)", fh.read()))
        if kv.get("algo", "weft") == "weft" and kv.get("expect") == "pass":
            out.add("sim_" + f[:-len(".scn")])
    return out


def scanned_files(root):
    out = []
    for d in ("src",):
        for dp, dn, fn in os.walk(os.path.join(root, d)):
            dn.sort()
            for f in sorted(fn):
                if f.endswith((".c", ".h")):
                    out.append(os.path.relpath(os.path.join(dp, f), root))
    det = os.path.join(root, "include/weft/detail")
    if os.path.isdir(det):
        out += ["include/weft/detail/" + f for f in sorted(os.listdir(det))
                if f.endswith(".h")]
    return [f for f in out if f not in (ATOMIC_H, SIM_HOOK_H)]


def area_of(rel):
    for name, rx in AREAS:
        if re.search(rx, rel):
            return name
    return "base"


def find_rule(text, comments, fn, call_start, call_line):
    """The rule the nearest comment cites (see the module comment)."""
    def cites(c):
        m = RULE_RE.findall(text[c[0]:c[1]])
        return ",".join(dict.fromkeys(m)) if m else "none"
    for c in comments:  # a comment that begins on the call's line
        if line_of(text, c[0]) == call_line and c[0] > call_start:
            return cites(c)
    lo = fn[1] if fn else 0
    above = [c for c in comments if lo <= c[0] and c[1] <= call_start]
    if above:
        return cites(above[-1])
    if fn:
        head = [c for c in comments if c[1] <= fn[0]]
        if head and text[head[-1][1]:fn[0]].strip() == "":
            return cites(head[-1])
    return "none"


def mutants(root=ROOT):
    """(mutants, problems): the mutant list, and what --check reports."""
    atomic = read(ATOMIC_H, root)
    lib_names = defined_names(atomic)
    try:
        sim_names = defined_names(read(SIM_HOOK_H, root))
    except OSError:
        sim_names = set()
    in_sim = sim_sources(root)
    problems = []
    for name in sorted(lib_names):
        m = WRAPPER_RE.fullmatch(name)
        if m and m.group(2) != "relaxed" and weaker(*m.groups()) is None:
            problems.append("%s: %s has no weaker step (add one to "
                            "scripts/mutate.py)" % (ATOMIC_H, name))
    out = []
    for rel in scanned_files(root):
        text = read(rel, root)
        code, comments = blank(text)
        dirs = directive_spans(code)
        fns = functions(code, dirs)
        public = rel.startswith("include/")
        hdr_names = defined_names(text) if public else set()
        hdr_wrappers = set()  # WF__ macros that are themselves atomics
        for s, e, name in dirs:
            if public and name and STRONG_RAW_RE.search(code[s:e]):
                hdr_wrappers.add(name)
        seen = {}
        for m in re.finditer(r"\b(wf_\w+|WF__\w+)\b", code):
            name = m.group(1)
            d = next((x for x in dirs if x[0] <= m.start() < x[1]), None)
            if d and d[2] == name:
                continue  # the #define itself
            if name.startswith("wf_"):
                w = WRAPPER_RE.fullmatch(name)
                if not w:
                    if LOOKALIKE_RE.fullmatch(name) and name not in lib_names:
                        problems.append("%s:%d: %s is no wrapper of %s" % (
                            rel, line_of(text, m.start()), name, ATOMIC_H))
                    continue
                if name not in lib_names:
                    problems.append("%s:%d: %s is not defined in %s" % (
                        rel, line_of(text, m.start()), name, ATOMIC_H))
                    continue
                op, order = w.groups()
                if order == "relaxed":
                    continue
            else:
                w = HDR_WRAPPER_RE.fullmatch(name)
                if not (w and public) or name not in hdr_wrappers:
                    continue
                op = w.group(1).lower()
                order = w.group(2).lower().replace("_", "")
                if order == "relaxed":
                    continue
            line = line_of(text, m.start())
            paren = re.compile(r"\s*\(").match(code, m.end())
            if not paren:
                problems.append("%s:%d: %s is not called" % (rel, line, name))
                continue
            open_at = paren.end() - 1
            close_at = close_paren(code, open_at)
            if close_at < 0:
                problems.append("%s:%d: %s: no closing parenthesis" % (
                    rel, line, name))
                continue
            weak = weaker("fence" if op == "fence" else
                          ("cas" if op == "cas" else op), order)
            if weak is None:
                problems.append("%s:%d: %s: no weaker step for %s %s" % (
                    rel, line, name, op, order))
                continue
            args = split_args(text, code, open_at, close_at)
            sim = rel in in_sim
            if name.startswith("WF__"):
                target = "WF__%s_%s" % (w.group(1), weak.upper()
                                        .replace("ACQREL", "ACQ_REL"))
                if weak == "none":
                    repl, label = "((void)0)", "none"
                elif target in hdr_names:
                    repl = target + text[m.end():close_at + 1]
                    label = target
                else:
                    problems.append("%s:%d: %s: no %s to weaken it to" % (
                        rel, line, name, target))
                    continue
            elif weak == "none":
                repl, label = "((void)0)", "none"
            else:
                target = "wf_%s_%s" % (op, weak)
                if target in lib_names:
                    repl = target + text[m.end():close_at + 1]
                    label = target
                elif op in RAW_CALL:
                    o = [C11_ORDER[weak]]
                    if op == "cas":
                        o.append(C11_ORDER[CAS_FAILURE[weak]])
                    repl = "%s(%s)" % (RAW_CALL[op], ", ".join(args + o))
                    label = "%s/%s" % (RAW_CALL[op], C11_ORDER[weak][13:])
                else:
                    problems.append("%s:%d: %s: no call to weaken it to" % (
                        rel, line, name))
                    continue
            fn = None
            for f in fns:
                if f[1] < m.start() < f[2]:
                    fn = f
            fname = ("#define " + d[2]) if d and d[2] else (
                fn[3] if fn else "(file scope)")
            mid = "%s:%d:%s->%s" % (rel, line, name, label)
            seen[mid] = seen.get(mid, 0) + 1
            if seen[mid] > 1:
                mid += "#%d" % seen[mid]
            out.append({
                "id": mid, "file": rel, "line": line, "wrapper": name,
                "weaker": label, "function": fname,
                "rule": find_rule(text, comments, fn, m.start(), line),
                # weft-sim compiles the file, and can express the mutant.
                "area": area_of(rel),
                "sim": sim and (label == "none" or label in sim_names),
                "sim_skipped": sim and not (label == "none"
                                            or label in sim_names),
                "start": m.start(), "end": close_at + 1, "repl": repl,
                "orig": text[m.start():close_at + 1],
            })
        # What the script cannot turn into a mutant.
        for m in STRONG_RAW_RE.finditer(code):
            d = next((x for x in dirs if x[0] <= m.start() < x[1]), None)
            if d and d[2] in hdr_wrappers:
                continue
            problems.append("%s:%d: %s: an atomic stronger than relaxed that "
                            "is no wrapper of %s" % (
                                rel, line_of(text, m.start()), m.group(1),
                                ATOMIC_H))
        for m in re.finditer(r"\b(atomic_\w+_explicit|__atomic_\w+)\s*\(",
                             code):
            d = next((x for x in dirs if x[0] <= m.start() < x[1]), None)
            if d and d[2] in hdr_wrappers:
                continue
            close_at = close_paren(code, m.end() - 1)
            body = code[m.end():close_at] if close_at > 0 else ""
            if not re.search(r"memory_order_relaxed|__ATOMIC_RELAXED", body):
                problems.append("%s:%d: %s with an order this script cannot "
                                "read" % (rel, line_of(text, m.start()),
                                          m.group(1)))
    return out, problems


# ---- running ----------------------------------------------------------------

class Runner:
    def __init__(self, args):
        self.a = args
        self.tree = os.path.abspath(args.tree)
        self.build = os.path.abspath(args.build)
        self.arm = self.build + "-aarch64"
        self.arm_all = {}
        self.tests = None
        self.excluded = {}  # area -> tests that fail unmutated
        self.log = open(os.path.join(os.path.dirname(self.build) or ".",
                                     os.path.basename(self.build) + ".log"),
                        "a")

    def say(self, msg):
        print(msg, flush=True)

    def sh(self, cmd, cwd=None, timeout=None):
        """(rc, output); rc is None on a timeout (the whole group killed)."""
        self.log.write("$ %s\n" % " ".join(cmd))
        self.log.flush()
        p = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True,
                             errors="replace", start_new_session=True)
        try:
            out, _ = p.communicate(timeout=timeout)
            rc = p.returncode
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            out, _ = p.communicate()
            rc = None
        except BaseException:  # interrupted: take the children along
            os.killpg(p.pid, signal.SIGKILL)
            raise
        self.log.write(out[-20000:])
        self.log.flush()
        return rc, out

    # The tree: this checkout's tracked and untracked-not-ignored files.
    def sync(self):
        try:
            ls = subprocess.run(["git", "-C", ROOT, "ls-files", "-z",
                                 "--cached", "--others", "--exclude-standard"],
                                capture_output=True, check=True).stdout
            files = [f for f in ls.decode().split("\0") if f]
        except (OSError, subprocess.CalledProcessError):
            files = []
            for dp, dn, fn in os.walk(ROOT):
                dn[:] = [d for d in dn if not d.startswith((".", "build"))]
                files += [os.path.relpath(os.path.join(dp, f), ROOT)
                          for f in fn]
        files = [f for f in files if os.path.isfile(os.path.join(ROOT, f))]
        manifest = os.path.join(self.tree, ".mutate-files")
        old = set()
        if os.path.exists(manifest):
            with open(manifest) as f:
                old = set(f.read().split("\0")) - {""}
        changed = 0
        for f in files:
            src, dst = os.path.join(ROOT, f), os.path.join(self.tree, f)
            with open(src, "rb") as fh:
                data = fh.read()
            try:
                with open(dst, "rb") as fh:
                    if fh.read() == data:
                        continue
            except OSError:
                pass
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            with open(dst, "wb") as fh:
                fh.write(data)
            shutil.copymode(src, dst)
            changed += 1
        for f in old - set(files):
            try:
                os.remove(os.path.join(self.tree, f))
            except OSError:
                pass
        with open(manifest, "w") as fh:
            fh.write("\0".join(files))
        self.say("tree %s: %d file(s) refreshed" % (self.tree, changed))

    def configure(self):
        if os.path.exists(os.path.join(self.build, "CMakeCache.txt")):
            return True
        rc, out = self.sh(["cmake", "-S", self.tree, "-B", self.build,
                           "-DCMAKE_BUILD_TYPE=Release",
                           "-DWEFT_SANITIZER_VARIANTS=ON",
                           "-DWEFT_BUILD_BENCH=OFF",
                           "-DWEFT_BUILD_EXAMPLES=OFF"])
        if rc != 0:
            self.say(out[-3000:])
        return rc == 0

    def load_tests(self, build=None):
        """{test: (labels, command)} of a build directory."""
        rc, out = self.sh(["ctest", "--show-only=json-v1"],
                          cwd=build or self.build)
        tests = {}
        for t in json.loads(out).get("tests", []):
            labels = []
            for p in t.get("properties", []):
                if p["name"] == "LABELS":
                    labels = p["value"]
            tests[t["name"]] = (labels, t.get("command", []))
        if build is None:
            self.tests = tests
        return tests

    def targets_of(self, names, build):
        """The build targets a set of tests runs (executables of build)."""
        out = set()
        tests = self.arm_all if build == self.arm else self.tests
        for n in names:
            for arg in tests.get(n, ((), ()))[1]:
                if arg.startswith("-DPROG="):
                    arg = arg.split("=", 1)[1]
                if arg.startswith(build + "/") and os.path.basename(arg):
                    out.add(os.path.basename(arg))
        return sorted(out)

    def selected(self, label, regex, exclude=()):
        return sorted(n for n, (labels, _) in self.tests.items()
                      if label in labels and re.search(regex, n)
                      and n not in exclude)

    def checks_for(self, area, sim):
        """[(check, build dir, ctest arguments, tests)] for one mutant."""
        a, rx, out = self.a, AREA_TESTS[area], []
        ex = self.excluded.get(area, set())
        if "tsan" in a.checks:
            names = self.selected("tsan", rx, ex)
            if names:
                out.append(("tsan", self.build, names,
                            ["--repeat", "until-fail:%d" % a.tsan_reps]))
        if "sim" in a.checks and sim:
            correct = sim_correct_tests(self.tree)
            names = [n for n in self.selected("sim", a.sim_regex, ex)
                     if n in correct]
            if names:
                out.append(("sim", self.build, names, []))
        if "aarch64" in a.checks and self.arm_ok:
            names = [n for n in self.arm_tests if re.search(rx, n)
                     and "arm:" + n not in ex]
            if names:
                out.append(("aarch64", self.arm, names, []))
        return out

    def ctest(self, build, names, extra, timeout):
        rx = "^(%s)$" % "|".join(re.escape(n) for n in names)
        rc, out = self.sh(["ctest", "-R", rx, "-j", str(self.a.jobs),
                           "--stop-on-failure", "--output-on-failure"]
                          + extra, cwd=build, timeout=timeout)
        failed = re.findall(r"^\s*\d+ - (\S+) \(([^)]*)\)", out, re.M)
        return rc, failed

    def make(self, build, targets, timeout=None):
        cmd = ["cmake", "--build", build, "-j", str(self.a.jobs)]
        if targets:
            cmd += ["--target"] + targets
        return self.sh(cmd, timeout=timeout)

    def setup_arm(self):
        self.arm_ok = False
        self.arm_tests = []
        if "aarch64" not in self.a.checks:
            return
        for tool in ("aarch64-linux-gnu-gcc", "aarch64-linux-gnu-g++",
                     "qemu-aarch64"):
            if not shutil.which(tool):
                self.say("aarch64: %s is missing, check skipped" % tool)
                return
        self.say("aarch64: building %s (first time: long)" % self.arm)
        rc, out = self.sh(["sh", os.path.join(self.tree,
                                              "scripts/aarch64-test.sh"),
                           self.tree, self.arm, "build"])
        if rc != 0:
            self.say("aarch64: the cross build failed, check skipped\n"
                     + out[-2000:])
            return
        self.arm_all = self.load_tests(self.arm)
        skip = {"pool_idle", "debug_mode_no_default",
                "graph_runtime_trace_env", "refdoc"}  # aarch64-test.sh's
        self.arm_tests = sorted(
            n for n, (labels, _) in self.arm_all.items()
            if ("unit" in labels or "stress" in labels)
            and "aarch64" not in labels and n not in skip)
        self.arm_ok = True

    def baseline(self, ms, areas):
        """Each area's checks once on the unmutated tree: what fails is
        left out of that area's mutants."""
        for area in areas:
            bad = set()
            sim = any(m["sim"] for m in ms if m["area"] == area)
            for check, build, names, extra in self.checks_for(area, sim):
                t0 = time.time()
                rc, failed = self.ctest(build, names, [], self.a.timeout)
                for n, why in failed:
                    bad.add(("arm:" if check == "aarch64" else "") + n)
                self.say("baseline %-17s %-8s %3d tests %6.0fs%s" % (
                    area, check, len(names), time.time() - t0,
                    "  left out: " + " ".join(n for n, _ in failed)
                    if failed else ""))
                if rc is None:
                    self.say("  (timed out: raise --timeout)")
            self.excluded[area] = bad

    def run_one(self, mu):
        path = os.path.join(self.tree, mu["file"])
        with open(path, encoding="utf-8") as f:
            text = f.read()
        if text[mu["start"]:mu["end"]] != mu["orig"]:
            return "n/a", "the tree changed under the mutant", 0.0
        t0 = time.time()
        deadline = t0 + self.a.timeout
        checks = self.checks_for(mu["area"], mu["sim"])
        try:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text[:mu["start"]] + mu["repl"] + text[mu["end"]:])
            for check, build, names, extra in checks:
                targets = self.targets_of(names, build)
                if check == "sim":
                    targets = ["weft-sim"]
                rc, out = self.make(build, targets,
                                    max(1, deadline - time.time()))
                if rc is None:
                    return "caught", "timeout (build)", time.time() - t0
                if rc != 0:
                    err = re.findall(r"error: .*", out)
                    return "n/a", "%s build: %s" % (
                        check, err[0] if err else "failed"), time.time() - t0
                left = deadline - time.time()
                if left <= 0:
                    return "caught", "timeout", time.time() - t0
                rc, failed = self.ctest(build, names, extra, left)
                if rc is None:
                    return "caught", "timeout (%s)" % check, time.time() - t0
                if rc != 0:
                    what = ", ".join("%s (%s)" % f for f in failed[:3]) or \
                        "ctest rc %d" % rc
                    return "caught", "%s: %s" % (check, what), time.time() - t0
            if not checks:
                return "n/a", "no check applies", time.time() - t0
            return "missed", ("sim skipped: sim_hook.h has no %s" %
                              mu["weaker"] if mu["sim_skipped"] else ""), \
                time.time() - t0
        finally:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)


# ---- reports ----------------------------------------------------------------

def summary(results, areas):
    lines = ["| area | mutants | caught | missed | n/a | time |",
             "|---|---:|---:|---:|---:|---:|"]
    tot = [0, 0, 0, 0, 0.0]
    for area in areas:
        rs = [r for r in results if r["area"] == area]
        if not rs:
            continue
        c = [len(rs), sum(r["verdict"] == "caught" for r in rs),
             sum(r["verdict"] == "missed" for r in rs),
             sum(r["verdict"] == "n/a" for r in rs),
             sum(r["secs"] for r in rs)]
        tot = [x + y for x, y in zip(tot, c)]
        lines.append("| %s | %d | %d | %d | %d | %.0fs |" % (area, *c))
    lines.append("| **all** | %d | %d | %d | %d | %.0fs |" % tuple(tot))
    missed = [r for r in results if r["verdict"] == "missed"]
    if missed:
        lines += ["", "Missed (no check noticed the weaker order):", "",
                  "| mutant | function | rule |", "|---|---|---|"]
        lines += ["| `%s` | %s | %s |" % (r["id"], r["function"], r["rule"])
                  for r in missed]
    na = [r for r in results if r["verdict"] == "n/a"]
    if na:
        lines += ["", "Not applicable:", ""]
        lines += ["- `%s`: %s" % (r["id"], r["why"]) for r in na]
    return lines


def main():
    ap = argparse.ArgumentParser(
        description="Weaken each memory order of weft, one site at a time, "
                    "and see whether the tests notice.")
    ap.add_argument("--list", action="store_true",
                    help="list the mutants and stop")
    ap.add_argument("--check", action="store_true",
                    help="exit 1 if an atomic stronger than relaxed cannot "
                         "be turned into a mutant")
    ap.add_argument("--area", action="append", choices=AREA_NAMES,
                    help="only this area (repeatable)")
    ap.add_argument("--only", action="append",
                    help="only mutants whose id contains this (repeatable)")
    ap.add_argument("--skip", action="append",
                    help="leave out mutants whose id contains this "
                         "(repeatable): an area run before, at a commit "
                         "where the file was the same")
    ap.add_argument("--jobs", type=int, default=2,
                    help="build and ctest parallelism (default 2)")
    ap.add_argument("--tsan-reps", type=int, default=3,
                    help="runs of each TSan test, until one fails (default 3)")
    ap.add_argument("--checks", default="tsan,sim,aarch64",
                    help="checks to run, of tsan,sim,aarch64 (default all "
                         "that apply and are installed)")
    ap.add_argument("--sim-regex", default=".",
                    help="only the weft-sim tests matching this (Python "
                         "regex; default all of ctest -L sim)")
    ap.add_argument("--timeout", type=int, default=1200,
                    help="seconds per mutant, build and checks (default 1200)")
    ap.add_argument("--tree", default="/tmp/mut-tree",
                    help="the copy of the repository that is mutated")
    ap.add_argument("--build", default="/tmp/mut-build",
                    help="its build directory")
    ap.add_argument("--no-baseline", action="store_true",
                    help="skip the run of each area's checks unmutated")
    ap.add_argument("--out", help="also write the report here (Markdown)")
    a = ap.parse_args()
    a.checks = set(a.checks.split(","))

    ms, problems = mutants(ROOT)
    if a.area:
        ms = [m for m in ms if m["area"] in a.area]
    if a.only:
        ms = [m for m in ms if any(s in m["id"] for s in a.only)]
    if a.skip:
        ms = [m for m in ms if not any(s in m["id"] for s in a.skip)]
    if a.list or a.check:
        if a.list:
            for m in ms:
                print("%-62s %-8s %-28s %s" % (m["id"], m["rule"],
                                               m["function"], m["area"]))
            by = {}
            for m in ms:
                by[m["area"]] = by.get(m["area"], 0) + 1
            print("%d mutants: %s" % (len(ms), ", ".join(
                "%s %d" % (x, by[x]) for x in AREA_NAMES if x in by)))
        for p in problems:
            print("mutate.py: " + p, file=sys.stderr)
        return 1 if a.check and problems else 0
    if problems:
        for p in problems:
            print("mutate.py: warning: " + p, file=sys.stderr)
    if not ms:
        print("mutate.py: no mutant selected", file=sys.stderr)
        return 2

    r = Runner(a)
    os.makedirs(r.tree, exist_ok=True)
    r.sync()
    # The list again, from the copy: its offsets are the ones mutated.
    ids = {m["id"] for m in ms}
    ms = [m for m in mutants(r.tree)[0] if m["id"] in ids]
    if not r.configure():
        return 2
    r.say("building %s" % r.build)
    rc, out = r.make(r.build, [])
    if rc != 0:
        print(out[-4000:] + "\nmutate.py: the unmutated tree does not build",
              file=sys.stderr)
        return 2
    r.load_tests()
    r.setup_arm()
    areas = [x for x in AREA_NAMES if any(m["area"] == x for m in ms)]
    if not a.no_baseline:
        r.baseline(ms, areas)
    results = []
    t_all = time.time()

    def stop(signum, frame):
        raise KeyboardInterrupt
    signal.signal(signal.SIGTERM, stop)
    try:
        for i, mu in enumerate(ms, 1):
            verdict, why, secs = r.run_one(mu)
            results.append(dict(mu, verdict=verdict, why=why, secs=secs))
            r.say("[%d/%d] %-62s %-6s %5.0fs %s" % (i, len(ms), mu["id"],
                                                     verdict, secs, why))
    except KeyboardInterrupt:  # the file is back (run_one's finally)
        r.say("interrupted: the report covers the %d mutant(s) run" %
              len(results))
        ms = ms[:len(results)]
    # Leave the build matching the unmutated tree.
    r.make(r.build, sorted({t for m in ms for c in r.checks_for(
        m["area"], m["sim"]) for t in (["weft-sim"] if c[0] == "sim" else
                                       r.targets_of(c[2], c[1]))
        if c[1] == r.build}))
    lines = summary(results, areas)
    lines += ["", "%d mutants in %.0fs (%.0fs each), checks: %s, TSan runs: "
              "%d" % (len(ms), time.time() - t_all,
                      (time.time() - t_all) / max(1, len(ms)),
                      ",".join(sorted(a.checks)), a.tsan_reps)]
    for area in areas:
        if r.excluded.get(area):
            lines.append("%s: left out, failing unmutated: %s" % (
                area, " ".join(sorted(r.excluded[area]))))
    print("\n" + "\n".join(lines))
    if a.out:
        with open(a.out, "w") as f:
            f.write("# Mutation run of the memory orders\n\n")
            f.write("\n".join(lines) + "\n\n## Every mutant\n\n"
                    "| mutant | function | rule | verdict | time | by |\n"
                    "|---|---|---|---|---:|---|\n")
            for x in results:
                f.write("| `%s` | %s | %s | %s | %.0fs | %s |\n" % (
                    x["id"], x["function"], x["rule"], x["verdict"],
                    x["secs"], x["why"].replace("|", "/")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
