"""The table that `report.py kinds KINDS_DIR` prints for benchmarks/kinds.sh: each kind of lock's cycle (a permit
of a semaphore, a read lock) on this starter beside the peer's, merged over the passes (SharedLockCycleBenchmarks,
one JMH file per benchmark and pass)."""

from . import fmt, results
from .stats import merge_forks

# SharedLockCycleBenchmarks: (kind, this starter's method, the peer's method, the peer)
KIND_ROWS = [
    ("permit (1 of 3)", "permitLockTemplate", "permitRedisson", "Redisson `RPermitExpirableSemaphore`"),
    ("read lock", "readLockTemplate", "readLockRedisson", "Redisson `RReadWriteLock`"),
]


def table(directory, w):
    """The table of benchmarks/kinds.sh's results: each kind's cycle beside the peer's, merged over passes."""
    runs = results.jmh_passes(directory)
    rows = {method: merge_forks(entries) for method, entries in runs.items()}
    machine_info = results.load(directory, "machine.json") or {}
    loadavg = results.text(directory, "loadavg-end.txt").split()[0:3]
    w("Measured by `benchmarks/kinds.sh` on %s (%s forks per benchmark; load average %s at the start, %s at "
      "the end):" % (machine_info.get("date", "an unknown date"), max(len(e) for e in runs.values()),
                     " ".join(machine_info.get("loadavg_start", [])) or "unknown", " ".join(loadavg)))
    w("")
    w("| cycle on one Redis | this starter (ops/s) | peer | peer (ops/s) | this starter ÷ peer |")
    w("|---|---:|---|---:|---:|")
    for label, ours, theirs, peer in KIND_ROWS:
        if ours not in rows or theirs not in rows:
            continue
        w(fmt.peer_row(label, rows[ours]["primaryMetric"], peer, rows[theirs]["primaryMetric"]))
