package dev.lockstarter.autoconfigure;

import java.time.Duration;

import org.springframework.beans.factory.InitializingBean;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

/**
 * Configuration properties of the JDBC lock store, used with {@code lock.store=jdbc}.
 *
 * @since 0.1.0
 */
@ConfigurationProperties("lock.jdbc")
public class JdbcLockStoreProperties implements InitializingBean {

	/**
	 * The JDBC store's own pattern of a table name, repeated here since its module is
	 * optional.
	 */
	private static final String TABLE_NAME_PATTERN = "([A-Za-z_][A-Za-z0-9_]{0,62}\\.)?[A-Za-z_][A-Za-z0-9_]{0,47}";

	/**
	 * Name of the table that holds the locks, optionally qualified by its schema, such as
	 * "locks.lock_store": an unquoted SQL identifier of letters, digits and '_'.
	 */
	private String tableName = "lock_store";

	/**
	 * Longest time a lock operation waits for the database before it fails. Bounds the
	 * wait for a connection of the pool, whatever the pool's own wait, then each
	 * statement through the connection's network timeout (and a query timeout on MariaDB
	 * and H2).
	 */
	private Duration timeout = Duration.ofSeconds(2);

	/**
	 * When to create the lock table, its index and its fencing sequence at startup (if
	 * they do not exist): for an embedded database only, always, or never.
	 */
	private DatabaseInitialization initializeSchema = DatabaseInitialization.EMBEDDED;

	/**
	 * Time between two clean-ups of rows whose lock and result expired more than a minute
	 * ago, deleted in small batches on a background thread. Zero or negative turns the
	 * clean-up off.
	 */
	private Duration cleanupInterval = Duration.ofMinutes(1);

	public String getTableName() {
		return this.tableName;
	}

	public void setTableName(String tableName) {
		this.tableName = tableName;
	}

	public Duration getTimeout() {
		return this.timeout;
	}

	public void setTimeout(Duration timeout) {
		this.timeout = timeout;
	}

	public DatabaseInitialization getInitializeSchema() {
		return this.initializeSchema;
	}

	public void setInitializeSchema(DatabaseInitialization initializeSchema) {
		this.initializeSchema = initializeSchema;
	}

	public Duration getCleanupInterval() {
		return this.cleanupInterval;
	}

	public void setCleanupInterval(Duration cleanupInterval) {
		this.cleanupInterval = cleanupInterval;
	}

	@Override
	public void afterPropertiesSet() {
		if (this.tableName == null || !this.tableName.matches(TABLE_NAME_PATTERN)) {
			throw new InvalidConfigurationPropertyValueException("lock.jdbc.table-name", this.tableName,
					"The table name must be an unquoted SQL identifier (letters, digits and '_', not starting "
							+ "with a digit, at most 48 characters), optionally qualified by a schema, such as "
							+ "lock_store or locks.lock_store.");
		}
		PropertyChecks.positive("lock.jdbc.timeout", this.timeout, "The timeout must be positive.");
	}

	/**
	 * When to initialize the lock table, as Spring Boot's spring.sql.init.mode and
	 * spring.session.jdbc.initialize-schema do.
	 */
	public enum DatabaseInitialization {

		/**
		 * Only when the DataSource is an embedded database, such as H2 in memory.
		 */
		EMBEDDED,

		/**
		 * Always: the DDL only creates what does not exist.
		 */
		ALWAYS,

		/**
		 * Never: create the table with the module's schema script.
		 */
		NEVER

	}

}
