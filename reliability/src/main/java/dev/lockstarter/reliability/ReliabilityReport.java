package dev.lockstarter.reliability;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.function.Function;

/**
 * Writes the Markdown report of a run: {@code docs/RELIABILITY.md} for the committed long
 * run.
 */
final class ReliabilityReport {

	static final String SHORT_COMMAND = "./mvnw -pl reliability -am verify -Dtest=ReliabilityHarnessTests "
			+ "-Dsurefire.failIfNoSpecifiedTests=false";

	static final String LONG_COMMAND = SHORT_COMMAND + " -Dreliability.duration=20m";

	private ReliabilityReport() {
	}

	static void write(ReliabilityHarness.Run run, Path file) {
		try {
			Files.createDirectories(file.toAbsolutePath().getParent());
			// The comparison with the peers has a run of its own: keep its section
			String peers = Files.exists(file) ? PeerReport.existing(Files.readString(file)) : "";
			String page = render(run);
			Files.writeString(file, peers.isEmpty() ? page : PeerReport.splice(page, peers));
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not write " + file, ex);
		}
	}

	static String render(ReliabilityHarness.Run run) {
		StringBuilder md = new StringBuilder();
		ScenarioRun.Settings settings = ReliabilityHarness.SETTINGS;
		long ttl = settings.ttl().toMillis();
		md.append("# Reliability\n\n");
		md.append("<!-- Written by the reliability harness (module `reliability`, `ReliabilityHarnessTests`): "
				+ "change the harness, not this file. -->\n\n");
		String form = (run.longDuration() != null)
				? "long form, `-Dreliability.duration=" + property(run.longDuration()) + "`" : "short form";
		md.append("Measured by the reliability harness (")
			.append(form)
			.append(") on ")
			.append(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'")
				.withZone(ZoneOffset.UTC)
				.format(run.startedAt()))
			.append("; the whole run took ")
			.append(format(run.elapsed()))
			.append(", on the machine described [below](#machine). Every number on this page comes from that run. ")
			.append("The machine was shared with other work (load average ")
			.append(run.loadBefore())
			.append(" before the run, ")
			.append(run.loadAfter())
			.append(" after, on 2 cores), which makes pauses and timeouts more likely, not less.\n\n");
		md.append("## Summary\n\n");
		for (ReliabilityHarness.Result result : run.ours()) {
			Findings ours = result.findings();
			Scenario scenario = result.scenario();
			md.append("- **This starter's lock on ")
				.append(scenario.backend().description())
				.append(Worker.OURS_DETACHED.equals(scenario.store()) ? ", as the lock server uses it" : "")
				.append("** (`")
				.append(scenario.name())
				.append("`): ")
				.append(n(ours.entered))
				.append(" critical sections in ")
				.append(seconds(ours.durationMillis))
				.append(" under ")
				.append(n(ours.pauses))
				.append(" pauses past the TTL, ")
				.append(n(ours.kills))
				.append(" `kill -9` of holders, ")
				.append(scenario.backend().faults(ours.restarts))
				.append(" and ")
				.append(n(ours.clockSteps))
				.append(" steps of a worker's wall clock (up to ±")
				.append(n(ours.largestClockOffsetMillis))
				.append(" ms)")
				.append(": **")
				.append(n(ours.overlaps(Checker.Cause.REAL)))
				.append(" overlaps while the lock was held as promised**, ")
				.append(n(ours.clobbers(Checker.Cause.REAL)))
				.append(" lost updates between valid holders; ")
				.append(n(ours.overlaps(Checker.Cause.PAUSE)))
				.append(" overlaps explained by a pause past the TTL");
			if (scenario.faultLosesLocks()) {
				md.append(", ")
					.append(n(ours.overlaps(Checker.Cause.STORE_LOST)))
					.append(" across a fault that lost locks (not promised)");
			}
			if (ours.fencedWrites > 0 && ours.staleRejected > 0) {
				md.append("; the fenced register rejected ").append(n(ours.staleRejected)).append(" stale writes");
			}
			md.append(". Verdict: ").append(verdict(result)).append(".\n");
		}
		for (ReliabilityHarness.Result control : run.controls()) {
			Findings findings = control.findings();
			md.append("- **Broken lock, ")
				.append(control.scenario().description())
				.append("**: ")
				.append(findings.caughtBroken() ? "caught" : "NOT caught")
				.append(control.scenario().stopWhenCaught() ? " after " : " in a run of ")
				.append(seconds(findings.durationMillis))
				.append(": ");
			if (!findings.livenessViolations.isEmpty()) {
				md.append(String.join("; ", findings.livenessViolations));
			}
			else {
				md.append(n(findings.overlaps(Checker.Cause.REAL)))
					.append(" overlaps while the lock was held as promised, ")
					.append(n(findings.clobbers(Checker.Cause.REAL)))
					.append(" lost updates between valid holders");
			}
			md.append(".\n");
		}
		HttpReport.summary(md, run.http());
		md.append("\n## Results\n\n");
		List<ReliabilityHarness.Result> results = run.results();
		md.append("| |");
		for (ReliabilityHarness.Result result : results) {
			md.append(" `").append(result.scenario().name()).append("` |");
		}
		md.append("\n|---|");
		md.append("---:|".repeat(results.size()));
		md.append("\n");
		row(md, results, "lock", (r) -> r.scenario().description());
		row(md, results, "nemeses", (r) -> r.scenario().nemeses());
		row(md, results, "workload ran for", (r) -> seconds(r.findings().durationMillis));
		row(md, results, "critical sections entered", (r) -> n(r.findings().entered));
		row(md, results, "… per second",
				(r) -> String.format("%.0f", r.findings().entered * 1000.0 / Math.max(1, r.findings().durationMillis)));
		row(md, results, "… completed", (r) -> n(r.findings().completed));
		row(md, results, "… killed inside", (r) -> n(r.findings().killedInside));
		row(md, results, "… lasting " + Worker.LONG_SECTION_MIN_TTLS + " × TTL or more (renewed)",
				(r) -> n(r.findings().longSections));
		row(md, results, "… whose lease no longer held the lock at exit", (r) -> n(r.findings().exitedNotHeld));
		row(md, results, "… whose lock the store refused while its promise ran",
				(r) -> n(r.findings().lossesWithinPromise));
		row(md, results, "**overlaps while the lock was held as promised**",
				(r) -> "**" + n(r.findings().overlaps(Checker.Cause.REAL)) + "**");
		row(md, results, "overlaps explained by a pause past the TTL",
				(r) -> n(r.findings().overlaps(Checker.Cause.PAUSE)));
		row(md, results, "overlaps after a loss the lease reported, no pause",
				(r) -> n(r.findings().overlaps(Checker.Cause.LOST)));
		row(md, results, "overlaps across a store fault that lost locks (not promised)",
				(r) -> r.scenario().faultLosesLocks() ? n(r.findings().overlaps(Checker.Cause.STORE_LOST)) : "–");
		row(md, results, "entries that saw `occ:{key}` > 1 (must equal the overlaps)",
				(r) -> n(r.findings().occupancyViolations));
		row(md, results, "counter writes", (r) -> n(r.findings().counterWrites));
		row(md, results, "lost updates (writes − final counters)", (r) -> n(r.findings().lostUpdates));
		row(md, results, "clobbered writes, both sections valid", (r) -> n(r.findings().clobbers(Checker.Cause.REAL)));
		row(md, results, "clobbered writes, one section paused past the TTL",
				(r) -> n(r.findings().clobbers(Checker.Cause.PAUSE)));
		row(md, results, "clobbered writes, one section's loss reported, no pause",
				(r) -> n(r.findings().clobbers(Checker.Cause.LOST)));
		row(md, results, "clobbered writes across a store fault that lost locks",
				(r) -> r.scenario().faultLosesLocks() ? n(r.findings().clobbers(Checker.Cause.STORE_LOST)) : "–");
		row(md, results, "fenced writes", (r) -> n(r.findings().fencedWrites));
		row(md, results, "stale writes rejected by the fenced register",
				(r) -> r.findings().tokensSeen ? n(r.findings().staleRejected) : "no tokens");
		row(md, results, "lost updates on the fenced register",
				(r) -> r.findings().tokensSeen ? n(r.findings().fencedLostUpdates) : "no tokens");
		row(md, results, "pauses (SIGSTOP for 2 × TTL)", (r) -> n(r.findings().pauses));
		row(md, results, "`kill -9` of workers", (r) -> n(r.findings().kills));
		row(md, results, "faults of the store (restarts, failovers)",
				(r) -> r.scenario().restarts() ? r.scenario().backend().faults(r.findings().restarts) : "0");
		row(md, results, "crashes of every worker", (r) -> n(r.findings().crashes));
		row(md, results, "steps of a worker's wall clock (largest offset)", (r) -> r.scenario().clocks()
				? n(r.findings().clockSteps) + " (±" + n(r.findings().largestClockOffsetMillis) + " ms)" : "0");
		row(md, results, "longest wait for a killed holder's key (TTL " + ttl + " ms)",
				(r) -> r.findings().killBlocks.isEmpty() ? "–"
						: n(r.findings().maxKillBlock()) + " ms (of " + r.findings().killBlocks.size() + ")");
		row(md, results, "lock keys seen without expiry", (r) -> n(r.findings().locksWithoutExpirySeen));
		row(md, results, "locks blocked forever (liveness violations)",
				(r) -> n(r.findings().livenessViolations.size()));
		row(md, results, "verdict", (r) -> "**" + verdict(r) + "**");
		md.append("\n");
		if (!run.http().isEmpty()) {
			HttpReport.append(md, run.http());
		}
		md.append(HOW.formatted(ReliabilityHarness.OWNER_BLIND_SETTINGS.maxSleepMillis()));
		md.append("\n## Commands\n\n");
		md.append("Short form, part of `./mvnw verify` and so of CI (about three minutes, in two lanes: this starter's "
				+ "lock on every store beside the HTTP paths and the broken locks; it writes "
				+ "`reliability/target/reliability/RELIABILITY.md` and never this file):\n\n");
		md.append("```\n").append(SHORT_COMMAND).append("\n```\n\n");
		md.append("Long form, on demand, one scenario at a time (this starter's lock for 70% of the duration, split "
				+ "evenly over the stores, the HTTP paths for 15%, each broken lock for 3%; it rewrites this "
				+ "file):\n\n");
		md.append("```\n").append(LONG_COMMAND).append("\n```\n\n");
		md.append("Worker logs go to `reliability/target/reliability/logs/`.\n\n");
		md.append("## Machine\n\n");
		Machine.describe()
			.forEach((name, value) -> md.append("- ").append(name).append(": ").append(value).append("\n"));
		md.append("- load average (1, 5, 15 min) before the run: ")
			.append(run.loadBefore())
			.append("; after: ")
			.append(run.loadAfter())
			.append("\n");
		md.append("- workload: ")
			.append(settings.workers())
			.append(" worker JVMs × ")
			.append(settings.threads())
			.append(" threads on ")
			.append(settings.keys().size())
			.append(" keys, TTL ")
			.append(ttl)
			.append(" ms, 1 to ")
			.append(settings.maxSleepMillis())
			.append(" ms between the counter's read and write (one section in ")
			.append(Worker.LONG_SECTION_EVERY)
			.append(", one in ")
			.append(Worker.DETACHED_LONG_SECTION_EVERY)
			.append(" with the detached leases")
			.append(": ")
			.append(ttl * Worker.LONG_SECTION_MIN_TTLS)
			.append(" to ")
			.append(ttl * Worker.LONG_SECTION_MAX_TTLS)
			.append(" ms, renewed); the broken locks run the same workload on ")
			.append(ReliabilityHarness.CONTROL_SETTINGS.keys().size())
			.append(" keys, the owner-blind releases with 1 to ")
			.append(ReliabilityHarness.OWNER_BLIND_SETTINGS.maxSleepMillis())
			.append(" ms between the read and the write\n");
		return md.toString();
	}

