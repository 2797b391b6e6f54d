package dev.lockstarter.store.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

import javax.sql.DataSource;

import dev.lockstarter.core.LockKind;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.core.LockTemplate;
import dev.lockstarter.test.contract.SharedLockWorkload;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the shared-lock tests of the {@link JdbcLockStore} on each database have in
 * common: the workload of two instances, keys and tokens, and reading or changing the
 * stores' rows directly.
 */
final class SharedLockTestSupport {

	/** The time-to-live of the places the tests take. */
	static final Duration TTL = Duration.ofSeconds(30);

	private SharedLockTestSupport() {
	}

	/**
	 * Eight threads, alternately on a template of each store, each taking the lock six
	 * times and staying inside for 15 ms.
	 */
	static SharedLockWorkload workload(JdbcLockStore first, JdbcLockStore second) {
		return new SharedLockWorkload(List.of(new LockTemplate(first, "a:"), new LockTemplate(second, "a:")), 8, 6,
				Duration.ofMillis(15));
	}

	/** Options of the given kind that wait up to a minute. */
	static LockOptions waiting(LockKind kind) {
		return LockOptions.ttl(TTL).withWaitTime(Duration.ofSeconds(60)).withKind(kind);
	}

	static long count(DataSource dataSource, String sql, String key) throws SQLException {
		try (Connection connection = dataSource.getConnection();
				PreparedStatement statement = connection.prepareStatement(sql)) {
			statement.setString(1, key);
			try (ResultSet rows = statement.executeQuery()) {
				rows.next();
				return rows.getLong(1);
			}
		}
	}

	static void update(DataSource dataSource, String sql, String... parameters) throws SQLException {
		try (Connection connection = dataSource.getConnection();
				PreparedStatement statement = connection.prepareStatement(sql)) {
			for (int i = 0; i < parameters.length; i++) {
				statement.setString(i + 1, parameters[i]);
			}
			assertThat(statement.executeUpdate()).as("rows updated by " + sql).isPositive();
		}
	}

	static String uniqueKey(String name) {
		return "shared:" + name + ":" + UUID.randomUUID();
	}

	static String token() {
		return UUID.randomUUID().toString();
	}

}
