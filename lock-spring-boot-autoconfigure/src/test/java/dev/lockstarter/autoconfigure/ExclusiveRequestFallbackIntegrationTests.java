package dev.lockstarter.autoconfigure;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.annotation.ExclusiveRequest;
import dev.lockstarter.core.LockAttempt;
import dev.lockstarter.core.LockOperations;
import dev.lockstarter.store.LockException;
import dev.lockstarter.test.redis.RedisServerExtension;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code fallback} of an {@code @ExclusiveRequest} web endpoint, through real HTTP
 * requests on a real Redis: it answers instead of the 409 while another owner holds the
 * key, and, with {@code fallbackOnStoreFailure}, instead of the 503 while Redis is
 * paused; an endpoint without a fallback answers 409 and 503 in the same situations.
 */
class ExclusiveRequestFallbackIntegrationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	static final AtomicInteger bodies = new AtomicInteger();

	private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

	private ConfigurableApplicationContext context;

	private int port;

	@BeforeEach
	void start() {
		bodies.set(0);
		redis.server().command("FLUSHALL");
		this.context = new SpringApplicationBuilder(ExportApp.class)
			.properties("server.port=0", "spring.main.banner-mode=off", "lock.store=redis",
					"spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port(),
					"spring.data.redis.timeout=1s")
			.run();
		this.port = this.context.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
	}

	@AfterEach
	void close() {
		this.context.close();
	}

	@Test
	void freeKeyRunsTheEndpoint() throws Exception {
		HttpResponse<String> response = post("/exports", "acme");
		assertThat(response.statusCode()).isEqualTo(201);
		assertThat(response.body()).isEqualTo("exported acme");
		assertThat(bodies).hasValue(1);
	}

	@Test
	void heldKeyIsAnsweredByTheFallbackInsteadOfThe409() throws Exception {
		LockOperations locks = this.context.getBean(LockOperations.class);
		LockAttempt exports = locks.tryAcquire("exports:acme", Duration.ofSeconds(30));
		LockAttempt plain = locks.tryAcquire("plain:acme", Duration.ofSeconds(30));
		try {
			assertThat(exports.isAcquired()).isTrue();
			assertThat(plain.isAcquired()).isTrue();
			HttpResponse<String> response = post("/exports", "acme");
			assertThat(response.statusCode()).isEqualTo(202);
			assertThat(response.body()).isEqualTo("queued acme");
			assertThat(response.headers().firstValue("Export-Deferred-By")).hasValue("LockConflictException");
			// The same conflict without a fallback
			assertThat(post("/plain", "acme").statusCode()).isEqualTo(409);
			assertThat(bodies).hasValue(0);
		}
		finally {
			exports.lease().close();
			plain.lease().close();
		}
	}

	@Test
	void pausedRedisIsAnsweredByTheFallbackInsteadOfThe503() throws Exception {
		redis.server().pause();
		try {
			HttpResponse<String> response = post("/exports", "acme");
			assertThat(response.statusCode()).isEqualTo(202);
			assertThat(response.body()).isEqualTo("queued acme");
			assertThat(response.headers().firstValue("Export-Deferred-By")).hasValue("LockStoreException");
			// The same store failure without a fallback
			assertThat(post("/plain", "acme").statusCode()).isEqualTo(503);
			assertThat(bodies).hasValue(0);
		}
		finally {
			redis.server().resume();
		}
	}

	private HttpResponse<String> post(String path, String tenant) throws IOException, InterruptedException {
		HttpRequest request = HttpRequest
			.newBuilder(URI.create("http://127.0.0.1:" + this.port + path + "?tenant=" + tenant))
			.timeout(Duration.ofSeconds(20))
			.POST(HttpRequest.BodyPublishers.noBody())
			.build();
		return this.http.send(request, HttpResponse.BodyHandlers.ofString());
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import(ExportController.class)
	static class ExportApp {

	}

	@RestController
	static class ExportController {

		@PostMapping("/exports")
		@ExclusiveRequest(name = "exports", key = "#tenant", fallback = "queued", fallbackOnStoreFailure = true)
		public ResponseEntity<String> export(@RequestParam String tenant) {
			bodies.incrementAndGet();
			return ResponseEntity.status(HttpStatus.CREATED).body("exported " + tenant);
		}

		ResponseEntity<String> queued(String tenant, LockException failure) {
			return ResponseEntity.accepted()
				.header("Export-Deferred-By", failure.getClass().getSimpleName())
				.body("queued " + tenant);
		}

		@PostMapping("/plain")
		@ExclusiveRequest(name = "plain", key = "#tenant")
		public ResponseEntity<String> plain(@RequestParam String tenant) {
			bodies.incrementAndGet();
			return ResponseEntity.status(HttpStatus.CREATED).body("exported " + tenant);
		}

	}

}
