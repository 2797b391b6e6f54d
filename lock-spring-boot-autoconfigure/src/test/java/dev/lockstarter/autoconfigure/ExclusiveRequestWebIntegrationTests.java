package dev.lockstarter.autoconfigure;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import dev.lockstarter.annotation.ExclusiveRequest;
import dev.lockstarter.test.redis.RedisServer;
import dev.lockstarter.test.redis.RedisServerExtension;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.bind.annotation.RestControllerAdvice;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * End-to-end tests of {@code @ExclusiveRequest} on Spring MVC endpoints, with application
 * instances that share one real Redis.
 */
class ExclusiveRequestWebIntegrationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	static final AtomicInteger bodies = new AtomicInteger();

	static volatile Duration hold = Duration.ZERO;

	static volatile CountDownLatch entered = new CountDownLatch(1);

	private final List<ConfigurableApplicationContext> contexts = new ArrayList<>();

	private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

	@BeforeEach
	void reset() {
		bodies.set(0);
		hold = Duration.ZERO;
		entered = new CountDownLatch(1);
		redis.server().command("FLUSHALL");
	}

	@AfterEach
	void closeContexts() {
		this.contexts.forEach(ConfigurableApplicationContext::close);
	}

	@Test
	void onlyOneOfTwentySimultaneousRequestsAcrossTwoInstancesRunsTheBody() throws Exception {
		int first = start(WebApp.class, redis.port());
		int second = start(WebAppWithCatchAllAdvice.class, redis.port());
		List<HttpResponse<String>> responses = fireSimultaneously(20, first, second, "alice");
		assertThat(bodies).hasValue(1);
		Map<Integer, Long> statuses = countStatuses(responses);
		assertThat(statuses).containsOnly(Map.entry(201, 1L), Map.entry(409, 19L));
		assertConflictProblems(responses, 409);
	}

	@Test
	void conflictStatusPropertyTurnsConflictsInto422() throws Exception {
		int first = start(WebApp.class, redis.port(), "lock.web.conflict-status=422");
		int second = start(WebAppWithCatchAllAdvice.class, redis.port(), "lock.web.conflict-status=422");
		List<HttpResponse<String>> responses = fireSimultaneously(20, first, second, "bob");
		assertThat(bodies).hasValue(1);
		assertThat(countStatuses(responses)).containsOnly(Map.entry(201, 1L), Map.entry(422, 19L));
		assertConflictProblems(responses, 422);
	}

	@Test
	void annotationConflictStatusOverridesTheConfiguredOne() throws Exception {
		int port = start(WebApp.class, redis.port());
		hold = Duration.ofSeconds(1);
		Future<HttpResponse<String>> holder = Executors.newSingleThreadExecutor()
			.submit(() -> post(port, "/orders?userName=carol"));
		assertThat(entered.await(5, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
		HttpResponse<String> conflict = post(port, "/orders?userName=carol");
		assertThat(conflict.statusCode()).isEqualTo(422);
		assertThat(holder.get().statusCode()).isEqualTo(201);
	}

	@Test
	void nullKeyValueGives400AndTheBodyDoesNotRun() throws Exception {
		int port = start(WebAppWithCatchAllAdvice.class, redis.port());
		HttpResponse<String> response = post(port, "/registrations");
		assertThat(response.statusCode()).isEqualTo(400);
		assertThat(response.headers().firstValue("Content-Type"))
			.hasValueSatisfying((type) -> assertThat(type).startsWith("application/problem+json"));
		assertThat(response.body()).contains("urn:lockstarter:problem:invalid-lock-key");
		assertThat(bodies).hasValue(0);
		assertThat(redis.server().command("DBSIZE")).isEqualTo("0");
	}

	@Test
	void blankKeyValueGives400AndTheBodyDoesNotRun() throws Exception {
		int port = start(WebApp.class, redis.port());
		HttpResponse<String> response = post(port, "/registrations?userName=%20%20");
		assertThat(response.statusCode()).isEqualTo(400);
		assertThat(bodies).hasValue(0);
	}

	@Test
	void codeInjectionInAnArgumentStaysLiteralInTheKey(@TempDir Path tempDir) throws Exception {
		int port = start(WebApp.class, redis.port());
		Path marker = tempDir.resolve("injected");
		String[] payloads = { "T(java.lang.Runtime).getRuntime().exec('touch " + marker + "')",
				"#{T(java.lang.Runtime).getRuntime().exec('touch " + marker + "')}" };
		for (String payload : payloads) {
			hold = Duration.ofMillis(300);
			entered = new CountDownLatch(1);
			Future<HttpResponse<String>> call = Executors.newSingleThreadExecutor()
				.submit(() -> post(port,
						"/registrations?userName=" + URLEncoder.encode(payload, StandardCharsets.UTF_8)));
			assertThat(entered.await(5, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
			String storedKey = "lock:{RegistrationController.register:" + payload + "}";
			assertThat(redis.server().command("EXISTS", storedKey)).isEqualTo("1");
			assertThat(call.get().statusCode()).isEqualTo(201);
		}
		assertThat(marker).doesNotExist();
	}

	@Test
	void unreachableRedisGives503WithinTheTimeoutAndTheBodyDoesNotRun() throws Exception {
		int closedPort;
		try (ServerSocket socket = new ServerSocket(0)) {
			closedPort = socket.getLocalPort();
		}
		int port = start(WebApp.class, closedPort);
		long started = System.nanoTime();
		HttpResponse<String> response = post(port, "/registrations?userName=dave");
		Duration elapsed = Duration.ofNanos(System.nanoTime() - started);
		assertThat(response.statusCode()).isEqualTo(503);
		assertThat(response.body()).contains("urn:lockstarter:problem:lock-store-unavailable")
			.doesNotContain("Exception")
			.doesNotContain("dave");
		assertThat(elapsed).isLessThan(Duration.ofSeconds(5));
		assertThat(bodies).hasValue(0);
	}

	@Test
	void pausedRedisGives503WithinTheCommandTimeoutAndTheBodyDoesNotRun() throws Exception {
		try (RedisServer paused = RedisServer.start()) {
			int port = start(WebApp.class, paused.port(), "lock.ttl=2s");
			assertThat(post(port, "/registrations?userName=erin").statusCode()).isEqualTo(201);
			bodies.set(0);
			paused.pause();
			try {
				long started = System.nanoTime();
				HttpResponse<String> response = post(port, "/registrations?userName=erin");
				Duration elapsed = Duration.ofNanos(System.nanoTime() - started);
				assertThat(response.statusCode()).isEqualTo(503);
				assertThat(elapsed).isGreaterThanOrEqualTo(Duration.ofMillis(900)).isLessThan(Duration.ofSeconds(4));
				assertThat(bodies).hasValue(0);
			}
			finally {
				paused.resume();
			}
		}
	}

	private int start(Class<?> application, int redisPort, String... properties) {
		ConfigurableApplicationContext context = new SpringApplicationBuilder(application)
			.properties("server.port=0", "spring.main.banner-mode=off", "lock.store=redis",
					"spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redisPort,
					"spring.data.redis.timeout=1s", "spring.data.redis.connect-timeout=1s")
			.properties(properties)
			.run();
		this.contexts.add(context);
		return context.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
	}

	private List<HttpResponse<String>> fireSimultaneously(int count, int firstPort, int secondPort, String userName)
			throws Exception {
		hold = Duration.ofMillis(1500);
		CountDownLatch gate = new CountDownLatch(1);
		ExecutorService executor = Executors.newFixedThreadPool(count);
		try {
			List<Future<HttpResponse<String>>> futures = new ArrayList<>();
			for (int i = 0; i < count; i++) {
				int port = (i % 2 == 0) ? firstPort : secondPort;
				futures.add(executor.submit(() -> {
					gate.await();
					return post(port, "/registrations?userName=" + userName);
				}));
			}
			gate.countDown();
			assertThat(entered.await(5, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
			String token = redis.server().command("GET", "lock:{RegistrationController.register:" + userName + "}");
			assertThat(token).isNotBlank();
			List<HttpResponse<String>> responses = new ArrayList<>();
			for (Future<HttpResponse<String>> future : futures) {
				responses.add(future.get());
			}
			responses.forEach((response) -> assertThat(response.body()).doesNotContain(token));
			return responses;
		}
		finally {
			executor.shutdownNow();
		}
	}

	private static Map<Integer, Long> countStatuses(List<HttpResponse<String>> responses) {
		return responses.stream().collect(Collectors.groupingBy(HttpResponse::statusCode, Collectors.counting()));
	}

	private static void assertConflictProblems(List<HttpResponse<String>> responses, int status) {
		responses.stream().filter((response) -> response.statusCode() == status).forEach((response) -> {
			assertThat(response.headers().firstValue("Content-Type"))
				.hasValueSatisfying((type) -> assertThat(type).startsWith("application/problem+json"));
			assertThat(response.headers().firstValue("Retry-After"))
				.hasValueSatisfying((retryAfter) -> assertThat(Integer.parseInt(retryAfter)).isBetween(1, 30));
			assertThat(response.body()).contains("\"type\":\"urn:lockstarter:problem:lock-conflict\"")
				.contains("\"status\":" + status)
				.doesNotContain("lock:")
				.doesNotContain("trace")
				.doesNotContain("Exception");
		});
	}

	private HttpResponse<String> post(int port, String path) throws IOException, InterruptedException {
		HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
			.timeout(Duration.ofSeconds(20))
			.POST(HttpRequest.BodyPublishers.noBody())
			.build();
		return this.http.send(request, HttpResponse.BodyHandlers.ofString());
	}

	static void holdAfterEntering() {
		bodies.incrementAndGet();
		entered.countDown();
		try {
			Thread.sleep(hold.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import(RegistrationController.class)
	static class WebApp {

	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import({ RegistrationController.class, CatchAllAdvice.class })
	static class WebAppWithCatchAllAdvice {

	}

	@RestController
	static class RegistrationController {

		@PostMapping("/registrations")
		@ExclusiveRequest(key = "#userName")
		public ResponseEntity<String> register(@RequestParam(required = false) String userName) {
			holdAfterEntering();
			return ResponseEntity.status(HttpStatus.CREATED).body("registered");
		}

		@PostMapping("/orders")
		@ExclusiveRequest(key = "#userName", conflictStatus = 422)
		public ResponseEntity<String> order(@RequestParam String userName) {
			holdAfterEntering();
			return ResponseEntity.status(HttpStatus.CREATED).body("ordered");
		}

	}

	/**
	 * An application's own catch-all advice, which must not swallow lock errors.
	 */
	@RestControllerAdvice
	static class CatchAllAdvice {

		@ExceptionHandler(Exception.class)
		ResponseEntity<String> handle(Exception ex) {
			return ResponseEntity.internalServerError().body("application handler");
		}

	}

}
