package dev.lockstarter.test.mariadb;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Properties;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link MariaDbServer}, through MariaDB's JDBC driver.
 */
class MariaDbServerTests {

	@Test
	void startedServerAcceptsTheTestUserOnLoopbackAndKeepsDataAcrossARestartAndAKill() throws SQLException {
		try (MariaDbServer server = MariaDbServer.start()) {
			assertThat(server.jdbcUrl()).isEqualTo("jdbc:mariadb://127.0.0.1:" + server.port() + "/lockstarter");
			try (Connection connection = connect(server, 5); Statement statement = connection.createStatement()) {
				assertThat(single(statement, "SELECT VERSION()")).contains("MariaDB");
				assertThat(single(statement, "SELECT CURRENT_USER()")).isEqualTo(MariaDbServer.USER + "@%");
				assertThat(single(statement, "SELECT DATABASE()")).isEqualTo(MariaDbServer.DATABASE);
				statement.execute("CREATE TABLE kept (name VARCHAR(40)) ENGINE=InnoDB");
				statement.execute("INSERT INTO kept VALUES ('before the restart')");
			}
			int port = server.port();
			server.restart();
			assertThat(server.port()).isEqualTo(port);
			try (Connection connection = connect(server, 5); Statement statement = connection.createStatement()) {
				assertThat(single(statement, "SELECT name FROM kept")).isEqualTo("before the restart");
				statement.execute("UPDATE kept SET name = 'before the kill'");
			}
			server.kill();
			server.restart();
			try (Connection connection = connect(server, 5); Statement statement = connection.createStatement()) {
				assertThat(single(statement, "SELECT name FROM kept")).as("committed row after a kill")
					.isEqualTo("before the kill");
			}
		}
	}

	@Test
	void pausedServerAnswersNoOpenConnectionUntilResumed() throws SQLException {
		try (MariaDbServer server = MariaDbServer.start();
				Connection connection = connect(server, 1);
				Statement statement = connection.createStatement()) {
			assertThat(single(statement, "SELECT 1")).isEqualTo("1");
			server.pause();
			long start = System.nanoTime();
			try {
				assertThatExceptionOfType(SQLException.class).isThrownBy(() -> single(statement, "SELECT 2"));
				assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3));
			}
			finally {
				server.resume();
			}
			try (Connection fresh = connect(server, 5); Statement again = fresh.createStatement()) {
				assertThat(single(again, "SELECT 3")).isEqualTo("3");
			}
		}
	}

	@Test
	void closedServerIsKilledAndItsDirectoryDeleted() throws Exception {
		MariaDbServer server = MariaDbServer.start();
		long pid = server.pid();
		Path directory = server.directory();
		assertThat(directory.resolve("data/mysql")).isDirectory();
		server.close();
		await().atMost(Duration.ofSeconds(5))
			.pollInterval(Duration.ofMillis(10))
			.untilAsserted(
					() -> assertThat(ProcessHandle.of(pid).filter(ProcessHandle::isAlive)).as("mariadbd after close")
						.isEmpty());
		assertThat(Files.exists(directory)).isFalse();
		assertThatExceptionOfType(SQLException.class).isThrownBy(() -> connect(server, 1).close());
		server.close();
	}

	private static Connection connect(MariaDbServer server, int socketTimeoutSeconds) throws SQLException {
		Properties properties = new Properties();
		properties.setProperty("user", server.username());
		properties.setProperty("password", server.password());
		properties.setProperty("connectTimeout", "2000");
		properties.setProperty("socketTimeout", Integer.toString(socketTimeoutSeconds * 1000));
		return DriverManager.getConnection(server.jdbcUrl(), properties);
	}

	private static String single(Statement statement, String sql) throws SQLException {
		try (ResultSet result = statement.executeQuery(sql)) {
			assertThat(result.next()).isTrue();
			return result.getString(1);
		}
	}

}
