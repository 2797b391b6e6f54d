package dev.lockstarter.reliability;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;

import dev.lockstarter.test.postgres.PostgresServer;
import dev.lockstarter.test.redis.RedisServer;
import org.springframework.util.Assert;

/**
 * Runs one {@link HttpScenario}: instances of the sample app ({@link HttpInstance}, each
 * in its own JVM) on one store, clients in this JVM that send them requests and retry as
 * a mobile client does, nemeses, and at the end an account of what the application's own
 * data holds.
 * <p>
 * The clients:
 * <ul>
 * <li><b>Registration storms</b>: {@value #DEVICES} devices register the same new user
 * name at once on random instances, each retrying on {@code 409}, {@code 503}, time-outs
 * and refused connections until it gets {@code 201} or {@code 422} (taken). The same
 * storms run on {@code /api/unsafe/users}, the unlocked endpoint, as the negative
 * control.</li>
 * <li><b>Idempotent payments</b>: each client pays a new amount under a new
 * {@code Idempotency-Key}, with a time-out drawn between
 * {@value #PAYMENT_TIMEOUT_MIN_MILLIS} and {@value #PAYMENT_TIMEOUT_MAX_MILLIS} ms around
 * the payment's {@value #PAYMENT_LATENCY_MILLIS} ms, and retries with the same key and
 * body on time-outs, {@code 409}, {@code 5xx} and refused connections until it gets
 * {@code 201}. The late-response negative control pays the same way with
 * {@link HttpInstance#LATE_RESPONSE}.</li>
 * </ul>
 * The instance nemesis acts {@value #NEMESIS_INTERVAL_MILLIS} ms after every instance is
 * up, so that one at most is down at a time: it sends {@code kill -9} to a random
 * instance, or has the next payment's first attempt ask its instance to halt at a crash
 * point ({@link HttpInstance#CRASH_HEADER}): after the payment's write, after it is
 * durable and before its response is kept (the window), after the response is kept. The
 * scenario runs until each of these {@link #PLANNED_FAULTS} has happened. The store
 * nemesis stops the store ({@code SIGSTOP}) for {@value #STORE_PAUSE_MILLIS} ms every
 * {@value #STORE_PAUSE_EVERY_MILLIS} ms, shorter than the time-to-live less one renewal
 * interval, so that no lock is lost to it. A keeper starts a new instance for every one
 * that dies.
 * <p>
 * At the end, the {@link HttpAccount} of what the application's own data holds.
 */
final class HttpScenarioRun {

	static final int INSTANCES = 2;

	static final int DEVICES = 3;

	static final Duration LOCK_TTL = Duration.ofSeconds(3);

	static final long PAYMENT_LATENCY_MILLIS = 200;

	static final long POINTS_LATENCY_MILLIS = 100;

	static final long PAYMENT_TIMEOUT_MIN_MILLIS = 150;

	static final long PAYMENT_TIMEOUT_MAX_MILLIS = 1500;

	static final long NEMESIS_INTERVAL_MILLIS = 2000;

	static final long STORE_PAUSE_EVERY_MILLIS = 4000;

	static final long STORE_PAUSE_MILLIS = 1000;

	static final List<String> CRASH_POINTS = List.of("write", "paid", "kept");

	/**
	 * How long a scenario goes on, at most, past its duration until every planned fault
	 * has happened ({@link #PLANNED_FAULTS}): each waits for the instance before it to
	 * restart, which takes about 10 s on a quiet two-core machine and 40 s on a busy one.
	 * A bound against a hang, not a schedule: the run stops as soon as the last fault
	 * happened.
	 */
	static final Duration FAULTS_BOUND = Duration.ofMinutes(6);

	/** The instance faults a scenario waits for: a kill, then each crash point. */
	static final List<String> PLANNED_FAULTS = List.of("kill", "write", "paid", "kept");

	/** How long one key's client keeps retrying. */
	private static final Duration KEY_DEADLINE = Duration.ofSeconds(30);

	private static final int REGISTRATION_STORMS = 2;

	private static final int PAYMENT_CLIENTS = 4;

	private final HttpScenario scenario;

	private final Path logs;

	private final HttpFindings findings = new HttpFindings();

	private final HttpClient http = HttpClient.newBuilder()
		.version(HttpClient.Version.HTTP_1_1)
		.connectTimeout(Duration.ofSeconds(1))
		.build();

	private final AtomicInteger names = new AtomicInteger();

