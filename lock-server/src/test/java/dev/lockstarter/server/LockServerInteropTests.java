package dev.lockstarter.server;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.core.LockConflictException;
import dev.lockstarter.interop.OrderApplication;
import dev.lockstarter.interop.OrderService;
import dev.lockstarter.server.LockApi.Response;
import dev.lockstarter.test.redis.RedisServerExtension;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import static dev.lockstarter.server.LockServers.SHARED_KEY;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The lock server and a JVM application on one Redis: an HTTP client and an
 * {@code @ExclusiveRequest} method exclude each other on one key when the namespace's key
 * prefix is the application's; and a Redis that stops answering gives a 503 in seconds,
 * not a hung request.
 */
class LockServerInteropTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private static LockServers servers;

	private static ConfigurableApplicationContext application;

	private final LockApi api = new LockApi(new OpenApiContract());

	@BeforeAll
	static void start() {
		servers = LockServers.onRedis(1, redis.port());
		application = new SpringApplicationBuilder(OrderApplication.class).web(WebApplicationType.NONE)
			.run("--lock.store=redis", "--spring.data.redis.host=127.0.0.1", "--spring.data.redis.port=" + redis.port(),
					"--lock.ttl=30s");
	}

	@AfterAll
	static void stop() {
		application.close();
		servers.close();
	}

	@Test
	void anHttpClientAndAnExclusiveRequestMethodExcludeEachOther() throws Exception {
		OrderService orders = application.getBean(OrderService.class);
		String url = servers.url(0);
		Response acquired = this.api.send("POST", url, "shared", "orders:42", SHARED_KEY, null, null);
		assertThat(acquired.status()).isEqualTo(201);
		assertThatExceptionOfType(LockConflictException.class).isThrownBy(() -> orders.place("42"));
		assertThat(this.api.send("DELETE", url, "shared", "orders:42", SHARED_KEY, acquired.text("ownerToken"), null)
			.status()).isEqualTo(204);

		orders.reset();
		CompletableFuture<String> placing = CompletableFuture.supplyAsync(() -> {
			try {
				return orders.place("42");
			}
			catch (InterruptedException ex) {
				throw new IllegalStateException(ex);
			}
		});
		assertThat(orders.awaitRunning()).isTrue();
		Response whileRunning = this.api.send("POST", url, "shared", "orders:42", SHARED_KEY, null, null);
		assertThat(whileRunning.status()).isEqualTo(409);
		assertThat(
				this.api.send("GET", url, "shared", "orders:42", SHARED_KEY, null, null).number("timeToExpiryMillis"))
			.isPositive();
		// A waiting HTTP client gets the lock as soon as the method returns
		CompletableFuture<Response> waiting = CompletableFuture.supplyAsync(
				() -> this.api.send("POST", url, "shared", "orders:42", SHARED_KEY, null, "{\"waitMillis\":10000}"));
		WaitLimiter waits = servers.context(0).getBean(WaitLimiter.class);
		await("the HTTP acquisition waiting").atMost(Duration.ofSeconds(5))
			.pollInterval(Duration.ofMillis(10))
			.until(() -> waits.waiting() == 1);
		assertThat(waiting).isNotDone();
		orders.finish();
		assertThat(placing.get(10, TimeUnit.SECONDS)).isEqualTo("placed 42");
		Response after = waiting.get(10, TimeUnit.SECONDS);
		assertThat(after.status()).isEqualTo(201);
		assertThat(this.api.send("DELETE", url, "shared", "orders:42", SHARED_KEY, after.text("ownerToken"), null)
			.status()).isEqualTo(204);
	}

	@Test
	void aStoreThatStopsAnsweringGivesServiceUnavailableInSeconds() {
		String url = servers.url(0);
		redis.server().pause();
		try {
			long startedAt = System.nanoTime();
			Response acquire = this.api.send("POST", url, "shared", "paused", SHARED_KEY, null, null);
			Duration took = Duration.ofNanos(System.nanoTime() - startedAt);
			assertThat(acquire.status()).isEqualTo(503);
			assertThat(acquire.header("Retry-After")).isEqualTo("1");
			assertThat(took).isLessThan(Duration.ofSeconds(5));
			assertThat(this.api.send("GET", url, "shared", "paused", SHARED_KEY, null, null).status()).isEqualTo(503);
		}
		finally {
			redis.server().resume();
		}
		Response acquired = this.api.send("POST", url, "shared", "paused-after", SHARED_KEY, null, null);
		assertThat(acquired.status()).isEqualTo(201);
		assertThat(this.api.send("DELETE", url, "shared", "paused-after", SHARED_KEY, acquired.text("ownerToken"), null)
			.status()).isEqualTo(204);
	}

}
