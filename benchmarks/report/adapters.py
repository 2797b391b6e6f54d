"""The section "Adapters": this starter's three adapters (LeaseLock, LockOperationsLockRegistry,
LockOperationsLockProvider) beside LockTemplate, which they run on, and beside the peers they stand in for, from
the results of benchmarks/adapters.sh (benchmarks/results/adapters/: AdapterCycleBenchmarks, one JMH file per
benchmark and pass, merged; AdapterOverheadBenchmark on the in-memory store in overhead.json), and its line of
the page's summary."""

import os
import re

from . import fmt, results
from .cycle import WHAT_EACH_DOES, iterations_table, one_cycle_table
from .fmt import error, format_ratio, number, per_cycle, quote, signed, strip_markup, threads_text, trim
from .stats import merge_forks, ratio, verdict

# AdapterCycleBenchmarks: JMH method name -> (Variant enum name, label), the baseline first
ADAPTER_ROWS = [
    ("lockTemplate", "LOCK_TEMPLATE", "lock-starter `LockTemplate` (baseline)"),
    ("leaseLock", "LEASE_LOCK", "**lock-starter `LeaseLock`** (`java.util.concurrent.locks.Lock`)"),
    ("lockRegistryAdapter", "LOCK_REGISTRY_ADAPTER", "**lock-starter `LockOperationsLockRegistry`**"),
    ("springIntegration", "SPRING_INTEGRATION", "Spring Integration `RedisLockRegistry`"),
    ("lockProviderAdapter", "LOCK_PROVIDER_ADAPTER", "**lock-starter `LockOperationsLockProvider`**"),
    ("shedLock", "SHEDLOCK", "ShedLock `RedisLockProvider`"),
    ("shedLockSafeUpdate", "SHEDLOCK_SAFE_UPDATE", "ShedLock `RedisLockProvider`, `safeUpdate`"),
]


# (adapter, peer it stands in for)
ADAPTER_PEERS = [
    ("lockRegistryAdapter", "springIntegration"),
    ("lockProviderAdapter", "shedLock"),
    ("lockProviderAdapter", "shedLockSafeUpdate"),
]


ADAPTERS = ["leaseLock", "lockRegistryAdapter", "lockProviderAdapter"]


SHORT_NAMES = {
    "leaseLock": "LeaseLock",
    "lockRegistryAdapter": "LockOperationsLockRegistry",
    "lockProviderAdapter": "LockOperationsLockProvider",
    "springIntegration": "RedisLockRegistry",
    "shedLock": "RedisLockProvider",
    "shedLockSafeUpdate": "RedisLockProvider",
}


ADAPTER_CYCLES = {
    "lockTemplate": "`try (Lease lease = locks.acquire(key, Duration.ofSeconds(30))) {}`",
    "leaseLock": "`Lock lock = locks.lock(key, LockOptions.ttl(Duration.ofSeconds(30)))` for every cycle, "
    "`tryLock()`, `unlock()`",
    "lockRegistryAdapter": "`registry.obtain(key)`, `tryLock()`, `unlock()` on "
    "`new LockOperationsLockRegistry(locks, LockOptions.ttl(Duration.ofSeconds(30)))`",
    "springIntegration": WHAT_EACH_DOES["springIntegration"],
    "lockProviderAdapter": "`provider.lock(new LockConfiguration(Instant.now(), key, 30s, Duration.ZERO))`, "
    "`unlock()` on `new LockOperationsLockProvider(locks)`",
    "shedLock": WHAT_EACH_DOES["shedLock"],
    "shedLockSafeUpdate": WHAT_EACH_DOES["shedLockSafeUpdate"],
}


DIRECTORY = "adapters"
TITLE = "Adapters: Spring Integration, ShedLock and java.util.concurrent.locks.Lock"


