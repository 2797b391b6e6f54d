package dev.lockstarter.store.zookeeper;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.common.PathUtils;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.LockStoreException;
import dev.lockstarter.store.MultiKeyAcquireReply;
import dev.lockstarter.store.ReleaseNotifyingLockStore.Subscription;
import dev.lockstarter.test.clock.ManualClock;
import dev.lockstarter.test.contract.ExclusionChecker;
import dev.lockstarter.test.contract.LockStoreContractTests;
import dev.lockstarter.test.zookeeper.ZooKeeperEnsemble;
import dev.lockstarter.test.zookeeper.ZooKeeperEnsembleExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@link LockStoreContractTests} for {@link ZooKeeperLockStore} on a real ensemble of
 * three servers (the client knows all three), and the ZooKeeper store's own promises: the
 * node layout (persistent nodes holding a token and a time-to-live, never deleted),
 * fencing tokens from the zxid of the acquiring write, exactly one winner among
 * contenders taking an expired lock over, keys as one path segment, release notifications
 * from the recursive watch, and a lock that outlives its holder's session until its
 * time-to-live.
 * <p>
 * Tests that make locks expire by hand give each store its own monotonic clock
 * ({@link ManualClock}), on which the store counts how long it has seen a lock unchanged:
 * such a store stands for a JVM of its own.
 */
class ZooKeeperLockStoreContractTests extends LockStoreContractTests {

	private static final Duration TTL = Duration.ofSeconds(30);

	private static final int CONTENDERS = 8;

	@RegisterExtension
	static final ZooKeeperEnsembleExtension ensemble = new ZooKeeperEnsembleExtension();

	private static CuratorFramework client;

	private static ZooKeeperLockStore sharedStore;

	@BeforeAll
	static void createSharedStore() {
		client = TestClients.start(ensemble.connectString());
		sharedStore = new ZooKeeperLockStore(client);
	}

	@AfterAll
	static void closeClient() {
		if (sharedStore != null) {
			sharedStore.close();
		}
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
		ZooKeeperEnsemble servers = ensemble.server();
		servers.servers().forEach((server) -> server.kill());
		servers.servers().forEach((server) -> server.restart());
		servers.awaitFormed(Duration.ofSeconds(30));
	}

	@Override
	protected boolean locksSurviveServerRestart() {
		// The holder's session outlives a restart shorter than its timeout
		return true;
	}

	@Override
	protected ExclusionChecker exclusionChecker() {
		return new ExclusionChecker().threads(8).attemptsPerThread(50);
	}

	@Test
	void lockIsAPersistentNodeHoldingTokenAndTimeToLiveThatAReleaseFreesWithoutDeletingIt() throws Exception {
		String key = uniqueKey("layout");
		String owner = uniqueToken();
		String path = ZooKeeperLockStore.DEFAULT_BASE_PATH + "/locks/" + LockNodes.name(key);
		AcquireReply acquired = store().tryAcquire(key, owner, TTL);
		Stat stat = new Stat();
		byte[] data = client.getData().storingStatIn(stat).forPath(path);
		assertThat(stat.getEphemeralOwner()).as("persistent, bound to no session").isZero();
		assertThat(acquired.fencingToken()).as("fencing token: the zxid of the acquiring write")
			.isEqualTo(stat.getMzxid());
		NodeData.Lock lock = NodeData.decodeLock(data);
		assertThat(lock.token()).isEqualTo(owner);
		assertThat(lock.ttl()).as("a duration, no point in time of any clock").isEqualTo(TTL);
		assertThat(store().release(key, owner)).isTrue();
		Stat released = new Stat();
		assertThat(client.getData().storingStatIn(released).forPath(path)).as("free").isEqualTo(NodeData.free(owner));
		assertThat(released.getCzxid()).as("the same node").isEqualTo(stat.getCzxid());
		assertThat(released.getVersion()).isGreaterThan(stat.getVersion());
		AcquireReply next = store().tryAcquire(key, uniqueToken(), TTL);
		assertThat(next.isAcquired()).isTrue();
		assertThat(client.checkExists().forPath(path).getCzxid()).as("taken again in place").isEqualTo(stat.getCzxid());
		assertThat(next.fencingToken()).isGreaterThan(acquired.fencingToken());
	}

