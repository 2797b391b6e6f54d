package dev.lockstarter.core;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.LockStoreException;
import dev.lockstarter.store.memory.InMemoryLockStore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link LockTemplate} on the in-memory store.
 */
class LockTemplateTests {

	private final RecordingStore store = new RecordingStore(new InMemoryLockStore());

	private final LockTemplate locks = new LockTemplate(this.store, "app:");

	@Test
	void secondAcquireIsRejectedWithTheHoldersRemainingTtl() {
		try (Lease lease = this.locks.acquire("user:42", Duration.ofSeconds(10))) {
			LockAttempt attempt = this.locks.tryAcquire("user:42", Duration.ofSeconds(10));
			assertThat(attempt.isAcquired()).isFalse();
			assertThat(attempt.holderRemainingTtl()).isGreaterThan(Duration.ofSeconds(9))
				.isLessThanOrEqualTo(Duration.ofSeconds(10));
			assertThatExceptionOfType(LockConflictException.class)
				.isThrownBy(() -> this.locks.acquire("user:42", Duration.ofSeconds(1)))
				.satisfies((ex) -> assertThat(ex.getLockName()).isEqualTo("user:42"));
		}
		assertThat(this.locks.tryAcquire("user:42", Duration.ofSeconds(1)).isAcquired()).isTrue();
	}

	@Test
	void retryAfterIsTheTypicalHoldOfTheNameAndNeverMoreThanTheHoldersRemainingTtl() throws Exception {
		LockOptions options = LockOptions.ttl(Duration.ofSeconds(10)).withName("users");
		try (Lease lease = this.locks.acquire("user:1", options)) {
			LockAttempt attempt = this.locks.tryAcquire("user:1", options);
			assertThat(attempt.retryAfter()).as("nothing observed yet").isEqualTo(attempt.holderRemainingTtl());
		}
		for (int i = 0; i < 5; i++) {
			try (Lease lease = this.locks.acquire("user:" + i, options)) {
				Thread.sleep(100);
			}
		}
		try (Lease lease = this.locks.acquire("user:1", options)) {
			LockAttempt attempt = this.locks.tryAcquire("user:1", options);
			assertThat(attempt.holderRemainingTtl()).isGreaterThan(Duration.ofSeconds(9));
			assertThat(attempt.retryAfter()).isBetween(Duration.ofMillis(20), Duration.ofSeconds(2));
			assertThatExceptionOfType(LockConflictException.class).isThrownBy(() -> attempt.orElseThrow())
				.satisfies((ex) -> assertThat(ex.getRetryAfter()).isEqualTo(attempt.retryAfter()));
			LockAttempt otherName = this.locks.tryAcquire("user:1", LockOptions.ttl(Duration.ofSeconds(10)));
			assertThat(otherName.retryAfter()).as("holds of another name do not count")
				.isEqualTo(otherName.holderRemainingTtl());
		}
		try (Lease lease = this.locks.acquire("short:1", LockOptions.ttl(Duration.ofMillis(30)).withName("users"))) {
			LockAttempt attempt = this.locks.tryAcquire("short:1", options);
			assertThat(attempt.retryAfter()).as("capped by the remaining ttl")
				.isEqualTo(attempt.holderRemainingTtl())
				.isLessThanOrEqualTo(Duration.ofMillis(30));
		}
	}

	@Test
	void heldLocksAreListedFromAcquisitionToRelease() {
		assertThat(this.locks.getHeldLocks()).isEmpty();
		try (Lease first = this.locks.acquire("a", LockOptions.ttl(Duration.ofSeconds(10)).withName("letters"));
				Lease second = this.locks.acquire("b", Duration.ofSeconds(5))) {
			assertThat(this.locks.getHeldLocks()).extracting(HeldLock::key).containsExactly("a", "b");
			HeldLock a = this.locks.getHeldLocks().get(0);
			assertThat(a.name()).isEqualTo("letters");
			assertThat(a.timeToExpiry()).isGreaterThan(Duration.ofSeconds(9))
				.isLessThanOrEqualTo(Duration.ofSeconds(10));
			assertThat(this.locks.getHeldLocks().get(1).name()).isEqualTo(LockTemplate.UNNAMED);
			second.release();
			assertThat(this.locks.getHeldLocks()).extracting(HeldLock::key).containsExactly("a");
		}
		assertThat(this.locks.getHeldLocks()).isEmpty();
		assertThat(this.locks.getStoreName()).isEqualTo("recording");
		assertThat(new LockTemplate(new InMemoryLockStore()).getStoreName()).isEqualTo("memory");
	}

