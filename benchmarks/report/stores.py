"""The section of docs/PERFORMANCE.md on the stores that keep a lock across a server's failure, from the results
of benchmarks/stores.sh (benchmarks/results/stores/): the lock cycle of each store beside the peers' on the same
kind of server (FailoverStoreCycleBenchmarks, one JSON file per benchmark and pass, merged) and the handoff to a
waiter in another JVM (HandoffLatency's handoff.json)."""

import os

from . import fmt, results, stats

DIRECTORY = "stores"
TITLE = "Stores that keep a lock across a failover: PostgreSQL, etcd, ZooKeeper"

# (server, this starter's benchmark, the peer's benchmark, the peer)
CYCLE_ROWS = [
    ("PostgreSQL", "postgresLockTemplate", "postgresSpringIntegration", "Spring Integration `JdbcLockRegistry`"),
    ("PostgreSQL", "postgresLockTemplate", "postgresShedLock", "ShedLock `JdbcTemplateLockProvider` (database time)"),
    ("etcd", "etcdLockTemplate", "etcdJetcdLock", "jetcd lock service client (session lease)"),
    ("etcd", "etcdLockTemplate", "etcdTwoTransactionsReference",
     "*the same two transactions sent bare on jetcd (reference: the floor of the design)*"),
    ("ZooKeeper", "zooKeeperLockTemplate", "zooKeeperCuratorMutex", "Curator `InterProcessMutex`"),
    ("ZooKeeper", "zooKeeperLockTemplate", "zooKeeperSpringIntegration", "Spring Integration `ZookeeperLockRegistry`"),
]

# (server, HandoffLock name): this starter's first on each server, then the peers'
HANDOFF_ROWS = [
    ("PostgreSQL", "POSTGRES_STARTER"),
    ("PostgreSQL", "POSTGRES_SPRING_INTEGRATION"),
    ("PostgreSQL", "POSTGRES_SHEDLOCK"),
    ("etcd", "ETCD_STARTER"),
    ("etcd", "ETCD_JETCD_LOCK"),
    ("ZooKeeper", "ZOOKEEPER_STARTER"),
    ("ZooKeeper", "ZOOKEEPER_CURATOR_MUTEX"),
    ("ZooKeeper", "ZOOKEEPER_SPRING_INTEGRATION"),
    ("ZooKeeper", "ZOOKEEPER_VERSIONED_REFERENCE"),
]

# server: the references of one round trip (the server's, the store's acquisition), shown after the server's rows
ROUND_TRIPS = {
    "PostgreSQL": ["POSTGRES_ROUND_TRIP", "POSTGRES_ACQUIRE_ROUND_TRIP"],
}

READING = """\
**Reading the results.** On etcd and ZooKeeper, every lock here makes two writes to the server's log per
uncontended cycle, one to take the lock and one to free it; what differs is what each write must check, and
what a waiter must still do once the lock is free.

- **etcd, the cycle.** Both locks make two requests per cycle, each one write synced to disk, as etcd's
  `/metrics` counts them. This starter takes a lock with a transaction that writes the key only if it does
  not exist, and frees it with a transaction that deletes the key only if its value still names the
  caller's owner token: a lock has a time-to-live of its own, and any instance holding the token may free
  it. etcd's lock service writes a key that only the caller's session writes (the lock's name followed by
  the session's lease), so its unlock is a plain delete of that key, with nothing to compare; its lock lasts
  as long as the client keeps the session's lease alive. This starter's release thus asks a little more of
  the server, a comparison inside a transaction, the price of a lock that any instance holding its token may
  free and that another may take over once it expired. Its client asks less of the JVM: a client built by
  `EtcdClients` sends each request from the calling thread, where jetcd's default client first hands it to
  a thread pool of its own, one thread hand-off per request. Each lock is measured on its usual client.
  The reference sends this starter's two transactions directly on the same client, with no lock around them:
  the floor of a cycle of two synced writes. A lock of either design waits for the same two writes to be
  synced, so neither can pull ahead of the other by more than what it adds to that floor.
- **PostgreSQL, the handoff.** This starter's waiter is woken by the `NOTIFY` that the holder's releasing
  statement sends, and then runs its acquiring statement: a handoff is a few round trips. Spring
  Integration's `JdbcLockRegistry` has no notification: `tryLock(wait)` asks the repository again every
  100 ms (its default). ShedLock never waits: `lock()` answers at once, so the waiter here calls it again every
  100 ms, as an application that wants to wait would have to. Both find the release where it falls in their
  100 ms.
- **ZooKeeper, the handoff.** Curator's `InterProcessMutex` (and Spring Integration's registry, built on it)
  queues a waiter as a node of its own before it waits: when the holder deletes its node, the next waiter is
  told, reads the queue, finds itself first and holds the lock without writing. This starter's lock node is
  never removed, and a version says nothing of what the node holds, so its waiter must read the node and then
  write it at the version read: ZooKeeper's event thread, told of the release, sends both for the waiter,
  which wakes once, with the grant. That is one round trip more per handoff, a write, the cost of a lock with
  a time-to-live and a fencing token and without a queue of waiters. The raw reference sends the same read
  and write directly on the ZooKeeper client, with nothing else: the floor of that design."""