def load(directory):
    """The results of benchmarks/adapters.sh (one JMH result file per benchmark and pass), or None when it has
    not run."""
    if not os.path.isdir(directory):
        return None
    runs = {}  # (method, threads) -> [entry of each pass]
    jmh = []
    for name in sorted(os.listdir(directory)):
        if name.startswith("jmh") and name.endswith(".json"):
            jmh.extend(results.load(directory, name) or [])
    if not jmh:
        return None
    for entry in jmh:
        parts = results.benchmark_name(entry).split(".")
        if parts[0] == "AdapterCycleBenchmarks":
            runs.setdefault((parts[-1], entry["threads"]), []).append(entry)
    rows = {key: merge_forks(entries) for key, entries in runs.items()}
    passes = max(len(entries) for entries in runs.values()) if runs else 0
    overhead = {}
    for entry in results.load(directory, "overhead.json") or []:
        overhead[entry["benchmark"].split(".")[-1]] = entry
    elapsed = results.text(directory, "elapsed-seconds.txt")
    return {
        "rows": rows,
        "overhead": overhead,
        "passes": passes,
        "threads": sorted({threads for (_, threads) in rows}),
        "first": next(iter(rows.values()), jmh[0]),
        "commands": results.load(directory, "commands.json"),
        "machine": results.load(directory, "machine.json") or {},
        "commands_run": results.commands_run(directory),
        "loadavg_end": (results.text(directory, "loadavg-end.txt") or "").split()[0:3],
        "elapsed": int(elapsed) if elapsed else None,
    }


def allocated_per_cycle(entry):
    """Bytes allocated per cycle by every thread of the JVM, from JMH's gc profiler (-prof gc), if it ran."""
    for name, metric in entry.get("secondaryMetrics", {}).items():
        if name.lstrip("\u00b7") == "gc.alloc.rate.norm":
            return metric.get("score")
    return None


def adapter_label(method):
    """The label of an adapter's or a peer's row, by its JMH method."""
    return next(label for m, _, label in ADAPTER_ROWS if m == method)


def summary(adapters):
    """The line of the page's summary, none when the adapters were not measured."""
    if not adapters:
        return []
    rows = adapters["rows"]
    parts = []
    for t in adapters["threads"]:
        base = rows.get(("lockTemplate", t))
        cells = []
        for adapter, peer in ADAPTER_PEERS:
            if rows.get((adapter, t)) and rows.get((peer, t)):
                cells.append("`%s` ÷ `%s`%s %s" % (
                    SHORT_NAMES[adapter], SHORT_NAMES[peer], ", safeUpdate," if peer == "shedLockSafeUpdate" else "",
                    format_ratio(ratio(rows[(adapter, t)]["primaryMetric"], rows[(peer, t)]["primaryMetric"]))))
        if base:
            for adapter in ADAPTERS:
                if rows.get((adapter, t)):
                    cells.append("`%s` ÷ `LockTemplate` %s" % (
                        SHORT_NAMES[adapter],
                        format_ratio(ratio(rows[(adapter, t)]["primaryMetric"], base["primaryMetric"]))))
        if cells:
            parts.append("with %s, %s" % (threads_text(t), ", ".join(cells)))
    if not parts:
        return []
    caveat = ""
    if results.busy(adapters["machine"], adapters["loadavg_end"]):
        caveat = (" The machine was busy with other work during that run, so these ratios carry wide errors and do "
                  "not decide the comparison.")
    return ["- **Adapters** (throughput ratios, in a run of their own on %s): %s.%s See "
            "[Adapters](#adapters-spring-integration-shedlock-and-javautilconcurrentlockslock)." % (
                adapters["machine"].get("date", "an unknown date"), "; ".join(parts), caveat)]


def same_machine_text(machine_info, page_machine):
    """Where the adapters' machine is described: the page's Machine table when it is the same machine."""
    fields = ("nproc", "cpu_model", "memory", "os", "java", "redis_server")
    if machine_info and all(machine_info.get(f) == page_machine.get(f) for f in fields):
        return "on the machine described [below](#machine)"
    java = re.search(r'version "([^"]+)"', " ".join(machine_info.get("java") or []))
    redis = re.search(r"v=(\S+)", machine_info.get("redis_server", ""))
    return "on a machine with %s processors (%s, %s of memory, %s, Java %s, Redis %s)" % (
        machine_info.get("nproc", "?"), machine_info.get("cpu_model", "CPU unknown"), machine_info.get("memory", "?"),
        machine_info.get("os", "OS unknown"), java.group(1) if java else "unknown", redis.group(1) if redis else "unknown")


