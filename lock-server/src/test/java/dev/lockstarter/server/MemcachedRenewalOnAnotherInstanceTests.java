package dev.lockstarter.server;

import java.util.List;

import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.test.memcached.MemcachedServerExtension;

/**
 * {@link RenewalOnAnotherInstanceTests} on a real Memcached.
 */
class MemcachedRenewalOnAnotherInstanceTests extends RenewalOnAnotherInstanceTests {

	@RegisterExtension
	static final MemcachedServerExtension memcached = new MemcachedServerExtension();

	@Override
	protected List<String> storeProperties() {
		return List.of("lock.store=memcached", "lock.memcached.servers=127.0.0.1:" + memcached.port());
	}

}
