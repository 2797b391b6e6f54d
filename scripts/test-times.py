#!/usr/bin/env python3
"""Where a test run's time went, from the Surefire and Failsafe reports it left.

Usage: scripts/test-times.py [--since EPOCH_SECONDS] [--top N] [--root DIR ...]

Prints the time of each module's tests (from its first test class's start to its last
one's end, as the report files' times tell) and the N slowest test classes, each with its
share of the whole. Reports written before --since are left out, so that a module not
built by this run does not count. Each --root is a checkout whose modules' reports count; by
default, this one. With two JVMs per module, a module's classes overlap: its wall time is then
less than the sum of its classes' times.
"""
import argparse
import glob
import os
import re
import sys

SUITE = re.compile(r"<testsuite\b[^>]*>", re.S)
ATTRIBUTE = re.compile(r'\b(name|time)="([^"]*)"')


def read_reports(root, since):
    classes = []
    # target/boot-4.0 holds the reports of a build on the oldest Spring Boot line supported
    reports = glob.glob(os.path.join(root, "*", "target", "*-reports", "TEST-*.xml"))
    reports += glob.glob(os.path.join(root, "*", "target", "*", "*-reports", "TEST-*.xml"))
    for path in reports:
        written = os.path.getmtime(path)
        if written < since:
            continue
        with open(path, encoding="utf-8", errors="replace") as report:
            match = SUITE.search(report.read(8192))
        if not match:
            continue
        attributes = dict(ATTRIBUTE.findall(match.group(0)))
        seconds = float(attributes.get("time", "0").replace(",", "") or 0)
        module = os.path.relpath(path, root).split(os.sep)[0]
        classes.append((module, attributes.get("name", path), seconds, written))
    # A class with @Nested classes has a report of its own that sums theirs: keep the nested ones
    outer = {name.split("$", 1)[0] for _, name, _, _ in classes if "$" in name}
    return [entry for entry in classes if entry[1] not in outer]


def modules(classes):
    spans = {}
    for module, _, seconds, written in classes:
        start, end, total = spans.get(module, (written - seconds, written, 0.0))
        spans[module] = (min(start, written - seconds), max(end, written), total + seconds)
    return {module: (end - start, total) for module, (start, end, total) in spans.items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--since", type=float, default=0, help="leave out reports written before (epoch seconds)")
    parser.add_argument("--top", type=int, default=20, help="how many of the slowest test classes to list")
    parser.add_argument("--root", action="append", help="a checkout whose reports count (repeatable)")
    options = parser.parse_args()
    roots = options.root or [os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")]
    classes = [entry for root in roots for entry in read_reports(os.path.abspath(root), options.since)]
    if not classes:
        print("No test reports found.")
        return 0
    per_module = modules(classes)
    whole = sum(wall for wall, _ in per_module.values()) or 1
    print("Test time per module (first class's start to last class's end; the sum of its classes' times)")
    print(f"{'module':<34} {'wall':>8} {'share':>6} {'classes':>8}")
    for module, (wall, total) in sorted(per_module.items(), key=lambda item: -item[1][0]):
        print(f"{module:<34} {wall:7.0f}s {100 * wall / whole:5.1f}% {total:7.0f}s")
    print(f"{'all modules':<34} {whole:7.0f}s")
    print()
    print(f"The {min(options.top, len(classes))} slowest test classes")
    for module, name, seconds, _ in sorted(classes, key=lambda item: -item[2])[: options.top]:
        print(f"{seconds:7.0f}s {100 * seconds / whole:5.1f}%  {module:<30} {name.rsplit('.', 1)[-1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
