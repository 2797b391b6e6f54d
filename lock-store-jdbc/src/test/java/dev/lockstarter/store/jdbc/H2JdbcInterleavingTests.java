package dev.lockstarter.store.jdbc;

import com.zaxxer.hikari.HikariDataSource;

/**
 * {@link JdbcInterleavingTests} on an in-memory H2 database.
 */
class H2JdbcInterleavingTests extends JdbcInterleavingTests {

	@Override
	HikariDataSource newDataSource() {
		return TestDataSources.h2();
	}

	@Override
	String now() {
		return "CURRENT_TIMESTAMP";
	}

	/**
	 * A session waits for a row lock ({@code BLOCKED}, with the blocker's id), or, for a
	 * key that another transaction inserted and has not committed, runs its statement
	 * until that transaction ends (longer than 100 ms, a wait on an in-memory database).
	 */
	@Override
	String lockWaits() {
		return "SELECT COUNT(*) FROM INFORMATION_SCHEMA.SESSIONS WHERE BLOCKER_ID IS NOT NULL"
				+ " OR (SESSION_ID <> SESSION_ID() AND SESSION_STATE = 'RUNNING'"
				+ " AND EXECUTING_STATEMENT_START < DATEADD(MILLISECOND, -100, CURRENT_TIMESTAMP))";
	}

}
