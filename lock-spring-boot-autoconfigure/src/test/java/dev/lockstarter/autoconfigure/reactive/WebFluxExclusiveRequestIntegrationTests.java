package dev.lockstarter.autoconfigure.reactive;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;

import org.springframework.boot.web.server.context.WebServerApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * End-to-end tests of {@code @ExclusiveRequest} on WebFlux endpoints that return
 * {@code Mono}s: two application instances on Reactor Netty share one real Redis, and
 * BlockHound records any blocking call on an event-loop thread.
 */
class WebFluxExclusiveRequestIntegrationTests extends InstancesOnRedis {

	@Test
	void onlyOneOfTwentySimultaneousRequestsAcrossTwoInstancesRegisters() throws Exception {
		int first = start();
		int second = start();
		assertThat(this.contexts.get(0)).isInstanceOfSatisfying(WebServerApplicationContext.class,
				(context) -> assertThat(context.getWebServer().getClass().getSimpleName()).contains("Netty"));
		List<HttpResponse<String>> responses = fireSimultaneously(20, first, second, "alice");
		Map<Integer, Long> statuses = responses.stream()
			.collect(Collectors.groupingBy(HttpResponse::statusCode, Collectors.counting()));
		assertThat(statuses).containsOnly(Map.entry(201, 1L), Map.entry(409, 19L));
		responses.stream().filter((response) -> response.statusCode() == 409).forEach((response) -> {
			assertThat(response.headers().firstValue("Content-Type"))
				.hasValueSatisfying((type) -> assertThat(type).startsWith("application/problem+json"));
			assertThat(response.headers().firstValue("Retry-After"))
				.hasValueSatisfying((retryAfter) -> assertThat(Integer.parseInt(retryAfter)).isBetween(1, 30));
			assertThat(response.body()).contains("\"type\":\"urn:lockstarter:problem:lock-conflict\"")
				.contains("\"status\":409")
				.doesNotContain("lock:")
				.doesNotContain("Exception");
		});
		HttpResponse<String> created = responses.stream()
			.filter((response) -> response.statusCode() == 201)
			.findFirst()
			.orElseThrow();
		assertThat(created.headers().firstValue("Location")).isPresent();
		assertThat(created.body()).contains("\"userName\":\"alice\"").contains("\"points\":100");
		assertThat(redis.server().command("LLEN", ReactiveRegistrationApp.usersKey("alice"))).isEqualTo("1");
		assertThat(get(first, "/api/users?userName=alice").body()).isEqualTo("1");
	}

	@Test
	void conflictStatusPropertyTurnsConflictsInto422() throws Exception {
		int first = start("lock.web.conflict-status=422");
		int second = start("lock.web.conflict-status=422");
		List<HttpResponse<String>> responses = fireSimultaneously(6, first, second, "bob");
		assertThat(responses.stream().map(HttpResponse::statusCode).toList()).containsOnly(201, 422)
			.containsOnlyOnce(201);
	}

	@Test
	void cancelledRequestReleasesItsLockLongBeforeItsTtl() throws Exception {
		int port = start("lock.ttl=30s");
		HttpRequest slow = registration(port, "carol", 20_000).timeout(Duration.ofMillis(500)).build();
		assertThatExceptionOfType(HttpTimeoutException.class)
			.isThrownBy(() -> this.http.send(slow, HttpResponse.BodyHandlers.ofString()));
		long cancelledAt = System.nanoTime();
		HttpResponse<String> next = await().atMost(Duration.ofSeconds(5))
			.pollInterval(Duration.ofMillis(20))
			.until(() -> send(registration(port, "carol", 0).build()), (response) -> response.statusCode() != 409);
		assertThat(next.statusCode()).isEqualTo(201);
		assertThat(Duration.ofNanos(System.nanoTime() - cancelledAt)).isLessThan(Duration.ofSeconds(5));
		assertThat(redis.server().command("LLEN", ReactiveRegistrationApp.usersKey("carol"))).isEqualTo("1");
	}

