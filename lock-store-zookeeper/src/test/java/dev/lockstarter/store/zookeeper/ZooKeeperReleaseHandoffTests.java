package dev.lockstarter.store.zookeeper;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.ReleaseNotifyingLockStore.Subscription;
import dev.lockstarter.test.clock.ManualClock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The acquisition that {@link ZooKeeperLockStore#tryAcquireOnRelease} sends for a waiter
 * from the thread that announced a release, against a real ZooKeeper server run in the
 * test JVM ({@link InJvmZooKeeper}): it takes a free node with the write conditioned on
 * the version it read, leaves a held one alone, loses to a write made between its read
 * and its write, declines a node at the end of the version range, and runs on the event
 * thread without blocking it.
 */
class ZooKeeperReleaseHandoffTests {

	private static final String BASE_PATH = "/handoffs";

	private static final Duration TTL = Duration.ofSeconds(30);

	@RegisterExtension
	static final InJvmZooKeeper zookeeper = new InJvmZooKeeper();

	private static CuratorFramework client;

	private static CuratorFramework otherClient;

	@BeforeAll
	static void startClients() {
		client = TestClients.start(zookeeper.connectString());
		otherClient = TestClients.start(zookeeper.connectString());
	}

	@AfterAll
	static void closeClients() {
		if (client != null) {
			client.close();
		}
		if (otherClient != null) {
			otherClient.close();
		}
	}

	@Test
	void handoffTakesAReleasedLockWithTheZxidOfItsWriteAsFencingToken() throws Exception {
		String key = freeKey();
		ZooKeeperLockStore waiter = storeOn(client, ManualClock.start());
		String token = token();
		AcquireReply reply = handoff(waiter, key, token);
		assertThat(reply.isAcquired()).isTrue();
		assertThat(reply.fencingToken()).isEqualTo(client.checkExists().forPath(lockPath(key)).getMzxid());
		ZooKeeperLockStore other = storeOn(otherClient, ManualClock.start());
		assertThat(other.tryAcquire(key, token(), TTL).isAcquired()).as("another contender").isFalse();
		assertThat(waiter.release(key, token)).as("released by the waiter's token").isTrue();
	}

	@Test
	void handoffLeavesAHeldLockToItsHolder() throws Exception {
		String key = key("held");
		ZooKeeperLockStore holder = storeOn(otherClient, ManualClock.start());
		String holderToken = token();
		assertThat(holder.tryAcquire(key, holderToken, TTL).isAcquired()).isTrue();
		AcquireReply reply = handoff(storeOn(client, ManualClock.start()), key, token());
		assertThat(reply.isAcquired()).isFalse();
		assertThat(reply.holderRemainingTtl()).isPositive();
		assertThat(holder.release(key, holderToken)).as("still held by the holder").isTrue();
	}

	@Test
	void acquisitionBetweenTheHandoffsReadAndItsWriteKeepsTheHandoffOut() throws Exception {
		String key = freeKey();
		ZooKeeperLockStore other = storeOn(otherClient, ManualClock.start());
		String otherToken = token();
		List<AcquireReply> others = new ArrayList<>();
		// The handoff's first clock reading is the time it sends its write, after its
		// read found the node free: the other contender takes the lock there
		ZooKeeperLockStore waiter = storeOn(client,
				ManualClock.start().hookedAt(1, () -> others.add(other.tryAcquire(key, otherToken, TTL))));
		AcquireReply reply = handoff(waiter, key, token());
		assertThat(others).as("the other contender").singleElement().matches(AcquireReply::isAcquired);
		assertThat(reply.isAcquired()).as("the handoff, whose read predates the other's write").isFalse();
		assertThat(other.release(key, otherToken)).as("still held by the other contender").isTrue();
	}

	@Test
	void writeRefusedForItsVersionWhileTheNodeHoldsTheWaitersTokenIsTheWaitersGrant() throws Exception {
		String key = freeKey();
		String token = token();
		ZooKeeperLockStore other = storeOn(otherClient, ManualClock.start());
		List<AcquireReply> earlier = new ArrayList<>();
		// Stands for the handoff's own write, applied, its answer lost and sent again by
		// Curator's retry: the node holds the waiter's token when the write is refused
		ZooKeeperLockStore waiter = storeOn(client,
				ManualClock.start().hookedAt(1, () -> earlier.add(other.tryAcquire(key, token, TTL))));
		AcquireReply reply = handoff(waiter, key, token);
		assertThat(earlier).singleElement().matches(AcquireReply::isAcquired);
		assertThat(reply.isAcquired()).as("the waiter's token, found in the node").isTrue();
		assertThat(reply.fencingToken()).isEqualTo(client.checkExists().forPath(lockPath(key)).getMzxid());
		assertThat(waiter.release(key, token)).as("released at the version recorded for the waiter").isTrue();
	}

	@Test
	void handoffThatAnsweredHeldAtItsTimeoutWritesNothing() throws Exception {
		String key = freeKey();
		String token = token();
		AtomicReference<CompletableFuture<AcquireReply>> sent = new AtomicReference<>();
		// The handoff's first clock reading is the time it sends its write, after its
		// read found the node free: held there until the store's timeout has answered
		ZooKeeperLockStore waiter = new ZooKeeperLockStore(client, BASE_PATH, Duration.ofMillis(300), Clock.systemUTC(),
				ManualClock.start()
					.hookedAt(1,
							() -> await().atMost(Duration.ofSeconds(10))
								.until(() -> sent.get() != null && sent.get().isDone()))
					.expiry());
		sent.set(waiter.tryAcquireOnRelease(key, token, TTL).orElseThrow());
		AcquireReply reply = sent.get().get(10, TimeUnit.SECONDS);
		assertThat(reply.isAcquired()).as("the handoff, at its timeout").isFalse();
		await().during(Duration.ofMillis(500))
			.atMost(Duration.ofSeconds(5))
			.untilAsserted(() -> assertThat(NodeData.decodeLock(client.getData().forPath(lockPath(key))))
				.as("the lock in the node, after the handoff answered held")
				.isNull());
		ZooKeeperLockStore other = storeOn(otherClient, ManualClock.start());
		String otherToken = token();
		assertThat(other.tryAcquire(key, otherToken, TTL).isAcquired()).as("another contender, at once").isTrue();
		assertThat(other.release(key, otherToken)).isTrue();
	}

	@ParameterizedTest(name = "a free node at version {0}")
	@ValueSource(ints = { -2, -1 })
	void handoffLeavesANodeAtTheEndOfTheVersionRangeToTheWholeAcquisition(int version) throws Exception {
		String key = freeKey();
		zookeeper.setVersion(lockPath(key), version);
		ZooKeeperLockStore waiter = storeOn(client, ManualClock.start());
		String token = token();
		assertThat(handoff(waiter, key, token).isAcquired()).isFalse();
		assertThat(zookeeper.version(lockPath(key))).as("the node, untouched").isEqualTo(version);
		assertThat(waiter.tryAcquire(key, token, TTL).isAcquired()).as("the waiter's own try").isTrue();
		assertThat(zookeeper.version(lockPath(key))).isNotEqualTo(-1);
		assertThat(waiter.release(key, token)).isTrue();
	}

	@Test
	void handoffSentByTheReleaseListenerAcquiresWithoutBlockingTheEventThread() throws Exception {
		String key = key("listener");
		ZooKeeperLockStore holder = storeOn(otherClient, ManualClock.start());
		String holderToken = token();
		assertThat(holder.tryAcquire(key, holderToken, TTL).isAcquired()).isTrue();
		ZooKeeperLockStore waiter = storeOn(client, ManualClock.start());
		String token = token();
		CompletableFuture<AcquireReply> granted = new CompletableFuture<>();
		List<String> listenerThreads = new ArrayList<>();
		// Sent from the listener, on the thread that announces the release, whose reply
		// comes on that same thread: a blocking send would never see it
		try (Subscription subscription = waiter.subscribe(key, () -> {
			listenerThreads.add(Thread.currentThread().getName());
			waiter.tryAcquireOnRelease(key, token, TTL).orElseThrow().thenAccept((reply) -> {
				if (reply.isAcquired()) {
					granted.complete(reply);
				}
			});
		})) {
			awaitSubscribed(waiter, key);
			assertThat(holder.release(key, holderToken)).isTrue();
			assertThat(granted.get(5, TimeUnit.SECONDS).isAcquired()).isTrue();
		}
		assertThat(listenerThreads).as("the threads that ran the listener").isNotEmpty();
		assertThat(holder.tryAcquire(key, token(), TTL).isAcquired()).as("the former holder").isFalse();
		assertThat(waiter.release(key, token)).isTrue();
	}

	private static AcquireReply handoff(ZooKeeperLockStore store, String key, String token) throws Exception {
		return store.tryAcquireOnRelease(key, token, TTL).orElseThrow().get(5, TimeUnit.SECONDS);
	}

	/**
	 * Wait until the store's recursive watch is in place: a write of the key's node is
	 * announced to a probe subscription.
	 */
	private static void awaitSubscribed(ZooKeeperLockStore store, String key) throws Exception {
		String probe = key("probe");
		CompletableFuture<Void> announced = new CompletableFuture<>();
		try (Subscription subscription = store.subscribe(probe, () -> announced.complete(null))) {
			await().atMost(Duration.ofSeconds(5)).until(() -> {
				String token = token();
				store.tryAcquire(probe, token, TTL);
				store.release(probe, token);
				return announced.isDone();
			});
		}
	}

	/** A key whose node exists and is free: acquired and released once. */
	private static String freeKey() {
		String key = key("free");
		ZooKeeperLockStore owner = storeOn(otherClient, ManualClock.start());
		String token = token();
		assertThat(owner.tryAcquire(key, token, TTL).isAcquired()).isTrue();
		assertThat(owner.release(key, token)).isTrue();
		return key;
	}

	private static ZooKeeperLockStore storeOn(CuratorFramework client, ManualClock clock) {
		return new ZooKeeperLockStore(client, BASE_PATH, TestClients.TIMEOUT, Clock.systemUTC(), clock.expiry());
	}

	private static String lockPath(String key) {
		return BASE_PATH + "/locks/" + LockNodes.name(key);
	}

	private static String key(String name) {
		return name + "-" + UUID.randomUUID();
	}

	private static String token() {
		return UUID.randomUUID().toString();
	}

}
