package dev.lockstarter.store.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.core.LockAttempt;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.core.LockTemplate;
import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.ReleaseNotifyingLockStore;
import dev.lockstarter.test.postgres.PostgresServerExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The release notifications of {@link PostgreSqlJdbcLockStore} on a real PostgreSQL
 * server: what announces a release and what does not, a waiter woken by the announcement,
 * the listening connection replaced after the server ends it, and a close that a paused
 * server does not hold up. Which store {@link JdbcLockStore#create} picks.
 */
class PostgresJdbcReleaseNotificationTests {

	private static final Duration TTL = Duration.ofSeconds(30);

	@RegisterExtension
	@Order(1)
	static final PostgresServerExtension postgres = new PostgresServerExtension();

	@RegisterExtension
	@Order(2)
	static final SharedJdbcStore jdbc = new SharedJdbcStore(() -> TestDataSources.postgres(postgres.server()));

	@Test
	void createPicksTheNotifyingStoreOnPostgreSqlAndThePollingStoreElsewhere() {
		try (JdbcLockStore onPostgres = JdbcLockStore.create(jdbc.dataSource(), "lock_store", Duration.ofSeconds(2))) {
			assertThat(onPostgres).isInstanceOf(PostgreSqlJdbcLockStore.class)
				.isInstanceOf(ReleaseNotifyingLockStore.class);
			assertThat(new LockTemplate(onPostgres).getStoreName()).isEqualTo("jdbc");
		}
		JdbcDataSource h2 = new JdbcDataSource();
		h2.setURL("jdbc:h2:mem:create-" + UUID.randomUUID());
		try (JdbcLockStore onH2 = JdbcLockStore.create(h2, "lock_store", Duration.ofSeconds(2))) {
			assertThat(onH2.getClass()).isEqualTo(JdbcLockStore.class);
			assertThat(onH2).isNotInstanceOf(ReleaseNotifyingLockStore.class);
		}
	}

	@Test
	void channelIsTheTableInLowerCaseWithinPostgreSqlsLimit() {
		assertThat(PostgreSqlDialect.releaseChannel("Lock_Store")).isEqualTo("lock_store_released");
		String schema = "s".repeat(63);
		String longChannel = PostgreSqlDialect.releaseChannel(schema + ".lock_store");
		assertThat(longChannel).hasSize(63)
			.matches("[a-z0-9_.]+")
			.isNotEqualTo(PostgreSqlDialect.releaseChannel(schema + ".lock_store2"));
	}

	@Test
	void everyStatementThatFreesAKeyAnnouncesItOnceAndOnlyWhenItFreedARow() {
		try (PostgreSqlJdbcLockStore store = new PostgreSqlJdbcLockStore(jdbc.dataSource())) {
			String key = "notify-" + UUID.randomUUID();
			List<String> heard = new CopyOnWriteArrayList<>();
			try (ReleaseNotifyingLockStore.Subscription subscription = store.subscribe(key,
					() -> heard.add("released"))) {
				awaitListening(store);
				String owner = token();
				assertThat(store.tryAcquire(key, owner, TTL).isAcquired()).isTrue();
				assertThat(store.release(key, token())).as("release by another token").isFalse();
				assertThat(store.release(key, owner)).isTrue();
				await("the release's announcement").atMost(Duration.ofSeconds(5)).until(() -> heard.size() == 1);
				assertThat(store.release(key, owner)).as("second release").isFalse();

				assertThat(store.tryAcquire(key, owner, TTL).isAcquired()).isTrue();
				assertThat(store.forceRelease(key)).isTrue();
				await("the force-release's announcement").atMost(Duration.ofSeconds(5)).until(() -> heard.size() == 2);
				assertThat(store.forceRelease(key)).as("force-release of a free key").isFalse();

				// Announcements of one connection come in commit order: a refused
				// release announced nothing if the next release is the next heard
				assertThat(store.tryAcquire(key, owner, TTL).isAcquired()).isTrue();
				assertThat(store.putResult(key, owner, new byte[] { 7 }, TTL)).isTrue();
				assertThat(store.release(key, owner)).isTrue();
				await("the announcement of a release that keeps its result").atMost(Duration.ofSeconds(5))
					.until(() -> heard.size() == 3);
				assertThat(store.getResult(key)).containsExactly(7);
				assertThat(heard).hasSize(3);
			}
		}
	}

	@Test
	void releaseOfASharedLocksPlaceIsAnnounced() {
		try (PostgreSqlJdbcLockStore store = new PostgreSqlJdbcLockStore(jdbc.dataSource())) {
			String key = "notify-shared-" + UUID.randomUUID();
			AtomicInteger heard = new AtomicInteger();
			try (ReleaseNotifyingLockStore.Subscription subscription = store.subscribe(key, heard::incrementAndGet)) {
				awaitListening(store);
				String reader = token();
				assertThat(store.tryAcquireRead(key, reader, TTL).isAcquired()).isTrue();
				assertThat(store.releaseShared(key, token())).isFalse();
				assertThat(store.releaseShared(key, reader)).isTrue();
				await("the shared release's announcement").atMost(Duration.ofSeconds(5)).until(() -> heard.get() == 1);
				String permit = token();
				assertThat(store.tryAcquirePermit(key, permit, TTL, 2).isAcquired()).isTrue();
				assertThat(store.releaseShared(key, permit)).isTrue();
				await("the permit's announcement").atMost(Duration.ofSeconds(5)).until(() -> heard.get() == 2);
			}
		}
	}

	/**
	 * Without a notification, the waiter, after six tries (its first two, then polls
	 * after about 0.1, 0.2, 0.4 and 0.8 s), polls about once a second; woken by the
	 * release's announcement, it takes the lock at once.
	 */
	@Test
	void waiterIsWokenByTheReleaseLongBeforeItsNextPoll() throws Exception {
		try (CountingStore store = new CountingStore(jdbc.dataSource())) {
			LockTemplate template = new LockTemplate(store, "");
			String key = "notify-wait-" + UUID.randomUUID();
			String holder = token();
			assertThat(store.tryAcquire(key, holder, TTL).isAcquired()).isTrue();
			CompletableFuture<LockAttempt> waiter = CompletableFuture.supplyAsync(() -> template.tryAcquire(key,
					LockOptions.ttl(TTL).withWaitTime(Duration.ofSeconds(20)).withRenewal(false)));
			// The holder's try, then the waiter's six
			await("the waiter's sixth try").atMost(Duration.ofSeconds(10))
				.until(() -> store.tries.get() >= 7 && store.releaseListener().isListening());
			long heardBefore = store.releaseListener().notificationsReceived();
			long released = System.nanoTime();
			assertThat(store.release(key, holder)).isTrue();
			LockAttempt attempt = waiter.get(5, TimeUnit.SECONDS);
			Duration handoff = Duration.ofNanos(System.nanoTime() - released);
			assertThat(attempt.isAcquired()).isTrue();
			assertThat(store.releaseListener().notificationsReceived()).as("announcements heard")
				.isGreaterThan(heardBefore);
			assertThat(handoff).as("time from the release to the acquisition").isLessThan(Duration.ofMillis(400));
			attempt.lease().close();
		}
	}

	/**
	 * The listening connection skips pgjdbc's trailing read (the test fails when a driver
	 * upgrade changes the classes it relies on), so it reads only what has arrived:
	 * announcements committed together, more than one socket read's worth, must all still
	 * be passed on. The connection returns to the pool with the driver's behaviour.
	 */
	@Test
	void listenerSkipsTheDriversTrailingReadLosesNoAnnouncementOfABurstAndRestoresTheConnection() throws SQLException {
		int keys = 400;
		try (HikariDataSource pool = TestDataSources.postgres(postgres.server())) {
			List<String> storedKeys = new ArrayList<>();
			AtomicInteger heard = new AtomicInteger();
			try (PostgreSqlJdbcLockStore store = new PostgreSqlJdbcLockStore(pool, "notify_burst",
					Duration.ofSeconds(2))) {
				store.createSchema();
				List<ReleaseNotifyingLockStore.Subscription> subscriptions = new ArrayList<>();
				for (int i = 0; i < keys; i++) {
					String key = "notify-burst-" + i + "-" + "x".repeat(40);
					storedKeys.add(JdbcLockStore.storedKey(key));
					subscriptions.add(store.subscribe(key, heard::incrementAndGet));
				}
				awaitListening(store);
				assertThat(store.releaseListener().isTrailingReadSkipped()).as("pgjdbc's trailing read skipped")
					.isTrue();
				try (Connection connection = pool.getConnection();
						PreparedStatement burst = connection
							.prepareStatement("SELECT count(pg_notify(?, key)) FROM unnest(?::text[]) AS key")) {
					burst.setString(1, store.getReleaseChannel());
					burst.setArray(2, connection.createArrayOf("text", storedKeys.toArray()));
					try (ResultSet rows = burst.executeQuery()) {
						assertThat(rows.next()).isTrue();
						assertThat(rows.getInt(1)).isEqualTo(keys);
					}
				}
				await("every announcement of the burst").atMost(Duration.ofSeconds(10))
					.until(() -> heard.get() == keys);
				subscriptions.forEach(ReleaseNotifyingLockStore.Subscription::close);
			}
			// Every connection of the pool at once: the listening one among them
			List<Connection> all = new ArrayList<>();
			try {
				for (int i = 0; i < pool.getMaximumPoolSize(); i++) {
					all.add(pool.getConnection());
				}
				assertThat(all).noneMatch(PgjdbcTrailingRead::isSkipped);
			}
			finally {
				for (Connection connection : all) {
					connection.close();
				}
			}
		}
	}

	@Test
	void listenerListensAgainAfterTheServerEndsItsSession() throws SQLException {
		try (HikariDataSource pool = TestDataSources.postgres(postgres.server());
				PostgreSqlJdbcLockStore store = new PostgreSqlJdbcLockStore(pool, "notify_reconnect",
						Duration.ofSeconds(1))) {
			store.createSchema();
			String key = "notify-reconnect-" + UUID.randomUUID();
			AtomicInteger heard = new AtomicInteger();
			try (ReleaseNotifyingLockStore.Subscription subscription = store.subscribe(key, heard::incrementAndGet)) {
				awaitListening(store);
				int terminated = terminateListeners(store.getReleaseChannel());
				assertThat(terminated).as("listening sessions ended").isEqualTo(1);
				// The pool evicts the ended connection: the first new attempt listens
				await("listening again").atMost(Duration.ofSeconds(10))
					.until(() -> store.releaseListener().listens() == 2 && store.releaseListener().isListening());
				String owner = token();
				assertThat(store.tryAcquire(key, owner, TTL).isAcquired()).isTrue();
				assertThat(store.release(key, owner)).isTrue();
				await("the announcement after the new LISTEN").atMost(Duration.ofSeconds(5))
					.until(() -> heard.get() == 1);
			}
		}
	}

	@Test
	void pausedServerDoesNotHoldUpClose() {
		try (HikariDataSource pool = TestDataSources.postgres(postgres.server(), Duration.ofSeconds(1), true)) {
			PostgreSqlJdbcLockStore store = new PostgreSqlJdbcLockStore(pool, JdbcLockStore.DEFAULT_TABLE_NAME,
					Duration.ofSeconds(1));
			store.subscribe("notify-paused", () -> {
			});
			awaitListening(store);
			postgres.server().pause();
			try {
				long start = System.nanoTime();
				store.close();
				// The wait for notifications (0.5 s), then UNLISTEN (up to 1 s)
				assertThat(Duration.ofNanos(System.nanoTime() - start)).as("time to close")
					.isLessThan(Duration.ofMillis(2500));
				assertThat(store.releaseListener().isRunning()).as("listening thread running").isFalse();
			}
			finally {
				postgres.server().resume();
			}
		}
	}

	private static void awaitListening(PostgreSqlJdbcLockStore store) {
		await("the store's LISTEN").atMost(Duration.ofSeconds(5)).until(store.releaseListener()::isListening);
	}

	private static int terminateListeners(String channel) throws SQLException {
		DataSource dataSource = jdbc.dataSource();
		try (Connection connection = dataSource.getConnection();
				PreparedStatement statement = connection.prepareStatement("SELECT pg_terminate_backend(pid) FROM "
						+ "pg_stat_activity WHERE query = ? AND pid <> pg_backend_pid()")) {
			statement.setString(1, "LISTEN \"" + channel + "\"");
			int terminated = 0;
			try (ResultSet rows = statement.executeQuery()) {
				while (rows.next()) {
					terminated += rows.getBoolean(1) ? 1 : 0;
				}
			}
			return terminated;
		}
	}

	private static String token() {
		return UUID.randomUUID().toString();
	}

	/** The store, counting the tries of acquisitions. */
	private static final class CountingStore extends PostgreSqlJdbcLockStore {

		final AtomicInteger tries = new AtomicInteger();

		CountingStore(DataSource dataSource) {
			super(dataSource);
		}

		@Override
		public AcquireReply tryAcquire(String key, String token, Duration ttl) {
			this.tries.incrementAndGet();
			return super.tryAcquire(key, token, ttl);
		}

	}

}
