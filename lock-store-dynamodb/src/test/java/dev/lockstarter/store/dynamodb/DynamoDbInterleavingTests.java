package dev.lockstarter.store.dynamodb;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.ObservedExpiry;
import dev.lockstarter.test.dynamodb.DynamoDbLocalServer;
import dev.lockstarter.test.dynamodb.DynamoDbLocalServerExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Interleavings of {@link DynamoDbLockStore}'s conditional writes on one item against a
 * real DynamoDB Local, each driven to a chosen order. Every store is one application
 * instance, on a client of its own, whose {@link ObservedExpiry} counts on a clock that
 * the test moves: a contender has watched the holder's item for a whole time-to-live as
 * soon as the test says so. A {@link WriteHold} on each client holds the thread about to
 * send a chosen write (a takeover, an extension, a release, a result) until another
 * instance has written, and records the writes whose condition DynamoDB refused, which
 * shows that the held write was sent and lost. docs/stores/dynamodb.md lists these tests
 * under "Interleavings".
 */
class DynamoDbInterleavingTests {

	private static final String TABLE = "interleaving-locks";

	private static final Duration TTL = Duration.ofSeconds(2);

	@RegisterExtension
	static final DynamoDbLocalServerExtension dynamoDb = new DynamoDbLocalServerExtension();

	private static DynamoDbClient tableClient;

	private final List<DynamoDbClient> clients = new ArrayList<>();

	private final ExecutorService executor = Executors.newCachedThreadPool();

	private final String key = "lock-test:interleaving:" + UUID.randomUUID();

	@BeforeAll
	static void createTable() {
		tableClient = dynamoDb.server().createClient();
		new DynamoDbLockStore(tableClient, TABLE).createTableIfNotExists();
	}

	@AfterAll
	static void closeTableClient() {
		tableClient.close();
	}

	@AfterEach
	void shutDown() {
		this.executor.shutdownNow();
		this.clients.forEach(DynamoDbClient::close);
	}

	@Test
	void aHolderThatExtendsBetweenTheContendersReadAndItsTakeoverKeepsTheLock() throws Exception {
		Instance holder = new Instance();
		Instance contender = new Instance();
		assertThat(holder.store.tryAcquire(this.key, "holder", TTL).isAcquired()).isTrue();
		assertFirstSight(contender, "contender");
		contender.advance(TTL);
		WriteHold.Held takeover = contender.hold.next(Write.TAKEOVER);
		Future<AcquireReply> acquisition = run(() -> contender.store.tryAcquire(this.key, "contender", TTL));
		takeover.awaitReached();
		assertThat(holder.store.extend(this.key, "holder", TTL)).as("the holder's extension").isTrue();
		takeover.let();
		AcquireReply reply = acquisition.get(10, TimeUnit.SECONDS);
		assertThat(reply.isAcquired()).as("the takeover of a lock extended after it was read").isFalse();
		assertThat(reply.holderRemainingTtl()).as("the contender counts the new version from its first sight")
			.isEqualTo(TTL);
		assertThat(contender.hold.refused(Write.TAKEOVER)).as("takeovers refused by their condition").isOne();
		assertHeldBy(holder, "holder");
	}

	@Test
	void aReleaseAfterTheTimeToLiveThatATakeoverOvertakesFreesNothingOfTheNewHolder() throws Exception {
		Instance holder = new Instance();
		Instance contender = new Instance();
		assertThat(holder.store.tryAcquire(this.key, "stale", TTL).isAcquired()).isTrue();
		assertFirstSight(contender, "current");
		contender.advance(TTL);
		holder.advance(TTL);
		WriteHold.Held release = holder.hold.next(Write.RELEASE);
		Future<Boolean> released = run(() -> holder.store.release(this.key, "stale"));
		release.awaitReached();
		assertThat(contender.store.tryAcquire(this.key, "current", TTL).isAcquired()).as("takeover").isTrue();
		release.let();
		assertThat(released.get(10, TimeUnit.SECONDS)).as("the stale holder's release").isFalse();
		assertThat(holder.hold.refused(Write.RELEASE)).as("releases refused by their condition").isOne();
		assertHeldBy(contender, "current");
	}

