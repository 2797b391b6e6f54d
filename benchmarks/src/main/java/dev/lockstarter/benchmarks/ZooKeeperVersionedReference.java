package dev.lockstarter.benchmarks;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Watcher.Event.EventType;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;

/**
 * The floor of a handoff on a lock node that is never removed, written directly on the
 * ZooKeeper client: the least that any lock of {@code ZooKeeperLockStore}'s design can do
 * between a release and the next holder's grant.
 * <p>
 * A lock is one persistent node holding either "held by" a token or "free". A release
 * writes "free" at the version its holder wrote. A waiter reads the node with a one-shot
 * data watch; when the watch fires, the ZooKeeper event thread itself sends the read and,
 * from the read's callback, the write at the version read, and the waiting thread wakes
 * once, with the write's answer. Since ZooKeeper conditions a write on a node's version
 * only, and a version says nothing of what the node holds, the waiter must read before it
 * writes: a notification and two round trips, a read and a write, where Curator's mutex,
 * whose waiter's node was queued before the release, needs a notification and one read.
 * It keeps no time-to-live, no fencing token and no lost-answer recovery: it is a
 * measuring stick, not a lock to use.
 */
final class ZooKeeperVersionedReference implements HandoffLock.Client {

	private static final String ROOT = "/handoff-versioned";

	private static final byte[] FREE = "free".getBytes(StandardCharsets.UTF_8);

	private final CuratorFramework curator;

	private final ZooKeeper zooKeeper;

	private final byte[] mine = ("held:" + UUID.randomUUID()).getBytes(StandardCharsets.UTF_8);

	private final Map<String, Integer> heldVersions = new HashMap<>();

	ZooKeeperVersionedReference(String host, int port) {
		this.curator = ZooKeeperPeerCycles.curator(host + ":" + port);
		try {
			this.zooKeeper = this.curator.getZookeeperClient().getZooKeeper();
			this.curator.createContainers(ROOT);
		}
		catch (Exception ex) {
			throw new IllegalStateException("Could not set up " + ROOT, ex);
		}
	}

	@Override
	public void lock(String key) throws Exception {
		String path = ROOT + "/" + key;
		CompletableFuture<Integer> granted = new CompletableFuture<>();
		attempt(path, granted);
		this.heldVersions.put(key, granted.get(HandoffLock.MAX_WAIT.toMillis(), TimeUnit.MILLISECONDS));
	}

	/**
	 * Read the node, watching it, and take it if free; if held, the watch runs this
	 * again, on the event thread, once the node changes.
	 */
	private void attempt(String path, CompletableFuture<Integer> granted) {
		this.zooKeeper.getData(path, (event) -> {
			// A watch set before this waiter's grant fires at its own write: ignored
			boolean changed = event.getType() == EventType.NodeDataChanged || event.getType() == EventType.NodeDeleted;
			if (changed && !granted.isDone()) {
				attempt(path, granted);
			}
		}, (rc, ignoredPath, context, data, stat) -> {
			Code code = Code.get(rc);
			if (code == Code.NONODE) {
				create(path, granted);
			}
			else if (code != Code.OK) {
				granted.completeExceptionally(new IllegalStateException("Read failed: " + code));
			}
			else if (Arrays.equals(data, FREE)) {
				take(path, stat.getVersion(), granted);
			}
			// Held: the watch set by this read calls again
		}, null);
	}

	private void create(String path, CompletableFuture<Integer> granted) {
		this.zooKeeper.create(path, this.mine, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT,
				(rc, ignoredPath, context, name, stat) -> {
					if (Code.get(rc) == Code.OK) {
						granted.complete(stat.getVersion());
					}
					else if (Code.get(rc) != Code.NODEEXISTS) {
						granted.completeExceptionally(new IllegalStateException("Create failed: " + Code.get(rc)));
					}
					// Created by another client: the read's watch calls again
				}, null);
	}

	private void take(String path, int version, CompletableFuture<Integer> granted) {
		this.zooKeeper.setData(path, this.mine, version, (rc, ignoredPath, context, stat) -> {
			if (Code.get(rc) == Code.OK) {
				granted.complete(stat.getVersion());
			}
			else if (Code.get(rc) != Code.BADVERSION) {
				granted.completeExceptionally(new IllegalStateException("Write failed: " + Code.get(rc)));
			}
			// Taken or changed by another client: the read's watch calls again
		}, null);
	}

	@Override
	public void unlock(String key) {
		Integer version = this.heldVersions.remove(key);
		if (version != null) {
			try {
				this.zooKeeper.setData(ROOT + "/" + key, FREE, version);
			}
			catch (Exception ex) {
				throw new IllegalStateException("Release failed", ex);
			}
		}
	}

	@Override
	public void close() {
		this.curator.close();
	}

}