	@Test
	void contendersTakingOverAnExpiredLockHaveExactlyOneWinnerEveryRound() throws Exception {
		// Every round takes over the lock the previous round's winner took over: in a
		// design that deletes and re-creates the node, every such node has the same
		// version, and a contender's write at the version it read may land on the node
		// another contender has just created
		String key = uniqueKey("takeover-race");
		ManualClock clock = ManualClock.start();
		CuratorFramework secondClient = TestClients.start(ensemble.connectString());
		ExecutorService pool = Executors.newFixedThreadPool(CONTENDERS);
		try {
			List<ZooKeeperLockStore> contenders = new ArrayList<>();
			for (int i = 0; i < CONTENDERS; i++) {
				contenders.add(storeOn((i % 2 == 0) ? client : secondClient, clock));
			}
			assertThat(contenders.get(0).tryAcquire(key, uniqueToken(), TTL).isAcquired()).isTrue();
			List<Integer> winners = new ArrayList<>();
			for (int round = 0; round < 12; round++) {
				// Every contender sees the lock held first: its wait counts from that
				// sight
				for (ZooKeeperLockStore contender : contenders) {
					assertThat(contender.tryAcquire(key, uniqueToken(), TTL).isAcquired()).isFalse();
				}
				clock.advance(TTL.plusSeconds(1));
				CyclicBarrier start = new CyclicBarrier(CONTENDERS);
				List<Future<AcquireReply>> replies = new ArrayList<>();
				for (ZooKeeperLockStore contender : contenders) {
					replies.add(pool.submit(() -> {
						start.await(10, TimeUnit.SECONDS);
						return contender.tryAcquire(key, UUID.randomUUID().toString(), TTL);
					}));
				}
				int acquired = 0;
				for (Future<AcquireReply> reply : replies) {
					acquired += reply.get(30, TimeUnit.SECONDS).isAcquired() ? 1 : 0;
				}
				winners.add(acquired);
			}
			assertThat(winners).as("winners of every round").containsOnly(1);
		}
		finally {
			pool.shutdownNow();
			secondClient.close();
		}
	}

	@Test
	void takeoverBetweenAContendersReadAndItsWriteKeepsTheContenderOut() throws Exception {
		String key = uniqueKey("takeover-between");
		ManualClock clock = ManualClock.start();
		ZooKeeperLockStore plain = storeOn(client, clock);
		assertThat(plain.tryAcquire(key, uniqueToken(), TTL).isAcquired()).isTrue();
		clock.advance(TTL.plusSeconds(1));
		assertThat(plain.tryAcquire(key, uniqueToken(), TTL).isAcquired()).as("an expired lock taken over").isTrue();
		CuratorFramework otherClient = TestClients.start(ensemble.connectString());
		try {
			ZooKeeperLockStore other = storeOn(otherClient, clock);
			String otherToken = uniqueToken();
			List<AcquireReply> otherReplies = new ArrayList<>();
			// The contender reads its clock a second time right after reading the node,
			// when it judges the holder's record, before it writes: the other client
			// takes
			// the lock over there
			ZooKeeperLockStore contender = storeOn(client,
					clock.hookedAt(2, () -> otherReplies.add(other.tryAcquire(key, otherToken, TTL))));
			// Both see the lock held first (the contender's first reading), then both
			// watch it unchanged for longer than its time-to-live
			assertThat(other.tryAcquire(key, uniqueToken(), TTL).isAcquired()).isFalse();
			assertThat(contender.tryAcquire(key, uniqueToken(), TTL).isAcquired()).isFalse();
			clock.advance(TTL.plusSeconds(1));
			AcquireReply contended = contender.tryAcquire(key, uniqueToken(), TTL);
			assertThat(otherReplies).as("the other client's takeover")
				.singleElement()
				.matches(AcquireReply::isAcquired);
			assertThat(contended.isAcquired()).as("the contender, whose read predates the takeover").isFalse();
			assertThat(other.release(key, otherToken)).as("still held by the other client").isTrue();
		}
		finally {
			otherClient.close();
		}
	}

