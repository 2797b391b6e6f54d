package dev.lockstarter.autoconfigure.actuate;

import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.lockstarter.autoconfigure.LockAutoConfiguration;
import dev.lockstarter.store.zookeeper.ZooKeeperLockStore;
import dev.lockstarter.test.zookeeper.ZooKeeperServer;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The lock store health indicator and the locks endpoint's store description against a
 * real ZooKeeper server, which the tests pause.
 */
class ZooKeeperLockStoreHealthIntegrationTests {

	/** The store's timeout, which bounds a check against a silent server. */
	private static final Duration TIMEOUT = Duration.ofSeconds(1);

	private ZooKeeperServer server;

	private ApplicationContextRunner contextRunner;

	@BeforeEach
	void startServer() {
		this.server = ZooKeeperServer.start();
		this.contextRunner = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(LockAutoConfiguration.class,
					LockStoreHealthContributorAutoConfiguration.class, LocksEndpointAutoConfiguration.class))
			.withPropertyValues("lock.store=zookeeper", "lock.zookeeper.connect-string=" + this.server.connectString(),
					"lock.zookeeper.timeout=" + TIMEOUT.toMillis() + "ms",
					"management.endpoints.web.exposure.include=locks");
	}

	@AfterEach
	void closeServer() {
		this.server.close();
	}

	@Test
	void upWhileTheServerAnswersThenDownWithinTheTimeoutWhenItStopsAnswering() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasSingleBean(ZooKeeperLockStore.class);
			HealthIndicator indicator = context.getBean("lockStoreHealthIndicator", HealthIndicator.class);
			Health up = indicator.health();
			assertThat(up.getStatus()).isEqualTo(Status.UP);
			assertThat(up.getDetails()).containsEntry("store", "zookeeper");
			this.server.pause();
			try {
				Health down = MemcachedLockStoreHealthIntegrationTests.timed(indicator, TIMEOUT.plusSeconds(2));
				assertThat(down.getStatus()).isEqualTo(Status.DOWN);
				assertThat(down.getDetails()).containsEntry("store", "zookeeper").containsKey("error");
			}
			finally {
				this.server.resume();
			}
			MemcachedLockStoreHealthIntegrationTests.awaitUp(indicator);
		});
	}

	@Test
	void endpointDescribesTheConnectionBasePathAndTimeoutWithoutCredentials() {
		this.contextRunner.withPropertyValues("lock.zookeeper.username=locks", "lock.zookeeper.password=secret")
			.run((context) -> {
				LocksEndpoint.StoreDescriptor store = context.getBean(LocksEndpoint.class).locks().store();
				assertThat(store.kind()).isEqualTo("zookeeper");
				assertThat(store.type()).isEqualTo(ZooKeeperLockStore.class.getName());
				assertThat(store.settings()).containsEntry("client", "own")
					.containsEntry("connectString", this.server.connectString())
					.containsEntry("basePath", "/lock-starter")
					.containsEntry("timeout", "PT1S")
					.containsEntry("authentication", true)
					.containsKey("sessionTimeout");
				assertThat(store.settings().toString()).doesNotContain("secret");
			});
	}

}
