package com.example.greetings;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.lockstarter.test.redis.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The application as a user runs it: the starter's default store (Redis, here a real
 * {@code redis-server} from the test kit) and its problem responses, over HTTP.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class GreetingControllerTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(30);

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@DynamicPropertySource
	static void redisProperties(DynamicPropertyRegistry registry) {
		registry.add("spring.data.redis.host", redis::host);
		registry.add("spring.data.redis.port", redis::port);
	}

	private final HttpClient client = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();

	@Value("${local.server.port}")
	private int port;

	@Autowired
	private BlockingGreeter greeter;

	@Test
	void secondCallForTheSameUserNameWhileTheFirstHoldsTheLockGetsAConflict() throws Exception {
		CompletableFuture<HttpResponse<String>> first = this.client.sendAsync(greeting("ada"), BodyHandlers.ofString());
		HttpResponse<String> second;
		try {
			assertThat(this.greeter.entered.await(TIMEOUT.toSeconds(), TimeUnit.SECONDS))
				.as("the first call runs the locked method")
				.isTrue();
			assertThat(redis.server().command("KEYS", "lock:*"))
				.as("the lock held in Redis, the starter's default store (from lock-store-redis)")
				.contains("ada");
			second = this.client.send(greeting("ada"), BodyHandlers.ofString());
		}
		finally {
			this.greeter.release.countDown();
		}
		assertThat(second.statusCode())
			.as("the second call while the first holds the lock, answered by lock-web: %s", second.body())
			.isEqualTo(409);
		assertThat(second.headers().firstValue("Content-Type")).hasValueSatisfying(
				(contentType) -> assertThat(contentType).startsWith("application/problem+json"));
		assertThat(second.headers().firstValue("Retry-After")).isPresent();
		assertThat(second.body()).contains("\"status\":409");
		HttpResponse<String> firstResponse = first.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
		assertThat(firstResponse.statusCode()).as("the first call: %s", firstResponse.body()).isEqualTo(201);
		assertThat(firstResponse.body()).isEqualTo("Hello, ada");
		assertThat(redis.server().command("KEYS", "lock:*")).as("the lock, released").isEmpty();
	}

	private HttpRequest greeting(String userName) {
		return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.port + "/greetings/" + userName))
			.POST(HttpRequest.BodyPublishers.noBody())
			.timeout(TIMEOUT)
			.build();
	}

	/**
	 * Holds the first call inside the locked method until the test releases it, so that
	 * the two calls overlap for certain.
	 */
	static class BlockingGreeter extends Greeter {

		final CountDownLatch entered = new CountDownLatch(1);

		final CountDownLatch release = new CountDownLatch(1);

		@Override
		public String greet(String userName) {
			this.entered.countDown();
			try {
				if (!this.release.await(TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
					throw new IllegalStateException("Not released");
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException(ex);
			}
			return super.greet(userName);
		}

	}

	@TestConfiguration(proxyBeanMethods = false)
	static class BlockingGreeterConfiguration {

		@Bean
		@Primary
		BlockingGreeter blockingGreeter() {
			return new BlockingGreeter();
		}

	}

}