def section(adapters, w, page_machine):
    """The section; page_machine is the page's machine.json, which the adapters' run may share."""
    if not fmt.section(w, TITLE, adapters, "there is no `benchmarks/results/%s/jmh.json` (`benchmarks/adapters.sh`)"
                       % DIRECTORY):
        return
    rows, threads, first = adapters["rows"], adapters["threads"], adapters["first"]
    machine_info, commands = adapters["machine"], adapters["commands"]
    w("The uncontended acquire + release cycle of this starter's three adapters, beside `LockTemplate`, which they "
      "run on, and beside the peers they stand in for, measured in a run of their own "
      "(`AdapterCycleBenchmarks`) by `benchmarks/adapters.sh` on %s, %s; "
      "load average %s at the start, %s at the end%s. The harness is the lock cycle's above: a fresh "
      "`redis-server` per benchmark, the same key rotation (1024 keys per thread, every lock free when taken), the "
      "same outcome accounting (*rejected*: a failed acquisition of a free key) and the same CPU counter; JMH %s, "
      "%s, `@Warmup(iterations = %d, time = %s)`, `@Measurement(iterations = %d, time = %s)`. Every "
      "adapter runs on a `LockTemplate` set up as the baseline's (`RedisLockStore` on its own "
      "`LettuceConnectionFactory`, renewal on, as by default), and every lock has a 30 s time-to-live." % (
          machine_info.get("date", "an unknown date"), same_machine_text(machine_info, page_machine),
          " ".join(machine_info.get("loadavg_start", [])) or "unknown",
          " ".join(adapters["loadavg_end"]) or "unknown",
          "; %s in all" % fmt.duration(adapters["elapsed"])
          if adapters["elapsed"] is not None else "",
          first.get("jmhVersion"),
          ("%d forks per benchmark, one in each of %d passes that take the benchmarks in opposite orders (so that a "
           "drift of the machine's load falls on every benchmark alike)" % (first.get("forks"), adapters["passes"])
           if adapters["passes"] > 1 else "`@Fork(%s)`" % first.get("forks")),
          first.get("warmupIterations"), quote(first.get("warmupTime")),
          first.get("measurementIterations"), quote(first.get("measurementTime"))))
    w("")
    busy = busy_note(machine_info, adapters["loadavg_end"])
    if busy:
        w(busy)
        w("")
    w("*÷ `LockTemplate`* is the throughput ratio to `LockTemplate` with the same thread count (1.00: the adapter "
      "costs nothing measurable; 0.90: it completes 10% fewer cycles per second), its error propagated from both "
      "scores. *CPU over `LockTemplate`* is the difference in JVM CPU time per cycle (every thread of the benchmark "
      "JVM, Redis's not included): what the adapter's own code costs, which the round trips hide from the "
      "throughput with one thread. *Bytes allocated per cycle* is JMH's `gc.alloc.rate.norm` (`-prof gc`): the "
      "heap the JVM allocated, in all its threads, per cycle.")
    w("")
    w("| variant | threads | cycles/s | error | µs per cycle | ÷ `LockTemplate` | JVM CPU µs per cycle | "
      "CPU over `LockTemplate` | bytes allocated per cycle | requests per cycle | rejected/s |")
    w("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")

    def cpu_per_cycle(entry):
        cpu = entry.get("secondaryMetrics", {}).get("cpuMicros", {}).get("score")
        return cpu / entry["primaryMetric"]["score"] if cpu is not None else None

    for t in threads:
        base = rows.get(("lockTemplate", t))
        for method, variant, label in ADAPTER_ROWS:
            entry = rows.get((method, t))
            if not entry:
                continue
            metric = entry["primaryMetric"]
            rejected = entry.get("secondaryMetrics", {}).get("rejected", {}).get("score")
            cpu = cpu_per_cycle(entry)
            base_cpu = cpu_per_cycle(base) if base else None
            requests = "n/a"
            if commands and variant in commands["variants"]:
                requests = trim(per_cycle(commands["variants"][variant]["requests"], commands["cycles"]))
            allocated = allocated_per_cycle(entry)
            w("| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                label, t, number(metric["score"]), error(metric), number(t * 1e6 / metric["score"], 1),
                "—" if method == "lockTemplate" else (format_ratio(ratio(metric, base["primaryMetric"])) if base
                                                      else "n/a"),
                number(cpu, 1),
                "—" if method == "lockTemplate" else (signed(cpu - base_cpu, 1) if cpu is not None and base_cpu
                                                      is not None else "n/a"),
                number(allocated) if allocated is not None else "n/a",
                requests, number(rejected, 0) if rejected is not None else "n/a"))
    w("")
    w("Each adapter against the peer it stands in for (throughput ÷ throughput, same thread count: above 1.00 the "
      "adapter completes more cycles per second):")
    w("")
    w("| adapter ÷ peer | " + " | ".join(threads_text(t) for t in threads) + " |")
    w("|---|" + "---:|" * len(threads))
    for adapter, peer in ADAPTER_PEERS:
        cells = []
        for t in threads:
            if rows.get((adapter, t)) and rows.get((peer, t)):
                value, err = ratio(rows[(adapter, t)]["primaryMetric"], rows[(peer, t)]["primaryMetric"])
                cells.append("%s (%s)" % (format_ratio((value, err)), verdict(value, err)))
            else:
                cells.append("n/a")
        w("| %s ÷ %s | %s |" % (strip_markup(adapter_label(adapter)), strip_markup(adapter_label(peer)),
                                " | ".join(cells)))
    w("")
    iterations_table(rows, threads, ADAPTER_ROWS, w)
    one_cycle_table(ADAPTER_ROWS, ADAPTER_CYCLES, w)
    if commands:
        w("Redis commands per cycle (`CommandsPerCycle`, as in [Commands per cycle](#commands-per-cycle), in this "
          "run):")
        w("")
        w("| variant | requests per cycle | inside scripts, per cycle |")
        w("|---|---|---|")
        for method, variant, label in ADAPTER_ROWS:
            counted = commands["variants"].get(variant)
            if counted:
                w("| %s | %s | %s |" % (label, fmt.counted(counted["requests"], commands["cycles"]),
                                        fmt.counted(counted["inScripts"], commands["cycles"])))
        w("")
    w(READING)
    w("")
    own_cost(adapters["overhead"], w)
    if adapters["commands_run"]:
        w("The commands `benchmarks/adapters.sh` ran:")
        w("")
        fmt.code_block(w, adapters["commands_run"] + [fmt.RENDER_COMMAND], "bash")


