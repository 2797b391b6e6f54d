#!/usr/bin/env python3
"""Writes docs/PERFORMANCE.md from the raw results of benchmarks/run.sh.

    report.py machine                      print a JSON description of this machine (stdout)
    report.py wait-idle SECONDS            wait until the CPUs are mostly idle, at most SECONDS
    report.py render RESULTS_DIR OUT.md    write the Markdown report from RESULTS_DIR/*.json
    report.py kinds KINDS_DIR              print the table of the lock kinds' cycles (benchmarks/kinds.sh)

Every number in the report comes from the files in RESULTS_DIR: jmh.json (JMH's JSON output),
commands.json (CommandsPerCycle), handoff.json and handoff-warm.json (HandoffLatency, the second after a
quick warm-up, optional), scale.json (MillionKeys, optional),
http.json (benchmarks/http/run.sh), server-cycle.json and server-handoff.json (lock-server/load/run.sh and
handoff.sh, optional; see report_server.py) and machine.json; the adapters' section from RESULTS_DIR/adapters/
(benchmarks/adapters.sh, optional), and the section of the stores that keep a lock across a failover from
RESULTS_DIR/stores/ (benchmarks/stores.sh, optional; see report_stores.py), and the section of the stores whose
expiry no wall clock decides from RESULTS_DIR/clock/ (benchmarks/clock.sh, optional; see report_clock.py). The charts are written as SVG files into a
"performance" folder next to OUT.md, and linked from it.
"""

import argparse
import datetime
import json
import math
import os
import platform
import random
import re
import statistics
import subprocess
import sys

import report_clock
import report_server
import report_stores

this = sys.modules[__name__]

PACKAGE = "dev.lockstarter.benchmarks."

# JMH method name -> (Variant enum name, label in the tables)
VARIANTS = [
    ("rawLettuce", "RAW_LETTUCE", "raw Lettuce floor"),
    ("lockTemplate", "LOCK_TEMPLATE", "**lock-starter `LockTemplate`**"),
    ("lockTemplateParking", "LOCK_TEMPLATE_PARKING", "lock-starter `LockTemplate`, reply spin 0 (parks at once)"),
    ("redisson", "REDISSON", "Redisson `RLock`"),
    ("springIntegration", "SPRING_INTEGRATION", "Spring Integration `RedisLockRegistry`"),
    ("shedLock", "SHEDLOCK", "ShedLock `RedisLockProvider`"),
    ("shedLockSafeUpdate", "SHEDLOCK_SAFE_UPDATE", "ShedLock `RedisLockProvider`, `safeUpdate`"),
]

# Variant enum name -> label: this starter's result paths, counted by CommandsPerCycle only
RESULT_PATHS = [
    ("SINGLE_FLIGHT_HOLDER", "lock-starter single-flight holder"),
    ("IDEMPOTENT_REQUEST", "lock-starter idempotent request"),
]

WHAT_EACH_DOES = {
    "rawLettuce": "`SET key token NX PX 30000`, then `EVALSHA` of a compare-and-delete script, on a plain "
    "Lettuce `RedisCommands` (one shared connection); token: 128 bits from `ThreadLocalRandom`",
    "lockTemplate": "`try (Lease lease = locks.acquire(key, Duration.ofSeconds(30))) {}` on "
    "`new LockTemplate(new RedisLockStore(connectionFactory))`",
    "lockTemplateParking": "the same with `store.setReplySpin(Duration.ZERO)`: the caller parks at once on each "
    "answer, as the other clients do",
    "redisson": "`redisson.getLock(key)`, `tryLock(0, 30000, MILLISECONDS)`, `unlock()`; `Redisson.create(config)` "
    "with `useSingleServer()` defaults",
    "springIntegration": "`registry.obtain(key)`, `tryLock()`, `unlock()` on `new RedisLockRegistry(connectionFactory, "
    "\"bench-registry\", Duration.ofSeconds(30))` with `setCacheCapacity(8192)`",
    "shedLock": "`provider.lock(new LockConfiguration(Instant.now(), key, 30s, Duration.ZERO))`, `unlock()` on "
    "`new RedisLockProvider(connectionFactory)`",
    "shedLockSafeUpdate": "the same on `new RedisLockProvider.Builder(connectionFactory).safeUpdate(true).build()`",
}

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

INTERCEPTOR = [
    ("plainMethod", "plain method, bean not proxied (baseline)"),
    ("unannotatedMethodOnProxy", "unannotated method of a proxied bean (CGLIB proxy only)"),
    ("exclusiveRequest", "**`@ExclusiveRequest(key = \"#userName\")` method**"),
    ("lockTemplateOnly", "`try (Lease l = locks.acquire(\"user-registration:\" + name, ttl)) {}`, no proxy"),
]


def main():
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
        json.dump(machine(), sys.stdout, indent=2)
        print()
    elif args.command == "wait-idle":
        wait_idle(args.seconds)
    elif args.command == "kinds":
        kinds_table(args.directory, print)
    else:
        render(args.results, args.output, args.elapsed)


def command_output(*command):
    try:
        return subprocess.run(command, capture_output=True, text=True, timeout=30).stdout.strip() or \
            subprocess.run(command, capture_output=True, text=True, timeout=30).stderr.strip()
    except (OSError, subprocess.SubprocessError) as ex:
        return "unknown (%s)" % ex


def machine():
    cpu_model = "unknown"
    with open("/proc/cpuinfo") as cpuinfo:
        for line in cpuinfo:
            if line.startswith("model name"):
                cpu_model = line.split(":", 1)[1].strip()
                break
    memory = "unknown"
    with open("/proc/meminfo") as meminfo:
        for line in meminfo:
            if line.startswith("MemTotal"):
                memory = "%.1f GiB" % (int(line.split()[1]) / 1024 / 1024)
                break
    java = command_output("java", "-version")
    return {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "nproc": command_output("nproc"),
        "cpu_model": cpu_model,
        "memory": memory,
        "os": "%s %s" % (platform.system(), platform.release()),
        "java": java.splitlines()[0:3],
        "redis_server": command_output("redis-server", "--version"),
        "loadavg_start": open("/proc/loadavg").read().split()[0:3],
    }


def cpu_times():
    with open("/proc/stat") as stat:
        fields = [int(value) for value in stat.readline().split()[1:]]
    return fields[3] + fields[4], sum(fields)  # idle + iowait, total


def wait_idle(seconds, threshold=0.8, interval=2.0):
    """Wait until the CPUs were at least 80% idle over an interval, for at most the given time.

    Other processes on a shared machine (builds, tests) disturb a benchmark; starting while they run
    makes it worse. This only avoids starting in the middle of such a burst."""
    import time
    deadline = time.monotonic() + seconds
    while True:
        idle_before, total_before = cpu_times()
        time.sleep(interval)
        idle_after, total_after = cpu_times()
        idle = (idle_after - idle_before) / max(1, total_after - total_before)
        if idle >= threshold:
            print("CPUs %.0f%% idle: starting" % (100 * idle))
            return
        if time.monotonic() >= deadline:
            print("CPUs only %.0f%% idle after waiting %d s: starting anyway" % (100 * idle, seconds))
            return
        print("CPUs %.0f%% idle (other processes are busy): waiting ..." % (100 * idle))


def load(results, name):
    path = os.path.join(results, name)
    if not os.path.exists(path):
        return None
    with open(path) as file:
        return json.load(file)


def number(value, digits=0):
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    return "{:,.{}f}".format(value, digits)


def error(metric, digits=0):
    value = metric.get("scoreError")
    if value is None or value == "NaN" or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    return "± " + number(value, digits)


def ratio(a, b):
    """Ratio a/b with its error, from the relative errors of a and b (first order)."""
    value = a["score"] / b["score"]
    errors = []
    for metric in (a, b):
        err = metric.get("scoreError")
        if err is None or err == "NaN" or (isinstance(err, float) and math.isnan(err)):
            return value, None
        errors.append(err / metric["score"])
    return value, value * math.sqrt(errors[0] ** 2 + errors[1] ** 2)


def format_ratio(pair):
    value, err = pair
    return ("%.2f" % value) + ((" ± %.2f" % err) if err is not None else "")


def per_cycle(counts, cycles):
    return sum(counts.values()) / cycles


def breakdown(counts, cycles):
    if not counts:
        return "none"
    return ", ".join("%s %s" % (name.upper(), trim(count / cycles)) for name, count in
                     sorted(counts.items(), key=lambda item: (-item[1], item[0])))


def trim(value):
    text = "%.2f" % value
    return text.rstrip("0").rstrip(".") if "." in text else text


