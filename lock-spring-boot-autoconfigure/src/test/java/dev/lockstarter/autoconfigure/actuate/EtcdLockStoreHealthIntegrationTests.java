package dev.lockstarter.autoconfigure.actuate;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.lockstarter.autoconfigure.LockAutoConfiguration;
import dev.lockstarter.store.etcd.EtcdLockStore;
import dev.lockstarter.test.etcd.EtcdServer;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The lock store health indicator and the locks endpoint's store description against a
 * real etcd member, which the tests pause.
 */
class EtcdLockStoreHealthIntegrationTests {

	/** The store's timeout, which bounds a check against a silent member. */
	private static final Duration TIMEOUT = Duration.ofSeconds(1);

	private EtcdServer server;

	private ApplicationContextRunner contextRunner;

	@BeforeEach
	void startServer() {
		this.server = EtcdServer.start();
		this.contextRunner = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(LockAutoConfiguration.class,
					LockStoreHealthContributorAutoConfiguration.class, LocksEndpointAutoConfiguration.class))
			.withPropertyValues("lock.store=etcd", "lock.etcd.endpoints=" + this.server.endpoint(),
					"lock.etcd.timeout=" + TIMEOUT.toMillis() + "ms",
					"management.endpoints.web.exposure.include=locks");
	}

	@AfterEach
	void closeServer() {
		this.server.close();
	}

	@Test
	void upWhileTheMemberAnswersThenDownWithinTheTimeoutWhenItStopsAnswering() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasSingleBean(EtcdLockStore.class);
			HealthIndicator indicator = context.getBean("lockStoreHealthIndicator", HealthIndicator.class);
			Health up = indicator.health();
			assertThat(up.getStatus()).isEqualTo(Status.UP);
			assertThat(up.getDetails()).containsEntry("store", "etcd");
			this.server.pause();
			try {
				Health down = MemcachedLockStoreHealthIntegrationTests.timed(indicator, TIMEOUT.plusSeconds(2));
				assertThat(down.getStatus()).isEqualTo(Status.DOWN);
				assertThat(down.getDetails()).containsEntry("store", "etcd").containsKey("error");
			}
			finally {
				this.server.resume();
			}
			MemcachedLockStoreHealthIntegrationTests.awaitUp(indicator);
		});
	}

	@Test
	void endpointDescribesTheEndpointsPrefixesAndTimeoutWithoutCredentials() {
		this.contextRunner.withPropertyValues("lock.etcd.username=locks", "lock.etcd.password=secret")
			.run((context) -> {
				LocksEndpoint.StoreDescriptor store = context.getBean(LocksEndpoint.class).locks().store();
				assertThat(store.kind()).isEqualTo("etcd");
				assertThat(store.type()).isEqualTo(EtcdLockStore.class.getName());
				assertThat(store.settings()).containsEntry("client", "own")
					.containsEntry("endpoints", List.of(this.server.endpoint()))
					.containsEntry("prefix", "/lock-starter/locks/")
					.containsEntry("resultsPrefix", "/lock-starter/results/")
					.containsEntry("timeout", "PT1S")
					.containsEntry("authentication", true)
					.containsEntry("sslBundle", "none");
				assertThat(store.settings().toString()).doesNotContain("secret");
			});
	}

}
