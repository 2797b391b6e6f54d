package dev.lockstarter.store.zookeeper;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
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
import dev.lockstarter.store.ReleaseNotifyingLockStore.Subscription;
import dev.lockstarter.test.contract.ExclusionChecker;
import dev.lockstarter.test.contract.LockStoreContractTests;
import dev.lockstarter.test.zookeeper.ZooKeeperEnsemble;
import dev.lockstarter.test.zookeeper.ZooKeeperEnsembleExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@link LockStoreContractTests} for {@link ZooKeeperLockStore} on a real ensemble of
 * three servers (the client knows all three), and the ZooKeeper store's own promises: the
 * node layout, fencing tokens from the creation zxid, keys as one path segment, release
 * notifications from the recursive watch, and a lock bound to its holder's session.
 */
class ZooKeeperLockStoreContractTests extends LockStoreContractTests {

	private static final Duration TTL = Duration.ofSeconds(30);

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
	void lockIsAnEphemeralNodeOfTheAcquiringSessionHoldingTokenAndExpiry() throws Exception {
		String key = uniqueKey("layout");
		String owner = uniqueToken();
		long before = System.currentTimeMillis();
		AcquireReply acquired = store().tryAcquire(key, owner, TTL);
		Stat stat = new Stat();
		byte[] data = client.getData()
			.storingStatIn(stat)
			.forPath(ZooKeeperLockStore.DEFAULT_BASE_PATH + "/locks/" + LockNodes.name(key));
		assertThat(stat.getEphemeralOwner()).isEqualTo(client.getZookeeperClient().getZooKeeper().getSessionId());
		assertThat(acquired.fencingToken()).as("fencing token: the node's creation zxid").isEqualTo(stat.getCzxid());
		NodeData.Lock lock = NodeData.decodeLock(data);
		assertThat(lock.token()).isEqualTo(owner);
		assertThat(lock.expiresAt()).isBetween(before + TTL.toMillis(), System.currentTimeMillis() + TTL.toMillis());
		assertThat(store().release(key, owner)).isTrue();
		assertThat(client.checkExists().forPath(ZooKeeperLockStore.DEFAULT_BASE_PATH + "/locks/" + LockNodes.name(key)))
			.isNull();
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
	void releaseAndEndOfTheHolderSessionNotifySubscribers() throws Exception {
		String key = uniqueKey("notify");
		String owner = uniqueToken();
		assertThat(store().tryAcquire(key, owner, TTL).isAcquired()).isTrue();
		CountDownLatch released = new CountDownLatch(1);
		try (Subscription subscription = sharedStore.subscribe(key, released::countDown)) {
			assertThat(store().release(key, owner)).isTrue();
			assertThat(released.await(5, TimeUnit.SECONDS)).as("notified of the release").isTrue();
		}
		CuratorFramework holderClient = TestClients.start(ensemble.connectString());
		try {
			ZooKeeperLockStore holder = new ZooKeeperLockStore(holderClient);
			String holderToken = uniqueToken();
			assertThat(holder.tryAcquire(key, holderToken, TTL).isAcquired()).isTrue();
			CountDownLatch sessionEnded = new CountDownLatch(1);
			try (Subscription subscription = sharedStore.subscribe(key, sessionEnded::countDown)) {
				closeSession(holderClient);
				assertThat(sessionEnded.await(10, TimeUnit.SECONDS)).as("notified of the end of the holder's session")
					.isTrue();
			}
		}
		finally {
			holderClient.close();
		}
	}

	@Test
	void holderWhoseSessionEndsLosesItsLock() throws Exception {
		String key = uniqueKey("session");
		CuratorFramework holderClient = TestClients.start(ensemble.connectString());
		try {
			ZooKeeperLockStore holder = new ZooKeeperLockStore(holderClient);
			String holderToken = uniqueToken();
			long holderFence = holder.tryAcquire(key, holderToken, TTL).fencingToken();
			assertThat(store().tryAcquire(key, uniqueToken(), TTL).isAcquired()).isFalse();
			closeSession(holderClient);
			String next = uniqueToken();
			AcquireReply taken = await().atMost(Duration.ofSeconds(10))
				.until(() -> store().tryAcquire(key, next, TTL), AcquireReply::isAcquired);
			assertThat(taken.fencingToken()).isGreaterThan(holderFence);
			assertThat(holder.extend(key, holderToken, TTL)).as("the extend that reports the lost lock").isFalse();
			assertThat(holder.release(key, holderToken)).isFalse();
			assertThat(store().release(key, next)).isTrue();
		}
		finally {
			holderClient.close();
		}
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
