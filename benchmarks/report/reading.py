"""The section "Reading the numbers": why two round trips are the floor of a safe lock on Redis, what this starter
and each peer do per cycle, and, from this run's results, the round trip's time, the starter's distance to the
floor and the cycles Spring Integration rejected."""

from .fmt import breakdown, format_ratio, number, threads_text
from .stats import ratio


def section(commands, cycle, w):
    """The section; cycle maps (JMH method, threads) to its JMH result, commands is commands.json."""
    w("## Reading the numbers")
    w("")
    w(READING.format(ours=ours_paragraph(commands, cycle), latency_note=latency_note(cycle),
                     si_rejections=si_rejections(cycle)))
    w("")


def latency_note(cycle):
    """The paragraph on the time of one round trip, from the floor's cycle with one thread."""
    floor = cycle.get(("rawLettuce", 1))
    if not floor:
        return ""
    round_trip = 1e6 / floor["primaryMetric"]["score"] / 2
    return ("\n\nWith one thread a cycle is two loopback round trips in a row, about %.0f µs each on this machine "
            "(the floor's time per cycle, halved). We think most of that is the time it takes to wake the threads on the other end "
            "(Lettuce's I/O thread, Redis, the caller) on a virtual machine's idle cores; it varies from run to "
            "run, and with how busy the cores are, by more than the differences between the variants." % round_trip)


def si_rejections(cycle):
    """The paragraph on the cycles Spring Integration rejected although the key was free, if it rejected any."""
    rejected = []
    for (method, threads), entry in sorted(cycle.items(), key=lambda item: item[0][1]):
        score = entry.get("secondaryMetrics", {}).get("rejected", {}).get("score")
        if method == "springIntegration" and score:
            rejected.append("%s per second with %s (%.3f%% of its cycles)" % (
                number(score, 1), threads_text(threads), 100 * score / entry["primaryMetric"]["score"]))
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
    """The paragraph on what this starter does per cycle, with this run's commands and ratios to the floor."""
    gap = ""
    ratios = []
    for threads in sorted({t for (_, t) in cycle}):
        if ("lockTemplate", threads) in cycle and ("rawLettuce", threads) in cycle:
            ratios.append("%s of the floor's throughput with %s" % (
                format_ratio(ratio(cycle[("lockTemplate", threads)]["primaryMetric"],
                                   cycle[("rawLettuce", threads)]["primaryMetric"])),
                threads_text(threads)))
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
