"""The section of docs/PERFORMANCE.md on the stores whose expiry no application server's wall clock decides any
longer, from the results of benchmarks/clock.sh (benchmarks/results/clock/):

- compare: {base,head}-{pass}-jmh.json (ClockStoreCycleBenchmarks) and {base,head}-{pass}-handoff.json
  (HandoffLatency), pooled per side as compare.py pools them;
- takeover.json (TakeoverDelay): the crashed-holder takeover delay per store;
- loss-head.json and loss-base.json (LossDetectionLatency): the time from a lease's local deadline and from the
  store's expiry to the cancellation of an onLeaseLost = CANCEL method.

Run alone, from the repository root, `PYTHONPATH=benchmarks python3 -m report.clock [RESULTS_DIR]` prints the
section as the run's summary (benchmarks/clock.sh writes it to RESULTS_DIR/summary.md)."""

import os
import statistics
import sys

from . import fmt, results, stats

DIRECTORY = "clock"
TITLE = "Expiry without the instances' wall clocks: before and after, takeover and loss detection"

# (benchmark, HandoffLock, store), in the order of the run (DynamoDB last)
STORES = [
    ("etcdLockTemplate", "ETCD_STARTER", "etcd"),
    ("zooKeeperLockTemplate", "ZOOKEEPER_STARTER", "ZooKeeper"),
    ("memcachedLockTemplate", "MEMCACHED_STARTER", "Memcached"),
    ("dynamoDbLockTemplate", "DYNAMODB_STARTER", "DynamoDB Local"),
]

TAKEOVER_NOTES = {
    "REDIS": "`SET PX`: Redis counts the time-to-live",
    "POSTGRESQL": "the database's clock counts it",
    "MARIADB": "the database's clock counts it",
    "ETCD": "observed silence on `mod_revision`; etcd's lease frees abandoned keys",
    "ZOOKEEPER": "observed silence on `mzxid`",
    "MEMCACHED": "observed silence on the CAS value; Memcached's own expiry frees abandoned keys",
    "DYNAMODB": "observed silence on the record version",
}

LOSS_CASES = [
    ("REDIS_RENEWAL_OFF", "Redis, renewal off"),
    ("REDIS_RENEWALS_FAILING", "Redis, renewals failing (`redis-server` stopped with `SIGSTOP`)"),
    ("MEMORY_RENEWAL_OFF", "in-memory, renewal off"),
    ("MEMORY_RENEWALS_FAILING", "in-memory, renewals failing (its extensions held)"),
]

