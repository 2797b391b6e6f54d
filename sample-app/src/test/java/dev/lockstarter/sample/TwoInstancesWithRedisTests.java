package dev.lockstarter.sample;

import java.net.URI;
import java.net.http.HttpResponse;
import java.time.Duration;
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

import dev.lockstarter.sample.user.RedisUserRepository;
import dev.lockstarter.sample.user.User;
import dev.lockstarter.sample.user.UserRepository;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.redis.RedisLockStore;
import dev.lockstarter.test.redis.RedisServerExtension;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two instances of the sample app with the {@code redis} profile, sharing one real Redis
 * server for their locks and their users, driven over HTTP.
 */
class TwoInstancesWithRedisTests {

	private static final int CONCURRENT_REQUESTS = 20;

	/**
	 * Long enough for 20 simultaneous requests to overlap, with a margin for a slow
	 * machine.
	 */
	private static final Duration POINTS_LATENCY = Duration.ofMillis(500);

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

	private static void awaitLock(String userName) throws InterruptedException {
		String lockKey = "lock:{user-registration:" + userName + "}";
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
		while (!"1".equals(redis.server().command("EXISTS", lockKey))) {
			assertThat(System.nanoTime()).as("lock %s taken in time", lockKey).isLessThan(deadline);
			Thread.sleep(5);
		}
	}

	private static ConfigurableApplicationContext start() {
		// Command line arguments, as when starting the jar: they override
		// application-redis.yml.
		return new SpringApplicationBuilder(SampleApplication.class).profiles("redis")
			.run("--server.port=0", "--spring.data.redis.host=" + redis.host(),
					"--spring.data.redis.port=" + redis.port(),
					"--sample.points-service.latency=" + POINTS_LATENCY.toMillis() + "ms");
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
