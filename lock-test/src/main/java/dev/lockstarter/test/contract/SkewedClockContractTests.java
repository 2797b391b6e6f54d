package dev.lockstarter.test.contract;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

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
 * at the contender's first try). "While" is judged on the test's monotonic clock, from
 * the holder's confirmed writes ({@link HolderCoverage}), so that a test JVM that stalls
 * past the time-to-live does not count as a broken store: that round runs again;</li>
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

	/** How many rounds of contention may be lost to a stall of the test's JVM. */
	private static final int ROUNDS = 3;

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
	 * in, and never see it free, while the holder's confirmed writes hold the lock
	 * ({@link HolderCoverage}), and the store must never refuse a renewal then. A round
	 * in which the holder stalled past its time-to-live (the test's JVM paused) proves
	 * nothing after the stall, and runs again, up to {@link #ROUNDS} times.
	 */
	private void assertContenderNeverGetsIn(LockStore holderStore, LockStore contenderStore)
			throws InterruptedException {
		List<String> stalled = new ArrayList<>();
		for (int round = 1; round <= ROUNDS; round++) {
			Contention contention = contend(holderStore, contenderStore);
			assertThat(contention.tries).as("the contender's tries").isGreaterThan(10);
			assertThat(contention.violations())
				.as("the contender (%s) and the holder (%s) while the holder's writes held the lock",
						nameOf(contenderStore), nameOf(holderStore))
				.isEmpty();
			assertThat(contention.freeAfterRelease).as("the contender after the holder's release").isTrue();
			if (contention.provedThroughout()) {
				assertThat(contention.renewals).as("the holder's renewals").isGreaterThanOrEqualTo(3);
				assertThat(contention.released).as("the holder's release").isTrue();
				return;
			}
			stalled.add("round " + round + ": " + contention.stall());
		}
		throw new AssertionError("In no round did the holder's renewals hold its lock throughout the contention; "
				+ "the test's JVM stalled past the time-to-live each time: " + stalled);
	}

	private Contention contend(LockStore holderStore, LockStore contenderStore) throws InterruptedException {
		String key = key("skewed");
		String holder = token();
		Contention contention = new Contention();
		long sent = System.nanoTime();
		assertThat(holderStore.tryAcquire(key, holder, TTL).isAcquired()).isTrue();
		contention.coverage.confirmed(sent, System.nanoTime());
		ScheduledExecutorService renewer = Executors.newSingleThreadScheduledExecutor();
		long period = TTL.toMillis() / 3;
		renewer.scheduleAtFixedRate(() -> contention.renew(holderStore, key, holder), period, period,
				TimeUnit.MILLISECONDS);
		try {
			String contender = token();
			long start = System.nanoTime();
			while (System.nanoTime() - start < CONTENTION.toNanos()) {
				contention.tryOnce(contenderStore, key, contender);
				sleep(Duration.ofMillis(50));
			}
		}
		finally {
			renewer.shutdownNow();
			renewer.awaitTermination(5, TimeUnit.SECONDS);
			contention.ended = System.nanoTime();
		}
		contention.released = holderStore.release(key, holder);
		String next = token();
		contention.freeAfterRelease = contenderStore.tryAcquire(key, next, TTL).isAcquired()
				&& contenderStore.release(key, next);
		return contention;
	}

	/**
	 * One round of contention: what the contender saw, what the holder's renewals
	 * answered, and the windows in which the holder's confirmed writes held the lock.
	 */
	private static final class Contention {

		private final HolderCoverage coverage = new HolderCoverage(TTL);

		private final long began = System.nanoTime();

		/**
		 * Things that must not happen while the lock is held, each with its call's span.
		 */
		private final List<Sighting> sightings = new ArrayList<>();

		/** Things that must never happen, whatever the holder did. */
		private final List<String> alwaysWrong = new ArrayList<>();

		private final Queue<Sighting> failedRenewals = new ConcurrentLinkedQueue<>();

		private volatile int renewals;

		private int tries;

		private long ended;

		private boolean released;

		private boolean freeAfterRelease;

		void renew(LockStore holderStore, String key, String holder) {
			long sent = System.nanoTime();
			try {
				if (holderStore.extend(key, holder, TTL)) {
					this.coverage.confirmed(sent, System.nanoTime());
					this.renewals++;
				}
				else {
					this.failedRenewals.add(new Sighting("renewal refused", sent, System.nanoTime()));
				}
			}
			catch (RuntimeException ex) {
				this.failedRenewals.add(new Sighting("renewal failed: " + ex, sent, System.nanoTime()));
			}
		}

		void tryOnce(LockStore contenderStore, String key, String contender) {
			long sent = System.nanoTime();
			AcquireReply reply = contenderStore.tryAcquire(key, contender, TTL);
			long answered = System.nanoTime();
			if (reply.isAcquired()) {
				this.sightings.add(new Sighting("acquired", sent, answered));
				contenderStore.release(key, contender);
			}
			else if (reply.holderRemainingTtl().isNegative() || reply.holderRemainingTtl().compareTo(TTL) > 0) {
				this.alwaysWrong.add("told the holder has " + reply.holderRemainingTtl() + " left after "
						+ Duration.ofNanos(sent - this.began));
			}
			sent = System.nanoTime();
			if (contenderStore.timeToExpiry(key).isZero()) {
				this.sightings.add(new Sighting("time to expiry zero", sent, System.nanoTime()));
			}
			if (contenderStore instanceof MultiKeyLockStore multiKey) {
				List<String> keys = List.of(key, key("free-beside"));
				sent = System.nanoTime();
				if (multiKey.tryAcquireAll(keys, contender, TTL).isAcquired()) {
					this.sightings.add(new Sighting("acquired with another key", sent, System.nanoTime()));
					multiKey.releaseAll(keys, contender);
				}
			}
			this.tries++;
		}

		List<String> violations() {
			List<String> violations = new ArrayList<>(this.alwaysWrong);
			for (Sighting sighting : this.sightings) {
				if (this.coverage.covers(sighting.sent, sighting.answered)) {
					violations.add(sighting.describe(this.began));
				}
			}
			for (Sighting renewal : this.failedRenewals) {
				if (this.coverage.covers(renewal.sent, renewal.answered)) {
					violations.add(renewal.describe(this.began));
				}
			}
			return violations;
		}

		boolean provedThroughout() {
			return this.coverage.reach() > this.ended;
		}

		String stall() {
			List<String> seen = new ArrayList<>();
			this.sightings.forEach((sighting) -> seen.add(sighting.describe(this.began)));
			this.failedRenewals.forEach((renewal) -> seen.add(renewal.describe(this.began)));
			return "the holder's writes held the lock until " + Duration.ofNanos(this.coverage.reach() - this.began)
					+ " of " + Duration.ofNanos(this.ended - this.began) + ", then " + seen;
		}

	}

	private record Sighting(String what, long sent, long answered) {

		String describe(long began) {
			return this.what + " after " + Duration.ofNanos(this.sent - began) + " (answered after "
					+ Duration.ofNanos(this.answered - began) + ")";
		}

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
