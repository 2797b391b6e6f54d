package dev.lockstarter.store.memcached;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import net.rubyeye.xmemcached.MemcachedClient;
import net.rubyeye.xmemcached.XMemcachedClientBuilder;
import net.rubyeye.xmemcached.command.BinaryCommandFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.test.memcached.MemcachedServerExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Three application servers on one Memcached, each a store on its own client with its own
 * record of sightings, whose wall clocks are 8 s ahead, right, and 8 s behind: no wall
 * clock decides whether a lock is held. Locks live {@value #TTL_MILLIS} ms, and a holder
 * renews every third of that.
 */
class MemcachedSkewedClockTests {

	private static final long TTL_MILLIS = 2000;

	private static final Duration TTL = Duration.ofMillis(TTL_MILLIS);

	private static final Duration SKEW = Duration.ofSeconds(8);

	/** How long a contender keeps trying while the holder holds: over two TTLs. */
	private static final Duration CONTENTION = TTL.multipliedBy(5).dividedBy(2);

	@RegisterExtension
	static final MemcachedServerExtension memcached = new MemcachedServerExtension();

	private static final List<MemcachedClient> clients = new ArrayList<>();

	private static MemcachedLockStore ahead;

	private static MemcachedLockStore onTime;

	private static MemcachedLockStore behind;

	@BeforeAll
	static void createStores() throws IOException {
		ahead = store(Clock.offset(Clock.systemUTC(), SKEW));
		onTime = store(Clock.systemUTC());
		behind = store(Clock.offset(Clock.systemUTC(), SKEW.negated()));
	}

	@AfterAll
	static void shutDownClients() throws IOException {
		for (MemcachedClient client : clients) {
			client.shutdown();
		}
	}

	@Test
	void contenderWhoseClockIsAheadNeverTakesALockThatItsHolderRenews() throws Exception {
		assertContenderNeverGetsIn(onTime, ahead);
	}

	@Test
	void contenderOnTheTrueClockNeverTakesALockThatAHolderBehindRenews() throws Exception {
		assertContenderNeverGetsIn(behind, onTime);
	}

	@Test
	void freeKeyIsTakenByEveryStoreWhateverItsClock() {
		String shared = key("free-shared");
		for (Map.Entry<String, MemcachedLockStore> store : stores().entrySet()) {
			String own = key("free");
			String token = token();
			assertThat(store.getValue().tryAcquire(own, token, TTL).isAcquired())
				.as("acquire of a free key by the store whose clock is %s", store.getKey())
				.isTrue();
			assertThat(store.getValue().timeToExpiry(own)).isPositive().isLessThanOrEqualTo(TTL);
			assertThat(store.getValue().extend(own, token, TTL)).isTrue();
			assertThat(store.getValue().release(own, token)).isTrue();
			String sharedToken = token();
			assertThat(store.getValue().tryAcquire(shared, sharedToken, TTL).isAcquired())
				.as("acquire, by the store whose clock is %s, of a key that another store just released",
						store.getKey())
				.isTrue();
			assertThat(store.getValue().release(shared, sharedToken)).isTrue();
		}
	}

	/**
	 * A holder that stops renewing blocks a contender for one time-to-live from the
	 * contender's first sight of its lock, and no more than that plus a polling step.
	 */
	@Test
	void crashedHoldersLockIsTakenOverOneTimeToLiveAfterTheContendersFirstSight() {
		for (MemcachedLockStore[] pair : new MemcachedLockStore[][] { { ahead, behind }, { behind, ahead },
				{ onTime, ahead } }) {
			String key = key("crashed");
			assertThat(pair[0].tryAcquire(key, token(), TTL).isAcquired()).isTrue();
			long crashed = System.nanoTime();
			String contender = token();
			long firstTry = System.nanoTime();
			AcquireReply first = pair[1].tryAcquire(key, contender, TTL);
			assertThat(first.isAcquired()).as("acquire right after the holder crashed").isFalse();
			assertThat(first.holderRemainingTtl()).isPositive().isLessThanOrEqualTo(TTL);
			while (!pair[1].tryAcquire(key, contender, TTL).isAcquired()) {
				assertThat(Duration.ofNanos(System.nanoTime() - crashed)).as("time the crashed holder blocked the key")
					.isLessThan(TTL.plusSeconds(1));
				sleep(20);
			}
			Duration waited = Duration.ofNanos(System.nanoTime() - firstTry);
			assertThat(waited).as("wait from the contender's first sight to its takeover").isGreaterThanOrEqualTo(TTL);
			assertThat(pair[1].release(key, contender)).isTrue();
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
		assertThat(ahead.tryAcquire(key, token(), ttl).isAcquired()).isTrue();
		// Memcached's expiry: 1 s (rounded up) + 3 s, and its clock may be a second late
		sleep(5100);
		assertThat(behind.timeToExpiry(key)).isZero();
		assertThat(behind.tryAcquire(key, token(), ttl).isAcquired()).as("first try on a key abandoned 5 s ago")
			.isTrue();
	}

	private static void assertContenderNeverGetsIn(MemcachedLockStore holderStore, MemcachedLockStore contenderStore)
			throws Exception {
		String key = key("skewed");
		String holder = token();
		assertThat(holderStore.tryAcquire(key, holder, TTL).isAcquired()).isTrue();
		long acquired = System.nanoTime();
		ConcurrentLinkedQueue<String> failedRenewals = new ConcurrentLinkedQueue<>();
		ScheduledExecutorService renewer = Executors.newSingleThreadScheduledExecutor();
		renewer.scheduleAtFixedRate(() -> {
			if (!holderStore.extend(key, holder, TTL)) {
				failedRenewals.add("failed after " + Duration.ofNanos(System.nanoTime() - acquired));
			}
		}, TTL_MILLIS / 3, TTL_MILLIS / 3, TimeUnit.MILLISECONDS);
		List<String> entries = new ArrayList<>();
		try {
			String contender = token();
			long start = System.nanoTime();
			int tries = 0;
			while (System.nanoTime() - start < CONTENTION.toNanos()) {
				AcquireReply reply = contenderStore.tryAcquire(key, contender, TTL);
				tries++;
				if (reply.isAcquired()) {
					entries.add("acquired after " + Duration.ofNanos(System.nanoTime() - start));
					contenderStore.release(key, contender);
				}
				else if (contenderStore.timeToExpiry(key).isZero()) {
					entries.add("time to expiry zero after " + Duration.ofNanos(System.nanoTime() - start));
				}
				sleep(50);
			}
			assertThat(tries).isGreaterThan(10);
		}
		finally {
			renewer.shutdownNow();
			renewer.awaitTermination(5, TimeUnit.SECONDS);
		}
		assertThat(entries).as("the contender's entries while the holder renewed its lock").isEmpty();
		assertThat(failedRenewals).as("the holder's failed renewals").isEmpty();
		assertThat(holderStore.release(key, holder)).isTrue();
	}

	private static Map<String, MemcachedLockStore> stores() {
		return Map.of("8 s ahead", ahead, "right", onTime, "8 s behind", behind);
	}

	private static MemcachedLockStore store(Clock clock) throws IOException {
		XMemcachedClientBuilder builder = new XMemcachedClientBuilder(List.of(memcached.server().socketAddress()));
		builder.setCommandFactory(new BinaryCommandFactory());
		builder.setOpTimeout(2000);
		MemcachedClient client = builder.build();
		clients.add(client);
		return new MemcachedLockStore(client, clock);
	}

	private static String key(String prefix) {
		return "lock-test:" + prefix + ":" + UUID.randomUUID();
	}

	private static String token() {
		return UUID.randomUUID().toString();
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}
