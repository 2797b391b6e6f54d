package dev.lockstarter.store;

import java.time.Duration;

/**
 * A {@link LockStore} that also keeps locks with more than one holder: permits (at most a
 * given number of holders of a key) and read/write locks (any number of readers, or one
 * writer).
 * <p>
 * Such a lock is a set of holders under its key, each with an owner token and a
 * time-to-live of its own: a holder expires, is extended and is released alone. A key
 * serves one kind of lock; a key used as a permit, a read/write lock and a
 * {@linkplain LockStore#tryAcquire mutex} at once is a caller's error, and the store need
 * not detect it. Its data may live under the key or beside it, and never collides with a
 * mutex of another key.
 * <p>
 * Implementations must guarantee, while the store keeps its data:
 * <ul>
 * <li>a permit is granted only while fewer unexpired holders than the permits asked for
 * hold the key;</li>
 * <li>a read is granted only while no unexpired writer holds the key and no writer waits
 * for it; a write only while no unexpired holder at all holds it;</li>
 * <li>only a holder, by its token, releases or extends its own place; an expired place is
 * free;</li>
 * <li>a grant returns a fencing token that strictly increases with every grant on the
 * key, whatever its kind;</li>
 * <li>a failed acquisition changes nothing, except that a waiting writer's wait is
 * recorded, for no longer than the writer's time-to-live (see
 * {@link #tryAcquireWrite}).</li>
 * </ul>
 * Every operation is atomic in the store and, for a remote store, one round trip. A store
 * that is also a {@link ReleaseNotifyingLockStore} announces {@link #releaseShared} on
 * the key, as it announces {@link #release}.
 *
 * @since 0.1.0
 */
public interface SharedLockStore extends LockStore {

	/**
	 * Take one of {@code permits} places on {@code key} for {@code token}.
	 * @param key the full store key
	 * @param token the new holder's token, unique to this acquisition
	 * @param ttl the place's time-to-live, positive
	 * @param permits how many holders the key may have at once, positive
	 * @return acquired with a fencing token; or held, with the remaining time-to-live of
	 * the holder that expires first
	 * @throws LockStoreException if the store cannot be reached or does not answer in
	 * time
	 */
	AcquireReply tryAcquirePermit(String key, String token, Duration ttl, int permits);

	/**
	 * Take a read place on {@code key} for {@code token}: granted while no writer holds
	 * the key or waits for it.
	 * @param key the full store key
	 * @param token the new holder's token, unique to this acquisition
	 * @param ttl the place's time-to-live, positive
	 * @return acquired with a fencing token; or held, with the writer's remaining
	 * time-to-live, or, when a writer waits, the readers' longest
	 * @throws LockStoreException if the store cannot be reached or does not answer in
	 * time
	 */
	AcquireReply tryAcquireRead(String key, String token, Duration ttl);

	/**
	 * Take the write place on {@code key} for {@code token}: granted while no one holds
	 * the key. A writer that is refused and will try again says for how long, and no new
	 * reader is granted the key meanwhile, so that a stream of readers cannot starve
	 * writers; its wait ends when it is granted, when it {@linkplain #releaseShared
	 * releases} by its token, or when {@code waitFor} or {@code ttl} has passed,
	 * whichever is first. The time-to-live bounds the wait as it bounds a place: a writer
	 * that crashed while waiting holds readers back for at most its {@code ttl}, and a
	 * writer that goes on waiting records its wait anew with every refused try.
	 * @param key the full store key
	 * @param token the new holder's token, unique to this acquisition
	 * @param ttl the place's time-to-live, positive; also the longest its recorded wait
	 * lasts
	 * @param waitFor how long new readers are held back for this writer if it is refused,
	 * at most {@code ttl}; zero when it will not try again
	 * @return acquired with a fencing token; or held, with the longest remaining
	 * time-to-live among the holders
	 * @throws LockStoreException if the store cannot be reached or does not answer in
	 * time
	 */
	AcquireReply tryAcquireWrite(String key, String token, Duration ttl, Duration waitFor);

	/**
	 * Give up the place {@code token} holds on {@code key}, and end its wait as a writer.
	 * @param key the full store key
	 * @param token the holder's token
	 * @return {@code true} if {@code token} held an unexpired place, now given up
	 * @throws LockStoreException if the store cannot be reached or does not answer in
	 * time
	 */
	boolean releaseShared(String key, String token);

	/**
	 * Reset the time-to-live of the place {@code token} holds on {@code key}.
	 * @param key the full store key
	 * @param token the holder's token
	 * @param ttl the new time-to-live, counted from now, positive
	 * @return {@code true} if {@code token} held an unexpired place, now extended
	 * @throws LockStoreException if the store cannot be reached or does not answer in
	 * time
	 */
	boolean extendShared(String key, String token, Duration ttl);

	/**
	 * Return how long the last of the holders of {@code key} keeps its place; this reads
	 * and never changes.
	 * @param key the full store key
	 * @return the longest remaining time-to-live among the holders, or
	 * {@link Duration#ZERO} if the key has none
	 * @throws LockStoreException if the store cannot be reached or does not answer in
	 * time
	 */
	Duration sharedTimeToExpiry(String key);

}
