package dev.lockstarter.store.memcached;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;

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

	private final MemcachedTestClients clients = new MemcachedTestClients();

	@Override
	protected LockStore createStore(Clock wallClock) {
		return new MemcachedLockStore(this.clients.open(memcached.server().socketAddress()), wallClock);
	}

	@AfterAll
	void shutDownClients() throws IOException {
		this.clients.close();
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
