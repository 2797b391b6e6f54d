package dev.lockstarter.autoconfigure.actuate;

import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.lockstarter.autoconfigure.LockAutoConfiguration;
import dev.lockstarter.store.ReleaseNotifyingLockStore;
import dev.lockstarter.store.jdbc.JdbcLockStore;
import dev.lockstarter.store.jdbc.PostgreSqlJdbcLockStore;
import dev.lockstarter.test.postgres.PostgresServer;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The lock store health indicator and the locks endpoint's store description against a
 * real PostgreSQL server, which the tests pause.
 */
class JdbcLockStoreHealthIntegrationTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(1);

	private PostgresServer server;

	private ApplicationContextRunner contextRunner;

	@BeforeEach
	void startServer() {
		this.server = PostgresServer.start();
		this.contextRunner = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, LockAutoConfiguration.class,
					LockStoreHealthContributorAutoConfiguration.class, LocksEndpointAutoConfiguration.class))
			.withPropertyValues("lock.store=jdbc", "lock.jdbc.initialize-schema=always",
					"lock.jdbc.timeout=" + TIMEOUT.toMillis() + "ms",
					"spring.datasource.url=" + this.server.jdbcUrl() + "?password=not-shown",
					"spring.datasource.username=" + this.server.username(), "spring.datasource.password=secret",
					"spring.datasource.hikari.connection-timeout=1000",
					"spring.datasource.hikari.validation-timeout=250",
					"management.endpoints.web.exposure.include=locks");
	}

	@AfterEach
	void closeServer() {
		this.server.close();
	}

	@Test
	void upWhileTheDatabaseAnswersThenDownWithinTheTimeoutWhenItStopsAnswering() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasSingleBean(JdbcLockStore.class);
			HealthIndicator indicator = context.getBean("lockStoreHealthIndicator", HealthIndicator.class);
			Health up = indicator.health();
			assertThat(up.getStatus()).isEqualTo(Status.UP);
			assertThat(up.getDetails()).containsEntry("store", "jdbc");
			this.server.pause();
			try {
				Health down = MemcachedLockStoreHealthIntegrationTests.timed(indicator, TIMEOUT.plusSeconds(2));
				assertThat(down.getStatus()).isEqualTo(Status.DOWN);
				assertThat(down.getDetails()).containsEntry("store", "jdbc").containsKey("error");
			}
			finally {
				this.server.resume();
			}
			MemcachedLockStoreHealthIntegrationTests.awaitUp(indicator);
		});
	}

	@Test
	void endpointDescribesTheTableAndTimeoutsButNoConnectionDetails() {
		this.contextRunner.run((context) -> {
			LocksEndpoint.StoreDescriptor store = context.getBean(LocksEndpoint.class).locks().store();
			assertThat(store.kind()).isEqualTo("jdbc");
			// On PostgreSQL, the store that announces releases
			assertThat(store.type()).isEqualTo(PostgreSqlJdbcLockStore.class.getName());
			assertThat(context.getBean(JdbcLockStore.class)).isInstanceOf(ReleaseNotifyingLockStore.class);
			assertThat(store.settings()).containsEntry("keyPrefix", "lock:")
				.containsEntry("table", "lock_store")
				.containsEntry("timeout", "PT1S")
				.containsEntry("initializeSchema", "always")
				.containsEntry("cleanupInterval", "PT1M");
			assertThat(store.toString()).doesNotContain("secret", "not-shown", "jdbc:postgresql",
					String.valueOf(this.server.port()));
		});
	}

}
