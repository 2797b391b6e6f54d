package dev.lockstarter.store.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.test.mariadb.MariaDbServerExtension;

/**
 * {@link JdbcInterleavingTests} on a real MariaDB server.
 */
class MariaDbJdbcInterleavingTests extends JdbcInterleavingTests {

	@RegisterExtension
	static final MariaDbServerExtension mariadb = new MariaDbServerExtension();

	@Override
	HikariDataSource newDataSource() {
		return TestDataSources.mariadb(mariadb.server());
	}

	@Override
	String now() {
		return "UTC_TIMESTAMP(6)";
	}

	@Override
	String lockWaits() {
		return "SELECT COUNT(*) FROM information_schema.INNODB_TRX WHERE trx_state = 'LOCK WAIT'";
	}

}
