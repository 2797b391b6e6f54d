package dev.lockstarter.server;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.LongTaskTimer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Timer;
import jakarta.servlet.FilterRegistration;
import jakarta.servlet.ServletContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.server.LockApi.Response;
import dev.lockstarter.test.redis.RedisServerExtension;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.web.server.servlet.context.ServletWebServerApplicationContext;

import static dev.lockstarter.server.LockServers.ALPHA_KEY;
import static dev.lockstarter.server.LockServers.BETA_KEY;
import static dev.lockstarter.server.LockServers.GAMMA_KEY;
import static dev.lockstarter.server.LockServers.LIMITED_KEY;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The lock API through real HTTP, on two server instances sharing a real Redis: the life
 * of a lock, waits woken by a release on the other instance, expiry, renewal, and every
 * refusal (authentication, namespace, limits, bad input) with its status and problem,
 * leaving nothing held and logging neither tokens nor API keys. Every response is checked
 * against the OpenAPI document.
 */
@ExtendWith(OutputCaptureExtension.class)
class LockServerHttpTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private static final OpenApiContract contract = new OpenApiContract();

	private static LockServers servers;

	private static String first;

	private static String second;

	private final LockApi api = new LockApi(contract);

	private final List<String> secrets = new ArrayList<>(List.of(ALPHA_KEY, BETA_KEY, GAMMA_KEY, LIMITED_KEY));

	@BeforeAll
	static void startServers() {
		servers = LockServers.onRedis(2, redis.port());
		first = servers.url(0);
		second = servers.url(1);
	}

	@AfterAll
	static void stopServers() {
		servers.close();
	}

	@AfterEach
	void nothingSecretWasLogged(CapturedOutput output) {
		for (String secret : this.secrets) {
			assertThat(output.getAll()).doesNotContain(secret);
		}
	}

	@Test
	void wholeLifeOfALockAcrossTwoInstances() {
		String key = key();
		Instant before = Instant.now();
		Response acquired = this.api.acquire(first, key, ALPHA_KEY, "{\"ttlMillis\":5000}");
		assertThat(acquired.status()).isEqualTo(201);
		String token = remember(acquired.text("ownerToken"));
		assertThat(acquired.header("Location")).isEqualTo("/v1/namespaces/tests/locks/" + key);
		assertThat(acquired.text("key")).isEqualTo(key);
		assertThat(acquired.number("fencingToken")).isPositive();
		assertThat(acquired.number("ttlMillis")).isEqualTo(5000);
		// The local deadline: the time-to-live less the loss margin (a tenth), from when
		// the
		// acquisition was sent
		assertThat(Instant.parse(acquired.text("expiresAt"))).isBetween(before.plusMillis(4400),
				Instant.now().plusMillis(4500));

		Response held = this.api.status(second, key, BETA_KEY);
		assertThat(held.status()).isEqualTo(200);
		assertThat(held.json().get("held").asBoolean()).isTrue();
		assertThat(held.number("timeToExpiryMillis")).isBetween(1L, 5000L);
		assertThat(held.raw().body()).doesNotContain(token);

		Instant renewing = Instant.now();
		Response renewed = this.api.renew(second, key, BETA_KEY, token, "{\"ttlMillis\":60000}");
		assertThat(renewed.status()).isEqualTo(200);
		assertThat(renewed.number("ttlMillis")).isEqualTo(60000);
		assertThat(Instant.parse(renewed.text("expiresAt"))).isBetween(renewing.plusMillis(53_900),
				Instant.now().plusMillis(54_000));
		assertThat(this.api.status(first, key, ALPHA_KEY).number("timeToExpiryMillis")).isGreaterThan(50_000);

		Response conflict = this.api.acquire(second, key, BETA_KEY, null);
		assertThat(conflict.status()).isEqualTo(409);
		assertThat(conflict.text("type")).isEqualTo("urn:lockstarter:problem:lock-conflict");
		assertThat(Long.parseLong(conflict.header("Retry-After"))).isBetween(50L, 60L);

		assertThat(this.api.release(second, key, BETA_KEY, token).status()).isEqualTo(204);
		Response free = this.api.status(first, key, ALPHA_KEY);
		assertThat(free.json().get("held").asBoolean()).isFalse();
		assertThat(free.number("timeToExpiryMillis")).isZero();
		Response next = this.api.acquire(second, key, BETA_KEY, null);
		assertThat(next.status()).isEqualTo(201);
		assertThat(next.number("fencingToken")).isGreaterThan(acquired.number("fencingToken"));
		assertThat(this.api.release(first, key, ALPHA_KEY, remember(next.text("ownerToken"))).status()).isEqualTo(204);
		assertNothingHeld();
	}

	@Test
	void aWaitIsWokenByAReleaseOnTheOtherInstance() throws Exception {
		String key = key();
		String token = remember(this.api.acquire(first, key, ALPHA_KEY, "{\"ttlMillis\":30000}").text("ownerToken"));
		CompletableFuture<Response> waiter = CompletableFuture
			.supplyAsync(() -> this.api.acquire(second, key, BETA_KEY, "{\"ttlMillis\":30000,\"waitMillis\":15000}"));
		WaitLimiter waits = servers.context(1).getBean(WaitLimiter.class);
		await("the acquisition waiting on the second instance").atMost(Duration.ofSeconds(5))
			.pollInterval(Duration.ofMillis(10))
			.until(() -> waits.waiting() == 1);
		assertThat(waiter).isNotDone();
		long releasedAt = System.nanoTime();
		assertThat(this.api.release(first, key, ALPHA_KEY, token).status()).isEqualTo(204);
		Response acquired = waiter.get(15, TimeUnit.SECONDS);
		long wokenAfter = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - releasedAt);
		assertThat(acquired.status()).isEqualTo(201);
		// Woken by the release (well before the 30 s time-to-live or the 15 s wait ended)
		assertThat(wokenAfter).isLessThan(5_000);
		this.api.release(second, key, BETA_KEY, remember(acquired.text("ownerToken")));
		assertNothingHeld();
	}

	@Test
	void aWaitThatEndsWhileTheLockIsHeldAnswersConflict() {
		String key = key();
		String token = remember(this.api.acquire(first, key, ALPHA_KEY, "{\"ttlMillis\":30000}").text("ownerToken"));
		long startedAt = System.nanoTime();
		Response conflict = this.api.acquire(second, key, BETA_KEY, "{\"waitMillis\":700}");
		assertThat(conflict.status()).isEqualTo(409);
		assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startedAt)).isGreaterThanOrEqualTo(700);
		assertThat(conflict.text("detail")).contains("after the wait");
		this.api.release(first, key, ALPHA_KEY, token);
		assertNothingHeld();
	}

	@Test
	void anAbandonedLockExpiresAtItsTimeToLive() throws Exception {
		String key = key();
		remember(this.api.acquire(first, key, ALPHA_KEY, "{\"ttlMillis\":800}").text("ownerToken"));
		assertThat(this.api.acquire(second, key, BETA_KEY, null).status()).isEqualTo(409);
		Thread.sleep(1000);
		assertThat(this.api.status(second, key, BETA_KEY).json().get("held").asBoolean()).isFalse();
		Response next = this.api.acquire(second, key, BETA_KEY, "{\"ttlMillis\":1000}");
		assertThat(next.status()).isEqualTo(201);
		assertThat(this.api.release(second, key, BETA_KEY, remember(next.text("ownerToken"))).status()).isEqualTo(204);
	}

	@Test
	void renewalKeepsALockPastThreeTimesItsTimeToLive() throws Exception {
		String key = key();
		String token = remember(this.api.acquire(first, key, ALPHA_KEY, "{\"ttlMillis\":1000}").text("ownerToken"));
		long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(3500);
		int renewals = 0;
		while (System.nanoTime() < until) {
			Thread.sleep(300);
			String server = (renewals % 2 == 0) ? second : first;
			assertThat(this.api.renew(server, key, ALPHA_KEY, token, "{\"ttlMillis\":1000}").status()).isEqualTo(200);
			assertThat(this.api.acquire(server, key, BETA_KEY, null).status()).isEqualTo(409);
			renewals++;
		}
		assertThat(renewals).isGreaterThanOrEqualTo(8);
		assertThat(this.api.release(first, key, ALPHA_KEY, token).status()).isEqualTo(204);
	}

	@Test
	void aWrongOrStaleTokenChangesNothing() throws Exception {
		String key = key();
		String token = remember(this.api.acquire(first, key, ALPHA_KEY, "{\"ttlMillis\":30000}").text("ownerToken"));
		String wrong = "AAAAAAAAAAAAAAAAAAAAAA";
		Response notOwner = this.api.release(second, key, BETA_KEY, wrong);
		assertThat(notOwner.status()).isEqualTo(409);
		assertThat(notOwner.text("type")).isEqualTo("urn:lockstarter:problem:lock-not-owned");
		assertThat(this.api.renew(second, key, BETA_KEY, wrong, "{\"ttlMillis\":600000}").status()).isEqualTo(409);
		assertThat(this.api.status(first, key, ALPHA_KEY).number("timeToExpiryMillis")).isBetween(1L, 30_000L);
		assertThat(this.api.release(first, key, ALPHA_KEY, token).status()).isEqualTo(204);
		Response gone = this.api.release(first, key, ALPHA_KEY, token);
		assertThat(gone.status()).isEqualTo(410);
		assertThat(gone.text("type")).isEqualTo("urn:lockstarter:problem:lock-not-held");

		String shortLived = remember(this.api.acquire(first, key, ALPHA_KEY, "{\"ttlMillis\":300}").text("ownerToken"));
		Thread.sleep(500);
		Response expired = this.api.release(second, key, BETA_KEY, shortLived);
		assertThat(expired.status()).isEqualTo(410);
		assertThat(expired.text("detail")).contains("expired");
		assertThat(this.api.renew(second, key, BETA_KEY, shortLived, null).status()).isEqualTo(410);
		String taken = remember(this.api.acquire(second, key, BETA_KEY, null).text("ownerToken"));
		// The expired owner's token cannot touch the new owner's lock
		assertThat(this.api.release(first, key, ALPHA_KEY, shortLived).status()).isEqualTo(409);
		assertThat(this.api.release(first, key, ALPHA_KEY, taken).status()).isEqualTo(204);
		assertNothingHeld();
	}

	@Test
	void keysHoldAnyCharacterButControlCharacters() {
		for (String encoded : List.of("a%2Fb%2F..%2Fc", "%E3%83%A6%E3%83%BC%E3%82%B6%E3%83%BC", "with%20space%3Fquery",
				"%F0%9F%94%92")) {
			Response acquired = this.api.acquire(first, encoded, ALPHA_KEY, null);
			assertThat(acquired.status()).as(encoded).isEqualTo(201);
			assertThat(acquired.header("Location")).isEqualTo("/v1/namespaces/tests/locks/" + encoded);
			assertThat(this.api.status(second, encoded, BETA_KEY).json().get("held").asBoolean()).isTrue();
			assertThat(this.api.release(second, encoded, BETA_KEY, remember(acquired.text("ownerToken"))).status())
				.isEqualTo(204);
		}
		Response unicode = this.api.acquire(first, "%E3%83%A6", ALPHA_KEY, null);
		assertThat(unicode.text("key")).isEqualTo("\u30e6");
		assertThat(this.api.release(first, "%E3%83%A6", ALPHA_KEY, remember(unicode.text("ownerToken"))).status())
			.isEqualTo(204);
		assertNothingHeld();
	}

	@Test
	void authenticationAndNamespaces() {
		String key = key();
		Response none = this.api.acquire(first, key, null, null);
		assertThat(none.status()).isEqualTo(401);
		assertThat(none.header("WWW-Authenticate")).startsWith("Bearer");
		assertThat(this.api.acquire(first, key, "not-a-key", null).status()).isEqualTo(401);
		assertThat(this.api.acquire(first, key, ALPHA_KEY + "x", null).status()).isEqualTo(401);
		// Gamma is bound to 'other': it can neither take nor see a lock in 'tests'
		assertThat(this.api.send("POST", first, "tests", key, GAMMA_KEY, null, null).status()).isEqualTo(403);
		assertThat(this.api.send("GET", first, "tests", key, GAMMA_KEY, null, null).status()).isEqualTo(403);
		assertThat(this.api.send("POST", first, "no-such-namespace", key, ALPHA_KEY, null, null).status())
			.isEqualTo(403);
		// Namespaces do not share locks: 'other' has its own lock on the same key
		Response inTests = this.api.acquire(first, key, ALPHA_KEY, null);
		Response inOther = this.api.send("POST", second, "other", key, GAMMA_KEY, null, null);
		assertThat(inTests.status()).isEqualTo(201);
		assertThat(inOther.status()).isEqualTo(201);
		String token = remember(inTests.text("ownerToken"));
		// Another namespace's token is useless here, and this one's there
		assertThat(this.api.send("DELETE", first, "other", key, GAMMA_KEY, token, null).status()).isEqualTo(409);
		assertThat(this.api.send("DELETE", first, "other", key, GAMMA_KEY, remember(inOther.text("ownerToken")), null)
			.status()).isEqualTo(204);
		assertThat(this.api.release(first, key, ALPHA_KEY, token).status()).isEqualTo(204);
		assertNothingHeld();
	}

	@Test
	void theRateLimitOfAnApiKeyAnswersTooManyRequests() {
		String key = key();
		List<Response> responses = new ArrayList<>();
		for (int i = 0; i < 5; i++) {
			responses.add(this.api.send("GET", first, "limited", key, LIMITED_KEY, null, null));
		}
		assertThat(responses.subList(0, 3)).allSatisfy((response) -> assertThat(response.status()).isEqualTo(200));
		Response limited = responses.get(4);
		assertThat(limited.status()).isEqualTo(429);
		assertThat(Long.parseLong(limited.header("Retry-After"))).isEqualTo(1);
		assertThat(limited.text("type")).isEqualTo("urn:lockstarter:problem:rate-limited");
		// Other keys have their own budget
		assertThat(this.api.status(first, key, ALPHA_KEY).status()).isEqualTo(200);
	}

	@Test
	void badInputIsRefusedAndHoldsNothing() throws Exception {
		String key = key();
		List<Object[]> cases = List.of(new Object[] { "POST", key, "{\"ttlMillis\":", 400 },
				new Object[] { "POST", key, "{\"ttlMillis\":1000,\"owner\":\"me\"}", 400 },
				new Object[] { "POST", key, "{\"ttlMillis\":-5}", 400 },
				new Object[] { "POST", key, "{\"ttlMillis\":0}", 400 },
				new Object[] { "POST", key, "{\"ttlMillis\":600001}", 400 },
				new Object[] { "POST", key, "{\"ttlMillis\":99999999999999999999}", 400 },
				new Object[] { "POST", key, "{\"ttlMillis\":1.5}", 400 },
				new Object[] { "POST", key, "{\"ttlMillis\":\"1000\"}", 400 },
				new Object[] { "POST", key, "{\"waitMillis\":30001}", 400 },
				new Object[] { "POST", key, "[1000]", 400 }, new Object[] { "POST", key, "{} {}", 400 },
				new Object[] { "POST", "a%0D%0ASet-Cookie:%20x", null, 400 },
				new Object[] { "POST", "tab%09key", null, 400 }, new Object[] { "POST", "%C3%28", null, 400 },
				new Object[] { "POST", "%E3%83", null, 400 }, new Object[] { "POST", "%20%20", null, 400 },
				new Object[] { "POST", "k".repeat(201), null, 413 },
				new Object[] { "POST", "%E3%83%A6".repeat(67), null, 413 },
				new Object[] { "POST", key, "{\"ttlMillis\":1000" + " ".repeat(1100) + "}", 413 });
		for (Object[] bad : cases) {
			Response response = this.api.send((String) bad[0], first, "tests", (String) bad[1], ALPHA_KEY, null,
					(String) bad[2]);
			assertThat(response.status()).as("%s %s %s", bad[0], bad[1], bad[2]).isEqualTo(bad[3]);
			assertThat(response.header("Content-Type")).startsWith("application/problem+json");
		}
		String token = remember(this.api.acquire(first, key, ALPHA_KEY, null).text("ownerToken"));
		for (String badToken : List.of("short", token + "A", "AAAAAAAAAAAAAAAAAAAA/=")) {
			Response response = this.api.release(first, key, ALPHA_KEY, badToken);
			assertThat(response.status()).isEqualTo(400);
			assertThat(response.raw().body()).doesNotContain(token);
		}
		assertThat(this.api.release(first, key, ALPHA_KEY, null).status()).isEqualTo(400);
		assertThat(this.api.release(first, key, ALPHA_KEY, token).status()).isEqualTo(204);
		assertNothingHeld();
	}

	@Test
	void aWaiterThatHangsUpStopsWaitingAndTakesNoLock() throws Exception {
		String key = key();
		Response held = this.api.acquire(first, key, ALPHA_KEY, "{\"ttlMillis\":30000}");
		assertThat(held.status()).isEqualTo(201);
		String token = remember(held.text("ownerToken"));
		WaitLimiter waits = servers.context(1).getBean(WaitLimiter.class);
		int waiting = waits.waiting();
		String body = "{\"ttlMillis\":30000,\"waitMillis\":20000}";
		try (Socket socket = new Socket("127.0.0.1", Integer.parseInt(second.substring(second.lastIndexOf(':') + 1)))) {
			OutputStream out = socket.getOutputStream();
			out.write(("POST /v1/namespaces/tests/locks/" + key + " HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
					+ BETA_KEY + "\r\nContent-Type: application/json\r\nContent-Length: " + body.length() + "\r\n\r\n"
					+ body)
				.getBytes(StandardCharsets.ISO_8859_1));
			out.flush();
			await().atMost(Duration.ofSeconds(10)).until(() -> waits.waiting() == waiting + 1);
		}
		// The server finds the connection closed and ends the wait, long before the lock
		// is released or the wait runs out
		await().atMost(Duration.ofSeconds(10)).until(() -> waits.waiting() == waiting);
		assertThat(this.api.release(first, key, ALPHA_KEY, token).status()).isEqualTo(204);
		Response free = this.api.status(second, key, BETA_KEY);
		assertThat(free.json().get("held").asBoolean()).isFalse();
		assertNothingHeld();
	}

	@Test
	void malformedHttpGetsAProblemFromTomcatToo() throws Exception {
		String port = first.substring(first.lastIndexOf(':') + 1);
		for (String request : List.of(
				"POST /v1/namespaces/tests/locks/%FF HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + ALPHA_KEY
						+ "\r\nContent-Length: 0\r\n\r\n",
				"POST /v1/namespaces/tests/locks/bad%zzescape HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + ALPHA_KEY
						+ "\r\nContent-Length: 0\r\n\r\n",
				"POST /v1/namespaces/tests/locks/x HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + ALPHA_KEY
						+ "\r\nX-Injected: a\rSet-Cookie: b\r\nContent-Length: 0\r\n\r\n")) {
			try (Socket socket = new Socket("127.0.0.1", Integer.parseInt(port))) {
				socket.setSoTimeout(5000);
				OutputStream out = socket.getOutputStream();
				out.write(request.getBytes(StandardCharsets.ISO_8859_1));
				out.flush();
				InputStream in = socket.getInputStream();
				String response = new String(in.readAllBytes(), StandardCharsets.UTF_8);
				assertThat(response).startsWith("HTTP/1.1 400")
					.contains("Content-Type: application/problem+json")
					.contains("\"status\":400")
					.doesNotContain("Set-Cookie");
			}
		}
		assertNothingHeld();
	}

	@Test
	void theServedDocumentIsTheContract() throws Exception {
		HttpResponse<String> served = HttpClient.newHttpClient()
			.send(HttpRequest.newBuilder(URI.create(first + "/v1/openapi.yaml")).build(),
					HttpResponse.BodyHandlers.ofString());
		assertThat(served.statusCode()).isEqualTo(200);
		assertThat(served.headers().firstValue("Content-Type")).hasValue("application/yaml");
		assertThat(served.body()).startsWith("openapi: 3.1.0");
		org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping mappings = servers.context(0)
			.getBean("requestMappingHandlerMapping",
					org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping.class);
		Set<String> served2 = new TreeSet<>();
		mappings.getHandlerMethods().forEach((info, method) -> {
			if (method.getBeanType().getPackageName().equals(LockServerApplication.class.getPackageName())) {
				info.getPathPatternsCondition()
					.getPatternValues()
					.forEach((pattern) -> info.getMethodsCondition()
						.getMethods()
						.forEach((httpMethod) -> served2.add(httpMethod.name() + " " + pattern)));
			}
		});
		// The lock resource's servlet: the methods it allows, but the two every resource
		// has
		HttpResponse<String> options = send(HttpRequest.newBuilder(lockUri(first, key()))
			.method("OPTIONS", HttpRequest.BodyPublishers.noBody())
			.header("Authorization", "Bearer " + ALPHA_KEY)
			.build());
		assertThat(options.statusCode()).isEqualTo(200);
		for (String method : options.headers().firstValue("Allow").orElseThrow().split(", ")) {
			if (!method.equals("HEAD") && !method.equals("OPTIONS")) {
				served2.add(method + " " + LockServlet.PATH_PATTERN);
			}
		}
		assertThat(served2).isEqualTo(contract.operations());
	}

	@Test
	void springMvcFiltersServeTheDispatcherServletAlone() {
		ServletContext servletContext = ((ServletWebServerApplicationContext) servers.context(0)).getServletContext();
		Map<String, ? extends FilterRegistration> filters = servletContext.getFilterRegistrations();
		Set<String> springMvcFilters = new TreeSet<>();
		filters.forEach((name, filter) -> {
			String type = filter.getClassName();
			if (type.contains("CharacterEncodingFilter") || type.contains("FormContentFilter")
					|| type.contains("RequestContextFilter")) {
				springMvcFilters.add(type.substring(type.lastIndexOf('.') + 1));
				assertThat(filter.getServletNameMappings()).as(name).containsExactly("dispatcherServlet");
				assertThat(filter.getUrlPatternMappings()).as(name).isEmpty();
			}
		});
		assertThat(springMvcFilters).containsExactly("OrderedCharacterEncodingFilter", "OrderedFormContentFilter",
				"OrderedRequestContextFilter");
		// Spring MVC's HTTP observation too; the lock servlet's requests pass the API key
		// check and are timed
		assertThat(filters.values())
			.filteredOn((filter) -> filter.getClassName().contains("ServerHttpObservationFilter"))
			.singleElement()
			.satisfies((filter) -> {
				assertThat(filter.getServletNameMappings()).containsExactly("dispatcherServlet");
				assertThat(filter.getUrlPatternMappings()).isEmpty();
			});
		assertThat(filters.get("apiKeyFilter").getUrlPatternMappings()).containsExactly("/*");
		assertThat(filters.get("lockApiRequestMeters").getUrlPatternMappings()).containsExactly(LockServlet.MAPPING);
	}

	@Test
	void theLockApiIsTimedWithSpringMvcsTagsAndItsAcquisitionsCounted() throws Exception {
		MeterRegistry registry = servers.context(1).getBean(MeterRegistry.class);
		long created = requests(registry, "POST", "201");
		long conflicts = requests(registry, "POST", "409");
		long refused = requests(registry, "POST", "401");
		long released = requests(registry, "DELETE", "204");
		long acquired = acquisitions(registry, "acquired");
		long conflicted = acquisitions(registry, "conflict");
		long waited = waits(registry, "acquired");

		String key = key();
		String token = remember(this.api.acquire(second, key, ALPHA_KEY, "{\"ttlMillis\":30000}").text("ownerToken"));
		assertThat(this.api.acquire(second, key, BETA_KEY, null).status()).isEqualTo(409);
		assertThat(this.api.acquire(second, key, "not-a-key", null).status()).isEqualTo(401);
		CompletableFuture<Response> waiter = CompletableFuture
			.supplyAsync(() -> this.api.acquire(second, key, BETA_KEY, "{\"ttlMillis\":30000,\"waitMillis\":15000}"));
		LongTaskTimer active = registry.get("http.server.requests.active")
			.tags("method", "POST", "uri", LockServlet.PATH_PATTERN)
			.longTaskTimer();
		await("the waiting acquisition, active").atMost(Duration.ofSeconds(5))
			.pollInterval(Duration.ofMillis(10))
			.until(() -> active.activeTasks() == 1);
		assertThat(this.api.release(first, key, ALPHA_KEY, token).status()).isEqualTo(204);
		Response woken = waiter.get(15, TimeUnit.SECONDS);
		assertThat(woken.status()).isEqualTo(201);
		assertThat(this.api.release(second, key, BETA_KEY, remember(woken.text("ownerToken"))).status()).isEqualTo(204);

		// Each request once, the refused one and the one that waited included, when it
		// completed
		await("the waiting acquisition, timed").atMost(Duration.ofSeconds(5))
			.pollInterval(Duration.ofMillis(10))
			.until(() -> requests(registry, "POST", "201") == created + 2);
		assertThat(active.activeTasks()).isZero();
		assertThat(requests(registry, "POST", "409")).isEqualTo(conflicts + 1);
		assertThat(requests(registry, "POST", "401")).isEqualTo(refused + 1);
		assertThat(requests(registry, "DELETE", "204")).isEqualTo(released + 1);
		Timer timer = registry.get("http.server.requests")
			.tags("method", "POST", "status", "201", "uri", LockServlet.PATH_PATTERN)
			.timer();
		assertThat(timer.getId().getTags()).extracting(Tag::getKey)
			.containsExactly("error", "exception", "method", "outcome", "status", "uri");
		assertThat(timer.getId().getTag("outcome")).isEqualTo("SUCCESS");
		assertThat(timer.getId().getTag("exception")).isEqualTo("none");
		// Spring MVC's observation does not see the lock API: no second timer of its
		// requests
		assertThat(registry.find("http.server.requests").tag("uri", "UNKNOWN").meters()).isEmpty();
		// The acquisitions, by the starter's lock meters; no lock.acquire observation
		assertThat(acquisitions(registry, "acquired")).isEqualTo(acquired + 2);
		assertThat(acquisitions(registry, "conflict")).isEqualTo(conflicted + 1);
		assertThat(waits(registry, "acquired")).isEqualTo(waited + 1);
		assertThat(registry.find("lock.acquire").meters()).isEmpty();
		assertNothingHeld();
	}

	private static long requests(MeterRegistry registry, String method, String status) {
		Timer timer = registry.find("http.server.requests")
			.tags("method", method, "status", status, "uri", LockServlet.PATH_PATTERN)
			.timer();
		return (timer != null) ? timer.count() : 0;
	}

	private static long acquisitions(MeterRegistry registry, String outcome) {
		Timer timer = registry.find("lock.acquisitions")
			.tags("name", "lock-server.tests", "store", "redis", "outcome", outcome)
			.timer();
		return (timer != null) ? timer.count() : 0;
	}

	private static long waits(MeterRegistry registry, String outcome) {
		Timer timer = registry.find("lock.waits")
			.tags("name", "lock-server.tests", "store", "redis", "outcome", outcome)
			.timer();
		return (timer != null) ? timer.count() : 0;
	}

	@Test
	void aLockAnswersHeadWithoutABodyAndOtherMethodsOrNoJsonWithProblems() throws Exception {
		String key = key();
		URI uri = lockUri(first, key);
		HttpResponse<String> head = send(HttpRequest.newBuilder(uri)
			.method("HEAD", HttpRequest.BodyPublishers.noBody())
			.header("Authorization", "Bearer " + ALPHA_KEY)
			.build());
		assertThat(head.statusCode()).isEqualTo(200);
		assertThat(head.headers().firstValue("Content-Type")).hasValue("application/json");
		assertThat(head.body()).isEmpty();
		HttpResponse<String> patch = send(HttpRequest.newBuilder(uri)
			.method("PATCH", HttpRequest.BodyPublishers.ofString("{}"))
			.header("Authorization", "Bearer " + ALPHA_KEY)
			.build());
		assertThat(patch.statusCode()).isEqualTo(405);
		assertThat(patch.headers().firstValue("Allow")).hasValue("GET, HEAD, POST, PUT, DELETE, OPTIONS");
		assertThat(patch.headers().firstValue("Content-Type")).hasValue("application/problem+json");
		assertThat(patch.body()).contains("\"type\":\"urn:lockstarter:problem:method-not-allowed\"")
			.contains("\"status\":405");
		HttpResponse<String> text = send(HttpRequest.newBuilder(uri)
			.POST(HttpRequest.BodyPublishers.noBody())
			.header("Authorization", "Bearer " + ALPHA_KEY)
			.header("Accept", "text/plain")
			.build());
		assertThat(text.statusCode()).isEqualTo(406);
		assertThat(text.body()).contains("\"type\":\"urn:lockstarter:problem:not-acceptable\"");
		// Nothing was acquired by the refused calls
		HttpResponse<String> status = send(HttpRequest.newBuilder(uri)
			.GET()
			.header("Authorization", "Bearer " + ALPHA_KEY)
			.header("Accept", "application/json, text/plain;q=0.5")
			.build());
		assertThat(status.statusCode()).isEqualTo(200);
		assertThat(status.body()).contains("\"held\":false");
	}

	private static URI lockUri(String base, String key) {
		return URI.create(base + "/v1/namespaces/tests/locks/" + key);
	}

	private static HttpResponse<String> send(HttpRequest request) throws Exception {
		return HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString());
	}

	private String key() {
		return "key-" + UUID.randomUUID();
	}

	private String remember(String token) {
		this.secrets.add(token);
		return token;
	}

	private static void assertNothingHeld() {
		assertThat(redis.server().command("KEYS", "lock-server:*}")).isNullOrEmpty();
	}

}
