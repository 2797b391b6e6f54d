#!/usr/bin/env python3
"""Count the references between the types of a package that run back up.

A type refers to another of the same package when its source, without comments and
string literals, names it. A reference runs back up when the type it names also reaches
the referring type, directly or through others: both are then in one cycle. The script
prints, for each package directory given, the number of such references and each of
them, and the pairs of types that name each other.

    scripts/type-cycles.py lock-core/src/main/java/dev/lockstarter/core
"""
import itertools
import os
import re
import sys


def types_of(directory):
    sources = {}
    for name in sorted(os.listdir(directory)):
        if name.endswith('.java') and name != 'package-info.java':
            with open(os.path.join(directory, name), encoding='utf-8') as file:
                source = file.read()
            source = re.sub(r'/\*.*?\*/', '', source, flags=re.S)
            source = re.sub(r'//.*', '', source)
            source = re.sub(r'"(?:[^"\\]|\\.)*"', '""', source)
            sources[name[:-5]] = source
    return {a: {b for b in sources if b != a and re.search(r'\b' + b + r'\b', sources[a])} for a in sources}


def reachable(graph, start):
    seen, pending = set(), [start]
    while pending:
        for named in graph[pending.pop()]:
            if named not in seen:
                seen.add(named)
                pending.append(named)
    return seen


def main(directories):
    for directory in directories:
        graph = types_of(directory)
        reach = {name: reachable(graph, name) for name in graph}
        back = [(a, b) for a in sorted(graph) for b in sorted(graph[a]) if a in reach[b]]
        pairs = [(a, b) for a, b in itertools.combinations(sorted(graph), 2) if b in graph[a] and a in graph[b]]
        print(f'{directory}: {len(back)} references in cycles, {len(pairs)} pairs naming each other')
        for a, b in back:
            print(f'  {a} -> {b}')
        for a, b in pairs:
            print(f'  pair: {a} <-> {b}')


if __name__ == '__main__':
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
