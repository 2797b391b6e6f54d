package dev.lockstarter.autoconfigure;

import java.time.Duration;
import java.util.UUID;

import javax.sql.DataSource;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.core.LockAttempt;
import dev.lockstarter.core.LockOperations;
import dev.lockstarter.store.LockStoreException;
import dev.lockstarter.store.jdbc.JdbcLockStore;
import dev.lockstarter.test.postgres.PostgresServerExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Tests for the selection and configuration of the JDBC lock store by
 * {@link LockAutoConfiguration}, on an embedded H2 database and a real PostgreSQL.
 */
class JdbcLockStoreConfigurationTests {

	@RegisterExtension
	static final PostgresServerExtension postgres = new PostgresServerExtension();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, LockAutoConfiguration.class));

	@Test
	void jdbcStoreOnAnEmbeddedDatabaseCreatesItsTableAndExcludes() {
		this.contextRunner.withPropertyValues("lock.store=jdbc", "spring.datasource.url=" + h2Url()).run((context) -> {
			assertThat(context).hasSingleBean(JdbcLockStore.class);
			JdbcLockStore store = context.getBean(JdbcLockStore.class);
			// H2 has no LISTEN/NOTIFY: the store whose waiters poll
			assertThat(store.getClass()).isEqualTo(JdbcLockStore.class);
			assertThat(store.getTableName()).isEqualTo("lock_store");
			assertThat(store.getTimeout()).isEqualTo(Duration.ofSeconds(2));
			assertExclusive(context);
			assertThat(rows(context, "lock_store")).isOne();
		});
	}

	@Test
	void jdbcStoreOnPostgresLeavesTheSchemaAloneByDefault() {
		this.contextRunner
			.withPropertyValues("lock.store=jdbc", "spring.datasource.url=" + postgres.jdbcUrl(),
					"spring.datasource.username=" + postgres.username(), "lock.jdbc.table-name=never_created")
			.run((context) -> {
				LockOperations locks = context.getBean(LockOperations.class);
				assertThatExceptionOfType(LockStoreException.class)
					.isThrownBy(() -> locks.tryAcquire("user:42", Duration.ofSeconds(5)))
					.withMessageContaining("table 'never_created'");
			});
	}

	@Test
	void jdbcStoreOnPostgresCreatesItsTableWhenAskedTo() {
		this.contextRunner
			.withPropertyValues("lock.store=jdbc", "spring.datasource.url=" + postgres.jdbcUrl(),
					"spring.datasource.username=" + postgres.username(), "lock.jdbc.initialize-schema=always",
					"lock.jdbc.table-name=app_locks", "lock.jdbc.timeout=1500ms")
			.run((context) -> {
				JdbcLockStore store = context.getBean(JdbcLockStore.class);
				assertThat(store.getTableName()).isEqualTo("app_locks");
				assertThat(store.getTimeout()).isEqualTo(Duration.ofMillis(1500));
				assertExclusive(context);
				assertThat(rows(context, "app_locks")).isOne();
			});
	}

	@Test
	void initializeSchemaNeverLeavesAnEmbeddedDatabaseAlone() {
		this.contextRunner
			.withPropertyValues("lock.store=jdbc", "spring.datasource.url=" + h2Url(),
					"lock.jdbc.initialize-schema=never")
			.run((context) -> assertThatExceptionOfType(LockStoreException.class)
				.isThrownBy(() -> context.getBean(LockOperations.class).tryAcquire("user:1", Duration.ofSeconds(5)))
				.withMessageContaining("table 'lock_store'"));
	}

	@Test
	void expiredRowsAreCleanedUpEveryCleanupInterval() {
		this.contextRunner
			.withPropertyValues("lock.store=jdbc", "spring.datasource.url=" + h2Url(),
					"lock.jdbc.cleanup-interval=100ms")
			.run((context) -> {
				JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
				jdbc.update("INSERT INTO lock_store (lock_key, owner_token, expires_at, fence) "
						+ "VALUES ('old', NULL, DATEADD(HOUR, -1, CURRENT_TIMESTAMP), NEXT VALUE FOR lock_store_fence_seq)");
				await("clean-up of the expired row").atMost(Duration.ofSeconds(10))
					.pollInterval(Duration.ofMillis(20))
					.until(() -> rows(context, "lock_store") == 0);
			});
	}

	@Test
	void jdbcStoreWithoutADataSourceFailsNamingIt() {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(LockAutoConfiguration.class))
			.withPropertyValues("lock.store=jdbc")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.isInstanceOf(InvalidConfigurationPropertyValueException.class)
				.hasMessageContaining("lock.store")
				.hasMessageContaining("needs a single DataSource bean, and there is none"));
	}

	@Test
	void jdbcStoreWithoutItsModuleFailsNamingIt() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(JdbcLockStore.class))
			.withPropertyValues("lock.store=jdbc", "spring.datasource.url=" + h2Url())
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.isInstanceOf(InvalidConfigurationPropertyValueException.class)
				.hasMessageContaining("lock.store")
				.hasMessageContaining("dev.lockstarter:lock-store-jdbc"));
	}

	@Test
	void invalidJdbcPropertiesFailNamingTheProperty() {
		for (String tableName : new String[] { "lock-store", "locks;drop", "1locks", "a.b.c" }) {
			this.contextRunner
				.withPropertyValues("lock.store=jdbc", "spring.datasource.url=" + h2Url(),
						"lock.jdbc.table-name=" + tableName)
				.run((context) -> assertThat(context).hasFailed()
					.getFailure()
					.rootCause()
					.hasMessageContaining("lock.jdbc.table-name")
					.hasMessageContaining("unquoted SQL identifier"));
		}
		this.contextRunner.withPropertyValues("lock.store=jdbc", "lock.jdbc.timeout=0s")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("lock.jdbc.timeout"));
	}

	private static String h2Url() {
		return "jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
	}

	private static long rows(ConfigurableApplicationContext context, String table) {
		Long count = new JdbcTemplate(context.getBean(DataSource.class)).queryForObject("SELECT COUNT(*) FROM " + table,
				Long.class);
		return (count != null) ? count : -1;
	}

	private static void assertExclusive(ConfigurableApplicationContext context) {
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
	}

}