def busy_note(machine_info, loadavg_end):
    """A warning when the machine was busy with other work while the adapters were measured."""
    if not results.busy(machine_info, loadavg_end):
        return None
    return ("**This run was made on a busy machine**: a load average of %s at the start and %s at the end on %d "
            "processors, other processes' builds and tests taking most of the CPU. Redis, the client's threads and the "
            "benchmark's waited for a core in turn, so the throughput figures below carry errors of tens of percent, "
            "and a throughput ratio within its error decides nothing: it says neither that an adapter is as fast as "
            "its peer nor that it is slower. The allocation per cycle does not depend on the load, and the CPU time "
            "per cycle on the [in-memory store](#what-the-adapters-own-code-costs) little; the throughput comparison "
            "needs `benchmarks/adapters.sh` again on an idle machine." % (
                machine_info["loadavg_start"][0], loadavg_end[0], int(machine_info["nproc"])))


def own_cost(overhead, w):
    """The adapters' own cost: AdapterOverheadBenchmark, on the in-memory store."""
    base = overhead.get("lockTemplate")
    if not base:
        return
    w("### What the adapters' own code costs")
    w("")
    w("`AdapterOverheadBenchmark`: the same cycles on this starter's in-memory store (`new LockTemplate(new "
      "InMemoryLockStore())`, renewal on), one thread, JMH's average time per cycle (`@Fork(%s)`, `@Warmup(iterations "
      "= %d, time = %s)`, `@Measurement(iterations = %d, time = %s)`), in the same run. Without Redis the whole cycle "
      "runs on the benchmark's thread, so that thread's CPU time per cycle (`ThreadMXBean`, read every 256 cycles) is "
      "what the code costs; on a busy machine the time per cycle also counts the waits for a core, and the CPU time "
      "does not. *Over `LockTemplate`* is the adapter's cost on top of the template's: its own code." % (
          base.get("forks"), base.get("warmupIterations"), quote(base.get("warmupTime")),
          base.get("measurementIterations"), quote(base.get("measurementTime"))))
    w("")
    w("| cycle | ns per cycle | error | CPU ns per cycle | CPU over `LockTemplate` | CPU ÷ `LockTemplate` | "
      "bytes allocated per cycle | bytes over `LockTemplate` | rejected |")
    w("|---|---:|---:|---:|---:|---:|---:|---:|---:|")

    def cpu(entry):
        metrics = entry.get("secondaryMetrics", {})
        cycles = metrics.get("cpuCycles", {}).get("score")
        return metrics["cpuNanos"]["score"] / cycles if cycles else None

    base_cpu, base_bytes = cpu(base), allocated_per_cycle(base)
    for method, _, label in ADAPTER_ROWS:
        entry = overhead.get(method)
        if not entry:
            continue
        metric, own, allocated = entry["primaryMetric"], cpu(entry), allocated_per_cycle(entry)
        rejected = entry.get("secondaryMetrics", {}).get("rejected", {}).get("score")
        is_base = method == "lockTemplate"
        w("| %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            label, number(metric["score"]), error(metric), number(own),
            "—" if is_base else (signed(own - base_cpu) if own is not None and base_cpu else "n/a"),
            "—" if is_base else ("%.2f" % (own / base_cpu) if own is not None and base_cpu else "n/a"),
            number(allocated) if allocated is not None else "n/a",
            "—" if is_base else (signed(allocated - base_bytes) if allocated is not None and base_bytes is not None
                                 else "n/a"),
            number(rejected) if rejected is not None else "n/a"))
    w("")
    extra = [cpu(overhead[m]) - base_cpu for m in ADAPTERS if overhead.get(m) and cpu(overhead[m]) is not None]
    if extra and base_cpu:
        w("So each adapter's own code costs %s to %s ns of CPU per cycle on top of `LockTemplate`'s %s ns: for "
          "`LeaseLock` and the registry, the local `ReentrantLock` taken and released, its owner and hold count "
          "checked and the copies of the options (and for the registry, the map lookup and the `System.nanoTime()` "
          "stamp instead of a new lock object); for the provider, the options built from the `LockConfiguration` "
          "(two clock reads among them) and the `SimpleLock` handle. A cycle on Redis costs the JVM tens of "
          "microseconds of CPU (the *JVM CPU µs per cycle* column above), so this is about 1%% of it or less, and "
          "it adds no request to Redis." % (
              number(min(extra)), number(max(extra)), number(base_cpu)))
        w("")


