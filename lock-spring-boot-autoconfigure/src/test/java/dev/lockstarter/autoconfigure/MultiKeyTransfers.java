package dev.lockstarter.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import dev.lockstarter.annotation.ExclusiveRequest;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Money transfers between accounts kept in the shared store (Redis, or PostgreSQL for the
 * JDBC store), by two application instances (two Spring application contexts on one
 * server), with {@code @ExclusiveRequest(name = "account", key = { "#from", "#to" },
 * eachKey = true)}. A balance is updated by a deliberately non-atomic read, pause and
 * write, so that two holders of one account at once lose money; a per-account count of
 * holders, shared by both instances, detects them directly.
 */
final class MultiKeyTransfers {

	static final long OPENING_BALANCE = 1_000;

	private static final int TRANSFERS_PER_CALLER = 25;

	private MultiKeyTransfers() {
	}

	/**
	 * Run transfer(A, B), transfer(B, A) and transfer(A, C) concurrently on both
	 * instances, and check that no account had two holders at once, that no call
	 * deadlocked (every call finished within a bound), and that every cent is still
	 * there.
	 * @param properties the properties that point both instances at one Redis
	 */
	static void runAndCheck(String... properties) throws Exception {
		runAndCheck(RedisAccounts.class, properties);
	}

	/**
	 * Run and check the transfers, with the accounts kept by the given {@link Accounts}
	 * bean configuration.
	 * @param accountsConfiguration a configuration class that defines one
	 * {@link Accounts} bean
	 * @param properties the properties that point both instances at one server
	 */
	static void runAndCheck(Class<?> accountsConfiguration, String... properties) throws Exception {
		String run = UUID.randomUUID().toString().substring(0, 8);
		String a = "acct-" + run + "-A";
		String b = "acct-" + run + "-B";
		String c = "acct-" + run + "-C";
		Bank.reset(List.of(a, b, c));
		ExecutorService executor = Executors.newFixedThreadPool(6);
		try (ConfigurableApplicationContext first = start(accountsConfiguration, properties);
				ConfigurableApplicationContext second = start(accountsConfiguration, properties)) {
			Accounts accounts = first.getBean(Accounts.class);
			for (String account : List.of(a, b, c)) {
				accounts.setBalance(account, OPENING_BALANCE);
			}
			List<String[]> pairs = List.of(new String[] { a, b }, new String[] { b, a }, new String[] { a, c });
			List<Future<?>> callers = new ArrayList<>();
			long started = System.nanoTime();
			for (ConfigurableApplicationContext instance : List.of(first, second)) {
				AccountTransfers transfers = instance.getBean(AccountTransfers.class);
				for (String[] pair : pairs) {
					callers.add(executor.submit(() -> {
						for (int i = 0; i < TRANSFERS_PER_CALLER; i++) {
							transfers.transfer(pair[0], pair[1], 1);
						}
						return null;
					}));
				}
			}
			for (Future<?> caller : callers) {
				caller.get(90, TimeUnit.SECONDS);
			}
			Duration took = Duration.ofNanos(System.nanoTime() - started);
			assertThat(Bank.overlaps).as("accounts held by two transfers at once").hasValue(0);
			assertThat(Bank.transfers).hasValue(2 * pairs.size() * TRANSFERS_PER_CALLER);
			long total = 0;
			for (String account : List.of(a, b, c)) {
				total += accounts.balance(account);
			}
			assertThat(total).as("money in all accounts after %s", took).isEqualTo(3 * OPENING_BALANCE);
			assertThat(accounts.balance(c)).isEqualTo(OPENING_BALANCE + 2 * TRANSFERS_PER_CALLER);
			for (String account : List.of(a, b, c)) {
				assertThat(accounts.isLocked(account)).as("lock of %s left behind", account).isFalse();
			}
		}
		finally {
			executor.shutdownNow();
		}
	}

	private static ConfigurableApplicationContext start(Class<?> accountsConfiguration, String... properties) {
		return new SpringApplicationBuilder(TransferApp.class, accountsConfiguration).web(WebApplicationType.NONE)
			.properties("spring.main.banner-mode=off", "lock.ttl=10s")
			.properties(properties)
			.run();
	}

	/**
	 * The holders of each account, shared by both instances of this JVM.
	 */
	static final class Bank {

		static final Map<String, AtomicInteger> holders = new ConcurrentHashMap<>();

		static final AtomicInteger overlaps = new AtomicInteger();

		static final AtomicLong transfers = new AtomicLong();

		private Bank() {
		}

		static void reset(List<String> accounts) {
			holders.clear();
			accounts.forEach((account) -> holders.put(account, new AtomicInteger()));
			overlaps.set(0);
			transfers.set(0);
		}

		static void enter(String... accounts) {
			for (String account : accounts) {
				if (holders.get(account).getAndIncrement() != 0) {
					overlaps.incrementAndGet();
				}
			}
		}

		static void leave(String... accounts) {
			for (String account : accounts) {
				holders.get(account).decrementAndGet();
			}
		}

	}

	/**
	 * The balances of the accounts, in the shared store, and whether an account's lock is
	 * still there.
	 */
	interface Accounts {

		long balance(String account);

		void setBalance(String account, long balance);

		boolean isLocked(String account);

	}

	static class AccountTransfers {

		private final Accounts accounts;

		AccountTransfers(Accounts accounts) {
			this.accounts = accounts;
		}

		@ExclusiveRequest(name = "account", key = { "#from", "#to" }, eachKey = true, waitTime = "30s")
		public void transfer(String from, String to, long amount) throws InterruptedException {
			Bank.enter(from, to);
			try {
				add(from, -amount);
				add(to, amount);
				Bank.transfers.incrementAndGet();
			}
			finally {
				Bank.leave(from, to);
			}
		}

		/** Read, pause, write: a lost update whenever two holders overlap. */
		private void add(String account, long amount) throws InterruptedException {
			long balance = this.accounts.balance(account);
			Thread.sleep(1);
			this.accounts.setBalance(account, balance + amount);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class TransferApp {

		@Bean
		AccountTransfers accountTransfers(Accounts accounts) {
			return new AccountTransfers(accounts);
		}

	}

	/**
	 * Accounts as Redis strings, next to the locks.
	 */
	@Configuration(proxyBeanMethods = false)
	static class RedisAccounts {

		@Bean
		Accounts accounts(StringRedisTemplate redis) {
			return new Accounts() {

				@Override
				public long balance(String account) {
					return Long.parseLong(redis.opsForValue().get(account));
				}

				@Override
				public void setBalance(String account, long balance) {
					redis.opsForValue().set(account, Long.toString(balance));
				}

				@Override
				public boolean isLocked(String account) {
					return redis.hasKey("lock:{account:" + account + "}");
				}

			};
		}

	}

}
