package dev.lockstarter.store.jdbc;

import java.util.function.Supplier;

import com.zaxxer.hikari.HikariDataSource;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One {@link JdbcLockStore} for a test class, on a pool that this extension opens before
 * the class's tests (once the server's extension has started the server: register it
 * after, with a higher {@code @Order}) and closes after them. The store is the one
 * {@link JdbcLockStore#create} picks (on PostgreSQL, with release notifications), and its
 * schema is created.
 */
final class SharedJdbcStore implements BeforeAllCallback, AfterAllCallback {

	private final Supplier<HikariDataSource> dataSources;

	private @Nullable HikariDataSource dataSource;

	private @Nullable JdbcLockStore store;

	SharedJdbcStore(Supplier<HikariDataSource> dataSources) {
		this.dataSources = dataSources;
	}

	@Override
	public void beforeAll(ExtensionContext context) {
		HikariDataSource dataSource = this.dataSources.get();
		this.dataSource = dataSource;
		// Release notifications on PostgreSQL, as the auto-configuration has it
		JdbcLockStore store = JdbcLockStore.create(dataSource, JdbcLockStore.DEFAULT_TABLE_NAME,
				JdbcLockStore.DEFAULT_TIMEOUT);
		store.createSchema();
		this.store = store;
	}

	@Override
	public void afterAll(ExtensionContext context) {
		JdbcLockStore store = this.store;
		if (store != null) {
			store.close();
		}
		HikariDataSource dataSource = this.dataSource;
		if (dataSource != null) {
			dataSource.close();
		}
	}

	HikariDataSource dataSource() {
		HikariDataSource dataSource = this.dataSource;
		if (dataSource == null) {
			throw new IllegalStateException("No pool outside of the test class's tests");
		}
		return dataSource;
	}

	JdbcLockStore store() {
		JdbcLockStore store = this.store;
		if (store == null) {
			throw new IllegalStateException("No store outside of the test class's tests");
		}
		return store;
	}

}