	@Test
	void releaseAndNewAcquisitionBetweenAContendersReadAndItsWriteKeepTheContenderOut() throws Exception {
		// The contender has watched the owner's lock unchanged for longer than its
		// time-to-live on its own clock, while the owner (on a clock of its own) still
		// releases it, and a third client acquires it at once
		String key = uniqueKey("release-between");
		ZooKeeperLockStore owner = storeOn(client, ManualClock.start());
		String ownerToken = uniqueToken();
		assertThat(owner.tryAcquire(key, ownerToken, Duration.ofSeconds(1)).isAcquired()).isTrue();
		String thirdToken = uniqueToken();
		List<Boolean> ownerReleased = new ArrayList<>();
		List<AcquireReply> thirdReplies = new ArrayList<>();
		ManualClock contenderClock = ManualClock.start();
		ZooKeeperLockStore contender = storeOn(client, contenderClock.hookedAt(2, () -> {
			ownerReleased.add(owner.release(key, ownerToken));
			thirdReplies.add(owner.tryAcquire(key, thirdToken, TTL));
		}));
		assertThat(contender.tryAcquire(key, uniqueToken(), TTL).isAcquired()).as("first sight").isFalse();
		contenderClock.advance(Duration.ofSeconds(5));
		AcquireReply contended = contender.tryAcquire(key, uniqueToken(), TTL);
		assertThat(ownerReleased).containsExactly(true);
		assertThat(thirdReplies).singleElement().matches(AcquireReply::isAcquired);
		assertThat(contended.isAcquired()).as("the contender, whose read predates the release").isFalse();
		assertThat(owner.release(key, thirdToken)).as("still held by the third owner").isTrue();
	}

	@Test
	void releaseAtTheVersionOfItsOwnWriteFailsOverToReadingWhenAnotherHolderWroteSince() throws Exception {
		// The owner's clock says its lock still runs; the other client has watched it
		// unchanged for longer than its time-to-live on its own clock and takes it over.
		// The owner's release, at the version it wrote, must find the node changed and
		// leave the other holder's lock alone
		String key = uniqueKey("own-write-overtaken");
		ManualClock otherClock = ManualClock.start();
		ZooKeeperLockStore owner = storeOn(client, ManualClock.start());
		ZooKeeperLockStore other = storeOn(client, otherClock);
		String ownerToken = uniqueToken();
		String otherToken = uniqueToken();
		assertThat(owner.tryAcquire(key, ownerToken, TTL).isAcquired()).isTrue();
		assertThat(other.tryAcquire(key, otherToken, TTL).isAcquired()).as("first sight").isFalse();
		otherClock.advance(TTL.plusSeconds(1));
		assertThat(other.tryAcquire(key, otherToken, TTL).isAcquired()).as("taken over by the other client").isTrue();
		assertThat(owner.release(key, ownerToken)).as("the overtaken owner's release").isFalse();
		assertThat(other.timeToExpiry(key)).as("the other holder's lock").isPositive();
		assertThat(other.release(key, otherToken)).isTrue();
	}

