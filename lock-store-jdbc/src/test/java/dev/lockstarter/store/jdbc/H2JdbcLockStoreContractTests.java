package dev.lockstarter.store.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.store.LockStore;
import dev.lockstarter.test.contract.LockStoreContractTests;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link LockStoreContractTests} for {@link JdbcLockStore} on an in-memory H2 database in
 * H2's own (regular) mode, and the H2 SQL's own promises.
 */
class H2JdbcLockStoreContractTests extends LockStoreContractTests implements JdbcInspectionContract {

	@RegisterExtension
	static final SharedJdbcStore jdbc = new SharedJdbcStore(TestDataSources::h2);

	@Override
	protected LockStore createStore() {
		return jdbc.store();
	}

	@Override
	public JdbcLockStore inspectedStore() {
		return jdbc.store();
	}

	@Override
	protected boolean issuesFencingTokens() {
		return true;
	}

	@Test
	void fencingTokensIncreaseAcrossReleasesAndTakeovers() throws InterruptedException {
		String key = uniqueKey("fencing");
		String first = uniqueToken();
		long firstToken = store().tryAcquire(key, first, Duration.ofSeconds(30)).fencingToken();
		assertThat(firstToken).isPositive();
		assertThat(store().release(key, first)).isTrue();
		long secondToken = store().tryAcquire(key, uniqueToken(), Duration.ofMillis(50)).fencingToken();
		assertThat(secondToken).isGreaterThan(firstToken);
		Thread.sleep(100);
		long thirdToken = store().tryAcquire(key, uniqueToken(), Duration.ofSeconds(30)).fencingToken();
		assertThat(thirdToken).as("token after taking an expired lock over").isGreaterThan(secondToken);
	}

	@Test
	void theListingOfHoldersReadsARangeOfThePrimaryKeysIndex() throws Exception {
		String query = JdbcLockInspection.holdersQuery(JdbcDialect.H2, JdbcLockStore.DEFAULT_TABLE_NAME, true);
		try (Connection connection = jdbc.dataSource().getConnection();
				PreparedStatement statement = connection.prepareStatement("EXPLAIN " + query)) {
			statement.setString(1, "a");
			statement.setString(2, "b");
			statement.setInt(3, 10);
			try (ResultSet rows = statement.executeQuery()) {
				assertThat(rows.next()).isTrue();
				String plan = rows.getString(1);
				assertThat(plan).containsPattern("PRIMARY_KEY_\\w+: LOCK_KEY >= \\?1\\s+AND LOCK_KEY < \\?2")
					.contains("/* index sorted */");
			}
		}
	}

	@Test
	void schemaCanBeCreatedAgainAndInAnotherSchema() throws Exception {
		jdbc.store().createSchema();
		try (Connection connection = jdbc.dataSource().getConnection();
				Statement statement = connection.createStatement()) {
			statement.execute("CREATE SCHEMA IF NOT EXISTS locks");
		}
		JdbcLockStore qualified = new JdbcLockStore(jdbc.dataSource(), "locks.app_locks", Duration.ofSeconds(2));
		qualified.createSchema();
		String key = uniqueKey("qualified");
		assertThat(qualified.tryAcquire(key, uniqueToken(), Duration.ofSeconds(30)).isAcquired()).isTrue();
		try (Connection connection = jdbc.dataSource().getConnection();
				Statement statement = connection.createStatement();
				ResultSet rows = statement.executeQuery("SELECT COUNT(*) FROM locks.app_locks")) {
			assertThat(rows.next()).isTrue();
			assertThat(rows.getInt(1)).isOne();
		}
	}

}
