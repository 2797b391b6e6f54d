package dev.lockstarter.autoconfigure;

import java.util.List;

import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.test.fault.FaultProxy;
import dev.lockstarter.test.memcached.MemcachedServerExtension;

/**
 * {@link StoreFailureIntegrationTests} with the Memcached store.
 */
class MemcachedStoreFailureIntegrationTests extends StoreFailureIntegrationTests {

	@RegisterExtension
	static final MemcachedServerExtension memcached = new MemcachedServerExtension();

	@Override
	protected String serverHost() {
		return memcached.host();
	}

	@Override
	protected int serverPort() {
		return memcached.port();
	}

	@Override
	protected String[] storeProperties(FaultProxy proxy) {
		return new String[] { "lock.store=memcached", "lock.memcached.servers=" + proxy.host() + ":" + proxy.port(),
				"lock.memcached.operation-timeout=1s", "lock.memcached.connect-timeout=1s" };
	}

	@Override
	protected boolean isHeld(String storeKey) {
		// Keys of this test are stored as they are; the value is "expiresAt:token"
		List<String> reply = memcached.server().command("get " + storeKey);
		if (reply.size() < 2) {
			return false;
		}
		long expiresAt = Long.parseLong(reply.get(1).substring(0, reply.get(1).indexOf(':')));
		return expiresAt > System.currentTimeMillis();
	}

}
