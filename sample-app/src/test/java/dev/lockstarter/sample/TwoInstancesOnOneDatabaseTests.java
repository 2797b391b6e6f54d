package dev.lockstarter.sample;

import java.net.URI;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestInstance.Lifecycle;

import dev.lockstarter.idempotency.IdempotentRequestInterceptor;
import dev.lockstarter.sample.payment.JdbcPaymentRepository;
import dev.lockstarter.sample.payment.Payment;
import dev.lockstarter.sample.payment.PaymentRepository;
import dev.lockstarter.sample.user.JdbcUserRepository;
import dev.lockstarter.sample.user.User;
import dev.lockstarter.sample.user.UserRepository;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.jdbc.JdbcLockStore;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two instances of the sample app with the {@code jdbc} profile, sharing one real
 * database server for their locks, their users and their payments, driven over HTTP. Each
 * database of the profile has a subclass that starts its server.
 */
@TestInstance(Lifecycle.PER_CLASS)
abstract class TwoInstancesOnOneDatabaseTests {

	private static final int CONCURRENT_REQUESTS = 20;

	/**
	 * Long enough for 20 simultaneous requests to overlap, with a margin for a slow
	 * machine.
	 */
	private static final Duration POINTS_LATENCY = Duration.ofMillis(500);

	private ConfigurableApplicationContext first;

	private ConfigurableApplicationContext second;

	private final SampleClient client = new SampleClient();

	@BeforeAll
	void startInstances() {
		this.first = start();
		this.second = start();
		warmUp();
	}

	@AfterAll
	void stopInstances() {
		for (ConfigurableApplicationContext context : new ConfigurableApplicationContext[] { this.first,
				this.second }) {
			if (context != null) {
				context.close();
			}
		}
	}

	@Test
	void bothInstancesKeepLocksUsersAndPaymentsInTheDatabase() {
		for (ConfigurableApplicationContext context : List.of(this.first, this.second)) {
			assertThat(context.getBean(LockStore.class)).isInstanceOf(JdbcLockStore.class);
			assertThat(context.getBean(UserRepository.class)).isInstanceOf(JdbcUserRepository.class);
			assertThat(context.getBean(PaymentRepository.class)).isInstanceOf(JdbcPaymentRepository.class);
			assertThat(context.getBean(IdempotentRequestInterceptor.class).isTransactional()).isTrue();
		}
	}

	@Test
	void paymentTakenOnOneInstanceIsReplayedByTheOtherAndStoredOnce() {
		String key = UUID.randomUUID().toString();
		HttpResponse<String> original = this.client.pay(SampleClient.base(this.first), key, "{\"amount\": 4242}");
		assertThat(original.statusCode()).isEqualTo(201);
		HttpResponse<String> replay = this.client.pay(SampleClient.base(this.second), key, "{\"amount\": 4242}");
		assertThat(replay.statusCode()).isEqualTo(201);
		assertThat(replay.headers().firstValue("Idempotent-Replayed")).hasValue("true");
		assertThat(replay.body()).isEqualTo(original.body());
		Payment payment = this.client.paymentOf(original);
		assertThat(this.client.findPayments(SampleClient.base(this.second))).filteredOn(payment::equals).hasSize(1);
	}

	@Test
	void userRegisteredOnOneInstanceIsVisibleOnTheOther() {
		String userName = uniqueName();
		HttpResponse<String> response = this.client.register(SampleClient.base(this.first), SampleClient.SAFE,
				userName);
		assertThat(response.statusCode()).isEqualTo(201);
		User user = this.client.user(response);
		assertThat(user.userName()).isEqualTo(userName);
		assertThat(user.points()).isEqualTo(100);
		HttpResponse<String> located = this.client
			.get(SampleClient.base(this.second).resolve(response.headers().firstValue("Location").get()));
		assertThat(located.statusCode()).isEqualTo(200);
		assertThat(this.client.user(located)).isEqualTo(user);
		assertThat(this.client.findByName(SampleClient.base(this.second), userName)).containsExactly(user);
		HttpResponse<String> again = this.client.register(SampleClient.base(this.second), SampleClient.SAFE, userName);
		assertThat(again.statusCode()).as("registration of a name registered on the other instance").isEqualTo(422);
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
		List<User> stored = this.client.findByName(SampleClient.base(this.second), userName);
		assertThat(stored).hasSize(1);
		assertThat(this.client.findByName(SampleClient.base(this.first), userName)).isEqualTo(stored);
	}

	@Test
	void simultaneousRegistrationsWithoutTheLockDuplicateUsersInTheDatabase() {
		String userName = uniqueName();
		List<HttpResponse<String>> responses = registerTogether(SampleClient.UNSAFE, userName);
		Map<Integer, Long> statuses = statusCounts(responses);
		assertThat(statuses.getOrDefault(201, 0L)).as("201 responses in %s", statuses).isGreaterThan(1);
		assertThat(this.client.findByName(SampleClient.base(this.first), userName))
			.hasSize(statuses.get(201).intValue());
	}

	private List<HttpResponse<String>> registerTogether(String path, String userName) {
		List<URI> instances = List.of(SampleClient.base(this.first), SampleClient.base(this.second));
		return this.client.sendTogether(CONCURRENT_REQUESTS,
				(i) -> this.client.registration(instances.get(i % 2), path, userName));
	}

	private static Map<Integer, Long> statusCounts(List<HttpResponse<String>> responses) {
		return responses.stream().collect(Collectors.groupingBy(HttpResponse::statusCode, Collectors.counting()));
	}

	/**
	 * Return the {@code spring.datasource.*} arguments that point an instance at the
	 * database server.
	 * @return command line arguments
	 */
	abstract List<String> dataSourceArguments();

	private ConfigurableApplicationContext start() {
		// Command line arguments, as when starting the jar: they override
		// application-jdbc.yml.
		List<String> arguments = new ArrayList<>(dataSourceArguments());
		arguments.add("--server.port=0");
		arguments.add("--sample.points-service.latency=" + POINTS_LATENCY.toMillis() + "ms");
		return new SpringApplicationBuilder(SampleApplication.class).profiles("jdbc")
			.run(arguments.toArray(String[]::new));
	}

	/**
	 * Serve one request of each kind on each instance, so that the timed requests of the
	 * tests find initialized servlets and open connections.
	 */
	private void warmUp() {
		SampleClient client = new SampleClient();
		List<CompletableFuture<HttpResponse<String>>> warmUps = List.of(this.first, this.second)
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
