package dev.lockstarter.store.memcached;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import net.rubyeye.xmemcached.MemcachedClient;
import net.rubyeye.xmemcached.XMemcachedClientBuilder;
import net.rubyeye.xmemcached.command.TextCommandFactory;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.LockStoreException;
import dev.lockstarter.test.contract.LockStoreContractTests;
import dev.lockstarter.test.memcached.MemcachedServer;
import dev.lockstarter.test.memcached.MemcachedServerExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * {@link LockStoreContractTests} for {@link MemcachedLockStore}, against a real Memcached
 * server, and the Memcached store's own promises: key hashing, the 30-day limit,
 * Memcached's own expiry, sharding over several servers and failing closed. Skewed wall
 * clocks are tested in {@link MemcachedSkewedClockTests}.
 */
class MemcachedLockStoreContractTests extends LockStoreContractTests {

	private static final Duration TTL = Duration.ofSeconds(30);

	@RegisterExtension
	@Order(1)
	static final MemcachedServerExtension memcached = new MemcachedServerExtension();

	@RegisterExtension
	@Order(2)
	static final SharedMemcachedStore memcachedStore = new SharedMemcachedStore(
			() -> memcached.server().socketAddress());

	@Override
	protected LockStore createStore() {
		return memcachedStore.store();
	}

	@Override
	protected void restartServer() {
		memcached.server().restart();
	}

	@Test
	void plainKeysAreMemcachedKeysAndOtherKeysAreHashed() {
		String plain = uniqueKey("plain");
		String spaced = uniqueKey("spaced") + " ünïcödé";
		assertThat(MemcachedLockStore.memcachedKey(plain)).isEqualTo(plain);
		assertThat(MemcachedLockStore.memcachedKey(spaced)).startsWith("#sha256:").hasSize(8 + 43);
		assertThat(MemcachedLockStore.memcachedKey("x".repeat(250))).isEqualTo("x".repeat(250));
		assertThat(MemcachedLockStore.memcachedKey("x".repeat(251))).startsWith("#sha256:");
		assertThat(MemcachedLockStore.memcachedKey("#sha256:abc")).startsWith("#sha256:").isNotEqualTo("#sha256:abc");
		assertThat(MemcachedLockStore.memcachedKey("#result:abc")).as("keys in the namespace of results")
			.startsWith("#sha256:");
		assertThat(store().tryAcquire(plain, uniqueToken(), TTL).isAcquired()).isTrue();
		assertThat(store().tryAcquire(spaced, uniqueToken(), TTL).isAcquired()).isTrue();
		assertThat(memcached.server().command("get " + plain).get(0)).startsWith("VALUE " + plain + " ");
		String hashed = MemcachedLockStore.memcachedKey(spaced);
		assertThat(memcached.server().command("get " + hashed).get(0)).startsWith("VALUE " + hashed + " ");
	}

	@Test
	void keysThatSpellCommandsNeverReachTheServerAsCommands() {
		String canary = uniqueKey("canary");
		assertThat(store().tryAcquire(canary, uniqueToken(), TTL).isAcquired()).isTrue();
		for (String key : List.of(uniqueKey("x") + "\r\nflush_all\r\n", uniqueKey("x") + " 0 0 1\r\nx\r\nflush_all",
				uniqueKey("x") + "\r\ndelete " + canary + "\r\n")) {
			String token = uniqueToken();
			assertThat(store().tryAcquire(key, token, TTL).isAcquired()).isTrue();
			assertThat(store().release(key, token)).isTrue();
		}
		assertThat(memcached.server().stats()).containsEntry("cmd_flush", "0");
		assertThat(memcached.server().command("get " + canary).get(0)).startsWith("VALUE " + canary + " ");
	}

	@Test
	void timeToLivesOverThirtyDaysAreRejectedBecauseMemcachedReadsThemAsAbsoluteTimes() {
		String key = uniqueKey("thirty-days");
		String owner = uniqueToken();
		assertThatIllegalArgumentException().isThrownBy(() -> store().tryAcquire(key, owner, Duration.ofDays(30)))
			.withMessageContaining("30 days");
		assertThat(store().tryAcquire(key, owner, MemcachedLockStore.MAX_TTL).isAcquired()).isTrue();
		assertThatIllegalArgumentException().isThrownBy(() -> store().extend(key, owner, Duration.ofDays(31)))
			.withMessageContaining("30 days");
		AcquireReply conflict = store().tryAcquire(key, uniqueToken(), TTL);
		assertThat(conflict.isAcquired()).isFalse();
		assertThat(conflict.holderRemainingTtl()).isGreaterThan(Duration.ofDays(29));
		assertThat(store().release(key, owner)).isTrue();
	}

	@Test
	void clientOnTheTextProtocolIsRejected() throws Exception {
		XMemcachedClientBuilder builder = new XMemcachedClientBuilder(List.of(memcached.server().socketAddress()));
		builder.setCommandFactory(new TextCommandFactory());
		MemcachedClient client = builder.build();
		try {
			assertThatIllegalArgumentException().isThrownBy(() -> new MemcachedLockStore(client))
				.withMessageContaining("binary protocol");
		}
		finally {
			client.shutdown();
		}
	}

