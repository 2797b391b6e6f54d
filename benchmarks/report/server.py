"""The section of docs/PERFORMANCE.md on the lock server (module lock-server, an HTTP server in front of LockTemplate),
from the results of its two load scripts, which benchmarks/run.sh runs: the acquire + release cycle over HTTP beside
the direct LockTemplate cycle on the same Redis (lock-server/load/run.sh, server-cycle.json) and the long-poll
handoff across two server instances beside the handoff between two LockTemplates (lock-server/load/handoff.sh,
server-handoff.json), and its line of the page's summary."""

from . import fmt, results

CYCLE = "server-cycle.json"
HANDOFF = "server-handoff.json"
TITLE = "The lock server over HTTP"
ANCHOR = "the-lock-server-over-http"

CROSSES = """\
**What each path crosses.** All of it runs on the same machine: the load driver, the server's JVM (two in the
handoff) and one `redis-server` share its cores.

- **The cycle, direct**: the driver's `LockTemplate` acquires, reads the lease's fencing token (which the HTTP
  answer carries) and releases: three round trips to Redis, since the Redis store draws a lease's fencing token
  when its holder first asks for it, one more than in
  [the cycle on Redis](#uncontended-acquire--release-cycle-on-redis), whose holder never asks. The server hands
  its leases to clients outside the JVM, so its acquisition draws the token in the same script: two round trips
  per HTTP cycle, as for the floor references.
- **The cycle, HTTP**: a `POST` that acquires and a `DELETE` with the owner token that releases, each a request on
  the thread's own kept-alive HTTP/1.1 connection. Each request crosses Tomcat, the request timer
  (`http.server.requests`), the API key check (a SHA-256 of the key), the lock servlet, the server's `LockTemplate`
  and its one round trip to Redis, and a JSON answer; an acquisition without a wait is answered on the request
  thread. The driver writes and reads the HTTP by hand on a socket, so
  that the client's work is as small as a request allows: the difference to the direct cycle is the server's.
- **The handoff, direct**: the holder's release reaches Redis, which tells the waiting `LockTemplate`'s
  subscription; that template takes the lock and wakes the waiting thread with the answer.
- **The handoff, HTTP**: the clock starts when the holder sends its `DELETE` to instance A, so A's request and its
  release are counted. Redis tells instance B of the release; B's waiting acquisition (a long poll,
  `{"waitMillis":5000}`, which holds no request thread while it waits) takes the lock, the lock servlet writes its
  answer on one of Tomcat's threads, and the waiter's JDK `HttpClient` reads it and wakes the waiting thread: two server
  processes and two HTTP exchanges (the release's request, the long poll's answer) more than the direct handoff."""


def load(directory):
    """The two scripts' results and the commands that ran them; either result is None when its file is missing."""
    return {"cycle": results.load(directory, CYCLE), "handoff": results.load(directory, HANDOFF),
            "commands_run": [line for line in results.commands_run(directory) if "lock-server" in line]}


def measured(result):
    """Whether the script ran and was not skipped."""
    return bool(result) and "skipped" not in result


def missing_text(result, script, name):
    """Why a measurement is missing: skipped, or no file."""
    if result and "skipped" in result:
        return "Skipped in this run: %s." % result["skipped"]
    return "Not measured in this run: there is no `benchmarks/results/%s` (`%s`)." % (name, script)


def cycle_rows(cycle):
    """threads -> (per round: (round, {mode: measurement})), the modes being direct, http and the floors'."""
    by_threads = {}
    for entry in cycle.get("measurements", []):
        rounds = by_threads.setdefault(entry["threads"], {})
        rounds.setdefault(entry["round"], {})[entry["mode"]] = entry
    return {threads: sorted(rounds.items()) for threads, rounds in sorted(by_threads.items())}


def mean_rates(rows, mode="http"):
    """The mean cycles/s of the direct cycle and of the mode's over the rounds that have both, or None."""
    pairs = [(modes["direct"]["cycles_per_s"], modes[mode]["cycles_per_s"]) for _, modes in rows
             if modes.get("direct") and modes.get(mode)]
    if not pairs:
        return None
    return sum(d for d, _ in pairs) / len(pairs), sum(h for _, h in pairs) / len(pairs), len(pairs)


def latencies(entry):
    """A measurement's p50 / p99, or a dash."""
    return "%s / %s" % (fmt.ms(entry["p50_us"]), fmt.ms(entry["p99_us"])) if entry else "–"


