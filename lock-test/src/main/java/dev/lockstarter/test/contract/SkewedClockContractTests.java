package dev.lockstarter.test.contract;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.MultiKeyLockStore;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The contract that no application server's wall clock decides whether a lock is held:
 * three stores on one server, as three application servers whose wall clocks are
 * {@link #SKEW} ahead of the true clock, on it, and {@link #SKEW} behind, each on a
 * client of its own and with its own record of what it has seen. Locks live {@link #TTL},
 * and a holder renews every third of it.
 * <ul>
 * <li>a contender never gets in while a holder renews, whether the contender's clock is
 * ahead of the holder's or the holder's behind the contender's (a store that wrote its
 * lock's expiry on the writer's wall clock and compared it with the reader's fails both
 * at the contender's first try);</li>
 * <li>a free key is taken by every store, whatever its clock;</li>
 * <li>a holder that stops renewing (a crash) blocks its key for one time-to-live from the
 * contender's first sight of its lock: not less, and not much more; the contender gets a
 * higher fencing token, and the crashed holder can no longer extend.</li>
 * </ul>
 * A subclass creates each store with {@link #createStore(Clock)}, once per test class,
 * declares with {@link #issuesFencingTokens()} whether its store issues fencing tokens,
 * and closes what it opened; it adds the tests of its store's own expiry (a lease, an
 * item's expiry) and modes.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class SkewedClockContractTests {

	/** The time-to-live of every lock of the contract. */
	protected static final Duration TTL = Duration.ofSeconds(2);

	/** How far the two skewed wall clocks are ahead and behind. */
	protected static final Duration SKEW = Duration.ofSeconds(8);

	/** How long a contender keeps trying while the holder renews: more than two TTLs. */
	private static final Duration CONTENTION = TTL.multipliedBy(5).dividedBy(2);

	/** Scheduling and round trips on a shared two-core machine. */
	private static final Duration SLACK = Duration.ofSeconds(1);

	private final Map<String, LockStore> stores = new LinkedHashMap<>();

	/**
	 * Create a store on the server under test, on a client of its own, whose wall clock
	 * is {@code wallClock}; as the store of another application server, it shares nothing
	 * with the other stores but the server.
	 * @param wallClock the store's wall clock, skewed
	 * @return the store
	 */
	protected abstract LockStore createStore(Clock wallClock);

	/**
	 * Return whether the store issues fencing tokens: with every acquisition a positive
	 * token, greater than every earlier one of the key. The takeover of a crashed
	 * holder's lock checks the store's tokens against this declaration: a store that
	 * declares tokens fails it when an acquisition answers
	 * {@link AcquireReply#NO_FENCING_TOKEN}, and a store that declares none, as by
	 * default, fails it when it answers any other token.
	 * @return {@code true} if the store issues fencing tokens
	 */
	protected boolean issuesFencingTokens() {
		return false;
	}

	/** Return the store whose wall clock is {@link #SKEW} ahead. */
	protected final LockStore ahead() {
		return store("8 s ahead", SKEW);
	}

	/** Return the store on the true clock. */
	protected final LockStore onTime() {
		return store("on time", Duration.ZERO);
	}

	/** Return the store whose wall clock is {@link #SKEW} behind. */
	protected final LockStore behind() {
		return store("8 s behind", SKEW.negated());
	}

	@Test
	void contenderWhoseClockIsAheadNeverGetsInWhileAHolderOnTheTrueClockRenews() throws InterruptedException {
		assertContenderNeverGetsIn(onTime(), ahead());
	}

	@Test
	void contenderOnTheTrueClockNeverGetsInWhileAHolderWhoseClockIsBehindRenews() throws InterruptedException {
		assertContenderNeverGetsIn(behind(), onTime());
	}

	@Test
	void aFreeKeyIsTakenByEveryStoreWhateverItsClock() {
		String shared = key("free-shared");
		for (LockStore store : List.of(ahead(), onTime(), behind())) {
			String name = nameOf(store);
			String own = key("free");
			String token = token();
			assertThat(store.tryAcquire(own, token, TTL).isAcquired()).as("acquire of a free key by the store %s", name)
				.isTrue();
			assertThat(store.timeToExpiry(own)).isPositive().isLessThanOrEqualTo(TTL);
			assertThat(store.extend(own, token, TTL)).as("extend by the store %s", name).isTrue();
			assertThat(store.release(own, token)).as("release by the store %s", name).isTrue();
			String sharedToken = token();
			assertThat(store.tryAcquire(shared, sharedToken, TTL).isAcquired())
				.as("acquire, by the store %s, of a key that another store just released", name)
				.isTrue();
			assertThat(store.release(shared, sharedToken)).isTrue();
		}
	}

	@Test
	void aCrashedHoldersLockIsTakenOverOneTimeToLiveAfterTheContendersFirstSight() {
		LockStore[][] pairs = { { ahead(), behind() }, { behind(), ahead() }, { onTime(), ahead() } };
		for (LockStore[] pair : pairs) {
			String description = "holder " + nameOf(pair[0]) + ", contender " + nameOf(pair[1]);
			String key = key("crashed");
			String crashed = token();
			AcquireReply held = DeclaredFencing.tryAcquireFenced(pair[0], key, crashed, TTL);
			assertThat(held.isAcquired()).isTrue();
			// The holder crashes: it renews no more
			String contender = token();
			long firstTry = System.nanoTime();
			AcquireReply first = pair[1].tryAcquire(key, contender, TTL);
			assertThat(first.isAcquired()).as("%s: acquire right after the holder crashed", description).isFalse();
			assertThat(first.holderRemainingTtl()).as("%s: time left, as the contender first sees it", description)
				.isPositive()
				.isLessThanOrEqualTo(TTL);
			AcquireReply taken;
			while (!(taken = DeclaredFencing.tryAcquireFenced(pair[1], key, contender, TTL)).isAcquired()) {
				assertThat(Duration.ofNanos(System.nanoTime() - firstTry))
					.as("%s: time the crashed holder blocked the key", description)
					.isLessThan(TTL.plus(SLACK));
				sleep(Duration.ofMillis(20));
			}
			assertThat(Duration.ofNanos(System.nanoTime() - firstTry))
				.as("%s: wait from the contender's first sight to its takeover", description)
				.isGreaterThanOrEqualTo(TTL);
			if (DeclaredFencing.of(issuesFencingTokens(), pair[0])
				.check(description + ": fencing tokens of the crashed holder and of the takeover",
						List.of(held.fencingToken(), taken.fencingToken()))) {
				assertThat(taken.fencingToken()).as("%s: fencing token of the takeover", description)
					.isGreaterThan(held.fencingToken());
			}
			assertThat(pair[0].extend(key, crashed, TTL)).as("%s: extension by the crashed holder", description)
				.isFalse();
			assertThat(pair[1].release(key, contender)).isTrue();
		}
	}

	/**
	 * The holder takes a key and renews it every third of its time-to-live; meanwhile the
	 * contender tries it, reads its time to expiry and, on a store that takes several
	 * keys at once, tries it with a free key, for {@link #CONTENTION}: it must never get
	 * in, and never see it free.
	 */
	private void assertContenderNeverGetsIn(LockStore holderStore, LockStore contenderStore)
			throws InterruptedException {
		String key = key("skewed");
		String holder = token();
		assertThat(holderStore.tryAcquire(key, holder, TTL).isAcquired()).isTrue();
		long acquired = System.nanoTime();
		ConcurrentLinkedQueue<String> failedRenewals = new ConcurrentLinkedQueue<>();
		ScheduledExecutorService renewer = Executors.newSingleThreadScheduledExecutor();
		long period = TTL.toMillis() / 3;
		AtomicInteger renewals = new AtomicInteger();
		renewer.scheduleAtFixedRate(() -> {
			try {
				if (holderStore.extend(key, holder, TTL)) {
					renewals.incrementAndGet();
				}
				else {
					failedRenewals.add("refused after " + Duration.ofNanos(System.nanoTime() - acquired));
				}
			}
			catch (RuntimeException ex) {
				failedRenewals.add(ex + " after " + Duration.ofNanos(System.nanoTime() - acquired));
			}
		}, period, period, TimeUnit.MILLISECONDS);
		List<String> entries = new ArrayList<>();
		int tries = 0;
		try {
			String contender = token();
			long start = System.nanoTime();
			while (System.nanoTime() - start < CONTENTION.toNanos()) {
				String at = " after " + Duration.ofNanos(System.nanoTime() - start);
				AcquireReply reply = contenderStore.tryAcquire(key, contender, TTL);
				if (reply.isAcquired()) {
					entries.add("acquired" + at);
					contenderStore.release(key, contender);
				}
				else if (reply.holderRemainingTtl().isNegative() || reply.holderRemainingTtl().compareTo(TTL) > 0) {
					entries.add("told the holder has " + reply.holderRemainingTtl() + " left" + at);
				}
				if (contenderStore.timeToExpiry(key).isZero()) {
					entries.add("time to expiry zero" + at);
				}
				if (contenderStore instanceof MultiKeyLockStore multiKey) {
					List<String> keys = List.of(key, key("free-beside"));
					if (multiKey.tryAcquireAll(keys, contender, TTL).isAcquired()) {
						entries.add("acquired with another key" + at);
						multiKey.releaseAll(keys, contender);
					}
				}
				tries++;
				sleep(Duration.ofMillis(50));
			}
		}
		finally {
			renewer.shutdownNow();
			renewer.awaitTermination(5, TimeUnit.SECONDS);
		}
		assertThat(tries).as("the contender's tries").isGreaterThan(10);
		assertThat(entries)
			.as("the contender (%s) while the holder (%s) renewed its lock", nameOf(contenderStore),
					nameOf(holderStore))
			.isEmpty();
		assertThat(failedRenewals).as("the holder's failed renewals").isEmpty();
		assertThat(renewals).as("the holder's renewals").hasValueGreaterThanOrEqualTo(3);
		assertThat(holderStore.release(key, holder)).isTrue();
		String next = token();
		assertThat(contenderStore.tryAcquire(key, next, TTL).isAcquired()).as("the contender after the release")
			.isTrue();
		assertThat(contenderStore.release(key, next)).isTrue();
	}

	/** A key of its own for one use, under a common prefix. */
	protected static String key(String name) {
		return "lock-test:skewed-clock:" + name + ":" + UUID.randomUUID();
	}

	/** A fresh owner token. */
	protected static String token() {
		return UUID.randomUUID().toString();
	}

	/** Sleep, as a test does between tries. */
	protected static void sleep(Duration duration) {
		StoreUnderTest.sleep(duration);
	}

	private LockStore store(String name, Duration skew) {
		return this.stores.computeIfAbsent(name, (ignored) -> createStore(Clock.offset(Clock.systemUTC(), skew)));
	}

	private String nameOf(LockStore store) {
		return this.stores.entrySet()
			.stream()
			.filter((entry) -> entry.getValue() == store)
			.map(Map.Entry::getKey)
			.findFirst()
			.orElse("?");
	}

}