	@Test
	void everyExtendChangesTheNodesMzxidAndALockThatOutlivedItsTimeToLiveIsNoLongerRenewed() throws Exception {
		String key = uniqueKey("outlived");
		String owner = uniqueToken();
		String path = ZooKeeperLockStore.DEFAULT_BASE_PATH + "/locks/" + LockNodes.name(key);
		ManualClock clock = ManualClock.start();
		ZooKeeperLockStore store = storeOn(client, clock);
		assertThat(store.tryAcquire(key, owner, TTL).isAcquired()).isTrue();
		long acquired = client.checkExists().forPath(path).getMzxid();
		assertThat(store.extend(key, owner, TTL)).isTrue();
		long extended = client.checkExists().forPath(path).getMzxid();
		assertThat(extended).as("an extend writing the same data: contenders see the renewal").isGreaterThan(acquired);
		clock.advance(TTL.plusMillis(1));
		assertThat(store.extend(key, owner, TTL)).as("extend once its own time-to-live passed").isFalse();
		assertThat(store.putResult(key, owner, new byte[] { 1 }, TTL)).as("a result once its time-to-live passed")
			.isFalse();
		assertThat(client.checkExists().forPath(path).getMzxid()).as("nothing written").isEqualTo(extended);
		assertThat(store.release(key, owner)).as("release once its time-to-live passed").isFalse();
		assertThat(client.getData().forPath(path)).as("freed nonetheless").isEqualTo(NodeData.free(owner));
	}

	@Test
	void releaseAfterAReleaseThatKeptAResultAnswersFalse() throws Exception {
		String key = uniqueKey("own-write-result");
		String token = uniqueToken();
		assertThat(sharedStore.tryAcquire(key, token, TTL).isAcquired()).isTrue();
		assertThat(sharedStore.releaseKeepingResult(key, token, new byte[] { 1 }, TTL)).isTrue();
		assertThat(sharedStore.release(key, token)).as("a second release").isFalse();
		String next = uniqueToken();
		assertThat(sharedStore.tryAcquire(key, next, TTL).isAcquired()).as("free for the next holder").isTrue();
		assertThat(sharedStore.release(key, next)).isTrue();
		assertThat(sharedStore.release(key, next)).as("a second release").isFalse();
	}

	@Test
	void multiKeyAcquisitionTakesReleasedExpiredAndNewNodesInPlaceAllOrNone() throws Exception {
		ManualClock clock = ManualClock.start();
		ZooKeeperLockStore store = storeOn(client, clock);
		String released = uniqueKey("multi-released");
		String expired = uniqueKey("multi-expired");
		String unused = uniqueKey("multi-new");
		String first = uniqueToken();
		assertThat(store.tryAcquire(released, first, TTL).isAcquired()).isTrue();
		assertThat(store.release(released, first)).isTrue();
		long expiredToken = store.tryAcquire(expired, uniqueToken(), TTL).fencingToken();
		long releasedCzxid = client.checkExists()
			.forPath(ZooKeeperLockStore.DEFAULT_BASE_PATH + "/locks/" + LockNodes.name(released))
			.getCzxid();
		clock.advance(TTL.plusSeconds(1));
		String owner = uniqueToken();
		MultiKeyAcquireReply all = store.tryAcquireAll(List.of(released, expired, unused), owner, TTL);
		assertThat(all.isAcquired()).isTrue();
		assertThat(all.fencingTokens()).as("one transaction: one zxid").containsOnly(all.fencingTokens()[0]);
		assertThat(all.fencingTokens()[0]).isGreaterThan(expiredToken);
		assertThat(client.checkExists()
			.forPath(ZooKeeperLockStore.DEFAULT_BASE_PATH + "/locks/" + LockNodes.name(released))
			.getCzxid()).as("the released node, taken in place").isEqualTo(releasedCzxid);
		String other = uniqueKey("multi-other");
		MultiKeyAcquireReply refused = store.tryAcquireAll(List.of(other, expired), uniqueToken(), TTL);
		assertThat(refused.isAcquired()).isFalse();
		assertThat(refused.heldIndex()).isEqualTo(1);
		assertThat(store.timeToExpiry(other)).as("nothing taken").isZero();
		assertThat(store.releaseAll(List.of(released, expired, unused), owner)).containsExactly(true, true, true);
	}

