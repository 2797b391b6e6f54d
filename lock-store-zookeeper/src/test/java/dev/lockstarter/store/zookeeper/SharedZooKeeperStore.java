package dev.lockstarter.store.zookeeper;

import java.util.function.Supplier;

import org.apache.curator.framework.CuratorFramework;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One {@link ZooKeeperLockStore} for a test class, on a Curator client of the ensemble
 * that this extension opens before the class's tests (once the ensemble's extension has
 * started the ensemble: register it after) and closes after them.
 */
final class SharedZooKeeperStore implements BeforeAllCallback, AfterAllCallback {

	private final Supplier<String> connectString;

	private @Nullable CuratorFramework client;

	private @Nullable ZooKeeperLockStore store;

	SharedZooKeeperStore(Supplier<String> connectString) {
		this.connectString = connectString;
	}

	@Override
	public void beforeAll(ExtensionContext context) {
		CuratorFramework client = TestClients.start(this.connectString.get());
		this.client = client;
		this.store = new ZooKeeperLockStore(client);
	}

	@Override
	public void afterAll(ExtensionContext context) {
		if (this.store != null) {
			this.store.close();
		}
		if (this.client != null) {
			this.client.close();
		}
	}

	ZooKeeperLockStore store() {
		ZooKeeperLockStore store = this.store;
		if (store == null) {
			throw new IllegalStateException("No store outside of the test class's tests");
		}
		return store;
	}

}
