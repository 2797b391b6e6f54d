package dev.lockstarter.reliability;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
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
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import dev.lockstarter.test.ServerProcess;
import dev.lockstarter.test.postgres.PostgresServer;
import dev.lockstarter.test.redis.RedisServer;

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
 * The account: the users stored under each name, the payments stored for each key (each
 * key pays its own amount), and the oracle's records of which payments had their response
 * kept ({@link HttpOracle}).
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
	 * The longest from a payment to the keeping of its response on a live instance: a
	 * store call held up by a store pause ({@value #STORE_PAUSE_MILLIS} ms) on a busy
	 * machine. A store that refuses the response is recorded as such.
	 */
	static final long KEEP_BOUND_MILLIS = 2000;

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

	private static final Duration INSTANCE_START_TIMEOUT = Duration.ofSeconds(120);

	private static final int REGISTRATION_STORMS = 2;

	private static final int PAYMENT_CLIENTS = 4;

	private final HttpScenario scenario;

	private final Path logs;

	private final HttpFindings findings = new HttpFindings();

	private final HttpClient http = HttpClient.newBuilder()
		.version(HttpClient.Version.HTTP_1_1)
		.connectTimeout(Duration.ofSeconds(1))
		.build();

	private final JsonMapper json = JsonMapper.builder().build();

	private final List<Instance> live = new CopyOnWriteArrayList<>();

	/** When each instance that died was seen dead (epoch millis), by id. */
	private final Map<String, Long> dead = new ConcurrentHashMap<>();

	private final AtomicInteger instanceIds = new AtomicInteger();

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

	private volatile boolean keeping = true;

	/**
	 * Whether the nemesis killed an instance: read by the thread that awaits the faults.
	 */
	private volatile boolean killed;

	private String storeArguments = "";

	private @Nullable RedisServer redis;

	private @Nullable PostgresServer postgres;

	private String oracleHost = "";

	private int oraclePort;

	private HttpScenarioRun(HttpScenario scenario, Path logs) {
		this.scenario = scenario;
		this.logs = logs;
	}

	static HttpFindings run(HttpScenario scenario, Path logs) {
		return new HttpScenarioRun(scenario, logs).run();
	}

	private HttpFindings run() {
		try (RedisServer oracleServer = RedisServer.start()) {
			this.oracleHost = oracleServer.host();
			this.oraclePort = oracleServer.port();
			startStore();
			try (HttpOracle oracle = new HttpOracle(this.oracleHost, this.oraclePort)) {
				// The first alone: it creates the schema of a new database
				startInstances(1);
				startInstances(INSTANCES - 1);
				long started = System.nanoTime();
				List<Thread> clients = startClients();
				Thread keeper = Threads.daemon(this::keep, "instance-keeper");
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
				this.keeping = false;
				keeper.join(INSTANCE_START_TIMEOUT.toMillis());
				this.findings.durationMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
				account(oracle);
				return this.findings;
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted during scenario " + this.scenario.name(), ex);
		}
		finally {
			this.running = false;
			this.keeping = false;
			for (Instance instance : this.live) {
				instance.process.destroyForcibly();
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
		if (this.killed) {
			happened.add("kill");
		}
		return PLANNED_FAULTS.stream().filter((fault) -> !happened.contains(fault)).toList();
	}

	private void startStore() {
		if (this.scenario.store() == HttpScenario.Store.REDIS) {
			RedisServer server = RedisServer.start();
			this.redis = server;
			this.storeArguments = String.join(" ", "--spring.profiles.active=redis",
					"--spring.data.redis.host=" + server.host(), "--spring.data.redis.port=" + server.port());
		}
		else {
			PostgresServer server = PostgresServer.start();
			this.postgres = server;
			this.storeArguments = String.join(" ", "--spring.profiles.active=jdbc",
					"--spring.datasource.url=" + server.jdbcUrl(), "--spring.datasource.username=" + server.username(),
					"--spring.datasource.password=",
					"--lock.idempotency.transactional=" + this.scenario.transactional());
		}
	}

	// Instances

	private void startInstances(int count) {
		Threads.startAll(count, this::startInstance, this.live, "instance-starter");
	}

	private Instance startInstance() {
		String id = "i" + this.instanceIds.incrementAndGet();
		int port = ServerProcess.freePort();
		Path log = this.logs.resolve(this.scenario.name() + "-" + id + ".log");
		String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
		List<String> command = new ArrayList<>(List.of(java, "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
				"-cp", System.getProperty("java.class.path"), HttpInstance.class.getName(), "--server.port=" + port,
				"--spring.main.banner-mode=off", "--harness.oracle-host=" + this.oracleHost,
				"--harness.oracle-port=" + this.oraclePort, "--harness.instance=" + id,
				"--lock.ttl=" + LOCK_TTL.toMillis() + "ms",
				"--sample.payments.latency=" + PAYMENT_LATENCY_MILLIS + "ms",
				"--sample.points-service.latency=" + POINTS_LATENCY_MILLIS + "ms",
				"--management.endpoints.web.exposure.include=health", "--logging.level.root=WARN"));
		command.addAll(List.of(this.storeArguments.split(" ")));
		Process process;
		try {
			process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not start instance " + id, ex);
		}
		long deadline = System.nanoTime() + INSTANCE_START_TIMEOUT.toNanos();
		while (true) {
			if (!process.isAlive() || System.nanoTime() - deadline > 0) {
				process.destroyForcibly();
				throw new IllegalStateException("Instance " + id + " did not start; see " + log.toAbsolutePath());
			}
			try (Socket socket = new Socket("127.0.0.1", port)) {
				break;
			}
			catch (IOException notYet) {
				Threads.sleep(100);
			}
		}
		this.findings.instancesStarted++;
		// When it died, to the moment: the keeper may be busy starting another
		process.onExit().thenRun(() -> this.dead.put(id, System.currentTimeMillis()));
		return new Instance(id, URI.create("http://127.0.0.1:" + port), process);
	}

	/** Replace every instance that died, until the clients are done. */
	private void keep() {
		while (this.keeping) {
			for (Instance instance : this.live) {
				if (!instance.process.isAlive()) {
					this.live.remove(instance);
					if (this.keeping) {
						try {
							this.live.add(startInstance());
						}
						catch (RuntimeException ex) {
							log("could not replace " + instance.id + ": " + ex);
						}
					}
				}
			}
			Threads.sleep(100);
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
			List<Instance> alive = aliveInstances();
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
				alive.get(ThreadLocalRandom.current().nextInt(alive.size())).process.destroyForcibly();
				this.findings.kills++;
				this.killed = true;
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
			Instance instance = anyInstance();
			if (instance == null) {
				Threads.sleep(100);
				continue;
			}
			counts.requests.incrementAndGet();
			try {
				HttpResponse<Void> response = this.http.send(request.apply(instance.base),
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

	private @Nullable Instance anyInstance() {
		List<Instance> alive = aliveInstances();
		return alive.isEmpty() ? null : alive.get(ThreadLocalRandom.current().nextInt(alive.size()));
	}

	private List<Instance> aliveInstances() {
		return this.live.stream().filter((instance) -> instance.process.isAlive()).toList();
	}

	// The account

	private void account(HttpOracle oracle) throws InterruptedException {
		Instance instance = awaitInstance();
		for (String[] crashed : oracle.records(HttpOracle.CRASHED)) {
			this.findings.crashes.merge(crashed[2], 1L, Long::sum);
		}
		if (this.scenario.registrations()) {
			countUsers(instance, this.lockedNames, this.findings.registrations);
			countUsers(instance, this.unlockedNames, this.findings.unlocked);
		}
		Map<String, List<String>> payments = new HashMap<>();
		for (JsonNode payment : get(instance, "/api/payments")) {
			long amount = payment.get("amount").asLong();
			String key = this.paymentKeys.getOrDefault(amount, this.lateKeys.get(amount));
			if (key != null) {
				payments.computeIfAbsent(key, (k) -> new ArrayList<>()).add(payment.get("paymentId").asString());
			}
		}
		Map<String, String[]> paidRecords = new HashMap<>();
		for (String[] paid : oracle.records(HttpOracle.PAID)) {
			paidRecords.put(paid[2], paid);
		}
		Set<String> notKept = new HashSet<>();
		for (String[] record : oracle.records(HttpOracle.NOT_KEPT)) {
			notKept.add(record[2]);
		}
		Set<String> kept = new HashSet<>();
		for (String[] record : oracle.records(HttpOracle.KEPT)) {
			kept.add(record[2]);
			long window = Long.parseLong(record[3]);
			if (window >= 0) {
				this.findings.payments.windowMicros.add(window);
			}
		}
		Set<String> lateKeys = Set.copyOf(this.lateKeys.values());
		for (Map.Entry<String, List<String>> entry : payments.entrySet()) {
			boolean late = lateKeys.contains(entry.getKey());
			HttpFindings.Payments counts = late ? this.findings.lateResponse : this.findings.payments;
			List<String> ids = entry.getValue();
			counts.executions += ids.size();
			int deaths = 0;
			int storeFailures = 0;
			for (String id : ids) {
				if (!kept.contains(id)) {
					counts.notKept++;
					if (notKept.contains(id)) {
						storeFailures++;
					}
					else if (diedBeforeKeeping(paidRecords.get(id))) {
						deaths++;
					}
				}
			}
			if (ids.size() > 1) {
				// Each payment whose response could not be kept (its instance died, or
				// the
				// store refused it) explains one execution more
				int doubles = ids.size() - 1;
				int afterDeath = Math.min(doubles, deaths);
				int afterStoreFailure = Math.min(doubles - afterDeath, storeFailures);
				counts.doubles += doubles;
				counts.doublesAfterDeath += afterDeath;
				counts.doublesAfterStoreFailure += afterStoreFailure;
				if (afterDeath + afterStoreFailure < doubles && counts.examples.size() < 5) {
					counts.examples.add(entry.getKey() + " paid " + ids.size() + " times, " + deaths
							+ " of them on an instance that died before keeping the response, " + storeFailures
							+ " refused by the store: " + ids);
				}
			}
		}
	}

	/**
	 * Whether the instance that made a payment died before it could keep the response:
	 * within {@value #KEEP_BOUND_MILLIS} ms of the payment (keeping it is one store call,
	 * bounded by the store's time-out), or before it could even record the payment.
	 */
	private boolean diedBeforeKeeping(String @Nullable [] paid) {
		if (paid == null) {
			return !this.dead.isEmpty();
		}
		Long diedAt = this.dead.get(paid[1]);
		return diedAt != null && diedAt - Long.parseLong(paid[3]) <= KEEP_BOUND_MILLIS;
	}

	private Instance awaitInstance() {
		long deadline = System.nanoTime() + INSTANCE_START_TIMEOUT.toNanos();
		while (System.nanoTime() - deadline < 0) {
			Instance instance = anyInstance();
			if (instance != null) {
				return instance;
			}
			Threads.sleep(100);
		}
		this.live.add(startInstance());
		return this.live.get(this.live.size() - 1);
	}

	private void countUsers(Instance instance, Map<String, Boolean> names, HttpFindings.Registrations counts) {
		for (Map.Entry<String, Boolean> name : names.entrySet()) {
			int stored = get(instance,
					"/api/users?userName=" + URLEncoder.encode(name.getKey(), StandardCharsets.UTF_8))
				.size();
			counts.stored += stored;
			if (stored > 1) {
				counts.duplicates++;
				if (counts.examples.size() < 5) {
					counts.examples.add(name.getKey() + " stored " + stored + " times");
				}
			}
			if (stored == 0 && name.getValue()) {
				counts.lost++;
			}
		}
	}

	private JsonNode get(Instance instance, String path) {
		HttpRequest request = HttpRequest.newBuilder(instance.base.resolve(path))
			.timeout(Duration.ofSeconds(30))
			.build();
		for (int attempt = 1;; attempt++) {
			try {
				HttpResponse<String> response = this.http.send(request, HttpResponse.BodyHandlers.ofString());
				if (response.statusCode() == 200) {
					return this.json.readTree(response.body());
				}
				if (attempt == 5) {
					throw new IllegalStateException(
							"GET " + path + " answered " + response.statusCode() + ": " + response.body());
				}
			}
			catch (IOException ex) {
				if (attempt == 5) {
					throw new UncheckedIOException("GET " + path, ex);
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted during GET " + path, ex);
			}
			Threads.sleep(500);
		}
	}

	private void log(String message) {
		System.err.println("[" + this.scenario.name() + "] " + message);
	}

	private record Instance(String id, URI base, Process process) {
	}

}
