package dev.lockstarter.store.dynamodb;

import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.TimeToLiveDescription;
import software.amazon.awssdk.services.dynamodb.model.TimeToLiveStatus;

import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.LockStoreException;
import dev.lockstarter.test.contract.ExclusionChecker;
import dev.lockstarter.test.contract.LockStoreContractTests;
import dev.lockstarter.test.dynamodb.DynamoDbLocalServerExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@link LockStoreContractTests} for {@link DynamoDbLockStore}, against a real DynamoDB
 * Local server that keeps its data on disk (so that, as in DynamoDB, locks survive a
 * restart), and the DynamoDB store's own promises: one request per operation, fencing
 * tokens, the item layout and Time to Live, clock skew in the opt-in client clock mode,
 * and failing closed.
 */
class DynamoDbLockStoreContractTests extends LockStoreContractTests {

	private static final String TABLE = "locks";

	private static final Duration TTL = Duration.ofSeconds(30);

	@RegisterExtension
	static final DynamoDbLocalServerExtension dynamoDb = DynamoDbLocalServerExtension.persistent();

	private static final AtomicInteger requests = new AtomicInteger();

	private static DynamoDbClient client;

	private static DynamoDbLockStore sharedStore;

	@BeforeAll
	static void createSharedStore() {
		client = client(Duration.ofSeconds(5));
		sharedStore = new DynamoDbLockStore(client, TABLE);
		sharedStore.createTableIfNotExists();
	}

	@AfterAll
	static void closeClient() {
		if (client != null) {
			client.close();
		}
	}

	@Override
	protected LockStore createStore() {
		return sharedStore;
	}

	@Override
	protected boolean issuesFencingTokens() {
		return true;
	}

	@Override
	protected void restartServer() {
		dynamoDb.server().restart();
	}

	@Override
	protected boolean locksSurviveServerRestart() {
		return true;
	}

	@Override
	protected ExclusionChecker exclusionChecker() {
		// DynamoDB Local, in this JVM, answers a few hundred requests a second on two
		// cores
		return new ExclusionChecker().threads(8).attemptsPerThread(60);
	}

	@Test
	void eachOperationIsOneRequest() {
		String key = uniqueKey("requests");
		String owner = uniqueToken();
		requests.set(0);
		assertThat(store().tryAcquire(key, owner, TTL).isAcquired()).isTrue();
		assertThat(requests.get()).as("requests to acquire").isOne();
		assertThat(store().tryAcquire(key, uniqueToken(), TTL).isAcquired()).isFalse();
		assertThat(requests.get()).as("requests to acquire, then to be rejected").isEqualTo(2);
		assertThat(store().extend(key, owner, TTL)).isTrue();
		assertThat(store().release(key, owner)).isTrue();
		assertThat(requests.get()).as("requests to acquire, be rejected, extend and release").isEqualTo(4);
	}

	@Test
	void fencingTokensIncreaseWithEveryAcquisitionOfAKey() throws InterruptedException {
		String key = uniqueKey("fencing");
		String first = uniqueToken();
		AcquireReply acquired = store().tryAcquire(key, first, TTL);
		long firstToken = acquired.fencingToken();
		assertThat(firstToken)
			.isGreaterThan(System.currentTimeMillis() * 1000 - Duration.ofMinutes(1).toNanos() / 1000);
		assertThat(store().tryAcquire(key, uniqueToken(), TTL).fencingToken()).as("token of a rejected acquisition")
			.isZero();
		assertThat(store().release(key, first)).isTrue();
		String second = uniqueToken();
		long secondToken = store().tryAcquire(key, second, Duration.ofMillis(100)).fencingToken();
		assertThat(secondToken).as("token after a release").isGreaterThan(firstToken);
		Thread.sleep(150);
		long thirdToken = store().tryAcquire(key, uniqueToken(), TTL).fencingToken();
		assertThat(thirdToken).as("token after taking an expired lock over").isGreaterThan(secondToken);
	}

	@Test
	void acquiringAgainWithTheSameTokenAnswersTheSameAcquisition() {
		String key = uniqueKey("same-token");
		String owner = uniqueToken();
		AcquireReply first = store().tryAcquire(key, owner, TTL);
		AcquireReply again = store().tryAcquire(key, owner, TTL);
		assertThat(again.isAcquired()).as("acquire repeated with the owner's token, as an SDK retry would").isTrue();
		assertThat(again.fencingToken()).isEqualTo(first.fencingToken());
		assertThat(store().release(key, owner)).isTrue();
	}

