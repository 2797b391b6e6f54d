package dev.lockstarter.reliability;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.GetOption;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.store.etcd.EtcdClients;
import dev.lockstarter.test.etcd.EtcdClusterExtension;
import dev.lockstarter.test.zookeeper.ZooKeeperEnsemble;
import dev.lockstarter.test.zookeeper.ZooKeeperEnsembleExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for the peer locks on consensus stores, {@link ZooKeeperPeerLocks} and
 * {@link EtcdPeerLocks}, on a real three-server ZooKeeper ensemble and a real
 * three-member etcd cluster.
 */
class ConsensusPeerLocksTests {

	/** The harness's time-to-live. */
	private static final Duration TTL = Duration.ofSeconds(1);

	/** The time-to-live of a lock that should give up waiting soon. */
	private static final Duration SHORT_TTL = Duration.ofMillis(300);

	private static final long TIMEOUT_SECONDS = 15;

	@RegisterExtension
	static final ZooKeeperEnsembleExtension zooKeeper = new ZooKeeperEnsembleExtension();

	@RegisterExtension
	static final EtcdClusterExtension etcd = new EtcdClusterExtension();

	private final ExecutorService threads = Executors.newCachedThreadPool();

	@AfterEach
	void stopThreads() {
		this.threads.shutdownNow();
	}

	@Test
	void curatorLocksExcludeEachOtherAndAShortSectionIsHeld() throws Exception {
		assertExcludeEachOther((ttl) -> ZooKeeperPeerLocks.curator(zooKeeper.connectString(), ttl));
	}

	@Test
	void springIntegrationLocksExcludeEachOtherAndAShortSectionIsHeld() throws Exception {
		assertExcludeEachOther((ttl) -> ZooKeeperPeerLocks.springIntegration(zooKeeper.connectString(), ttl));
	}

	@Test
	void jetcdLocksExcludeEachOtherAndAShortSectionIsHeld() throws Exception {
		assertExcludeEachOther((ttl) -> EtcdPeerLocks.jetcd(etcd.endpointsAsString(), ttl));
	}

	@Test
	void curatorLockIsNotHeldOnceItsConnectionWasLostWhileHeld() throws Exception {
		ZooKeeperEnsemble ensemble = zooKeeper.server();
		AtomicBoolean held = new AtomicBoolean(true);
		try (WorkerLock lock = ZooKeeperPeerLocks.curator(ensemble.connectString(), TTL)) {
			boolean ran = lock.runLocked(newKey(), (holding) -> {
				// The leader's death closes every client's connection: the followers drop
				// theirs until they have elected another leader
				ensemble.leader().kill();
				ensemble.awaitLeader(Duration.ofSeconds(30));
				held.set(holding.isHeld());
			});
			assertThat(ran).isTrue();
		}
		finally {
			ensemble.heal(Duration.ofSeconds(30));
		}
		assertThat(held).isFalse();
	}

	@Test
	void springIntegrationUnlockSucceedsThoughTheLockWasLostAndTakenByAnother() throws Exception {
		String key = newKey();
		String lockPath = ZooKeeperPeerLocks.SPRING_INTEGRATION_ROOT + "/" + key;
		AtomicBoolean held = new AtomicBoolean();
		AtomicBoolean otherRan = new AtomicBoolean();
		try (WorkerLock lock = ZooKeeperPeerLocks.springIntegration(zooKeeper.connectString(), TTL);
				WorkerLock other = ZooKeeperPeerLocks.springIntegration(zooKeeper.connectString(), SHORT_TTL);
				CuratorFramework admin = CuratorFrameworkFactory.newClient(zooKeeper.connectString(),
						new ExponentialBackoffRetry(100, 3))) {
			admin.start();
			boolean ran = lock.runLocked(key, (holding) -> {
				// The lock's node deleted, as the servers delete it when the holder's
				// session expires
				try {
					List<String> nodes = admin.getChildren().forPath(lockPath);
					assertThat(nodes).hasSize(1);
					admin.delete().forPath(lockPath + "/" + nodes.get(0));
				}
				catch (InterruptedException ex) {
					throw ex;
				}
				catch (Exception ex) {
					throw new IllegalStateException(ex);
				}
				otherRan.set(other.runLocked(key, (otherHolding) -> {
				}));
				held.set(holding.isHeld());
			});
			assertThat(ran).isTrue();
		}
		assertThat(otherRan).as("another client took the lock while the section ran").isTrue();
		assertThat(held).as("Spring Integration's unlock reports nothing").isTrue();
	}

	@Test
	void jetcdLockOutlivesItsTimeToLiveWhileItsLeaseIsKeptAlive() throws Exception {
		String key = newKey();
		AtomicBoolean held = new AtomicBoolean();
		AtomicBoolean otherRan = new AtomicBoolean(true);
		try (WorkerLock lock = EtcdPeerLocks.jetcd(etcd.endpointsAsString(), TTL);
				WorkerLock other = EtcdPeerLocks.jetcd(etcd.endpointsAsString(), SHORT_TTL)) {
			boolean ran = lock.runLocked(key, (holding) -> {
				Thread.sleep(TTL.multipliedBy(5).dividedBy(2).toMillis());
				otherRan.set(other.runLocked(key, (otherHolding) -> {
				}));
				held.set(holding.isHeld());
			});
			assertThat(ran).isTrue();
		}
		assertThat(otherRan).as("another client took the lock").isFalse();
		assertThat(held).isTrue();
	}

	@Test
	void jetcdLockIsNotHeldOnceItsLeaseIsGone() throws Exception {
		String key = newKey();
		AtomicBoolean held = new AtomicBoolean(true);
		AtomicBoolean otherRan = new AtomicBoolean();
		try (WorkerLock lock = EtcdPeerLocks.jetcd(etcd.endpointsAsString(), TTL);
				WorkerLock other = EtcdPeerLocks.jetcd(etcd.endpointsAsString(), SHORT_TTL);
				Client admin = EtcdClients.client(StoreUnderTest.STORE_TIMEOUT,
						etcd.endpoints().toArray(String[]::new))) {
			boolean ran = lock.runLocked(key, (holding) -> {
				revokeLeasesOfLock(admin, key);
				otherRan.set(other.runLocked(key, (otherHolding) -> {
				}));
				held.set(holding.isHeld());
			});
			assertThat(ran).isTrue();
		}
		assertThat(otherRan).as("another client took the lock").isTrue();
		assertThat(held).isFalse();
	}

	/**
	 * Assert that a lock taken by one client keeps another client, and another thread of
	 * the same client, out until released, and that it says it was held.
	 * @param open opens a lock (a client) with a time-to-live
	 */
	private void assertExcludeEachOther(Function<Duration, WorkerLock> open) throws Exception {
		try (WorkerLock first = open.apply(TTL); WorkerLock second = open.apply(SHORT_TTL)) {
			PeerLockProbes.assertExclusion(first, second, newKey(), SHORT_TTL, true);
		}
	}

	private static void revokeLeasesOfLock(Client admin, String key) throws InterruptedException {
		try {
			GetOption prefix = GetOption.builder().isPrefix(true).build();
			List<KeyValue> keys = admin.getKVClient()
				.get(EtcdPeerLocks.lockName(key), prefix)
				.get(TIMEOUT_SECONDS, TimeUnit.SECONDS)
				.getKvs();
			assertThat(keys).hasSize(1);
			admin.getLeaseClient().revoke(keys.get(0).getLease()).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			throw ex;
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

	private static String newKey() {
		return "k-" + UUID.randomUUID();
	}

}
