#!/usr/bin/env python3
"""Writes docs/PERFORMANCE.md from the raw results of benchmarks/run.sh: the scripts' entry point to the package
benchmarks/report/ (`report.py --help` lists the subcommands; report/__init__.py describes the modules).

Python finds the package, not this file, when it imports `report`: a directory with an __init__.py comes before
a module of the same name on the same path."""

from report.cli import main

if __name__ == "__main__":
    main()
