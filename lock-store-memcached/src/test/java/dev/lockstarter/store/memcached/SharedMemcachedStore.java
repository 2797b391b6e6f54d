package dev.lockstarter.store.memcached;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One {@link MemcachedLockStore} for a test class, on a client of the server that this
 * extension opens before the class's tests (once the server's extension has started the
 * server: register it after) and closes after them.
 */
final class SharedMemcachedStore implements BeforeAllCallback, AfterAllCallback {

	private final Supplier<InetSocketAddress> address;

	private @Nullable MemcachedLockStore store;

	SharedMemcachedStore(Supplier<InetSocketAddress> address) {
		this.address = address;
	}

	@Override
	public void beforeAll(ExtensionContext context) {
		this.store = MemcachedLockStore.create(List.of(this.address.get()), Duration.ofSeconds(1),
				Duration.ofSeconds(2));
	}

	@Override
	public void afterAll(ExtensionContext context) throws IOException {
		MemcachedLockStore store = this.store;
		if (store != null) {
			store.destroy();
		}
	}

	MemcachedLockStore store() {
		MemcachedLockStore store = this.store;
		if (store == null) {
			throw new IllegalStateException("No store outside of the test class's tests");
		}
		return store;
	}

}