def summary(server):
    """The lines of the page's summary, none when neither script was measured."""
    if not server:
        return []
    parts = []
    cycle, handoff = server["cycle"], server["handoff"]
    if measured(cycle):
        rates = []
        for threads, rows in cycle_rows(cycle).items():
            means = mean_rates(rows)
            if means:
                rates.append("%s cycles/s against %s direct with %s (%.2f×)" % (
                    fmt.number(means[1]), fmt.number(means[0]), fmt.threads_text(threads), means[1] / means[0]))
        if rates:
            parts.append("the acquire + release cycle over HTTP runs at " + " and ".join(rates)
                         + (" (measured on %s)" % cycle["started"] if cycle.get("started") else ""))
    if measured(handoff):
        setups = handoff.get("setups", {})
        if "HTTP" in setups and "DIRECT" in setups:
            parts.append("a handoff between two instances takes %s at the median, against %s between two "
                         "`LockTemplate`s%s" % (fmt.ms(setups["HTTP"]["p50_us"]), fmt.ms(setups["DIRECT"]["p50_us"]),
                                               " (measured on %s)" % handoff["started"] if handoff.get("started")
                                               else ""))
    if not parts:
        return []
    return ["- **Lock server** (beside the `LockTemplate` it wraps, on the same Redis): %s. See "
            "[The lock server over HTTP](#%s)." % ("; ".join(parts), ANCHOR)]


def section(server, w):
    """The section, with what is missing said in its place."""
    w("## " + TITLE)
    w("")
    cycle = server["cycle"] if server else None
    handoff = server["handoff"] if server else None
    w("The lock server (module `lock-server`, see [its guide](lock-server.md)) answers HTTP clients with a "
      "`LockTemplate` of its own. These two measurements put it beside the `LockTemplate` it wraps, on the same Redis, "
      "to show what the HTTP hop costs a client that could use the template directly.")
    w("")
    for title, result, script, name, table in (
            ("The acquire + release cycle", cycle, "lock-server/load/run.sh", CYCLE, cycle_table),
            ("The handoff between two instances", handoff, "lock-server/load/handoff.sh", HANDOFF, handoff_table)):
        w("### " + title)
        w("")
        if measured(result):
            table(result, w)
        else:
            w(missing_text(result, script, name))
            w("")
    if measured(cycle) or measured(handoff):
        w(CROSSES)
        w("")
    if server and server["commands_run"]:
        w("The commands `benchmarks/run.sh` ran for this section:")
    else:
        w("The commands that measure them, from the repository root, as `benchmarks/run.sh` runs them:")
    w("")
    fmt.code_block(w, server["commands_run"] if server and server["commands_run"] else [
        "./mvnw -q -B -pl lock-server -am package -Dmaven.test.skip=true",
        "env SKIP_BUILD=1 lock-server/load/run.sh benchmarks/results/%s" % CYCLE,
        "env SKIP_BUILD=1 HANDOFFS=1000 lock-server/load/handoff.sh benchmarks/results/%s" % HANDOFF], "bash")


def cycle_table(cycle, w):
    """The cycle's settings, its rates per round and thread count, then the floor and CPU tables."""
    loads = [cycle.get("loadavg_start") or [], cycle.get("loadavg_end") or []]
    rounds = cycle.get("rounds")
    w("Measured by `lock-server/load/run.sh`%s: the server as its own JVM (the executable jar, `lock.store=redis`, "
      "rate limit off) and the load driver (`LockCycleLoad.java`) on one `redis-server`; `%s`, Redis %s, %s cores; "
      "load average %s when the measurements began and %s when they ended. The server is first warmed up with %s s of "
      "HTTP cycles, unmeasured. Each measurement runs %s s after a warm-up of "
      "%s s, on threads that each take their own keys (1,000 per thread, 30 s time-to-live); the direct and the HTTP "
      "cycle take turns, thread count by thread count, in %s round%s. *HTTP ÷ direct* is the ratio of the cycles per "
      "second%s." % (
          " on " + cycle["started"] if cycle.get("started") else "",
          cycle.get("java", "an unknown JDK"), cycle.get("redis_server", "unknown"), cycle.get("cores", "unknown"),
          " ".join(loads[0]) or "unknown", " ".join(loads[1]) or "unknown", cycle.get("server_warm_up_s", 0),
          cycle.get("duration_s"),
          cycle.get("warm_up_s"), rounds, "" if rounds == 1 else "s",
          "" if rounds == 1 else "; the *mean* row averages the rounds' rates (percentiles of separate rounds do not "
          "average, so it has none)"))
    w("")
    try:
        # The start alone: when the measurements end, the load average shows the run's own processes
        busy = float(loads[0][0]) > float(cycle.get("cores"))
    except (TypeError, ValueError):
        busy = False
    if busy:
        w("**This run was made on a busy machine** (a load average above the number of cores when it began): the "
          "driver, the server and Redis waited for a core in turn with other processes, so the rates move from round "
          "to round and the ratio says little. The comparison needs `lock-server/load/run.sh` again on an idle "
          "machine.")
        w("")
    w("| threads | round | direct cycles/s | HTTP cycles/s | HTTP ÷ direct | direct p50 / p99 | HTTP p50 / p99 |")
    w("|---:|---|---:|---:|---:|---:|---:|")
    for threads, rows in cycle_rows(cycle).items():
        for round_number, modes in rows:
            direct, http = modes.get("direct"), modes.get("http")
            w("| %d | %s | %s | %s | %s | %s | %s |" % (
                threads, round_number, fmt.number(direct["cycles_per_s"]) if direct else "–",
                fmt.number(http["cycles_per_s"]) if http else "–",
                "%.2f" % (http["cycles_per_s"] / direct["cycles_per_s"])
                if direct and http and direct["cycles_per_s"] else "–",
                latencies(direct), latencies(http)))
        means = mean_rates(rows)
        if means and len(rows) > 1:
            w("| %d | **mean** of %d | %s | %s | **%.2f** | | |" % (
                threads, means[2], fmt.number(means[0]), fmt.number(means[1]), means[1] / means[0]))
    w("")
    floor_table(cycle, w)
    cpu_table(cycle, w)


