#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A component's files form layers: check that its includes and its
cross-file calls have no cycle.

    python3 scripts/layers.py ROOT NAME PREFIX INCLUDE_DIRS OBJECT...

ROOT is the repository; NAME names the component in the report; PREFIX
picks its files among the objects' (an object's unit is its path below
its target's CMakeFiles/NAME.dir/, without .c.o: "src/graph/edge" for
weft_static's objects); INCLUDE_DIRS (comma-separated, relative to ROOT)
hold its sources and private headers.  A file may call a function of
another only if that one does not call it back, directly or through
others: the calls, read from the objects' symbol tables (nm), and the
#include lines of the files in INCLUDE_DIRS must each form a DAG.
Prints the layers, lowest first, and exits 1 with the cycle when there
is one.
"""

import collections
import os
import re
import subprocess
import sys


def symbols(obj):
    """(defined, undefined) global symbols of an object file."""
    out = subprocess.run(['nm', obj], capture_output=True, text=True,
                         check=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in 'TDBRC':
            defined.add(parts[2])
        elif len(parts) == 2 and parts[0] == 'U':
            undefined.add(parts[1])
    return defined, undefined


def unit(obj):
    """.../weft_static.dir/src/graph/edge.c.o -> src/graph/edge"""
    m = re.search(r'\.dir/(.+?)\.c\.o$', obj)
    return m.group(1) if m else os.path.basename(obj)


def call_graph(objs):
    defs, undefs = {}, {}
    for o in objs:
        defs[unit(o)], undefs[unit(o)] = symbols(o)
    owner = {s: u for u, d in defs.items() for s in d}
    edges = collections.defaultdict(set)
    for u, und in undefs.items():
        for s in und:
            if s in owner and owner[s] != u:
                edges[u].add(owner[s])
    return edges


def include_graph(root, dirs):
    """Includes between the files of dirs, by path relative to root."""
    files = []
    for d in dirs:
        for base, _, names in os.walk(os.path.join(root, d)):
            files += [os.path.relpath(os.path.join(base, n), root)
                      for n in sorted(names) if n.endswith(('.c', '.h'))]
    edges = collections.defaultdict(set)
    for me in files:
        here = os.path.dirname(me)
        for line in open(os.path.join(root, me)):
            m = re.match(r'#include "([^"]+)"', line)
            if not m:
                continue
            # Beside the file, else below some include directory.
            near = os.path.normpath(os.path.join(here, m.group(1)))
            hits = [f for f in files
                    if f == near or f.endswith('/' + m.group(1))]
            if hits:
                edges[me].add(hits[0])
        edges.setdefault(me, set())
    return edges, set(files)


def layers(edges, keep):
    """Nodes (those keep() accepts) by layer, or (None, cycle)."""
    nodes = {n for n in edges if keep(n)}
    nodes |= {m for n in edges for m in edges[n] if keep(m)}
    level, state = {}, {}

    def visit(n, path):
        if state.get(n) == 'done':
            return None
        if state.get(n) == 'open':
            return path[path.index(n):] + [n]
        state[n] = 'open'
        depth = 0
        for m in sorted(edges.get(n, ())):
            if not keep(m):
                continue
            cycle = visit(m, path + [n])
            if cycle:
                return cycle
            depth = max(depth, level[m] + 1)
        state[n], level[n] = 'done', depth
        return None

    for n in sorted(nodes):
        cycle = visit(n, [])
        if cycle:
            return None, cycle
    by = collections.defaultdict(list)
    for n, lv in level.items():
        by[lv].append(n)
    return [sorted(by[k]) for k in sorted(by)], None


def report(title, edges, keep):
    order, cycle = layers(edges, keep)
    if cycle:
        print('%s: a cycle: %s' % (title, ' -> '.join(cycle)))
        return False
    print('%s: %d layers, no cycle' % (title, len(order)))
    for i, names in enumerate(order):
        print('  %d: %s' % (i, ' '.join(names)))
    return True


def main():
    if len(sys.argv) < 6:
        sys.exit(__doc__)
    root, name, prefix, dirs = sys.argv[1:5]
    # A CMake list may come as one argument: "a.o;b.o".
    objs = [o for arg in sys.argv[5:] for o in arg.split(';') if o]
    ok = report('%s: calls between files' % name, call_graph(objs),
                lambda n: n.startswith(prefix))
    edges, files = include_graph(root, dirs.split(','))
    ok &= report('%s: includes' % name, edges, lambda n: n in files)
    sys.exit(0 if ok else 1)


if __name__ == '__main__':
    main()
