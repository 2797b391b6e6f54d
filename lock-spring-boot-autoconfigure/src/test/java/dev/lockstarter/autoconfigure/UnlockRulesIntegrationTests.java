package dev.lockstarter.autoconfigure;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.annotation.ExclusiveRequest;
import dev.lockstarter.core.LockConflictException;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.test.redis.RedisServerExtension;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The unlock rules of a guarded method, against a real Redis: not acquired, the body does
 * not run and nothing is released; the body throws, the lock is released and the
 * exception propagates unchanged; the body returns, the lock is released.
 */
class UnlockRulesIntegrationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private static final String KEY = "lock:Registrations.register:alice";

	/**
	 * The Redis key of {@link #KEY}: the part after the prefix is a Redis Cluster hash
	 * tag.
	 */
	private static final String REDIS_KEY = "lock:{Registrations.register:alice}";

	private ConfigurableApplicationContext context;

	private Registrations registrations;

	private LockStore store;

	@BeforeEach
	void start() {
		redis.server().command("FLUSHALL");
		Registrations.bodies.set(0);
		Registrations.heldWhileRunning = false;
		this.context = new SpringApplicationBuilder(App.class).web(WebApplicationType.NONE)
			.properties("spring.main.banner-mode=off", "lock.store=redis", "spring.data.redis.port=" + redis.port(),
					"spring.data.redis.host=" + redis.host(), "spring.data.redis.timeout=2s")
			.run();
		this.registrations = this.context.getBean(Registrations.class);
		this.store = this.context.getBean(LockStore.class);
	}

	@AfterEach
	void stop() {
		this.context.close();
	}

	@Test
	void notAcquiredMeansTheBodyDoesNotRunAndTheHolderKeepsItsLock() {
		assertThat(this.store.tryAcquire(KEY, "other-owner", Duration.ofSeconds(20)).isAcquired()).isTrue();
		assertThatExceptionOfType(LockConflictException.class)
			.isThrownBy(() -> this.registrations.register("alice", null))
			.satisfies((ex) -> {
				assertThat(ex.getLockName()).isEqualTo("Registrations.register");
				assertThat(ex.getRetryAfter()).isGreaterThan(Duration.ofSeconds(18));
			});
		assertThat(Registrations.bodies).hasValue(0);
		assertThat(redis.server().command("GET", REDIS_KEY)).isEqualTo("other-owner");
		assertThat(Long.parseLong(redis.server().command("PTTL", REDIS_KEY))).isGreaterThan(18_000);
	}

	@Test
	void bodyThatThrowsReleasesTheLockAndTheExceptionPropagatesUnchanged() {
		IllegalStateException failure = new IllegalStateException("points service down");
		assertThatExceptionOfType(IllegalStateException.class)
			.isThrownBy(() -> this.registrations.register("alice", failure))
			.isSameAs(failure);
		assertThat(Registrations.bodies).hasValue(1);
		assertThat(Registrations.heldWhileRunning).isTrue();
		assertThat(redis.server().command("EXISTS", REDIS_KEY)).isEqualTo("0");
	}

	@Test
	void bodyThatReturnsReleasesTheLock() {
		assertThat(this.registrations.register("alice", null)).isEqualTo("registered alice");
		assertThat(Registrations.heldWhileRunning).isTrue();
		assertThat(redis.server().command("EXISTS", REDIS_KEY)).isEqualTo("0");
		assertThat(this.registrations.register("alice", null)).isEqualTo("registered alice");
		assertThat(Registrations.bodies).hasValue(2);
	}

	@Test
	void completionStageKeepsTheLockUntilItCompletes() {
		CompletableFuture<String> pending = new CompletableFuture<>();
		CompletableFuture<String> result = this.registrations.registerLater("alice", pending);
		assertThat(result).isSameAs(pending);
		assertThat(redis.server().command("EXISTS", "lock:{Registrations.registerLater:alice}")).isEqualTo("1");
		assertThatExceptionOfType(LockConflictException.class)
			.isThrownBy(() -> this.registrations.registerLater("alice", new CompletableFuture<>()));
		pending.complete("done");
		assertThat(redis.server().command("EXISTS", "lock:{Registrations.registerLater:alice}")).isEqualTo("0");
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import(Registrations.class)
	static class App {

	}

	static class Registrations {

		// Static: the test calls through a class-based proxy,
		// whose own fields are never used.
		static final AtomicInteger bodies = new AtomicInteger();

		static volatile boolean heldWhileRunning;

		@ExclusiveRequest(key = "#userName")
		public String register(String userName, RuntimeException failure) {
			bodies.incrementAndGet();
			heldWhileRunning = "1".equals(redis.server().command("EXISTS", REDIS_KEY));
			if (failure != null) {
				throw failure;
			}
			return "registered " + userName;
		}

		@ExclusiveRequest(key = "#userName")
		public CompletableFuture<String> registerLater(String userName, CompletableFuture<String> result) {
			return result;
		}

	}

}
