package dev.lockstarter.reliability;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.jspecify.annotations.Nullable;

import dev.lockstarter.test.redis.RedisServer;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Runs one {@link Scenario}: starts the lock store ({@link StoreUnderTest}) and an oracle
 * Redis, the worker processes, the nemeses and (on Redis) a watcher of the lock keys,
 * then stops everything and checks the oracle's record.
 * <p>
 * The nemeses act one at a time, in turn: pause (the worker stays stopped for twice the
 * time-to-live), kill (a replacement worker starts at once, beside the next nemeses) and
 * the store's fault (a restart or a failover, see {@link Backend#fault()}). They pick a
 * worker that holds a lock, as the worker reports in the oracle, and record what they do
 * there. On Redis, an {@link ExpiryWatcher} looks for lock keys without expiry. The
 * {@link ClockNemesis}, when the scenario has it, moves the workers' wall clocks all the
 * while, beside the others.
 */
final class ScenarioRun {

	private static final long LONG_SECTION_MILLIS = 150;

	private static final long LONG_SECTION_WAIT_MILLIS = 15000;

	/**
	 * How long a scenario may go on past its duration until every planned event has
	 * happened ({@link #eventsToCome()}): a bound against a hang, not a schedule, since
	 * the run stops as soon as the last one happened.
	 */
	private static final long FAULTS_GRACE_MILLIS = 180000;

	/**
	 * How often a run past its duration looks for the events it awaits: each look reads
	 * the oracle's whole record.
	 */
	private static final long EVENTS_POLL_MILLIS = 500;

	/**
	 * How many sections a scenario of this starter's lock waits for: on a busy machine a
	 * slow store (a consensus cluster) enters few in the planned time.
	 */
	static final int MIN_COMPLETED_SECTIONS = 20;

	/**
	 * How many sections a scenario on DynamoDB Local waits for: the nemesis restarts it
	 * every few seconds and it takes seconds to answer again, so that on a busy machine
	 * one section in a second or two completes (twenty took 150 s in one run).
	 */
	static final int MIN_COMPLETED_SECTIONS_DYNAMODB = 5;

	/**
	 * How many sections long enough to be renewed (see {@link Worker#sleepInside}) a
	 * scenario of the detached leases waits for, at most {@link #FAULTS_GRACE_MILLIS}
	 * past its duration: the renewals on the second instance are what it exercises, and a
	 * store slowed by a busy machine brings few of them in the planned time. One section
	 * in {@value Worker#DETACHED_LONG_SECTION_EVERY} is long, a long one is the likeliest
	 * to be paused or killed, and the nemesis restarts DynamoDB Local every few seconds:
	 * beside the other lane, three took it more than three minutes.
	 */
	static final int DETACHED_LONG_SECTIONS = 1;

	private final Scenario scenario;

	private final Settings settings;

	private final Path logs;

	private final AtomicInteger workerIds = new AtomicInteger();

	private final List<WorkerProcess> live = new CopyOnWriteArrayList<>();

	/** The threads that start killed workers' replacements. */
	private final List<Thread> replacements = new CopyOnWriteArrayList<>();

	private final AtomicInteger storeFaults = new AtomicInteger();

	private volatile boolean running = true;

	private @Nullable StoreUnderTest lockServer;

	private @Nullable Oracle oracle;

	private @Nullable ClockNemesis clocks;

	private String oracleHost = "";

	private int oraclePort;

	private @Nullable ExpiryWatcher watcher;

	private ScenarioRun(Scenario scenario, Settings settings, Path logs) {
		this.scenario = scenario;
		this.settings = settings;
		this.logs = logs;
	}

	static Findings run(Scenario scenario, Settings settings, Path logs) {
		return new ScenarioRun(scenario, settings, logs).run();
	}