	@Test
	void aReleaseAfterTheTimeToLiveThatLandsBeforeTheTakeoverFreesTheKeyForTheContender() throws Exception {
		Instance holder = new Instance();
		Instance contender = new Instance();
		AcquireReply held = holder.store.tryAcquire(this.key, "stale", TTL);
		assertThat(held.isAcquired()).isTrue();
		assertFirstSight(contender, "current");
		contender.advance(TTL);
		holder.advance(TTL);
		WriteHold.Held takeover = contender.hold.next(Write.TAKEOVER);
		Future<AcquireReply> acquisition = run(() -> contender.store.tryAcquire(this.key, "current", TTL));
		takeover.awaitReached();
		assertThat(holder.store.release(this.key, "stale")).as("a release after the holder's own TTL").isFalse();
		takeover.let();
		AcquireReply reply = acquisition.get(10, TimeUnit.SECONDS);
		assertThat(reply.isAcquired()).as("the contender, after the release").isTrue();
		assertThat(reply.fencingToken()).isGreaterThan(held.fencingToken());
		assertThat(contender.hold.refused(Write.TAKEOVER)).as("takeovers refused once the owner was removed").isOne();
		assertHeldBy(contender, "current");
	}

	@Test
	void anExtensionOvertakenByATakeoverFailsAndLeavesTheNewHolder() throws Exception {
		Instance holder = new Instance();
		Instance contender = new Instance();
		assertThat(holder.store.tryAcquire(this.key, "stale", TTL).isAcquired()).isTrue();
		assertFirstSight(contender, "current");
		contender.advance(TTL);
		// Its own count still within the TTL: the extension is sent
		WriteHold.Held extension = holder.hold.next(Write.EXTEND);
		Future<Boolean> extended = run(() -> holder.store.extend(this.key, "stale", TTL));
		extension.awaitReached();
		assertThat(contender.store.tryAcquire(this.key, "current", TTL).isAcquired()).as("takeover").isTrue();
		extension.let();
		assertThat(extended.get(10, TimeUnit.SECONDS)).as("the stale holder's extension").isFalse();
		assertThat(holder.hold.refused(Write.EXTEND)).as("extensions refused by their condition").isOne();
		assertHeldBy(contender, "current");
	}

	@Test
	void ofTwoContendersThatWatchedTheSameVersionExactlyOneTakesTheLockOver() throws Exception {
		Instance crashed = new Instance();
		Instance first = new Instance();
		Instance second = new Instance();
		assertThat(crashed.store.tryAcquire(this.key, "crashed", TTL).isAcquired()).isTrue();
		assertFirstSight(first, "first");
		assertFirstSight(second, "second");
		first.advance(TTL);
		second.advance(TTL);
		WriteHold.Held takeover = second.hold.next(Write.TAKEOVER);
		Future<AcquireReply> late = run(() -> second.store.tryAcquire(this.key, "second", TTL));
		takeover.awaitReached();
		assertThat(first.store.tryAcquire(this.key, "first", TTL).isAcquired()).as("the first takeover").isTrue();
		takeover.let();
		AcquireReply reply = late.get(10, TimeUnit.SECONDS);
		assertThat(reply.isAcquired()).as("the second takeover, on the same version").isFalse();
		assertThat(reply.holderRemainingTtl()).isEqualTo(TTL);
		assertThat(second.hold.refused(Write.TAKEOVER)).as("takeovers refused by their condition").isOne();
		assertHeldBy(first, "first");
	}

	@Test
	void aResultWrittenAfterATakeoverIsRefused() throws Exception {
		Instance holder = new Instance();
		Instance contender = new Instance();
		assertThat(holder.store.tryAcquire(this.key, "stale", TTL).isAcquired()).isTrue();
		assertFirstSight(contender, "current");
		contender.advance(TTL);
		WriteHold.Held put = holder.hold.next(Write.RESULT);
		Future<Boolean> kept = run(
				() -> holder.store.putResult(this.key, "stale", bytes("stale"), Duration.ofMinutes(1)));
		put.awaitReached();
		assertThat(contender.store.tryAcquire(this.key, "current", TTL).isAcquired()).as("takeover").isTrue();
		put.let();
		assertThat(kept.get(10, TimeUnit.SECONDS)).as("the stale holder's result").isFalse();
		assertThat(holder.hold.refused(Write.RESULT)).as("results refused by their condition").isOne();
		assertThat(contender.store.getResult(this.key)).isNull();
		assertThat(contender.store.putResult(this.key, "current", bytes("current"), Duration.ofMinutes(1))).isTrue();
		assertThat(contender.store.getResult(this.key)).isEqualTo(bytes("current"));
		assertHeldBy(contender, "current");
	}

