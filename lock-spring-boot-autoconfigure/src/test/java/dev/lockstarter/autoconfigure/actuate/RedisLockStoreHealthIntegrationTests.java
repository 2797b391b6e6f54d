package dev.lockstarter.autoconfigure.actuate;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.autoconfigure.LockAutoConfiguration;
import dev.lockstarter.core.Lease;
import dev.lockstarter.core.LockOperations;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.store.redis.RedisLockStore;
import dev.lockstarter.test.redis.RedisServerExtension;
import org.springframework.boot.actuate.autoconfigure.endpoint.jackson.JacksonEndpointAutoConfiguration;
import org.springframework.boot.actuate.endpoint.jackson.EndpointJsonMapper;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The Redis lock store health indicator and the locks endpoint's store description
 * against a real Redis server.
 */
class RedisLockStoreHealthIntegrationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, LockAutoConfiguration.class,
				LockStoreHealthContributorAutoConfiguration.class, LocksEndpointAutoConfiguration.class,
				JacksonEndpointAutoConfiguration.class))
		.withPropertyValues("lock.store=redis", "spring.data.redis.host=" + redis.host(),
				"spring.data.redis.port=" + redis.port(), "spring.data.redis.timeout=2s",
				"management.endpoints.web.exposure.include=locks");

	@Test
	void evictingPolicyIsReportedUpWithAWarning() {
		setPolicy("allkeys-lru");
		this.contextRunner.run((context) -> {
			Health health = context.getBean("lockStoreHealthIndicator", HealthIndicator.class).health();
			assertThat(health.getStatus()).isEqualTo(Status.UP);
			assertThat(health.getDetails()).containsEntry("store", "redis")
				.containsEntry("evictionPolicy", "allkeys-lru")
				.hasEntrySatisfying("warning", (warning) -> assertThat((String) warning).contains("may evict lock keys")
					.contains("Set maxmemory-policy to 'noeviction'"));
		});
	}

	@Test
	void releaseNotificationsAreReportedFromIdleToConnected() {
		setPolicy("noeviction");
		this.contextRunner.withPropertyValues("spring.data.redis.timeout=").run((context) -> {
			HealthIndicator indicator = context.getBean("lockStoreHealthIndicator", HealthIndicator.class);
			assertThat(indicator.health().getDetails()).containsEntry("releaseNotifications", "idle");
			LockOperations locks = context.getBean(LockOperations.class);
			try (Lease holder = locks.acquire("health:held", Duration.ofSeconds(10))) {
				assertThat(holder.isHeld()).isTrue();
				assertThat(locks
					.tryAcquire("health:held",
							LockOptions.ttl(Duration.ofSeconds(10)).withWaitTime(Duration.ofMillis(300)))
					.isAcquired()).isFalse();
			}
			await().atMost(Duration.ofSeconds(5))
				.untilAsserted(() -> assertThat(indicator.health().getDetails()).containsEntry("releaseNotifications",
						"connected"));
		});
	}

	@Test
	void pausedRedisGivesAnAnswerWithinTheLockTimeout() {
		setPolicy("noeviction");
		this.contextRunner.withPropertyValues("spring.data.redis.timeout=", "lock.redis.timeout=1s").run((context) -> {
			HealthIndicator indicator = new RedisLockStoreHealthIndicator(context.getBean(RedisLockStore.class),
					context.getBean(RedisConnectionFactory.class), Duration.ZERO);
			assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);
			redis.server().pause();
			try {
				long started = System.nanoTime();
				Health health = indicator.health();
				long millis = Duration.ofNanos(System.nanoTime() - started).toMillis();
				assertThat(health.getStatus()).isEqualTo(Status.UNKNOWN);
				assertThat(health.getDetails()).containsEntry("evictionPolicy", "unknown");
				assertThat(millis).isLessThan(3000);
			}
			finally {
				redis.server().resume();
			}
		});
	}

	@Test
	void noevictionIsReportedUpWithoutWarning() {
		setPolicy("noeviction");
		this.contextRunner.run((context) -> {
			Health health = context.getBean("lockStoreHealthIndicator", HealthIndicator.class).health();
			assertThat(health.getStatus()).isEqualTo(Status.UP);
			assertThat(health.getDetails()).containsEntry("store", "redis")
				.containsEntry("evictionPolicy", "noeviction")
				.doesNotContainKey("warning");
		});
	}

	@Test
	void policyIsReadAgainOnlyOnceTheCacheExpires() {
		setPolicy("noeviction");
		this.contextRunner.run((context) -> {
			RedisConnectionFactory connectionFactory = context.getBean(RedisConnectionFactory.class);
			RedisLockStore store = context.getBean(RedisLockStore.class);
			RedisLockStoreHealthIndicator cached = new RedisLockStoreHealthIndicator(store, connectionFactory);
			RedisLockStoreHealthIndicator uncached = new RedisLockStoreHealthIndicator(store, connectionFactory,
					Duration.ZERO);
			assertThat(cached.health().getDetails()).containsEntry("evictionPolicy", "noeviction");
			setPolicy("volatile-lru");
			assertThat(cached.health().getDetails()).containsEntry("evictionPolicy", "noeviction");
			assertThat(uncached.health().getDetails()).containsEntry("evictionPolicy", "volatile-lru")
				.containsKey("warning");
		});
	}

	@Test
	void userNotPermittedToReadThePolicyIsReportedUnknown() {
		setPolicy("allkeys-lru");
		redis.server()
			.command("ACL", "SETUSER", "locker", "reset", "on", ">secret-password", "~lock:*", "&lock:*", "+evalsha",
					"+eval", "+set", "+get", "+del", "+incr", "+time", "+pexpire", "+pttl", "+append", "+publish",
					"+subscribe", "+ping", "+hello", "+client");
		try {
			this.contextRunner
				.withPropertyValues("spring.data.redis.username=locker", "spring.data.redis.password=secret-password")
				.run((context) -> {
					assertThat(
							context.getBean(LockOperations.class).tryAcquire("acl", Duration.ofSeconds(1)).isAcquired())
						.isTrue();
					Health health = context.getBean("lockStoreHealthIndicator", HealthIndicator.class).health();
					assertThat(health.getStatus()).isEqualTo(Status.UNKNOWN);
					assertThat(health.getDetails()).containsEntry("evictionPolicy", "unknown").containsKey("error");
					String json = context.getBean(EndpointJsonMapper.class)
						.get()
						.writeValueAsString(context.getBean(LocksEndpoint.class).locks());
					assertThat(json).contains("\"kind\":\"redis\"")
						.doesNotContain("secret-password")
						.doesNotContain("locker");
				});
		}
		finally {
			redis.server().command("ACL", "DELUSER", "locker");
		}
	}

	@Test
	void endpointDescribesTheStoreWithoutCredentials() {
		this.contextRunner.withPropertyValues("lock.redis.replica-ack-timeout=500ms").run((context) -> {
			LocksEndpoint.StoreDescriptor store = context.getBean(LocksEndpoint.class).locks().store();
			assertThat(store.kind()).isEqualTo("redis");
			assertThat(store.settings()).containsEntry("keyPrefix", "lock:")
				.containsEntry("channel", "lock:released")
				.containsEntry("minReplicaAcks", 0)
				.containsEntry("replicaAckTimeout", "PT0.5S")
				.containsEntry("replySpin", "PT0.0001S")
				.containsEntry("mode", "standalone")
				.containsEntry("commandTimeout", "PT2S");
		});
	}

	private static void setPolicy(String policy) {
		redis.server().command("CONFIG", "SET", "maxmemory-policy", policy);
	}

}