READING = """\
**Reading the results.**

- **The cycle** is within its error on all four stores, and nothing in its path changed in kind: taking a
  free key is still one conditional write (etcd's `version = 0` transaction, ZooKeeper's `setData` at the
  version read, Memcached's `add`, DynamoDB's `UpdateItem` on `attribute_not_exists(owner)`) and freeing it
  one more; the record holds a duration where it held an expiry time. The errors are wide (±0.23 on
  ZooKeeper's ratio, about ±1 on etcd's and on DynamoDB Local's, which runs in the benchmark's own JVM):
  other builds and tests raised the load average to 8.5 during the passes, so this run excludes only a large
  change, and the cycle needs measuring again on an idle machine to say more.
- **The handoff** on Memcached and DynamoDB (polled, no notifications) is within its error. On etcd and
  ZooKeeper the pooled medians came out 1.42 and 1.49 times the base's, outside the bootstrap intervals, but
  the first run's passes overlap or nearly do (the head's first pass ran in the heaviest load, the base's
  last in the lightest). The second run, on an idle machine (load below 1.2), is the one to read: etcd
  1.05 (1.02 to 1.09) with the passes overlapping (base 3.91 and 4.17 ms, head 4.07 and 4.47 ms), not
  decided; **ZooKeeper 1.09 (1.07 to 1.13), slower**, both head passes (1.82, 1.84 ms) above both base passes
  (1.63, 1.71 ms): about 0.15 ms per handoff, p99 5.8 ms against 5.2 ms. The store's part of the handoff
  makes the same round trips as before (the waiter, woken by the release notification, reads the node and
  writes it at the version read; the release is one write at the version this store wrote), so the cost is
  not a round trip. Where it goes is not known: the engine's new work per acquisition is a check of the
  local deadline's timer (`LeaseDeadlines`), which schedules anything only when that timer is not already
  armed for an earlier deadline, and the store's is a few map operations of its record of sightings; neither
  was measured apart. Two passes a side are few: this needs a longer idle run before it is called a cost.
- **Extensions** (not in the cycle, which releases at once) now always rewrite the record, so that a
  contender sees a new version: one write per renewal, every third of the time-to-live, where a store that
  kept an expiry time wrote that time.
- **Takeover after a crash.** Where the store counts the time-to-live (Redis, PostgreSQL and MariaDB through
  the JDBC store), a contender gets the key at the time-to-live after the holder's last confirmed write,
  whether it was watching or looks late. On the four observed-silence stores a late contender waits a whole
  time-to-live from its first sight: 2 × TTL after the last write (Memcached's own expiry, the time-to-live
  rounded up to whole seconds plus three, and etcd's lease, at least the time-to-live plus one second, come
  later than that at a 1 s time-to-live). A watching contender gets in at the time-to-live on ZooKeeper,
  whose watch wakes it at every renewal, so it sees the last version as it is written; on etcd, Memcached and
  DynamoDB it sees the holder's renewals only at its polls (etcd's watch reports deletions only; the other
  two notify no one), which back off to 1 s and 0.5 s, so it counts from a later first sight: 0.27 to 0.34 s
  later at the median, up to 0.48 s. In all, a crashed holder keeps a key at most about 2 × TTL on those
  four stores, one TTL on the others.
- **Loss detection.** With renewal off, or with renewals that the store no longer answers (Redis stopped, or
  the in-memory store's extensions held), the method is interrupted within about a millisecond of its local
  deadline at the median and 5 ms at the 99th percentile, so about a tenth of the time-to-live (99 ms of
  1 s) before the store could let the lock go. The base interrupted it in none of its trials within 3 s,
  that is 2 s after the store's expiry: without renewal no loss was looked for, and with the renewals
  hanging on a stopped store no loss was found in that time either."""


STEPS = ("compare", "takeover", "loss")


def load(directory):
    """The results of benchmarks/clock.sh, or None when it has not run."""
    if not os.path.isdir(directory):
        return None
    clock = {
        "base": results.pooled_jmh(directory, "base"),
        "head": results.pooled_jmh(directory, "head"),
        "base_handoffs": results.pooled_handoffs(directory, "base", "handoff"),
        "head_handoffs": results.pooled_handoffs(directory, "head", "handoff"),
        "passes": len([n for n in os.listdir(directory) if n.endswith("-jmh.json")]),
        "directory": directory,
        "takeover": results.load(directory, "takeover.json"),
        "loss_head": results.load(directory, "loss-head.json"),
        "loss_base": results.load(directory, "loss-base.json"),
        "machine": results.load(directory, "machine.json") or {},
        "load": results.lines(directory, "load.txt"),
        "revisions": results.lines(directory, "revisions.txt"),
        "commands": {step: results.lines(directory, "commands-%s.txt" % step) for step in STEPS},
        "elapsed": {step: int(results.text(directory, "elapsed-%s.txt" % step)) for step in STEPS
                    if results.text(directory, "elapsed-%s.txt" % step)},
    }
    recheck = os.path.join(directory, "handoff-recheck")
    if os.path.isdir(recheck):
        clock["recheck"] = {
            "directory": recheck,
            "base_handoffs": results.pooled_handoffs(recheck, "base", "handoff"),
            "head_handoffs": results.pooled_handoffs(recheck, "head", "handoff"),
            "load": results.lines(recheck, "load.txt"),
            "revisions": results.lines(recheck, "revisions.txt"),
            "commands": results.lines(recheck, "commands-compare.txt"),
        }
    if not (clock["base"] or clock["takeover"] or clock["loss_head"]):
        return None
    return clock