FLOOR_LABELS = {"floor-tomcat": "Tomcat floor", "floor-netty": "Netty floor"}


def http_modes(cycle):
    """(mode, label) of each HTTP cycle the run measured: the server's, then the floor references'."""
    return [("http", "HTTP")] + [(mode, FLOOR_LABELS[mode]) for mode in cycle.get("floors", [])
                                 if mode in FLOOR_LABELS]


def floor_table(cycle, w):
    """The server's HTTP cycle beside the floor references', each as a ratio to the direct cycle of its round."""
    compared = http_modes(cycle)
    if len(compared) == 1:
        return
    modes = [mode for mode, _ in compared]
    labels = [label for _, label in compared]
    w("**The floor of the HTTP cycle.** `lock-server/load/FloorServer.java` answers the same two requests with the "
      "thinnest HTTP front on the same Redis store's calls: no API key, quota, metrics, JSON library or lock "
      "engine. The *Tomcat floor* is one servlet on embedded Tomcat, the server's container, with the server's "
      "keep-alive settings, calling the store on Tomcat's request threads as the server does; the *Netty floor* is "
      "Netty's HTTP codec on one event loop per core, calling the store's reactive operations, so that no thread "
      "waits for Redis. Each takes its turn in every round beside the direct and the server's cycle; the figures "
      "are cycles per second and, in brackets, the ratio to the round's direct cycle.")
    w("")
    w("| threads | round | direct | %s |" % " | ".join(labels))
    w("|---:|---|---:|%s" % ("---:|" * len(labels)))
    for threads, rows in cycle_rows(cycle).items():
        for round_number, measured_modes in rows:
            direct = measured_modes.get("direct")
            cells = []
            for mode in modes:
                entry = measured_modes.get(mode)
                if not entry:
                    cells.append("–")
                elif direct and direct["cycles_per_s"]:
                    cells.append("%s (%.2f)" % (fmt.number(entry["cycles_per_s"]),
                                                entry["cycles_per_s"] / direct["cycles_per_s"]))
                else:
                    cells.append(fmt.number(entry["cycles_per_s"]))
            w("| %d | %s | %s | %s |" % (threads, round_number, fmt.number(direct["cycles_per_s"]) if direct else "–",
                                         " | ".join(cells)))
        if len(rows) > 1:
            means = [mean_rates(rows, mode) for mode in modes]
            if all(means):
                w("| %d | **mean** | %s | %s |" % (threads, fmt.number(means[0][0]), " | ".join(
                    "%s (**%.2f**)" % (fmt.number(mean[1]), mean[1] / mean[0]) for mean in means)))
    w("")
    floor_reading(cycle, w)


def floor_reading(cycle, w):
    """The server against its container's floor at the largest thread count, when the run measured the Tomcat floor."""
    rows_by_threads = cycle_rows(cycle)
    if not rows_by_threads:
        return
    threads = max(rows_by_threads)
    server = mean_rates(rows_by_threads[threads], "http")
    floor = mean_rates(rows_by_threads[threads], "floor-tomcat")
    if not server or not floor:
        return
    w("At %d threads the server ran at %.2f× the Tomcat floor's rate, and the Tomcat floor at %.2f× the direct "
      "cycle (the means of the rounds). The floor is what an HTTP cycle on the server's container costs on this "
      "machine, where the driver, the front and Redis share the cores: the server's own work is the difference "
      "between the two. [The lock server's guide](lock-server.md#speed) follows both across runs." % (
          threads, server[1] / floor[1], floor[1] / floor[0]))
    w("")


