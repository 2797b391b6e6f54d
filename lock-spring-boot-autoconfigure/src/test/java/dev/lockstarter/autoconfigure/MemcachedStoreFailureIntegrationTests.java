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
		// Keys of this test are stored as they are; the value is
		// "lock=<millis>:<write>:<token>", held until released or taken over (the item
		// expires with Memcached's own expiry)
		List<String> reply = memcached.server().command("get " + storeKey);
		return reply.size() >= 2 && reply.get(1).startsWith("lock=");
	}

}