def jmh_key(pooled, method):
    """The key of the pooled JMH results whose benchmark is the method, or None."""
    for key in pooled:
        if key[0].endswith("." + method):
            return key
    return None


def cycle_rows(clock):
    """Per store measured on both sides: the means, errors, ratio and verdict of the cycle."""
    rows = []
    for method, _, store in STORES:
        base_key, head_key = jmh_key(clock["base"], method), jmh_key(clock["head"], method)
        if not base_key or not head_key:
            continue
        base_mean, base_err = stats.interval(clock["base"][base_key][1])
        head_mean, head_err = stats.interval(clock["head"][head_key][1])
        ratio, ratio_err = stats.ratio_with_error(head_mean, head_err, base_mean, base_err)
        rows.append((store, base_mean, base_err, head_mean, head_err, ratio, ratio_err,
                     stats.change_verdict(base_mean, base_err, head_mean, head_err)))
    return rows


def handoff_rows(clock):
    """Per store measured on both sides: the handoff's medians, p99s, ratio, interval and verdict."""
    rows = []
    for _, lock, store in STORES:
        base, head = clock["base_handoffs"].get(lock), clock["head_handoffs"].get(lock)
        if not base or not head:
            continue
        low, high = stats.median_ratio_interval(head, base)
        ratio = statistics.median(head) / statistics.median(base)
        verdict = "within error" if low <= 1 <= high else ("faster" if ratio < 1 else "**slower**")
        base, head = sorted(base), sorted(head)
        rows.append((store, stats.percentile(base, 50) / 1000, stats.percentile(head, 50) / 1000,
                     stats.percentile(base, 99) / 1000, stats.percentile(head, 99) / 1000, ratio, low, high,
                     verdict))
    return rows


def pass_medians(directory, lock):
    """{side: [(pass, median ms)]} of one lock's handoffs, pass by pass."""
    medians = {"base": [], "head": []}
    for name in sorted(os.listdir(directory)):
        parts = name.split("-")
        if len(parts) == 3 and parts[2] == "handoff.json" and parts[0] in medians:
            setup = results.load(directory, name)["setups"].get(lock)
            if setup:
                medians[parts[0]].append((int(parts[1]), statistics.median(setup["samples_us"]) / 1000))
    return medians


def ms(value):
    """Milliseconds with one decimal: "1.2 ms"."""
    return "%.1f ms" % value


