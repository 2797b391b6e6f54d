package dev.lockstarter.store.zookeeper;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.data.Stat;

import dev.lockstarter.store.InspectableLockStore;
import dev.lockstarter.store.LockStoreException;
import dev.lockstarter.store.StoredLock;
import dev.lockstarter.store.zookeeper.BoundedCalls.BackgroundCall;
import dev.lockstarter.store.zookeeper.LockNodeWrites.Written;
import dev.lockstarter.store.zookeeper.NodeData.Lock;
import org.springframework.util.Assert;
import org.springframework.util.StringUtils;

/**
 * The operator's view of the locks of a {@link ZooKeeperLockStore}
 * ({@link InspectableLockStore}).
 * <p>
 * The listing reads the names of the lock nodes, one {@code getChildren} of their parent
 * (ZooKeeper does not page a node's children), keeps the names whose key
 * ({@link LockNodes#key(String)}) starts with the prefix, sorts them by key and reads
 * their data, a batch of reads at a time, until it has found as many held locks as asked.
 * A free node (released, or written by something else) is not listed, nor is the node of
 * a hashed key, whose key cannot be read back. Each lock is listed with the owner token
 * and time-to-live its holder last wrote (an upper bound of what is left) and the node's
 * {@code mzxid} (the acquisition's fencing token until the holder renews, the zxid of its
 * last renewal after that). An answer to {@code getChildren} larger than the client's
 * {@code jute.maxbuffer} breaks the client's connection, which the store's locking calls
 * share: a parent with more than {@link #DEFAULT_MAX_NODES} children is therefore not
 * listed at all.
 * <p>
 * A force-release writes "free" into the node at the version read, by
 * {@link LockNodeWrites}' rules, as a release does, and never deletes it (a deleted node
 * would restart its versions, which the store's conditional writes rely on). The free
 * data names a token of the force-release's own, so that no holder's release takes it for
 * its own write, and so that a force-release sent again after its answer was lost
 * recognises it. A node written between the read and the write is read again. The store's
 * recursive watch announces the write to the key's waiters, as it announces a release.
 */
final class ZooKeeperLockInspection {

	/**
	 * The most lock nodes a listing reads the names of: about 100 characters a name fill
	 * the 1 MiB of ZooKeeper's default {@code jute.maxbuffer}.
	 */
	static final int DEFAULT_MAX_NODES = 10_000;

	private static final int MAX_BATCH = 256;

	private static final int MAX_ROUNDS = 8;

	private static final String LIST = "list the locks";

	private static final String FORCE_RELEASE = "force-release";

	private final ZooKeeperLockStore store;

	private final CuratorFramework client;

	private final int maxNodes;

	ZooKeeperLockInspection(ZooKeeperLockStore store) {
		this(store, DEFAULT_MAX_NODES);
	}

	/**
	 * Create the view of a store that lists no parent with more than {@code maxNodes}
	 * lock nodes.
	 */
	ZooKeeperLockInspection(ZooKeeperLockStore store, int maxNodes) {
		this.store = store;
		this.client = store.client();
		this.maxNodes = maxNodes;
	}

	List<StoredLock> holders(String keyPrefix, int limit) {
		Assert.notNull(keyPrefix, "'keyPrefix' must not be null");
		Assert.isTrue(limit > 0, "'limit' must be positive");
		long deadline = this.store.calls().deadline();
		List<Node> nodes = nodes(keyPrefix, deadline);
		List<StoredLock> holders = new ArrayList<>();
		int next = 0;
		int batch = Math.min(MAX_BATCH, limit);
		while (holders.size() < limit && next < nodes.size()) {
			List<Node> read = nodes.subList(next, Math.min(nodes.size(), next + batch));
			next += read.size();
			List<BackgroundCall> reads = read.stream()
				.map((node) -> (BackgroundCall) (callback) -> this.client.getData()
					.inBackground(callback)
					.forPath(this.store.nodes().locksPath() + "/" + node.name()))
				.toList();
			List<CuratorEvent> answers = this.store.calls().callAll(LIST, keyPrefix, deadline, reads, Code.NONODE);
			for (int i = 0; i < answers.size() && holders.size() < limit; i++) {
				CuratorEvent answer = answers.get(i);
				Lock lock = (Code.get(answer.getResultCode()) == Code.OK) ? NodeData.decodeLock(answer.getData())
						: null;
				if (lock != null && StringUtils.hasText(lock.token())) {
					holders.add(new StoredLock(read.get(i).key(), lock.token(),
							Duration.ofMillis(Math.max(0, lock.ttlMillis())), answer.getStat().getMzxid()));
				}
			}
			// Free nodes found: read more at once
			batch = Math.min(MAX_BATCH, Math.max(limit - holders.size(), batch * 2));
		}
		return holders;
	}

	boolean forceRelease(String key) {
		Assert.notNull(key, "'key' must not be null");
		long deadline = this.store.calls().deadline();
		String path = this.store.nodes().lockPath(key);
		byte[] free = NodeData.free("force-release-" + UUID.randomUUID());
		for (int round = 0; round < MAX_ROUNDS; round++) {
			CuratorEvent read = this.store.read(FORCE_RELEASE, key, path, deadline);
			if (Code.get(read.getResultCode()) == Code.NONODE) {
				return false;
			}
			if (round > 0 && Arrays.equals(read.getData(), free)) {
				// This force-release, sent again after its answer was lost
				this.store.observed().forget(key);
				return true;
			}
			if (NodeData.decodeLock(read.getData()) == null) {
				return false;
			}
			Stat stat = read.getStat();
			Written set = this.store.writes()
				.write(FORCE_RELEASE, key, path, stat.getVersion(), stat.getMzxid(), free, deadline);
			if (set.applied()) {
				this.store.observed().forget(key);
				return true;
			}
			if (set.code() == Code.NONODE) {
				return false;
			}
			// Written since it was read (renewed, released, taken over): read it again
		}
		throw new LockStoreException(key, "ZooKeeper lock store did not force-release lock '" + key
				+ "': its node was written between each of " + MAX_ROUNDS + " reads and the write that followed", null);
	}

	/**
	 * Return the lock nodes whose key starts with {@code keyPrefix}, in key order.
	 */
	private List<Node> nodes(String keyPrefix, long deadline) {
		String parent = this.store.nodes().locksPath();
		CuratorEvent parentRead = this.store.read(LIST, keyPrefix, parent, deadline);
		if (Code.get(parentRead.getResultCode()) == Code.NONODE) {
			return List.of();
		}
		int children = parentRead.getStat().getNumChildren();
		if (children > this.maxNodes) {
			throw new LockStoreException(keyPrefix, "ZooKeeper lock store does not list the locks of " + parent
					+ ": it has " + children + " lock nodes, more than the " + this.maxNodes + " it lists", null);
		}
		CuratorEvent listed = this.store.calls()
			.call(LIST, keyPrefix, deadline,
					(callback) -> this.client.getChildren().inBackground(callback).forPath(parent), Code.NONODE);
		if (Code.get(listed.getResultCode()) == Code.NONODE || listed.getChildren() == null) {
			return List.of();
		}
		List<Node> nodes = new ArrayList<>();
		for (String name : listed.getChildren()) {
			String key = LockNodes.key(name);
			if (key != null && key.startsWith(keyPrefix)) {
				nodes.add(new Node(key, name));
			}
		}
		nodes.sort(Comparator.comparing(Node::key));
		return nodes;
	}

	/**
	 * A lock node.
	 *
	 * @param key the key it is the lock of
	 * @param name its name
	 */
	private record Node(String key, String name) {
	}

}
