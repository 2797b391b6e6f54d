package dev.lockstarter.autoconfigure;

import java.time.Duration;

import javax.sql.DataSource;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.core.LockAttempt;
import dev.lockstarter.core.LockOperations;
import dev.lockstarter.store.LockStoreException;
import dev.lockstarter.store.jdbc.JdbcLockStore;
import dev.lockstarter.test.mariadb.MariaDbServerExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for the JDBC lock store selected by {@link LockAutoConfiguration} on a real
 * MariaDB, through the DataSource Spring Boot makes from {@code spring.datasource.*}: the
 * store finds its dialect from the database itself.
 */
class MariaDbJdbcLockStoreConfigurationTests {

	@RegisterExtension
	static final MariaDbServerExtension mariadb = new MariaDbServerExtension();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, LockAutoConfiguration.class))
		.withPropertyValues("lock.store=jdbc", "spring.datasource.url=" + mariadb.jdbcUrl(),
				"spring.datasource.username=" + mariadb.username(), "spring.datasource.password=" + mariadb.password());

	@Test
	void jdbcStoreOnMariaDbCreatesItsTableWhenAskedToAndExcludes() {
		this.contextRunner
			.withPropertyValues("lock.jdbc.initialize-schema=always", "lock.jdbc.table-name=app_locks",
					"lock.jdbc.timeout=1500ms")
			.run((context) -> {
				JdbcLockStore store = context.getBean(JdbcLockStore.class);
				assertThat(store.getTableName()).isEqualTo("app_locks");
				assertThat(store.getTimeout()).isEqualTo(Duration.ofMillis(1500));
				LockOperations locks = context.getBean(LockOperations.class);
				String key = "user:" + System.nanoTime();
				LockAttempt first = locks.tryAcquire(key, Duration.ofSeconds(10));
				assertThat(first.isAcquired()).isTrue();
				assertThat(first.lease().fencingToken()).isPositive();
				assertThat(locks.tryAcquire(key, Duration.ofSeconds(10)).isAcquired()).isFalse();
				first.lease().release();
				LockAttempt second = locks.tryAcquire(key, Duration.ofSeconds(10));
				assertThat(second.isAcquired()).isTrue();
				assertThat(second.lease().fencingToken()).isGreaterThan(first.lease().fencingToken());
				Long rows = new JdbcTemplate(context.getBean(DataSource.class))
					.queryForObject("SELECT COUNT(*) FROM app_locks", Long.class);
				assertThat(rows).isOne();
			});
	}

	@Test
	void jdbcStoreOnMariaDbLeavesTheSchemaAloneByDefault() {
		this.contextRunner.withPropertyValues("lock.jdbc.table-name=never_created").run((context) -> {
			LockOperations locks = context.getBean(LockOperations.class);
			assertThatExceptionOfType(LockStoreException.class)
				.isThrownBy(() -> locks.tryAcquire("user:42", Duration.ofSeconds(5)))
				.withMessageContaining("table 'never_created'");
		});
	}

}
