#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The flow graph's files form layers: check that its includes and its
cross-file calls have no cycle.

    python3 scripts/layers.py SRC_DIR OBJECT...

SRC_DIR is the repository's src/; the objects are the library's (the
build's weft_static objects, as ctest passes them).  A file of src/graph
may call a function of another only if that one does not call it back,
directly or through others: the calls, read from the objects' symbol
tables (nm), and the #include lines of src/graph and src/internal/graph
must each form a DAG.  Prints the layers, lowest first, and exits 1 with
the cycle when there is one.
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
    """src/graph/edge.c.o -> graph/edge"""
    m = re.search(r'src/(.+?)\.c\.o$', obj)
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


def include_graph(src):
    edges = collections.defaultdict(set)
    for folder in ('graph', 'internal/graph'):
        d = os.path.join(src, folder)
        for name in sorted(os.listdir(d)):
            path = os.path.join(d, name)
            me = os.path.relpath(path, src)
            for line in open(path):
                m = re.match(r'#include "([^"]+)"', line)
                if m:
                    edges[me].add(m.group(1))
    return edges


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
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    src = sys.argv[1]
    # A CMake list may come as one argument: "a.o;b.o".
    objs = [o for arg in sys.argv[2:] for o in arg.split(';') if o]
    ok = report('calls between src/graph files', call_graph(objs),
                lambda n: n.startswith('graph/'))
    ok &= report('includes of src/graph and src/internal/graph',
                 include_graph(src),
                 lambda n: 'graph/' in n)
    sys.exit(0 if ok else 1)


if __name__ == '__main__':
    main()