	@Test
	void fencingTokensIncreaseAcrossReleasesAndTakeovers() throws Exception {
		String key = uniqueKey("fencing");
		String first = uniqueToken();
		long firstToken = store().tryAcquire(key, first, TTL).fencingToken();
		assertThat(firstToken).as("a zxid: epoch in the high 32 bits").isGreaterThan(1L << 32);
		assertThat(store().tryAcquire(key, uniqueToken(), TTL).fencingToken()).as("token of a rejected acquisition")
			.isZero();
		assertThat(store().release(key, first)).isTrue();
		long secondToken = store().tryAcquire(key, uniqueToken(), Duration.ofMillis(100)).fencingToken();
		assertThat(secondToken).as("token after a release").isGreaterThan(firstToken);
		await().atMost(Duration.ofSeconds(5)).until(() -> store().timeToExpiry(key).isZero());
		AcquireReply takeover = store().tryAcquire(key, uniqueToken(), TTL);
		assertThat(takeover.isAcquired()).isTrue();
		assertThat(takeover.fencingToken()).as("token after taking an expired lock over").isGreaterThan(secondToken);
	}

	@Test
	void acquiringAgainWithTheSameTokenAnswersTheSameAcquisition() {
		String key = uniqueKey("same-token");
		String owner = uniqueToken();
		AcquireReply first = store().tryAcquire(key, owner, TTL);
		AcquireReply again = store().tryAcquire(key, owner, TTL);
		assertThat(again.isAcquired()).as("acquire repeated with the owner's token, as after a lost answer").isTrue();
		assertThat(again.fencingToken()).isEqualTo(first.fencingToken());
		assertThat(store().release(key, owner)).isTrue();
	}

	@Test
	void everyKeyBecomesOneValidDistinctPathSegment() {
		String[] keys = { "/", ".", "..", "a/b", "a%2Fb", "\u0000", "\u001f\u007f", "\ud800", "\ufff0", "zookeeper",
				"\u00e9t\u00e9", "#sha256:x", "x".repeat(600) };
		java.util.Set<String> names = new java.util.HashSet<>();
		for (String key : keys) {
			String name = LockNodes.name(key);
			PathUtils.validatePath("/locks/" + name);
			assertThat(name).doesNotContain("/").isNotIn(".", "..");
			assertThat(name.length()).isLessThanOrEqualTo(LockNodes.MAX_NAME_LENGTH);
			names.add(name);
		}
		assertThat(names).as("distinct names").hasSize(keys.length);
	}

	@Test
	void releaseNotifiesSubscribers() throws Exception {
		String key = uniqueKey("notify");
		String owner = uniqueToken();
		assertThat(store().tryAcquire(key, owner, TTL).isAcquired()).isTrue();
		CountDownLatch released = new CountDownLatch(1);
		try (Subscription subscription = sharedStore.subscribe(key, released::countDown)) {
			assertThat(store().release(key, owner)).isTrue();
			assertThat(released.await(5, TimeUnit.SECONDS)).as("notified of the release").isTrue();
		}
	}

	@Test
	void lockOutlivesItsHolderSessionAndEndsAtItsTimeToLive() throws Exception {
		String key = uniqueKey("session");
		Duration ttl = Duration.ofSeconds(4);
		CuratorFramework holderClient = TestClients.start(ensemble.connectString());
		String holderToken = uniqueToken();
		long holderFence;
		try {
			ZooKeeperLockStore holder = new ZooKeeperLockStore(holderClient);
			holderFence = holder.tryAcquire(key, holderToken, ttl).fencingToken();
			closeSession(holderClient);
			assertThat(store().tryAcquire(key, uniqueToken(), TTL).isAcquired())
				.as("taken by another client after the holder's session ended")
				.isFalse();
			assertThat(await().atMost(Duration.ofSeconds(10))
				.ignoreException(LockStoreException.class)
				.until(() -> holder.extend(key, holderToken, ttl), (extended) -> extended))
				.as("renewed by the holder from its next session")
				.isTrue();
		}
		finally {
			// The holder crashes
			holderClient.close();
		}
		String next = uniqueToken();
		assertThat(store().tryAcquire(key, next, TTL).isAcquired()).as("taken after the holder's crash, before its TTL")
			.isFalse();
		AcquireReply taken = await().atMost(Duration.ofSeconds(15))
			.until(() -> store().tryAcquire(key, next, TTL), AcquireReply::isAcquired);
		assertThat(taken.fencingToken()).isGreaterThan(holderFence);
		assertThat(store().extend(key, holderToken, TTL)).as("the extend that reports the lost lock").isFalse();
		assertThat(store().release(key, next)).isTrue();
	}