	@Test
	void releasedItemKeepsItsFencingCounterAndTimeToLiveButNoOwner() {
		String key = uniqueKey("item");
		String owner = uniqueToken();
		long before = System.currentTimeMillis();
		long fencingToken = store().tryAcquire(key, owner, TTL).fencingToken();
		Map<String, AttributeValue> held = item(key);
		assertThat(held.get(DynamoDbLockStore.OWNER).s()).isEqualTo(owner);
		assertThat(held.get(DynamoDbLockStore.LEASE_MILLIS).n()).isEqualTo(Long.toString(TTL.toMillis()));
		assertThat(held).as("no expiry time on a wall clock").doesNotContainKey(DynamoDbLockStore.EXPIRES_AT);
		String version = held.get(DynamoDbLockStore.RECORD_VERSION).n();
		long timeToLive = Long.parseLong(held.get(DynamoDbLockStore.TTL).n());
		assertThat(timeToLive).as("Time to Live, epoch seconds a day after the lease on the writer's clock")
			.isBetween((before + TTL.toMillis()) / 1000 + Duration.ofDays(1).toSeconds(),
					(System.currentTimeMillis() + TTL.toMillis()) / 1000 + Duration.ofDays(1).toSeconds() + 1);
		assertThat(store().extend(key, owner, TTL)).isTrue();
		assertThat(item(key).get(DynamoDbLockStore.RECORD_VERSION).n()).as("record version after an extension")
			.isNotEqualTo(version);
		timeToLive = Long.parseLong(item(key).get(DynamoDbLockStore.TTL).n());
		assertThat(store().release(key, owner)).isTrue();
		Map<String, AttributeValue> released = item(key);
		assertThat(released).doesNotContainKeys(DynamoDbLockStore.OWNER, DynamoDbLockStore.RECORD_VERSION,
				DynamoDbLockStore.LEASE_MILLIS, DynamoDbLockStore.EXPIRES_AT);
		assertThat(released.get(DynamoDbLockStore.FENCE).n()).isEqualTo(Long.toString(fencingToken));
		assertThat(released.get(DynamoDbLockStore.TTL).n()).isEqualTo(Long.toString(timeToLive));
	}

	@Test
	void createTableIfNotExistsIsIdempotentAndEnablesTimeToLive() {
		sharedStore.createTableIfNotExists();
		TimeToLiveDescription timeToLive = client.describeTimeToLive((request) -> request.tableName(TABLE))
			.timeToLiveDescription();
		assertThat(timeToLive.attributeName()).isEqualTo(DynamoDbLockStore.TTL);
		assertThat(timeToLive.timeToLiveStatus()).isEqualTo(TimeToLiveStatus.ENABLED);
	}

	@Test
	void missingTableFailsClosedNamingTheTable() {
		DynamoDbLockStore store = new DynamoDbLockStore(client, "no-such-table");
		assertThatExceptionOfType(LockStoreException.class)
			.isThrownBy(() -> store.tryAcquire(uniqueKey("missing"), uniqueToken(), TTL))
			.withMessageContaining("'no-such-table' does not exist");
	}

	@Test
	void stoppedServerFailsClosedWithinTheApiCallTimeout() {
		try (DynamoDbClient impatientClient = client(Duration.ofMillis(300))) {
			DynamoDbLockStore impatient = new DynamoDbLockStore(impatientClient, TABLE);
			String key = uniqueKey("stopped");
			String owner = uniqueToken();
			assertThat(impatient.tryAcquire(key, owner, TTL).isAcquired()).isTrue();
			dynamoDb.server().stop();
			long start = System.nanoTime();
			try {
				assertThatExceptionOfType(LockStoreException.class)
					.isThrownBy(() -> impatient.tryAcquire(key, uniqueToken(), TTL));
				assertThatExceptionOfType(LockStoreException.class).isThrownBy(() -> impatient.release(key, owner));
			}
			finally {
				dynamoDb.server().restart();
			}
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3));
			assertThat(impatient.release(key, owner)).isTrue();
		}
	}

	@Test
	void withTheClientClockModeAClientWhoseClockRunsAheadSeesLocksExpireEarly() {
		DynamoDbLockStore skewed = new DynamoDbLockStore(client, TABLE,
				Clock.offset(Clock.systemUTC(), Duration.ofSeconds(20)), DynamoDbExpiry.CLIENT_CLOCK);
		DynamoDbLockStore byClock = new DynamoDbLockStore(client, TABLE, Clock.systemUTC(),
				DynamoDbExpiry.CLIENT_CLOCK);
		String key = uniqueKey("skew");
		long ownerToken = byClock.tryAcquire(key, uniqueToken(), Duration.ofSeconds(10)).fencingToken();
		AcquireReply takeover = skewed.tryAcquire(key, uniqueToken(), TTL);
		assertThat(takeover.isAcquired()).as("acquire by a client whose clock is 20 s ahead of a 10 s lock's owner")
			.isTrue();
		assertThat(takeover.fencingToken()).as("fencing token of the early takeover, which a resource can check")
			.isGreaterThan(ownerToken);
	}

	private static DynamoDbClient client(Duration apiCallTimeout) {
		return SharedDynamoDbStore.clientOf(dynamoDb.endpoint())
			.overrideConfiguration((config) -> config.apiCallTimeout(apiCallTimeout)
				.addExecutionInterceptor(new ExecutionInterceptor() {

					@Override
					public void beforeTransmission(Context.BeforeTransmission context,
							ExecutionAttributes executionAttributes) {
						requests.incrementAndGet();
					}

				}))
			.build();
	}

	private static Map<String, AttributeValue> item(String key) {
		return client
			.getItem((request) -> request.tableName(TABLE)
				.key(Map.of(DynamoDbLockStore.PARTITION_KEY, AttributeValue.fromS(DynamoDbLockStore.partitionKey(key))))
				.consistentRead(true))
			.item();
	}

}
