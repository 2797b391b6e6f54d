package dev.lockstarter.test.contract;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.lockstarter.core.Lease;
import dev.lockstarter.core.LockAttempt;
import dev.lockstarter.core.LockLostEvent;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.core.LockTemplate;
import dev.lockstarter.core.LockWaitInterruptedException;
import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.FencingOnDemandLockStore;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.MultiKeyAcquireReply;
import dev.lockstarter.store.MultiKeyLockStore;
import dev.lockstarter.store.ReleaseHandoffLockStore;
import dev.lockstarter.store.ReleaseNotifyingLockStore;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The behaviour of {@link LockTemplate} on a store: waiting for a lock, renewal while
 * held, the reporting of a lost lock, minimum hold times, fixed retries and fencing
 * tokens. Every store should pass it, next to {@link LockStoreContractTests}.
 * <p>
 * Locks on several keys at once are checked the same way: one lease holds every key and
 * one release frees them all, a held key blocks the whole set and leaves nothing else
 * held, a waiter takes the set once every key is free, overlapping sets named in either
 * order exclude each other without deadlock, renewal keeps every key and the loss of one
 * is reported. These run on the store as it is and, for a store with the
 * {@link MultiKeyLockStore} ability, once more through the template's generic path
 * (ordered acquisition with rollback), which every other store takes.
 * <p>
 * Subclasses return the store from {@link #createStore()}. Tests use time-to-lives of a
 * few hundred milliseconds and take a few seconds in all.
 *
 * @since 0.1.0
 */
public abstract class LockOperationsContractTests {

	private static final Duration LONG_TTL = Duration.ofSeconds(30);

	/** A multi-key test on the store as it is. */
	private static final String STORE_PATH = "store";

	/** A multi-key test through the template's generic path, for a multi-key store. */
	private static final String GENERIC_PATH = "generic";

	private final ExecutorService executor = Executors.newCachedThreadPool();

	private final List<LockLostEvent> lostEvents = new CopyOnWriteArrayList<>();

	private LockStore store;

	private TokenRecordingStore recording;

	private LockTemplate locks;

	private LockTemplate genericLocks;

	private TokenRecordingStore genericRecording;

	private String prefix;

	/**
	 * Create the store under test. Called before each test.
	 * @return the store
	 */
	protected abstract LockStore createStore();

	/**
	 * Release the resources of a store created by {@link #createStore()}. Called after
	 * each test; does nothing by default.
	 * @param store the store
	 */
	protected void destroyStore(LockStore store) {
	}

	/**
	 * Return the template under test, on the store.
	 * @return the template
	 */
	protected final LockTemplate locks() {
		return this.locks;
	}

	/**
	 * Return the store under test.
	 * @return the store
	 */
	protected final LockStore store() {
		return this.store;
	}

	/**
	 * Return a new key, unique to the test run.
	 * @param name a readable part
	 * @return the key
	 */
	protected final String uniqueKey(String name) {
		return name + "-" + UUID.randomUUID();
	}

	/**
	 * Return the store key of a template key.
	 * @param key the key given to the template
	 * @return the key the store sees
	 */
	protected final String storeKey(String key) {
		return this.prefix + key;
	}

	@BeforeEach
	void setUpTemplate() {
		this.store = createStore();
		this.recording = TokenRecordingStore.of(this.store);
		this.prefix = "contract-" + UUID.randomUUID().toString().substring(0, 8) + ":";
		this.locks = new LockTemplate(this.recording, this.prefix);
		this.genericRecording = TokenRecordingStore.withoutMultiKey(this.store);
		this.genericLocks = new LockTemplate(this.genericRecording, this.prefix);
		for (LockTemplate template : List.of(this.locks, this.genericLocks)) {
			template.setApplicationEventPublisher((event) -> {
				if (event instanceof LockLostEvent lost) {
					this.lostEvents.add(lost);
				}
			});
		}
	}

	@AfterEach
	void tearDownTemplate() {
		this.executor.shutdownNow();
		this.locks.destroy();
		this.genericLocks.destroy();
		destroyStore(this.store);
	}

	@Test
	void waiterAcquiresOnceTheHolderReleases() throws Exception {
		String key = uniqueKey("handoff");
		Lease holder = this.locks.acquire(key, LONG_TTL);
		CountDownLatch waiting = new CountDownLatch(1);
		Future<LockAttempt> waiter = this.executor.submit(() -> {
			waiting.countDown();
			return this.locks.tryAcquire(key, LockOptions.ttl(LONG_TTL).withWaitTime(Duration.ofSeconds(10)));
		});
		waiting.await();
		Thread.sleep(200);
		assertThat(waiter).isNotDone();
		assertThat(holder.release()).isTrue();
		LockAttempt attempt = waiter.get(5, TimeUnit.SECONDS);
		assertThat(attempt.isAcquired()).isTrue();
		assertThat(attempt.lease().isHeld()).isTrue();
		attempt.lease().release();
	}

	@Test
	void oneReleaseWithTwoWaitersHasExactlyOneWinner() throws Exception {
		String key = uniqueKey("two-waiters");
		Lease holder = this.locks.acquire(key, LONG_TTL);
		LockOptions waitABit = LockOptions.ttl(LONG_TTL).withWaitTime(Duration.ofMillis(1500));
		Future<LockAttempt> first = this.executor.submit(() -> this.locks.tryAcquire(key, waitABit));
		Future<LockAttempt> second = this.executor.submit(() -> this.locks.tryAcquire(key, waitABit));
		Thread.sleep(200);
		holder.release();
		List<LockAttempt> attempts = List.of(first.get(5, TimeUnit.SECONDS), second.get(5, TimeUnit.SECONDS));
		assertThat(attempts).filteredOn(LockAttempt::isAcquired).hasSize(1);
		attempts.stream().filter(LockAttempt::isAcquired).forEach((attempt) -> attempt.lease().release());
	}

	@Test
	void waitThatTimesOutReturnsTheConflictAndLeavesNothingHeld() {
		String key = uniqueKey("timeout");
		Lease holder = this.locks.acquire(key, LONG_TTL);
		LockAttempt attempt = this.locks.tryAcquire(key,
				LockOptions.ttl(LONG_TTL).withWaitTime(Duration.ofMillis(300)));
		assertThat(attempt.isAcquired()).isFalse();
		assertThat(attempt.holderRemainingTtl()).isPositive();
		assertThat(this.recording.acquiredTokens(storeKey(key))).hasSize(1);
		assertThat(holder.release()).isTrue();
		assertThat(this.store.tryAcquire(storeKey(key), "probe", LONG_TTL).isAcquired()).isTrue();
	}

	@Test
	void interruptedWaitLeavesNothingHeld() throws Exception {
		String key = uniqueKey("interrupted");
		Lease holder = this.locks.acquire(key, LONG_TTL);
		AtomicReference<Throwable> failure = new AtomicReference<>();
		AtomicBoolean interruptFlag = new AtomicBoolean();
		Thread waiter = new Thread(() -> {
			try {
				this.locks.tryAcquire(key, LockOptions.ttl(LONG_TTL).withWaitTime(Duration.ofSeconds(20)));
			}
			catch (Throwable ex) {
				failure.set(ex);
				interruptFlag.set(Thread.currentThread().isInterrupted());
			}
		});
		waiter.start();
		Thread.sleep(200);
		waiter.interrupt();
		waiter.join(5000);
		assertThat(waiter.isAlive()).isFalse();
		assertThat(failure.get()).isInstanceOf(LockWaitInterruptedException.class);
		assertThat(interruptFlag).isTrue();
		assertThat(this.recording.acquiredTokens(storeKey(key))).hasSize(1);
		holder.release();
		assertThat(this.store.tryAcquire(storeKey(key), "probe", LONG_TTL).isAcquired()).isTrue();
	}

	@Test
	void retriesAtAFixedIntervalAcquireOnceTheHolderReleases() throws Exception {
		String key = uniqueKey("retries");
		Lease holder = this.locks.acquire(key, LONG_TTL);
		this.executor.submit(() -> {
			Thread.sleep(250);
			return holder.release();
		});
		LockAttempt attempt = this.locks.tryAcquire(key,
				LockOptions.ttl(LONG_TTL).withRetries(3, Duration.ofMillis(200)));
		assertThat(attempt.isAcquired()).isTrue();
		attempt.lease().release();
		Lease blocker = this.locks.acquire(key, LONG_TTL);
		assertThat(this.locks.tryAcquire(key, LockOptions.ttl(LONG_TTL).withRetries(2, Duration.ofMillis(50)))
			.isAcquired()).isFalse();
		blocker.release();
	}

	@Test
	void renewedLockOutlivesItsTtlAndStaysExclusive() throws Exception {
		String key = uniqueKey("renewed");
		Duration ttl = Duration.ofMillis(400);
		Lease holder = this.locks.acquire(key, LockOptions.ttl(ttl));
		AtomicBoolean intruded = new AtomicBoolean();
		long end = System.nanoTime() + ttl.multipliedBy(3).toNanos();
		while (System.nanoTime() - end < 0) {
			if (this.store.tryAcquire(storeKey(key), "intruder", ttl).isAcquired()) {
				intruded.set(true);
			}
			assertThat(holder.isHeld()).isTrue();
			Thread.sleep(40);
		}
		assertThat(intruded).isFalse();
		assertThat(holder.release()).isTrue();
		assertThat(this.lostEvents).isEmpty();
	}

	@Test
	void renewalStopsWhenTheLeaseIsReleased() throws Exception {
		String key = uniqueKey("stop-renewing");
		Duration ttl = Duration.ofMillis(300);
		Lease lease = this.locks.acquire(key, LockOptions.ttl(ttl));
		assertThat(lease.release()).isTrue();
		assertThat(this.store.tryAcquire(storeKey(key), "next-owner", ttl).isAcquired()).isTrue();
		int extendsAfterRelease = this.recording.extendCalls();
		Thread.sleep(ttl.multipliedBy(2).toMillis());
		assertThat(this.recording.extendCalls()).isEqualTo(extendsAfterRelease);
		assertThat(this.store.tryAcquire(storeKey(key), "after-expiry", ttl).isAcquired()).isTrue();
	}

	@Test
	void lostLockIsReportedAndItsReleaseDeletesNothingOfTheNewOwner() throws Exception {
		String key = uniqueKey("lost");
		Duration ttl = Duration.ofMillis(600);
		Lease lease = this.locks.acquire(key, LockOptions.ttl(ttl));
		String token = this.recording.acquiredTokens(storeKey(key)).get(0);
		// The lock vanishes behind the lease's back (as at expiry during a pause), and
		// another owner takes it.
		assertThat(this.store.release(storeKey(key), token)).isTrue();
		assertThat(this.store.tryAcquire(storeKey(key), "new-owner", LONG_TTL).isAcquired()).isTrue();
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
		while ((lease.isHeld() || this.lostEvents.isEmpty()) && System.nanoTime() - deadline < 0) {
			Thread.sleep(20);
		}
		assertThat(lease.isHeld()).isFalse();
		assertThat(this.lostEvents).singleElement().satisfies((event) -> assertThat(event.key()).isEqualTo(key));
		assertThat(lease.release()).isFalse();
		assertThat(this.store.tryAcquire(storeKey(key), "probe", ttl).isAcquired()).isFalse();
		assertThat(this.store.release(storeKey(key), "new-owner")).isTrue();
	}

	@Test
	void renewalStopsAtTheMaximumHoldTime() throws Exception {
		String key = uniqueKey("max-hold");
		Duration ttl = Duration.ofMillis(300);
		Lease lease = this.locks.acquire(key, LockOptions.ttl(ttl).withMaxHold(Duration.ofMillis(200)));
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
		while (!this.store.tryAcquire(storeKey(key), "next-owner", ttl).isAcquired()
				&& System.nanoTime() - deadline < 0) {
			Thread.sleep(20);
		}
		assertThat(lease.isHeld()).isFalse();
		assertThat(lease.release()).isFalse();
		assertThat(this.store.release(storeKey(key), "next-owner")).isTrue();
	}

	@Test
	void minimumHoldKeepsTheLockAfterAFastRelease() throws Exception {
		String key = uniqueKey("double-click");
		LockOptions options = LockOptions.ttl(LONG_TTL).withHoldAtLeast(Duration.ofMillis(800));
		Lease first = this.locks.acquire(key, options);
		assertThat(first.release()).isTrue();
		Thread.sleep(50);
		LockAttempt doubleClick = this.locks.tryAcquire(key, options);
		assertThat(doubleClick.isAcquired()).isFalse();
		assertThat(doubleClick.holderRemainingTtl()).isLessThanOrEqualTo(Duration.ofMillis(800));
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
		LockAttempt later;
		do {
			Thread.sleep(50);
			later = this.locks.tryAcquire(key, options);
		}
		while (!later.isAcquired() && System.nanoTime() - deadline < 0);
		assertThat(later.isAcquired()).isTrue();
		later.lease().release();
	}

	@Test
	void fencingTokensStrictlyIncreaseAcrossOwners() throws Exception {
		String key = uniqueKey("fencing");
		List<Long> tokens = new ArrayList<>();
		for (int i = 0; i < 10; i++) {
			LockTemplate owner = new LockTemplate(this.store, this.prefix);
			try (Lease lease = owner.acquire(key, Duration.ofMillis(200))) {
				tokens.add(lease.fencingToken());
			}
		}
		Assumptions.assumeTrue(tokens.get(0) > 0, "the store issues no fencing tokens");
		// An expired holder is followed by a higher token too.
		LockTemplate expiring = new LockTemplate(this.store, this.prefix);
		Lease abandoned = expiring.acquire(key, LockOptions.ttl(Duration.ofMillis(150)).withRenewal(false));
		tokens.add(abandoned.fencingToken());
		Thread.sleep(300);
		try (Lease next = this.locks.acquire(key, LONG_TTL)) {
			tokens.add(next.fencingToken());
		}
		assertThat(tokens).allSatisfy((token) -> assertThat(token).isPositive());
		for (int i = 1; i < tokens.size(); i++) {
			assertThat(tokens.get(i)).as("token %d of %s", i, tokens).isGreaterThan(tokens.get(i - 1));
		}
	}

	@Test
	void multiKeyLeaseHoldsEveryKeyAndOneReleaseFreesThemAll() {
		multiKeyLeaseHoldsEveryKeyAndOneReleaseFreesThemAll(STORE_PATH);
	}

	@Test
	void multiKeyLeaseHoldsEveryKeyAndOneReleaseFreesThemAllOnTheGenericPath() {
		multiKeyLeaseHoldsEveryKeyAndOneReleaseFreesThemAll(GENERIC_PATH);
	}

	private void multiKeyLeaseHoldsEveryKeyAndOneReleaseFreesThemAll(String path) {
		LockTemplate locks = multiKeyLocks(path);
		List<String> keys = List.of(uniqueKey("multi-b"), uniqueKey("multi-a"), uniqueKey("multi-c"));
		Lease lease = locks.acquire(keys, LONG_TTL);
		assertThat(lease.keys()).containsExactlyInAnyOrderElementsOf(keys);
		assertThat(lease.isHeld()).isTrue();
		for (String key : keys) {
			assertThat(this.store.tryAcquire(storeKey(key), "intruder", LONG_TTL).isAcquired()).as("%s is held", key)
				.isFalse();
		}
		assertThat(lease.release()).isTrue();
		assertThat(lease.isHeld()).isFalse();
		for (String key : keys) {
			assertThat(this.store.tryAcquire(storeKey(key), "next", LONG_TTL).isAcquired()).as("%s is free", key)
				.isTrue();
		}
	}

	@Test
	void heldKeyBlocksTheWholeSetAndNothingElseStaysHeld() {
		heldKeyBlocksTheWholeSetAndNothingElseStaysHeld(STORE_PATH);
	}

	@Test
	void heldKeyBlocksTheWholeSetAndNothingElseStaysHeldOnTheGenericPath() {
		heldKeyBlocksTheWholeSetAndNothingElseStaysHeld(GENERIC_PATH);
	}

	private void heldKeyBlocksTheWholeSetAndNothingElseStaysHeld(String path) {
		LockTemplate locks = multiKeyLocks(path);
		String first = uniqueKey("blocked");
		String held = first + "-held";
		String last = held + "-z";
		Lease holder = this.locks.acquire(held, Duration.ofSeconds(10));
		LockAttempt attempt = locks.tryAcquire(List.of(last, held, first), LONG_TTL);
		assertThat(attempt.isAcquired()).isFalse();
		assertThat(attempt.heldKey()).isEqualTo(held);
		assertThat(attempt.holderRemainingTtl()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(10));
		assertThat(this.store.tryAcquire(storeKey(first), "probe", LONG_TTL).isAcquired())
			.as("the key before the held one was rolled back")
			.isTrue();
		assertThat(this.store.tryAcquire(storeKey(last), "probe", LONG_TTL).isAcquired())
			.as("the key after the held one was not kept")
			.isTrue();
		assertThat(holder.isHeld()).isTrue();
		assertThat(holder.release()).isTrue();
	}

	@Test
	void multiKeyWaiterTakesTheWholeSetOnceEveryHolderReleases() throws Exception {
		multiKeyWaiterTakesTheWholeSetOnceEveryHolderReleases(STORE_PATH);
	}

	@Test
	void multiKeyWaiterTakesTheWholeSetOnceEveryHolderReleasesOnTheGenericPath() throws Exception {
		multiKeyWaiterTakesTheWholeSetOnceEveryHolderReleases(GENERIC_PATH);
	}

	private void multiKeyWaiterTakesTheWholeSetOnceEveryHolderReleases(String path) throws Exception {
		LockTemplate locks = multiKeyLocks(path);
		String a = uniqueKey("wait-a");
		String b = uniqueKey("wait-b");
		Lease holdsA = this.locks.acquire(a, LONG_TTL);
		Lease holdsB = this.locks.acquire(b, LONG_TTL);
		Future<LockAttempt> waiter = this.executor.submit(
				() -> locks.tryAcquire(List.of(b, a), LockOptions.ttl(LONG_TTL).withWaitTime(Duration.ofSeconds(10))));
		Thread.sleep(200);
		assertThat(holdsB.release()).isTrue();
		Thread.sleep(200);
		assertThat(waiter).as("one key is still held").isNotDone();
		assertThat(holdsA.release()).isTrue();
		LockAttempt attempt = waiter.get(5, TimeUnit.SECONDS);
		assertThat(attempt.isAcquired()).isTrue();
		assertThat(attempt.lease().isHeld()).isTrue();
		assertThat(attempt.lease().release()).isTrue();
	}

	@Test
	void overlappingSetsInEitherOrderExcludeEachOtherWithoutDeadlock() {
		overlappingSetsInEitherOrderExcludeEachOtherWithoutDeadlock(STORE_PATH);
	}

	@Test
	void overlappingSetsInEitherOrderExcludeEachOtherWithoutDeadlockOnTheGenericPath() {
		overlappingSetsInEitherOrderExcludeEachOtherWithoutDeadlock(GENERIC_PATH);
	}

	private void overlappingSetsInEitherOrderExcludeEachOtherWithoutDeadlock(String path) {
		LockTemplate locks = multiKeyLocks(path);
		String a = uniqueKey("order-a");
		String b = uniqueKey("order-b");
		String c = uniqueKey("order-c");
		LockOptions waiting = LockOptions.ttl(LONG_TTL).withWaitTime(Duration.ofSeconds(30));
		ExclusionChecker.Result result = new ExclusionChecker().threads(6)
			.attemptsPerThread(20)
			.holdTime(Duration.ofMillis(1))
			.timeout(Duration.ofSeconds(90))
			.checkSets(List.of(List.of(a, b), List.of(b, a), List.of(a, c), List.of(c, a), List.of(b)), (set) -> {
				LockAttempt attempt = locks.tryAcquire(set, waiting);
				return attempt.isAcquired() ? attempt.lease()::release : null;
			});
		assertThat(result.failures()).as(result.toString()).isEmpty();
		assertThat(result.violations()).as(result.toString()).isZero();
		assertThat(result.overlaps()).as(result.toString()).isZero();
		assertThat(result.rejections()).as("every waiter got its set within its wait, so none deadlocked: " + result)
			.isZero();
		for (String key : List.of(a, b, c)) {
			assertThat(this.store.tryAcquire(storeKey(key), "probe", LONG_TTL).isAcquired())
				.as("%s is free after the check", key)
				.isTrue();
		}
	}

	@Test
	void renewalKeepsEveryKeyOfAMultiKeyLease() throws Exception {
		renewalKeepsEveryKeyOfAMultiKeyLease(STORE_PATH);
	}

	@Test
	void renewalKeepsEveryKeyOfAMultiKeyLeaseOnTheGenericPath() throws Exception {
		renewalKeepsEveryKeyOfAMultiKeyLease(GENERIC_PATH);
	}

	private void renewalKeepsEveryKeyOfAMultiKeyLease(String path) throws Exception {
		LockTemplate locks = multiKeyLocks(path);
		Duration ttl = Duration.ofMillis(400);
		List<String> keys = List.of(uniqueKey("renew-a"), uniqueKey("renew-b"));
		Lease lease = locks.acquire(keys, LockOptions.ttl(ttl));
		long end = System.nanoTime() + ttl.multipliedBy(3).toNanos();
		while (System.nanoTime() - end < 0) {
			for (String key : keys) {
				assertThat(this.store.tryAcquire(storeKey(key), "intruder", ttl).isAcquired())
					.as("%s was taken while its lease renews it", key)
					.isFalse();
			}
			assertThat(lease.isHeld()).isTrue();
			Thread.sleep(40);
		}
		assertThat(lease.release()).isTrue();
		assertThat(this.lostEvents).isEmpty();
	}

	@Test
	void lossOfOneKeyOfAMultiKeyLeaseIsReportedAndItsReleaseFreesTheOthers() throws Exception {
		lossOfOneKeyOfAMultiKeyLeaseIsReportedAndItsReleaseFreesTheOthers(STORE_PATH);
	}

	@Test
	void lossOfOneKeyOfAMultiKeyLeaseIsReportedAndItsReleaseFreesTheOthersOnTheGenericPath() throws Exception {
		lossOfOneKeyOfAMultiKeyLeaseIsReportedAndItsReleaseFreesTheOthers(GENERIC_PATH);
	}

	private void lossOfOneKeyOfAMultiKeyLeaseIsReportedAndItsReleaseFreesTheOthers(String path) throws Exception {
		LockTemplate locks = multiKeyLocks(path);
		Duration ttl = Duration.ofMillis(600);
		String a = uniqueKey("lost-a");
		String b = uniqueKey("lost-b");
		Lease lease = locks.acquire(List.of(a, b), LockOptions.ttl(ttl));
		// b vanishes behind the lease's back, and another owner takes it
		assertThat(this.store.release(storeKey(b), ownerToken(locks, b))).isTrue();
		assertThat(this.store.tryAcquire(storeKey(b), "new-owner", LONG_TTL).isAcquired()).isTrue();
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
		while ((lease.isHeld() || this.lostEvents.isEmpty()) && System.nanoTime() - deadline < 0) {
			Thread.sleep(20);
		}
		assertThat(lease.isHeld()).isFalse();
		assertThat(this.lostEvents).singleElement().satisfies((event) -> assertThat(event.key()).isEqualTo(b));
		assertThat(lease.release()).as("not every key was still owned").isFalse();
		assertThat(this.store.tryAcquire(storeKey(a), "probe", LONG_TTL).isAcquired()).as("a was released").isTrue();
		assertThat(this.store.release(storeKey(b), "new-owner")).as("b of the new owner is untouched").isTrue();
	}

	@Test
	void everyKeyOfAMultiKeyLeaseHasAnIncreasingFencingToken() {
		everyKeyOfAMultiKeyLeaseHasAnIncreasingFencingToken(STORE_PATH);
	}

	@Test
	void everyKeyOfAMultiKeyLeaseHasAnIncreasingFencingTokenOnTheGenericPath() {
		everyKeyOfAMultiKeyLeaseHasAnIncreasingFencingToken(GENERIC_PATH);
	}

	private void everyKeyOfAMultiKeyLeaseHasAnIncreasingFencingToken(String path) {
		LockTemplate locks = multiKeyLocks(path);
		String a = uniqueKey("fence-a");
		String b = uniqueKey("fence-b");
		long before;
		try (Lease single = this.locks.acquire(a, LONG_TTL)) {
			before = single.fencingToken();
		}
		Assumptions.assumeTrue(before > 0, "the store issues no fencing tokens");
		long afterMulti;
		try (Lease lease = locks.acquire(List.of(a, b), LONG_TTL)) {
			assertThat(lease.fencingToken(a)).isGreaterThan(before);
			assertThat(lease.fencingToken(b)).isPositive();
			afterMulti = lease.fencingToken(a);
		}
		try (Lease single = this.locks.acquire(a, LONG_TTL)) {
			assertThat(single.fencingToken()).isGreaterThan(afterMulti);
		}
	}

	/**
	 * Return the template of a multi-key test: on the store as it is
	 * ({@link #STORE_PATH}, which uses its {@link MultiKeyLockStore} ability if it has
	 * one), or on the store seen without that ability ({@link #GENERIC_PATH}: ordered
	 * acquisition with rollback in the template), skipped for a store that has no such
	 * ability anyway.
	 */
	private LockTemplate multiKeyLocks(String path) {
		if (path.equals(GENERIC_PATH)) {
			Assumptions.assumeTrue(this.store instanceof MultiKeyLockStore,
					"the store has no multi-key ability: its path is the generic one");
			return this.genericLocks;
		}
		return this.locks;
	}

	private String ownerToken(LockTemplate locks, String key) {
		TokenRecordingStore recording = (locks == this.genericLocks) ? this.genericRecording : this.recording;
		List<String> tokens = recording.acquiredTokens(storeKey(key));
		assertThat(tokens).as("tokens that acquired %s", key).isNotEmpty();
		return tokens.get(tokens.size() - 1);
	}

	/**
	 * Remembers the owner tokens the template draws and counts extensions, so that tests
	 * can act as the store would behind a lease's back.
	 */
	private static class TokenRecordingStore implements LockStore {

		private final LockStore delegate;

		private final Map<String, List<String>> acquired = new ConcurrentHashMap<>();

		private final AtomicInteger extendCalls = new AtomicInteger();

		TokenRecordingStore(LockStore delegate) {
			this.delegate = delegate;
		}

		/**
		 * Wrap a store, keeping its abilities: release notifications and multi-key
		 * acquisition.
		 */
		static TokenRecordingStore of(LockStore delegate) {
			if (delegate instanceof MultiKeyLockStore multiKey) {
				if (delegate instanceof ReleaseNotifyingLockStore notifying
						&& delegate instanceof FencingOnDemandLockStore onDemand) {
					return new FencingNotifyingMultiKey(notifying, multiKey, onDemand);
				}
				return (delegate instanceof ReleaseNotifyingLockStore notifying)
						? new NotifyingMultiKey(notifying, multiKey) : new MultiKey(multiKey);
			}
			return withoutMultiKey(delegate);
		}

		/**
		 * Wrap a store, keeping its release notifications but hiding any multi-key
		 * acquisition, so that a template takes the generic path.
		 */
		static TokenRecordingStore withoutMultiKey(LockStore delegate) {
			if (delegate instanceof ReleaseNotifyingLockStore notifying
					&& delegate instanceof FencingOnDemandLockStore onDemand) {
				return new FencingNotifying(notifying, onDemand);
			}
			return (delegate instanceof ReleaseNotifyingLockStore notifying) ? new Notifying(notifying)
					: new TokenRecordingStore(delegate);
		}

		MultiKeyAcquireReply recordAll(MultiKeyLockStore multiKey, List<String> keys, String token, Duration ttl) {
			MultiKeyAcquireReply result = multiKey.tryAcquireAll(keys, token, ttl);
			if (result.isAcquired()) {
				keys.forEach(
						(key) -> this.acquired.computeIfAbsent(key, (k) -> new CopyOnWriteArrayList<>()).add(token));
			}
			return result;
		}

		/**
		 * An acquisition sent by a release listener, recorded once it is granted.
		 */
		Optional<CompletableFuture<AcquireReply>> recordOnRelease(ReleaseNotifyingLockStore notifying, String key,
				String token, Duration ttl) {
			if (!(notifying instanceof ReleaseHandoffLockStore handoffs)) {
				return Optional.empty();
			}
			return handoffs.tryAcquireOnRelease(key, token, ttl).map((attempt) -> attempt.thenApply((reply) -> {
				if (reply.isAcquired()) {
					this.acquired.computeIfAbsent(key, (k) -> new CopyOnWriteArrayList<>()).add(token);
				}
				return reply;
			}));
		}

		List<String> acquiredTokens(String storeKey) {
			return this.acquired.getOrDefault(storeKey, List.of());
		}

		int extendCalls() {
			return this.extendCalls.get();
		}

		@Override
		public AcquireReply tryAcquire(String key, String token, Duration ttl) {
			AcquireReply result = this.delegate.tryAcquire(key, token, ttl);
			if (result.isAcquired()) {
				this.acquired.computeIfAbsent(key, (k) -> new CopyOnWriteArrayList<>()).add(token);
			}
			return result;
		}

		@Override
		public boolean release(String key, String token) {
			return this.delegate.release(key, token);
		}

		@Override
		public boolean extend(String key, String token, Duration ttl) {
			this.extendCalls.incrementAndGet();
			return this.delegate.extend(key, token, ttl);
		}

		@Override
		public boolean[] extendAll(List<String> keys, List<String> tokens, Duration ttl) {
			this.extendCalls.incrementAndGet();
			return this.delegate.extendAll(keys, tokens, ttl);
		}

		@Override
		public Duration timeToExpiry(String key) {
			return this.delegate.timeToExpiry(key);
		}

		private static class Notifying extends TokenRecordingStore implements ReleaseHandoffLockStore {

			private final ReleaseNotifyingLockStore notifying;

			Notifying(ReleaseNotifyingLockStore delegate) {
				super(delegate);
				this.notifying = delegate;
			}

			@Override
			public Subscription subscribe(String key, Runnable listener) {
				return this.notifying.subscribe(key, listener);
			}

			@Override
			public Optional<CompletableFuture<AcquireReply>> tryAcquireOnRelease(String key, String token,
					Duration ttl) {
				return recordOnRelease(this.notifying, key, token, ttl);
			}

		}

		private static final class MultiKey extends TokenRecordingStore implements MultiKeyLockStore {

			private final MultiKeyLockStore multiKey;

			MultiKey(MultiKeyLockStore delegate) {
				super(delegate);
				this.multiKey = delegate;
			}

			@Override
			public MultiKeyAcquireReply tryAcquireAll(List<String> keys, String token, Duration ttl) {
				return recordAll(this.multiKey, keys, token, ttl);
			}

			@Override
			public boolean[] releaseAll(List<String> keys, String token) {
				return this.multiKey.releaseAll(keys, token);
			}

		}

		/** A store that draws fencing tokens on demand keeps that ability. */
		private interface FencingDelegate extends FencingOnDemandLockStore {

			FencingOnDemandLockStore onDemand();

			@Override
			default AcquireReply tryAcquireFenced(String key, String token, Duration ttl) {
				return onDemand().tryAcquireFenced(key, token, ttl);
			}

			@Override
			default long fencingToken(String key, String token) {
				return onDemand().fencingToken(key, token);
			}

		}

		private static final class FencingNotifying extends Notifying implements FencingDelegate {

			private final FencingOnDemandLockStore onDemand;

			FencingNotifying(ReleaseNotifyingLockStore delegate, FencingOnDemandLockStore onDemand) {
				super(delegate);
				this.onDemand = onDemand;
			}

			@Override
			public FencingOnDemandLockStore onDemand() {
				return this.onDemand;
			}

		}

		private static final class FencingNotifyingMultiKey extends NotifyingMultiKey implements FencingDelegate {

			private final FencingOnDemandLockStore onDemand;

			FencingNotifyingMultiKey(ReleaseNotifyingLockStore notifying, MultiKeyLockStore multiKey,
					FencingOnDemandLockStore onDemand) {
				super(notifying, multiKey);
				this.onDemand = onDemand;
			}

			@Override
			public FencingOnDemandLockStore onDemand() {
				return this.onDemand;
			}

		}

		private static class NotifyingMultiKey extends TokenRecordingStore
				implements ReleaseHandoffLockStore, MultiKeyLockStore {

			private final ReleaseNotifyingLockStore notifying;

			private final MultiKeyLockStore multiKey;

			NotifyingMultiKey(ReleaseNotifyingLockStore notifying, MultiKeyLockStore multiKey) {
				super(notifying);
				this.notifying = notifying;
				this.multiKey = multiKey;
			}

			@Override
			public Subscription subscribe(String key, Runnable listener) {
				return this.notifying.subscribe(key, listener);
			}

			@Override
			public Optional<CompletableFuture<AcquireReply>> tryAcquireOnRelease(String key, String token,
					Duration ttl) {
				return recordOnRelease(this.notifying, key, token, ttl);
			}

			@Override
			public MultiKeyAcquireReply tryAcquireAll(List<String> keys, String token, Duration ttl) {
				return recordAll(this.multiKey, keys, token, ttl);
			}

			@Override
			public boolean[] releaseAll(List<String> keys, String token) {
				return this.multiKey.releaseAll(keys, token);
			}

		}

	}

}