	@Test
	void listenersHearEveryOutcomeAndAFailingListenerChangesNothing() {
		List<String> heard = new CopyOnWriteArrayList<>();
		this.locks.addListener(new LockListener() {

			@Override
			public void acquisitionFinished(FinishedAttempt acquisition) {
				heard.add(acquisition.name() + " " + acquisition.outcome().tagValue() + " waited="
						+ acquisition.waited());
			}

			@Override
			public void acquired(HeldLock lock) {
				heard.add("acquired " + lock.key());
			}

			@Override
			public void released(HeldLock lock, boolean owned) {
				heard.add("released " + lock.key() + " owned=" + owned);
				throw new IllegalStateException("listener failure");
			}

		});
		LockOptions options = LockOptions.ttl(Duration.ofSeconds(5)).withName("n");
		try (Lease lease = this.locks.acquire("k", options)) {
			assertThat(this.locks.tryAcquire("k", options).isAcquired()).isFalse();
			assertThat(this.locks.tryAcquire("k", options.withWaitTime(Duration.ofMillis(30))).isAcquired()).isFalse();
		}
		assertThat(heard).containsExactly("acquired k", "n acquired waited=false", "n conflict waited=false",
				"n wait-timeout waited=true", "released k owned=true");
		assertThat(this.locks.tryAcquire("k", options).isAcquired()).isTrue();
	}

	@Test
	void everyAcquisitionGetsAFreshUnguessableToken() {
		for (int i = 0; i < 100; i++) {
			this.locks.acquire("k" + i, Duration.ofSeconds(5)).close();
		}
		Set<String> tokens = new HashSet<>(this.store.tokens);
		assertThat(tokens).hasSize(100);
		assertThat(tokens).allSatisfy((token) -> assertThat(token).matches("[A-Za-z0-9_-]{22}"));
	}

	@Test
	void releaseIsOwnerSafeAndHappensOnce() {
		Lease lease = this.locks.acquire("k", Duration.ofSeconds(5));
		assertThat(lease.release()).isTrue();
		Lease next = this.locks.acquire("k", Duration.ofSeconds(5));
		assertThat(lease.release()).isFalse();
		lease.close();
		assertThat(this.locks.tryAcquire("k", Duration.ofSeconds(5)).isAcquired()).isFalse();
		next.close();
	}

	@Test
	void executeReleasesWhenTheCallbackThrows() {
		IllegalStateException failure = new IllegalStateException("boom");
		assertThatExceptionOfType(IllegalStateException.class)
			.isThrownBy(() -> this.locks.execute("k", Duration.ofSeconds(5), () -> {
				throw failure;
			}))
			.isSameAs(failure);
		assertThat(this.locks.execute("k", Duration.ofSeconds(5), () -> "ran")).isEqualTo("ran");
	}

	@Test
	void executeDoesNotRunTheCallbackWhenTheLockIsHeld() {
		AtomicInteger runs = new AtomicInteger();
		try (Lease lease = this.locks.acquire("k", Duration.ofSeconds(5))) {
			assertThatExceptionOfType(LockConflictException.class)
				.isThrownBy(() -> this.locks.execute("k", Duration.ofSeconds(5), runs::incrementAndGet));
		}
		assertThat(runs).hasValue(0);
	}

	@Test
	void closeSwallowsStoreFailuresButReleaseReportsThem() {
		LockTemplate failing = new LockTemplate(new FailingReleaseStore());
		Lease lease = failing.acquire("k", Duration.ofSeconds(5));
		lease.close();
		Lease other = failing.acquire("k2", Duration.ofSeconds(5));
		List<String> released = new CopyOnWriteArrayList<>();
		failing.addListener(new LockListener() {

			@Override
			public void released(HeldLock lock, boolean owned) {
				released.add(lock.key() + " owned=" + owned);
			}

		});
		assertThatExceptionOfType(LockStoreException.class).isThrownBy(other::release);
		assertThat(released).as("a failed release still ends the hold").containsExactly("k2 owned=false");
		assertThat(failing.getHeldLocks()).isEmpty();
	}

