package dev.lockstarter.sample;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.JsonNode;

import dev.lockstarter.sample.user.RedisUserRepository;
import dev.lockstarter.sample.user.User;
import dev.lockstarter.sample.user.UserRepository;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.redis.RedisLockStore;
import dev.lockstarter.test.redis.RedisServerExtension;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two instances of the sample app with the {@code redis} profile, sharing one real Redis
 * server for their locks and their users, driven over HTTP: registrations, counters,
 * single-flight sums, and exports with three permits per tenant.
 */
class TwoInstancesWithRedisTests {

	private static final int CONCURRENT_REQUESTS = 20;

	/**
	 * Long enough for 20 simultaneous requests to overlap, with a margin for a slow
	 * machine.
	 */
	private static final Duration POINTS_LATENCY = Duration.ofMillis(500);

	/**
	 * Long enough for 20 simultaneous exports to arrive while the first three run.
	 */
	private static final Duration EXPORT_LATENCY = Duration.ofSeconds(2);

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private static ConfigurableApplicationContext first;

	private static ConfigurableApplicationContext second;

	private final SampleClient client = new SampleClient();

	@BeforeAll
	static void startInstances() {
		first = start();
		second = start();
		warmUp();
	}

	@AfterAll
	static void stopInstances() {
		for (ConfigurableApplicationContext context : new ConfigurableApplicationContext[] { first, second }) {
			if (context != null) {
				context.close();
			}
		}
	}

	@Test
	void bothInstancesKeepLocksAndUsersInRedis() {
		for (ConfigurableApplicationContext context : List.of(first, second)) {
			assertThat(context.getBean(LockStore.class)).isInstanceOf(RedisLockStore.class);
			assertThat(context.getBean(UserRepository.class)).isInstanceOf(RedisUserRepository.class);
		}
	}

	@Test
	void userRegisteredOnOneInstanceIsVisibleOnTheOther() {
		String userName = uniqueName();
		HttpResponse<String> response = this.client.register(SampleClient.base(first), SampleClient.SAFE, userName);
		assertThat(response.statusCode()).isEqualTo(201);
		User user = this.client.user(response);
		assertThat(user.userName()).isEqualTo(userName);
		assertThat(user.points()).isEqualTo(100);
		assertThat(UUID.fromString(user.userId())).isNotNull();
		assertThat(response.headers().firstValue("Location")).hasValue("/api/users/" + user.userId());
		HttpResponse<String> located = this.client
			.get(SampleClient.base(second).resolve(response.headers().firstValue("Location").get()));
		assertThat(located.statusCode()).isEqualTo(200);
		assertThat(this.client.user(located)).isEqualTo(user);
		assertThat(this.client.findByName(SampleClient.base(second), userName)).containsExactly(user);
	}

