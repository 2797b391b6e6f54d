package dev.lockstarter.autoconfigure.reactive;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import dev.lockstarter.idempotency.IdempotentRequest;
import dev.lockstarter.test.redis.RedisServerExtension;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * The response that {@code IdempotentRequestWebFilter} keeps for replays is bounded by
 * {@code lock.idempotency.max-response-size}: on Reactor Netty and a real Redis, a body
 * past the bound streams to the client and is not kept.
 */
@ExtendWith(OutputCaptureExtension.class)
class WebFluxIdempotentResponseBoundIntegrationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private static final int CHUNK = 8192;

	private static final int FIVE_MEGABYTES = 5 * 1024 * 1024;

	static final AtomicInteger runs = new AtomicInteger();

	static volatile CompletableFuture<Void> clientSawTheFirstChunks = new CompletableFuture<>();

	private static ConfigurableApplicationContext context;

	private static int port;

	private final HttpClient http = HttpClient.newBuilder()
		.version(HttpClient.Version.HTTP_1_1)
		.connectTimeout(Duration.ofSeconds(5))
		.build();

	@BeforeAll
	static void start() {
		context = new SpringApplicationBuilder(ReportsApp.class).web(WebApplicationType.REACTIVE)
			.properties("server.port=0", "spring.main.banner-mode=off", "lock.store=redis",
					"spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.port(),
					"spring.data.redis.timeout=1s", "lock.idempotency.max-response-size=1KB")
			.run();
		port = context.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
	}

	@AfterAll
	static void close() {
		context.close();
	}

	@BeforeEach
	void reset() {
		runs.set(0);
		clientSawTheFirstChunks = new CompletableFuture<>();
	}

	@Test
	void responseWithinTheBoundIsKeptAndReplayed() throws Exception {
		String key = UUID.randomUUID().toString();
		HttpResponse<String> original = send(request("/reports?size=1000", key));
		HttpResponse<String> retry = send(request("/reports?size=1000", key));
		assertThat(original.body()).hasSize(1000);
		assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
		assertThat(retry.body()).isEqualTo(original.body());
		assertThat(runs).hasValue(1);
	}

	@Test
	void responseOverTheBoundIsSentInFullButNotKeptSoARetryRunsAgain(CapturedOutput output) throws Exception {
		String key = UUID.randomUUID().toString();
		HttpResponse<String> original = send(request("/reports?size=3000", key));
		HttpResponse<String> retry = send(request("/reports?size=3000", key));
		assertThat(original.statusCode()).isEqualTo(200);
		assertThat(original.body()).hasSize(3000).matches("r+");
		assertThat(retry.statusCode()).isEqualTo(200);
		assertThat(retry.headers().firstValue("Idempotent-Replayed")).isEmpty();
		assertThat(retry.body()).hasSize(3000);
		assertThat(runs).hasValue(2);
		assertThat(output).contains("WARN")
			.contains("ReportsController.report")
			.contains("3000 bytes")
			.contains("lock.idempotency.max-response-size")
			.doesNotContain("rrrrrrrr");
	}

	@Test
	void fiveMegabyteResponseOverTheBoundReachesTheClientWhileTheHandlerIsStillProducingIt() throws Exception {
		String key = UUID.randomUUID().toString();
		CompletableFuture<HttpResponse<InputStream>> pending = this.http.sendAsync(
				request("/streamed-reports?size=" + FIVE_MEGABYTES, key), HttpResponse.BodyHandlers.ofInputStream());
		HttpResponse<InputStream> response;
		try {
			response = pending.get(5, TimeUnit.SECONDS);
		}
		catch (TimeoutException ex) {
			fail("No response while the handler waits for the client to see its first chunks: the response is held");
			return;
		}
		try (InputStream body = response.body()) {
			byte[] first = body.readNBytes(2 * CHUNK);
			assertThat(first).hasSize(2 * CHUNK);
			clientSawTheFirstChunks.complete(null);
			long rest = body.transferTo(OutputStream.nullOutputStream());
			assertThat(first.length + rest).isEqualTo(FIVE_MEGABYTES);
		}
		assertThat(response.statusCode()).isEqualTo(200);
		HttpResponse<String> retry = send(request("/reports?size=10", key));
		assertThat(retry.headers().firstValue("Idempotent-Replayed")).isEmpty();
		assertThat(runs).hasValue(2);
	}

	private HttpRequest request(String path, String key) {
		return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
			.timeout(Duration.ofSeconds(20))
			.header("Idempotency-Key", key)
			.POST(HttpRequest.BodyPublishers.noBody())
			.build();
	}

	private HttpResponse<String> send(HttpRequest request) throws IOException, InterruptedException {
		return this.http.send(request, HttpResponse.BodyHandlers.ofString());
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import(ReportsApp.ReportsController.class)
	static class ReportsApp {

		@RestController
		static class ReportsController {

			@PostMapping(path = "/reports", produces = "text/plain")
			@IdempotentRequest
			Mono<String> report(@RequestParam int size) {
				return Mono.fromSupplier(() -> {
					runs.incrementAndGet();
					return "r".repeat(size);
				});
			}

			/**
			 * Two 8 KB chunks, past the bound, then, once the client has seen them, the
			 * rest of {@code size} bytes.
			 */
			@PostMapping(path = "/streamed-reports", produces = "text/plain")
			@IdempotentRequest
			Flux<String> streamedReport(@RequestParam int size) {
				String chunk = "s".repeat(CHUNK);
				return Flux.defer(() -> {
					runs.incrementAndGet();
					Flux<String> rest = Flux.range(0, size / CHUNK - 2).map((i) -> chunk);
					return Flux.just(chunk, chunk)
						.concatWith(Mono.fromFuture(clientSawTheFirstChunks)
							.timeout(Duration.ofSeconds(10))
							.thenMany(rest));
				});
			}

		}

	}

}