	@Test
	void unresponsiveServerFailsClosedWithinTheOperationTimeout() throws IOException {
		MemcachedLockStore impatient = MemcachedLockStore.create(List.of(memcached.server().socketAddress()),
				Duration.ofSeconds(1), Duration.ofMillis(300));
		try {
			String key = uniqueKey("paused");
			assertThat(impatient.tryAcquire(key, uniqueToken(), TTL).isAcquired()).isTrue();
			memcached.server().pause();
			long start = System.nanoTime();
			try {
				assertThatExceptionOfType(LockStoreException.class)
					.isThrownBy(() -> impatient.tryAcquire(key, uniqueToken(), TTL));
			}
			finally {
				memcached.server().resume();
			}
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
			assertThat(impatient.tryAcquire(key, uniqueToken(), TTL).isAcquired()).isFalse();
		}
		finally {
			impatient.destroy();
		}
	}

	@Test
	void memcachedExpiresALockThreeSecondsAfterItsTimeToLiveRoundedUpToSeconds() {
		for (Duration ttl : List.of(Duration.ofMillis(200), Duration.ofMillis(1500), Duration.ofSeconds(7))) {
			String key = uniqueKey("server-expiry");
			assertThat(store().tryAcquire(key, uniqueToken(), ttl).isAcquired()).isTrue();
			long seconds = (ttl.toMillis() + 999) / 1000 + 3;
			// mg's t flag answers the seconds left on the server's clock; it may have
			// ticked
			assertThat(memcached.server().command("mg " + key + " t")).as("Memcached's expiry of a %s lock", ttl)
				.singleElement(InstanceOfAssertFactories.STRING)
				.isIn("HD t" + seconds, "HD t" + (seconds - 1));
		}
	}

	/**
	 * Memcached's clock counts whole seconds and is advanced by a timer that fires about
	 * once a second; a server that stalls makes that timer late, and the clock then jumps
	 * by two seconds at its next tick when the stall crossed a second boundary. A lock
	 * written before that tick is read against the stale clock, so Memcached's own expiry
	 * must leave room for the jump or it removes the lock before its expiry time. Each
	 * round stalls the server for 0.9 s while a lock is being written, and checks that
	 * the lock's item is still there just before the lock expires. The stall crosses a
	 * second boundary in about two rounds out of five, and the write is read against the
	 * stale clock when the server handles it before its timer: with one second instead of
	 * three added to the expiry, this test failed in four runs out of seven.
	 */
	@Test
	void lockOutlivesItsTimeToLiveWhenTheServersClockTicksLate() throws Exception {
		Duration ttl = Duration.ofSeconds(1);
		Duration stall = Duration.ofMillis(900);
		MemcachedLockStore patient = MemcachedLockStore.create(List.of(memcached.server().socketAddress()),
				Duration.ofSeconds(1), Duration.ofSeconds(5));
		try {
			int checked = 0;
			for (int round = 0; round < 6; round++) {
				String key = uniqueKey("late-clock");
				memcached.server().pause();
				long start = System.nanoTime();
				CompletableFuture<AcquireReply> acquire;
				try {
					acquire = CompletableFuture.supplyAsync(() -> patient.tryAcquire(key, uniqueToken(), ttl));
					Thread.sleep(stall.toMillis());
				}
				finally {
					memcached.server().resume();
				}
				assertThat(acquire.get(5, TimeUnit.SECONDS).isAcquired()).isTrue();
				// The lock expires a time-to-live after the acquisition was sent
				long check = start + ttl.minusMillis(50).toNanos();
				Thread.sleep(Math.max(0, (check - System.nanoTime()) / 1_000_000));
				String reply = memcached.server().command("get " + key).get(0);
				// Only a reply that came before the lock expired tells anything
				if (System.nanoTime() - start < ttl.toNanos()) {
					assertThat(reply).as("the item of a %s lock, 50 ms before it expires, in round %d", ttl, round)
						.startsWith("VALUE " + key + " ");
					checked++;
				}
				Thread.sleep(130L * round);
			}
			assertThat(checked).as("rounds checked before their lock expired").isGreaterThanOrEqualTo(3);
		}
		finally {
			patient.destroy();
		}
	}

	@Test
	void severalServersShareTheKeysAndAStoppedServerFailsItsKeysInsteadOfMovingThem() throws IOException {
		try (MemcachedServer second = MemcachedServer.start(); MemcachedServer third = MemcachedServer.start()) {
			MemcachedLockStore sharded = MemcachedLockStore.create(
					List.of(memcached.server().socketAddress(), second.socketAddress(), third.socketAddress()),
					Duration.ofSeconds(1), Duration.ofSeconds(1));
			try {
				List<String> keys = new ArrayList<>();
				for (int i = 0; i < 60; i++) {
					String key = "lock-test:sharded:" + UUID.randomUUID();
					assertThat(sharded.tryAcquire(key, uniqueToken(), TTL).isAcquired()).isTrue();
					keys.add(key);
				}
				assertThat(Long.parseLong(second.stats().get("curr_items"))).as("locks on the second server")
					.isPositive();
				assertThat(Long.parseLong(third.stats().get("curr_items"))).as("locks on the third server")
					.isPositive();
				second.stop();
				int failed = 0;
				int held = 0;
				for (String key : keys) {
					try {
						AcquireReply result = sharded.tryAcquire(key, uniqueToken(), TTL);
						assertThat(result.isAcquired()).as("acquire of %s, held before a server stopped", key)
							.isFalse();
						held++;
					}
					catch (LockStoreException ex) {
						failed++;
					}
				}
				assertThat(failed).as("keys of the stopped server, which fail").isPositive();
				assertThat(held).as("keys of the other servers, still held").isPositive();
			}
			finally {
				sharded.destroy();
			}
		}
	}

}
