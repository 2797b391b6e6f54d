package dev.lockstarter.server;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The lock server as an attacker meets it, with the documented configuration: the
 * in-memory store and a client whose API key is effectively public (namespace
 * {@code mobile}), next to a second client. Each test is one attack and what the server
 * answers instead of giving way.
 */
@ExtendWith(OutputCaptureExtension.class)
class LockServerAbuseTests {

	static final String MOBILE_KEY = "mobile-5c1e9a7d3b2f4e6a8c0d2f4b6e8a0c1d";

	static final String PARTNER_KEY = "partner-0f2e4d6c8b1a3f5e7d9c2b4a6f8e1d3c";

	static final String BATCH_KEY = "batch-7e3c1a9f5d2b4c6e8a0f3d5b7c9e1a2f";

	private static final JsonMapper JSON = JsonMapper.builder().build();

	private static ConfigurableApplicationContext server;

	private static String base;

	private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

	@BeforeAll
	static void startServer() {
		server = new SpringApplicationBuilder(LockServerApplication.class).run("--server.port=0",
				"--management.server.port=0", "--lock.store=memory", "--lock.server.clients[0].name=mobile-app",
				"--lock.server.clients[0].namespace=mobile",
				"--lock.server.clients[0].api-key-sha256=" + LockServers.sha256(MOBILE_KEY),
				"--lock.server.clients[1].name=partner", "--lock.server.clients[1].namespace=partner",
				"--lock.server.clients[1].api-key-sha256=" + LockServers.sha256(PARTNER_KEY),
				"--lock.server.clients[2].name=batch", "--lock.server.clients[2].namespace=batch",
				"--lock.server.clients[2].api-key-sha256=" + LockServers.sha256(BATCH_KEY),
				"--lock.server.clients[2].max-locks=3");
		base = "http://127.0.0.1:" + server.getEnvironment().getProperty("local.server.port");
	}

	@AfterAll
	static void stopServer() {
		server.close();
	}

	@Test
	void waitsOfOneApiKeyDoNotDelayAnotherClientsAnswer() throws Exception {
		String key = "held-" + UUID.randomUUID();
		HttpResponse<String> held = send(post("mobile", key, MOBILE_KEY, "{\"ttlMillis\":60000}"));
		assertThat(held.statusCode()).isEqualTo(201);
		List<CompletableFuture<HttpResponse<String>>> waits = new ArrayList<>();
		for (int i = 0; i < 250; i++) {
			waits.add(this.http.sendAsync(post("mobile", key, MOBILE_KEY, "{\"waitMillis\":15000}").build(),
					HttpResponse.BodyHandlers.ofString()));
		}
		awaitRefusals(waits, 150);

		// Another client is answered while the waits are parked
		long started = System.nanoTime();
		HttpResponse<String> other = this.http.send(
				post("partner", "other-" + UUID.randomUUID(), PARTNER_KEY, null).timeout(Duration.ofSeconds(2)).build(),
				HttpResponse.BodyHandlers.ofString());
		long tookMillis = (System.nanoTime() - started) / 1_000_000;
		assertThat(other.statusCode()).isEqualTo(201);
		HttpResponse<String> health = this.http.send(
				HttpRequest.newBuilder(URI.create(base + "/readyz")).timeout(Duration.ofSeconds(2)).build(),
				HttpResponse.BodyHandlers.ofString());
		assertThat(health.statusCode()).isEqualTo(200);

		// Every wait beyond the API key's share was refused at once;
		// the others are parked
		List<CompletableFuture<HttpResponse<String>>> refused = waits.stream()
			.filter(CompletableFuture::isDone)
			.toList();
		assertThat(refused).hasSize(150).allSatisfy((wait) -> {
			HttpResponse<String> response = wait.join();
			assertThat(response.statusCode()).as(response.body()).isEqualTo(429);
			assertThat(response.headers().firstValue("Retry-After")).isPresent();
			assertThat(json(response).get("type").asString()).isIn("urn:lockstarter:problem:too-many-waits",
					"urn:lockstarter:problem:rate-limited");
		});
		assertThat(waits.stream().filter((wait) -> !wait.isDone()).count())
			.as("waits still parked after the other client was answered in %d ms", tookMillis)
			.isEqualTo(100);

		// A release hands the lock to one of the waits at once
		send(HttpRequest.newBuilder(lockUri("mobile", key))
			.DELETE()
			.header("Authorization", "Bearer " + MOBILE_KEY)
			.header("Lock-Owner-Token", json(held).get("ownerToken").asString())
			.build());
		CompletableFuture.allOf(waits.toArray(CompletableFuture[]::new)).join();
		Map<Integer, Integer> statuses = new TreeMap<>();
		waits.forEach((wait) -> statuses.merge(wait.join().statusCode(), 1, Integer::sum));
		assertThat(statuses).isEqualTo(Map.of(201, 1, 409, 99, 429, 150));
	}