	/** The contender's first sight of the holder's item: refused for a whole TTL. */
	private void assertFirstSight(Instance contender, String token) {
		AcquireReply first = contender.store.tryAcquire(this.key, token, TTL);
		assertThat(first.isAcquired()).as("the first try of %s", token).isFalse();
		assertThat(first.holderRemainingTtl()).isEqualTo(TTL);
	}

	/**
	 * The lock is the token's: another instance is refused, and the owner extends and
	 * releases it.
	 */
	private void assertHeldBy(Instance owner, String token) {
		assertThat(new Instance().store.tryAcquire(this.key, "probe", TTL).isAcquired()).as("held").isFalse();
		assertThat(owner.store.extend(this.key, token, TTL)).as("extended by %s", token).isTrue();
		assertThat(owner.store.release(this.key, token)).as("released by %s", token).isTrue();
	}

	private <T> Future<T> run(Callable<T> operation) {
		return this.executor.submit(operation);
	}

	private static byte[] bytes(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

	/**
	 * One application instance: a store on a client of its own with a {@link WriteHold},
	 * counting silence on a monotonic clock that the test moves.
	 */
	private final class Instance {

		private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

		private final WriteHold hold = new WriteHold();

		private final DynamoDbLockStore store;

		Instance() {
			DynamoDbClient client = DynamoDbClient.builder()
				.endpointOverride(dynamoDb.endpoint())
				.region(Region.of(DynamoDbLocalServer.REGION))
				.credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local")))
				.overrideConfiguration((config) -> config.addExecutionInterceptor(this.hold))
				.build();
			DynamoDbInterleavingTests.this.clients.add(client);
			this.store = new DynamoDbLockStore(client, TABLE, Clock.systemUTC(), DynamoDbExpiry.OBSERVED,
					new ObservedExpiry(this.nanos::get, 1000));
		}

		void advance(Duration duration) {
			this.nanos.addAndGet(duration.toNanos());
		}

	}

	/** The conditional writes of the store, told apart by their expressions. */
	enum Write {

		ACQUIRE, TAKEOVER, EXTEND, RELEASE, RESULT;

		static Write of(UpdateItemRequest request) {
			String update = String.valueOf(request.updateExpression());
			if (String.valueOf(request.conditionExpression()).contains(":seen")) {
				return TAKEOVER;
			}
			if (update.startsWith("SET #owner")) {
				return ACQUIRE;
			}
			if (update.startsWith("SET #version")) {
				return EXTEND;
			}
			return update.startsWith("REMOVE") ? RELEASE : RESULT;
		}

	}

	/**
	 * Holds the thread about to send the next write of a kind, on the calling thread,
	 * before the request leaves the client; and counts the writes of each kind whose
	 * condition failed.
	 */
	static final class WriteHold implements ExecutionInterceptor {

		private final AtomicReference<Held> armed = new AtomicReference<>();

		private final Map<Write, AtomicLong> refused = new ConcurrentHashMap<>();

		Held next(Write write) {
			Held held = new Held(write);
			this.armed.set(held);
			return held;
		}

		long refused(Write write) {
			AtomicLong count = this.refused.get(write);
			return (count != null) ? count.get() : 0;
		}

		@Override
		public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes executionAttributes) {
			if (context.request() instanceof UpdateItemRequest request) {
				Held held = this.armed.get();
				if (held != null && held.write == Write.of(request) && this.armed.compareAndSet(held, null)) {
					held.hold();
				}
			}
		}

		@Override
		public void onExecutionFailure(Context.FailedExecution context, ExecutionAttributes executionAttributes) {
			if (context.request() instanceof UpdateItemRequest request
					&& context.exception() instanceof ConditionalCheckFailedException) {
				this.refused.computeIfAbsent(Write.of(request), (write) -> new AtomicLong()).incrementAndGet();
			}
		}

		static final class Held {

			private final Write write;

			private final CountDownLatch reached = new CountDownLatch(1);

			private final CountDownLatch let = new CountDownLatch(1);

			Held(Write write) {
				this.write = write;
			}

			void awaitReached() throws InterruptedException {
				assertThat(this.reached.await(10, TimeUnit.SECONDS)).as("a %s was about to be sent", this.write)
					.isTrue();
			}

			void let() {
				this.let.countDown();
			}

			private void hold() {
				this.reached.countDown();
				try {
					if (!this.let.await(10, TimeUnit.SECONDS)) {
						throw new IllegalStateException("The held " + this.write + " was never let go");
					}
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					throw new IllegalStateException(ex);
				}
			}

		}

	}

}