READING = """\
**What each adapter adds to `LockTemplate`.** All three take and release the lock through `LockTemplate`, with
the same two requests as the baseline (a `SET NX PX`, an `EVALSHA` of the compare-and-delete script; see the
commands above) and the same reply spin, so what differs is client-side work on the caller's thread:

- `LeaseLock`: `locks.lock(key, options)` makes a new lock object on every call (as measured here, once per
  cycle: the object, its local `ReentrantLock` and a copy of the options); `tryLock()` takes the local lock,
  then the store's lock through `LockOperations.tryAcquire` with the options' time-to-live and no wait (two
  more copies of the options); `unlock()` checks the local lock's owner and hold count, releases the lease, then
  the local lock.
- `LockOperationsLockRegistry`: the same `LeaseLock` path, except that `obtain(key)` finds the key's lock in a
  `ConcurrentHashMap` (made on the first `obtain` and kept, since the 8,192 keys of the benchmark are below the
  registry's capacity of 100,000) and stamps it with `System.nanoTime()` (a volatile write), instead of making
  one.
- `LockOperationsLockProvider`: turns the `LockConfiguration` into `LockOptions` (`lockAtMostFor` left from
  now as the time-to-live, no renewal, `lockAtLeastFor` as the minimum hold, the lock's name), takes the lock
  with `tryAcquire` and wraps the lease in a ShedLock `SimpleLock`, whose `unlock()` releases it.

The peers' own costs are described in [Reading the numbers](#reading-the-numbers): `RedisLockRegistry` takes a
registry-wide lock in `obtain()` and a striped local lock, parks on every answer, and hands each delete to
another thread; ShedLock's default `RedisLockProvider` releases with a plain `DEL` (no owner check, no script),
and with `safeUpdate` with a compare-and-delete script, as the adapter does."""