	/** Wait until {@code count} requests were answered, for at most 10 s. */
	private static void awaitRefusals(List<CompletableFuture<HttpResponse<String>>> waits, int count) {
		await().atMost(Duration.ofSeconds(10))
			.pollInterval(Duration.ofMillis(20))
			.until(() -> waits.stream().filter(CompletableFuture::isDone).count() >= count);
	}

	@Test
	void pathsThatSpringRoutesNeedAnApiKeyAndNeverFail(CapturedOutput output) throws Exception {
		for (String path : List.of("/v1/namespaces;x=y/mobile/locks/k", "/v1/namespace%73/mobile/locks/k",
				"/v1;x/namespaces/mobile/locks/k", "/v1/namespaces/mobile;x=y/locks/k",
				"/v1/namespaces/mobile/locks;x=y/k", "/v1/%6eamespaces/mobile/locks/k", "/v1/namespaces/mobile/locks/k",
				"/v1/namespaces/mobile/locks/", "/v1/namespaces/mobile/", "/v1/anything")) {
			for (String method : List.of("POST", "GET", "DELETE")) {
				HttpResponse<String> response = send(HttpRequest.newBuilder(URI.create(base + path))
					.method(method, HttpRequest.BodyPublishers.noBody())
					.build());
				assertThat(response.statusCode()).as("%s %s without a key", method, path).isEqualTo(401);
				assertThat(response.headers().firstValue("WWW-Authenticate")).isPresent();
			}
		}
		for (String path : List.of("/v1/namespaces;x=y/mobile/locks/k", "/v1/namespace%73/mobile/locks/k",
				"/v1;x/namespaces/mobile/locks/k", "/v1/namespaces/mobile;x=y/locks/k",
				"/v1/namespaces/mobile/locks;x=y/k")) {
			HttpResponse<String> response = send(HttpRequest.newBuilder(URI.create(base + path))
				.POST(HttpRequest.BodyPublishers.noBody())
				.header("Authorization", "Bearer " + MOBILE_KEY)
				.build());
			assertThat(response.statusCode()).as("POST %s with a key", path).isEqualTo(400);
			assertThat(json(response).get("type").asString()).isEqualTo("urn:lockstarter:problem:invalid-lock-request");
		}
		assertThat(output.getAll()).doesNotContain("ERROR");
	}

	@Test
	void malformedHeadersAnswerAClientError(CapturedOutput output) throws Exception {
		String key = "k-" + UUID.randomUUID();
		for (String contentType : List.of(";;;", "application/", "/json", "application/json;;=;")) {
			HttpResponse<String> response = send(HttpRequest.newBuilder(lockUri("mobile", key))
				.POST(HttpRequest.BodyPublishers.ofString("{}"))
				.header("Authorization", "Bearer " + MOBILE_KEY)
				.header("Content-Type", contentType)
				.build());
			assertThat(response.statusCode()).as("Content-Type: %s", contentType).isEqualTo(415);
		}
		HttpResponse<String> accept = send(HttpRequest.newBuilder(lockUri("mobile", key))
			.GET()
			.header("Authorization", "Bearer " + MOBILE_KEY)
			.header("Accept", ";;;")
			.build());
		assertThat(accept.statusCode()).isBetween(400, 499);
		assertThat(send(HttpRequest.newBuilder(lockUri("mobile", key))
			.GET()
			.header("Authorization", "Bearer " + MOBILE_KEY)
			.build()).body()).contains("\"held\":false");
		assertThat(output.getAll()).doesNotContain("ERROR");
	}

