"""docs/PERFORMANCE.md and its charts, rendered from the benchmarks' raw results (benchmarks/results/).

The scripts run it as `python3 benchmarks/report.py SUBCOMMAND ...` (render, machine, wait-idle, kinds; see
cli.py). The modules:

- cli.py: the subcommands; page.py: reads a results directory and writes the page, section by section;
- one module per section of the page, in its order: summary, cycle (the lock cycle on Redis and its chart),
  adapters, stores, clock, commands, tokens (owner tokens), interceptor, handoff (with handoff_charts), scale
  (one million keys), crowd, client_profile, http_throughput, server (the lock server), reading (reading the
  numbers), harness (what was measured, and how), machine, reproducing (and the versions);
- shared: fmt (numbers and tables as text), stats (ratios and their errors, confidence intervals, merged JMH
  forks, percentiles, bootstrap intervals), results (reading the results directory), host (this machine's
  facts, for `machine` and `wait-idle`), svg (the charts' drawing primitives);
- kinds.py: the table `kinds` prints for benchmarks/kinds.sh.

benchmarks/compare.py uses stats and results too. test_render.py renders the committed results and compares them
with the committed page (see its docstring for how to run it)."""
