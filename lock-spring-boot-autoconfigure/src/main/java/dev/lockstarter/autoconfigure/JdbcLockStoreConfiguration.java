package dev.lockstarter.autoconfigure;

import javax.sql.DataSource;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.lockstarter.autoconfigure.JdbcLockStoreProperties.DatabaseInitialization;
import dev.lockstarter.autoconfigure.LockProperties.Store;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.LockStoreException;
import dev.lockstarter.store.jdbc.JdbcLockStore;
import dev.lockstarter.store.jdbc.PostgreSqlJdbcLockStore;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.jdbc.EmbeddedDatabaseConnection;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.util.ClassUtils;

/**
 * The JDBC lock store, selected with {@code lock.store=jdbc}: a {@link JdbcLockStore} on
 * the application's {@link DataSource} (a {@link PostgreSqlJdbcLockStore}, which
 * announces releases, on PostgreSQL), with its table created at startup as
 * {@code lock.jdbc.initialize-schema} says and its clean-up running every
 * {@code lock.jdbc.cleanup-interval}; or a startup failure that names the missing module
 * or the missing DataSource.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnProperty(name = "lock.store", havingValue = "jdbc")
@ConditionalOnMissingBean(LockStore.class)
class JdbcLockStoreConfiguration {

	private static final Log logger = LogFactory.getLog(JdbcLockStoreConfiguration.class);

	static final String STORE_CLASS = "dev.lockstarter.store.jdbc.JdbcLockStore";

	private static final boolean BOOT_JDBC_PRESENT = ClassUtils.isPresent(
			"org.springframework.boot.jdbc.EmbeddedDatabaseConnection",
			JdbcLockStoreConfiguration.class.getClassLoader());

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = STORE_CLASS)
	static class StoreAvailable {

		@Bean(destroyMethod = "close")
		JdbcLockStore jdbcLockStore(JdbcLockStoreProperties jdbc, ObjectProvider<DataSource> dataSources) {
			DataSource dataSource = dataSources.getIfUnique();
			if (dataSource == null) {
				throw new InvalidConfigurationPropertyValueException("lock.store", "jdbc",
						"The JDBC lock store needs a single DataSource bean, and there is "
								+ (dataSources.stream().findAny().isPresent() ? "more than one and no primary one"
										: "none")
								+ ". Add spring-boot-starter-jdbc and configure spring.datasource.*, mark one "
								+ "DataSource @Primary, or choose another lock.store.");
			}
			JdbcLockStore store = createStore(dataSource, jdbc);
			if (shouldInitialize(jdbc.getInitializeSchema(), dataSource)) {
				store.createSchema();
			}
			if (!jdbc.getCleanupInterval().isZero() && !jdbc.getCleanupInterval().isNegative()) {
				store.startCleanup(jdbc.getCleanupInterval());
			}
			logger.info("Using the JDBC lock store on table '" + jdbc.getTableName() + "' of the application's "
					+ "DataSource; a lock operation fails after " + jdbc.getTimeout()
					+ " (lock.jdbc.timeout). Lock expiry is decided by the database's clock. "
					+ ((store instanceof PostgreSqlJdbcLockStore notifying)
							? "Releases are announced on PostgreSQL channel '" + notifying.getReleaseChannel()
									+ "' (one connection of the pool listens once a caller waits)."
							: "Waiters poll for releases."));
			return store;
		}

		/**
		 * The store for the DataSource's database: with release notifications on
		 * PostgreSQL. A database that cannot be reached at startup gets the store whose
		 * waiters poll, which works on every database.
		 */
		private static JdbcLockStore createStore(DataSource dataSource, JdbcLockStoreProperties jdbc) {
			try {
				return JdbcLockStore.create(dataSource, jdbc.getTableName(), jdbc.getTimeout());
			}
			catch (LockStoreException ex) {
				logger.warn("Could not tell which database the JDBC lock store is on (" + ex.getMessage()
						+ "); its waiters poll for releases, without notifications, until the application restarts");
				return new JdbcLockStore(dataSource, jdbc.getTableName(), jdbc.getTimeout());
			}
		}

		private static boolean shouldInitialize(DatabaseInitialization mode, DataSource dataSource) {
			return switch (mode) {
				case ALWAYS -> true;
				case NEVER -> false;
				case EMBEDDED -> BOOT_JDBC_PRESENT && EmbeddedDatabaseConnection.isEmbedded(dataSource);
			};
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnMissingClass(STORE_CLASS)
	static class StoreModuleMissing {

		@Bean
		LockStore unavailableJdbcLockStore() {
			throw LockStoreConfigurations.storeModuleMissing(Store.JDBC, "lock-store-jdbc");
		}

	}

}
