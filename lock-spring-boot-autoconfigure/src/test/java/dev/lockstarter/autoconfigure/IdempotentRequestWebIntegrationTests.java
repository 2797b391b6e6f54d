package dev.lockstarter.autoconfigure;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.Principal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.idempotency.IdempotentRequest;
import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.memory.InMemoryLockStore;
import dev.lockstarter.test.redis.RedisServerExtension;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.http.CacheControl;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.filter.OncePerRequestFilter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * End-to-end tests of {@link IdempotentRequest} on Spring MVC endpoints, with two
 * application instances that share one real Redis.
 */
class IdempotentRequestWebIntegrationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	static final AtomicInteger charges = new AtomicInteger();

	static final AtomicInteger failures = new AtomicInteger();

	static volatile Duration hold = Duration.ZERO;

	static volatile CountDownLatch entered = new CountDownLatch(1);

	/** The handler returns once this is counted down, after {@link #hold}. */
	static volatile CountDownLatch proceed = new CountDownLatch(0);

	private static final List<ConfigurableApplicationContext> contexts = new ArrayList<>();

	private static int first;

	private static int second;

	private final HttpClient http = HttpClient.newBuilder()
		.version(HttpClient.Version.HTTP_1_1)
		.connectTimeout(Duration.ofSeconds(5))
		.build();

	@BeforeAll
	static void startInstances() {
		first = start(WebApp.class, "lock.idempotency.max-body-size=1KB");
		second = start(WebApp.class, "lock.idempotency.max-body-size=1KB");
	}

	@AfterAll
	static void closeContexts() {
		contexts.forEach(ConfigurableApplicationContext::close);
	}

	@BeforeEach
	void reset() {
		charges.set(0);
		failures.set(0);
		hold = Duration.ZERO;
		entered = new CountDownLatch(1);
		proceed = new CountDownLatch(0);
	}

	@Test
	void retryOnTheOtherInstanceReplaysTheFirstResponseAndTheHandlerRunsOnce() throws Exception {
		String key = newKey();
		HttpResponse<String> original = post(first, "/charges", key, "{\"amount\": 100}");
		HttpResponse<String> replay = post(second, "/charges", key, "{\"amount\": 100}");
		assertThat(charges).hasValue(1);
		assertThat(original.statusCode()).isEqualTo(201);
		assertThat(original.headers().firstValue("Idempotent-Replayed")).isEmpty();
		assertThat(original.headers().firstValue("Set-Cookie")).hasValue("session=1");
		assertThat(original.headers().firstValue("X-Charge")).hasValue("1");
		assertThat(replay.statusCode()).isEqualTo(201);
		assertThat(replay.body()).isEqualTo(original.body()).contains("\"charge\":1,\"request\":{\"amount\": 100}");
		assertThat(replay.headers().firstValue("Idempotent-Replayed")).hasValue("true");
		for (String header : List.of("Content-Type", "Location", "ETag", "Cache-Control")) {
			assertThat(replay.headers().allValues(header)).as(header)
				.isNotEmpty()
				.isEqualTo(original.headers().allValues(header));
		}
		assertThat(replay.headers().allValues("Set-Cookie")).isEmpty();
		assertThat(replay.headers().allValues("X-Charge")).isEmpty();
	}

	@Test
	void quotedAndBareFormsOfAKeyAreOneKey() throws Exception {
		String key = newKey();
		HttpResponse<String> original = post(first, "/charges", "\"" + key + "\"", "{}");
		HttpResponse<String> replay = post(second, "/charges", key, "{}");
		assertThat(charges).hasValue(1);
		assertThat(replay.headers().firstValue("Idempotent-Replayed")).hasValue("true");
		assertThat(replay.body()).isEqualTo(original.body());
	}

	@Test
	void sameKeyWithAnotherPayloadIsRejectedWith422AndTheFirstResponseIsStillReplayed() throws Exception {
		String key = newKey();
		HttpResponse<String> original = post(first, "/charges", key, "{\"amount\": 100}");
		for (HttpResponse<String> reused : List.of(post(second, "/charges", key, "{\"amount\": 101}"),
				post(second, "/charges?currency=eur", key, "{\"amount\": 100}"),
				post(second, "/other-charges", key, "{\"amount\": 100}"))) {
			assertProblem(reused, 422, "urn:lockstarter:problem:idempotency-key-reused");
		}
		HttpResponse<String> replay = post(second, "/charges", key, "{\"amount\": 100}");
		assertThat(replay.headers().firstValue("Idempotent-Replayed")).hasValue("true");
		assertThat(replay.body()).isEqualTo(original.body());
		assertThat(charges).hasValue(1);
	}

	@Test
	void requestWhileTheFirstIsInProgressIsRejectedWith409AndTheRetryAfterItGetsItsResponse() throws Exception {
		String key = newKey();
		hold = Duration.ofMillis(1500);
		CompletableFuture<HttpResponse<String>> inProgress = postAsync(first, "/charges", key, "{}");
		assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
		HttpResponse<String> conflict = post(second, "/charges", key, "{}");
		assertProblem(conflict, 409, "urn:lockstarter:problem:idempotent-request-in-progress");
		assertThat(conflict.headers().firstValue("Retry-After"))
			.hasValueSatisfying((retryAfter) -> assertThat(Long.parseLong(retryAfter)).isBetween(1L, 30L));
		HttpResponse<String> original = inProgress.get(10, TimeUnit.SECONDS);
		assertThat(original.statusCode()).isEqualTo(201);
		HttpResponse<String> retry = post(second, "/charges", key, "{}");
		assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
		assertThat(retry.body()).isEqualTo(original.body());
		assertThat(charges).hasValue(1);
	}

	@Test
	void simultaneousRequestsWithOneKeyAcrossTwoInstancesRunTheHandlerOnce() throws Exception {
		String key = newKey();
		hold = Duration.ofMillis(300);
		List<CompletableFuture<HttpResponse<String>>> futures = new ArrayList<>();
		for (int i = 0; i < 10; i++) {
			futures.add(postAsync((i % 2 == 0) ? first : second, "/charges", key, "{}"));
		}
		List<HttpResponse<String>> responses = futures.stream().map(CompletableFuture::join).toList();
		assertThat(charges).hasValue(1);
		Map<Integer, Long> statuses = responses.stream()
			.collect(Collectors.groupingBy(HttpResponse::statusCode, Collectors.counting()));
		assertThat(statuses.keySet()).containsAnyOf(201).isSubsetOf(201, 409);
		assertThat(responses).filteredOn((response) -> response.statusCode() == 201)
			.extracting(HttpResponse::body)
			.containsOnly(responses.stream().filter((r) -> r.statusCode() == 201).findFirst().get().body());
	}

	@Test
	void requestWithoutAKeyIsRejectedWith400AndTheHandlerDoesNotRun() throws Exception {
		HttpResponse<String> response = post(first, "/charges", null, "{}");
		assertProblem(response, 400, "urn:lockstarter:problem:invalid-idempotency-key");
		assertThat(response.body()).contains("Idempotency-Key");
		assertThat(charges).hasValue(0);
	}

	@Test
	void malformedOrOverLongKeysAreRejectedWith400() throws Exception {
		for (String key : List.of("\"unterminated", "two words", "\"\"", "a,b", "\"bad\\escape\"", "x".repeat(256))) {
			assertProblem(post(first, "/charges", key, "{}"), 400, "urn:lockstarter:problem:invalid-idempotency-key");
		}
		HttpRequest repeated = request(first, "/charges", "one", "{}").header("Idempotency-Key", "two").build();
		assertProblem(this.http.send(repeated, HttpResponse.BodyHandlers.ofString()), 400,
				"urn:lockstarter:problem:invalid-idempotency-key");
		assertThat(post(first, "/charges", "\"" + "x".repeat(255) + "\"", "{}").statusCode()).isEqualTo(201);
		assertThat(charges).hasValue(1);
	}

	@Test
	void bodyOverTheLimitIsRejectedWith413AndTheHandlerDoesNotRun() throws Exception {
		HttpResponse<String> response = post(first, "/charges", newKey(), "{\"note\": \"" + "x".repeat(2048) + "\"}");
		assertProblem(response, 413, "urn:lockstarter:problem:idempotent-request-too-large");
		assertThat(charges).hasValue(0);
	}

	@Test
	void optionalKeyLetsARequestWithoutOneRunEveryTime() throws Exception {
		assertThat(post(first, "/optional-charges", null, "{}").statusCode()).isEqualTo(201);
		assertThat(post(second, "/optional-charges", null, "{}").statusCode()).isEqualTo(201);
		assertThat(charges).hasValue(2);
	}

	@Test
	void keptResponseIsForgottenAfterItsRetention() throws Exception {
		String key = newKey();
		HttpResponse<String> original = post(first, "/short-lived-charges", key, "{}");
		HttpResponse<String> replay = post(second, "/short-lived-charges", key, "{}");
		assertThat(replay.headers().firstValue("Idempotent-Replayed")).hasValue("true");
		assertThat(charges).hasValue(1);
		Thread.sleep(1200);
		HttpResponse<String> afterRetention = post(second, "/short-lived-charges", key, "{}");
		assertThat(afterRetention.statusCode()).isEqualTo(201);
		assertThat(afterRetention.headers().firstValue("Idempotent-Replayed")).isEmpty();
		assertThat(afterRetention.body()).isNotEqualTo(original.body());
		assertThat(charges).hasValue(2);
	}

	@Test
	void serverErrorsAndRetryableStatusesAreNotKeptSoARetryRunsAgain() throws Exception {
		String key = newKey();
		for (String path : List.of("/failing-charges", "/conflicting-charges")) {
			failures.set(0);
			HttpResponse<String> firstTry = post(first, path, key, "{}");
			HttpResponse<String> retry = post(second, path, key, "{}");
			assertThat(retry.statusCode()).isEqualTo(firstTry.statusCode());
			assertThat(retry.headers().firstValue("Idempotent-Replayed")).isEmpty();
			assertThat(failures).as(path).hasValue(2);
			key = newKey();
		}
	}

	@Test
	void serverErrorsAreKeptWhenConfigured() throws Exception {
		int port = start(WebApp.class, "lock.idempotency.store-server-errors=true");
		String key = newKey();
		HttpResponse<String> firstTry = post(port, "/failing-charges", key, "{}");
		HttpResponse<String> retry = post(port, "/failing-charges", key, "{}");
		assertThat(firstTry.statusCode()).isEqualTo(503);
		assertThat(retry.statusCode()).isEqualTo(503);
		assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
		assertThat(retry.body()).isEqualTo(firstTry.body());
		assertThat(failures).hasValue(1);
	}

	@Test
	void inProgressLockIsRenewedPastItsTtlAndTheResponseIsStillKept() throws Exception {
		// 1.5 s: a renewal, sent every third of the time-to-live, has a second to land on
		// a busy machine before the lock is lost (300 ms left it 200 ms)
		int shortTtl = start(WebApp.class, "lock.ttl=1500ms");
		MeterRegistry meters = contexts.get(contexts.size() - 1).getBean(MeterRegistry.class);
		String key = newKey();
		proceed = new CountDownLatch(1);
		CompletableFuture<HttpResponse<String>> inProgress = postAsync(shortTtl, "/charges", key, "{}");
		assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
		// Held past the time-to-live on purpose: four renewals, each a third of the TTL
		// after the one before, take longer than the TTL, and only renewals keep the lock
		await("four renewals of the in-progress lock").atMost(Duration.ofSeconds(20))
			.pollInterval(Duration.ofMillis(50))
			.until(() -> renewals(meters) >= 4);
		assertProblem(post(shortTtl, "/charges", key, "{}"), 409,
				"urn:lockstarter:problem:idempotent-request-in-progress");
		proceed.countDown();
		HttpResponse<String> original = inProgress.get(10, TimeUnit.SECONDS);
		assertThat(original.statusCode()).isEqualTo(201);
		HttpResponse<String> retry = post(shortTtl, "/charges", key, "{}");
		assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
		assertThat(retry.body()).isEqualTo(original.body());
		assertThat(charges).hasValue(1);
	}

	@Test
	void unhandledExceptionIsNotKeptSoARetryRunsAgain() throws Exception {
		String key = newKey();
		assertThat(post(first, "/throwing-charges", key, "{}").statusCode()).isEqualTo(500);
		HttpResponse<String> retry = post(second, "/throwing-charges", key, "{}");
		assertThat(retry.statusCode()).isEqualTo(500);
		assertThat(retry.headers().firstValue("Idempotent-Replayed")).isEmpty();
		assertThat(failures).hasValue(2);
	}

	@Test
	void principalsHaveIndependentKeys() throws Exception {
		String key = newKey();
		HttpResponse<String> alice = send(request(first, "/charges", key, "{}").header("X-User", "alice").build());
		HttpResponse<String> bob = send(request(second, "/charges", key, "{}").header("X-User", "bob").build());
		HttpResponse<String> anonymous = post(first, "/charges", key, "{}");
		// Two (principal, key) pairs that would make one lock key if the principal were
		// not encoded.
		HttpResponse<String> colonInKey = send(
				request(second, "/charges", "bob:" + key, "{}").header("X-User", "alice").build());
		HttpResponse<String> colonInName = send(
				request(first, "/charges", key, "{}").header("X-User", "alice:bob").build());
		assertThat(List.of(alice, bob, anonymous, colonInKey, colonInName)).allSatisfy((response) -> {
			assertThat(response.statusCode()).isEqualTo(201);
			assertThat(response.headers().firstValue("Idempotent-Replayed")).isEmpty();
		});
		assertThat(charges).hasValue(5);
		HttpResponse<String> aliceAgain = send(
				request(second, "/charges", key, "{}").header("X-User", "alice").build());
		assertThat(aliceAgain.headers().firstValue("Idempotent-Replayed")).hasValue("true");
		assertThat(aliceAgain.body()).isEqualTo(alice.body());
		assertThat(charges).hasValue(5);
	}

	@Test
	void storeThatKeepsNoResultsFailsStartupNamingTheStoreProperty() {
		assertThatExceptionOfType(Exception.class).isThrownBy(() -> start(WebAppWithStoreWithoutResults.class))
			.satisfies((ex) -> {
				Throwable cause = ex;
				while (!(cause instanceof InvalidConfigurationPropertyValueException) && cause.getCause() != null) {
					cause = cause.getCause();
				}
				assertThat(cause).isInstanceOf(InvalidConfigurationPropertyValueException.class);
				assertThat(((InvalidConfigurationPropertyValueException) cause).getName()).isEqualTo("lock.store");
				assertThat(cause.getMessage()).contains("@IdempotentRequest")
					.contains("IdempotentRequestWebIntegrationTests$ChargeController#charge[1 args] and 6 more");
			});
	}

	@Test
	void setCookieAmongTheReplayedHeadersFailsStartupNamingTheProperty() {
		assertThatExceptionOfType(Exception.class)
			.isThrownBy(() -> start(WebApp.class, "lock.idempotency.replayed-headers=Location,Set-Cookie"))
			.satisfies((ex) -> {
				Throwable cause = ex;
				while (!(cause instanceof InvalidConfigurationPropertyValueException) && cause.getCause() != null) {
					cause = cause.getCause();
				}
				assertThat(cause).isInstanceOf(InvalidConfigurationPropertyValueException.class);
				assertThat(((InvalidConfigurationPropertyValueException) cause).getName())
					.isEqualTo("lock.idempotency.replayed-headers");
			});
	}

	@Test
	void outcomesAreCountedByHandlerWithoutTheKey() throws Exception {
		MeterRegistry meters = contexts.get(0).getBean(MeterRegistry.class);
		List<String> outcomes = List.of("executed", "replayed", "key-reused", "invalid");
		Map<String, Double> before = outcomes.stream()
			.collect(Collectors.toMap((outcome) -> outcome, (outcome) -> idempotentRequests(meters, outcome)));
		String key = newKey();
		post(first, "/other-charges", key, "{\"amount\": 1}");
		post(first, "/other-charges", key, "{\"amount\": 1}");
		post(first, "/other-charges", key, "{\"amount\": 2}");
		post(first, "/other-charges", null, "{\"amount\": 1}");
		post(first, "/other-charges", "k".repeat(300), "{\"amount\": 1}");
		for (String outcome : outcomes) {
			assertThat(idempotentRequests(meters, outcome) - before.get(outcome)).as(outcome)
				.isEqualTo(outcome.equals("invalid") ? 2 : 1);
		}
		assertThat(meters.find("lock.idempotent.requests").meters()).allSatisfy((meter) -> assertThat(
				meter.getId().getTags().stream().map(Tag::getValue).noneMatch((value) -> value.contains(key)))
			.isTrue());
	}

	private static double renewals(MeterRegistry meters) {
		return meters.find("lock.renewals")
			.tag("outcome", "renewed")
			.counters()
			.stream()
			.mapToDouble(Counter::count)
			.sum();
	}

	private static double idempotentRequests(MeterRegistry meters, String outcome) {
		Counter counter = meters.find("lock.idempotent.requests")
			.tags("handler", "ChargeController.otherCharge", "store", "redis", "outcome", outcome)
			.counter();
		return (counter != null) ? counter.count() : 0;
	}

	private static void assertProblem(HttpResponse<String> response, int status, String type) {
		assertThat(response.statusCode()).isEqualTo(status);
		assertThat(response.headers().firstValue("Content-Type"))
			.hasValueSatisfying((contentType) -> assertThat(contentType).startsWith("application/problem+json"));
		assertThat(response.body()).contains("\"type\":\"" + type + "\"")
			.contains("\"status\":" + status)
			.doesNotContain("idempotency:")
			.doesNotContain("Exception");
	}

	private static int start(Class<?> application, String... properties) {
		ConfigurableApplicationContext context = new SpringApplicationBuilder(application)
			.properties("server.port=0", "spring.main.banner-mode=off", "lock.store=redis",
					"spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.port(),
					"spring.data.redis.timeout=1s")
			.properties(properties)
			.run();
		contexts.add(context);
		return context.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
	}

	private static String newKey() {
		return UUID.randomUUID().toString();
	}

	private HttpRequest.Builder request(int port, String path, String key, String body) {
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
			.timeout(Duration.ofSeconds(20))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString(body));
		if (key != null) {
			request.header("Idempotency-Key", key);
		}
		return request;
	}

	private HttpResponse<String> post(int port, String path, String key, String body)
			throws IOException, InterruptedException {
		return send(request(port, path, key, body).build());
	}

	private HttpResponse<String> send(HttpRequest request) throws IOException, InterruptedException {
		return this.http.send(request, HttpResponse.BodyHandlers.ofString());
	}

	private CompletableFuture<HttpResponse<String>> postAsync(int port, String path, String key, String body) {
		return this.http.sendAsync(request(port, path, key, body).build(), HttpResponse.BodyHandlers.ofString());
	}

	static ResponseEntity<String> charge(String body) {
		int charge = charges.incrementAndGet();
		entered.countDown();
		try {
			Thread.sleep(hold.toMillis());
			proceed.await(30, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		return ResponseEntity.created(URI.create("/charges/" + charge))
			.eTag("\"v" + charge + "\"")
			.cacheControl(CacheControl.noStore())
			.header("Set-Cookie", "session=" + charge)
			.header("X-Charge", Integer.toString(charge))
			.contentType(MediaType.APPLICATION_JSON)
			.body("{\"charge\":" + charge + ",\"request\":" + body + "}");
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import({ ChargeController.class, PrincipalFilter.class })
	static class WebApp {

	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import(ChargeController.class)
	static class WebAppWithStoreWithoutResults {

		@Bean
		LockStore lockStore() {
			return new LockStoreWithoutResults(new InMemoryLockStore());
		}

	}

	@RestController
	static class ChargeController {

		@PostMapping("/charges")
		@IdempotentRequest
		ResponseEntity<String> charge(@RequestBody String body) {
			return IdempotentRequestWebIntegrationTests.charge(body);
		}

		@PostMapping("/other-charges")
		@IdempotentRequest
		ResponseEntity<String> otherCharge(@RequestBody String body) {
			return IdempotentRequestWebIntegrationTests.charge(body);
		}

		@PostMapping("/optional-charges")
		@IdempotentRequest(required = false)
		ResponseEntity<String> optionalCharge(@RequestBody String body) {
			return IdempotentRequestWebIntegrationTests.charge(body);
		}

		@PostMapping("/short-lived-charges")
		@IdempotentRequest(retention = "1s")
		ResponseEntity<String> shortLivedCharge(@RequestBody String body) {
			return IdempotentRequestWebIntegrationTests.charge(body);
		}

		@PostMapping("/failing-charges")
		@IdempotentRequest
		ResponseEntity<String> failingCharge(@RequestBody String body) {
			return ResponseEntity.status(503).body("failure " + failures.incrementAndGet());
		}

		@PostMapping("/throwing-charges")
		@IdempotentRequest
		ResponseEntity<String> throwingCharge(@RequestBody String body) {
			throw new IllegalStateException("failure " + failures.incrementAndGet());
		}

		@PostMapping("/conflicting-charges")
		@IdempotentRequest
		ResponseEntity<String> conflictingCharge(@RequestBody String body) {
			return ResponseEntity.status(409).body("conflict " + failures.incrementAndGet());
		}

	}

	/**
	 * Stands for an authentication filter: the {@code X-User} header names the principal.
	 */
	static class PrincipalFilter extends OncePerRequestFilter {

		@Override
		protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
				throws ServletException, IOException {
			String user = request.getHeader("X-User");
			if (user == null) {
				chain.doFilter(request, response);
				return;
			}
			Principal principal = () -> user;
			chain.doFilter(new HttpServletRequestWrapper(request) {

				@Override
				public Principal getUserPrincipal() {
					return principal;
				}

			}, response);
		}

	}

	/**
	 * A real in-memory store behind the plain {@link LockStore} interface only.
	 */
	record LockStoreWithoutResults(LockStore delegate) implements LockStore {

		@Override
		public AcquireReply tryAcquire(String key, String token, Duration ttl) {
			return this.delegate.tryAcquire(key, token, ttl);
		}

		@Override
		public boolean release(String key, String token) {
			return this.delegate.release(key, token);
		}

		@Override
		public boolean extend(String key, String token, Duration ttl) {
			return this.delegate.extend(key, token, ttl);
		}

		@Override
		public Duration timeToExpiry(String key) {
			return this.delegate.timeToExpiry(key);
		}

	}

}