def load(directory):
    """The results of benchmarks/stores.sh, or None when it has not run."""
    if not os.path.isdir(directory):
        return None
    runs = results.jmh_passes(directory)
    if not runs:
        return None
    elapsed = results.text(directory, "elapsed-seconds.txt")
    return {
        "rows": {method: stats.merge_forks(entries) for method, entries in runs.items()},
        "passes": max(len(entries) for entries in runs.values()),
        "handoff": results.load(directory, "handoff.json"),
        "machine": results.load(directory, "machine.json") or {},
        "loadavg_end": (results.text(directory, "loadavg-end.txt") or "").split()[0:3],
        "elapsed": int(elapsed) if elapsed else None,
        "commands_run": results.lines(directory, "commands-run.txt"),
    }


def section(stores, w):
    """The section, or why it is missing."""
    if not fmt.section(w, TITLE, stores, "there are no results in `benchmarks/results/%s/` (`benchmarks/stores.sh`)"
                       % DIRECTORY):
        return
    machine = stores["machine"]
    first = next(iter(stores["rows"].values()))
    w("Measured by `benchmarks/stores.sh` on %s (load average %s at the start, %s at the end%s), one thread, "
      "each benchmark in %d pass%s of one fork (%s × %s warm-up, %s × %s measurement)%s. Every benchmark "
      "starts its own server of its kind, as the test kit starts them (PostgreSQL with `fsync` off; one standalone "
      "ZooKeeper server with `forceSync=no`; one etcd member, which syncs its log to disk as etcd does by "
      "default), so that no table or cache of one lock warms another's. Each lock takes a key with a 30 s time-to-live and releases it at once; keys rotate over 1,024 "
      "per thread." % (
          machine.get("date", "an unknown date"), " ".join(machine.get("loadavg_start", [])) or "unknown",
          " ".join(stores["loadavg_end"]) or "unknown",
          "; %s in all" % fmt.duration(stores["elapsed"])
          if stores["elapsed"] is not None else "", stores["passes"], "" if stores["passes"] == 1 else "es",
          first.get("warmupIterations"), first.get("warmupTime"), first.get("measurementIterations"),
          first.get("measurementTime"),
          ", the passes taking the benchmarks in opposite orders" if stores["passes"] > 1 else ""))
    w("")
    if results.busy(machine, stores["loadavg_end"]):
        w("**This run was made on a busy machine** (a load average above the number of processors at its start "
          "or end): the servers, the clients and the benchmark waited for a core in turn, so a ratio within its "
          "error decides nothing. The comparison needs `benchmarks/stores.sh` again on an idle machine.")
        w("")
    rows = stores["rows"]
    w("| server | this starter (ops/s) | peer | peer (ops/s) | this starter ÷ peer |")
    w("|---|---:|---|---:|---:|")
    for server, ours, theirs, peer in CYCLE_ROWS:
        if theirs not in rows:
            continue
        b = rows[theirs]["primaryMetric"]
        if ours in rows:
            w(fmt.peer_row(server, rows[ours]["primaryMetric"], peer, b))
        else:
            w("| %s | not measured | %s | %s %s | – |" % (server, peer, fmt.number(b["score"]), fmt.error(b)))
    w("")
    handoff = stores["handoff"]
    if handoff:
        setups = handoff.get("setups", {})
        w("The handoff to a waiter in another JVM (`HandoffLatency`: the time from the holder's release until the "
          "waiter, blocked on the same key, has the lock; %s handoffs per lock in %s rounds taking turns):" % (
              handoff.get("handoffs"), handoff.get("rounds")))
        w("")
        w("| server | lock | p50 | p90 | p99 | max |")
        w("|---|---|---:|---:|---:|---:|")
        def row(server, setup, label):
            w("| %s | %s | %s | %s | %s | %s |" % (
                server, label, *(fmt.ms(setup[p]) for p in ("p50_us", "p90_us", "p99_us", "max_us"))))
        for index, (server, name) in enumerate(HANDOFF_ROWS):
            setup = setups.get(name)
            if setup:
                row(server, setup, setup["description"])
            last_of_server = index + 1 == len(HANDOFF_ROWS) or HANDOFF_ROWS[index + 1][0] != server
            if last_of_server:
                for name in ROUND_TRIPS.get(server, []):
                    reference = setups.get(name)
                    if reference:
                        row(server, reference, "*%s*" % reference["description"])
        w("")
        for server, names in ROUND_TRIPS.items():
            ours = setups.get(next((n for s, n in HANDOFF_ROWS if s == server), ""))
            references = [setups[name] for name in names if setups.get(name) and setups[name]["p50_us"] > 0]
            if ours and references:
                w("On %s, this starter's median handoff (%.2f ms) is %s: a handoff takes at least the release's "
                  "statement, the notification's delivery and the waiter's acquiring statement." % (
                      server, ours["p50_us"] / 1000.0, " and ".join(
                          "%.1f× the median of the %s (%.2f ms)" % (
                              ours["p50_us"] / reference["p50_us"], reference["description"].split(" (")[0],
                              reference["p50_us"] / 1000.0) for reference in references)))
                w("")
    w(READING)
    w("")
    if stores["commands_run"]:
        w("The commands `benchmarks/stores.sh` ran:")
        w("")
        fmt.code_block(w, stores["commands_run"])
