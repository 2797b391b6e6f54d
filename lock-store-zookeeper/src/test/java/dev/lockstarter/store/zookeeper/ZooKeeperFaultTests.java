package dev.lockstarter.store.zookeeper;

import java.time.Clock;
import java.time.Duration;
import java.util.UUID;

import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.function.Executable;

import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.LockStoreException;
import dev.lockstarter.test.zookeeper.ZooKeeperEnsemble;
import dev.lockstarter.test.zookeeper.ZooKeeperEnsembleExtension;
import dev.lockstarter.test.zookeeper.ZooKeeperServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The ZooKeeper store under faults of its ensemble: every operation bounded by the
 * store's timeout while the servers do not answer, and fencing tokens that keep
 * increasing across a leader's death.
 */
class ZooKeeperFaultTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(1);

	private static final Duration TTL = Duration.ofSeconds(30);

	@RegisterExtension
	static final ZooKeeperEnsembleExtension ensemble = new ZooKeeperEnsembleExtension();

	private static CuratorFramework client;

	private static ZooKeeperLockStore store;

	@BeforeAll
	static void createStore() {
		// A session that outlives the pause of the servers, so that the client does not
		// spend the test opening a new one (locks do not depend on it)
		client = TestClients.start(ensemble.connectString(), TIMEOUT, Duration.ofSeconds(20));
		store = new ZooKeeperLockStore(client, ZooKeeperLockStore.DEFAULT_BASE_PATH, TIMEOUT, Clock.systemUTC());
	}

	@AfterAll
	static void closeClient() {
		if (client != null) {
			client.close();
		}
	}

	@AfterEach
	void heal() {
		ensemble.server().heal(Duration.ofSeconds(30));
	}

	@Test
	void everyOperationFailsWithinItsTimeoutWhileTheServersArePausedAndWorksAfterwards() {
		String key = "paused:" + UUID.randomUUID();
		String owner = UUID.randomUUID().toString();
		assertThat(store.tryAcquire(key, owner, TTL).isAcquired()).isTrue();
		ZooKeeperEnsemble servers = ensemble.server();
		servers.servers().forEach(ZooKeeperServer::pause);
		try {
			assertFailsInTime("acquire", () -> store.tryAcquire("paused:other", owner, TTL));
			assertFailsInTime("release", () -> store.release(key, owner));
			assertFailsInTime("extend", () -> store.extend(key, owner, TTL));
			assertFailsInTime("put a result", () -> store.putResult(key, owner, new byte[] { 1 }, TTL));
			assertFailsInTime("read the time to expiry", () -> store.timeToExpiry(key));
		}
		finally {
			servers.servers().forEach(ZooKeeperServer::resume);
		}
		servers.awaitFormed(Duration.ofSeconds(30));
		// The release that failed was sent at once (the store wrote the lock node last),
		// and the servers may apply it when they resume: the owner then acquires the
		// lock again
		await().atMost(Duration.ofSeconds(20))
			.ignoreException(LockStoreException.class)
			.until(() -> store.extend(key, owner, TTL) || store.tryAcquire(key, owner, TTL).isAcquired());
		assertThat(store.putResult(key, owner, new byte[] { 1 }, TTL)).isTrue();
		assertThat(store.release(key, owner)).as("release by the holder after the pause").isTrue();
	}

	@Test
	void fencingTokensIncreaseAcrossALeaderKill() {
		String key = "fencing:" + UUID.randomUUID();
		String first = UUID.randomUUID().toString();
		long firstToken = store.tryAcquire(key, first, TTL).fencingToken();
		assertThat(store.release(key, first)).isTrue();
		ensemble.server().leader().kill();
		String second = UUID.randomUUID().toString();
		AcquireReply after = await().atMost(Duration.ofSeconds(20))
			.ignoreException(LockStoreException.class)
			.until(() -> store.tryAcquire(key, second, TTL), AcquireReply::isAcquired);
		assertThat(after.fencingToken()).isGreaterThan(firstToken);
		assertThat(after.fencingToken() >>> 32).as("epoch of the new leader").isGreaterThan(firstToken >>> 32);
		assertThat(store.release(key, second)).isTrue();
	}

	private static void assertFailsInTime(String operation, Executable call) {
		long start = System.nanoTime();
		assertThatExceptionOfType(LockStoreException.class).as(operation).isThrownBy(call::execute);
		assertThat(Duration.ofNanos(System.nanoTime() - start)).as(operation + " time")
			.isLessThan(TIMEOUT.plusSeconds(1));
	}

}
