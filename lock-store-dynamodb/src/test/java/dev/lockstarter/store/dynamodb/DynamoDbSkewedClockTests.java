package dev.lockstarter.store.dynamodb;

import java.time.Clock;
import java.time.Duration;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.test.contract.SkewedClockContractTests;
import dev.lockstarter.test.dynamodb.DynamoDbLocalServerExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@link SkewedClockContractTests} on one DynamoDB Local table, each store with its own
 * record of what it has seen, as separate JVMs would have. DynamoDB has no expiry of its
 * own that a condition can use, so the first contender for a key abandoned long ago waits
 * one time-to-live. The opt-in {@link DynamoDbExpiry#CLIENT_CLOCK} mode is seed 002's
 * conditional put, which a skewed clock breaks.
 */
class DynamoDbSkewedClockTests extends SkewedClockContractTests {

	private static final String TABLE = "skewed-clock-locks";

	@RegisterExtension
	static final DynamoDbLocalServerExtension dynamoDb = new DynamoDbLocalServerExtension();

	private DynamoDbClient client;

	@BeforeAll
	void createTable() {
		this.client = dynamoDb.server().createClient();
		new DynamoDbLockStore(this.client, TABLE).createTableIfNotExists();
	}

	@AfterAll
	void closeClient() {
		this.client.close();
	}

	@Override
	protected LockStore createStore(Clock wallClock) {
		return new DynamoDbLockStore(this.client, TABLE, wallClock);
	}

	@Override
	protected boolean issuesFencingTokens() {
		return true;
	}

	@Test
	void firstContenderForAKeyAbandonedLongAgoWaitsOneTimeToLive() {
		String key = key("abandoned");
		assertThat(ahead().tryAcquire(key, token(), TTL).isAcquired()).isTrue();
		sleep(TTL.multipliedBy(2));
		String token = token();
		long firstSight = System.nanoTime();
		AcquireReply first = behind().tryAcquire(key, token, TTL);
		assertThat(first.isAcquired()).as("first try on a key abandoned two time-to-lives ago").isFalse();
		assertThat(first.holderRemainingTtl()).as("time left at the first sight").isEqualTo(TTL);
		await("the takeover, from the first sight").atMost(TTL.plusSeconds(1))
			.pollInterval(Duration.ofMillis(10))
			.until(() -> behind().tryAcquire(key, token, TTL).isAcquired());
		assertThat(Duration.ofNanos(System.nanoTime() - firstSight)).as("takeover after the contender's first sight")
			.isGreaterThanOrEqualTo(TTL);
	}

	@Test
	void clientClockModeTakesALockOverOnceTheWallClockPassesItsExpiryTime() throws InterruptedException {
		DynamoDbLockStore holder = new DynamoDbLockStore(this.client, TABLE, Clock.systemUTC(),
				DynamoDbExpiry.CLIENT_CLOCK);
		DynamoDbLockStore contender = new DynamoDbLockStore(this.client, TABLE, Clock.systemUTC(),
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
		DynamoDbLockStore stranger = new DynamoDbLockStore(this.client, TABLE, Clock.systemUTC(),
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
		DynamoDbLockStore byTrueClock = new DynamoDbLockStore(this.client, TABLE, Clock.systemUTC(),
				DynamoDbExpiry.CLIENT_CLOCK);
		DynamoDbLockStore byClockAhead = new DynamoDbLockStore(this.client, TABLE,
				Clock.offset(Clock.systemUTC(), SKEW), DynamoDbExpiry.CLIENT_CLOCK);
		DynamoDbLockStore byClockBehind = new DynamoDbLockStore(this.client, TABLE,
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

}
