package dev.lockstarter.store.memcached;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;

import net.rubyeye.xmemcached.MemcachedClient;
import net.rubyeye.xmemcached.XMemcachedClientBuilder;
import net.rubyeye.xmemcached.command.BinaryCommandFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.ObservedExpiry;
import dev.lockstarter.test.contract.RenewalElsewhereContractTests;
import dev.lockstarter.test.memcached.MemcachedServerExtension;

/**
 * {@link RenewalElsewhereContractTests} on a real Memcached, each store on a client of
 * its own.
 */
class MemcachedRenewalElsewhereTests extends RenewalElsewhereContractTests {

	@RegisterExtension
	static final MemcachedServerExtension memcached = new MemcachedServerExtension();

	private final List<MemcachedClient> clients = new ArrayList<>();

	@Override
	protected LockStore createStore(ObservedExpiry observed) {
		XMemcachedClientBuilder builder = new XMemcachedClientBuilder(List.of(memcached.server().socketAddress()));
		builder.setCommandFactory(new BinaryCommandFactory());
		builder.setOpTimeout(2000);
		try {
			MemcachedClient client = builder.build();
			this.clients.add(client);
			return new MemcachedLockStore(client, Clock.systemUTC(), observed);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	@AfterEach
	void shutDown() throws IOException {
		for (MemcachedClient client : this.clients) {
			client.shutdown();
		}
	}

}
