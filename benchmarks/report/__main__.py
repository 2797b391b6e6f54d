"""`python3 -m report ...` (with benchmarks/ on the module path) runs the same subcommands as benchmarks/report.py."""

from .cli import main

main()