	private static final String HOW = """
			## What the harness does

			**Workload.** Worker JVMs (child processes on the test classpath) run threads that, again and again,
			take the lock on one of a few keys and run a critical section while holding it. This starter's lock is
			`LockTemplate` (wait up to 2 × TTL, renewal on), on each store in turn: `RedisLockStore` on one
			`redis-server`, on Redis Sentinel (a primary, a replica, three sentinels) and on Redis Cluster (three
			masters with a replica each), `MemcachedLockStore` on one `memcached`, `DynamoDbLockStore` on DynamoDB
			Local, `JdbcLockStore` on PostgreSQL, `EtcdLockStore` on a three-member etcd cluster and
			`ZooKeeperLockStore` on a three-server ZooKeeper ensemble. Every store call of a worker is bounded by a
			2 s timeout. A broken lock is used as a hand-written lock would be (try, poll every 5 ms, release at
			the end, no renewal). One section in 1,500 lasts two to three TTL, so that its lock is renewed and
			some sections are in progress when the store fails.

			**Oracle.** A second `redis-server`, never faulted, records every section, each step one Lua script that
			also draws a global sequence number:
			entry (`INCR occ:{key}`, which must return 1), a read-modify-write counter (`GET`, a short sleep,
			`SET` value + 1), the same read-modify-write of a second counter through a fenced register, as a
			resource that checks fencing tokens would do it (the read notes the lease's token, and the write is
			accepted only if its token is at least the highest the register has seen, read or written; rejections
			are counted as stale writes, and accepted writes lost to another are *lost updates on the fenced
			register*), exit (`DECR occ:{key}`); then, once the exit is recorded, whether the lease still holds
			its lock.

			**Nemeses**, one at a time, each aimed at a worker that holds a lock (the clock nemesis runs beside
			them, on every worker):
			- *pause*: `SIGSTOP` of the worker for 2 × TTL, then `SIGCONT`; its lock expires and another worker
			  takes it, then the paused one resumes inside its section;
			- *kill*: `kill -9` of the worker; a replacement starts at once, and the harness closes the killed
			  sections in the oracle;
			- *fault of the store*, which depends on the store:
			  - Redis: a restart. It runs with `--appendonly yes --appendfsync always`, so it keeps its locks
			    across the restart (our guarantee holds "while the store keeps its data"); while it is down,
			    acquisitions fail (fail closed) and releases leave the lock to expire;
			  - Redis Sentinel: shutdown of the primary (`SIGTERM`; Redis 7 first waits a little for its replica
			    to catch up); the sentinels promote the replica (after 1 s without an answer), the old primary is
			    started again, empty, and becomes the new primary's replica. A lock that had not reached the
			    replica is lost (not promised, see "Guarantees under failover" in docs/stores/redis.md); overlaps across a
			    failover are counted apart;
			  - Memcached: a restart, which loses every lock (Memcached is a cache; not promised). The harness
			    waits until a long section has just started, so that the loss meets a holder with most of its work
			    ahead (the clients reconnect after about a second); overlaps across a restart are counted apart;
			  - Redis Cluster: `kill -9` of the master that serves the slot of one lock key (the keys in turn);
			    the cluster promotes its replica (node timeout 1 s), the killed node is forgotten, comes back
			    empty and becomes the new master's replica. Replication is asynchronous, so a failover may lose a
			    lock (not promised); overlaps across one are counted apart;
			  - DynamoDB Local: a restart; it keeps its data in a file, so the locks must hold;
			  - PostgreSQL (JDBC store): a restart (`pg_ctl stop -m fast`, then a start), which keeps every
			    committed lock, so the locks must hold. The throwaway cluster runs with `fsync=off`, so a crash
			    of the database itself is not part of this;
			  - etcd and ZooKeeper, each on three members: in turn, `kill -9` of the leader (restarted once another
			    member leads), `SIGSTOP` of the leader until another member leads (then `SIGCONT`), a restart of a
			    follower, and, where the machine allows network namespaces, a partition: every member runs in a
			    namespace of its own, with one link to its clients and one to its peers, and the leader's link to
			    its peers goes down until another member leads and 2 s more, while its clients still reach it. A
			    lock is acknowledged only once a majority has logged it, so the locks must hold across all four;
			- *clock* (beside the others, all the time): every worker JVM runs under libfaketime (Debian's
			  `faketime`, preloaded with `FAKETIME_TIMESTAMP_FILE`, `FAKETIME_NO_CACHE=1`,
			  `FAKETIME_DONT_FAKE_MONOTONIC=1`, `FAKETIME_FORCE_MONOTONIC_FIX=0`) with an offset file of its own.
			  A worker starts with a random offset within ± 2 × TTL; a quarter to one TTL apart, a random worker's
			  wall clock either jumps, forward or back, to a new random offset within ± 2 × TTL, or drifts: a
			  series of 5 to 20 small steps in one direction (up to a tenth of the TTL each, 50 to 150 ms
			  apart). `System.currentTimeMillis()`, `Instant.now()` and every library's wall clock follow the
			  offset at once; `System.nanoTime()` stays the machine's real monotonic clock, as NTP stepping a
			  clock would leave it. No store of this starter decides expiry by an application server's wall
			  clock, so the locks must hold; the checker never reads a worker's wall clock (every time in the
			  oracle's log is on the machine's monotonic clock, `CLOCK_MONOTONIC`, the same in every process);
			- *crash on a lock without expiry* (Redis only): a watcher reads the `PTTL` of every lock key every
			  20 ms; when one has none, every worker is killed at once. Our locks always have an expiry, so it
			  never fires for them; for `SETNX` then `EXPIRE` it kills the holder between the two steps.

			**Broken locks.** Each has one classic flaw and is otherwise done right. On Redis (`SET NX PX`,
			compare-and-delete, owner-checked extension, the two steps of a non-atomic operation 20 ms apart, as a
			slow network or a short GC pause would make them, which widens the race without changing it):
			- *plain `DEL`*: a holder paused past its TTL resumes and deletes the lock of the holder that took
			  over; a third one then enters while that one is still inside;
			- *`GET` then `DEL`*: the same, when the pause falls between the `GET` that saw its own token and
			  the `DEL`;
			- *`SETNX` then `EXPIRE`*: a crash between the two leaves a lock without expiry, which nobody can
			  ever take again;
			- *expiry by the workers' wall clocks*, as the etcd, ZooKeeper, Memcached and DynamoDB stores judged
			  it before they moved to observed silence: the holder writes its token and `now + ttl` by its own
			  wall clock (the Redis key's own expiry is a generous 10 × TTL), and a contender takes over, in one
			  script, a lock whose written expiry is before its own `now`. It runs under the clock nemesis alone
			  (no pauses, kills or faults): a contender whose clock is ahead of the holder's by more than a TTL
			  takes the lock while its holder works, and a holder whose clock is behind writes locks that are
			  born expired.

			On Memcached and DynamoDB, the real store with a release that skips the owner check (memcached
			`delete`, DynamoDB `DeleteItem` without a condition): caught like plain `DEL`. The broken locks run on
			two keys, so that a lock deleted by the wrong owner is taken again at once. The owner-blind releases'
			sections last up to %d ms, longer than an acquisition on DynamoDB Local, so that the one who takes the
			deleted lock enters while its holder is still inside.

			**Checker.** After the run (and every 2 s for a broken lock in the short form, which stops once
			caught), the oracle's log is read back. Per key, a section that entered while another was inside is an
			overlap. Right after a section's exit is recorded, its worker asks the lease whether it still holds the
			lock (`Lease.isHeld()`, a conservative local estimate): if it does, the lock was valid from its
			acquisition to the recorded exit, and the section is *valid*. Each overlap is classified by its two
			sections:
			- *while the lock was held as promised*: both were valid, and no fault that loses locks was under
			  way between their entries. A section killed inside cannot be asked at its exit: it counts as valid,
			  unless its lock had told of its loss before the kill (this starter's lease tells it as it happens,
			  through `whenLost`; the peers' locks have no such signal, so their killed sections always count as
			  valid). A detached lease (`*-detached`) whose renewal the store refused before the promise's
			  deadline was taken from a holder that renewed in time: its worker records the loss, then, if the
			  promise still runs, says so, and the section counts as valid up to that record, so that an overlap
			  that began before it is counted here, however the section ended.
			  **For this starter's lock this must be 0 on every store; the build fails otherwise;**
			- *explained by a pause past the TTL*: one of them was not valid, and its worker was stopped by the
			  pause nemesis between its attempt to acquire and its exit. This is the documented non-guarantee
			  (process pause longer than the TTL); fencing tokens let the protected resource reject its writes;
			- *across a store fault that lost locks*: on a store whose fault may lose granted locks (Memcached
			  restart, Sentinel or Cluster failover), the first entered before such a fault ended and the other
			  after it began. Outside the promise ("while the store keeps its data"); the verdict names them. On
			  Redis with AOF, DynamoDB and PostgreSQL, which keep their data, the same overlap counts as real;
			- *after a loss the lease reported, no pause*: one of them was not valid without a nemesis pause (a
			  holder starved of CPU, or a store unreachable for longer than the TTL so that the lock could not be
			  renewed): outside the promise too, counted apart.

			Classifying by validity rather than by the pause alone matters: a thread can be paused after
			acquiring and before entering, or its exit can reach the oracle only after the pause; neither is an
			overlap while the lock was held as promised, and both are recognised because the lease no longer held
			the lock.

			The occupancy counter gives the same count independently. Lost updates are counter writes minus the
			counters' final values; a write is *clobbered* when another section's read and write straddle it, and
			each clobber is classified like the overlap of the two sections. A lock key
			without expiry that stays so for 5 × TTL with no section entered on it is a liveness violation: a lock
			that blocks its key forever.

			**What the build asserts** (short and long form): for this starter's lock on every store, no overlap
			and no lost update while the lock was held as promised, no liveness violation, no lock without expiry,
			every nemesis ran (the clock nemesis among them), no overlap across a fault of a store that keeps its
			data, stale writes rejected by fencing on Redis (pauses ran), and no lost update on the fenced register
			on a store that issues tokens and keeps its data; the occupancy and interval checks
			agree; every broken lock is caught, the wall-clock one with overlaps under the clock nemesis alone.

			**Not covered.** A restart of a Redis without persistence loses every lock, like the Memcached restart
			above; the harness does not run that case. Not run here yet: a crash of PostgreSQL itself, a clock that
			runs at a different rate (libfaketime's speed factor hung a JVM here; drift is made of small steps
			instead), a skewed clock on a store's server (Redis crashes under libfaketime), and network
			partitions other than the consensus leader's from its peers (none between the clients and a store,
			none on the other stores). Memcached issues no fencing tokens ("no tokens" above). A `kill -9` of
			the Sentinel primary (instead of its shutdown) was tried in one long run: 227 overlaps between
			sections whose leases held, all of them seconds after the harness's failover had completed (the
			replica promoted, the old primary back as its replica), so the checker counted them as real. A
			failover that the sentinels make on their own, with a down-after of 1 s on a loaded machine, would
			explain them and is not marked by the harness; until that is shown, the crash of a Sentinel primary
			is not part of the run, and no safety across a Sentinel failover is promised in any case.
			""";

