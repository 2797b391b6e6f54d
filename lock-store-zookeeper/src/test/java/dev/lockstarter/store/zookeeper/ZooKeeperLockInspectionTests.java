package dev.lockstarter.store.zookeeper;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.lockstarter.store.LockStoreException;
import dev.lockstarter.store.ReleaseNotifyingLockStore.Subscription;
import dev.lockstarter.store.StoredLock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The ZooKeeper store's listing and force-release beyond the shared contract, on a real
 * ZooKeeper server run in the test JVM ({@link InJvmZooKeeper}), each test on a store
 * with a base path of its own: keys are read back from the node names and listed in key
 * order, without free nodes, hashed keys or nodes the store did not write; a
 * force-release writes "free" at the version read whatever that version, never deletes
 * the node, wakes the key's waiters and leaves results alone.
 */
class ZooKeeperLockInspectionTests {

	private static final Duration TTL = Duration.ofSeconds(30);

	@RegisterExtension
	static final InJvmZooKeeper zookeeper = new InJvmZooKeeper();

	private static CuratorFramework client;

	private String basePath;

	private ZooKeeperLockStore store;

	@BeforeAll
	static void startClient() {
		client = TestClients.start(zookeeper.connectString());
	}

	@AfterAll
	static void closeClient() {
		if (client != null) {
			client.close();
		}
	}

	@BeforeEach
	void createStore() {
		this.basePath = "/inspection-" + UUID.randomUUID();
		this.store = new ZooKeeperLockStore(client, this.basePath, TestClients.TIMEOUT, Clock.systemUTC());
	}

	@AfterEach
	void closeStore() {
		this.store.close();
	}

	@Test
	void holdersReadTheKeysBackFromTheNodeNamesInKeyOrder() throws Exception {
		String smiley = "a/\ud83d\ude00";
		String accented = "a/\u00e9t\u00e9";
		for (String key : List.of("z", smiley, "#sha256:x", "l".repeat(600), accented, "b c%2F", ".", "..")) {
			assertThat(this.store.tryAcquire(key, token(), TTL).isAcquired()).as("acquire '%s'", key).isTrue();
		}
		String released = "a/released";
		String owner = token();
		assertThat(this.store.tryAcquire(released, owner, TTL).isAcquired()).isTrue();
		assertThat(this.store.release(released, owner)).isTrue();
		client.create().forPath(this.basePath + "/locks/foreign", new byte[] { 42 });
		client.create().forPath(this.basePath + "/locks/%41", NodeData.lock(token(), TTL));

		assertThat(this.store.holders("", 10)).extracting(StoredLock::key)
			.containsExactly(".", "..", accented, smiley, "b c%2F", "z");
		assertThat(this.store.holders("", 3)).extracting(StoredLock::key).containsExactly(".", "..", accented);
		assertThat(this.store.holders("a/", 1)).extracting(StoredLock::key)
			.as("after a free node")
			.containsExactly(accented);
		assertThat(this.store.holders("#", 10)).as("hashed keys").isEmpty();
		assertThat(this.store.holders("l", 10)).as("a key kept as its hash").isEmpty();
		assertThat(this.store.forceRelease("l".repeat(600))).as("a hashed key is force-released by its key").isTrue();
		assertThat(this.store.forceRelease(smiley)).isTrue();
		assertThat(this.store.holders("a/", 10)).extracting(StoredLock::key).containsExactly(accented);
	}

	@Test
	void nodeNamesAreReadBackAsTheirKeysOnly() {
		for (String key : List.of("/", ".", "..", "a/b", "a%2Fb", "\u0000", "\u001f\u007f", "\ud800", "\ufff0",
				"\u00e9t\u00e9", "\ud83d\ude00", "A-z_0:9~")) {
			assertThat(LockNodes.key(LockNodes.name(key))).as("the key of the name of '%s'", key).isEqualTo(key);
		}
		assertThat(LockNodes.key(LockNodes.name("#sha256:x"))).as("a hashed key").isNull();
		assertThat(LockNodes.key(LockNodes.name("x".repeat(600)))).as("a hashed key").isNull();
		for (String name : List.of("%", "%4", "%zz", "%u12", "%u12G4", "%2f", "%41", "%u0041", "a.b", "%u00e9")) {
			assertThat(LockNodes.key(name)).as("the key of the name '%s'", name).isNull();
		}
	}

	@ParameterizedTest(name = "a held node at version {0}")
	@ValueSource(ints = { 7, Integer.MAX_VALUE, -2, -1 })
	void forceReleaseFreesTheNodeAtTheVersionReadAndWakesTheWaitersOfTheKey(int version) throws Exception {
		String key = "force-released";
		String path = this.basePath + "/locks/" + LockNodes.name(key);
		String holder = token();
		assertThat(this.store.tryAcquire(key, holder, TTL).isAcquired()).isTrue();
		awaitWatchAdded();
		zookeeper.setVersion(path, version);
		CountDownLatch released = new CountDownLatch(1);
		try (Subscription subscription = this.store.subscribe(key, released::countDown)) {
			assertThat(this.store.forceRelease(key)).isTrue();

			assertThat(released.await(5, TimeUnit.SECONDS)).as("the waiter woken by the force-release").isTrue();
		}
		Stat stat = client.checkExists().forPath(path);
		assertThat(stat).as("the node, kept").isNotNull();
		assertThat(stat.getVersion()).as("the version after the force-release").isNotEqualTo(-1);
		assertThat(NodeData.decodeLock(client.getData().forPath(path))).as("free").isNull();
		assertThat(this.store.release(key, holder)).as("the holder's release").isFalse();
		assertThat(this.store.extend(key, holder, TTL)).as("the holder's renewal").isFalse();
		assertThat(this.store.forceRelease(key)).as("a free node").isFalse();
		String next = token();
		assertThat(this.store.tryAcquire(key, next, TTL).isAcquired()).isTrue();
		assertThat(this.store.release(key, next)).isTrue();
	}

	@Test
	void holdersRefuseAParentWithMoreLockNodesThanTheyListAndForceReleaseStillWorks() {
		for (String key : List.of("a", "b", "c")) {
			assertThat(this.store.tryAcquire(key, token(), TTL).isAcquired()).isTrue();
		}
		ZooKeeperLockInspection inspection = new ZooKeeperLockInspection(this.store, 2);
		assertThatExceptionOfType(LockStoreException.class).isThrownBy(() -> inspection.holders("a", 10))
			.withMessageContaining("3 lock nodes");
		assertThat(inspection.forceRelease("a")).isTrue();
		assertThat(new ZooKeeperLockInspection(this.store, 3).holders("", 10)).extracting(StoredLock::key)
			.containsExactly("b", "c");
	}

	@Test
	void holdersOfAStoreThatNeverWroteAreNone() {
		assertThat(this.store.holders("", 10)).isEmpty();
		assertThat(this.store.forceRelease("never")).isFalse();
	}

	/**
	 * Wait until the store's recursive watch, added at the first subscription, delivers
	 * releases.
	 */
	private void awaitWatchAdded() {
		String key = "watch-added";
		String owner = token();
		CountDownLatch released = new CountDownLatch(1);
		try (Subscription subscription = this.store.subscribe(key, released::countDown)) {
			await().atMost(Duration.ofSeconds(10)).until(() -> {
				this.store.tryAcquire(key, owner, TTL);
				this.store.release(key, owner);
				return released.await(200, TimeUnit.MILLISECONDS);
			});
		}
	}

	private static String token() {
		return UUID.randomUUID().toString();
	}

}
