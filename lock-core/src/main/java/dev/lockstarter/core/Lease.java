package dev.lockstarter.core;

import java.time.Duration;
import java.util.List;

import dev.lockstarter.store.LockStoreException;

/**
 * A held lock. Closing the lease releases the lock if, and only if, it is still owned by
 * this lease: a lease whose lock expired and was taken by another owner deletes nothing.
 *
 * <pre class="code">
 * try (Lease lease = locks.acquire("user:" + id, Duration.ofSeconds(10))) {
 *     // at most one holder of "user:42" across every instance runs this
 * }
 * </pre>
 *
 * While held, a lease acquired with renewal (the default) is extended before it expires,
 * by one scheduler shared by all leases, until it is released.
 * <p>
 * A lease may hold the locks of
 * {@linkplain LockOperations#acquire(java.util.Collection, LockOptions) several keys}: it
 * was granted all of them at once, renews all of them, counts as held only while it holds
 * every one, and releases all of them. Each key keeps its own
 * {@linkplain #fencingToken(String) fencing token}.
 *
 * @since 0.1.0
 */
public interface Lease extends AutoCloseable {

	/**
	 * Return the key this lease holds, as given to {@link LockOperations} (without the
	 * store's key prefix). For a lease on several keys, a description of them all, such
	 * as {@code "[account:A, account:B]"}: use {@link #keys()} to read them.
	 * @return the key
	 */
	String key();

	/**
	 * Return the keys this lease holds, in the order they were locked.
	 * @return the keys; the one {@link #key()} unless the lease holds several
	 * @since 0.1.0
	 */
	default List<String> keys() {
		return List.of(key());
	}

	/**
	 * Return the fencing token of this acquisition: it is greater than the token of every
	 * earlier acquisition of the same key, so a resource that remembers the highest token
	 * it has seen can reject writes from a holder whose lock expired in the meantime.
	 * <p>
	 * Some stores (Redis) draw the token only when it is first read, so that holders that
	 * never read one pay nothing for it: that first read is then a store call, made while
	 * the lease holds its lock, and fails with {@link LockNotHeldException} once the lock
	 * was released or lost. Read it before the write it guards, not after the release.
	 * <p>
	 * A lease on several keys has one token per key, from {@link #fencingToken(String)},
	 * and answers {@code 0} here: no single number is greater than every earlier token of
	 * each of its keys.
	 * @return the token, or {@code 0} if the store issues none or the lease holds several
	 * keys
	 */
	long fencingToken();

	/**
	 * Return the fencing token of one key of this lease: greater than the token of every
	 * earlier acquisition of that key, whether alone or in a set.
	 * @param key one of the {@link #keys()}
	 * @return the token, or {@code 0} if the store issues none
	 * @throws IllegalArgumentException if the lease does not hold the key
	 * @since 0.1.0
	 */
	default long fencingToken(String key) {
		if (!keys().contains(key)) {
			throw new IllegalArgumentException("Lease of " + keys() + " does not hold key '" + key + "'");
		}
		return fencingToken();
	}

	/**
	 * Return whether this lease still holds its lock, as far as this process knows: not
	 * released, not found lost by a renewal, and not past the time-to-live of its last
	 * successful acquisition or renewal.
	 * @return {@code true} if the lock is held
	 */
	boolean isHeld();

	/**
	 * Reset the time-to-live of this lease's lock, counted from now, if this lease still
	 * holds it (compare-and-extend on its owner token). A lease acquired with renewal
	 * goes on being renewed with its own time-to-live afterwards.
	 * @param ttl the new time-to-live, positive
	 * @return {@code true} if the lock was still owned by this lease and is now extended;
	 * {@code false} if it was released, lost or taken over (a lease that finds its lock
	 * gone this way is reported lost)
	 * @throws LockStoreException if the store cannot be reached; the lock keeps its
	 * previous expiry
	 * @since 0.1.0
	 */
	default boolean extend(Duration ttl) {
		return extend(ttl, Duration.ZERO);
	}

	/**
	 * Reset the time-to-live of this lease's lock, as {@link #extend(Duration)} does, and
	 * keep the lock at its release until at least {@code holdAtLeast} from now: a release
	 * before then shortens the lock to what remains instead of deleting it. A minimum
	 * hold is never shortened this way.
	 * @param ttl the new time-to-live, positive
	 * @param holdAtLeast the minimum hold from now, zero for none, not longer than
	 * {@code ttl}
	 * @return {@code true} if the lock was still owned by this lease and is now extended;
	 * {@code false} if it was released, lost or taken over
	 * @throws LockStoreException if the store cannot be reached; the lock keeps its
	 * previous expiry
	 * @since 0.1.0
	 */
	boolean extend(Duration ttl, Duration holdAtLeast);

	/**
	 * Keep a result next to this lease's lock, for the callers that waited for the lock
	 * while this lease held it: they read it with {@link LockResults#findResult} once the
	 * lock is released. The result is kept for {@code ttl}, past the release, and is
	 * replaced by the next holder's; the store takes it only while this lease still owns
	 * the lock.
	 * @param result the result's bytes
	 * @param ttl how long the result is kept, positive
	 * @return {@code true} if the result is stored; {@code false} if the lock was already
	 * released, lost or taken over
	 * @throws UnsupportedOperationException if the lock store keeps no results
	 * @throws LockStoreException if the store cannot be reached
	 */
	boolean putResult(byte[] result, Duration ttl);

	/**
	 * Keep a result next to this lease's lock, as {@link #putResult} does, and release
	 * the lock: in one store call where the store can (Redis: one script), else keep,
	 * then release. A holder's last two steps, made one round trip.
	 * @param result the result's bytes
	 * @param ttl how long the result is kept, positive
	 * @return {@code true} if the result is stored and the lock released; {@code false}
	 * if the lock was already released, lost or taken over
	 * @throws UnsupportedOperationException if the lock store keeps no results
	 * @throws LockStoreException if the store cannot be reached; the lease is then still
	 * held, and {@link #release()} or {@link #close()} tries to release it
	 */
	default boolean releaseKeepingResult(byte[] result, Duration ttl) {
		boolean kept = putResult(result, ttl);
		return release() && kept;
	}

	/**
	 * Release the lock by compare-and-delete on this lease's owner token. Calling it
	 * again is a no-op that returns {@code false}. With a minimum hold time that has not
	 * passed yet, the lock is kept until then instead of being deleted.
	 * @return {@code true} if the lock was still owned by this lease; {@code false} if it
	 * had expired, was lost, or was already released
	 * @throws LockStoreException if the store cannot be reached; the lock then expires at
	 * the end of its time-to-live
	 */
	boolean release();

	/**
	 * Release the lock, as {@link #release()}, but never throw: a store failure is logged
	 * and the lock expires at the end of its time-to-live. This keeps the exception of a
	 * failed guarded block intact in try-with-resources.
	 */
	@Override
	void close();

}