	static String verdict(ReliabilityHarness.Result result) {
		Findings findings = result.findings();
		if (!result.scenario().isOurs()) {
			return findings.caughtBroken() ? "caught" : "NOT caught";
		}
		if (findings.overlaps(Checker.Cause.REAL) > 0 || findings.clobbers(Checker.Cause.REAL) > 0
				|| !findings.livenessViolations.isEmpty()) {
			return "BROKEN";
		}
		long lost = findings.overlaps(Checker.Cause.STORE_LOST);
		return (lost > 0) ? "holds, except the documented loss at a store fault: " + n(lost) + " overlaps" : "holds";
	}

	static <R> void row(StringBuilder md, List<R> results, String name, Function<R, String> cell) {
		md.append("| ").append(name).append(" |");
		for (R result : results) {
			md.append(" ").append(cell.apply(result)).append(" |");
		}
		md.append("\n");
	}

	static String n(long value) {
		return String.format("%,d", value);
	}

	static String seconds(long millis) {
		return String.format("%.1f s", millis / 1000.0);
	}

	private static String property(java.time.Duration duration) {
		long seconds = duration.toSeconds();
		return (seconds % 3600 == 0) ? (seconds / 3600) + "h"
				: (seconds % 60 == 0) ? (seconds / 60) + "m" : seconds + "s";
	}

	private static String format(java.time.Duration duration) {
		long seconds = duration.toSeconds();
		return (seconds >= 60) ? (seconds / 60) + " min " + (seconds % 60) + " s" : seconds + " s";
	}

}
