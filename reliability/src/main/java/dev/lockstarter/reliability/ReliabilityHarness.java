package dev.lockstarter.reliability;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;

import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * The reliability harness: runs this starter's lock on every store ({@link Backend}) and
 * deliberately broken locks under the same workload, each in its own {@link Scenario},
 * and collects what the {@link Checker} found. This starter's lock runs under every
 * nemesis, the {@link ClockNemesis} among them; the broken lock that judges expiry by the
 * workers' wall clocks runs under the clock nemesis alone, to show that it bites.
 * <p>
 * The <em>short</em> form (no duration given) runs this starter's lock for
 * {@link #SHORT_SECONDS} on each store and each broken lock until it is caught, at most
 * {@value #SHORT_CONTROL_SECONDS} seconds. The <em>long</em> form gives this starter's
 * lock 70% of the duration, split evenly over the stores and, on the
 * {@link #DETACHED_BACKENDS}, its detached leases as the lock server uses them, the HTTP
 * paths 15% and each broken lock 3%, for the whole of it.
 *
 * @since 0.1.0
 */
public final class ReliabilityHarness {

	/**
	 * System property with the duration of the long form, such as {@code 10m} or
	 * {@code 300s}.
	 */
	public static final String DURATION_PROPERTY = "reliability.duration";

	/**
	 * System property naming the scenarios to run, comma-separated; all by default. For
	 * debugging.
	 */
	public static final String SCENARIOS_PROPERTY = "reliability.scenarios";

	/**
	 * How long the short form runs this starter's lock on each store, at the least: a run
	 * goes on until every planned event has happened (each nemesis, the store's fault or,
	 * on a consensus cluster, each kind of fault, a number of completed sections; see
	 * {@code ScenarioRun#eventsToCome}), so that these floors are what a quiet machine
	 * spends, and a busy one spends what it takes.
	 */
	static final Map<Backend, Integer> SHORT_SECONDS = Map.of(Backend.REDIS, 12, Backend.SENTINEL, 12, Backend.CLUSTER,
			12, Backend.MEMCACHED, 12, Backend.DYNAMODB, 10, Backend.JDBC, 10, Backend.ETCD, 15, Backend.ZOOKEEPER, 15);

	/**
	 * The longest the short form runs a broken lock: it stops once the lock is caught.
	 * {@code GET} then {@code DEL} is the slowest to catch, since a pause must fall
	 * between the two: after 8 to 27 s in nine runs.
	 */
	static final int SHORT_CONTROL_SECONDS = 60;

	/**
	 * The stores whose expiry a contender counts by observed silence, on which this
	 * starter's lock also runs as the lock server uses it, on two instances
	 * ({@link DetachedWorkerLock}).
	 */
	static final List<Backend> DETACHED_BACKENDS = List.of(Backend.MEMCACHED, Backend.DYNAMODB, Backend.ETCD,
			Backend.ZOOKEEPER);

	/**
	 * How long the short form runs the detached leases on each of the
	 * {@link #DETACHED_BACKENDS}: less than {@link #SHORT_SECONDS}, since one section in
	 * {@value Worker#DETACHED_LONG_SECTION_EVERY} is long enough to be renewed on the
	 * second instance. A run goes on until such a section has exited (see
	 * {@code ScenarioRun#DETACHED_LONG_SECTIONS}) and every other planned event has
	 * happened.
	 */
	static final Map<Backend, Integer> SHORT_DETACHED_SECONDS = Map.of(Backend.MEMCACHED, 10, Backend.DYNAMODB, 10,
			Backend.ETCD, 15, Backend.ZOOKEEPER, 15);

	/**
	 * The workload: the nemeses take turns every half TTL, so that each kind comes back
	 * every few seconds.
	 */
	static final ScenarioRun.Settings SETTINGS = new ScenarioRun.Settings(3, 4,
			List.of("k0", "k1", "k2", "k3", "k4", "k5"), Duration.ofSeconds(1), 10, Duration.ofMillis(500));

	/**
	 * The workload of the broken locks on Redis: the same, on two keys, so that a lock
	 * deleted by the wrong owner is taken again at once, while its holder is still
	 * inside.
	 */
	static final ScenarioRun.Settings CONTROL_SETTINGS = new ScenarioRun.Settings(SETTINGS.workers(),
			SETTINGS.threads(), SETTINGS.keys().subList(0, 2), SETTINGS.ttl(), SETTINGS.maxSleepMillis(),
			SETTINGS.nemesisGap());

	/**
	 * The workload of the owner-blind releases on Memcached and DynamoDB: that of the
	 * other broken locks with sections of up to 50 ms, longer than an acquisition on
	 * DynamoDB Local, so that the one who takes a deleted lock enters while its holder is
	 * still inside. With the 10 ms sections of Redis, that lock was caught after 20 s in
	 * one run and not within 40 s in another.
	 */
	static final ScenarioRun.Settings OWNER_BLIND_SETTINGS = new ScenarioRun.Settings(CONTROL_SETTINGS.workers(),
			CONTROL_SETTINGS.threads(), CONTROL_SETTINGS.keys(), CONTROL_SETTINGS.ttl(), 50,
			CONTROL_SETTINGS.nemesisGap());

	private ReliabilityHarness() {
	}

	/**
	 * Parse a duration such as {@code 10m}, {@code 300s}, {@code 1h} or an ISO-8601
	 * {@code PT5M}.
	 * @param text the duration
	 * @return the duration, positive
	 * @throws IllegalArgumentException if the text is not a positive duration
	 */
	public static Duration parseDuration(String text) {
		Assert.hasText(text, "'" + DURATION_PROPERTY + "' must not be empty");
		String value = text.strip().toLowerCase();
		Duration duration;
		try {
			if (value.startsWith("pt")) {
				duration = Duration.parse(value.toUpperCase());
			}
			else {
				long amount = Long.parseLong(value.substring(0, value.length() - 1));
				duration = switch (value.charAt(value.length() - 1)) {
					case 's' -> Duration.ofSeconds(amount);
					case 'm' -> Duration.ofMinutes(amount);
					case 'h' -> Duration.ofHours(amount);
					default -> throw new IllegalArgumentException();
				};
			}
		}
		catch (RuntimeException ex) {
			throw new IllegalArgumentException("'" + DURATION_PROPERTY + "' must be a duration such as 10m, 300s or "
					+ "PT5M, was '" + text + "'");
		}
		Assert.isTrue(!duration.isNegative() && !duration.isZero(),
				() -> "'" + DURATION_PROPERTY + "' must be positive, was '" + text + "'");
		return duration;
	}

	/**
	 * How long the short form runs the clients of each HTTP scenario; it goes on until
	 * every crash point and a kill have happened.
	 */
	static final int SHORT_HTTP_SECONDS = 20;

	/**
	 * The HTTP scenarios: the sample app on Redis, with both negative controls, and on
	 * PostgreSQL with {@code lock.idempotency.transactional} and (long form only)
	 * without.
	 * @param longDuration the long form's duration, or {@code null} for the short form
	 * @return the scenarios, in the order they run
	 */
	static List<HttpScenario> httpScenarios(@Nullable Duration longDuration) {
		if (longDuration == null) {
			// The short form leaves out the comparison without the transactional mode,
			// whose window it also shows on Redis
			Duration duration = Duration.ofSeconds(SHORT_HTTP_SECONDS);
			return List.of(new HttpScenario("http-redis", HttpScenario.Store.REDIS, false, true, true, duration),
					new HttpScenario("http-jdbc-tx", HttpScenario.Store.POSTGRES, true, true, false, duration));
		}
		// The long form gives the HTTP paths 15% of its time
		Duration duration = longDuration.multipliedBy(3).dividedBy(20).dividedBy(3);
		return List.of(new HttpScenario("http-redis", HttpScenario.Store.REDIS, false, true, true, duration),
				new HttpScenario("http-jdbc-tx", HttpScenario.Store.POSTGRES, true, true, false, duration),
				new HttpScenario("http-jdbc", HttpScenario.Store.POSTGRES, false, false, false, duration));
	}

	static List<Scenario> scenarios(@Nullable Duration longDuration) {
		boolean shortForm = longDuration == null;
		List<Scenario> scenarios = new ArrayList<>();
		// The long form gives 70% of its time to this starter's lock, split evenly
		int ours = Backend.values().length + DETACHED_BACKENDS.size();
		for (Backend backend : Backend.values()) {
			Duration duration = shortForm ? Duration.ofSeconds(SHORT_SECONDS.get(backend))
					: longDuration.multipliedBy(7).dividedBy(10).dividedBy(ours);
			String name = (backend == Backend.REDIS) ? "ours" : backend.name().toLowerCase(Locale.ROOT);
			scenarios.add(new Scenario(name, Worker.OURS, backend,
					backend.description() + ": `LockTemplate`, wait up to 2 × TTL, renewal on, fencing tokens read",
					duration, false, true, true, true, backend.isRedis(), true));
		}
		for (Backend backend : DETACHED_BACKENDS) {
			Duration duration = shortForm ? Duration.ofSeconds(SHORT_DETACHED_SECONDS.get(backend))
					: longDuration.multipliedBy(7).dividedBy(10).dividedBy(ours);
			scenarios
				.add(new Scenario(backend.name().toLowerCase(Locale.ROOT) + "-detached", Worker.OURS_DETACHED, backend,
						backend.description() + ": as the lock server uses it, detached leases acquired on one "
								+ "instance, renewed on another every TTL/3, released on the first",
						duration, false, true, true, true, false, true));
		}
		// The long form gives each broken lock 3% of its time: the wall-clock control
		// came on
		// top of the five before it, whose runs it does not shorten (a shorter run may
		// miss
		// the rarer flaws)
		Duration control = shortForm ? Duration.ofSeconds(SHORT_CONTROL_SECONDS)
				: longDuration.multipliedBy(3).dividedBy(100);
		scenarios.add(new Scenario("plain-del", BrokenLockStore.Flaw.PLAIN_DEL.name(), Backend.REDIS,
				"release by plain `DEL`, no owner check", control, shortForm, true, false, false, false, false));
		scenarios.add(new Scenario("get-then-del", BrokenLockStore.Flaw.GET_THEN_DEL.name(), Backend.REDIS,
				"release by `GET`, compare in the client, then `DEL` (" + BrokenLockStore.STEP_GAP.toMillis()
						+ " ms apart)",
				control, shortForm, true, false, false, false, false));
		scenarios.add(new Scenario("setnx-then-expire", BrokenLockStore.Flaw.SETNX_THEN_EXPIRE.name(), Backend.REDIS,
				"acquire by `SETNX`, then `EXPIRE` (" + BrokenLockStore.STEP_GAP.toMillis() + " ms apart)", control,
				shortForm, false, false, false, true, false));
		scenarios.add(new Scenario("wall-clock-expiry", BrokenLockStore.Flaw.WALL_CLOCK_EXPIRY.name(), Backend.REDIS,
				"expiry judged by the workers' wall clocks (the holder writes `now + ttl` by its clock, a contender "
						+ "takes over once that is before its own `now`, in one script)",
				control, shortForm, false, false, false, false, true));
		for (Backend backend : List.of(Backend.MEMCACHED, Backend.DYNAMODB)) {
			String store = backend.name().toLowerCase(Locale.ROOT);
			scenarios.add(new Scenario(store + "-owner-blind", Worker.OWNER_BLIND, backend,
					"release on " + store + " without the owner check ("
							+ ((backend == Backend.MEMCACHED) ? "`delete`" : "`DeleteItem` without a condition") + ")",
					control, shortForm, true, false, false, false, false));
		}
		return scenarios;
	}

	static Run run(@Nullable Duration longDuration, Path logs) {
		try {
			Files.createDirectories(logs);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		Instant startedAt = Instant.now();
		String loadBefore = Machine.loadAverage();
		long started = System.nanoTime();
		String only = System.getProperty(SCENARIOS_PROPERTY, "");
		List<Scenario> scenarios = scenarios(longDuration).stream()
			.filter((scenario) -> only.isBlank() || List.of(only.split(",")).contains(scenario.name()))
			.toList();
		List<HttpScenario> httpScenarios = httpScenarios(longDuration).stream()
			.filter((scenario) -> only.isBlank() || List.of(only.split(",")).contains(scenario.name()))
			.toList();
		List<Result> ours = new ArrayList<>();
		Queue<Scenario> brokenLocks = new ConcurrentLinkedQueue<>(
				scenarios.stream().filter((scenario) -> !scenario.isOurs()).toList());
		List<Result> controls = new CopyOnWriteArrayList<>();
		List<HttpResult> http = new ArrayList<>();
		Runnable httpPaths = () -> {
			for (HttpScenario scenario : httpScenarios) {
				HttpFindings findings = HttpScenarioRun.run(scenario, logs);
				System.err.println("[" + scenario.name() + "] " + findings);
				http.add(new HttpResult(scenario, findings));
			}
		};
		List<Scenario> ourScenarios = scenarios.stream().filter(Scenario::isOurs).toList();
		if (longDuration == null) {
			// The short form runs in two lanes, to stay within a few minutes: this
			// starter's lock on every store in one; the broken locks, then the HTTP paths
			// in the other. DynamoDB Local, a JVM that the nemesis restarts, is the store
			// that a busy machine slows most: its scenarios come first, beside the broken
			// locks, rather than beside the HTTP paths, whose instances start JVMs all
			// along (a detached run there went from 44 s to the 3-minute bound)
			Lane lane = new Lane(() -> {
				runAll(brokenLocks, logs, controls);
				httpPaths.run();
			});
			lane.start();
			List<Scenario> dynamoDbFirst = ourScenarios.stream()
				.sorted(Comparator.comparing((scenario) -> scenario.backend() != Backend.DYNAMODB))
				.toList();
			runAll(new ConcurrentLinkedQueue<>(dynamoDbFirst), logs, ours);
			runAll(brokenLocks, logs, controls);
			lane.await();
		}
		else {
			// The long form, whose figures are committed, runs one scenario at a time
			runAll(new ConcurrentLinkedQueue<>(ourScenarios), logs, ours);
			httpPaths.run();
			runAll(brokenLocks, logs, controls);
		}
		// In the order of the scenarios, whichever lane ran them
		ours.sort(Comparator.comparingInt((result) -> scenarios.indexOf(result.scenario())));
		controls.sort(Comparator.comparingInt((result) -> scenarios.indexOf(result.scenario())));
		List<Result> results = new ArrayList<>(ours);
		results.addAll(controls);
		return new Run(startedAt, Duration.ofNanos(System.nanoTime() - started), longDuration, results, http,
				loadBefore, Machine.loadAverage());
	}

	/**
	 * The workload a scenario runs.
	 */
	static ScenarioRun.Settings settings(Scenario scenario) {
		if (scenario.isOurs()) {
			return SETTINGS;
		}
		return Worker.OWNER_BLIND.equals(scenario.store()) ? OWNER_BLIND_SETTINGS : CONTROL_SETTINGS;
	}

	/**
	 * Run the scenarios of a queue, taking each from it: two lanes may share a queue.
	 */
	private static void runAll(Queue<Scenario> scenarios, Path logs, List<Result> results) {
		for (Scenario scenario = scenarios.poll(); scenario != null; scenario = scenarios.poll()) {
			Findings findings = ScenarioRun.run(scenario, settings(scenario), logs);
			System.err.println("[" + scenario.name() + "] " + findings);
			results.add(new Result(scenario, findings));
		}
	}

	/**
	 * A thread that runs scenarios beside the caller's and hands its failure back.
	 */
	private static final class Lane extends Thread {

		private final Runnable scenarios;

		private volatile @Nullable RuntimeException failure;

		Lane(Runnable scenarios) {
			super("second-lane");
			this.scenarios = scenarios;
			setDaemon(true);
		}

		@Override
		public void run() {
			try {
				this.scenarios.run();
			}
			catch (RuntimeException ex) {
				this.failure = ex;
			}
		}

		void await() {
			try {
				join();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted while waiting for the second lane", ex);
			}
			RuntimeException failure = this.failure;
			if (failure != null) {
				throw failure;
			}
		}

	}

	/**
	 * The findings of one scenario.
	 */
	record Result(Scenario scenario, Findings findings) {
	}

	/**
	 * The findings of one HTTP scenario.
	 */
	record HttpResult(HttpScenario scenario, HttpFindings findings) {
	}

	/**
	 * A whole run of the harness.
	 */
	record Run(Instant startedAt, Duration elapsed, @Nullable Duration longDuration, List<Result> results,
			List<HttpResult> http, String loadBefore, String loadAfter) {

		List<Result> ours() {
			return this.results.stream().filter((result) -> result.scenario().isOurs()).toList();
		}

		List<Result> controls() {
			return this.results.stream().filter((result) -> !result.scenario().isOurs()).toList();
		}

	}

}
