package dev.lockstarter.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.lockstarter.annotation.ExclusiveRequest;
import dev.lockstarter.core.LockAttempt;
import dev.lockstarter.core.LockConflictException;
import dev.lockstarter.core.LockOperations;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.store.LockStoreException;
import dev.lockstarter.test.contract.ExclusionChecker;
import dev.lockstarter.test.redis.RedisServer;
import dev.lockstarter.test.redis.RedisTls;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * {@code @ExclusiveRequest} against a Redis server that accepts TLS connections only, set
 * up with Spring Boot's own settings: {@code spring.data.redis.ssl.bundle} and a PEM SSL
 * bundle that trusts the server's self-signed certificate.
 */
class RedisTlsIntegrationTests {

	private final ExecutorService executor = Executors.newCachedThreadPool();

	private static RedisTls tls;

	private static RedisServer redis;

	private final List<ConfigurableApplicationContext> contexts = new ArrayList<>();

	@BeforeAll
	static void startServer() {
		tls = RedisTls.generate();
		redis = RedisServer.startWithTls(tls);
	}

	@AfterAll
	static void stopServer() {
		if (redis != null) {
			redis.close();
		}
		if (tls != null) {
			tls.close();
		}
	}

	@AfterEach
	void closeContexts() {
		this.executor.shutdownNow();
		this.contexts.forEach(ConfigurableApplicationContext::close);
		TlsService.runs.set(0);
	}

	@Test
	void annotatedMethodIsLockedThroughTls() throws Exception {
		ConfigurableApplicationContext context = start("spring.data.redis.ssl.enabled=true",
				"spring.data.redis.ssl.bundle=redis",
				"spring.ssl.bundle.pem.redis.truststore.certificate=file:" + tls.certificate());
		TlsService service = context.getBean(TlsService.class);
		TlsService.entered = new CountDownLatch(1);
		TlsService.release = new CountDownLatch(1);
		CompletableFuture<Void> holder = CompletableFuture.runAsync(() -> service.register("alice"), this.executor);
		assertThat(TlsService.entered.await(10, TimeUnit.SECONDS)).isTrue();
		assertThat(StoredLocks.isHeld(redis, "lock:TlsService.register:alice")).isTrue();
		assertThatExceptionOfType(LockConflictException.class).isThrownBy(() -> service.register("alice"));
		TlsService.release.countDown();
		holder.get(10, TimeUnit.SECONDS);
		assertThat(TlsService.runs).hasValue(1);
		assertThat(StoredLocks.isHeld(redis, "lock:TlsService.register:alice")).isFalse();
	}

	@Test
	void waitersAreNotifiedAndLocksExcludeThroughTls() throws Exception {
		ConfigurableApplicationContext context = start("spring.data.redis.ssl.bundle=redis",
				"spring.ssl.bundle.pem.redis.truststore.certificate=file:" + tls.certificate());
		LockOperations locks = context.getBean(LockOperations.class);
		String key = "tls-" + UUID.randomUUID();
		var holder = locks.acquire(key, Duration.ofSeconds(30));
		CompletableFuture<LockAttempt> waiter = CompletableFuture
			.supplyAsync(
					() -> locks.tryAcquire(key,
							LockOptions.ttl(Duration.ofSeconds(30)).withWaitTime(Duration.ofSeconds(20))),
					this.executor);
		await().atMost(Duration.ofSeconds(10))
			.pollInterval(Duration.ofMillis(10))
			.untilAsserted(() -> assertThat(StoredLocks.subscribedChannels(redis)).isNotEmpty());
		holder.release();
		LockAttempt attempt = waiter.get(20, TimeUnit.SECONDS);
		assertThat(attempt.isAcquired()).isTrue();
		attempt.lease().release();
		String prefix = "tls-exclusion-" + UUID.randomUUID() + ":";
		ExclusionChecker.Result result = new ExclusionChecker().threads(4)
			.attemptsPerThread(50)
			.holdTime(Duration.ofMillis(2))
			.check(List.of(prefix + "a", prefix + "b"), (lockKey) -> {
				LockAttempt taken = locks.tryAcquire(lockKey, Duration.ofSeconds(30));
				return taken.isAcquired() ? taken.lease()::release : null;
			});
		assertThat(result.isExclusive()).as(result.toString()).isTrue();
		assertThat(result.acquisitions()).isPositive();
	}

	/**
	 * Without TLS, or with TLS but the JVM's default trust store (which does not trust
	 * the self-signed certificate), the lock cannot be taken and the method does not run.
	 */
	@ParameterizedTest
	@ValueSource(strings = { "spring.data.redis.ssl.enabled=false", "spring.data.redis.ssl.enabled=true" })
	void withoutTheTrustedCertificateTheMethodDoesNotRun(String ssl) {
		ConfigurableApplicationContext context = start(ssl);
		TlsService service = context.getBean(TlsService.class);
		assertThatExceptionOfType(LockStoreException.class).isThrownBy(() -> service.register("bob"));
		assertThat(TlsService.runs).hasValue(0);
	}

	private ConfigurableApplicationContext start(String... properties) {
		ConfigurableApplicationContext context = new SpringApplicationBuilder(TlsApp.class).web(WebApplicationType.NONE)
			.properties("spring.main.banner-mode=off", "lock.store=redis", "spring.data.redis.host=" + redis.host(),
					"spring.data.redis.port=" + redis.port(), "spring.data.redis.timeout=2s",
					"spring.data.redis.connect-timeout=2s")
			.properties(properties)
			.run();
		this.contexts.add(context);
		return context;
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import(TlsService.class)
	static class TlsApp {

	}

	static class TlsService {

		static final AtomicInteger runs = new AtomicInteger();

		static volatile CountDownLatch entered = new CountDownLatch(0);

		static volatile CountDownLatch release = new CountDownLatch(0);

		@ExclusiveRequest(key = "#userName")
		public void register(String userName) {
			runs.incrementAndGet();
			entered.countDown();
			try {
				release.await(10, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}

	}

}
