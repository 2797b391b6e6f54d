"""The section "Commands per cycle": the Redis requests each lock sends per cycle and the commands Redis runs
inside its scripts, counted with MONITOR and INFO commandstats by CommandsPerCycle (benchmarks/results/
commands.json), for the locks of the cycle and this starter's paths that keep a result."""

from .cycle import VARIANTS
from .fmt import counted, per_cycle, titled, trim

# Variant enum name -> label: this starter's result paths, counted by CommandsPerCycle only
RESULT_PATHS = [
    ("SINGLE_FLIGHT_HOLDER", "lock-starter single-flight holder"),
    ("IDEMPOTENT_REQUEST", "lock-starter idempotent request"),
]


def section(commands, w):
    """The section, or that it was not measured."""
    if not titled(w, "Commands per cycle", commands):
        return
    w("`CommandsPerCycle` gives each variant a fresh `redis-server`, runs %d warm-up cycles (script loading and "
      "connection set-up are not counted), then %d cycles on one thread on the benchmark's keys, with a "
      "`MONITOR` connection open and after `CONFIG RESETSTAT`:" % (200, commands["cycles"]))
    w("")
    w("- *requests*: commands the `MONITOR` feed shows coming from a client connection, each one a request "
      "over the network (for a synchronous call, one round trip);")
    w("- *inside scripts*: commands the feed shows coming from `lua`, run by Redis inside a script, at no "
      "network cost;")
    w("- *commandstats total*: the sum of `INFO commandstats` calls, which counts both (the two methods agree "
      "when the total equals requests + inside scripts).")
    w("")
    w("| variant | requests per cycle | inside scripts, per cycle | commandstats total per cycle |")
    w("|---|---|---|---:|")
    cycles = commands["cycles"]
    for variant, label in [(variant, label) for _, variant, label in VARIANTS] + RESULT_PATHS:
        row = commands["variants"].get(variant)
        if row:
            w("| %s | %s | %s | %s |" % (label, counted(row["requests"], cycles), counted(row["inScripts"], cycles),
                                         trim(per_cycle(row["commandStats"], cycles))))
    w("")
    if any(variant in commands["variants"] for variant, _ in RESULT_PATHS):
        w("The last rows are this starter's paths that keep a result, with the store calls its interceptors "
          "make: a single-flight holder reads the result already kept in its acquire script and keeps its own "
          "in its release script; an idempotent request reads the kept response once it holds the lock, then "
          "keeps its response in the release script.")
        w("")