	private Findings run() {
		StoreUnderTest lock = StoreUnderTest.start(this.scenario.backend(), this.scenario.restarts(),
				this.settings.keys());
		this.lockServer = lock;
		LettuceConnectionFactory lockConnections = null;
		try (RedisServer oracleServer = RedisServer.start()) {
			this.oracleHost = oracleServer.host();
			this.oraclePort = oracleServer.port();
			Oracle oracle = new Oracle(this.oracleHost, this.oraclePort);
			this.oracle = oracle;
			ClockNemesis clocks = this.scenario.clocks()
					? new ClockNemesis(this.settings.ttl(), this.logs, this.scenario.name(), oracle) : null;
			this.clocks = clocks;
			lockConnections = lock.watchConnections();
			StringRedisTemplate lockRedis = (lockConnections != null) ? new StringRedisTemplate(lockConnections) : null;
			boolean cluster = lockConnections != null && lockConnections.isClusterAware();
			startWorkers(this.settings.workers());
			long started = System.nanoTime();
			Thread nemesis = Threads.daemon(this::nemeses, "nemesis");
			Thread clockNemesis = Threads.daemon(() -> {
				if (clocks != null) {
					clocks.run(() -> this.running, () -> this.live.stream().map(WorkerProcess::id).toList());
				}
			}, "clock-nemesis");
			List<String> storeKeys = this.settings.keys()
				.stream()
				.map((key) -> Worker.redisKey(key, this.scenario.isOurs()))
				.toList();
			ExpiryWatcher expiryWatcher = (lockRedis != null)
					? new ExpiryWatcher(lockRedis, cluster, this.settings.keys(), storeKeys, this.settings.ttl(),
							oracle, this.scenario.crashOnLockWithoutExpiry() ? this::crash : null)
					: null;
			this.watcher = expiryWatcher;
			Thread watcher = Threads.daemon(() -> {
				if (expiryWatcher != null) {
					expiryWatcher.watch(() -> this.running);
				}
			}, "lock-key-watcher");
			// The duration, then until every planned event has happened: on a slow
			// machine a short run may end before the last
			long deadline = started + this.scenario.duration().toNanos();
			long latest = deadline + TimeUnit.MILLISECONDS.toNanos(FAULTS_GRACE_MILLIS);
			List<String> toCome = List.of();
			while (true) {
				boolean floorPassed = System.nanoTime() - deadline >= 0;
				if (floorPassed) {
					if (this.scenario.stopWhenCaught() || System.nanoTime() - latest >= 0) {
						break;
					}
					toCome = eventsToCome();
					if (toCome.isEmpty()) {
						break;
					}
				}
				Thread.sleep(floorPassed ? EVENTS_POLL_MILLIS
						: Math.max(100, Math.min(2000, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()))));
				if (this.scenario.stopWhenCaught() && analyze().caughtBroken()) {
					break;
				}
			}
			if (!toCome.isEmpty()) {
				log("planned events that did not happen within " + FAULTS_GRACE_MILLIS + " ms of the duration: "
						+ toCome);
			}
			this.running = false;
			nemesis.join(TimeUnit.SECONDS.toMillis(60));
			clockNemesis.join(TimeUnit.SECONDS.toMillis(60));
			watcher.join(TimeUnit.SECONDS.toMillis(60));
			for (Thread replacement : this.replacements) {
				// A start gives up after 60 s
				replacement.join(TimeUnit.SECONDS.toMillis(70));
			}
			long elapsed = System.nanoTime() - started;
			stopWorkers();
			Findings findings = analyze();
			findings.durationMillis = TimeUnit.NANOSECONDS.toMillis(elapsed);
			findings.longSections = longSections();
			return findings;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted during scenario " + this.scenario.name(), ex);
		}
		finally {
			this.running = false;
			for (WorkerProcess worker : this.live) {
				worker.process.destroyForcibly();
			}
			if (this.oracle != null) {
				this.oracle.close();
			}
			if (lockConnections != null) {
				lockConnections.destroy();
			}
			lock.close();
		}
	}

	/**
	 * What a run of this starter's lock waits for past its duration, that has not
	 * happened yet: each nemesis it plans at least once, the store's faults
	 * ({@link #requiredFaults()}), {@value #MIN_COMPLETED_SECTIONS} completed sections
	 * ({@value #MIN_COMPLETED_SECTIONS_DYNAMODB} on DynamoDB Local), on Redis a stale
	 * write refused by the fenced register, and on the detached leases
	 * {@value #DETACHED_LONG_SECTIONS} section long enough to be renewed on the second
	 * instance.
	 */
	private List<String> eventsToCome() {
		Findings findings = analyze();
		List<String> toCome = new ArrayList<>();
		if (this.scenario.pauses() && findings.pauses == 0) {
			toCome.add("a pause");
		}
		if (this.scenario.kills() && findings.kills == 0) {
			toCome.add("a kill");
		}
		if (this.storeFaults.get() < requiredFaults()) {
			toCome.add((requiredFaults() - this.storeFaults.get()) + " faults of the store");
		}
		if (this.scenario.clocks() && findings.clockSteps == 0) {
			toCome.add("a step of a wall clock");
		}
		int sections = (this.scenario.backend() == Backend.DYNAMODB) ? MIN_COMPLETED_SECTIONS_DYNAMODB
				: MIN_COMPLETED_SECTIONS;
		if (this.scenario.isOurs() && findings.completed < sections) {
			toCome.add((sections - findings.completed) + " completed sections");
		}
		if (this.scenario.isOurs() && this.scenario.backend() == Backend.REDIS && findings.staleRejected == 0) {
			toCome.add("a stale write rejected by fencing");
		}
		if (Worker.OURS_DETACHED.equals(this.scenario.store())) {
			long longSections = longSections();
			if (longSections < DETACHED_LONG_SECTIONS) {
				toCome.add((DETACHED_LONG_SECTIONS - longSections) + " long section(s)");
			}
		}
		return toCome;
	}

	/**
	 * The faults of the store a scenario inflicts at the least: one of every
	 * {@linkplain QuorumFaults#kinds() kind} on a consensus cluster, else one, if it
	 * inflicts any.
	 */
	private int requiredFaults() {
		if (!this.scenario.restarts()) {
			return 0;
		}
		return this.scenario.backend().isQuorum() ? QuorumFaults.kinds().size() : 1;
	}

	/**
	 * The sections that lasted long enough to be renewed: at least
	 * {@link Worker#LONG_SECTION_MIN_TTLS} times the time-to-live.
	 */
	private long longSections() {
		return Checker.sectionsLasting(oracle().events(),
				Worker.LONG_SECTION_MIN_TTLS * this.settings.ttl().toMillis());
	}

	private Findings analyze() {
		Oracle oracle = oracle();
		Map<String, Long> counters = new HashMap<>();
		for (String key : this.settings.keys()) {
			counters.put(key, oracle.counter(key));
		}
		List<String> events = oracle.events();
		Findings findings = Checker.check(events, counters, !this.running, this.scenario.faultLosesLocks());
		findings.fencedLostUpdates = findings.fencedWrites - findings.staleRejected;
		for (String key : this.settings.keys()) {
			findings.fencedLostUpdates -= oracle.fencedCounter(key);
		}
		if (!this.running) {
			try {
				Files.write(this.logs.resolve(this.scenario.name() + "-events.txt"), events);
			}
			catch (IOException ex) {
				log("could not write the events: " + ex);
			}
		}
		if (this.watcher != null) {
			findings.locksWithoutExpirySeen = this.watcher.locksWithoutExpirySeen();
			findings.livenessViolations.addAll(this.watcher.livenessViolations());
		}
		return findings;
	}

	private void nemeses() {
		List<Nemesis> actions = new ArrayList<>();
		if (this.scenario.pauses()) {
			actions.add(this::pause);
		}
		if (this.scenario.kills()) {
			actions.add(this::kill);
		}
		if (this.scenario.restarts()) {
			// After one pause and one kill, so that a short run sees all three even when
			// the fault (a failover) takes long
			actions.add(this::faultStore);
		}
		if (this.scenario.pauses()) {
			actions.add(this::pause);
		}
		if (this.scenario.kills()) {
			actions.add(this::kill);
		}
		long gap = this.settings.nemesisGap().toMillis();
		for (int i = 0; this.running && !actions.isEmpty(); i++) {
			try {
				Thread.sleep(gap);
				actions.get(i % actions.size()).run();
			}
			catch (InterruptedException ex) {
				return;
			}
			catch (RuntimeException ex) {
				log("nemesis action failed: " + ex);
			}
		}
	}

	private void pause() {
		WorkerProcess worker = holder();
		if (worker == null) {
			return;
		}
		oracle().mark("pause", worker.id);
		signal(worker.process, "STOP");
		try {
			Thread.sleep(this.settings.ttl().multipliedBy(2).toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		finally {
			signal(worker.process, "CONT");
			oracle().mark("resume", worker.id);
		}
	}

	/**
	 * Kill a holder and start its replacement on a thread of its own: on a busy machine a
	 * worker's JVM takes many seconds to start, and the next nemesis does not wait for
	 * it.
	 */
	private void kill() {
		WorkerProcess worker = holder();
		if (worker != null) {
			killAll(List.of(worker));
			this.replacements.add(Threads.daemon(() -> {
				try {
					startWorkers(1);
				}
				catch (RuntimeException ex) {
					log("replacement worker failed to start: " + ex);
				}
			}, "replacement-starter"));
		}
	}

	private void faultStore() throws InterruptedException {
		if (this.scenario.faultLosesLocks()) {
			awaitLongSection();
			if (!this.running) {
				return;
			}
		}
		String store = this.scenario.backend().name().toLowerCase(Locale.ROOT);
		oracle().mark("restart", store);
		lockServer().fault();
		oracle().mark("restarted", store);
		this.storeFaults.incrementAndGet();
		if (this.scenario.faultLosesLocks()) {
			// The next nemesis would pause or kill the holder caught by the fault, which
			// is the likeliest holder to pick: let its section play out first
			Thread.sleep(this.settings.ttl().toMillis() * Worker.LONG_SECTION_MAX_TTLS);
		}
	}

	/**
	 * Wait, at most {@value #LONG_SECTION_WAIT_MILLIS} ms and a third of the scenario's
	 * duration, until a long section (see {@link Worker#sleepInside}) has just started,
	 * so that a fault that loses locks hits a holder with most of its work ahead, as the
	 * pause nemesis does: a section that was not inside at one look, then is at the next
	 * three, {@value #LONG_SECTION_MILLIS} ms apart. Three looks rather than two tell it
	 * from a normal section whose worker stalled for a moment.
	 */
	private void awaitLongSection() throws InterruptedException {
		long deadline = System.nanoTime() + Math.min(TimeUnit.MILLISECONDS.toNanos(LONG_SECTION_WAIT_MILLIS),
				this.scenario.duration().toNanos() / 3);
		List<Set<String>> looks = new ArrayList<>();
		looks.add(oracle().openSections(this.settings.keys()));
		while (this.running && System.nanoTime() - deadline < 0) {
			Thread.sleep(LONG_SECTION_MILLIS);
			looks.add(oracle().openSections(this.settings.keys()));
			if (looks.size() > 4) {
				looks.remove(0);
			}
			if (looks.size() == 4) {
				for (String sid : looks.get(3)) {
					if (!looks.get(0).contains(sid) && looks.get(1).contains(sid) && looks.get(2).contains(sid)) {
						return;
					}
				}
			}
		}
	}

	private void crash() {
		oracle().mark("crash", "all");
		List<WorkerProcess> all = List.copyOf(this.live);
		killAll(all);
		startWorkers(all.size());
	}

	private void killAll(List<WorkerProcess> workers) {
		for (WorkerProcess worker : workers) {
			oracle().mark("kill", worker.id);
			worker.process.destroyForcibly();
		}
		for (WorkerProcess worker : workers) {
			try {
				worker.process.waitFor(10, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			this.live.remove(worker);
			oracle().closeKilled(worker.id, this.settings.keys());
		}
	}

	/** A live worker that holds a lock, or any live worker if none does. */
	private @Nullable WorkerProcess holder() {
		List<WorkerProcess> candidates = new ArrayList<>();
		for (WorkerProcess worker : this.live) {
			if (oracle().holding(worker.id) > 0) {
				candidates.add(worker);
			}
		}
		if (candidates.isEmpty()) {
			candidates.addAll(this.live);
		}
		return candidates.isEmpty() ? null : candidates.get(ThreadLocalRandom.current().nextInt(candidates.size()));
	}

	private void startWorkers(int count) {
		Threads.startAll(count, this::startWorker, this.live, "worker-starter");
	}

	private WorkerProcess startWorker() {
		String id = "w" + this.workerIds.incrementAndGet();
		Path log = this.logs.resolve(this.scenario.name() + "-" + id + ".log");
		StoreUnderTest lock = lockServer();
		ClockNemesis clocks = this.clocks;
		ProcessBuilder builder = ChildJvm.builder(Worker.class, List.of(this.scenario.backend().name(), lock.address(),
				this.oracleHost, Integer.toString(this.oraclePort), id, Integer.toString(this.settings.threads()),
				String.join(",", this.settings.keys()), this.scenario.store(),
				Long.toString(this.settings.ttl().toMillis()), Integer.toString(this.settings.maxSleepMillis())),
				(clocks != null) ? clocks.clockFile(id) : null);
		return new WorkerProcess(id, ChildJvm.startAndAwaitReady(builder, log, "Worker " + id));
	}

	private void stopWorkers() throws InterruptedException {
		oracle().stop();
		for (WorkerProcess worker : List.copyOf(this.live)) {
			if (!worker.process.waitFor(30, TimeUnit.SECONDS)) {
				log("worker " + worker.id + " did not stop within 30 s; killing it");
				killAll(List.of(worker));
			}
			this.live.remove(worker);
		}
	}

	private Oracle oracle() {
		Oracle oracle = this.oracle;
		if (oracle == null) {
			throw new IllegalStateException("Oracle not started");
		}
		return oracle;
	}

	private StoreUnderTest lockServer() {
		StoreUnderTest server = this.lockServer;
		if (server == null) {
			throw new IllegalStateException("Lock store not started");
		}
		return server;
	}

	private void log(String message) {
		System.err.println("[" + this.scenario.name() + "] " + message);
	}

	private static void signal(Process process, String signal) {
		try {
			Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).inheritIO().start();
			kill.waitFor(10, TimeUnit.SECONDS);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not send SIG" + signal + " to " + process.pid(), ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private record WorkerProcess(String id, Process process) {
	}

	@FunctionalInterface
	private interface Nemesis {

		void run() throws InterruptedException;

	}

	/**
	 * The workload's shape, the same for every scenario of a run.
	 *
	 * @param workers the number of worker processes
	 * @param threads the number of threads of each worker
	 * @param keys the keys the threads contend on
	 * @param ttl the locks' time-to-live
	 * @param maxSleepMillis the longest sleep inside a section, between the counter's
	 * read and write
	 * @param nemesisGap the time between two actions of the nemeses (pause, kill, the
	 * store's fault)
	 */
	record Settings(int workers, int threads, List<String> keys, Duration ttl, int maxSleepMillis,
			Duration nemesisGap) {
	}

}