	/** The crash point that the next payment's first attempt asks for. */
	private final AtomicReference<@Nullable String> armedCrash = new AtomicReference<>();

	/** Our payment keys by amount, and the control's. */
	private final Map<Long, String> paymentKeys = new ConcurrentHashMap<>();

	private final Map<Long, String> lateKeys = new ConcurrentHashMap<>();

	/** Names registered (a client saw 201 or 422), per endpoint. */
	private final Map<String, Boolean> lockedNames = new ConcurrentHashMap<>();

	private final Map<String, Boolean> unlockedNames = new ConcurrentHashMap<>();

	private volatile boolean running = true;

	/**
	 * Whether the nemesis killed an instance: read by the thread that awaits the faults.
	 */
	private volatile boolean killed;

	private List<String> storeArguments = List.of();

	private @Nullable HttpInstances instances;

	private @Nullable RedisServer redis;

	private @Nullable PostgresServer postgres;

	private HttpScenarioRun(HttpScenario scenario, Path logs) {
		this.scenario = scenario;
		this.logs = logs;
	}

	static HttpFindings run(HttpScenario scenario, Path logs) {
		return new HttpScenarioRun(scenario, logs).run();
	}

	private HttpFindings run() {
		try (RedisServer oracleServer = RedisServer.start()) {
			startStore();
			List<String> arguments = new ArrayList<>(List.of("--harness.oracle-host=" + oracleServer.host(),
					"--harness.oracle-port=" + oracleServer.port(), "--lock.ttl=" + LOCK_TTL.toMillis() + "ms",
					"--sample.payments.latency=" + PAYMENT_LATENCY_MILLIS + "ms",
					"--sample.points-service.latency=" + POINTS_LATENCY_MILLIS + "ms"));
			arguments.addAll(this.storeArguments);
			HttpInstances instances = new HttpInstances(this.scenario.name(), this.logs, arguments, this.findings);
			this.instances = instances;
			try (HttpOracle oracle = new HttpOracle(oracleServer.host(), oracleServer.port())) {
				// The first alone: it creates the schema of a new database
				instances.start(1);
				instances.start(INSTANCES - 1);
				long started = System.nanoTime();
				List<Thread> clients = startClients();
				Thread keeper = Threads.daemon(instances::keep, "instance-keeper");
				Thread nemesis = Threads.daemon(() -> instanceNemesis(oracle), "instance-nemesis");
				Thread storeNemesis = Threads.daemon(this::storeNemesis, "store-nemesis");
				Thread.sleep(this.scenario.duration().toMillis());
				// Instances restart slowly on a busy machine: go on until every planned
				// fault has happened, however long that takes (within a bound)
				long bound = System.nanoTime() + FAULTS_BOUND.toNanos();
				while (!faultsToCome(oracle).isEmpty() && System.nanoTime() - bound < 0) {
					Thread.sleep(200);
				}
				if (!faultsToCome(oracle).isEmpty()) {
					log("planned faults that did not happen within " + FAULTS_BOUND + ": " + faultsToCome(oracle));
				}
				this.running = false;
				nemesis.join(TimeUnit.SECONDS.toMillis(30));
				storeNemesis.join(TimeUnit.SECONDS.toMillis(30));
				for (Thread client : clients) {
					client.join(KEY_DEADLINE.plusSeconds(30).toMillis());
				}
				instances.stopKeeping();
				keeper.join(HttpInstances.START_TIMEOUT.toMillis());
				this.findings.durationMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
				new HttpAccount(this.findings, oracle, this.paymentKeys, this.lateKeys, instances.dead()).take(
						instances.await().base(), this.lockedNames, this.unlockedNames, this.scenario.registrations());
				return this.findings;
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted during scenario " + this.scenario.name(), ex);
		}
		finally {
			this.running = false;
			if (this.instances != null) {
				this.instances.close();
			}
			if (this.redis != null) {
				this.redis.close();
			}
			if (this.postgres != null) {
				this.postgres.close();
			}
		}
	}

	private static Set<String> crashPointsReached(HttpOracle oracle) {
		return oracle.records(HttpOracle.CRASHED).stream().map((crashed) -> crashed[2]).collect(Collectors.toSet());
	}

	/** The planned faults that have not happened yet, in the order planned. */
	private List<String> faultsToCome(HttpOracle oracle) {
		Set<String> happened = new HashSet<>(crashPointsReached(oracle));
		if (this.findings.kills > 0) {
			happened.add("kill");
		}
		return PLANNED_FAULTS.stream().filter((fault) -> !happened.contains(fault)).toList();
	}

	private void startStore() {
		if (this.scenario.store() == HttpScenario.Store.REDIS) {
			RedisServer server = RedisServer.start();
			this.redis = server;
			this.storeArguments = List.of("--spring.profiles.active=redis", "--spring.data.redis.host=" + server.host(),
					"--spring.data.redis.port=" + server.port());
		}
		else {
			PostgresServer server = PostgresServer.start();
			this.postgres = server;
			this.storeArguments = List.of("--spring.profiles.active=jdbc",
					"--spring.datasource.url=" + server.jdbcUrl(), "--spring.datasource.username=" + server.username(),
					"--spring.datasource.password=",
					"--lock.idempotency.transactional=" + this.scenario.transactional());
		}
	}

	/**
	 * {@value #NEMESIS_INTERVAL_MILLIS} ms after every instance is up (so that one at
	 * most is down at a time) and after its last action, the next fault: first each
	 * planned fault that has not happened yet, in turn (an armed crash point is not
	 * always reached: the request that carries it may meet a conflict or a paused store),
	 * then all of them in turn for as long as the scenario runs.
	 */
	private void instanceNemesis(HttpOracle oracle) {
		long quietSince = System.nanoTime();
		for (int turn = 0; this.running;) {
			Threads.sleep(200);
			List<HttpInstances.Instance> alive = instances().alive();
			if (alive.size() < INSTANCES || this.armedCrash.get() != null) {
				quietSince = System.nanoTime();
				continue;
			}
			if (!this.running
					|| System.nanoTime() - quietSince < TimeUnit.MILLISECONDS.toNanos(NEMESIS_INTERVAL_MILLIS)) {
				continue;
			}
			List<String> toCome = faultsToCome(oracle);
			String fault = toCome.isEmpty() ? PLANNED_FAULTS.get(turn++ % PLANNED_FAULTS.size()) : toCome.get(0);
			if (fault.equals("kill")) {
				alive.get(ThreadLocalRandom.current().nextInt(alive.size())).process().destroyForcibly();
				this.findings.kills++;
			}
			else {
				this.armedCrash.set(fault);
			}
			quietSince = System.nanoTime();
		}
	}

	private void storeNemesis() {
		while (this.running) {
			Threads.sleep(STORE_PAUSE_EVERY_MILLIS);
			if (this.running) {
				pauseStore();
			}
		}
	}

	private void pauseStore() {
		try {
			if (this.redis != null) {
				this.redis.pause();
			}
			else if (this.postgres != null) {
				this.postgres.pause();
			}
			this.findings.storePauses++;
			Threads.sleep(STORE_PAUSE_MILLIS);
		}
		catch (RuntimeException ex) {
			log("store pause failed: " + ex);
		}
		finally {
			// Undoes a pause that failed half-way too
			if (this.redis != null) {
				this.redis.resume();
			}
			else if (this.postgres != null) {
				this.postgres.resume();
			}
		}
	}

	// Clients

	private List<Thread> startClients() {
		List<Thread> clients = new ArrayList<>();
		if (this.scenario.registrations()) {
			for (int i = 0; i < REGISTRATION_STORMS; i++) {
				clients.add(Threads.daemon(() -> storms("/api/users", this.findings.registrations, this.lockedNames),
						"registrations"));
			}
			clients.add(Threads.daemon(() -> storms("/api/unsafe/users", this.findings.unlocked, this.unlockedNames),
					"unlocked-registrations"));
		}
		for (int i = 0; i < PAYMENT_CLIENTS; i++) {
			clients.add(Threads.daemon(() -> payments(false), "payments"));
		}
		if (this.scenario.lateResponseControl()) {
			clients.add(Threads.daemon(() -> payments(true), "late-response-payments"));
			clients.add(Threads.daemon(() -> payments(true), "late-response-payments"));
		}
		return clients;
	}

	private void storms(String path, HttpFindings.Registrations counts, Map<String, Boolean> registered) {
		while (this.running) {
			String name = this.scenario.name() + "-u" + this.names.incrementAndGet();
			counts.names.incrementAndGet();
			registered.put(name, false);
			// The devices at once; the name counts as registered if any of them saw it so
			List<Boolean> answered = new CopyOnWriteArrayList<>();
			Threads.startAll(DEVICES, () -> register(path, name, counts), answered, "device");
			registered.put(name, answered.contains(true));
		}
	}

	/** Register a name until it is created or taken; whether it was. */
	private boolean register(String path, String name, HttpFindings.Registrations counts) {
		String body = "{\"userName\": \"" + name + "\"}";
		return untilAnswered(counts,
				(base) -> HttpRequest.newBuilder(base.resolve(path))
					.header("Content-Type", "application/json")
					.timeout(Duration.ofSeconds(3))
					.POST(HttpRequest.BodyPublishers.ofString(body))
					.build(),
				(response) -> {
					if (response.statusCode() == 201) {
						counts.created.incrementAndGet();
						return true;
					}
					if (response.statusCode() == 422) {
						counts.taken.incrementAndGet();
						return true;
					}
					return false;
				});
	}

	private void payments(boolean late) {
		HttpFindings.Payments counts = late ? this.findings.lateResponse : this.findings.payments;
		Map<Long, String> keys = late ? this.lateKeys : this.paymentKeys;
		while (this.running) {
			String key = UUID.randomUUID().toString();
			long amount;
			do {
				amount = ThreadLocalRandom.current().nextLong(1_000_000, 1_000_000_000_000L);
			}
			while (this.paymentKeys.containsKey(amount) || this.lateKeys.containsKey(amount)
					|| keys.putIfAbsent(amount, key) != null);
			counts.keys.incrementAndGet();
			String crash = late ? null : this.armedCrash.getAndSet(null);
			if (!pay(key, amount, crash, late, counts)) {
				counts.abandoned.incrementAndGet();
			}
		}
	}

	/** Pay until a response comes; whether one did. */
	private boolean pay(String key, long amount, @Nullable String crash, boolean late, HttpFindings.Payments counts) {
		String body = "{\"amount\": " + amount + "}";
		AtomicBoolean first = new AtomicBoolean(true);
		return untilAnswered(counts, (base) -> {
			// The control's clients time out more often, so that retries come while its
			// response is not kept yet
			long timeout = late
					? ThreadLocalRandom.current().nextLong(PAYMENT_LATENCY_MILLIS / 2, PAYMENT_LATENCY_MILLIS * 3 / 2)
					: ThreadLocalRandom.current().nextLong(PAYMENT_TIMEOUT_MIN_MILLIS, PAYMENT_TIMEOUT_MAX_MILLIS);
			HttpRequest.Builder request = HttpRequest.newBuilder(base.resolve("/api/payments"))
				.header("Content-Type", "application/json")
				.header("Idempotency-Key", key)
				.timeout(Duration.ofMillis(timeout))
				.POST(HttpRequest.BodyPublishers.ofString(body));
			if (first.getAndSet(false) && crash != null) {
				request.header(HttpInstance.CRASH_HEADER, crash);
			}
			if (late) {
				request.header(HttpInstance.FAULT_HEADER, HttpInstance.LATE_RESPONSE);
			}
			return request.build();
		}, (response) -> {
			if (response.statusCode() != 201) {
				return false;
			}
			counts.completed.incrementAndGet();
			if (response.headers().firstValue("Idempotent-Replayed").isPresent()) {
				counts.replayed.incrementAndGet();
			}
			return true;
		});
	}

	/**
	 * Send a request to a random live instance, again (to another) on a time-out, a
	 * refused connection or an answer that is not the one awaited, for at most
	 * {@link #KEY_DEADLINE}; whether the awaited answer came.
	 */
	private boolean untilAnswered(HttpFindings.Requests counts, Function<URI, HttpRequest> request,
			Predicate<HttpResponse<Void>> answered) {
		long deadline = System.nanoTime() + KEY_DEADLINE.toNanos();
		while (System.nanoTime() - deadline < 0) {
			HttpInstances.Instance instance = instances().any();
			if (instance == null) {
				Threads.sleep(100);
				continue;
			}
			counts.requests.incrementAndGet();
			try {
				HttpResponse<Void> response = this.http.send(request.apply(instance.base()),
						HttpResponse.BodyHandlers.discarding());
				if (answered.test(response)) {
					return true;
				}
				((response.statusCode() == 409) ? counts.conflicts : counts.failures).incrementAndGet();
			}
			catch (IOException ex) {
				counts.failures.incrementAndGet();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return false;
			}
			Threads.sleep(50 + ThreadLocalRandom.current().nextInt(150));
		}
		return false;
	}

	private HttpInstances instances() {
		HttpInstances instances = this.instances;
		Assert.state(instances != null, "The instances have not been started");
		return instances;
	}

	private void log(String message) {
		System.err.println("[" + this.scenario.name() + "] " + message);
	}

}
