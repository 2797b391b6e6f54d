package dev.lockstarter.store.jdbc;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.test.postgres.PostgresServerExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link ServerJdbcLockStoreContractTests} against a real PostgreSQL server, and what is
 * PostgreSQL's own: the plan of the listing, row versions that a failed acquisition
 * leaves alone, and the schema scripts.
 */
class PostgresJdbcLockStoreContractTests extends ServerJdbcLockStoreContractTests {

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
