package dev.lockstarter.autoconfigure;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.annotation.ExclusiveRequest;
import dev.lockstarter.core.LockOperations;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.test.redis.RedisServerExtension;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What an instance's shutdown does to its locks, on a real Tomcat and a real Redis that
 * outlives it: with graceful shutdown, a request in flight finishes and releases its lock
 * before the lock template stops; a lock still held when the template stops is neither
 * released nor renewed any more, is named in a WARN, and expires with its time-to-live.
 */
@ExtendWith(OutputCaptureExtension.class)
class GracefulShutdownIntegrationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	static volatile CountDownLatch entered = new CountDownLatch(1);

	static volatile CountDownLatch proceed = new CountDownLatch(1);

	private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

	@Test
	void aRequestInFlightFinishesAndReleasesItsLockDuringGracefulShutdown() throws Exception {
		entered = new CountDownLatch(1);
		proceed = new CountDownLatch(1);
		ConfigurableApplicationContext context = start("server.shutdown=graceful");
		String user = "user-" + UUID.randomUUID();
		int port = context.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
		CompletableFuture<HttpResponse<String>> inFlight = this.http.sendAsync(
				HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/registrations?userName=" + user))
					.POST(HttpRequest.BodyPublishers.noBody())
					.build(),
				HttpResponse.BodyHandlers.ofString());
		assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
		String key = redisKey(RegistrationController.NAME + ":" + user);
		assertThat(pttl(key)).as("held while the request runs").isPositive();

		CompletableFuture<Void> closed = CompletableFuture.runAsync(context::close);
		await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2)).until(() -> !closed.isDone());
		proceed.countDown();
		closed.get(30, TimeUnit.SECONDS);

		assertThat(inFlight.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(201);
		assertThat(pttl(key)).as("released by the request, not left to expire").isEqualTo(-2);
	}

	@Test
	void aLockStillHeldWhenTheTemplateStopsIsNamedAndExpiresWithItsTimeToLive(CapturedOutput output) {
		ConfigurableApplicationContext context = start();
		String key = "job-" + UUID.randomUUID();
		assertThat(context.getBean(LockOperations.class)
			.tryAcquire(key, LockOptions.ttl(Duration.ofSeconds(2)).withName("nightly-report"))
			.isAcquired()).isTrue();

		context.close();

		assertThat(output).contains("1 lock(s) still held when the lock template was destroyed are no longer "
				+ "renewed and expire within their time-to-live: 'nightly-report'");
		long left = pttl(redisKey(key));
		assertThat(left).as("not released at shutdown").isPositive().isLessThanOrEqualTo(2000);
		await().atMost(Duration.ofSeconds(5)).until(() -> pttl(redisKey(key)) == -2);
	}

	/** The Redis key of a lock, its key in a hash tag after the prefix. */
	private static String redisKey(String key) {
		return "lock:{" + key + "}";
	}

	private static long pttl(String key) {
		String reply = redis.server().command("PTTL", key);
		return Long.parseLong(reply);
	}

	private static ConfigurableApplicationContext start(String... properties) {
		return new SpringApplicationBuilder(App.class)
			.properties("server.port=0", "spring.main.banner-mode=off", "lock.store=redis",
					"spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.port(), "lock.ttl=10s")
			.properties(properties)
			.run();
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import(RegistrationController.class)
	static class App {

	}

	@RestController
	static class RegistrationController {

		static final String NAME = "shutdown-registration";

		@PostMapping("/registrations")
		@ExclusiveRequest(name = NAME, key = "#userName")
		public ResponseEntity<String> register(@RequestParam String userName) throws InterruptedException {
			entered.countDown();
			proceed.await(20, TimeUnit.SECONDS);
			return ResponseEntity.status(201).body("registered");
		}

	}

}