CPU_PROCESSES = ("driver", "server", "redis")


def mean_cpu(entries, processes):
    """process -> the mean CPU time per cycle (µs) over the measurements that report it, or None."""
    means = {}
    for process in processes:
        values = [entry["cpu_us_" + process] for entry in entries if entry and "cpu_us_" + process in entry]
        if values:
            means[process] = sum(values) / len(values)
    return means or None


def cpu_table(cycle, w):
    """The CPU time each process spent per cycle, when the run measured it."""
    rows = []
    for threads, measured_rows in cycle_rows(cycle).items():
        # The direct cycle does not involve the server, which idles meanwhile
        direct = mean_cpu([modes.get("direct") for _, modes in measured_rows], ("driver", "redis"))
        https = [(mode, label, mean_cpu([modes.get(mode) for _, modes in measured_rows], CPU_PROCESSES))
                 for mode, label in http_modes(cycle)]
        if direct and https[0][2]:
            rows.append((threads, direct, [row for row in https if row[2]]))
    if not rows:
        return
    w("The CPU time that each process spent per cycle while it was measured, the mean of the rounds, in "
      "microseconds (the driver's from its own JVM, the server's and Redis's from `/proc/<pid>/stat`). With every "
      "core busy, a cycle's rate follows the sum of its CPU times; *CPU ratio* is the direct cycle's sum divided by "
      "the HTTP cycle's (or a floor's), the rate ratio that this machine would give if no other process took a "
      "core. The times grow with the load too: a thread that spins briefly for its reply, as the Redis store's "
      "callers do, spins longer when the machine is busy.")
    w("")
    w("| threads | cycle | driver | server | Redis | sum | CPU ratio |")
    w("|---:|---|---:|---:|---:|---:|---:|")
    for threads, direct, https in rows:
        direct_total = sum(direct.values())
        for mode, label, cpu in [("direct", "direct", direct)] + https:
            total = sum(cpu.values())
            ratio = "" if mode == "direct" else ("**%.2f**" if mode == "http" else "%.2f") % (direct_total / total)
            w("| %d | %s | %s | %s | %s | %.0f | %s |" % (
                threads, label, *["%.0f" % cpu[process] if process in cpu else "–" for process in CPU_PROCESSES],
                total, ratio))
    w("")


def handoff_table(handoff, w):
    """The handoff's settings and percentiles through the server and between two LockTemplates."""
    setups = handoff.get("setups", {})
    w("Measured by `lock-server/load/handoff.sh`%s: two server instances (A and B) on one `redis-server`. A holder "
      "acquires a key through A; a waiter long-polls the same key through B; after a pause of 20 to 51 ms, long "
      "enough for the waiter to be waiting, the holder releases through A. Each handoff is timed from the release "
      "sent to the waiter's acquisition answered, beside the same handoff between two `LockTemplate`s on Redis "
      "connections of their own in the driver's JVM; %s handoffs of each after %s unmeasured, the two taking "
      "turns in %s round%s." % (
          " on " + handoff["started"] if handoff.get("started") else "",
          "{:,}".format(handoff.get("handoffs", 0)), handoff.get("warm_up", "some"), handoff.get("rounds"),
          "" if handoff.get("rounds") == 1 else "s"))
    w("")
    w("| path | handoffs | p50 | p90 | p99 | max |")
    w("|---|---:|---:|---:|---:|---:|")
    for name, label in (("HTTP", "HTTP: release through instance A, long poll through instance B"),
                        ("DIRECT", "`LockTemplate` to `LockTemplate`, each on its own Redis connection")):
        setup = setups.get(name)
        if setup:
            count = len(setup.get("samples_us", [])) or handoff.get("handoffs", 0)
            w("| %s | %s | %s | %s | %s | %s |" % (
                label, "{:,}".format(count), *(fmt.ms(setup[p]) for p in ("p50_us", "p90_us", "p99_us", "max_us"))))
    w("")
    if "HTTP" in setups and "DIRECT" in setups and setups["DIRECT"]["p50_us"] > 0:
        w("The median handoff through the two instances takes %.1f× the median between two `LockTemplate`s." % (
            setups["HTTP"]["p50_us"] / setups["DIRECT"]["p50_us"]))
        w("")