	@Test
	void holderThatFailsReleasesItsLock() throws Exception {
		int port = start("lock.ttl=30s");
		HttpResponse<String> failed = post(port, "/api/failing?userName=dave");
		assertThat(failed.statusCode()).isEqualTo(500);
		HttpResponse<String> next = send(registration(port, "dave", 0).build());
		assertThat(next.statusCode()).isEqualTo(201);
	}

	@Test
	void waiterWakesOnTheReleaseOfAnotherInstance() throws Exception {
		int first = start("lock.ttl=30s");
		int second = start("lock.ttl=30s");
		CompletableFuture<HttpResponse<String>> holder = this.http.sendAsync(registration(first, "erin", 800).build(),
				HttpResponse.BodyHandlers.ofString());
		awaitLockKey("registration:erin");
		long started = System.nanoTime();
		HttpResponse<String> waiter = post(second, "/api/waiting?userName=erin");
		Duration waited = Duration.ofNanos(System.nanoTime() - started);
		assertThat(holder.get().statusCode()).isEqualTo(201);
		assertThat(waiter.statusCode()).isEqualTo(200);
		assertThat(waiter.body()).isEqualTo("waited for erin");
		assertThat(waited).isGreaterThan(Duration.ofMillis(300)).isLessThan(Duration.ofSeconds(3));
	}

	@Test
	void blankUserNameGives400AndNothingIsStored() throws Exception {
		int port = start();
		HttpResponse<String> response = send(registration(port, "  ", 0).build());
		assertThat(response.statusCode()).isEqualTo(400);
		assertThat(response.headers().firstValue("Content-Type"))
			.hasValueSatisfying((type) -> assertThat(type).startsWith("application/problem+json"));
		assertThat(response.body()).contains("urn:lockstarter:problem:invalid-lock-key");
		assertThat(redis.server().command("DBSIZE")).isEqualTo("0");
	}

	@Test
	void storeOutageGives503AndTheMethodDoesNotRun() throws Exception {
		int port = start("lock.redis.timeout=500ms");
		assertThat(send(registration(port, "frank", 0).build()).statusCode()).isEqualTo(201);
		redis.server().pause();
		try {
			HttpResponse<String> response = send(registration(port, "grace", 0).build());
			assertThat(response.statusCode()).isEqualTo(503);
			assertThat(response.headers().firstValue("Retry-After")).hasValue("1");
			assertThat(response.body()).contains("urn:lockstarter:problem:lock-store-unavailable");
		}
		finally {
			redis.server().resume();
		}
		assertThat(redis.server().command("LLEN", ReactiveRegistrationApp.usersKey("grace"))).isEqualTo("0");
	}

	private List<HttpResponse<String>> fireSimultaneously(int count, int firstPort, int secondPort, String userName)
			throws Exception {
		List<CompletableFuture<HttpResponse<String>>> futures = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			int port = (i % 2 == 0) ? firstPort : secondPort;
			futures.add(this.http.sendAsync(registration(port, userName, 500).build(),
					HttpResponse.BodyHandlers.ofString()));
		}
		List<HttpResponse<String>> responses = new ArrayList<>();
		for (CompletableFuture<HttpResponse<String>> future : futures) {
			responses.add(future.get());
		}
		return responses;
	}

	private void awaitLockKey(String key) {
		await("lock taken in time").atMost(Duration.ofSeconds(5))
			.pollInterval(Duration.ofMillis(5))
			.until(() -> "1".equals(redis.server().command("EXISTS", "lock:{" + key + "}")));
	}

	static HttpRequest.Builder registration(int port, String userName, long delayMillis) {
		return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/users?delayMillis=" + delayMillis))
			.timeout(Duration.ofSeconds(20))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString("{\"userName\":\"" + userName + "\"}"));
	}

	private HttpResponse<String> post(int port, String path) throws IOException, InterruptedException {
		return send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
			.timeout(Duration.ofSeconds(20))
			.POST(HttpRequest.BodyPublishers.noBody())
			.build());
	}

	private HttpResponse<String> get(int port, String path) throws IOException, InterruptedException {
		return send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
			.timeout(Duration.ofSeconds(20))
			.GET()
			.build());
	}

	private HttpResponse<String> send(HttpRequest request) throws IOException, InterruptedException {
		return this.http.send(request, HttpResponse.BodyHandlers.ofString());
	}

}