	@Test
	void anUnauthenticatedCallerReadsNoNamespaceName() throws Exception {
		send(post("mobile", "k-" + UUID.randomUUID(), MOBILE_KEY, null));
		for (String path : List.of("/actuator/metrics/lock.acquisitions", "/actuator/prometheus", "/actuator/metrics",
				"/actuator/health", "/actuator", "/readyz", "/livez", "/v1/openapi.yaml")) {
			HttpResponse<String> response = send(HttpRequest.newBuilder(URI.create(base + path)).build());
			assertThat(response.body()).as(path).doesNotContain("mobile").doesNotContain("partner");
			assertThat(response.statusCode()).as(path).isIn(200, 401, 404);
		}
		// A namespace that exists and one that does not are refused alike
		HttpResponse<String> existing = send(HttpRequest.newBuilder(lockUri("partner", "k")).build());
		HttpResponse<String> missing = send(HttpRequest.newBuilder(lockUri("nothing", "k")).build());
		assertThat(existing.statusCode()).isEqualTo(missing.statusCode()).isEqualTo(401);
		assertThat(existing.body().replace("partner", "nothing")).isEqualTo(missing.body());
		// Metrics, with the namespaces in their tags,
		// are on the management port, on loopback
		String management = server.getEnvironment().getProperty("local.management.port");
		assertThat(server.getEnvironment().getProperty("management.server.address")).isEqualTo("127.0.0.1");
		HttpResponse<String> metrics = send(HttpRequest
			.newBuilder(URI.create("http://127.0.0.1:" + management + "/actuator/metrics/lock.acquisitions"))
			.build());
		assertThat(metrics.body()).contains("lock-server.mobile");
	}

	@Test
	void aClientMayHoldNoMoreLocksThanItsQuota() throws Exception {
		List<HttpResponse<String>> held = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			held.add(send(post("batch", "quota-" + UUID.randomUUID(), BATCH_KEY, null)));
		}
		assertThat(held).allSatisfy((response) -> assertThat(response.statusCode()).isEqualTo(201));
		HttpResponse<String> over = send(post("batch", "quota-" + UUID.randomUUID(), BATCH_KEY, null));
		assertThat(over.statusCode()).isEqualTo(429);
		assertThat(json(over).get("type").asString()).isEqualTo("urn:lockstarter:problem:lock-quota");
		assertThat(over.headers().firstValue("Retry-After")).isPresent();
		// A release gives the place back
		JsonNode first = json(held.get(0));
		assertThat(send(HttpRequest.newBuilder(lockUri("batch", first.get("key").asString()))
			.DELETE()
			.header("Authorization", "Bearer " + BATCH_KEY)
			.header("Lock-Owner-Token", first.get("ownerToken").asString())
			.build()).statusCode()).isEqualTo(204);
		assertThat(send(post("batch", "quota-" + UUID.randomUUID(), BATCH_KEY, null)).statusCode()).isEqualTo(201);
	}

	private HttpRequest.Builder post(String namespace, String key, String apiKey, String body) {
		HttpRequest.Builder request = HttpRequest.newBuilder(lockUri(namespace, key))
			.timeout(Duration.ofSeconds(60))
			.header("Authorization", "Bearer " + apiKey);
		if (body == null) {
			return request.POST(HttpRequest.BodyPublishers.noBody());
		}
		return request.header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body));
	}

	private static URI lockUri(String namespace, String key) {
		return URI.create(base + "/v1/namespaces/" + namespace + "/locks/" + key);
	}

	private HttpResponse<String> send(HttpRequest.Builder request) throws IOException, InterruptedException {
		return send(request.build());
	}

	private HttpResponse<String> send(HttpRequest request) throws IOException, InterruptedException {
		return this.http.send(request, HttpResponse.BodyHandlers.ofString());
	}

	private static JsonNode json(HttpResponse<String> response) {
		return JSON.readTree(response.body());
	}

}
