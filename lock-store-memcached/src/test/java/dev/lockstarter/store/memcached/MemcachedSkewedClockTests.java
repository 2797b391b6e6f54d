package dev.lockstarter.store.memcached;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import net.rubyeye.xmemcached.MemcachedClient;
import net.rubyeye.xmemcached.XMemcachedClientBuilder;
import net.rubyeye.xmemcached.command.BinaryCommandFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.store.LockStore;
import dev.lockstarter.test.contract.SkewedClockContractTests;
import dev.lockstarter.test.memcached.MemcachedServerExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@link SkewedClockContractTests} on one Memcached, each store on its own client; and
 * Memcached's own expiry, which frees a key whose holder crashed long ago.
 */
class MemcachedSkewedClockTests extends SkewedClockContractTests {

	@RegisterExtension
	static final MemcachedServerExtension memcached = new MemcachedServerExtension();

	private final List<MemcachedClient> clients = new ArrayList<>();

	@Override
	protected LockStore createStore(Clock wallClock) {
		XMemcachedClientBuilder builder = new XMemcachedClientBuilder(List.of(memcached.server().socketAddress()));
		builder.setCommandFactory(new BinaryCommandFactory());
		builder.setOpTimeout(2000);
		try {
			MemcachedClient client = builder.build();
			this.clients.add(client);
			return new MemcachedLockStore(client, wallClock);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	@AfterAll
	void shutDownClients() throws IOException {
		for (MemcachedClient client : this.clients) {
			client.shutdown();
		}
	}

	/**
	 * Memcached's own expiry, counted by the server, frees a key whose holder crashed
	 * long ago: a contender that first sees the key then takes it without waiting.
	 */
	@Test
	void keyAbandonedLongerThanMemcachedsExpiryIsTakenAtOnce() {
		Duration ttl = Duration.ofMillis(500);
		String key = key("abandoned");
		long written = System.nanoTime();
		assertThat(ahead().tryAcquire(key, token(), ttl).isAcquired()).isTrue();
		// Memcached's expiry: 1 s (rounded up) + 3 s, and its clock may be a second late
		await("Memcached's expiry of the abandoned item").atMost(Duration.ofSeconds(8))
			.pollInterval(Duration.ofMillis(100))
			.until(() -> memcached.server().command("get " + key).size() < 2);
		assertThat(Duration.ofNanos(System.nanoTime() - written)).as("time until Memcached expired the item")
			.isGreaterThan(ttl.plusSeconds(1));
		assertThat(behind().timeToExpiry(key)).isZero();
		assertThat(behind().tryAcquire(key, token(), ttl).isAcquired()).as("first try on a key that Memcached expired")
			.isTrue();
	}

}
