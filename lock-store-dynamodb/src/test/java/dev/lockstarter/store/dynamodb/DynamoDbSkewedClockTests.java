package dev.lockstarter.store.dynamodb;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.test.dynamodb.DynamoDbLocalServerExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * Three {@link DynamoDbLockStore stores} on one DynamoDB Local table, each standing for
 * an application server with its own wall clock: 8 s ahead, true, and 8 s behind. Each
 * store counts expiry by what it has seen (its own {@code ObservedExpiry}), as separate
 * JVMs would; their monotonic clock is the same, as NTP stepping a wall clock would leave
 * it. By default no wall clock decides expiry: a contender never gets in while the holder
 * renews, whichever clock is ahead, a free key is taken by every store, and a crashed
 * holder's lock is taken over one time-to-live after a contender first sees it. The
 * opt-in {@link DynamoDbExpiry#CLIENT_CLOCK} mode is seed 002's conditional put, which a
 * skewed clock breaks.
 */
class DynamoDbSkewedClockTests {

	private static final String TABLE = "skewed-clock-locks";

	private static final Duration TTL = Duration.ofSeconds(2);

	private static final Duration SKEW = Duration.ofSeconds(8);

	/**
	 * How much later than one time-to-live a contender may take a crashed holder's lock.
	 */
	private static final Duration TAKEOVER_BOUND = Duration.ofMillis(500);

	@RegisterExtension
	static final DynamoDbLocalServerExtension dynamoDb = new DynamoDbLocalServerExtension();

	private static DynamoDbClient client;

	private DynamoDbLockStore ahead;

	private DynamoDbLockStore onTime;

	private DynamoDbLockStore behind;

	@BeforeAll
	static void createTable() {
		client = dynamoDb.server().createClient();
		new DynamoDbLockStore(client, TABLE).createTableIfNotExists();
	}

	@AfterAll
	static void closeClient() {
		if (client != null) {
			client.close();
		}
	}

	@BeforeEach
	void createStores() {
		this.ahead = new DynamoDbLockStore(client, TABLE, Clock.offset(Clock.systemUTC(), SKEW));
		this.onTime = new DynamoDbLockStore(client, TABLE, Clock.systemUTC());
		this.behind = new DynamoDbLockStore(client, TABLE, Clock.offset(Clock.systemUTC(), SKEW.negated()));
	}

	@Test
	void contenderWhoseClockIsAheadNeverGetsInWhileTheHolderRenews() {
		assertExcludedWhileHolderRenews(this.onTime, this.ahead);
	}

	@Test
	void contenderNeverGetsInWhileAHolderWhoseClockIsBehindRenews() {
		assertExcludedWhileHolderRenews(this.behind, this.onTime);
	}

	@Test
	void aFreeKeyIsTakenByEveryStore() {
		String shared = key("free");
		long lastToken = 0;
		for (DynamoDbLockStore store : List.of(this.ahead, this.onTime, this.behind)) {
			String own = key("free-own");
			String token = token();
			assertThat(store.tryAcquire(own, token, TTL).isAcquired()).as("a key never used").isTrue();
			assertThat(store.release(own, token)).isTrue();
			AcquireReply reply = store.tryAcquire(shared, token, TTL);
			assertThat(reply.isAcquired()).as("a key that another store released").isTrue();
			assertThat(reply.fencingToken()).isGreaterThan(lastToken);
			lastToken = reply.fencingToken();
			assertThat(store.release(shared, token)).isTrue();
		}
	}

	@Test
	void crashedHoldersLockIsTakenOverOneTimeToLiveAfterAContendersFirstSight() throws InterruptedException {
		String key = key("crashed");
		String holder = token();
		long holderToken = this.behind.tryAcquire(key, holder, TTL).fencingToken();
		long written = System.nanoTime();
		Thread.sleep(500);
		TakenOver takeover = awaitTakeover(this.ahead, key);
		assertThat(takeover.afterFirstSight()).as("takeover after the contender's first sight")
			.isGreaterThanOrEqualTo(TTL)
			.isLessThan(TTL.plus(TAKEOVER_BOUND));
		assertThat(Duration.ofNanos(takeover.at() - written)).as("takeover after the holder's last write")
			.isGreaterThanOrEqualTo(TTL);
		assertThat(takeover.fencingToken()).isGreaterThan(holderToken);
		assertThat(this.behind.extend(key, holder, TTL)).as("extend by the crashed holder, back").isFalse();
		assertThat(this.behind.release(key, holder)).as("release by the crashed holder, back").isFalse();
		assertThat(this.onTime.tryAcquire(key, token(), TTL).isAcquired()).as("still held by the new holder").isFalse();
	}

	@Test
	void firstContenderForAKeyAbandonedLongAgoWaitsOneTimeToLive() throws InterruptedException {
		String key = key("abandoned");
		assertThat(this.ahead.tryAcquire(key, token(), TTL).isAcquired()).isTrue();
		Thread.sleep(TTL.multipliedBy(2).toMillis());
		TakenOver takeover = awaitTakeover(this.behind, key);
		assertThat(takeover.afterFirstSight()).as("takeover after the contender's first sight")
			.isGreaterThanOrEqualTo(TTL)
			.isLessThan(TTL.plus(TAKEOVER_BOUND));
	}

	@Test
	void clientClockModeTakesALockOverOnceTheWallClockPassesItsExpiryTime() throws InterruptedException {
		DynamoDbLockStore holder = new DynamoDbLockStore(client, TABLE, Clock.systemUTC(), DynamoDbExpiry.CLIENT_CLOCK);
		DynamoDbLockStore contender = new DynamoDbLockStore(client, TABLE, Clock.systemUTC(),
				DynamoDbExpiry.CLIENT_CLOCK);
		String key = key("client-clock");
		long start = System.currentTimeMillis();
		long holderToken = holder.tryAcquire(key, token(), TTL).fencingToken();
		AcquireReply held = contender.tryAcquire(key, token(), TTL);
		assertThat(held.isAcquired()).as("acquire before the expiry time").isFalse();
		assertThat(held.holderRemainingTtl()).as("remaining time-to-live: the expiry time less the contender's clock")
			.isLessThanOrEqualTo(TTL)
			.isGreaterThan(TTL.minusSeconds(1));
		Thread.sleep(Math.max(0, start + TTL.toMillis() + 50 - System.currentTimeMillis()));
		DynamoDbLockStore stranger = new DynamoDbLockStore(client, TABLE, Clock.systemUTC(),
				DynamoDbExpiry.CLIENT_CLOCK);
		AcquireReply takeover = stranger.tryAcquire(key, token(), TTL);
		assertThat(takeover.isAcquired())
			.as("acquire just after the expiry time, by a store that never saw the lock: the wall clock decides")
			.isTrue();
		assertThat(takeover.fencingToken()).isGreaterThan(holderToken);
	}

	/**
	 * Why {@link DynamoDbExpiry#CLIENT_CLOCK} is opt-in: a skewed wall clock breaks its
	 * mutual exclusion, both ways.
	 */
	@Test
	void clientClockModeIsBrokenByASkewedClock() {
		DynamoDbLockStore byTrueClock = new DynamoDbLockStore(client, TABLE, Clock.systemUTC(),
				DynamoDbExpiry.CLIENT_CLOCK);
		DynamoDbLockStore byClockAhead = new DynamoDbLockStore(client, TABLE, Clock.offset(Clock.systemUTC(), SKEW),
				DynamoDbExpiry.CLIENT_CLOCK);
		DynamoDbLockStore byClockBehind = new DynamoDbLockStore(client, TABLE,
				Clock.offset(Clock.systemUTC(), SKEW.negated()), DynamoDbExpiry.CLIENT_CLOCK);
		String key = key("client-clock-ahead");
		assertThat(byTrueClock.tryAcquire(key, token(), TTL).isAcquired()).isTrue();
		assertThat(byClockAhead.tryAcquire(key, token(), TTL).isAcquired())
			.as("a contender whose clock is ahead takes a lock just acquired: the flaw of the clock mode")
			.isTrue();
		String bornExpired = key("client-clock-behind");
		assertThat(byClockBehind.tryAcquire(bornExpired, token(), TTL).isAcquired()).isTrue();
		assertThat(byTrueClock.tryAcquire(bornExpired, token(), TTL).isAcquired())
			.as("a lock written by a client whose clock is behind is born expired: the flaw of the clock mode")
			.isTrue();
	}

	/**
	 * The holder acquires and renews every third of its time-to-live, while the contender
	 * tries the key for twice the time-to-live; the contender gets it once it is
	 * released.
	 */
	private static void assertExcludedWhileHolderRenews(DynamoDbLockStore holder, DynamoDbLockStore contender) {
		String key = key("renewing");
		String token = token();
		assertThat(holder.tryAcquire(key, token, TTL).isAcquired()).isTrue();
		long start = System.nanoTime();
		long renewal = TTL.dividedBy(3).toNanos();
		long nextRenewal = start + renewal;
		int attempts = 0;
		while (System.nanoTime() - (start + TTL.multipliedBy(2).toNanos()) < 0) {
			if (System.nanoTime() - nextRenewal >= 0) {
				assertThat(holder.extend(key, token, TTL)).as("renewal by the holder").isTrue();
				nextRenewal += renewal;
			}
			AcquireReply reply = contender.tryAcquire(key, token(), TTL);
			attempts++;
			assertThat(reply.isAcquired())
				.as("acquire by the contender after %d ms, attempt %d, while the holder renews",
						Duration.ofNanos(System.nanoTime() - start).toMillis(), attempts)
				.isFalse();
			assertThat(reply.holderRemainingTtl()).isPositive().isLessThanOrEqualTo(TTL);
			assertThat(contender.timeToExpiry(key)).as("time to expiry, as the contender sees it").isPositive();
			sleep(Duration.ofMillis(50));
		}
		assertThat(attempts).isGreaterThan(10);
		assertThat(holder.release(key, token)).isTrue();
		assertThat(contender.tryAcquire(key, token(), TTL).isAcquired()).as("acquire once the holder released")
			.isTrue();
	}

	/** Try to acquire the key with {@code contender} until it gets it. */
	private static TakenOver awaitTakeover(DynamoDbLockStore contender, String key) {
		String token = token();
		long firstSight = System.nanoTime();
		AcquireReply first = contender.tryAcquire(key, token, TTL);
		assertThat(first.isAcquired()).as("acquire of a lock whose holder just crashed").isFalse();
		assertThat(first.holderRemainingTtl()).as("remaining time-to-live at the first sight").isEqualTo(TTL);
		long deadline = firstSight + TTL.plusSeconds(5).toNanos();
		while (true) {
			AcquireReply reply = contender.tryAcquire(key, token, TTL);
			long now = System.nanoTime();
			if (reply.isAcquired()) {
				return new TakenOver(now, Duration.ofNanos(now - firstSight), reply.fencingToken());
			}
			if (now - deadline > 0) {
				fail("Lock %s was not taken over within %s of its first sight", key, TTL.plusSeconds(5));
			}
			sleep(Duration.ofMillis(10));
		}
	}

	private static String key(String name) {
		return "skew:" + name + ":" + UUID.randomUUID();
	}

	private static String token() {
		return UUID.randomUUID().toString();
	}

	private static void sleep(Duration duration) {
		try {
			Thread.sleep(duration.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * A takeover of a crashed holder's lock.
	 *
	 * @param at when it succeeded, from {@link System#nanoTime()}
	 * @param afterFirstSight how long after the contender first saw the lock
	 * @param fencingToken the contender's fencing token
	 */
	private record TakenOver(long at, Duration afterFirstSight, long fencingToken) {

	}

}
