package dev.lockstarter.test.contract;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.LockStore;

/**
 * An in-memory {@link LockStore} with one deliberate, classic flaw, for negative
 * controls: tests that prove the contract suite and the {@link ExclusionChecker} catch
 * broken stores.
 */
final class FlawedLockStore implements LockStore {

	private final Flaw flaw;

	private final Map<String, Entry> locks = new ConcurrentHashMap<>();

	private final AtomicLong fencingTokens = new AtomicLong();

	FlawedLockStore(Flaw flaw) {
		this.flaw = flaw;
	}

	@Override
	public AcquireReply tryAcquire(String key, String token, Duration ttl) {
		long now = System.nanoTime();
		if (this.flaw == Flaw.CHECK_THEN_SET) {
			Entry existing = this.locks.get(key);
			if (existing != null && !existing.isExpired(now)) {
				return AcquireReply.held(Duration.ofNanos(existing.expiresAt - now));
			}
			pause();
			this.locks.put(key, new Entry(token, now + ttl.toNanos()));
			return AcquireReply.acquired();
		}
		if (this.flaw == Flaw.FENCING_DRAWN_BEFORE_INSERT) {
			long fence = this.fencingTokens.incrementAndGet();
			// 0 to 2 ms, so that an owner that drew later often takes the key first
			pause(ThreadLocalRandom.current().nextInt(3));
			Entry created = new Entry(token, now + ttl.toNanos());
			Entry current = this.locks.compute(key,
					(k, existing) -> (existing == null || existing.isExpired(now)) ? created : existing);
			return (current == created) ? AcquireReply.acquired(fence)
					: AcquireReply.held(Duration.ofNanos(current.expiresAt - now));
		}
		Entry created = new Entry(token, now + ttl.toNanos());
		Entry current = this.locks.compute(key, (k, existing) -> {
			if (existing == null || existing.isExpired(now)) {
				return created;
			}
			return (this.flaw == Flaw.FAILED_ACQUIRE_RESETS_TTL) ? new Entry(existing.token, created.expiresAt)
					: existing;
		});
		return (current == created) ? AcquireReply.acquired()
				: AcquireReply.held(Duration.ofNanos(current.expiresAt - now));
	}

	@Override
	public boolean release(String key, String token) {
		long now = System.nanoTime();
		if (this.flaw == Flaw.OWNER_BLIND_RELEASE) {
			Entry removed = this.locks.remove(key);
			return removed != null && !removed.isExpired(now);
		}
		boolean[] deleted = new boolean[1];
		this.locks.computeIfPresent(key, (k, existing) -> {
			deleted[0] = !existing.isExpired(now) && existing.token.equals(token);
			return (deleted[0] || existing.isExpired(now)) ? null : existing;
		});
		return deleted[0];
	}

	@Override
	public boolean extend(String key, String token, Duration ttl) {
		long now = System.nanoTime();
		boolean[] extended = new boolean[1];
		this.locks.computeIfPresent(key, (k, existing) -> {
			if (existing.isExpired(now)) {
				return null;
			}
			if (this.flaw == Flaw.OWNER_BLIND_EXTEND || existing.token.equals(token)) {
				extended[0] = true;
				return new Entry(existing.token, now + ttl.toNanos());
			}
			return existing;
		});
		return extended[0];
	}

	@Override
	public Duration timeToExpiry(String key) {
		long now = System.nanoTime();
		Entry existing = this.locks.get(key);
		if (existing == null) {
			return Duration.ZERO;
		}
		if (existing.isExpired(now)) {
			// EXPIRED_LOCK_REPORTED_HELD looks only for the entry, as a store that
			// forgets to compare its expiry with the clock would
			return (this.flaw == Flaw.EXPIRED_LOCK_REPORTED_HELD) ? Duration.ofMillis(1) : Duration.ZERO;
		}
		return Duration.ofNanos(existing.expiresAt - now);
	}

	private static void pause() {
		pause(1);
	}

	private static void pause(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	enum Flaw {

		/** Acquire reads, pauses, then writes: two callers can both see the key free. */
		CHECK_THEN_SET,

		/** Release deletes the key whoever holds it. */
		OWNER_BLIND_RELEASE,

		/** Extend prolongs the key whoever holds it. */
		OWNER_BLIND_EXTEND,

		/** A rejected acquisition resets the holder's time-to-live to its own. */
		FAILED_ACQUIRE_RESETS_TTL,

		/** The time to expiry of a lock whose time-to-live passed is not zero. */
		EXPIRED_LOCK_REPORTED_HELD,

		/**
		 * The fencing token is drawn, then the key taken: an owner that follows another
		 * can hold a lower token.
		 */
		FENCING_DRAWN_BEFORE_INSERT

	}

	private record Entry(String token, long expiresAt) {

		boolean isExpired(long now) {
			return now - this.expiresAt >= 0;
		}

	}

}
