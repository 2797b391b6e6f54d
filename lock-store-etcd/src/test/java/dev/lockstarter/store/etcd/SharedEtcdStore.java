package dev.lockstarter.store.etcd;

import java.util.List;
import java.util.function.Supplier;

import io.etcd.jetcd.Client;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One {@link EtcdLockStore} for a test class, on a client of the cluster's endpoints that
 * this extension opens before the class's tests (once the cluster's extension has started
 * the cluster: register it after) and closes after them.
 */
final class SharedEtcdStore implements BeforeAllCallback, AfterAllCallback {

	private final Supplier<List<String>> endpoints;

	private @Nullable Client client;

	private @Nullable EtcdLockStore store;

	SharedEtcdStore(Supplier<List<String>> endpoints) {
		this.endpoints = endpoints;
	}

	@Override
	public void beforeAll(ExtensionContext context) {
		Client client = EtcdTestClients.client(this.endpoints.get());
		this.client = client;
		this.store = new EtcdLockStore(client, EtcdTestClients.TIMEOUT);
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

	EtcdLockStore store() {
		EtcdLockStore store = this.store;
		if (store == null) {
			throw new IllegalStateException("No store outside of the test class's tests");
		}
		return store;
	}

}
