"""The sections "Reproducing" and "Versions": the commands that made this page and the scripts that measure one
part of it again, and the versions of the peers' libraries and why they were chosen."""

from . import fmt, server


def section(commands_run, w):
    """The section; commands_run are the commands benchmarks/run.sh ran (commands-run.txt), none for an older run."""
    w("## Reproducing")
    w("")
    fmt.code_block(w, ["benchmarks/run.sh        # builds, runs everything, rewrites this page"], "bash")
    if commands_run:
        w("The commands it ran for this page:")
        w("")
        fmt.code_block(w, commands_run + [fmt.RENDER_COMMAND], "bash")
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
      "see the scripts' headers for their settings." % server.ANCHOR)
    w("")
    w(VERSIONS)
    w("")


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
