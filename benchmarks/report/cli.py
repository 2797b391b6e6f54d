"""Writes docs/PERFORMANCE.md from the raw results of benchmarks/run.sh.

    report.py machine                      print a JSON description of this machine (stdout)
    report.py wait-idle SECONDS            wait until the CPUs are mostly idle, at most SECONDS
    report.py render RESULTS_DIR OUT.md    write the Markdown report from RESULTS_DIR/*.json
    report.py kinds KINDS_DIR              print the table of the lock kinds' cycles (benchmarks/kinds.sh)

Every number in the report comes from the files in RESULTS_DIR: jmh.json (JMH's JSON output),
commands.json (CommandsPerCycle), handoff.json and handoff-warm.json (HandoffLatency, the second after a
quick warm-up, optional), scale.json (MillionKeys, optional),
http.json (benchmarks/http/run.sh), server-cycle.json and server-handoff.json (lock-server/load/run.sh and
handoff.sh, optional; see report/server.py) and machine.json; the adapters' section from RESULTS_DIR/adapters/
(benchmarks/adapters.sh, optional), and the section of the stores that keep a lock across a failover from
RESULTS_DIR/stores/ (benchmarks/stores.sh, optional; see report/stores.py), and the section of the stores whose
expiry no wall clock decides from RESULTS_DIR/clock/ (benchmarks/clock.sh, optional; see report/clock.py). The charts are written as SVG files into a
"performance" folder next to OUT.md, and linked from it.
"""

import argparse
import json
import sys

from . import host, kinds, page


def main():
    """Parse the command line and run its subcommand."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("machine")
    idle_parser = sub.add_parser("wait-idle")
    idle_parser.add_argument("seconds", type=int)
    render_parser = sub.add_parser("render")
    render_parser.add_argument("results")
    render_parser.add_argument("output")
    render_parser.add_argument("--elapsed", type=int, default=None, help="seconds the whole run took")
    kinds_parser = sub.add_parser("kinds")
    kinds_parser.add_argument("directory")
    args = parser.parse_args()
    if args.command == "machine":
        json.dump(host.machine(), sys.stdout, indent=2)
        print()
    elif args.command == "wait-idle":
        host.wait_idle(args.seconds)
    elif args.command == "kinds":
        kinds.table(args.directory, print)
    else:
        page.render(args.results, args.output, args.elapsed)