def render(results, output, elapsed):
    jmh = load(results, "jmh.json") or []
    commands = load(results, "commands.json")
    http = load(results, "http.json")
    handoff = load(results, "handoff.json")
    warm_handoff = load(results, "handoff-warm.json")
    scale = load(results, "scale.json")
    crowd = load(results, "crowd.json")
    profile = load(results, "profile.json")
    server = report_server.load(results, this)
    adapters = load_adapters(os.path.join(results, ADAPTERS_DIR))
    charts = os.path.join(os.path.dirname(os.path.abspath(output)), CHART_DIR)
    machine_info = load(results, "machine.json") or {}
    commands_run = []
    commands_path = os.path.join(results, "commands-run.txt")
    if os.path.exists(commands_path):
        commands_run = [line.strip() for line in open(commands_path) if line.strip()]
    loadavg_end_path = os.path.join(results, "loadavg-end.txt")
    loadavg_end = open(loadavg_end_path if os.path.exists(loadavg_end_path) else "/proc/loadavg").read().split()[0:3]
    elapsed_path = os.path.join(results, "elapsed-seconds.txt")
    if elapsed is None and os.path.exists(elapsed_path):
        elapsed = int(open(elapsed_path).read().strip())
    loadavg_jmh = None
    loadavg_path = os.path.join(results, "loadavg-after-jmh.txt")
    if os.path.exists(loadavg_path):
        loadavg_jmh = open(loadavg_path).read().split()[0:3]

    cycle = {}  # (method, threads) -> entry
    interceptor = {}
    tokens = {}  # (alternative or "ownerTokens", threads) -> entry
    for entry in jmh:
        name = entry["benchmark"][len(PACKAGE):] if entry["benchmark"].startswith(PACKAGE) else entry["benchmark"]
        parts = name.split(".")
        if parts[0] == "LockCycleBenchmarks":
            cycle[(parts[-1], entry["threads"])] = entry
        elif parts[0] == "InterceptorBenchmark":
            interceptor[parts[-1]] = entry
        elif "OwnerTokenBenchmark" in parts:
            label = (entry.get("params") or {}).get("alternative") or parts[-1]
            tokens[(label, entry["threads"])] = entry
    first = jmh[0] if jmh else {}
    thread_counts = sorted({threads for (_, threads) in cycle})

    out = []
    w = out.append
    w("# Performance")
    w("")
    w("<!-- Generated by benchmarks/report.py from benchmarks/results/*.json: edit the generator, not this file. -->")
    w("")
    w("Measured by `benchmarks/run.sh` on %s, on the machine described [below](#machine). Every number on this "
      "page comes from that run's JSON files in `benchmarks/results/` (JMH's `-rf json` output, the Redis command "
      "counts and the wrk summaries), turned into Markdown by `benchmarks/report.py`. They are the numbers of one "
      "2-core machine that other processes were also using, not universal constants: compare the rows with each "
      "other, and look at the error bars." % machine_info.get("date", "an unknown date"))
    w("")

    # Summary
    raw = {t: cycle.get(("rawLettuce", t)) for t in thread_counts}
    ours = {t: cycle.get(("lockTemplate", t)) for t in thread_counts}
    if jmh and all(raw.values()) and all(ours.values()):
        w("## Summary")
        w("")
        for t in thread_counts:
            r, o = raw[t]["primaryMetric"], ours[t]["primaryMetric"]
            of_floor, of_floor_err = ratio(o, r)
            line = ("- **%d thread%s**: an uncontended acquire + release cycle of this starter's `LockTemplate` runs "
                    "at %s cycles/s, **%.0f%%%s of the raw Lettuce floor** (%s cycles/s, the same two round trips "
                    "written by hand)" % (t, "" if t == 1 else "s", number(o["score"]), 100 * of_floor,
                                          " ± %.0f%%" % (100 * of_floor_err) if of_floor_err is not None else "",
                                          number(r["score"])))
            peers = []
            for method, _, label in VARIANTS[2:]:
                peer = cycle.get((method, t))
                if method == "lockTemplateParking":
                    if peer:
                        line += "; with the reply spin off, %s of the floor" % format_ratio(
                            ratio(peer["primaryMetric"], r))
                elif peer:
                    value, err = ratio(o, peer["primaryMetric"])
                    peers.append("%.2f× (± %.2f) %s" % (value, err, strip_markup(label)) if err is not None
                                 else "%.2f× %s" % (value, strip_markup(label)))
            w(line + ("; against the peers (ours ÷ theirs), " + ", ".join(peers) + "." if peers else "."))
            within = []
            for method, _, label in VARIANTS[1:]:
                entry = cycle.get((method, t))
                if entry:
                    value, err = ratio(entry["primaryMetric"], r)
                    within.append(err is not None and abs(value - 1) <= err)
            if within and all(within):
                w("  With %d thread%s no variant differs from the floor by more than the error bars." % (
                    t, "" if t == 1 else "s"))
        if commands:
            lt = commands["variants"].get("LOCK_TEMPLATE")
            rl = commands["variants"].get("RAW_LETTUCE")
            if lt and rl:
                w("- **Round trips**: counted with `MONITOR` and `INFO commandstats`, one cycle of ours sends %s "
                  "requests to Redis (%s), like the floor's %s (%s); inside its scripts Redis runs %s commands per "
                  "cycle against the floor's %s." % (
                      trim(per_cycle(lt["requests"], commands["cycles"])), breakdown(lt["requests"], commands["cycles"]),
                      trim(per_cycle(rl["requests"], commands["cycles"])), breakdown(rl["requests"], commands["cycles"]),
                      trim(per_cycle(lt["inScripts"], commands["cycles"])),
                      trim(per_cycle(rl["inScripts"], commands["cycles"]))))
        for line in adapters_summary(adapters):
            w(line)
        if "plainMethod" in interceptor and "exclusiveRequest" in interceptor:
            plain = interceptor["plainMethod"]["primaryMetric"]["score"]
            locked = interceptor["exclusiveRequest"]["primaryMetric"]["score"]
            w("- **Interceptor**: an `@ExclusiveRequest` method on the in-memory store costs %s ns per call against "
              "%s ns for the same method unannotated: %s ns for the proxy, the SpEL key, the owner token and the "
              "in-memory acquire + release." % (number(locked), number(plain, 1), number(locked - plain)))
        for line in scale_summary(scale) + crowd_summary(crowd) + report_server.summary(server, this):
            w(line)
        w("")

    # Lock cycle table
    w("## Uncontended acquire + release cycle on Redis")
    w("")
    if not cycle:
        w("No lock-cycle results in this run.")
        w("")
    else:
        w("Throughput of the whole cycle (acquire a free lock, release it), as JMH measured it: score and error are "
          "JMH's (the error is the half-width of the 99.9% confidence interval over the measurement iterations of every fork). "
          "*µs per cycle* is the mean time one thread spends on a cycle (threads / throughput). *vs floor* is the "
          "throughput ratio to the raw Lettuce floor with the same thread count (1.00 = as fast as the floor), its "
          "error propagated from both scores. *Requests* and *commands* per cycle are counted separately, on one "
          "thread (see [Commands per cycle](#commands-per-cycle)). *Rejected* counts acquisitions that failed although "
          "the key was free (it should be 0). *JVM CPU µs per cycle* is the benchmark JVM's CPU time (every thread of the "
          "process, Redis's not included) divided by its cycles.")
        w("")
        w("| variant | threads | cycles/s | error | µs per cycle | vs floor | JVM CPU µs per cycle | "
          "requests per cycle | commands executed per cycle | rejected/s |")
        w("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for t in thread_counts:
            for method, variant, label in VARIANTS:
                entry = cycle.get((method, t))
                if not entry:
                    continue
                metric = entry["primaryMetric"]
                rejected = entry.get("secondaryMetrics", {}).get("rejected", {}).get("score")
                cpu = entry.get("secondaryMetrics", {}).get("cpuMicros", {}).get("score")
                vs = format_ratio(ratio(metric, raw[t]["primaryMetric"])) if raw.get(t) else "n/a"
                requests = executed = "n/a"
                if commands and variant in commands["variants"]:
                    counted = commands["variants"][variant]
                    requests = trim(per_cycle(counted["requests"], commands["cycles"]))
                    executed = trim(per_cycle(counted["commandStats"], commands["cycles"]))
                w("| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                    label, t, number(metric["score"]), error(metric), number(t * 1e6 / metric["score"], 1), vs,
                    number(cpu / metric["score"], 1) if cpu is not None else "n/a",
                    requests, executed, number(rejected, 0) if rejected is not None else "n/a"))
        w("")
        chart = cycle_ratio_chart(cycle, thread_counts)
        if chart:
            write_chart(charts, "cycle-throughput.svg", chart)
            w("![Throughput of each lock's uncontended cycle divided by the raw Lettuce floor's, with 1 and 8 threads]"
              "(%s/cycle-throughput.svg)" % CHART_DIR)
        else:
            remove_chart(charts, "cycle-throughput.svg")
            w("*(No chart: the raw Lettuce floor is missing from this run, so there is no ratio to draw.)*")
        w("")
        w("Each iteration's score, to show the spread (cycles/s):")
        w("")
        w("| variant | threads | iterations |")
        w("|---|---:|---|")
        for t in thread_counts:
            for method, _, label in VARIANTS:
                entry = cycle.get((method, t))
                if entry:
                    iterations = [value for fork in entry["primaryMetric"]["rawData"] for value in fork]
                    w("| %s | %d | %s |" % (label, t, ", ".join(number(v) for v in iterations)))
        w("")

        # Ours vs peers
        w("### This starter against each peer")
        w("")
        w("Throughput of `LockTemplate` divided by the peer's, same thread count: above 1.00 ours completes more "
          "cycles per second.")
        w("")
        header = "| ours ÷ | " + " | ".join("%d thread%s" % (t, "" if t == 1 else "s") for t in thread_counts) + " |"
        w(header)
        w("|---|" + "---:|" * len(thread_counts))
        for method, _, label in VARIANTS:
            if method == "lockTemplate":
                continue
            cells = []
            for t in thread_counts:
                peer = cycle.get((method, t))
                cells.append(format_ratio(ratio(ours[t]["primaryMetric"], peer["primaryMetric"]))
                             if peer and ours.get(t) else "n/a")
            w("| %s | %s |" % (label, " | ".join(cells)))
        w("")

    adapters_section(adapters, w, machine_info)
    report_stores.section(report_stores.load(os.path.join(results, report_stores.DIRECTORY), this), w, this)
    report_clock.section(report_clock.load(os.path.join(results, report_clock.DIRECTORY), this), w, this)

    # Commands per cycle
    w("## Commands per cycle")
    w("")
    if not commands:
        w("Not measured in this run.")
        w("")
    else:
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
        for method, variant, label in VARIANTS:
            counted = commands["variants"].get(variant)
            if not counted:
                continue
            w("| %s | %s: %s | %s: %s | %s |" % (
                label, trim(per_cycle(counted["requests"], cycles)), breakdown(counted["requests"], cycles),
                trim(per_cycle(counted["inScripts"], cycles)), breakdown(counted["inScripts"], cycles),
                trim(per_cycle(counted["commandStats"], cycles))))
        for variant, label in RESULT_PATHS:
            counted = commands["variants"].get(variant)
            if counted:
                w("| %s | %s: %s | %s: %s | %s |" % (
                    label, trim(per_cycle(counted["requests"], cycles)), breakdown(counted["requests"], cycles),
                    trim(per_cycle(counted["inScripts"], cycles)), breakdown(counted["inScripts"], cycles),
                    trim(per_cycle(counted["commandStats"], cycles))))
        w("")
        if any(variant in commands["variants"] for variant, _ in RESULT_PATHS):
            w("The last rows are this starter's paths that keep a result, with the store calls its interceptors "
              "make: a single-flight holder reads the result already kept in its acquire script and keeps its own "
              "in its release script; an idempotent request reads the kept response once it holds the lock, then "
              "keeps its response in the release script.")
            w("")

    owner_token_section(tokens, w)

    # Interceptor
    w("## Interceptor overhead")
    w("")
    if not interceptor:
        w("Not measured in this run.")
        w("")
    else:
        base = interceptor.get("plainMethod")
        w("`InterceptorBenchmark`, one thread, average time per call. A real `AnnotationConfigApplicationContext` "
          "wired as the auto-configuration wires it: `ExclusiveRequestAttributeSource`, `ExclusiveRequestAdvisor` "
          "with its `ExclusiveRequestInterceptor` (default options: 30 s time-to-live), the infrastructure "
          "auto-proxy creator with class (CGLIB) proxies, and `LockTemplate` on `InMemoryLockStore`. The method "
          "returns its argument, so the call path is all that is measured. Keys rotate through 1024 user names "
          "(as in the Redis benchmarks): each call locks a key that is free, as distinct requests would; one key "
          "would measure the same path, since every call releases before the next.")
        w("")
        w("The difference between the last two rows is the interception itself (proxy, cached attribute lookup, "
          "SpEL key); the last row is the programmatic lock on the in-memory store: the owner token (see "
          "[Owner tokens](#owner-tokens)), the lease and its bookkeeping, and the store's map updates.")
        w("")
        w("| call | ns per call | error | over the plain method |")
        w("|---|---:|---:|---:|")
        for method, label in INTERCEPTOR:
            entry = interceptor.get(method)
            if not entry:
                continue
            metric = entry["primaryMetric"]
            over = number(metric["score"] - base["primaryMetric"]["score"], 1) if base else "n/a"
            w("| %s | %s | %s | %s |" % (label, number(metric["score"], 1), error(metric, 1),
                                         "—" if method == "plainMethod" else over))
        w("")

    # HTTP
    if handoff:
        w("## Handoff to a waiter in another JVM")
        w("")
        w("The time from the moment a holder starts its release until a waiter blocked on the same key, **in another "
          "JVM** (as another application instance would be), has acquired it; %d handoffs per implementation, after 50 "
          "for warm-up, on one Redis server (`HandoffLatency`). Both timestamps are `System.nanoTime()`, the "
          "system-wide monotonic clock on Linux. Before each release the holder waits 30 to 93 ms, so that the waiter "
          "is asleep in its wait: what is measured is a wake-up. *polling only* is this starter with the release "
          "notifications hidden, as when pub/sub is lost. Every waiter waits up to 10 s with a 30 s lock "
          "time-to-live." % handoff["handoffs"] + handoff_rounds_text(handoff))
        w("")
        setups = handoff["setups"]
        if REFERENCE_SETUP in setups:
            w("The *raw Lettuce reference* is not a library: it is the least a waiting lock on Redis can do, written "
              "directly on Lettuce's `RedisClient` to show what the wire allows. Its holder takes the lock with "
              "`SET key token NX PX 30000` and releases it with a compare-and-delete script that also `PUBLISH`es "
              "the key; its waiter tries `SET NX PX` once, subscribes to that channel on a Lettuce pub/sub "
              "connection, and when the message for its key arrives, the listener itself sends the `SET` again on "
              "a second connection (both connections share one I/O thread, so that send wakes no other thread). The "
              "waiter counts as acquired in the callback of the `OK` reply, on that I/O thread, so its time excludes "
              "waking an application thread, which every library's time includes. "
              "(It also repeats the `SET` every 100 ms in case a message is lost.) It has no lease renewal, no "
              "fencing token and no fairness: a floor to compare with, not a lock to use.")
            if "RAW_LETTUCE_SUBSCRIBER_ACQUIRES" in setups:
                w("")
                w("*%s* is the same client with two changes: its listener sends the `SET` on the subscribed "
                  "connection itself (RESP3 lets a subscribed connection run any command), and the acquisition "
                  "counts when the waiting application thread, woken by the `OK` reply, reads the clock, as for "
                  "every library. The subscriber's I/O thread wakes for the message and for the reply, and the "
                  "waiter once. This starter's waiter works the same way: the I/O thread of its subscription sends "
                  "the waiter's acquisition script on the subscribed connection and wakes the waiter with the "
                  "answer. What it does beyond the reference is the lock itself: the lease, its bookkeeping and a "
                  "script that marks a lock found held again as watched." % (
                      setups["RAW_LETTUCE_SUBSCRIBER_ACQUIRES"].get("description", "RAW_LETTUCE_SUBSCRIBER_ACQUIRES")))
            w("")
        handoff_table(setups, w)
        handoff_charts(handoff, charts, w)
        if warm_handoff:
            w("### Warm JVMs")
            w("")
            w("The same measurement after %s more handoffs without the pause, so that each lock's code is compiled "
              "as in a server that has run for a while (`-Dhandoff.quickWarmUp=%d`); %d handoffs are measured. "
              "HotSpot's optimizing compiler takes a method after 5,000 calls or 15,000 calls and loop iterations "
              "(`Tier4InvocationThreshold`, `Tier4CompileThreshold`), and much of each lock's waiting code runs once "
              "per handoff, so fewer handoffs than that measure code that is still being profiled. The table above "
              "is of JVMs that have made only 50 handoffs, as after a start." % (
                  "{:,}".format(warm_handoff.get("quick_warm_up", 0)), warm_handoff.get("quick_warm_up", 0),
                  warm_handoff["handoffs"]) + handoff_rounds_text(warm_handoff))
            w("")
            handoff_table(warm_handoff["setups"], w, explain=False)
    else:
        remove_chart(charts, "handoff-latency.svg")
        remove_chart(charts, "handoff-cdf.svg")

    scale_section(scale, w)
    crowd_section(crowd, w)
    profile_section(profile, w)

    w("## HTTP throughput of the sample app")
    w("")
    if not http:
        w("Not measured in this run.")
        w("")
    elif "skipped" in http:
        w("Skipped in this run: %s." % http["skipped"])
        w("")
    else:
        w("`benchmarks/http/run.sh` builds and starts the sample app (`java -jar sample-app/target/lock-sample-app-*.jar "
          "--sample.points-service.latency=0ms`, so the simulated external call costs nothing), and drives it with "
          "%s, %d threads and %d connections on the same 2 cores. Every request is a `POST` of a user name no request "
          "used before (`benchmarks/http/register.lua`), so each one runs the whole registration: on `/api/users` under "
          "`@ExclusiveRequest(key = \"#userName\")`, on `/api/unsafe/users` without it. Both endpoints are warmed up "
          "for %s, then measured in turn for %s each, %d rounds. *memory*: the default configuration (locks and users "
          "in memory); *redis*: the `redis` profile against a `redis-server` of its own (locks **and users** in Redis, "
          "so every endpoint talks to Redis), where `/api/raw/users` is measured too: the same registration under a lock "
          "made by hand with `SET key token NX PX 10000` and a compare-and-delete script (no renewal, no waiting, no "
          "fencing), the floor for a correct Redis lock." % (
              http.get("wrk", "wrk"), http["threads"], http["connections"], http["warmup"], http["duration"],
              http.get("rounds", 1)))
        w("")
        w("| store | endpoint | requests/s per round | mean requests/s | ÷ unlocked | ÷ hand-made lock "
          "| latency p50 / p99 (ms) | non-2xx | socket errors |")
        w("|---|---|---|---:|---:|---:|---|---:|---:|")
        by_mode = {}
        for run_entry in http["runs"]:
            by_mode.setdefault(run_entry["mode"], {}).setdefault(run_entry["endpoint"], []).append(run_entry["summary"])
        for mode, endpoints in by_mode.items():
            means = {}
            for endpoint, summaries in endpoints.items():
                rates = [s["requests"] / (s["duration_us"] / 1e6) for s in summaries]
                means[endpoint] = sum(rates) / len(rates)
            for endpoint, summaries in endpoints.items():
                rates = [s["requests"] / (s["duration_us"] / 1e6) for s in summaries]
                relative = ("%.2f" % (means[endpoint] / means["/api/unsafe/users"])
                            if endpoint != "/api/unsafe/users" and "/api/unsafe/users" in means else "—")
                to_raw = ("%.2f" % (means[endpoint] / means["/api/raw/users"])
                          if endpoint == "/api/users" and "/api/raw/users" in means else "—")
                latencies = "; ".join("%.1f / %.1f" % (s["latency_p50_us"] / 1000, s["latency_p99_us"] / 1000)
                                      for s in summaries)
                w("| %s | `POST %s` | %s | %s | %s | %s | %s | %d | %d |" % (
                    mode, endpoint, ", ".join(number(r) for r in rates), number(means[endpoint]), relative, to_raw,
                    latencies,
                    sum(s["non_2xx_3xx"] for s in summaries), sum(s["socket_errors"] for s in summaries)))
        w("")
        failed = sum(r["summary"]["non_2xx_3xx"] + r["summary"]["socket_errors"] for r in http["runs"])
        if failed:
            w("**These figures do not measure the registration:** %s requests were answered with an error status "
              "or failed, so the endpoints mostly rejected their input. Look at `benchmarks/results/wrk.log` and the "
              "sample app's logs there." % number(failed))
            w("")
        w("With the in-memory store the lock is a few hundred nanoseconds in a request that costs tens of "
          "microseconds of CPU (HTTP parsing, JSON, the registration), so the two endpoints should be within noise of "
          "each other. With Redis, both locked endpoints add the lock's two requests, and the second name check inside "
          "the lock, to the unlocked registration's own Redis requests (checking the name, storing the user, indexing "
          "it by name), with wrk, the app and Redis sharing 2 cores: the difference to the unlocked endpoint is mostly "
          "those extra round trips, and the difference between `@ExclusiveRequest` and the hand-made lock is what the "
          "starter costs on top of them (the proxy, key resolution, the lease and its renewal registration). Both runs "
          "are CPU-bound on this machine, so these are ratios to compare, not capacity figures.")
        w("")

    report_server.section(server, w, this)

    # Reading the numbers
    w("## Reading the numbers")
    w("")
    w(READING.format(ours=ours_paragraph(commands, cycle), latency_note=latency_note(cycle), si_rejections=si_rejections(cycle)))
    w("")

    # Setup
    w("## What was measured, and how")
    w("")
    w(SETUP)
    w("")
    w("| variant | one cycle |")
    w("|---|---|")
    for method, _, label in VARIANTS:
        w("| %s | %s |" % (label, WHAT_EACH_DOES[method]))
    w("")
    if first:
        # The lock cycles' settings, which other benchmarks of the run need not share
        cycle_first = next(iter(cycle.values()), first)
        w("JMH %s, %s mode for the lock cycles (`@Fork(%s)`, `@Warmup(iterations = %d, time = %s)`, "
          "`@Measurement(iterations = %d, time = %s)`), average-time mode for the interceptor. JVM arguments: %s." % (
              first.get("jmhVersion"), "throughput", cycle_first.get("forks"), cycle_first.get("warmupIterations"),
              quote(cycle_first.get("warmupTime")),
              cycle_first.get("measurementIterations"), quote(cycle_first.get("measurementTime")),
              "`" + " ".join(first.get("jvmArgs")) + "`" if first.get("jvmArgs") else "none (JMH defaults)"))
        w("")

    # Machine
    w("## Machine")
    w("")
    w("| | |")
    w("|---|---|")
    w("| processors (`nproc`) | %s |" % machine_info.get("nproc", "unknown"))
    w("| CPU (`/proc/cpuinfo`) | %s |" % machine_info.get("cpu_model", "unknown"))
    w("| memory | %s |" % machine_info.get("memory", "unknown"))
    w("| OS | %s |" % machine_info.get("os", "unknown"))
    if first:
        w("| JDK (JMH's forks) | %s %s, %s |" % (first.get("jdkVersion"), first.get("vmName"), first.get("vmVersion")))
    w("| `java -version` | %s |" % " / ".join(machine_info.get("java", [])))
    w("| Redis | %s |" % machine_info.get("redis_server", "unknown"))
    w("| load average (1, 5, 15 min) at the start | %s |" % " ".join(machine_info.get("loadavg_start", [])))
    if loadavg_jmh:
        w("| load average when JMH ended | %s |" % " ".join(loadavg_jmh))
    w("| load average at the end (after the HTTP run, which loads the machine itself) | %s |" % " ".join(loadavg_end))
    if elapsed is not None:
        w("| duration of the whole run (build to results) | %d min %02d s |" % (elapsed // 60, elapsed % 60))
    w("")
    w("Library versions: this starter at the working tree's `0.1.0-SNAPSHOT`; Spring Boot 4.1.1's managed Spring "
      "Framework, Spring Data Redis and Lettuce; Redisson 4.7.0; Spring Integration 7.1.0; ShedLock 7.10.1; "
      "JMH 1.37 (see [Versions](#versions)).")
    w("")

    # Commands
    w("## Reproducing")
    w("")
    w("```bash")
    w("benchmarks/run.sh        # builds, runs everything, rewrites this page")
    w("```")
    w("")
    if commands_run:
        w("The commands it ran for this page:")
        w("")
        w("```bash")
        for line in commands_run:
            w(line)
        w("python3 benchmarks/report.py render benchmarks/results docs/PERFORMANCE.md")
        w("```")
        w("")
    w("One benchmark alone, for a closer look: `java -jar benchmarks/target/benchmarks.jar "
      "'OneThread.lockTemplate' -prof gc` (any JMH options). The module is built only with the `benchmarks` "
      "profile, so `./mvnw verify` and CI do not build it.")
    w("")
    w("This checkout against an earlier revision, side by side: `benchmarks/compare.sh <revision>` builds both "
      "revisions' benchmarks and measures the interceptor, the lock cycle against its raw Lettuce floor and the "
      "handoff of each, taking turns, then prints the ratios.")
    w("")
    w("The adapters beside `LockTemplate` and the peers alone: `benchmarks/adapters.sh` builds the benchmarks, "
      "runs `AdapterCycleBenchmarks` and rewrites this page with the new [Adapters](#adapters-spring-integration-"
      "shedlock-and-javautilconcurrentlockslock) section (the other sections keep their results).")
    w("")
    w("PostgreSQL, etcd and ZooKeeper, each store beside the peers' locks on the same kind of server: "
      "`benchmarks/stores.sh` builds the benchmarks, runs `FailoverStoreCycleBenchmarks` and the handoff on etcd "
      "and ZooKeeper, and rewrites this page with the new [stores](#stores-that-keep-a-lock-across-a-failover-"
      "postgresql-etcd-zookeeper) section.")
    w("")
    w("The stores whose expiry no instance's wall clock decides (etcd, ZooKeeper, Memcached, DynamoDB) before "
      "and after, the takeover delay after a crashed holder on every store, and the loss detection latency: "
      "`benchmarks/clock.sh [compare|takeover|loss|report]` builds a base revision (`BASE`, 2eeb541 by default) "
      "and HEAD from copies of their commits, runs `ClockStoreCycleBenchmarks`, `HandoffLatency`, "
      "`TakeoverDelay` and `LossDetectionLatency`, and rewrites this page with the new [expiry](#expiry-without-"
      "the-instances-wall-clocks-before-and-after-takeover-and-loss-detection) section.")
    w("")
    w("The lock server beside `LockTemplate` alone: `lock-server/load/run.sh [OUTPUT.json]` (the acquire + release "
      "cycle) and `lock-server/load/handoff.sh [OUTPUT.json]` (the handoff across two instances) build the server's "
      "jar, start it with a `redis-server` of their own and write the JSON files of the [lock server](#%s) section; "
      "see the scripts' headers for their settings." % report_server.ANCHOR)
    w("")
    w(VERSIONS)
    w("")

    os.makedirs(os.path.dirname(output) or ".", exist_ok=True)
    with open(output, "w") as file:
        file.write("\n".join(out))


def handoff_rounds_text(handoff):
    """The sentence that says how the measured handoffs were interleaved, if they were."""
    rounds = handoff.get("rounds", 1)
    if rounds <= 1:
        return ""
    return (" Every implementation's holder and waiter are started and warmed up first; the measured handoffs then "
            "run in %d rounds of %d that take turns between the implementations, each round starting with the next "
            "one, so that a change in the machine's state during the run falls on all of them alike."
            % (rounds, handoff["handoffs"] // rounds))


BOOTSTRAP_RESAMPLES = 2000


def bootstrap_percentiles(samples, percents, rng):
    """Per percent, the percentile of each of BOOTSTRAP_RESAMPLES resamples (with replacement) of the samples."""
    found = {percent: [] for percent in percents}
    for _ in range(BOOTSTRAP_RESAMPLES):
        resample = sorted(rng.choices(samples, k=len(samples)))
        for percent in percents:
            found[percent].append(percentile(resample, percent))
    return found


def ratio_interval(theirs, ours):
    """The central 95% of the ratios of two lists of resampled percentiles, as text."""
    ratios = sorted(a / b for a, b in zip(theirs, ours))
    return "%.2f to %.2f" % (percentile(ratios, 2.5), percentile(ratios, 97.5))


def handoff_table(setups, w, explain=True):
    w("| waiter | p50 | p90 | p99 | max | p50 ÷ this starter's (95%) | p99 ÷ this starter's (95%) |")
    w("|---|---:|---:|---:|---:|---:|---:|")
    ours = setups.get("STARTER")
    # Seeded: the same results render the same page
    rng = random.Random(0)
    ours_resampled = None
    if ours and ours.get("samples_us"):
        ours_resampled = bootstrap_percentiles(ours["samples_us"], (50, 99), rng)
    order = [name for name in setups if name == REFERENCE_SETUP] + \
        [name for name in setups if name != REFERENCE_SETUP]
    for name in order:
        values = setups[name]
        label = values.get("description", name)
        if name == "STARTER":
            label = "**%s**" % label
        elif name == REFERENCE_SETUP:
            label = "*%s*" % label
        ratios = []
        for percent in (50, 99):
            key = "p%d_us" % percent
            if not ours:
                ratios.append("n/a")
                continue
            text = "%.2f" % (values[key] / ours[key])
            if name != "STARTER" and ours_resampled and values.get("samples_us"):
                theirs = bootstrap_percentiles(values["samples_us"], (percent,), rng)[percent]
                text += " (%s)" % ratio_interval(theirs, ours_resampled[percent])
            ratios.append(text)
        w("| %s | %.2f ms | %.2f ms | %.2f ms | %.2f ms | %s | %s |" % (
            label, values["p50_us"] / 1000.0, values["p90_us"] / 1000.0, values["p99_us"] / 1000.0,
            values["max_us"] / 1000.0, ratios[0], ratios[1]))
    w("")
    if ours_resampled and explain:
        w("In brackets, the central 95%% of that ratio over %s bootstrap resamples of both waiters' handoffs: a ratio "
          "whose range includes 1.00 does not tell the two apart. With %d handoffs, the p99 is the %s slowest, so "
          "its range is wide." % ("{:,}".format(BOOTSTRAP_RESAMPLES), len(ours["samples_us"]),
                                  ordinal(len(ours["samples_us"]) - int(math.ceil(0.99 * len(ours["samples_us"]))) + 1)))
        w("")


def ordinal(n):
    """1st, 2nd, 3rd, 4th, ..., 11th, 12th, 13th, ..., 21st."""
    return "%d%s" % (n, "th" if 11 <= n % 100 <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th"))


def handoff_charts(handoff, charts, w):
    rows = handoff_rows(handoff)
    missing = [label for _, label, _, sampled in rows if not sampled]
    box = handoff_chart(handoff)
    if box:
        write_chart(charts, "handoff-latency.svg", box)
        w("![Handoff latency per lock, release to acquired, as box plots on a log time axis]"
          "(%s/handoff-latency.svg)" % CHART_DIR)
        w("")
        if missing and len(missing) == len(rows):
            w("*This run's `handoff.json` holds percentiles but no samples (it was written before `HandoffLatency` "
              "recorded them), so the chart shows the median, p90, p99 and max only, and the distribution chart is "
              "left out.*")
            w("")
        elif missing:
            w("*No samples for %s in this run's `handoff.json`: %s drawn from the percentiles only, and left out of "
              "the distribution chart.*" % (", ".join(missing), "it is" if len(missing) == 1 else "they are"))
            w("")
    else:
        remove_chart(charts, "handoff-latency.svg")
    cdf = handoff_cdf_chart(handoff)
    if cdf:
        write_chart(charts, "handoff-cdf.svg", cdf)
        w("![Share of handoffs done within a time, per lock, on a log time axis](%s/handoff-cdf.svg)" % CHART_DIR)
        w("")
    else:
        remove_chart(charts, "handoff-cdf.svg")


def mib(value):
    return "n/a" if value is None else "%s MiB" % number(value / 1048576.0, 1)


def signed(value, digits=0):
    return ("+" if value > 0 else "") + number(value, digits) if value else number(0, digits)


def percent_change(before, after):
    if before is None or after is None or not before:
        return "n/a"
    change = 100.0 * (after / before - 1)
    return "%s%%" % signed(change, 1)


def scale_run_summary(run_entry):
    heap_before, heap_after = run_entry.get("heap_before_bytes"), run_entry.get("heap_after_bytes")
    redis_before, redis_after = run_entry.get("redis_used_memory_before"), run_entry.get("redis_used_memory_after")
    keys_before, keys_after = run_entry.get("redis_keys_before"), run_entry.get("redis_keys_after")
    seconds = run_entry.get("seconds")
    parts = ["%s keys in %s" % (number(run_entry.get("keys")), "%s s" % number(seconds, 1) if seconds is not None
                                else "an unknown time")]
    if heap_before is not None and heap_after is not None:
        parts.append("JVM heap after a full GC %s → %s (%s)" % (mib(heap_before), mib(heap_after),
                                                               percent_change(heap_before, heap_after)))
    if redis_before is not None and redis_after is not None:
        parts.append("Redis `used_memory` %s" % signed_mib(redis_after - redis_before))
    if keys_before is not None and keys_after is not None:
        parts.append("keys in Redis %s → %s" % (number(keys_before), number(keys_after)))
    return ", ".join(parts)


def signed_mib(value):
    return ("+" if value > 0 else "") + mib(value) if value else mib(0)


def crowd_summary(crowd):
    if not crowd or "skipped" in crowd:
        return []
    largest = max(crowd["crowds"], key=lambda entry: entry["size"])
    worst = max(r["last_after_first_ms"] for r in largest["rounds"])
    return ["- **Single-flight under a crowd**: with %d simultaneous callers on two instances, the computation ran "
            "%s time(s) per round and the last caller had the result at most %s ms after the holder's answer "
            "(%d rounds)." % (largest["size"], "/".join(str(r["computations"]) for r in largest["rounds"]),
                               number(worst, 1), len(largest["rounds"]))]


def scale_summary(scale):
    if not scale or not scale.get("runs"):
        return []
    return ["- **One million distinct keys** (%d threads): %s." % (scale.get("threads", 0), "; ".join(
        "*%s*, %s" % (run_entry.get("name", "run"), scale_run_summary(run_entry)) for run_entry in scale["runs"]))]


OWNER_TOKEN_ROWS = [
    ("SHARED_NATIVE_PRNG", "one shared `new SecureRandom()` (`NativePRNG`; the owner token before this change)"),
    ("SHARED_DRBG", "one shared `DRBG`"),
    ("STRIPED_DRBG", "16 `DRBG` instances, stripe picked at random"),
    ("THREAD_LOCAL_DRBG", "one `DRBG` per thread"),
    ("STRIPED_SHA1PRNG", "16 `SHA1PRNG` instances, stripe picked at random"),
    ("STRIPED_BUFFERED_DRBG", "16 `DRBG` instances, each filling a buffer of 32 tokens, stripe picked at random"),
    ("ownerTokens", "**`OwnerTokens.next()`**: AES-256-CTR keystream stripes keyed from `DRBG`, 8 per processor, "
                    "one per thread, a buffer of 256 tokens each"),
]


def owner_token_section(tokens, w):
    w("## Owner tokens")
    w("")
    if not tokens:
        w("Not measured in this run.")
        w("")
        return
    threads = sorted({count for (_, count) in tokens})
    w("`OwnerTokenBenchmark`: one owner token (128 random bits, Base64 URL-encoded), average time per call, drawn "
      "by 1 and by 8 threads at once, for each way of drawing it that was weighed and for the starter's own. With "
      "8 threads on %s cores a call also waits for a core, so a generator on which no thread waits for another shows "
      "about four times its one-thread time." % (os.cpu_count() or "n/a"))
    w("")
    w("| generator | %s |" % " | ".join("ns per token, %d thread%s" % (t, "" if t == 1 else "s") for t in threads))
    w("|---|%s|" % "|".join("---:" for _ in threads))
    for key, label in OWNER_TOKEN_ROWS:
        cells = []
        for t in threads:
            entry = tokens.get((key, t))
            cells.append("%s ± %s" % (number(entry["primaryMetric"]["score"]),
                                      number(entry["primaryMetric"]["scoreError"])) if entry else "n/a")
        if any(cell != "n/a" for cell in cells):
            w("| %s | %s |" % (label, " | ".join(cells)))
    w("")


ADAPTERS_DIR = "adapters"


def student_t_quantile(probability, df):
    """The quantile of Student's t distribution with df degrees of freedom (df >= 1), by bisection on its
    distribution function, integrated with Simpson's rule: enough for a confidence interval's half-width."""
    scale = math.exp(math.lgamma((df + 1) / 2) - math.lgamma(df / 2)) / math.sqrt(df * math.pi)

    def cdf(x, steps=2000):
        h = x / steps
        total = 0.0
        for i in range(steps + 1):
            weight = 1 if i in (0, steps) else (4 if i % 2 else 2)
            total += weight * (1 + (i * h) ** 2 / df) ** (-(df + 1) / 2)
        return 0.5 + scale * total * h / 3

    low, high = 0.0, 1.0
    while cdf(high) < probability:
        low, high = high, high * 2
    for _ in range(60):
        middle = (low + high) / 2
        low, high = (middle, high) if cdf(middle) < probability else (low, middle)
    return (low + high) / 2


def merge_forks(entries):
    """One JMH result from the results of the same benchmark in several JMH runs (one fork or more each): the
    score is the mean of every measured iteration and its error the half-width of the 99.9% confidence interval
    over them, as JMH computes them for several forks of one run; a secondary metric is the mean of the runs'."""
    if len(entries) == 1:
        return entries[0]
    merged = dict(entries[0])
    raw = [fork for entry in entries for fork in entry["primaryMetric"]["rawData"]]
    values = [value for fork in raw for value in fork]
    mean = statistics.fmean(values)
    err = (student_t_quantile(0.9995, len(values) - 1) * statistics.stdev(values) / math.sqrt(len(values))
           if len(values) > 1 else float("nan"))
    primary = dict(entries[0]["primaryMetric"])
    primary.update({"score": mean, "scoreError": err, "rawData": raw})
    merged["primaryMetric"] = primary
    merged["forks"] = sum(entry.get("forks", 1) for entry in entries)
    secondary = {}
    for name in entries[0].get("secondaryMetrics", {}):
        scores = [entry["secondaryMetrics"][name]["score"] for entry in entries
                  if name in entry.get("secondaryMetrics", {})]
        secondary[name] = dict(entries[0]["secondaryMetrics"][name], score=statistics.fmean(scores))
    merged["secondaryMetrics"] = secondary
    return merged


def load_adapters(directory):
    """The results of benchmarks/adapters.sh (one JMH result file per benchmark and pass), or None when it has
    not run."""
    if not os.path.isdir(directory):
        return None
    runs = {}  # (method, threads) -> [entry of each pass]
    jmh = []
    for name in sorted(os.listdir(directory)):
        if name.startswith("jmh") and name.endswith(".json"):
            jmh.extend(load(directory, name) or [])
    if not jmh:
        return None
    for entry in jmh:
        name = entry["benchmark"][len(PACKAGE):] if entry["benchmark"].startswith(PACKAGE) else entry["benchmark"]
        parts = name.split(".")
        if parts[0] == "AdapterCycleBenchmarks":
            runs.setdefault((parts[-1], entry["threads"]), []).append(entry)
    rows = {key: merge_forks(entries) for key, entries in runs.items()}
    passes = max(len(entries) for entries in runs.values()) if runs else 0
    commands_run = []
    commands_path = os.path.join(directory, "commands-run.txt")
    if os.path.exists(commands_path):
        commands_run = [line.strip() for line in open(commands_path) if line.strip()]
    def text(name):
        path = os.path.join(directory, name)
        return open(path).read().strip() if os.path.exists(path) else None
    overhead = {}
    for entry in load(directory, "overhead.json") or []:
        overhead[entry["benchmark"].split(".")[-1]] = entry
    return {
        "rows": rows,
        "overhead": overhead,
        "passes": passes,
        "threads": sorted({threads for (_, threads) in rows}),
        "first": next(iter(rows.values()), jmh[0]),
        "commands": load(directory, "commands.json"),
        "machine": load(directory, "machine.json") or {},
        "commands_run": commands_run,
        "loadavg_end": (text("loadavg-end.txt") or "").split()[0:3],
        "elapsed": int(text("elapsed-seconds.txt")) if text("elapsed-seconds.txt") else None,
    }


# SharedLockCycleBenchmarks: (kind, this starter's method, the peer's method, the peer)
KIND_ROWS = [
    ("permit (1 of 3)", "permitLockTemplate", "permitRedisson", "Redisson `RPermitExpirableSemaphore`"),
    ("read lock", "readLockTemplate", "readLockRedisson", "Redisson `RReadWriteLock`"),
]


def kinds_table(directory, w):
    """The table of benchmarks/kinds.sh's results: each kind's cycle beside the peer's, merged over passes."""
    runs = {}
    for name in sorted(os.listdir(directory)):
        if name.startswith("jmh-") and name.endswith(".json"):
            for entry in load(directory, name) or []:
                runs.setdefault(entry["benchmark"].split(".")[-1], []).append(entry)
    rows = {method: merge_forks(entries) for method, entries in runs.items()}
    machine_info = load(directory, "machine.json") or {}
    loadavg = open(os.path.join(directory, "loadavg-end.txt")).read().split()[0:3]
    w("Measured by `benchmarks/kinds.sh` on %s (%s forks per benchmark; load average %s at the start, %s at "
      "the end):" % (machine_info.get("date", "an unknown date"), max(len(e) for e in runs.values()),
                     " ".join(machine_info.get("loadavg_start", [])) or "unknown", " ".join(loadavg)))
    w("")
    w("| cycle on one Redis | this starter (ops/s) | peer | peer (ops/s) | this starter ÷ peer |")
    w("|---|---:|---|---:|---:|")
    for label, ours, theirs, peer in KIND_ROWS:
        if ours not in rows or theirs not in rows:
            continue
        a, b = rows[ours]["primaryMetric"], rows[theirs]["primaryMetric"]
        value, err = ratio(a, b)
        w("| %s | %s %s | %s | %s %s | %s (%s) |" % (label, number(a["score"]), error(a), peer, number(b["score"]),
                                                    error(b), format_ratio((value, err)), verdict(value, err)))


def allocated_per_cycle(entry):
    """Bytes allocated per cycle by every thread of the JVM, from JMH's gc profiler (-prof gc), if it ran."""
    for name, metric in entry.get("secondaryMetrics", {}).items():
        if name.lstrip("\u00b7") == "gc.alloc.rate.norm":
            return metric.get("score")
    return None


def adapter_label(method):
    return next(label for m, _, label in ADAPTER_ROWS if m == method)


def threads_text(threads):
    return "%d thread%s" % (threads, "" if threads == 1 else "s")


def verdict(value, err):
    """How a throughput ratio compares with 1, given its error."""
    if err is None:
        return "faster" if value >= 1 else "slower"
    if value - err > 1:
        return "faster"
    if value + err < 1:
        return "slower"
    return "within the error of"


def adapters_summary(adapters):
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
    if busy_note(adapters["machine"], adapters["loadavg_end"]):
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


def adapters_section(adapters, w, page_machine):
    w("## Adapters: Spring Integration, ShedLock and java.util.concurrent.locks.Lock")
    w("")
    if not adapters:
        w("Not run for this page: there is no `benchmarks/results/%s/jmh.json` (`benchmarks/adapters.sh`)." %
          ADAPTERS_DIR)
        w("")
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
          "; %d min %02d s in all" % (adapters["elapsed"] // 60, adapters["elapsed"] % 60)
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
    w("Each iteration's score, to show the spread (cycles/s):")
    w("")
    w("| variant | threads | iterations |")
    w("|---|---:|---|")
    for t in threads:
        for method, _, label in ADAPTER_ROWS:
            entry = rows.get((method, t))
            if entry:
                iterations = [value for fork in entry["primaryMetric"]["rawData"] for value in fork]
                w("| %s | %d | %s |" % (label, t, ", ".join(number(v) for v in iterations)))
    w("")
    w("| variant | one cycle |")
    w("|---|---|")
    for method, _, label in ADAPTER_ROWS:
        w("| %s | %s |" % (label, ADAPTER_CYCLES[method]))
    w("")
    if commands:
        w("Redis commands per cycle (`CommandsPerCycle`, as in [Commands per cycle](#commands-per-cycle), in this "
          "run):")
        w("")
        w("| variant | requests per cycle | inside scripts, per cycle |")
        w("|---|---|---|")
        for method, variant, label in ADAPTER_ROWS:
            counted = commands["variants"].get(variant)
            if counted:
                w("| %s | %s: %s | %s: %s |" % (
                    label, trim(per_cycle(counted["requests"], commands["cycles"])),
                    breakdown(counted["requests"], commands["cycles"]),
                    trim(per_cycle(counted["inScripts"], commands["cycles"])),
                    breakdown(counted["inScripts"], commands["cycles"])))
        w("")
    w(ADAPTERS_READING)
    w("")
    adapters_overhead(adapters["overhead"], w)
    if adapters["commands_run"]:
        w("The commands `benchmarks/adapters.sh` ran:")
        w("")
        w("```bash")
        for line in adapters["commands_run"]:
            w(line)
        w("python3 benchmarks/report.py render benchmarks/results docs/PERFORMANCE.md")
        w("```")
        w("")


def busy_note(machine_info, loadavg_end):
    """A warning when the machine was busy with other work while the adapters were measured."""
    try:
        processors = int(machine_info.get("nproc"))
        loads = [float(machine_info["loadavg_start"][0]), float(loadavg_end[0])]
    except (TypeError, ValueError, KeyError, IndexError):
        return None
    if max(loads) <= processors:
        return None
    return ("**This run was made on a busy machine**: a load average of %s at the start and %s at the end on %d "
            "processors, other processes' builds and tests taking most of the CPU. Redis, the client's threads and the "
            "benchmark's waited for a core in turn, so the throughput figures below carry errors of tens of percent, "
            "and a throughput ratio within its error decides nothing: it says neither that an adapter is as fast as "
            "its peer nor that it is slower. The allocation per cycle does not depend on the load, and the CPU time "
            "per cycle on the [in-memory store](#what-the-adapters-own-code-costs) little; the throughput comparison "
            "needs `benchmarks/adapters.sh` again on an idle machine." % (
                machine_info["loadavg_start"][0], loadavg_end[0], processors))


def adapters_overhead(overhead, w):
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


def section(w, title, results, missing):
    """Write a section's title; return False, after saying why, when its results are missing or skipped."""
    w("## " + title)
    w("")
    if not results or "skipped" in results:
        w("Not run for this page: %s." % ((results or {}).get("skipped") or missing))
        w("")
        return False
    return True


def scale_section(scale, w):
    if not section(w, "One million distinct keys", scale, "there is no `benchmarks/results/scale.json`"):
        return
    runs = scale.get("runs") or []
    if not runs:
        w("`benchmarks/results/scale.json` holds no runs.")
        w("")
        return
    w("Each run takes and releases a lock on this starter for each of its distinct keys, with %s threads, and "
      "records three things before and after: the JVM heap in use after a full garbage collection, Redis's "
      "`used_memory` and the number of keys in Redis. The heap shows whether the client keeps anything per key "
      "once its locks are released; Redis's memory and key count show what the released locks leave on the "
      "server. *Change* is after ÷ before for the heap (as a percentage), and after − before for Redis." % (
          scale.get("threads", "n/a")))
    if scale.get("command"):
        w("")
        w("Command: `%s`." % scale["command"])
    w("")
    for run_entry in runs:
        keys = run_entry.get("keys")
        seconds = run_entry.get("seconds")
        heap_before, heap_after = run_entry.get("heap_before_bytes"), run_entry.get("heap_after_bytes")
        redis_before, redis_after = run_entry.get("redis_used_memory_before"), run_entry.get("redis_used_memory_after")
        keys_before, keys_after = run_entry.get("redis_keys_before"), run_entry.get("redis_keys_after")
        w("### %s" % run_entry.get("name", "run"))
        w("")
        w("| | before | after | change |")
        w("|---|---:|---:|---:|")
        rate = (" (%s keys/s)" % number(keys / seconds)) if keys and seconds else ""
        w("| distinct keys locked and released | | %s | |" % number(keys))
        w("| duration | | %s | |" % (("%s s%s" % (number(seconds, 1), rate)) if seconds is not None else "n/a"))
        w("| JVM heap in use after a full GC | %s | %s | %s |" % (
            mib(heap_before), mib(heap_after), percent_change(heap_before, heap_after)))
        if redis_before is not None and redis_after is not None:
            difference = redis_after - redis_before
            per_key = (", %s bytes per key" % number(difference / keys, 1)) if keys else ""
            change = "%s%s" % (signed_mib(difference), per_key)
        else:
            change = "n/a"
        w("| Redis `used_memory` | %s | %s | %s |" % (mib(redis_before), mib(redis_after), change))
        key_change = signed(keys_after - keys_before) if keys_before is not None and keys_after is not None else "n/a"
        w("| keys in Redis | %s | %s | %s |" % (number(keys_before), number(keys_after), key_change))
        w("")


def profile_section(profile, w):
    if not section(w, "Profile of the client path", profile,
                   "there is no `benchmarks/results/profile.json` (`benchmarks/profile.sh`)"):
        return
    w("`benchmarks/profile.sh` runs `LockCycleBenchmarks.EightThreads.lockTemplate` under Java Flight Recorder "
      "(Java samples every millisecond), once with the code of `%s` (*before*: the last commit before the client "
      "path was trimmed) and once with `%s` (*after*). Each sample of a thread running Java code is put in one "
      "group by its stack (`benchmarks/profile.py`): *the starter's own code* (the innermost starter frame is "
      "above any Lettuce or Netty frame, so the time is in the starter or the JDK code it calls), *the Redis "
      "client under the starter* (Lettuce or Netty on the caller's thread), and *elsewhere* (the client's I/O "
      "threads, the JMH harness). Throughputs are from the profiled runs, so below the un-profiled ones." % (
          profile["before_revision"], profile["after_revision"]))
    w("")
    profiles = {entry["label"]: entry for entry in profile["profiles"]}
    order = [label for label in ("before", "after") if label in profiles]
    w("| | %s |" % " | ".join(order))
    w("|---|%s|" % "|".join("---:" for _ in order))
    w("| cycles/s while profiled | %s |" % " | ".join(
        "%s ± %s" % (number(profiles[label]["score"]["ops_per_s"]), number(profiles[label]["score"]["error"]))
        if profiles[label].get("score") else "n/a" for label in order))
    for group in ("starter", "client under the starter", "elsewhere"):
        name = {"starter": "the starter's own code", "client under the starter": "the Redis client under the starter",
                "elsewhere": "elsewhere"}[group]
        w("| %s, share of Java samples | %s |" % (name, " | ".join(
            "%.1f%%" % (100.0 * profiles[label]["groups"].get(group, 0) / max(1, profiles[label]["samples"]))
            for label in order)))
    w("| Java samples | %s |" % " | ".join(number(profiles[label]["samples"]) for label in order))
    w("")
    for label in order:
        entry = profiles[label]
        w("The starter's own methods, %s (share of all Java samples):" % label)
        w("")
        w("| method | share |")
        w("|---|---:|")
        for method, count in entry["starter_methods"][:10]:
            w("| `%s` | %.1f%% |" % (method.replace("dev.lockstarter.", ""), 100.0 * count / max(1, entry["samples"])))
        w("")


def client_alone(crowd):
    alone = crowd.get("client_alone")
    if not alone:
        return ""
    spreads = alone["last_after_first_ms"]
    return ("The client itself spreads the answers: against a stand-in server that answers all %d callers at "
            "the same instant (`crowd.py --serve`), its last answer came %s ms after its first (median of %d "
            "rounds, worst %s ms), part of every figure below." % (
                alone["size"], number(statistics.median(spreads), 1), len(spreads), number(max(spreads), 1)))


def crowd_section(crowd, w):
    if not section(w, "Single-flight under a crowd", crowd, "there is no `benchmarks/results/crowd.json`"):
        return
    w("Two instances of the sample app share one Redis (`redis` profile); `GET /api/sum` is a single-flight "
      "method (`onConflict = SHARE_RESULT`) whose computation takes `sample.sum.latency` (1 s). Each round "
      "sends one crowd of simultaneous requests for the same new sum, spread evenly over both instances, from "
      "one thread and connection per caller (`benchmarks/http/crowd.py`). The first answer is the holder's; "
      "*after the holder* is how much later the last follower got the shared result. Times are from the "
      "moment the crowd was released; each row is the median of %d rounds (worst round in brackets), measured "
      "after %s unreported warm-up rounds of the largest crowd (freshly started, the instances interpret the "
      "request path, and the last follower comes about twice as late). %s" % (
          max(len(c["rounds"]) for c in crowd["crowds"]), crowd.get("warmup_rounds", 3), client_alone(crowd)))
    w("")
    w("| callers | computations | first answer | median answer | last answer | last after the holder | answers |")
    w("|---:|---:|---:|---:|---:|---:|---|")
    for entry in crowd["crowds"]:
        rounds = entry["rounds"]

        def median_of(field):
            return statistics.median(r[field] for r in rounds)

        statuses = {}
        for r in rounds:
            for status, count in r["statuses"].items():
                statuses[status] = statuses.get(status, 0) + count
        w("| %d | %s | %s s | %s s | %s s (%s) | %s ms (%s) | %s |" % (
            entry["size"], " + ".join(str(r["computations"]) for r in rounds), number(median_of("first_s"), 3),
            number(median_of("median_s"), 3), number(median_of("last_s"), 3),
            number(max(r["last_s"] for r in rounds), 3), number(median_of("last_after_first_ms"), 1),
            number(max(r["last_after_first_ms"] for r in rounds), 1),
            ", ".join("%s× %s" % (count, status) for status, count in sorted(statuses.items()))))
    w("")


# ---------------------------------------------------------------------------------------------
# Charts: hand-written SVG, standard library only. Every number is formatted with a fixed
# precision and every list is walked in a fixed order, so the same JSON gives the same bytes.

CHART_DIR = "performance"
CHART_FONT = "-apple-system, BlinkMacSystemFont, 'Segoe UI', Helvetica, Arial, sans-serif"
INK = "#24292f"
MUTED = "#57606a"
GRID = "#d0d7de"
OURS_COLOR = "#0969da"
REFERENCE_COLOR = "#bc4c00"
PEER_COLOR = "#8c959f"
REFERENCE_SETUP = "RAW_LETTUCE_PUB_SUB"


def xml_text(value):
    return (str(value).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace("\"", "&quot;"))


def px(value):
    """A coordinate with one decimal, without a trailing '.0'."""
    text = "%.1f" % value
    return text[:-2] if text.endswith(".0") else text


def text_width(text, size):
    """A rough width of text in the chart font, enough to lay out labels."""
    return len(text) * size * 0.56


class Svg:
    def __init__(self, width, height, title, description):
        self.width = width
        self.height = height
        self.parts = [
            '<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" role="img" '
            'aria-labelledby="chart-title chart-desc" font-family="%s">' % (
                width, height, width, height, xml_text(CHART_FONT)),
            '<title id="chart-title">%s</title>' % xml_text(title),
            '<desc id="chart-desc">%s</desc>' % xml_text(description),
            '<rect x="0" y="0" width="%d" height="%d" fill="#ffffff"/>' % (width, height),
        ]

    def add(self, element):
        self.parts.append(element)

    def text(self, x, y, value, size=12, anchor="start", fill=INK, weight=None, style=None):
        self.add('<text x="%s" y="%s" font-size="%d"%s%s%s fill="%s">%s</text>' % (
            px(x), px(y), size, ' text-anchor="%s"' % anchor if anchor != "start" else "",
            ' font-weight="%s"' % weight if weight else "", ' font-style="%s"' % style if style else "",
            fill, xml_text(value)))

    def line(self, x1, y1, x2, y2, stroke=INK, width=1, dash=None):
        self.add('<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-width="%s"%s/>' % (
            px(x1), px(y1), px(x2), px(y2), stroke, px(width),
            ' stroke-dasharray="%s"' % dash if dash else ""))

    def rect(self, x, y, width, height, fill, stroke=None, stroke_width=1, dash=None, opacity=None):
        self.add('<rect x="%s" y="%s" width="%s" height="%s" fill="%s"%s%s%s/>' % (
            px(x), px(y), px(max(0.0, width)), px(max(0.0, height)), fill,
            ' stroke="%s" stroke-width="%s"' % (stroke, px(stroke_width)) if stroke else "",
            ' stroke-dasharray="%s"' % dash if dash else "",
            ' fill-opacity="%s"' % opacity if opacity is not None else ""))

    def polygon(self, points, fill, stroke=None):
        self.add('<polygon points="%s" fill="%s"%s/>' % (
            " ".join("%s,%s" % (px(x), px(y)) for x, y in points), fill,
            ' stroke="%s" stroke-width="1"' % stroke if stroke else ""))

    def render(self):
        return "\n".join(self.parts + ["</svg>"]) + "\n"


def write_chart(directory, name, svg):
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, name), "w", encoding="utf-8", newline="\n") as file:
        file.write(svg.render())


def remove_chart(directory, name):
    path = os.path.join(directory, name)
    if os.path.exists(path):
        os.remove(path)


def nice_step(span, ticks=6):
    raw_step = span / max(1, ticks)
    magnitude = 10 ** math.floor(math.log10(raw_step))
    for factor in (1, 2, 2.5, 5, 10):
        if factor * magnitude >= raw_step:
            return factor * magnitude
    return 10 * magnitude


def ratio_label(value, err):
    return "%.2f ± %.2f" % (value, err) if err is not None else "%.2f" % value


def cycle_ratio_chart(cycle, thread_counts):
    """Horizontal bars: each variant's throughput ÷ the floor's, one group per thread count."""
    groups = []
    for t in thread_counts:
        floor = cycle.get(("rawLettuce", t))
        if not floor:
            continue
        bars = []
        for method, _, label in VARIANTS:
            entry = cycle.get((method, t))
            if entry:
                value, err = ratio(entry["primaryMetric"], floor["primaryMetric"])
                bars.append((method, strip_markup(label), value, err))
        if bars:
            groups.append((t, bars))
    if not groups:
        return None
    size = 12
    label_width = max(text_width(label, size) for _, bars in groups for _, label, _, _ in bars)
    left = 24 + max(label_width, 90)
    value_column = 96
    width = 860
    plot_right = width - 24 - value_column
    top = 78
    row = 24
    bar = 15
    group_gap = 30
    rows_height = sum(group_gap + row * len(bars) for _, bars in groups)
    axis_y = top + rows_height + 6
    legend_y = axis_y + 52
    height = legend_y + 30
    highest = max(value + (err or 0) for _, bars in groups for _, _, value, err in bars)
    step = 0.25 if highest <= 2.5 else nice_step(highest)
    x_max = max(1.25, math.ceil(highest * 1.04 / step) * step)

    def x(value):
        return left + (plot_right - left) * max(0.0, min(value, x_max)) / x_max

    title = "Uncontended acquire + release: throughput ÷ raw Lettuce floor"
    description = ("Horizontal bar chart. For %s, the JMH throughput of each Redis lock's acquire + release cycle "
                   "divided by the raw Lettuce floor's with the same thread count, with error bars. %s" % (
                       " and ".join("%d thread%s" % (t, "" if t == 1 else "s") for t, _ in groups),
                       "; ".join("%d thread%s: %s" % (t, "" if t == 1 else "s", ", ".join(
                           "%s %s" % (label, ratio_label(value, err)) for _, label, value, err in bars))
                                 for t, bars in groups)))
    svg = Svg(width, height, title, description)
    svg.text(24, 28, title, size=16, weight="bold")
    svg.text(24, 48, "Cycles/s ÷ the floor's cycles/s with the same thread count; 1.0 = as fast as two hand-written "
             "round trips, higher is faster.", size=12, fill=MUTED)
    svg.text(24, 64, "Error bars: JMH's 99.9% confidence half-widths of both scores, propagated to the ratio.",
             size=12, fill=MUTED)
    # Grid and axis
    tick = 0.0
    while tick <= x_max + 1e-9:
        svg.line(x(tick), top, x(tick), axis_y, stroke=GRID)
        svg.text(x(tick), axis_y + 16, ("%.2f" % tick).rstrip("0").rstrip(".") if tick else "0", size=11,
                 anchor="middle", fill=MUTED)
        tick += step
    svg.line(left, axis_y, plot_right, axis_y, stroke=MUTED)
    svg.text((left + plot_right) / 2, axis_y + 36, "throughput ÷ raw Lettuce floor (ratio, same thread count)",
             size=12, anchor="middle")
    svg.text(plot_right + value_column, top - 4, "ratio ± error", size=11, anchor="end", fill=MUTED)
    y = top
    for t, bars in groups:
        y += group_gap
        svg.text(24, y - 9, "%d thread%s" % (t, "" if t == 1 else "s"), size=13, weight="bold")
        svg.line(24, y - 4, plot_right + value_column, y - 4, stroke=GRID)
        for method, label, value, err in bars:
            ours = method == "lockTemplate"
            color = OURS_COLOR if ours else REFERENCE_COLOR if method == "rawLettuce" else PEER_COLOR
            middle = y + row / 2
            svg.text(left - 8, middle + 4, label, size=size, anchor="end", weight="bold" if ours else None)
            svg.rect(left, middle - bar / 2, x(value) - left, bar, color)
            if err is not None:
                low, high = x(value - err), x(value + err)
                svg.line(low, middle, high, middle, stroke=INK, width=1.5)
                svg.line(low, middle - 5, low, middle + 5, stroke=INK, width=1.5)
                svg.line(high, middle - 5, high, middle + 5, stroke=INK, width=1.5)
            svg.text(plot_right + value_column, middle + 4, ratio_label(value, err), size=size, anchor="end",
                     weight="bold" if ours else None)
            y += row
    # The floor
    svg.line(x(1.0), top + 8, x(1.0), axis_y, stroke=INK, width=1.5, dash="5,4")
    svg.text(x(1.0), top + 2, "floor = 1.0", size=11, anchor="middle")
    # Legend
    lx = 24
    for color, label in ((OURS_COLOR, "this starter (LockTemplate)"), (REFERENCE_COLOR, "raw Lettuce floor"),
                         (PEER_COLOR, "other libraries")):
        svg.rect(lx, legend_y - 10, 14, 12, color)
        svg.text(lx + 20, legend_y, label, size=12)
        lx += 20 + text_width(label, 12) + 28
    svg.line(lx, legend_y - 4, lx + 24, legend_y - 4, stroke=INK, width=1.5)
    svg.line(lx, legend_y - 9, lx, legend_y + 1, stroke=INK, width=1.5)
    svg.line(lx + 24, legend_y - 9, lx + 24, legend_y + 1, stroke=INK, width=1.5)
    svg.text(lx + 30, legend_y, "error bar (±)", size=12)
    return svg


def percentile(sorted_values, percent):
    """Nearest rank, as HandoffLatency computes it."""
    index = int(math.ceil(percent / 100.0 * len(sorted_values))) - 1
    return sorted_values[max(0, min(len(sorted_values) - 1, index))]


def handoff_rows(handoff):
    """(name, label, statistics, from samples?) per setup, the reference first, then the file's order."""
    setups = handoff.get("setups", {})
    names = [name for name in setups if name == REFERENCE_SETUP] + [name for name in setups if name != REFERENCE_SETUP]
    rows = []
    for name in names:
        values = setups[name]
        samples = sorted(values.get("samples_us") or [])
        if samples:
            stats = {"min": samples[0], "p25": percentile(samples, 25), "p50": percentile(samples, 50),
                     "p75": percentile(samples, 75), "p90": percentile(samples, 90), "p99": percentile(samples, 99),
                     "max": samples[-1]}
        elif all(("%s_us" % key) in values for key in ("p50", "p90", "p99", "max")):
            stats = {key: values["%s_us" % key] for key in ("p50", "p90", "p99", "max")}
        else:
            continue
        rows.append((name, values.get("description", name), stats, bool(samples)))
    return rows


def log_ticks(low, high):
    """The 1-2-5 steps (in µs, integers) from the largest at or below low to the smallest at or above high."""
    low, high = max(1, low), max(2, high)
    steps = [factor * 10 ** decade for decade in range(0, 10) for factor in (1, 2, 5)]
    first = max([step for step in steps if step <= low] or [1])
    last = min([step for step in steps if step >= high] or [steps[-1]])
    if last <= first:
        last = min(step for step in steps if step > first)
    return [step for step in steps if first <= step <= last]


def ms_label(micros):
    ms = micros / 1000.0
    if ms >= 10:
        return "%.0f" % ms
    if ms >= 1:
        return "%.1f" % ms
    return "%.2f" % ms


def handoff_chart(handoff):
    """One row per lock on a log time axis: min-max whisker, p25-p75 box, median, p90 and p99 marks."""
    rows = handoff_rows(handoff)
    if not rows:
        return None
    size = 12
    labels = [label + ("" if sampled else " *") for _, label, _, sampled in rows]
    left = 24 + max(text_width(label, size) for label in labels)
    value_column = 130
    width = max(900, int(left + 400 + value_column + 24))
    plot_right = width - 24 - value_column
    top = 84
    row = 30
    axis_y = top + row * len(rows) + 8
    legend_y = axis_y + 54
    height = legend_y + (40 if not all(sampled for _, _, _, sampled in rows) else 22)
    low = min(min(stats.values()) for _, _, stats, _ in rows)
    high = max(max(stats.values()) for _, _, stats, _ in rows)
    ticks = log_ticks(low, high)
    log_low, log_high = math.log10(ticks[0]), math.log10(ticks[-1])

    def x(micros):
        position = (math.log10(max(1, micros)) - log_low) / (log_high - log_low)
        return left + (plot_right - left) * min(1.0, max(0.0, position))

    title = "Handoff to a waiter in another JVM: release → acquired"
    description = ("Box plot per lock on a logarithmic time axis, in milliseconds: %s." % "; ".join(
        "%s: median %s ms, p90 %s ms, p99 %s ms, max %s ms" % (
            label, ms_label(stats["p50"]), ms_label(stats["p90"]), ms_label(stats["p99"]), ms_label(stats["max"]))
        for _, label, stats, _ in rows))
    svg = Svg(width, height, title, description)
    svg.text(24, 28, title, size=16, weight="bold")
    svg.text(24, 48, "Time from the holder's release until the waiter, blocked in another JVM, has the lock; "
             "%s handoffs per lock. Log scale: lower is faster." % handoff.get("handoffs", "all"), size=12, fill=MUTED)
    svg.text(24, 64, "Whisker: fastest to slowest; box: 25th to 75th percentile; bar: median; ▲ p90; ◆ p99.",
             size=12, fill=MUTED)
    for micros in ticks:
        major = str(micros).startswith("1")
        svg.line(x(micros), top, x(micros), axis_y, stroke=GRID, width=1 if major else 0.6,
                 dash=None if major else "2,3")
        svg.text(x(micros), axis_y + 16, "%g" % (micros / 1000.0), size=11 if major else 10, anchor="middle",
                 fill=INK if major else MUTED)
    svg.line(left, axis_y, plot_right, axis_y, stroke=MUTED)
    svg.text((left + plot_right) / 2, axis_y + 36, "release → acquired (ms, log scale)", size=12, anchor="middle")
    svg.text(plot_right + value_column, top - 6, "median / p99 (ms)", size=11, anchor="end", fill=MUTED)
    y = top
    for (name, _, stats, sampled), label in zip(rows, labels):
        ours = name == "STARTER"
        color = OURS_COLOR if ours else REFERENCE_COLOR if name == REFERENCE_SETUP else PEER_COLOR
        middle = y + row / 2
        if (len(rows) > 1) and y > top:
            svg.line(24, y, plot_right + value_column, y, stroke="#eaeef2")
        svg.text(left - 8, middle + 4, label, size=size, anchor="end", weight="bold" if ours else None)
        start = stats.get("min", stats["p50"])
        svg.line(x(start), middle, x(stats["max"]), middle, stroke=color, width=1.5,
                 dash=None if sampled else "3,3")
        svg.line(x(stats["max"]), middle - 5, x(stats["max"]), middle + 5, stroke=color, width=1.5)
        if "min" in stats:
            svg.line(x(stats["min"]), middle - 5, x(stats["min"]), middle + 5, stroke=color, width=1.5)
        if "p25" in stats:
            svg.rect(x(stats["p25"]), middle - 8, x(stats["p75"]) - x(stats["p25"]), 16, color, stroke=color,
                     opacity="0.35")
        svg.line(x(stats["p50"]), middle - 9, x(stats["p50"]), middle + 9, stroke=INK, width=3)
        p90 = x(stats["p90"])
        svg.polygon([(p90 - 5, middle + 5), (p90 + 5, middle + 5), (p90, middle - 5)], "#ffffff", stroke=INK)
        p99 = x(stats["p99"])
        svg.polygon([(p99, middle - 6), (p99 + 6, middle), (p99, middle + 6), (p99 - 6, middle)], INK)
        svg.text(plot_right + value_column, middle + 4, "%s / %s" % (ms_label(stats["p50"]), ms_label(stats["p99"])),
                 size=size, anchor="end", weight="bold" if ours else None)
        y += row
    lx = 24
    names = [name for name, _, _, _ in rows]
    kinds = [(OURS_COLOR, "this starter", "STARTER" in names),
             (REFERENCE_COLOR, "raw Lettuce reference", REFERENCE_SETUP in names),
             (PEER_COLOR, "other setups", any(name not in ("STARTER", REFERENCE_SETUP) for name in names))]
    for color, label in [(color, label) for color, label, present in kinds if present]:
        svg.rect(lx, legend_y - 10, 14, 12, color, opacity="0.35")
        svg.line(lx + 7, legend_y - 11, lx + 7, legend_y + 3, stroke=color, width=3)
        svg.text(lx + 20, legend_y, label, size=12)
        lx += 20 + text_width(label, 12) + 28
    if not all(sampled for _, _, _, sampled in rows):
        svg.text(24, legend_y + 20, "* no samples in the results: drawn from p50, p90, p99 and max only (dashed).",
                 size=12, fill=MUTED)
    return svg


def handoff_cdf_chart(handoff):
    """The share of handoffs done within a time, per lock with samples, on a log time axis."""
    rows = [(name, label, sorted(handoff["setups"][name]["samples_us"]))
            for name, label, _, sampled in handoff_rows(handoff) if sampled]
    if not rows:
        return None
    palette = ["#009e73", "#cc79a7", "#6e5494", "#8c959f", "#996633", "#1b7c83"]
    colors = {}
    other = 0
    for name, _, _ in rows:
        if name == "STARTER":
            colors[name] = OURS_COLOR
        elif name == REFERENCE_SETUP:
            colors[name] = REFERENCE_COLOR
        else:
            colors[name] = palette[other % len(palette)]
            other += 1
    legend_height = sum(6 + 14 * len(wrap(label, 30)) + 22 for _, label, _ in rows)
    width = 900
    left, right, top = 64, 24, 76
    bottom_axis = max(top + 300, top + legend_height)
    height = bottom_axis + 56
    plot_right = width - right - 250
    low = min(samples[0] for _, _, samples in rows)
    high = max(samples[-1] for _, _, samples in rows)
    ticks = log_ticks(low, high)
    log_low, log_high = math.log10(ticks[0]), math.log10(ticks[-1])

    def x(micros):
        position = (math.log10(max(1, micros)) - log_low) / (log_high - log_low)
        return left + (plot_right - left) * min(1.0, max(0.0, position))

    def y(share):
        return bottom_axis - (bottom_axis - top) * share

    title = "Handoff latency: share of handoffs done within a time"
    description = ("Empirical cumulative distribution per lock on a logarithmic time axis in milliseconds: %s." %
                   "; ".join("%s: half within %s ms, 99%% within %s ms" % (
                       label, ms_label(percentile(samples, 50)), ms_label(percentile(samples, 99)))
                       for _, label, samples in rows))
    svg = Svg(width, height, title, description)
    svg.text(24, 28, title, size=16, weight="bold")
    svg.text(24, 48, "For each lock, the fraction of its handoffs whose release → acquired time was at most x. "
             "Further left is faster; a curve's upper end is its tail.", size=12, fill=MUTED)
    for micros in ticks:
        major = str(micros).startswith("1")
        svg.line(x(micros), top, x(micros), bottom_axis, stroke=GRID, width=1 if major else 0.6,
                 dash=None if major else "2,3")
        svg.text(x(micros), bottom_axis + 16, "%g" % (micros / 1000.0), size=11 if major else 10,
                 anchor="middle", fill=INK if major else MUTED)
    for share in (0, 0.25, 0.5, 0.75, 0.9, 1.0):
        svg.line(left, y(share), plot_right, y(share), stroke=GRID, width=1 if share in (0, 0.5, 1.0) else 0.6,
                 dash=None if share in (0, 0.5, 1.0) else "2,3")
        svg.text(left - 6, y(share) + 4, "%g%%" % (100 * share), size=11, anchor="end", fill=MUTED)
    svg.line(left, bottom_axis, plot_right, bottom_axis, stroke=MUTED)
    svg.line(left, top, left, bottom_axis, stroke=MUTED)
    svg.text((left + plot_right) / 2, bottom_axis + 36, "release → acquired (ms, log scale)", size=12,
             anchor="middle")
    svg.add('<text x="16" y="%s" font-size="12" text-anchor="middle" fill="%s" transform="rotate(-90 16 %s)">'
            'handoffs done (%% of all)</text>' % (px((top + bottom_axis) / 2), INK, px((top + bottom_axis) / 2)))
    # Draw the peers first, so that ours and the reference stay on top.
    order = [row for row in rows if row[0] not in ("STARTER", REFERENCE_SETUP)] + \
        [row for row in rows if row[0] == REFERENCE_SETUP] + [row for row in rows if row[0] == "STARTER"]
    for name, _, samples in order:
        count = len(samples)
        points = ["%s,%s" % (px(x(samples[0])), px(y(0)))]
        for index, value in enumerate(samples):
            if index + 1 < count and samples[index + 1] == value:
                continue
            points.append("%s,%s" % (px(x(value)), px(y(index / count))))
            points.append("%s,%s" % (px(x(value)), px(y((index + 1) / count))))
        ours = name == "STARTER"
        svg.add('<polyline points="%s" fill="none" stroke="%s" stroke-width="%s"%s/>' % (
            " ".join(points), colors[name], "3" if ours else "2",
            ' stroke-dasharray="6,3"' if name == REFERENCE_SETUP else ""))
    legend_x = plot_right + 24
    legend_y = top + 10
    svg.text(legend_x, legend_y - 14 + 4, "lock (median / p99, ms)", size=11, fill=MUTED)
    for name, label, samples in rows:
        ours = name == "STARTER"
        legend_y += 6
        svg.add('<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-width="%s"%s/>' % (
            px(legend_x), px(legend_y), px(legend_x + 26), px(legend_y), colors[name], "3" if ours else "2",
            ' stroke-dasharray="6,3"' if name == REFERENCE_SETUP else ""))
        for index, part in enumerate(wrap(label, 30)):
            svg.text(legend_x + 32, legend_y + 4 + 14 * index, part, size=11, weight="bold" if ours else None)
        legend_y += 14 * len(wrap(label, 30))
        svg.text(legend_x + 32, legend_y + 4, "%s / %s" % (ms_label(percentile(samples, 50)),
                                                          ms_label(percentile(samples, 99))), size=11, fill=MUTED)
        legend_y += 22
    return svg


def wrap(text, limit):
    lines, current = [], ""
    for word in text.split():
        if current and len(current) + 1 + len(word) > limit:
            lines.append(current)
            current = word
        else:
            current = (current + " " + word).strip()
    return lines + ([current] if current else [])


def latency_note(cycle):
    floor = cycle.get(("rawLettuce", 1))
    if not floor:
        return ""
    round_trip = 1e6 / floor["primaryMetric"]["score"] / 2
    return ("\n\nWith one thread a cycle is two loopback round trips in a row, about %.0f µs each on this machine "
            "(the floor's time per cycle, halved). We think most of that is the time it takes to wake the threads on the other end "
            "(Lettuce's I/O thread, Redis, the caller) on a virtual machine's idle cores; it varies from run to "
            "run, and with how busy the cores are, by more than the differences between the variants." % round_trip)


def si_rejections(cycle):
    rejected = []
    for (method, threads), entry in sorted(cycle.items(), key=lambda item: item[0][1]):
        score = entry.get("secondaryMetrics", {}).get("rejected", {}).get("score")
        if method == "springIntegration" and score:
            rejected.append("%s per second with %d thread%s (%.3f%% of its cycles)" % (
                number(score, 1), threads, "" if threads == 1 else "s", 100 * score / entry["primaryMetric"]["score"]))
    if not rejected:
        return ""
    others = [method for (method, _), entry in cycle.items() if method != "springIntegration"
              and entry.get("secondaryMetrics", {}).get("rejected", {}).get("score")]
    return ("\n\nIn this run Spring Integration also *rejected* %s, although every key was free: its local locks "
            "are striped, the lock key's `hashCode() & mask` choosing one of 8192 `ReentrantLock`s (the stripe count "
            "follows the cache capacity), so when two threads' current keys share a stripe, one `tryLock()` fails "
            "without asking Redis. A caller of `tryLock(timeout)` would wait for the other thread instead.%s" % (
                " and ".join(rejected), "" if others else " The other variants keep no such local state, and "
                "rejected nothing."))


def ours_paragraph(commands, cycle):
    gap = ""
    ratios = []
    for threads in sorted({t for (_, t) in cycle}):
        if ("lockTemplate", threads) in cycle and ("rawLettuce", threads) in cycle:
            ratios.append("%s of the floor's throughput with %d thread%s" % (
                format_ratio(ratio(cycle[("lockTemplate", threads)]["primaryMetric"],
                                   cycle[("rawLettuce", threads)]["primaryMetric"])),
                threads, "" if threads == 1 else "s"))
    if ratios:
        gap = " (in this run: " + ", ".join(ratios) + ")"
    measured = ""
    if commands and "LOCK_TEMPLATE" in commands["variants"]:
        counted = commands["variants"]["LOCK_TEMPLATE"]
        measured = " (measured per cycle: %s)" % breakdown(counted["inScripts"], commands["cycles"])
    return ("**This starter** makes the same two requests as the floor: a plain `SET NX PX` to acquire and an "
            "`EVALSHA` of a compare-and-delete script to release, which runs inside Redis%s. The release script "
            "publishes the release only when a waiter has marked the lock (a waiter's attempt appends `!` to the "
            "holder's value), and the fencing token is drawn only when the lease's `fencingToken()` is read, so a "
            "plain cycle runs no fencing or notification commands. On the client, each cycle draws a 128-bit owner "
            "token from a buffered `DRBG` stripe of its thread, builds the store key, sends both commands on "
            "Lettuce's shared connection directly (no `RedisTemplate` or script executor), waits for each answer "
            "spinning for up to 100 µs before it parks when no other thread waits for Redis (the floor, like the "
            "other clients, parks at once; *reply spin 0* is the same cycle without the spin), and lists the lease "
            "among the template's held locks, where the renewer finds it (renewal is on by default, and a lease "
            "released before its first renewal costs the renewer nothing more). Any gap to the floor comes from "
            "that client path%s.\n\n" % (measured, gap))


def quote(value):
    return "\"%s\"" % value if value else "?"


def strip_markup(label):
    return re.sub(r"[*`]", "", label)


SETUP = """\
**Harness.** `LockCycleBenchmarks` has one `@Benchmark` method per variant; its subclasses `OneThread`
(`@Threads(1)`) and `EightThreads` (`@Threads(8)`) run them all with one and with eight threads, in one JMH run.
Each benchmark runs in its own forked JVM, whose `@State(Scope.Benchmark)` starts a fresh `redis-server` (the
test kit's `RedisServer`: same binary, same flags, no persistence, a free loopback port) in
`@Setup(Level.Trial)`, creates that variant's client, and closes both in `@TearDown(Level.Trial)`. So every
variant meets the same, empty Redis, on the same machine, in the same run; Redis, the client's I/O threads and
the benchmark threads share the 2 cores.

**Keys.** Each thread cycles through its own 1024 keys (`bench:{thread}:{i}`, built before the measurement),
and each variant adds its usual prefix (`lock:` for ours, `bench-registry:` for Spring Integration,
`job-lock:default:` for ShedLock, none for the floor and Redisson). A key is released before its thread comes
back to it and no two threads share one, so no lock is ever contended and every acquisition goes to Redis.
Rotating through a bounded set, rather than using a new key each time, keeps every variant's memory flat:
Spring Integration caches one lock object per key (its cache capacity is raised from 256 to 8192 so that all
keys of the eight threads fit, as in an application that reuses a bounded set of keys; no
`expireUnusedOlderThan` call is then needed), and this starter keeps a fencing counter per key for 24 hours.

**Connections.** The floor, this starter, Spring Integration and ShedLock all run on one Lettuce connection
shared by every thread: the floor on a plain `StatefulRedisConnection`, the others on a
`LettuceConnectionFactory` with Spring Boot's defaults (shared native connection). Redisson brings its own
client and pool (defaults: up to 64 connections, 32 Netty threads); it cannot share a Lettuce connection.
Time-to-live: 30 s everywhere."""

READING = """\
**Two round trips is the floor.** A safe lock on one Redis needs one request to take it (`SET NX PX`) and one
to release it (compare-and-delete, which needs a script or Redis 8.4's `DELEX ... IFEQ`). On loopback a round
trip costs far more than the client code around it, so every variant that makes two synchronous requests per
cycle lands within a small factor of the floor, and the differences come from what each client does per call
and how it hands commands to its I/O threads. With eight threads on one shared connection, Lettuce pipelines
the threads' commands, so throughput grows with the thread count until the 2 cores are busy; from then on,
work per cycle counts, in Redis as well as in the client. That is why ShedLock's default can match or beat the
floor with eight threads: its release is a plain `DEL`, with no owner check and no script, so Redis does less
per cycle. The floor is the cheapest *owner-checked* cycle, not the cheapest cycle.{latency_note}

{ours}

**Redisson** sends three requests per cycle: two `EVALSHA`s it waits for (its lock is a hash with a reentrancy
counter: `EXISTS`, `HEXISTS`, `HINCRBY`, `PEXPIRE`; unlock decrements it, `DEL`s it, `PUBLISH`es to waiters and
`SET`s an *unlock latch* key so that a retried unlock is idempotent), then a `DEL` of that latch key, which
it sends without waiting for the reply. So the caller waits for two round trips, like everyone else, but Redis
serves three requests and runs more commands per cycle than for any other variant. We think that, and
Redisson's client-side cost per request, explain why it falls behind most with eight threads, when the 2 cores
rather than the round trips are the limit: each command is sent on a connection checked out of its pool
(instead of one shared, pipelined connection), goes through its asynchronous executor, and gets its own
response-timeout task on a timer; and Redisson runs its own Netty threads next to Redis and the benchmark
threads.

**Spring Integration** makes two `EVALSHA` requests too, but around them: `obtain()` takes a registry-wide
`ReentrantLock`; each lock also takes a local `ReentrantLock` (striped by key hash); and `unlock()` hands the
delete to a thread of a cached thread pool and waits for it on a `CountDownLatch`, a thread hand-off per
release. Its delete first tries Redis 8.4's `DELEX`, which this Redis 7 rejects once; it then falls back to
its Lua script (logged once at WARN, silenced in the benchmark's `logback.xml`).{si_rejections}

**ShedLock** is a lock for scheduled jobs. By default its unlock is a plain `DEL` that does not check the owner
(so a holder whose lock expired and was taken over deletes the new holder's lock), which makes it the only
variant with no script at all. Each `lock()` builds its value with `String.format` from the time, the host
name and a `UUID.randomUUID()`. With `safeUpdate(true)` the unlock becomes an owner-checked compare-and-delete
script, sent through a `DefaultRedisScript` created on every call (whose SHA-1 is then computed every call).

Treat differences smaller than the error bars, or than the spread of the iterations, as noise: this is a shared
2-core machine, and the load average in the [Machine](#machine) table shows how busy it was."""

ADAPTERS_READING = """\
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

VERSIONS = """\
## Versions

- **Spring Integration**: Spring Boot 4.1.1 manages 7.1.1, but `spring-integration-redis:7.1.1` is missing
  from the Maven repository these machines reach (its POM and jar are absent; 7.1.2 is listed, but its
  `spring-integration-core` is missing). The module pins `spring-integration-core` and
  `spring-integration-redis` to **7.1.0**, the newest release whose modules all resolve; it runs on Spring
  Framework 7.0.9 and Spring Data Redis 4.1.1 without problems.
- **ShedLock**: `shedlock-provider-redis-spring` **7.10.1** (the newest release; 7.0.0, 7.2.2, 7.5.0 and
  7.6.0 are listed but missing here). Its 7.x line targets Spring Framework 7; it works with Boot 4.1.1's
  Spring Data Redis 4.1.1.
- **Redisson** 4.7.0 (works with the Boot 4.1.1 BOM), **JMH** 1.37, **maven-shade-plugin** 3.6.0.
- Every peer resolved and worked; none had to be left out."""


if __name__ == "__main__":
    main()