	@Test
	void registrationWhileTheSameNameIsInFlightOnTheOtherInstanceGetsTheConflictProblem() throws Exception {
		String userName = uniqueName();
		CompletableFuture<HttpResponse<String>> inFlight = this.client.registerAsync(SampleClient.base(first),
				SampleClient.SAFE, userName);
		awaitLock(userName);
		HttpResponse<String> conflict = this.client.register(SampleClient.base(second), SampleClient.SAFE, userName);
		assertThat(conflict.statusCode()).isEqualTo(409);
		assertThat(conflict.headers().firstValue("Content-Type")).hasValue("application/problem+json");
		assertThat(conflict.headers().firstValue("Retry-After"))
			.hasValueSatisfying((retryAfter) -> assertThat(Long.parseLong(retryAfter)).isPositive());
		assertThat(this.client.problem(conflict)).containsEntry("status", 409)
			.containsEntry("type", "urn:lockstarter:problem:lock-conflict");
		assertThat(inFlight.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(201);
		assertThat(this.client.findByName(SampleClient.base(second), userName)).hasSize(1);
	}

	@Test
	void registrationOfANameRegisteredOnTheOtherInstanceIsRejectedWith422() {
		String userName = uniqueName();
		assertThat(this.client.register(SampleClient.base(first), SampleClient.SAFE, userName).statusCode())
			.isEqualTo(201);
		for (String path : List.of(SampleClient.SAFE, SampleClient.UNSAFE)) {
			HttpResponse<String> response = this.client.register(SampleClient.base(second), path, userName);
			assertThat(response.statusCode()).isEqualTo(422);
			assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
			assertThat(this.client.problem(response)).containsEntry("status", 422).containsEntry("userName", userName);
		}
		assertThat(this.client.findByName(SampleClient.base(first), userName)).hasSize(1);
	}

	@Test
	void registrationWithABlankOrMissingUserNameIsRejectedWith400() {
		for (String body : List.of("{\"userName\": \" \"}", "{}")) {
			HttpResponse<String> response = this.client.post(SampleClient.base(second), SampleClient.SAFE, body);
			assertThat(response.statusCode()).as(body).isEqualTo(400);
			assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
			assertThat(this.client.problem(response)).containsEntry("status", 400);
		}
	}

	@Test
	void simultaneousRegistrationsWithoutTheLockStoreDuplicateUsers() {
		String userName = uniqueName();
		List<HttpResponse<String>> responses = registerTogether(SampleClient.UNSAFE, userName);
		Map<Integer, Long> statuses = statusCounts(responses);
		assertThat(statuses.getOrDefault(201, 0L)).as("201 responses in %s", statuses).isGreaterThan(1);
		assertThat(this.client.findByName(SampleClient.base(first), userName)).hasSize(statuses.get(201).intValue());
	}

	@Test
	void simultaneousRegistrationsWithTheLockStoreExactlyOneUserAndRejectTheOthersWithConflicts() {
		String userName = uniqueName();
		List<HttpResponse<String>> responses = registerTogether(SampleClient.SAFE, userName);
		assertThat(statusCounts(responses))
			.containsExactlyInAnyOrderEntriesOf(Map.of(201, 1L, 409, (long) CONCURRENT_REQUESTS - 1));
		assertThat(responses).filteredOn((response) -> response.statusCode() == 409).allSatisfy((response) -> {
			assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
			assertThat(response.headers().firstValue("Retry-After")).isPresent();
		});
		List<User> stored = this.client.findByName(SampleClient.base(second), userName);
		assertThat(stored).hasSize(1);
		assertThat(this.client.findByName(SampleClient.base(first), userName)).isEqualTo(stored);
	}

	@Test
	void simultaneousRegistrationsThroughTheHandMadeRedisLockRegisterExactlyOneUser() {
		String userName = uniqueName();
		List<HttpResponse<String>> responses = registerTogether(SampleClient.RAW, userName);
		assertThat(statusCounts(responses))
			.containsExactlyInAnyOrderEntriesOf(Map.of(201, 1L, 409, (long) CONCURRENT_REQUESTS - 1));
		assertThat(this.client.findByName(SampleClient.base(first), userName)).hasSize(1);
		assertThat(redis.server().command("EXISTS", "raw-lock:raw-user-registration:" + userName))
			.as("hand-made lock released")
			.isEqualTo("0");
	}

	@Test
	void simultaneousLockedIncrementsOverBothInstancesAllCount() {
		String counter = "c-" + UUID.randomUUID();
		List<HttpResponse<String>> responses = incrementTogether("/api/counters/" + counter + "/increment");
		assertThat(responses).allSatisfy((response) -> assertThat(response.statusCode()).isEqualTo(200));
		// Every increment read a different value: no two ran their read-modify-write at
		// once.
		assertThat(responses.stream().map(this.client::counterValue)).containsExactlyInAnyOrderElementsOf(
				java.util.stream.LongStream.rangeClosed(1, CONCURRENT_REQUESTS).boxed().toList());
		assertThat(this.client
			.counterValue(this.client.get(SampleClient.base(second).resolve("/api/counters/" + counter))))
			.isEqualTo(CONCURRENT_REQUESTS);
	}

	@Test
	void simultaneousUnsafeIncrementsLoseUpdates() {
		String counter = "c-" + UUID.randomUUID();
		List<HttpResponse<String>> responses = incrementTogether("/api/unsafe/counters/" + counter + "/increment");
		assertThat(responses).allSatisfy((response) -> assertThat(response.statusCode()).isEqualTo(200));
		assertThat(
				this.client.counterValue(this.client.get(SampleClient.base(first).resolve("/api/counters/" + counter))))
			.isLessThan(CONCURRENT_REQUESTS);
	}

	@Test
	void fiveSimultaneousSumsOverBothInstancesShareOneCallOfTheExpensiveApi() {
		long callsBefore = sumCalls(first);
		List<HttpResponse<String>> responses = this.client.sendTogether(5, (i) -> this.client
			.getRequest(SampleClient.base((i % 2 == 0) ? first : second).resolve("/api/sum?values=1,2")));
		assertThat(responses).allSatisfy((response) -> {
			assertThat(response.statusCode()).isEqualTo(200);
			assertThat(this.client.longField(response, "sum")).isEqualTo(3);
		});
		assertThat(sumCalls(second)).isEqualTo(callsBefore + 1);
		assertThat(sumCalls(first)).isEqualTo(callsBefore + 1);
	}

	@Test
	void twentySimultaneousExportsOverBothInstancesRunThreeAndRejectTheRest() {
		List<HttpResponse<String>> responses = exportTogether("/api/tenants/" + uniqueName() + "/exports");
		assertThat(statusCounts(responses))
			.containsExactlyInAnyOrderEntriesOf(Map.of(201, 3L, 409, (long) CONCURRENT_REQUESTS - 3));
		assertThat(responses).filteredOn((response) -> response.statusCode() == 409)
			.allSatisfy((response) -> assertThat(response.headers().firstValue("Retry-After")).isPresent());
		assertThat(mostAtOnce(exportsIn(responses))).isEqualTo(3);
	}

	@Test
	void twentyExportsThatWaitOverBothInstancesAllRunWithAtMostThreeAtOnce() {
		List<HttpResponse<String>> responses = exportTogether("/api/tenants/" + uniqueName() + "/exports?wait=true");
		assertThat(statusCounts(responses)).containsExactlyInAnyOrderEntriesOf(Map.of(201, (long) CONCURRENT_REQUESTS));
		assertThat(mostAtOnce(exportsIn(responses))).isEqualTo(3);
	}

	@Test
	void theExportCheckerCountsExportsThatOverlap() {
		Instant start = Instant.parse("2026-01-01T00:00:00Z");
		List<Instant[]> four = List.of(new Instant[] { start, start.plusSeconds(4) },
				new Instant[] { start.plusSeconds(1), start.plusSeconds(5) },
				new Instant[] { start.plusSeconds(2), start.plusSeconds(6) },
				new Instant[] { start.plusSeconds(3), start.plusSeconds(7) },
				new Instant[] { start.plusSeconds(7), start.plusSeconds(8) });
		assertThat(mostAtOnce(four)).isEqualTo(4);
	}

	private List<HttpResponse<String>> exportTogether(String path) {
		// Twenty exports that wait run seven rounds of three: longer than the client's
		// usual timeout
		return this.client.sendTogether(CONCURRENT_REQUESTS,
				(i) -> HttpRequest.newBuilder(SampleClient.base((i % 2 == 0) ? first : second).resolve(path))
					.timeout(Duration.ofSeconds(90))
					.POST(HttpRequest.BodyPublishers.noBody())
					.build());
	}

	private List<Instant[]> exportsIn(List<HttpResponse<String>> responses) {
		return responses.stream().filter((response) -> response.statusCode() == 201).map((response) -> {
			JsonNode export = this.client.tree(response);
			return new Instant[] { Instant.parse(export.get("startedAt").asString()),
					Instant.parse(export.get("finishedAt").asString()) };
		}).toList();
	}

	/**
	 * The most exports running at one moment, from when each started and finished (on one
	 * machine, so one clock): an export that finished at the moment another started does
	 * not overlap it.
	 */
	private static int mostAtOnce(List<Instant[]> exports) {
		List<long[]> events = new ArrayList<>();
		for (Instant[] export : exports) {
			events.add(new long[] { toMicros(export[0]), 1 });
			events.add(new long[] { toMicros(export[1]), -1 });
		}
		events.sort(Comparator.<long[]>comparingLong((event) -> event[0]).thenComparingLong((event) -> event[1]));
		int running = 0;
		int most = 0;
		for (long[] event : events) {
			running += (int) event[1];
			most = Math.max(most, running);
		}
		return most;
	}

	private static long toMicros(Instant instant) {
		return instant.getEpochSecond() * 1_000_000 + instant.getNano() / 1_000;
	}

	private long sumCalls(ConfigurableApplicationContext instance) {
		HttpResponse<String> response = this.client.get(SampleClient.base(instance).resolve("/api/sum/calls"));
		assertThat(response.statusCode()).isEqualTo(200);
		return this.client.longField(response, "calls");
	}

	private List<HttpResponse<String>> incrementTogether(String path) {
		return this.client.sendTogether(CONCURRENT_REQUESTS,
				(i) -> this.client.postJson(SampleClient.base((i % 2 == 0) ? first : second), path, "{}"));
	}

	private List<HttpResponse<String>> registerTogether(String path, String userName) {
		List<URI> instances = List.of(SampleClient.base(first), SampleClient.base(second));
		return this.client.sendTogether(CONCURRENT_REQUESTS,
				(i) -> this.client.registration(instances.get(i % 2), path, userName));
	}

	private static Map<Integer, Long> statusCounts(List<HttpResponse<String>> responses) {
		return responses.stream().collect(Collectors.groupingBy(HttpResponse::statusCode, Collectors.counting()));
	}

	private static void awaitLock(String userName) {
		String lockKey = "lock:{user-registration:" + userName + "}";
		await("lock " + lockKey + " taken in time").atMost(Duration.ofSeconds(5))
			.pollInterval(Duration.ofMillis(5))
			.until(() -> "1".equals(redis.server().command("EXISTS", lockKey)));
	}

	private static ConfigurableApplicationContext start() {
		// Command line arguments, as when starting the jar: they override
		// application-redis.yml.
		return new SpringApplicationBuilder(SampleApplication.class).profiles("redis")
			.run("--server.port=0", "--spring.data.redis.host=" + redis.host(),
					"--spring.data.redis.port=" + redis.port(),
					"--sample.points-service.latency=" + POINTS_LATENCY.toMillis() + "ms",
					"--sample.exports.latency=" + EXPORT_LATENCY.toMillis() + "ms");
	}

	/**
	 * Serve one request of each kind on each instance, so that the timed requests of the
	 * tests find initialized servlets and open Redis connections.
	 */
	private static void warmUp() {
		SampleClient client = new SampleClient();
		List<CompletableFuture<HttpResponse<String>>> warmUps = List.of(first, second)
			.stream()
			.flatMap((context) -> List.of(SampleClient.SAFE, SampleClient.UNSAFE)
				.stream()
				.map((path) -> client.registerAsync(SampleClient.base(context), path, uniqueName())))
			.toList();
		warmUps.stream()
			.map(CompletableFuture::join)
			.map(HttpResponse::statusCode)
			.forEach((status) -> assertThat(status).isEqualTo(201));
	}

	private static String uniqueName() {
		return "user-" + UUID.randomUUID().toString().substring(0, 8);
	}

}