def section(clock, w):
    """The section, or why it is missing."""
    if not fmt.section(w, TITLE, clock, "there are no results in `benchmarks/results/%s/` (`benchmarks/clock.sh`)"
                       % DIRECTORY):
        return
    machine = clock["machine"]
    w("Measured by `benchmarks/clock.sh` on %s (%s processors, %s, %s of memory). The etcd, ZooKeeper, Memcached and DynamoDB stores no "
      "longer judge a lock's expiry by the instances' wall clocks: a record holds its time-to-live as a "
      "duration, and a contender takes it over only once it has seen the record's version unchanged for that "
      "long on its own monotonic clock; a lease is lost locally at its time-to-live less a margin after its "
      "last confirmed write was sent. Revisions:" % (
          machine.get("date", "an unknown date"), machine.get("nproc", "?"), machine.get("cpu_model", "CPU unknown"),
          machine.get("memory", "?")))
    w("")
    for line in clock["revisions"]:
        w("- " + line)
    w("")
    if clock["load"]:
        w("Load average (1, 5, 15 min) at each step's start and end. The machine's 2 cores were shared with "
          "other builds and tests; before each step the script waits a while (`LOAD_WAIT`, here as "
          "listed) for a one-minute load average below 1.5, then runs anyway:")
        w("")
        fmt.code_block(w, clock["load"])

    cycles = cycle_rows(clock)
    if cycles:
        passes = clock["passes"]
        w("### The cycle and the handoff, before and after")
        w("")
        w("The uncontended acquire + release, one thread (`ClockStoreCycleBenchmarks`; each store on a fresh "
          "server, a 30 s time-to-live, keys rotating over 1,024), and the handoff to a waiter in another JVM "
          "(`HandoffLatency`, 300 handoffs per lock and pass). The base and head take turns in %d passes (base, "
          "head, head, base), each revision with its own library modules and the same benchmark code; a pass "
          "runs every benchmark in one fork of 3 × 2 s warm-up and 5 × 2 s measurement. A cycle's figure is "
          "the mean over every measured iteration of a side with its 99.9 %% confidence interval, and the "
          "ratio's error is propagated from both; a handoff ratio is that of the pooled medians with a "
          "bootstrap 95 %% interval." % passes)
        w("")
        w("| store | base (ops/s) | head (ops/s) | head ÷ base | verdict |")
        w("|---|---:|---:|---:|---|")
        for store, bm, be, hm, he, r, re, verdict in cycles:
            w("| %s | %.0f ± %.0f | %.0f ± %.0f | %.3f ± %.3f | %s |" % (store, bm, be, hm, he, r, re, verdict))
        w("")
    handoff_table(clock, w)
    recheck = clock.get("recheck")
    if recheck and handoff_rows(recheck):
        w("The handoffs on etcd and ZooKeeper alone, again, in a second run of four passes once the machine was "
          "idle (`handoff-recheck/`; its HEAD, %s, differs from the first run's in tests and the test kit only, "
          "not in the library modules measured). Load: %s." % (
              next((line.split()[2].strip("()")[:10] for line in recheck.get("revisions", [])
                    if line.startswith("head:")), "?"),
              "; ".join(line.split(" ", 1)[1] for line in recheck["load"] if "start" in line or "end" in line)))
        w("")
        handoff_table(recheck, w, explain=False)
        fmt.code_block(w, recheck["commands"])
    section_rest(clock, w)


def handoff_table(clock, w, explain=True):
    """The handoffs before and after, with each pass's median."""
    handoffs = handoff_rows(clock)
    if handoffs:
        w("| store | base p50 | head p50 | base p99 | head p99 | head ÷ base, p50 (95 % interval) | verdict "
          "| p50 of each pass, base; head |")
        w("|---|---:|---:|---:|---:|---|---|---|")
        for store, bp50, hp50, bp99, hp99, r, low, high, verdict in handoffs:
            lock = next(lock for _, lock, name in STORES if name == store)
            medians = pass_medians(clock["directory"], lock)
            w("| %s | %s | %s | %s | %s | %.3f (%.3f to %.3f) | %s | %s; %s |" % (
                store, ms(bp50), ms(hp50), ms(bp99), ms(hp99), r, low, high, verdict,
                ", ".join("%.2f" % m for _, m in medians["base"]), ", ".join("%.2f" % m for _, m in medians["head"])))
        w("")
        if explain:
            w("The bootstrap interval counts every handoff as independent; the medians of the passes show how much "
              "a pass moves with the machine's load, which the interval does not: a ratio outside its interval "
              "whose passes overlap is not decided.")
            w("")