	@Test
	void invalidArgumentsAreRejected() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.locks.tryAcquire(" ", Duration.ofSeconds(1)));
		assertThatIllegalArgumentException().isThrownBy(() -> this.locks.tryAcquire("k", Duration.ZERO));
		assertThatIllegalArgumentException().isThrownBy(() -> this.locks.tryAcquire("k", Duration.ofSeconds(-1)))
			.withMessageContaining("'ttl' must be at least 1 ms");
		assertThatIllegalArgumentException().isThrownBy(() -> this.locks.tryAcquire("k", Duration.ofNanos(999_999)))
			.withMessageContaining("'ttl' must be at least 1 ms, the shortest time-to-live that a lock store keeps");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> LockOptions.ttl(Duration.ofSeconds(1)).withTtl(Duration.ofNanos(1)))
			.withMessageContaining("'ttl' must be at least 1 ms");
		assertThat(LockOptions.ttl(LockOptions.MIN_TTL).getTtl()).isEqualTo(Duration.ofMillis(1));
	}

	@Test
	void acquisitionWhoseReplyIsLostIsReleasedByTokenInTheBackgroundOnceTheStoreAnswers() throws Exception {
		LostReplyStore lossy = new LostReplyStore(new InMemoryLockStore());
		LockTemplate template = new LockTemplate(lossy, "app:");
		try {
			lossy.failReleases = true;
			assertThatExceptionOfType(LockStoreException.class)
				.isThrownBy(() -> template.tryAcquire("k", Duration.ofSeconds(30)));
			// The store granted the lock although the caller was told it failed
			assertThat(lossy.delegate.tryAcquire("app:k", "other", Duration.ofSeconds(1)).isAcquired()).isFalse();
			awaitReleaseAttempts(lossy, 2);
			assertThat(template.cleaner().pending()).isEqualTo(1);
			lossy.failReleases = false;
			await().atMost(Duration.ofSeconds(10))
				.pollInterval(Duration.ofMillis(10))
				.untilAsserted(() -> assertThat(template.cleaner().pending()).isZero());
			assertThat(lossy.delegate.tryAcquire("app:k", "other", Duration.ofSeconds(1)).isAcquired()).isTrue();
		}
		finally {
			template.destroy();
		}
	}

	@Test
	void cleanupOfALostAcquisitionStopsOnceItsTtlHasPassed() throws Exception {
		LostReplyStore lossy = new LostReplyStore(new InMemoryLockStore());
		LockTemplate template = new LockTemplate(lossy, "app:");
		try {
			lossy.failReleases = true;
			assertThatExceptionOfType(LockStoreException.class)
				.isThrownBy(() -> template.tryAcquire("k", Duration.ofMillis(500)));
			await().atMost(Duration.ofSeconds(10))
				.pollInterval(Duration.ofMillis(10))
				.untilAsserted(() -> assertThat(template.cleaner().pending()).isZero());
			int attempts = lossy.releaseAttempts.get();
			assertThat(attempts).isPositive();
			await().during(Duration.ofMillis(300))
				.atMost(Duration.ofSeconds(1))
				.untilAsserted(() -> assertThat(lossy.releaseAttempts).hasValue(attempts));
		}
		finally {
			template.destroy();
		}
	}

	private static void awaitReleaseAttempts(LostReplyStore store, int attempts) {
		await().atMost(Duration.ofSeconds(10))
			.pollInterval(Duration.ofMillis(10))
			.untilAsserted(() -> assertThat(store.releaseAttempts.get()).isGreaterThanOrEqualTo(attempts));
	}

	/**
	 * Applies every acquisition, then fails as if its reply were lost; fails releases
	 * while {@code failReleases} is set, as if the store were still unreachable.
	 */
	private static final class LostReplyStore implements LockStore {

		final LockStore delegate;

		final AtomicInteger releaseAttempts = new AtomicInteger();

		volatile boolean failReleases;

		LostReplyStore(LockStore delegate) {
			this.delegate = delegate;
		}

		@Override
		public AcquireReply tryAcquire(String key, String token, Duration ttl) {
			this.delegate.tryAcquire(key, token, ttl);
			throw new LockStoreException(key, "reply lost", new RuntimeException("command timed out"));
		}

		@Override
		public boolean release(String key, String token) {
			this.releaseAttempts.incrementAndGet();
			if (this.failReleases) {
				throw new LockStoreException(key, "store down", new RuntimeException("connection refused"));
			}
			return this.delegate.release(key, token);
		}

		@Override
		public boolean extend(String key, String token, Duration ttl) {
			return this.delegate.extend(key, token, ttl);
		}

		@Override
		public Duration timeToExpiry(String key) {
			return this.delegate.timeToExpiry(key);
		}

	}

	private static final class RecordingStore implements LockStore {

		private final LockStore delegate;

		final java.util.List<String> tokens = new java.util.ArrayList<>();

		RecordingStore(LockStore delegate) {
			this.delegate = delegate;
		}

		@Override
		public AcquireReply tryAcquire(String key, String token, Duration ttl) {
			assertThat(key).startsWith("app:");
			this.tokens.add(token);
			return this.delegate.tryAcquire(key, token, ttl);
		}

		@Override
		public boolean release(String key, String token) {
			return this.delegate.release(key, token);
		}

		@Override
		public boolean extend(String key, String token, Duration ttl) {
			return this.delegate.extend(key, token, ttl);
		}

		@Override
		public Duration timeToExpiry(String key) {
			return this.delegate.timeToExpiry(key);
		}

	}

	private static final class FailingReleaseStore implements LockStore {

		@Override
		public AcquireReply tryAcquire(String key, String token, Duration ttl) {
			return AcquireReply.acquired();
		}

		@Override
		public boolean release(String key, String token) {
			throw new LockStoreException(key, "store down", new RuntimeException("connection refused"));
		}

		@Override
		public boolean extend(String key, String token, Duration ttl) {
			return false;
		}

		@Override
		public Duration timeToExpiry(String key) {
			return Duration.ZERO;
		}

	}

}
