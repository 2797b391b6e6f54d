package dev.lockstarter.benchmarks;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;

import dev.lockstarter.store.etcd.EtcdClients;
import dev.lockstarter.store.etcd.EtcdLockStore;
import dev.lockstarter.store.zookeeper.ZooKeeperLockStore;
import org.springframework.integration.zookeeper.lock.ZookeeperLockRegistry;

/**
 * The waiting locks on etcd and ZooKeeper whose handoff {@link HandoffLatency} measures:
 * this starter's stores and the peers' locks on the same servers, each set up as in
 * {@link EtcdPeerCycles} and {@link ZooKeeperPeerCycles}.
 */
final class FailoverHandoffClients {

	private static final String ZOOKEEPER_ROOT = "/handoff-peers";

	private FailoverHandoffClients() {
	}

	/**
	 * This starter on {@code EtcdLockStore}, its release notifications from a watch.
	 * @param host the etcd member's host
	 * @param port its client port
	 * @return the client
	 */
	static HandoffLock.StarterClient starterOnEtcd(String host, int port) {
		Client client = EtcdClients.client(EtcdPeerCycles.STORE_TIMEOUT, "http://" + host + ":" + port);
		EtcdLockStore store = new EtcdLockStore(client, EtcdPeerCycles.STORE_TIMEOUT);
		return new HandoffLock.StarterClient(store, () -> {
			store.close();
			client.close();
		});
	}

	/**
	 * This starter on {@code ZooKeeperLockStore}, its release notifications from a
	 * recursive watch.
	 * @param host the server's host
	 * @param port its client port
	 * @return the client
	 */
	static HandoffLock.StarterClient starterOnZooKeeper(String host, int port) {
		CuratorFramework curator = ZooKeeperPeerCycles.starterClient(host + ":" + port);
		ZooKeeperLockStore store = new ZooKeeperLockStore(curator);
		return new HandoffLock.StarterClient(store, () -> {
			store.close();
			curator.close();
		});
	}

	/**
	 * jetcd's client of etcd's lock service, every lock bound to one session lease kept
	 * alive: a waiter's {@code Lock} call returns when the key before it is deleted,
	 * which etcd's lock service watches for.
	 */
	static final class JetcdLock implements HandoffLock.Client {

		private final Client client;

		private final EtcdPeerCycles.SessionLease lease;

		private final Map<String, ByteSequence> owned = new HashMap<>();

		JetcdLock(String host, int port) {
			this.client = Client.builder().endpoints("http://" + host + ":" + port).build();
			this.lease = EtcdPeerCycles.SessionLease.grant(this.client);
		}

		@Override
		public void lock(String key) throws Exception {
			ByteSequence name = ByteSequence.from(key, StandardCharsets.UTF_8);
			this.owned.put(key,
					this.client.getLockClient()
						.lock(name, this.lease.id())
						.get(HandoffLock.MAX_WAIT.toMillis(), TimeUnit.MILLISECONDS)
						.getKey());
		}

		@Override
		public void unlock(String key) {
			ByteSequence ownedKey = this.owned.remove(key);
			if (ownedKey != null) {
				EtcdPeerCycles.await(this.client.getLockClient().unlock(ownedKey));
			}
		}

		@Override
		public void close() {
			this.lease.keepAlive().close();
			this.client.close();
		}

	}

	/**
	 * Curator's {@code InterProcessMutex}, one per key: a waiter watches the node before
	 * its own and is woken when it is deleted.
	 */
	static final class CuratorMutex implements HandoffLock.Client {

		private final CuratorFramework curator;

		private final Map<String, InterProcessMutex> held = new HashMap<>();

		CuratorMutex(String host, int port) {
			this.curator = ZooKeeperPeerCycles.curator(host + ":" + port);
		}

		@Override
		public void lock(String key) throws Exception {
			InterProcessMutex mutex = new InterProcessMutex(this.curator, ZOOKEEPER_ROOT + "/" + key);
			if (!mutex.acquire(HandoffLock.MAX_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
				throw new IllegalStateException("Not acquired within " + HandoffLock.MAX_WAIT + ": " + key);
			}
			this.held.put(key, mutex);
		}

		@Override
		public void unlock(String key) {
			InterProcessMutex mutex = this.held.remove(key);
			if (mutex != null) {
				try {
					mutex.release();
				}
				catch (Exception ex) {
					throw new IllegalStateException("Curator release failed", ex);
				}
			}
		}

		@Override
		public void close() {
			this.curator.close();
		}

	}

	/**
	 * Spring Integration's {@code ZookeeperLockRegistry}, Curator's mutex behind a
	 * {@code Lock}: the same thread takes and releases each lock.
	 */
	static final class SpringIntegrationZooKeeper implements HandoffLock.Client {

		private final CuratorFramework curator;

		private final ZookeeperLockRegistry registry;

		SpringIntegrationZooKeeper(String host, int port) {
			this.curator = ZooKeeperPeerCycles.curator(host + ":" + port);
			this.registry = new ZookeeperLockRegistry(this.curator, ZOOKEEPER_ROOT);
		}

		@Override
		public void lock(String key) throws Exception {
			Lock lock = this.registry.obtain(key);
			if (!lock.tryLock(HandoffLock.MAX_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
				throw new IllegalStateException("Not acquired within " + HandoffLock.MAX_WAIT + ": " + key);
			}
		}

		@Override
		public void unlock(String key) {
			this.registry.obtain(key).unlock();
		}

		@Override
		public void close() {
			this.registry.destroy();
			this.curator.close();
		}

	}

}
