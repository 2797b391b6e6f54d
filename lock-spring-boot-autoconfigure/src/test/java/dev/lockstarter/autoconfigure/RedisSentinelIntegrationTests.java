package dev.lockstarter.autoconfigure;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.lockstarter.annotation.ExclusiveRequest;
import dev.lockstarter.core.LockConflictException;
import dev.lockstarter.store.LockStoreException;
import dev.lockstarter.test.redis.RedisSentinel;
import dev.lockstarter.test.redis.RedisServer;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@code @ExclusiveRequest} behind Redis Sentinel, configured with Spring Boot's
 * {@code spring.data.redis.sentinel.*}, with {@code lock.redis.min-replica-acks=1}: an
 * acquisition the replica acknowledges runs the method, one it does not fails without
 * running it and leaves no lock.
 */
class RedisSentinelIntegrationTests {

	private static RedisSentinel sentinel;

	@BeforeAll
	static void startSentinel() {
		sentinel = RedisSentinel.start();
	}

	@AfterAll
	static void stopSentinel() {
		if (sentinel != null) {
			sentinel.close();
		}
	}

	@Test
	void exclusiveRequestWaitsForTheReplicaToAcknowledgeItsLock() throws Exception {
		ExecutorService executor = Executors.newSingleThreadExecutor();
		try (ConfigurableApplicationContext context = new SpringApplicationBuilder(App.class)
			.web(WebApplicationType.NONE)
			.properties("spring.main.banner-mode=off", "lock.store=redis",
					"spring.data.redis.sentinel.master=" + RedisSentinel.MASTER_NAME,
					"spring.data.redis.sentinel.nodes=" + String.join(",", sentinel.sentinelAddresses()),
					"spring.data.redis.timeout=3s", "lock.redis.min-replica-acks=1",
					"lock.redis.replica-ack-timeout=300ms")
			.run()) {
			Registrations registrations = context.getBean(Registrations.class);
			RedisServer primary = sentinel.primary();
			RedisServer replica = sentinel.replica();
			String redisKey = "lock:{Registrations.register:alice}";
			Registrations.entered = new CountDownLatch(1);
			Registrations.proceed = new CountDownLatch(1);
			Future<String> first = executor.submit(() -> registrations.register("alice"));
			assertThat(Registrations.entered.await(10, TimeUnit.SECONDS)).isTrue();
			// The method runs only once the replica has the lock.
			assertThat(replica.command("EXISTS", redisKey)).isEqualTo("1");
			assertThatExceptionOfType(LockConflictException.class).isThrownBy(() -> registrations.register("alice"));
			Registrations.proceed.countDown();
			assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo("registered alice");
			assertThat(Registrations.bodies).hasValue(1);
			replica.pause();
			try {
				assertThatExceptionOfType(LockStoreException.class).isThrownBy(() -> registrations.register("bob"))
					.withMessageContaining("lock.redis.min-replica-acks");
				assertThat(primary.command("EXISTS", "lock:{Registrations.register:bob}")).isEqualTo("0");
				assertThat(Registrations.bodies).as("method runs").hasValue(1);
			}
			finally {
				replica.resume();
			}
		}
		finally {
			executor.shutdownNow();
		}
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import(Registrations.class)
	static class App {

	}

	static class Registrations {

		static final AtomicInteger bodies = new AtomicInteger();

		static volatile CountDownLatch entered = new CountDownLatch(0);

		static volatile CountDownLatch proceed = new CountDownLatch(0);

		@ExclusiveRequest(key = "#userName", ttl = "30s")
		public String register(String userName) throws InterruptedException {
			bodies.incrementAndGet();
			entered.countDown();
			proceed.await(10, TimeUnit.SECONDS);
			return "registered " + userName;
		}

	}

}
