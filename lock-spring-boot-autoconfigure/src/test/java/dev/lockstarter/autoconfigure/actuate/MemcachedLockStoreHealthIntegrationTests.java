package dev.lockstarter.autoconfigure.actuate;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.lockstarter.autoconfigure.LockAutoConfiguration;
import dev.lockstarter.store.memcached.MemcachedLockStore;
import dev.lockstarter.test.memcached.MemcachedServer;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The lock store health indicator and the locks endpoint's store description against a
 * real Memcached server, which the tests stop and pause.
 */
class MemcachedLockStoreHealthIntegrationTests {

	/** The store's operation timeout, which bounds a check against a silent server. */
	private static final Duration OPERATION_TIMEOUT = Duration.ofSeconds(1);

	private MemcachedServer server;

	private ApplicationContextRunner contextRunner;

	@BeforeEach
	void startServer() {
		this.server = MemcachedServer.start();
		this.contextRunner = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(LockAutoConfiguration.class,
					LockStoreHealthContributorAutoConfiguration.class, LocksEndpointAutoConfiguration.class))
			.withPropertyValues("lock.store=memcached", "lock.memcached.servers=" + this.server.address(),
					"lock.memcached.operation-timeout=" + OPERATION_TIMEOUT.toMillis() + "ms",
					"lock.memcached.connect-timeout=1s", "management.endpoints.web.exposure.include=locks");
	}

	@AfterEach
	void closeServer() {
		this.server.close();
	}

	@Test
	void upWhileTheServerAnswersThenDownOnceItIsStopped() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasSingleBean(MemcachedLockStore.class);
			HealthIndicator indicator = context.getBean("lockStoreHealthIndicator", HealthIndicator.class);
			Health up = indicator.health();
			assertThat(up.getStatus()).isEqualTo(Status.UP);
			assertThat(up.getDetails()).containsEntry("store", "memcached");
			assertThat(Duration.parse((String) up.getDetails().get("roundTrip"))).isLessThan(OPERATION_TIMEOUT);
			this.server.stop();
			Health down = timed(indicator, Duration.ofSeconds(3));
			assertThat(down.getStatus()).isEqualTo(Status.DOWN);
			assertThat(down.getDetails()).containsEntry("store", "memcached").containsKey("error");
		});
	}

	@Test
	void downWithinTheOperationTimeoutWhenTheServerStopsAnswering() {
		this.contextRunner.run((context) -> {
			HealthIndicator indicator = context.getBean("lockStoreHealthIndicator", HealthIndicator.class);
			assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);
			this.server.pause();
			try {
				Health down = timed(indicator, OPERATION_TIMEOUT.plusSeconds(2));
				assertThat(down.getStatus()).isEqualTo(Status.DOWN);
			}
			finally {
				this.server.resume();
			}
			awaitUp(indicator);
		});
	}

	@Test
	void endpointDescribesTheServersAndTimeouts() {
		this.contextRunner.run((context) -> {
			LocksEndpoint.StoreDescriptor store = context.getBean(LocksEndpoint.class).locks().store();
			assertThat(store.kind()).isEqualTo("memcached");
			assertThat(store.settings()).containsEntry("keyPrefix", "lock:")
				.containsEntry("servers", List.of(this.server.address()))
				.containsEntry("connectTimeout", "PT1S")
				.containsEntry("operationTimeout", "PT1S");
		});
	}

	/**
	 * Check the health, asserting that the check ends within the bound.
	 */
	static Health timed(HealthIndicator indicator, Duration bound) {
		long start = System.nanoTime();
		Health health = indicator.health();
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(bound);
		return health;
	}

	static void awaitUp(HealthIndicator indicator) {
		await("UP again in time").atMost(Duration.ofSeconds(10))
			.pollInterval(Duration.ofMillis(100))
			.until(() -> indicator.health().getStatus() == Status.UP);
	}

}
