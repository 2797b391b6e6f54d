"""The section "What was measured, and how": the harness of the lock cycle (a fresh redis-server per benchmark,
the keys each thread rotates through, the connections), what one cycle of each lock does, and JMH's settings for
the cycles, from the first results of benchmarks/results/jmh.json."""

from .cycle import VARIANTS, WHAT_EACH_DOES, one_cycle_table
from .fmt import quote


def section(jmh, cycle, w):
    """The section; jmh is benchmarks/results/jmh.json, cycle its lock cycles by (JMH method, threads)."""
    w("## What was measured, and how")
    w("")
    w(SETUP)
    w("")
    one_cycle_table(VARIANTS, WHAT_EACH_DOES, w)
    if jmh:
        first = jmh[0]
        # The lock cycles' settings, which other benchmarks of the run need not share
        cycle_first = next(iter(cycle.values()), first)
        w("JMH %s, throughput mode for the lock cycles (`@Fork(%s)`, `@Warmup(iterations = %d, time = %s)`, "
          "`@Measurement(iterations = %d, time = %s)`), average-time mode for the interceptor. JVM arguments: %s." % (
              first.get("jmhVersion"), cycle_first.get("forks"), cycle_first.get("warmupIterations"),
              quote(cycle_first.get("warmupTime")),
              cycle_first.get("measurementIterations"), quote(cycle_first.get("measurementTime")),
              "`" + " ".join(first.get("jvmArgs")) + "`" if first.get("jvmArgs") else "none (JMH defaults)"))
        w("")


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