def section_rest(clock, w):
    """The takeover and loss detection tables, the reading and the commands that ran."""
    takeover = clock["takeover"]
    if takeover:
        w("### Takeover after a crashed holder")
        w("")
        w("`TakeoverDelay`: a holder in a child JVM takes keys with a %d ms time-to-live, renews them every third "
          "of it, and is killed with `SIGKILL` 400 to 900 ms later; a contender in the measuring JVM, waiting "
          "with the template's own waiting, notes when it acquires. Times are from the holder's last write that "
          "the store confirmed (counted from when it was sent) and from the kill, on the system-wide monotonic "
          "clock. *Watching*: the contender waits on the key since before the crash. *Late*: it first looks "
          "%d ms after the holder's last write is a whole time-to-live old. %d kills per store, %d keys per case "
          "and kill: with fewer than 100 samples, a case's p99 is its largest." % (
              takeover["ttl_ms"], takeover["late_after_ms"], takeover["kills"], takeover["keys_per_case"]))
        w("")
        w("| store | expiry | contender | from last write p50 | p99 | from the kill p50 | p99 | samples |")
        w("|---|---|---|---:|---:|---:|---:|---:|")
        for name, store in takeover["stores"].items():
            for case in ("watching", "late"):
                values = store.get(case)
                if not values or not values.get("from_last_write_ms"):
                    continue
                write, kill = values["from_last_write_ms"], values["from_kill_ms"]
                w("| %s | %s | %s | %s | %s | %s | %s | %d |" % (
                    store["description"] if case == "watching" else "", TAKEOVER_NOTES.get(name, "")
                    if case == "watching" else "", case, ms(write["p50"]), ms(write["p99"]), ms(kill["p50"]),
                    ms(kill["p99"]), values["samples"]))
            if store.get("failures"):
                w("| | | %d contenders did not get the key within 15 s | | | | | |" % store["failures"])
        in_flight = sum(store.get(case, {}).get("in_flight", 0) for store in takeover["stores"].values()
                        for case in ("watching", "late"))
        w("")
        w("%s of the samples had a renewal sent but not yet confirmed when the holder was killed (which the "
          "store may have applied after the last confirmed write)." % (
              "None" if in_flight == 0 else "%d" % in_flight))
        w("")

    if clock["loss_head"]:
        w("### Loss detection: from the local deadline and from the store's expiry to the cancellation")
        w("")
        head = clock["loss_head"]
        w("`LossDetectionLatency`: an `@ExclusiveRequest(onLeaseLost = CANCEL)` method with a %d ms time-to-live "
          "sleeps past it; the interceptor interrupts it when the lease is lost. The local deadline is the "
          "sending of the last acquisition or renewal that the store confirmed plus the time-to-live less the "
          "%.2f loss margin; the store's expiry is that time plus the whole time-to-live (the earliest the store "
          "can let the lock go), so a negative figure from it is a cancellation before the lock could be taken "
          "by another. With renewals failing, the store stops answering 0.45 to 0.6 of a time-to-live into the "
          "method, after its first renewal. The cases take turns, %d trials each on the head%s." % (
              head["ttl_ms"], head["loss_margin"], head["trials"],
              (", %d on the base" % clock["loss_base"]["trials"]) if clock["loss_base"] else ""))
        w("")
        w("| revision | case | from local deadline p50 | p99 | from the store's expiry p50 | p99 | "
          "not cancelled within %d ms |" % head["limit_ms"])
        w("|---|---|---:|---:|---:|---:|---:|")
        for label, data in (("head", head), ("base", clock["loss_base"])):
            if not data:
                continue
            for name, description in LOSS_CASES:
                case = data["cases"].get(name)
                if not case:
                    continue
                deadline, expiry = case.get("from_local_deadline_ms"), case.get("from_store_expiry_ms")
                if deadline:
                    w("| %s | %s | %.2f ms | %.2f ms | %.2f ms | %.2f ms | %d of %d |" % (
                        label, description, deadline["p50"], deadline["p99"], expiry["p50"], expiry["p99"],
                        case["not_cancelled"], case["samples"] + case["not_cancelled"]))
                else:
                    w("| %s | %s | – | – | – | – | %d of %d |" % (
                        label, description, case["not_cancelled"], case["samples"] + case["not_cancelled"]))
        w("")
        w("The base has no local deadline; a base trial's figures, when it is cancelled at all, are measured "
          "from the same point (the time-to-live less a tenth after the last confirmed write).")
        w("")

    w(READING)
    w("")
    commands = [line for step in STEPS for line in clock["commands"][step]]
    if commands:
        w("The commands `benchmarks/clock.sh` ran (%s):" % ", ".join(
            "%s %s" % (step, fmt.duration(seconds)) for step, seconds in clock["elapsed"].items()))
        w("")
        fmt.code_block(w, commands)


def main():
    """Print the section for RESULTS_DIR (default: benchmarks/results/clock)."""
    benchmarks = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    directory = sys.argv[1] if len(sys.argv) > 1 else os.path.join(benchmarks, "results", DIRECTORY)
    section(load(directory), print)


if __name__ == "__main__":
    main()