	@Test
	void ownerMayReleaseAndExtendFromAnotherSession() throws Exception {
		String key = uniqueKey("other-session");
		String owner = uniqueToken();
		assertThat(store().tryAcquire(key, owner, TTL).isAcquired()).isTrue();
		CuratorFramework otherClient = TestClients.start(ensemble.connectString());
		try {
			ZooKeeperLockStore other = new ZooKeeperLockStore(otherClient);
			assertThat(other.extend(key, owner, TTL)).isTrue();
			assertThat(other.release(key, owner)).isTrue();
			assertThat(store().timeToExpiry(key)).isZero();
		}
		finally {
			otherClient.close();
		}
	}

	@Test
	void resultIsAPersistentNodeThatOutlivesTheSession() throws Exception {
		String key = uniqueKey("result");
		String owner = uniqueToken();
		assertThat(store().tryAcquire(key, owner, TTL).isAcquired()).isTrue();
		assertThat(sharedStore.releaseKeepingResult(key, owner, new byte[] { 1, 2 }, TTL)).isTrue();
		Stat stat = client.checkExists()
			.forPath(ZooKeeperLockStore.DEFAULT_BASE_PATH + "/results/" + LockNodes.name(key));
		assertThat(stat.getEphemeralOwner()).as("persistent").isZero();
		assertThat(sharedStore.getResult(key)).containsExactly(1, 2);
		assertThat(store().timeToExpiry(key)).as("released with the result kept").isZero();
	}

	@Test
	void nodeWrittenBySomethingElseCountsAsAnExpiredLock() throws Exception {
		String key = uniqueKey("foreign");
		client.create()
			.creatingParentsIfNeeded()
			.withMode(CreateMode.EPHEMERAL)
			.forPath(ZooKeeperLockStore.DEFAULT_BASE_PATH + "/locks/" + LockNodes.name(key), new byte[] { 42 });
		assertThat(store().timeToExpiry(key)).isZero();
		String owner = uniqueToken();
		assertThat(store().tryAcquire(key, owner, TTL).isAcquired()).isTrue();
		assertThat(store().release(key, owner)).isTrue();
	}

	/**
	 * A store on {@code client} with the default base path and the tests' timeout, which
	 * counts expiry on the monotonic clock {@code clock}, with a record of sightings of
	 * its own.
	 */
	private static ZooKeeperLockStore storeOn(CuratorFramework client, ManualClock clock) {
		return new ZooKeeperLockStore(client, ZooKeeperLockStore.DEFAULT_BASE_PATH, TestClients.TIMEOUT,
				Clock.systemUTC(), clock.expiry());
	}

	/**
	 * End a client's session on the servers, as its expiry would: a second handle on the
	 * same session closes it.
	 */
	static void closeSession(CuratorFramework client) throws Exception {
		ZooKeeper zooKeeper = client.getZookeeperClient().getZooKeeper();
		ZooKeeper twin = new ZooKeeper(client.getZookeeperClient().getCurrentConnectionString(),
				(int) TestClients.SESSION_TIMEOUT.toMillis(), (event) -> {
				}, zooKeeper.getSessionId(), zooKeeper.getSessionPasswd());
		twin.close();
	}

}
