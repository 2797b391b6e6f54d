package dev.lockstarter.store.jdbc;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.LockStoreException;
import dev.lockstarter.test.postgres.PostgresServerExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@link ServerJdbcLockStoreContractTests} against a real PostgreSQL server, and what is
 * PostgreSQL's own: the plan of the listing, row versions that a failed acquisition
 * leaves alone, statements that the server ends when their caller gives up, and the
 * schema scripts.
 */
class PostgresJdbcLockStoreContractTests extends ServerJdbcLockStoreContractTests {

	private static final String WAITING_ACQUISITIONS = "SELECT COUNT(*) FROM pg_stat_activity "
			+ "WHERE state = 'active' AND wait_event_type = 'Lock' AND query LIKE '%INSERT INTO lock_store%' "
			+ "AND pid <> pg_backend_pid()";

	@RegisterExtension
	@Order(1)
	static final PostgresServerExtension postgres = new PostgresServerExtension();

	@RegisterExtension
	@Order(2)
	static final SharedJdbcStore jdbc = new SharedJdbcStore(() -> TestDataSources.postgres(postgres.server()));

	@Override
	SharedJdbcStore jdbc() {
		return jdbc;
	}

	@Override
	TestDatabase database() {
		return new PostgresTestDatabase(postgres);
	}

	/**
	 * The generic plan of the listing, the one a statement that the driver prepared on
	 * the server may run with any parameters, reads the primary key's index from the
	 * prefix to the end of its range, in key order.
	 */
	@Test
	void theListingOfHoldersReadsARangeOfThePrimaryKeysIndex() throws SQLException {
		String query = JdbcLockInspection.holdersQuery(JdbcDialect.POSTGRESQL, JdbcLockStore.DEFAULT_TABLE_NAME, true);
		String numbered = query.replaceFirst("\\?", "\\$1").replaceFirst("\\?", "\\$2").replaceFirst("\\?", "\\$3");
		try (Connection connection = DriverManager.getConnection(postgres.server().jdbcUrl(),
				postgres.server().username(), null); Statement statement = connection.createStatement()) {
			statement.execute("SET plan_cache_mode = force_generic_plan");
			// What is checked is that the query can be answered by a range of the index,
			// in its order: not which plan the statistics of a table that the module's
			// other tests fill make the cheapest (a bitmap scan and a sort, at times)
			statement.execute("SET enable_bitmapscan = off");
			statement.execute("SET enable_seqscan = off");
			statement.execute("PREPARE holders(varchar, varchar, int) AS " + numbered);
			StringBuilder plan = new StringBuilder();
			try (ResultSet rows = statement.executeQuery("EXPLAIN EXECUTE holders('a', 'b', 10)")) {
				while (rows.next()) {
					plan.append(rows.getString(1)).append('\n');
				}
			}
			assertThat(plan).contains("Index Scan using lock_store_pkey")
				.containsPattern("Index Cond: .*lock_key.* >= .*\\$1.* AND .*lock_key.* < .*\\$2")
				.doesNotContain("Sort");
		}
	}

	/**
	 * An acquisition that waits on the server for a row lock (held here by another
	 * session's open transaction) ends on the server when its caller gives up at the
	 * store's timeout, instead of waiting on and then taking the lock for a token that no
	 * one holds any more.
	 */
	@Test
	void acquisitionWaitingForARowLockEndsOnTheServerWhenItsCallerGivesUp() throws Exception {
		String key = uniqueKey("row-lock");
		String owner = uniqueToken();
		assertThat(store().tryAcquire(key, owner, TTL).isAcquired()).isTrue();
		assertThat(store().release(key, owner)).isTrue();
		JdbcLockStore impatient = new JdbcLockStore(dataSource(), JdbcLockStore.DEFAULT_TABLE_NAME,
				Duration.ofSeconds(2));
		ExecutorService executor = Executors.newSingleThreadExecutor();
		try (Connection blocker = dataSource().getConnection()) {
			blocker.setAutoCommit(false);
			try (PreparedStatement statement = blocker
				.prepareStatement("SELECT fence FROM lock_store WHERE lock_key = ? FOR UPDATE")) {
				statement.setString(1, JdbcLockStore.storedKey(key));
				statement.executeQuery().close();
			}
			Future<AcquireReply> acquisition = executor.submit(() -> impatient.tryAcquire(key, uniqueToken(), TTL));
			await("the acquisition's wait for the row on the server").atMost(Duration.ofSeconds(10))
				.pollInSameThread()
				.pollInterval(Duration.ofMillis(20))
				.until(() -> queryLong(WAITING_ACQUISITIONS) == 1);
			assertThat(acquisition).as("acquisition whose row stays locked")
				.failsWithin(Duration.ofSeconds(10))
				.withThrowableThat()
				.havingCause()
				.isInstanceOf(LockStoreException.class)
				.withMessageContaining("JDBC lock store failed to acquire lock '" + key + "'");
			await("the server's end of the acquisition whose caller gave up").atMost(Duration.ofSeconds(5))
				.pollInSameThread()
				.pollInterval(Duration.ofMillis(50))
				.until(() -> queryLong(WAITING_ACQUISITIONS) == 0);
			blocker.rollback();
			blocker.setAutoCommit(true);
		}
		finally {
			executor.shutdownNow();
		}
		assertThat(impatient.tryAcquire(key, uniqueToken(), TTL).isAcquired())
			.as("acquire once the row is free: no acquisition went on after its caller gave up")
			.isTrue();
	}

	@Test
	void failedAcquisitionWritesNothing() throws SQLException {
		String key = uniqueKey("no-write");
		String owner = uniqueToken();
		long fence = store().tryAcquire(key, owner, TTL).fencingToken();
		String versionBefore = queryString("SELECT xmin::text || ':' || ctid::text FROM lock_store WHERE lock_key = ?",
				key);
		AcquireReply conflict = store().tryAcquire(key, uniqueToken(), TTL);
		assertThat(conflict.isAcquired()).isFalse();
		assertThat(conflict.holderRemainingTtl()).isPositive().isLessThanOrEqualTo(TTL);
		assertThat(queryString("SELECT xmin::text || ':' || ctid::text FROM lock_store WHERE lock_key = ?", key))
			.as("row version after a failed acquisition")
			.isEqualTo(versionBefore);
		assertThat(queryString("SELECT owner_token || ':' || fence FROM lock_store WHERE lock_key = ?", key))
			.isEqualTo(owner + ":" + fence);
	}

	@Test
	void schemaScriptsInTheJarAreTheStoresDdl() throws IOException {
		for (String platform : new String[] { "postgresql", "mariadb", "h2" }) {
			String resource = "schema-" + platform + ".sql";
			try (InputStream script = JdbcLockStore.class.getResourceAsStream(resource)) {
				assertThat(script).as(resource).isNotNull();
				String text = new String(script.readAllBytes(), StandardCharsets.UTF_8);
				assertThat(text).as(resource)
					.endsWith(JdbcLockStore.schemaScript(platform, JdbcLockStore.DEFAULT_TABLE_NAME));
			}
		}
	}

}
