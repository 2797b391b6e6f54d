package dev.lockstarter.test.contract;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;

import dev.lockstarter.core.Lease;
import dev.lockstarter.core.LockAttempt;
import dev.lockstarter.core.LockConflictException;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.core.LockTemplate;
import dev.lockstarter.core.ReactiveLockTemplate;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.ReactiveLockStore;

import static dev.lockstarter.test.contract.ReactiveTemplateContract.value;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The contract of the reactive path on a {@link LockStore}: {@link ReactiveLockTemplate}
 * excludes under contention, excludes blocking callers of the same key (and is excluded
 * by them), waits without a thread and wakes on a release, renews while the guarded
 * publisher runs, and releases when it completes, fails or is cancelled. A store that
 * implements {@link ReactiveLockStore} is also checked operation by operation, against
 * its own blocking operations; other stores are reached through the bounded elastic
 * scheduler and run the rest of the suite the same way. Results kept reactively are the
 * {@link ReactiveResultContract}'s, fencing tokens the {@link ReactiveFencingContract}'s,
 * the guarded work the {@link ReactiveExecuteContract}'s and the operations of a reactive
 * store the {@link ReactiveStoreOperationsContract}'s.
 * <p>
 * Subclasses return the store from {@link #createStore()}, called before each test, and
 * declare with {@link #issuesFencingTokens()} whether it issues fencing tokens.
 *
 * @since 0.1.0
 */
public abstract class ReactiveLockOperationsContractTests implements ReactiveExecuteContract,
		ReactiveStoreOperationsContract, ReactiveResultContract, ReactiveFencingContract {

	/**
	 * Longer than the longest pause between the polls of a waiter (one second, with
	 * jitter).
	 */
	private static final Duration LONGEST_POLL_WINDOW = Duration.ofMillis(1500);

	private LockStore store;

	private LockTemplate locks;

	private ReactiveLockTemplate reactiveLocks;

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
	 * Return whether the store issues fencing tokens: with every acquisition a positive
	 * token, greater than every earlier one of the key (drawn on demand for a
	 * {@link dev.lockstarter.store.FencingOnDemandLockStore}). The fencing tests check
	 * the store's tokens against this declaration, and none of them is skipped: a store
	 * that declares tokens fails them when an acquisition answers
	 * {@link dev.lockstarter.store.AcquireReply#NO_FENCING_TOKEN}, and a store that
	 * declares none, as by default, fails them when it answers any other token.
	 * @return {@code true} if the store issues fencing tokens
	 */
	protected boolean issuesFencingTokens() {
		return false;
	}

	/**
	 * Return whether the store issues fencing tokens, as {@link #issuesFencingTokens()}
	 * declares; an implementation detail of the suite, not meant for subclasses.
	 * @return the declared fencing
	 */
	@Override
	public final DeclaredFencing declaredFencing() {
		return DeclaredFencing.of(issuesFencingTokens(), this.store);
	}

	/**
	 * Return the store under test.
	 * @return the store
	 */
	@Override
	public final LockStore store() {
		return this.store;
	}

	/**
	 * Return the blocking template, on the store.
	 * @return the template
	 */
	@Override
	public final LockTemplate locks() {
		return this.locks;
	}

	/**
	 * Return the reactive template under test, on the blocking template.
	 * @return the reactive template
	 */
	@Override
	public final ReactiveLockTemplate reactiveLocks() {
		return this.reactiveLocks;
	}

	/**
	 * Return a new key, unique to the test run.
	 * @param name a readable part
	 * @return the key
	 */
	@Override
	public final String uniqueKey(String name) {
		return name + "-" + UUID.randomUUID();
	}

	@BeforeEach
	void setUpTemplates() {
		this.store = createStore();
		this.locks = new LockTemplate(this.store, "reactive-" + UUID.randomUUID().toString().substring(0, 8) + ":");
		this.reactiveLocks = new ReactiveLockTemplate(this.locks);
	}

	@AfterEach
	void tearDownTemplates() {
		this.locks.destroy();
		destroyStore(this.store);
	}

	@Test
	void reactiveCallersExcludeEachOtherUnderContention() {
		ExclusionChecker.Result result = new ExclusionChecker().threads(6)
			.attemptsPerThread(150)
			.check(List.of(uniqueKey("a"), uniqueKey("b")), this::reactiveHandle);
		assertThat(result.isExclusive()).as(result.toString()).isTrue();
		assertThat(result.acquisitions()).as(result.toString()).isPositive();
	}

	@Test
	void blockingAndReactiveCallersOfOneKeyExcludeEachOther() {
		ExclusionChecker.Result result = new ExclusionChecker().threads(6)
			.attemptsPerThread(150)
			.check(List.of(uniqueKey("mixed")),
					(key) -> ThreadLocalRandom.current().nextBoolean() ? reactiveHandle(key) : blockingHandle(key));
		assertThat(result.isExclusive()).as(result.toString()).isTrue();
		assertThat(result.acquisitions()).as(result.toString()).isPositive();
	}

	@Test
	void lockTakenReactivelyConflictsWithABlockingCallerUntilReleasedReactively() {
		String key = uniqueKey("cross");
		LockAttempt taken = value(this.reactiveLocks.tryAcquire(key, LockOptions.ttl(LONG_TTL)));
		assertThat(taken.isAcquired()).isTrue();
		LockAttempt blocked = this.locks.tryAcquire(key, Duration.ofSeconds(5));
		assertThat(blocked.isAcquired()).isFalse();
		assertThat(blocked.holderRemainingTtl()).isGreaterThan(Duration.ofSeconds(20));
		assertThat(this.reactiveLocks.release(taken.lease()).block(BLOCK)).isTrue();
		assertThat(this.reactiveLocks.release(taken.lease()).block(BLOCK)).isFalse();
		Lease blocking = this.locks.acquire(key, Duration.ofSeconds(5));
		assertThat(value(this.reactiveLocks.tryAcquire(key, LockOptions.ttl(LONG_TTL))).isAcquired()).isFalse();
		blocking.close();
		assertThat(this.locks.getHeldLocks()).isEmpty();
	}

	@Test
	void acquireOfAHeldLockSignalsAConflict() {
		String key = uniqueKey("conflict");
		try (Lease holder = this.locks.acquire(key, LONG_TTL)) {
			assertThatExceptionOfType(LockConflictException.class)
				.isThrownBy(() -> this.reactiveLocks.acquire(key, LockOptions.ttl(LONG_TTL)).block(BLOCK));
			assertThat(holder.isHeld()).isTrue();
		}
	}

	@Test
	void waiterWakesSoonAfterTheHolderReleases() throws Exception {
		String key = uniqueKey("waiter");
		Lease holder = this.locks.acquire(key, LONG_TTL);
		Watched watched = watched();
		Mono<LockAttempt> waiter = watched.reactiveLocks()
			.tryAcquire(key, LockOptions.ttl(LONG_TTL).withWaitTime(Duration.ofSeconds(20)))
			.cache();
		Disposable subscribed = waiter.subscribe();
		try {
			watched.store().awaitRefusals(1, BLOCK);
			holder.release();
			long releasedAt = System.nanoTime();
			LockAttempt attempt = value(waiter);
			assertThat(attempt.isAcquired()).as("acquired by the waiter that found it held").isTrue();
			// Polls are at most a second apart, notified or not
			assertThat(Duration.ofNanos(System.nanoTime() - releasedAt))
				.as("liveness bound, not a speed claim: acquired well within the 20 s wait after the release")
				.isLessThan(Duration.ofSeconds(5));
			assertThat(watched.reactiveLocks().release(attempt.lease()).block(BLOCK)).isTrue();
		}
		finally {
			subscribed.dispose();
			watched.locks().destroy();
		}
	}

	@Test
	void waitThatTimesOutAnswersTheConflict() {
		String key = uniqueKey("timeout");
		try (Lease holder = this.locks.acquire(key, LONG_TTL)) {
			long started = System.nanoTime();
			LockAttempt attempt = value(
					this.reactiveLocks.tryAcquire(key, LockOptions.ttl(LONG_TTL).withWaitTime(Duration.ofMillis(400))));
			Duration waited = Duration.ofNanos(System.nanoTime() - started);
			assertThat(attempt.isAcquired()).isFalse();
			assertThat(waited).as("the wait time, with a liveness bound (not a speed claim) on its end")
				.isGreaterThanOrEqualTo(Duration.ofMillis(390))
				.isLessThan(Duration.ofSeconds(3));
			assertThat(holder.isHeld()).isTrue();
		}
	}

	@Test
	void retriesOnAFixedScheduleUntilTheLockIsFree() throws Exception {
		String key = uniqueKey("retries");
		Lease holder = this.locks.acquire(key, LONG_TTL);
		Watched watched = watched();
		try {
			Mono<LockAttempt> retrying = watched.reactiveLocks()
				.tryAcquire(key, LockOptions.ttl(LONG_TTL).withRetries(100, Duration.ofMillis(100)))
				.cache();
			Disposable subscribed = retrying.subscribe();
			watched.store().awaitRefusals(2, BLOCK);
			holder.close();
			LockAttempt attempt = value(retrying);
			subscribed.dispose();
			assertThat(attempt.isAcquired()).as("acquired by a retry after two refusals").isTrue();
			watched.reactiveLocks().release(attempt.lease()).block(BLOCK);
		}
		finally {
			watched.locks().destroy();
		}
	}

	@Test
	void waiterCancelledWhileWaitingHoldsNothingOnceTheHolderReleases() throws Exception {
		String key = uniqueKey("cancelled-waiter");
		Lease holder = this.locks.acquire(key, LONG_TTL);
		Watched watched = watched();
		try {
			Disposable waiter = watched.reactiveLocks()
				.tryAcquire(key, LockOptions.ttl(LONG_TTL).withWaitTime(Duration.ofSeconds(20)))
				.subscribe();
			watched.store().awaitRefusals(1, BLOCK);
			waiter.dispose();
			holder.release();
			assertStaysFree(List.of(key));
			assertFree(key);
			assertThat(watched.locks().getHeldLocks()).isEmpty();
			assertThat(this.locks.getHeldLocks()).isEmpty();
		}
		finally {
			watched.locks().destroy();
		}
	}

	@Test
	void multiKeyWaiterCancelledWhileWaitingHoldsNothing() throws Exception {
		String a = uniqueKey("a");
		String b = uniqueKey("b");
		Lease holder = this.locks.acquire(b, LONG_TTL);
		Watched watched = watched();
		try {
			Disposable waiter = watched.reactiveLocks()
				.tryAcquire(List.of(a, b), LockOptions.ttl(LONG_TTL).withWaitTime(Duration.ofSeconds(20)))
				.subscribe();
			watched.store().awaitRefusals(1, BLOCK);
			waiter.dispose();
			holder.release();
			// Without an atomic multi-key acquisition, the try that found 'b' held took
			// 'a' first, and may still be rolling it back: both are free within less
			// than their time-to-live, unless the cancelled waiter kept one
			assertFreeWithin(a, BLOCK);
			assertFreeWithin(b, BLOCK);
			assertStaysFree(List.of(a, b));
			assertFree(a);
			assertFree(b);
			assertThat(watched.locks().getHeldLocks()).isEmpty();
			assertThat(this.locks.getHeldLocks()).isEmpty();
		}
		finally {
			watched.locks().destroy();
		}
	}

	@Test
	void severalKeysAreTakenAllOrNone() {
		String a = uniqueKey("a");
		String b = uniqueKey("b");
		String c = uniqueKey("c");
		LockAttempt first = value(this.reactiveLocks.tryAcquire(List.of(a, b), LockOptions.ttl(LONG_TTL)));
		assertThat(first.isAcquired()).isTrue();
		LockAttempt second = value(this.reactiveLocks.tryAcquire(List.of(c, b), LockOptions.ttl(LONG_TTL)));
		assertThat(second.isAcquired()).isFalse();
		assertThat(second.heldKey()).isEqualTo(b);
		assertFree(c);
		assertThat(this.reactiveLocks.release(first.lease()).block(BLOCK)).isTrue();
		assertFree(a);
		assertFree(b);
	}

	private ExclusionChecker.@Nullable Handle reactiveHandle(String key) {
		LockAttempt attempt = value(this.reactiveLocks.tryAcquire(key, LockOptions.ttl(LONG_TTL)));
		if (!attempt.isAcquired()) {
			return null;
		}
		Lease lease = attempt.lease();
		return () -> this.reactiveLocks.release(lease).block(BLOCK);
	}

	private ExclusionChecker.@Nullable Handle blockingHandle(String key) {
		LockAttempt attempt = this.locks.tryAcquire(key, LONG_TTL);
		return attempt.isAcquired() ? attempt.lease()::release : null;
	}

	/**
	 * Check that no one takes the keys for a while after a release: longer than the
	 * longest pause between a waiter's polls, so that a cancelled waiter still polling or
	 * listening for the release would be seen holding one.
	 */
	private void assertStaysFree(List<String> keys) throws InterruptedException {
		long end = System.nanoTime() + LONGEST_POLL_WINDOW.toNanos();
		do {
			for (String key : keys) {
				assertThat(this.locks.timeToExpiry(key)).as("'%s' not taken after its release", key).isZero();
			}
			Thread.sleep(20);
		}
		while (System.nanoTime() - end < 0);
	}

	/**
	 * A second template with the same key prefix, on the store under test seen through a
	 * {@link WatchedLockStore}, so that a test can wait until its waiter has found a lock
	 * held. Destroy its blocking template at the end of the test.
	 */
	private Watched watched() {
		WatchedLockStore store = new WatchedLockStore(this.store);
		LockTemplate locks = new LockTemplate(store.store(), this.locks.getKeyPrefix());
		return new Watched(store, locks, new ReactiveLockTemplate(locks));
	}

	private record Watched(WatchedLockStore store, LockTemplate locks, ReactiveLockTemplate reactiveLocks) {
	}

}
