package dev.lockstarter.autoconfigure;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.annotation.ExclusiveRequest;
import dev.lockstarter.core.LockConflictException;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.redis.RedisLockStore;
import dev.lockstarter.test.redis.RedisCluster;
import dev.lockstarter.test.redis.RedisClusterExtension;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@code @ExclusiveRequest} on a real Redis Cluster of three masters, configured with
 * Spring Boot's {@code spring.data.redis.cluster.nodes} and nothing else.
 */
class RedisClusterIntegrationTests {

	@RegisterExtension
	static final RedisClusterExtension cluster = new RedisClusterExtension();

	@Test
	void exclusiveRequestHoldsOneLockWhoseKeysShareAHashSlot() throws Exception {
		ExecutorService executor = Executors.newSingleThreadExecutor();
		try (ConfigurableApplicationContext context = start()) {
			assertThat(context.getBean(LockStore.class)).isInstanceOf(RedisLockStore.class);
			Registrations registrations = context.getBean(Registrations.class);
			RedisCluster redis = cluster.server();
			String redisKey = "lock:{Registrations.register:alice}";
			Registrations.entered = new CountDownLatch(1);
			Registrations.proceed = new CountDownLatch(1);
			Future<String> first = executor.submit(() -> registrations.register("alice"));
			assertThat(Registrations.entered.await(10, TimeUnit.SECONDS)).isTrue();
			assertThat(redis.command(redisKey, "EXISTS", redisKey)).isEqualTo("1");
			assertThat(redis.command(redisKey, "EXISTS", redisKey + ":fence")).as("no fencing token read, none drawn")
				.isEqualTo("0");
			assertThat(redis.keySlot(redisKey + ":fence")).isEqualTo(redis.keySlot(redisKey));
			assertThat(redis.keySlot(redisKey + ":result")).isEqualTo(redis.keySlot(redisKey));
			assertThatExceptionOfType(LockConflictException.class).isThrownBy(() -> registrations.register("alice"))
				.satisfies((ex) -> assertThat(ex.getRetryAfter()).isPositive());
			assertThat(registrations.register("bob")).as("another key, likely on another node")
				.isEqualTo("registered bob");
			Registrations.proceed.countDown();
			assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo("registered alice");
			assertThat(redis.command(redisKey, "EXISTS", redisKey)).isEqualTo("0");
			assertThat(Registrations.bodies).hasValue(2);
		}
		finally {
			executor.shutdownNow();
		}
	}

	@Test
	void waitingForReplicaAcknowledgementsOnAClusterFailsAtStartup() {
		assertThatException().isThrownBy(() -> start("lock.redis.min-replica-acks=1").close())
			.havingRootCause()
			.isInstanceOf(InvalidConfigurationPropertyValueException.class)
			.withMessageContaining("lock.redis.min-replica-acks")
			.withMessageContaining("not supported on Redis Cluster");
	}

	private static ConfigurableApplicationContext start(String... properties) {
		return new SpringApplicationBuilder(App.class).web(WebApplicationType.NONE)
			.properties("spring.main.banner-mode=off", "lock.store=redis",
					"spring.data.redis.cluster.nodes=" + String.join(",", cluster.nodeAddresses()),
					"spring.data.redis.timeout=5s")
			.properties(properties)
			.run();
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
			if (userName.equals("alice")) {
				entered.countDown();
				proceed.await(10, TimeUnit.SECONDS);
			}
			return "registered " + userName;
		}

	}

}
