package dev.lockstarter.autoconfigure;

import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.annotation.ExclusiveRequest;
import dev.lockstarter.test.redis.RedisServerExtension;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The lock wraps a {@code @Transactional} method's commit, against a real Redis and a
 * real (embedded H2) transaction manager.
 */
class TransactionalLockIntegrationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private static final String KEY = "lock:{Accounts.credit:acc-1}";

	@Test
	void lockIsStillHeldWhenTheTransactionCommits() {
		try (ConfigurableApplicationContext context = start(App.class)) {
			Accounts accounts = context.getBean(Accounts.class);
			accounts.credit("acc-1", 100);
			assertThat(Accounts.lockHeldAtCommit).hasValue(true);
			assertThat(context.getBean(JdbcTemplate.class)
				.queryForObject("select balance from account where id = 'acc-1'", Integer.class)).isEqualTo(100);
			assertThat(redis.server().command("EXISTS", KEY)).isEqualTo("0");
		}
	}

	@Test
	void lockOrderedInsideTheTransactionIsReleasedBeforeTheCommit() {
		// The control case: proves the test above can tell the two orders apart.
		try (ConfigurableApplicationContext context = start(TransactionFirstApp.class)) {
			Accounts accounts = context.getBean(Accounts.class);
			accounts.credit("acc-1", 100);
			assertThat(Accounts.lockHeldAtCommit).hasValue(false);
		}
	}

	private ConfigurableApplicationContext start(Class<?> application) {
		redis.server().command("FLUSHALL");
		Accounts.lockHeldAtCommit.set(null);
		return new SpringApplicationBuilder(application).web(WebApplicationType.NONE)
			.properties("spring.main.banner-mode=off", "lock.store=redis", "spring.data.redis.port=" + redis.port(),
					"spring.data.redis.host=" + redis.host(), "spring.datasource.url=jdbc:h2:mem:accounts",
					"spring.datasource.generate-unique-name=true")
			.run();
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import(Accounts.class)
	static class App {

	}

	/**
	 * Puts the transaction advice outside the lock advice, which is what the default
	 * order avoids.
	 */
	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@EnableTransactionManagement(order = 0)
	@Import(Accounts.class)
	static class TransactionFirstApp {

	}

	static class Accounts {

		// Static: the test calls through a class-based proxy,
		// whose own fields are never used.
		static final AtomicReference<Boolean> lockHeldAtCommit = new AtomicReference<>();

		private final JdbcTemplate jdbc;

		Accounts(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
			jdbc.execute("create table if not exists account (id varchar(20) primary key, balance int)");
		}

		@ExclusiveRequest(key = "#id")
		@Transactional
		public void credit(String id, int amount) {
			this.jdbc.update("insert into account (id, balance) values (?, ?)", id, amount);
			TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {

				@Override
				public void afterCommit() {
					lockHeldAtCommit.set("1".equals(redis.server().command("EXISTS", KEY)));
				}

			});
		}

	}

}
