package dev.lockstarter.store.zookeeper;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.watch.PersistentWatcher;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher.Event.EventType;
import org.jspecify.annotations.Nullable;

import dev.lockstarter.store.ReleaseListeners;
import dev.lockstarter.store.ReleaseNotifyingLockStore.Subscription;

/**
 * The release notifications of a ZooKeeper store: one persistent recursive watch
 * (ZooKeeper 3.6+) on the parent of the lock nodes, added at the first subscription,
 * whose {@code NodeDataChanged} events (a release writes "free" in the node) and
 * {@code NodeDeleted} events (a node removed by something other than the store) are
 * dispatched to the listeners of the node's key. An acquisition or an extend changes the
 * data too: its waiters look, find the lock held, and wait again. Curator's
 * {@link PersistentWatcher} adds the watch again after a new session; while the client is
 * disconnected events are lost, which the waiters' polling covers.
 */
final class ReleaseWatch implements AutoCloseable {

	private final CuratorFramework client;

	private final LockNodes nodes;

	private final ReleaseListeners listeners = new ReleaseListeners();

	private @Nullable PersistentWatcher watcher;

	private boolean closed;

	ReleaseWatch(CuratorFramework client, LockNodes nodes) {
		this.client = client;
		this.nodes = nodes;
	}

	Subscription subscribe(String key, Runnable listener) {
		start();
		return this.listeners.add(LockNodes.name(key), listener);
	}

	private synchronized void start() {
		if (this.watcher == null && !this.closed) {
			PersistentWatcher watcher = new PersistentWatcher(this.client, this.nodes.locksPath(), true);
			watcher.getListenable().addListener(this::process);
			watcher.start();
			this.watcher = watcher;
		}
	}

	private void process(WatchedEvent event) {
		String path = event.getPath();
		EventType type = event.getType();
		if ((type == EventType.NodeDataChanged || type == EventType.NodeDeleted) && path != null) {
			String name = this.nodes.lockName(path);
			if (name != null) {
				this.listeners.released(name);
			}
		}
	}

	@Override
	public synchronized void close() {
		this.closed = true;
		if (this.watcher != null) {
			this.watcher.close();
			this.watcher = null;
		}
	}

}
