package dev.lockstarter.autoconfigure;

import javax.sql.DataSource;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.autoconfigure.MultiKeyTransfers.Accounts;
import dev.lockstarter.test.postgres.PostgresServerExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * {@code @ExclusiveRequest(eachKey = true)} transfers between shared accounts by two
 * application instances on one real PostgreSQL server with {@code lock.store=jdbc}, where
 * the accounts' locks are rows taken one by one in key order, each in a statement of its
 * own, with rollback of the ones taken when a later one is held (see
 * {@link MultiKeyTransfers}). The balances are rows of the same database.
 */
class JdbcMultiKeyTransferIntegrationTests {

	@RegisterExtension
	static final PostgresServerExtension postgres = new PostgresServerExtension();

	@Test
	void concurrentTransfersOverSharedAccountsNeverOverlapNorDeadlockAndKeepEveryCent() throws Exception {
		MultiKeyTransfers.runAndCheck(JdbcAccounts.class, "lock.store=jdbc", "lock.jdbc.initialize-schema=always",
				"spring.datasource.url=" + postgres.jdbcUrl(), "spring.datasource.username=" + postgres.username(),
				"spring.datasource.hikari.maximum-pool-size=8");
	}

	/**
	 * Accounts as rows of a table in PostgreSQL, next to the locks' table, each read and
	 * write in auto-commit.
	 */
	@Configuration(proxyBeanMethods = false)
	static class JdbcAccounts {

		@Bean
		Accounts accounts(DataSource dataSource) {
			JdbcTemplate jdbc = new JdbcTemplate(dataSource);
			jdbc.execute("CREATE TABLE IF NOT EXISTS transfer_accounts (name VARCHAR(64) PRIMARY KEY, balance BIGINT)");
			return new Accounts() {

				@Override
				public long balance(String account) {
					return jdbc.queryForObject("SELECT balance FROM transfer_accounts WHERE name = ?", Long.class,
							account);
				}

				@Override
				public void setBalance(String account, long balance) {
					jdbc.update("INSERT INTO transfer_accounts (name, balance) VALUES (?, ?) "
							+ "ON CONFLICT (name) DO UPDATE SET balance = EXCLUDED.balance", account, balance);
				}

				@Override
				public boolean isLocked(String account) {
					Integer held = jdbc.queryForObject(
							"SELECT count(*) FROM lock_store WHERE lock_key LIKE ? AND owner_token IS NOT NULL",
							Integer.class, "%account:" + account + "%");
					return held != null && held > 0;
				}

			};
		}

	}

}
