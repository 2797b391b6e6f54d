package dev.lockstarter.autoconfigure.reactive;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import dev.lockstarter.idempotency.IdempotentRequest;
import dev.lockstarter.idempotency.IdempotentRequestWebFilter;
import dev.lockstarter.test.redis.RedisServerExtension;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.util.MultiValueMap;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ServerWebExchange;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * End-to-end tests of {@code @IdempotentRequest} on WebFlux: two application instances on
 * Reactor Netty (and, for one test, a Spring MVC instance on Tomcat) share one real
 * Redis; handler runs are counted in one place for every instance of the JVM, and
 * BlockHound records any blocking call on an event-loop thread.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class WebFluxIdempotentRequestIntegrationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private static final List<ConfigurableApplicationContext> contexts = new ArrayList<>();

	private static int first;

	private static int second;

	private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

	@BeforeAll
	static void startInstances() {
		BlockingCalls.install();
		first = start(PaymentsApp.class, WebApplicationType.REACTIVE);
		second = start(PaymentsApp.class, WebApplicationType.REACTIVE);
	}

	@AfterAll
	static void closeContexts() {
		contexts.forEach(ConfigurableApplicationContext::close);
		contexts.clear();
	}

	@BeforeEach
	void reset() {
		redis.server().command("FLUSHALL");
		Runs.clear();
		BlockingCalls.clear();
	}

	@AfterEach
	void checkForBlockingCalls() {
		assertThat(BlockingCalls.detected()).as("blocking calls on non-blocking threads").isEmpty();
	}

	@Test
	void filterFindsTheAnnotatedHandlersAtStartup() {
		assertThat(contexts.get(0)).isInstanceOfSatisfying(WebServerApplicationContext.class,
				(context) -> assertThat(context.getWebServer().getClass().getSimpleName()).contains("Netty"));
		assertThat(contexts.get(0).getBean(IdempotentRequestWebFilter.class).getIdempotentHandlerMethods()).hasSize(4);
	}

	@Test
	void retryOnTheOtherInstanceReplaysTheResponseAndTheHandlerRunsOnce() throws Exception {
		HttpResponse<String> created = send(payment(first, "k-replay", "{\"amount\":10}", 0));
		assertThat(created.statusCode()).isEqualTo(201);
		assertThat(created.headers().firstValue("Idempotent-Replayed")).isEmpty();
		assertThat(created.headers().firstValue("Set-Cookie")).isPresent();
		HttpResponse<String> replayed = send(payment(second, "k-replay", "{\"amount\":10}", 0));
		assertThat(replayed.statusCode()).isEqualTo(201);
		assertThat(replayed.body()).isEqualTo(created.body()).contains("\"amount\":10");
		assertThat(replayed.headers().firstValue("Location")).isEqualTo(created.headers().firstValue("Location"))
			.isPresent();
		assertThat(replayed.headers().firstValue("Content-Type")).hasValue("application/json");
		assertThat(replayed.headers().firstValue("Idempotent-Replayed")).hasValue("true");
		assertThat(replayed.headers().firstValue("Set-Cookie")).isEmpty();
		assertThat(Runs.of("payments")).isEqualTo(1);
		assertThat(redis.server().command("EXISTS", lockKey("k-replay"))).as("lock released").isEqualTo("0");
	}

	@Test
	void simultaneousRequestsWithOneKeyRunTheHandlerOnceAndTheOthersAreInProgress() throws Exception {
		List<CompletableFuture<HttpResponse<String>>> futures = new ArrayList<>();
		for (int i = 0; i < 10; i++) {
			futures.add(this.http.sendAsync(payment((i % 2 == 0) ? first : second, "k-race", "{\"amount\":5}", 800),
					HttpResponse.BodyHandlers.ofString()));
		}
		List<HttpResponse<String>> responses = new ArrayList<>();
		for (CompletableFuture<HttpResponse<String>> future : futures) {
			responses.add(future.get());
		}
		Map<Integer, Long> statuses = responses.stream()
			.collect(Collectors.groupingBy(HttpResponse::statusCode, Collectors.counting()));
		assertThat(statuses).containsOnly(Map.entry(201, 1L), Map.entry(409, 9L));
		responses.stream().filter((response) -> response.statusCode() == 409).forEach((response) -> {
			assertThat(response.headers().firstValue("Content-Type"))
				.hasValueSatisfying((type) -> assertThat(type).startsWith("application/problem+json"));
			assertThat(response.headers().firstValue("Retry-After"))
				.hasValueSatisfying((retryAfter) -> assertThat(Integer.parseInt(retryAfter)).isBetween(1, 30));
			assertThat(response.body()).contains("urn:lockstarter:problem:idempotent-request-in-progress");
		});
		assertThat(Runs.of("payments")).isEqualTo(1);
		assertThat(Runs.maxConcurrent("payments")).as("handlers running at once").isEqualTo(1);
		HttpResponse<String> retry = send(payment(second, "k-race", "{\"amount\":5}", 800));
		assertThat(retry.statusCode()).isEqualTo(201);
		assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
		assertThat(Runs.of("payments")).isEqualTo(1);
	}

	@Test
	void keyReusedWithAnotherBodyIs422() throws Exception {
		assertThat(send(payment(first, "k-reuse", "{\"amount\":10}", 0)).statusCode()).isEqualTo(201);
		HttpResponse<String> reused = send(payment(second, "k-reuse", "{\"amount\":11}", 0));
		assertThat(reused.statusCode()).isEqualTo(422);
		assertThat(reused.body()).contains("urn:lockstarter:problem:idempotency-key-reused");
		assertThat(Runs.of("payments")).isEqualTo(1);
	}

	@Test
	void missingOrMalformedKeyIs400AndTheHandlerDoesNotRun() throws Exception {
		HttpResponse<String> missing = send(payment(first, null, "{\"amount\":10}", 0));
		assertThat(missing.statusCode()).isEqualTo(400);
		assertThat(missing.headers().firstValue("Content-Type"))
			.hasValueSatisfying((type) -> assertThat(type).startsWith("application/problem+json"));
		assertThat(missing.body()).contains("urn:lockstarter:problem:invalid-idempotency-key")
			.contains("Idempotency key missing");
		HttpResponse<String> malformed = send(payment(first, "\"unterminated", "{\"amount\":10}", 0));
		assertThat(malformed.statusCode()).isEqualTo(400);
		assertThat(malformed.body()).contains("Invalid idempotency key");
		assertThat(Runs.of("payments")).isZero();
		assertThat(redis.server().command("DBSIZE")).isEqualTo("0");
	}

	@Test
	void bodyOverTheLimitIs413WithOrWithoutContentLength() throws Exception {
		String large = "{\"note\":\"" + "x".repeat(2048) + "\"}";
		HttpResponse<String> declared = send(payment(first, "k-large", large, 0));
		assertThat(declared.statusCode()).isEqualTo(413);
		assertThat(declared.body()).contains("urn:lockstarter:problem:idempotent-request-too-large");
		HttpRequest chunked = HttpRequest
			.newBuilder(URI.create("http://127.0.0.1:" + second + "/api/payments?delayMillis=0"))
			.timeout(Duration.ofSeconds(20))
			.header("Content-Type", "application/json")
			.header("Idempotency-Key", "k-large-chunked")
			.POST(HttpRequest.BodyPublishers.fromPublisher(HttpRequest.BodyPublishers.ofString(large)))
			.build();
		HttpResponse<String> streamed = send(chunked);
		assertThat(streamed.statusCode()).isEqualTo(413);
		assertThat(Runs.of("payments")).isZero();
	}

	@Test
	void serverErrorIsNotKeptSoARetryRunsTheHandlerAgain() throws Exception {
		HttpResponse<String> failed = send(post(first, "/api/unavailable", "k-503"));
		assertThat(failed.statusCode()).isEqualTo(503);
		HttpResponse<String> retry = send(post(second, "/api/unavailable", "k-503"));
		assertThat(retry.statusCode()).isEqualTo(503);
		assertThat(retry.headers().firstValue("Idempotent-Replayed")).isEmpty();
		assertThat(Runs.of("unavailable")).isEqualTo(2);
	}

	@Test
	void handlerThatFailsReleasesTheLockAndKeepsNothing() throws Exception {
		HttpResponse<String> failed = send(post(first, "/api/failing", "k-fail"));
		assertThat(failed.statusCode()).isEqualTo(500);
		assertThat(redis.server().command("EXISTS", lockKey("k-fail"))).as("lock released").isEqualTo("0");
		HttpResponse<String> retry = send(post(second, "/api/failing", "k-fail"));
		assertThat(retry.statusCode()).isEqualTo(500);
		assertThat(retry.headers().firstValue("Idempotent-Replayed")).isEmpty();
		assertThat(Runs.of("failing")).isEqualTo(2);
	}

	@Test
	void cancelledRequestReleasesTheLockLongBeforeItsTtlAndKeepsNothing() throws Exception {
		HttpRequest slow = HttpRequest.newBuilder(payment(first, "k-cancel", "{\"amount\":1}", 20_000).uri())
			.timeout(Duration.ofMillis(500))
			.header("Content-Type", "application/json")
			.header("Idempotency-Key", "k-cancel")
			.POST(HttpRequest.BodyPublishers.ofString("{\"amount\":1}"))
			.build();
		assertThatExceptionOfType(HttpTimeoutException.class)
			.isThrownBy(() -> this.http.send(slow, HttpResponse.BodyHandlers.ofString()));
		await("lock released in time").atMost(Duration.ofSeconds(5))
			.pollInterval(Duration.ofMillis(10))
			.until(() -> "0".equals(redis.server().command("EXISTS", lockKey("k-cancel"))));
		assertThat(Runs.of("payments")).isEqualTo(1);
		HttpResponse<String> retry = send(payment(second, "k-cancel", "{\"amount\":1}", 0));
		assertThat(retry.statusCode()).isEqualTo(201);
		assertThat(retry.headers().firstValue("Idempotent-Replayed")).isEmpty();
		assertThat(Runs.of("payments")).isEqualTo(2);
	}

	@Test
	void formIsReadableByTheHandlerAndReplayed() throws Exception {
		HttpResponse<String> created = send(form(first, "k-form", "amount=12&note=caf%C3%A9+au+lait"));
		assertThat(created.statusCode()).isEqualTo(200);
		assertThat(created.body()).isEqualTo("paid 12 for café au lait via web");
		HttpResponse<String> replayed = send(form(second, "k-form", "amount=12&note=caf%C3%A9+au+lait"));
		assertThat(replayed.body()).isEqualTo(created.body());
		assertThat(replayed.headers().firstValue("Idempotent-Replayed")).hasValue("true");
		HttpResponse<String> reused = send(form(second, "k-form", "amount=13&note=caf%C3%A9+au+lait"));
		assertThat(reused.statusCode()).isEqualTo(422);
		assertThat(Runs.of("forms")).isEqualTo(1);
	}

	@Test
	void responseKeptByASpringMvcInstanceIsReplayedByAWebFluxInstance() throws Exception {
		int mvc = start(MvcPaymentsApp.class, WebApplicationType.SERVLET);
		try {
			assertThat(((WebServerApplicationContext) contexts.get(contexts.size() - 1)).getWebServer()
				.getClass()
				.getSimpleName()).contains("Tomcat");
			HttpResponse<String> created = send(payment(mvc, "k-mixed", "{\"amount\":7}", 0));
			assertThat(created.statusCode()).isEqualTo(201);
			assertThat(created.headers().firstValue("Idempotent-Replayed")).isEmpty();
			HttpResponse<String> replayed = send(payment(first, "k-mixed", "{\"amount\":7}", 0));
			assertThat(replayed.statusCode()).isEqualTo(201);
			assertThat(replayed.body()).isEqualTo(created.body()).contains("\"stack\":\"mvc\"");
			assertThat(replayed.headers().firstValue("Location")).isEqualTo(created.headers().firstValue("Location"));
			assertThat(replayed.headers().firstValue("Idempotent-Replayed")).hasValue("true");
			HttpResponse<String> form = send(form(mvc, "k-mixed-form", "amount=3&note=th%C3%A9"));
			assertThat(form.body()).isEqualTo("paid 3 for thé via web on mvc");
			HttpResponse<String> formReplayed = send(form(second, "k-mixed-form", "amount=3&note=th%C3%A9"));
			assertThat(formReplayed.body()).isEqualTo(form.body());
			assertThat(formReplayed.headers().firstValue("Idempotent-Replayed")).hasValue("true");
			// And the other way around: kept by WebFlux, replayed by MVC
			HttpResponse<String> reactive = send(payment(second, "k-mixed-back", "{\"amount\":8}", 0));
			HttpResponse<String> back = send(payment(mvc, "k-mixed-back", "{\"amount\":8}", 0));
			assertThat(back.body()).isEqualTo(reactive.body()).contains("\"stack\":\"webflux\"");
			assertThat(back.headers().firstValue("Idempotent-Replayed")).hasValue("true");
			assertThat(Runs.of("payments")).isEqualTo(2);
			assertThat(Runs.of("forms")).isEqualTo(1);
		}
		finally {
			contexts.remove(contexts.size() - 1).close();
		}
	}

	@Test
	@Order(Integer.MAX_VALUE)
	void storeDownIs503WithinTheStoreTimeoutAndTheHandlerDoesNotRun() throws Exception {
		redis.server().stop();
		try {
			long started = System.nanoTime();
			HttpResponse<String> response = send(payment(first, "k-down", "{\"amount\":10}", 0));
			assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(5));
			assertThat(response.statusCode()).isEqualTo(503);
			assertThat(response.headers().firstValue("Retry-After")).hasValue("1");
			assertThat(response.body()).contains("urn:lockstarter:problem:lock-store-unavailable");
		}
		finally {
			redis.server().restart();
		}
		assertThat(Runs.of("payments")).isZero();
	}

	private static String lockKey(String idempotencyKey) {
		return "lock:{idempotency:anonymous:" + idempotencyKey + "}";
	}

	private static int start(Class<?> application, WebApplicationType type) {
		ConfigurableApplicationContext context = new SpringApplicationBuilder(application).web(type)
			.properties("server.port=0", "spring.main.banner-mode=off", "lock.store=redis",
					"spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.port(),
					"spring.data.redis.timeout=1s", "spring.data.redis.connect-timeout=1s", "lock.ttl=30s",
					"lock.redis.timeout=500ms", "lock.idempotency.max-body-size=1KB")
			.run();
		contexts.add(context);
		return context.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
	}

	private static HttpRequest payment(int port, String key, String json, long delayMillis) {
		HttpRequest.Builder request = HttpRequest
			.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/payments?delayMillis=" + delayMillis))
			.timeout(Duration.ofSeconds(20))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString(json));
		if (key != null) {
			request.header("Idempotency-Key", key);
		}
		return request.build();
	}

	private static HttpRequest form(int port, String key, String form) {
		return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/forms?channel=web"))
			.timeout(Duration.ofSeconds(20))
			.header("Content-Type", "application/x-www-form-urlencoded")
			.header("Idempotency-Key", key)
			.POST(HttpRequest.BodyPublishers.ofString(form))
			.build();
	}

	private static HttpRequest post(int port, String path, String key) {
		return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
			.timeout(Duration.ofSeconds(20))
			.header("Idempotency-Key", key)
			.POST(HttpRequest.BodyPublishers.noBody())
			.build();
	}

	private HttpResponse<String> send(HttpRequest request) throws IOException, InterruptedException {
		return this.http.send(request, HttpResponse.BodyHandlers.ofString());
	}

	/**
	 * Handler runs, counted for every instance in the JVM, with the most runs of one
	 * handler seen at once.
	 */
	static final class Runs {

		private static final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();

		private static final Map<String, AtomicInteger> running = new ConcurrentHashMap<>();

		private static final Map<String, AtomicInteger> maxConcurrent = new ConcurrentHashMap<>();

		private Runs() {
		}

		static void start(String handler) {
			runs.computeIfAbsent(handler, (h) -> new AtomicInteger()).incrementAndGet();
			int now = running.computeIfAbsent(handler, (h) -> new AtomicInteger()).incrementAndGet();
			maxConcurrent.computeIfAbsent(handler, (h) -> new AtomicInteger()).accumulateAndGet(now, Math::max);
		}

		static void end(String handler) {
			running.get(handler).decrementAndGet();
		}

		static int of(String handler) {
			AtomicInteger count = runs.get(handler);
			return (count != null) ? count.get() : 0;
		}

		static int maxConcurrent(String handler) {
			AtomicInteger count = maxConcurrent.get(handler);
			return (count != null) ? count.get() : 0;
		}

		static void clear() {
			runs.clear();
			running.clear();
			maxConcurrent.clear();
		}

	}

	record Payment(int amount, String note) {
	}

	/**
	 * A WebFlux application whose idempotent handlers return {@code Mono}s.
	 */
	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import(PaymentsApp.PaymentsController.class)
	static class PaymentsApp {

		@RestController
		static class PaymentsController {

			@PostMapping("/api/payments")
			@IdempotentRequest
			Mono<ResponseEntity<Map<String, Object>>> pay(@RequestBody Payment payment,
					@RequestParam long delayMillis) {
				return Mono.defer(() -> {
					Runs.start("payments");
					String id = UUID.randomUUID().toString();
					return Mono.delay(Duration.ofMillis(delayMillis))
						.thenReturn(ResponseEntity.created(URI.create("/api/payments/" + id))
							.header(HttpHeaders.SET_COOKIE, "session=" + id)
							.<Map<String, Object>>body(
									Map.of("id", id, "amount", payment.amount(), "stack", "webflux")))
						.doFinally((signal) -> Runs.end("payments"));
				});
			}

			@PostMapping("/api/forms")
			@IdempotentRequest
			Mono<String> payByForm(ServerWebExchange exchange, @RequestParam String channel) {
				return exchange.getFormData().map((MultiValueMap<String, String> form) -> {
					Runs.start("forms");
					Runs.end("forms");
					return "paid " + form.getFirst("amount") + " for " + form.getFirst("note") + " via " + channel;
				});
			}

			@PostMapping("/api/unavailable")
			@IdempotentRequest
			Mono<ResponseEntity<String>> unavailable() {
				return Mono.fromSupplier(() -> {
					Runs.start("unavailable");
					Runs.end("unavailable");
					return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE).body("try later");
				});
			}

			@PostMapping("/api/failing")
			@IdempotentRequest
			Flux<String> failing() {
				return Flux.defer(() -> {
					Runs.start("failing");
					Runs.end("failing");
					return Flux.error(new IllegalStateException("payment provider down"));
				});
			}

		}

	}

	/**
	 * The same payments on Spring MVC, with blocking handlers.
	 */
	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import(MvcPaymentsApp.MvcPaymentsController.class)
	static class MvcPaymentsApp {

		@RestController
		static class MvcPaymentsController {

			@PostMapping("/api/payments")
			@IdempotentRequest
			ResponseEntity<Map<String, Object>> pay(@RequestBody Payment payment, @RequestParam long delayMillis) {
				Runs.start("payments");
				try {
					String id = UUID.randomUUID().toString();
					return ResponseEntity.created(URI.create("/api/payments/" + id))
						.body(Map.of("id", id, "amount", payment.amount(), "stack", "mvc"));
				}
				finally {
					Runs.end("payments");
				}
			}

			@PostMapping(path = "/api/forms")
			@IdempotentRequest
			String payByForm(@RequestParam String amount, @RequestParam String note, @RequestParam String channel) {
				Runs.start("forms");
				Runs.end("forms");
				return "paid " + amount + " for " + note + " via " + channel + " on mvc";
			}

		}

	}

}
