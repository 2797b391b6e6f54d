package dev.lockstarter.core;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

import dev.lockstarter.store.HashedKeys;
import dev.lockstarter.store.InspectableLockStore;
import dev.lockstarter.store.LockStoreException;
import dev.lockstarter.store.StoredLock;
import org.springframework.util.Assert;

/**
 * An operator's view of the locks of a {@link LockTemplate}'s store, whichever instance
 * holds them: the holders of the keys under a prefix, and a force-release that frees a
 * key whoever holds it. Available for stores that are an {@link InspectableLockStore};
 * these calls serve operations, never the locking path.
 * <p>
 * Keys are the template's keys, without its prefix. Owner tokens are never returned: each
 * holder is named by a fingerprint of its token, which tells two holders apart and
 * matches the {@linkplain LockHolder#heldHere() locks this instance holds}.
 *
 * @since 0.1.0
 */
public final class LockHolders {

	/** The length of an owner's fingerprint. */
	static final int FINGERPRINT_LENGTH = 12;

	private final InspectableLockStore store;

	private final StoreKeys keys;

	private final LockEvents events;

	private LockHolders(InspectableLockStore store, StoreKeys keys, LockEvents events) {
		this.store = store;
		this.keys = keys;
		this.events = events;
	}

	/**
	 * Return the holders' view of a template's store, if the store can list its holders.
	 * @param template the template
	 * @return the view, or empty if the store is not an {@link InspectableLockStore}
	 */
	public static Optional<LockHolders> of(LockTemplate template) {
		Assert.notNull(template, "'template' must not be null");
		LockEngine engine = template.engine();
		return Optional.ofNullable(engine.store().inspectable())
			.map((inspectable) -> new LockHolders(inspectable, engine.storeKeys(), engine.events()));
	}

	/**
	 * List the locks held now on the keys that start with {@code keyPrefix}, in key
	 * order. A key too long for the store, kept in its {@linkplain HashedKeys hashed
	 * form}, is not listed: its key cannot be told from the store, though
	 * {@link #forceRelease} frees it.
	 * @param keyPrefix the start of the keys, without the template's prefix; empty for
	 * every key
	 * @param limit the most holders to list, positive
	 * @return the holders, and whether the store had more to list
	 * @throws LockStoreException if the store cannot be reached or does not answer in
	 * time
	 */
	public Listing find(String keyPrefix, int limit) {
		Assert.notNull(keyPrefix, "'keyPrefix' must not be null");
		Assert.isTrue(limit > 0, "'limit' must be positive");
		String prefix = this.keys.prefix();
		List<StoredLock> stored = this.store.holders(prefix + keyPrefix, limit);
		Set<HeldHere> heldHere = this.events.held()
			.stream()
			.map((lease) -> new HeldHere(lease.storeKey(), lease.token()))
			.collect(Collectors.toSet());
		List<LockHolder> holders = stored.stream()
			.filter((held) -> !held.key().startsWith(HashedKeys.MARKER, prefix.length()))
			.map((held) -> holder(prefix, held, heldHere.contains(new HeldHere(held.key(), held.token()))))
			.toList();
		// The store stopped at the limit, hashed keys counted, so it may have more
		return new Listing(holders, stored.size() >= limit);
	}

	/**
	 * Delete the lock on a key, whoever holds it. Its holder finds it lost at its next
	 * renewal or release, and a waiter may take it at once.
	 * @param key the key, without the template's prefix
	 * @return {@code true} if the key was held and is now free; {@code false} if no one
	 * held it
	 * @throws LockStoreException if the store cannot be reached or does not answer in
	 * time
	 */
	public boolean forceRelease(String key) {
		Assert.hasText(key, "'key' must not be blank");
		return this.store.forceRelease(this.keys.storeKey(key));
	}

	/**
	 * Delete the lock on a key only if the holder that an operator listed still holds it,
	 * named by its {@linkplain LockHolder#owner() owner fingerprint}: a lock taken since
	 * by another holder is left alone. Its holder finds it lost at its next renewal or
	 * release, and a waiter may take it at once.
	 * @param key the key, without the template's prefix
	 * @param owner the fingerprint of the listed holder's owner token
	 * @return {@code true} if that holder held the key and it is now free; {@code false}
	 * if no one or another holder holds it (see
	 * {@link InspectableLockStore#forceRelease(String, String)} for a lock whose
	 * time-to-live a store that expires locks by observed silence counted out)
	 * @throws LockStoreException if the store cannot be reached or does not answer in
	 * time
	 */
	public boolean forceRelease(String key, String owner) {
		Assert.hasText(key, "'key' must not be blank");
		Assert.hasText(owner, "'owner' must not be blank");
		String storeKey = this.keys.storeKey(key);
		// The key itself comes first among the keys that start with it
		List<StoredLock> held = this.store.holders(storeKey, 1);
		if (held.isEmpty() || !held.get(0).key().equals(storeKey) || !fingerprint(held.get(0).token()).equals(owner)) {
			return false;
		}
		return this.store.forceRelease(storeKey, held.get(0).token());
	}

	private static LockHolder holder(String prefix, StoredLock held, boolean heldHere) {
		String key = held.key().startsWith(prefix) ? held.key().substring(prefix.length()) : held.key();
		return new LockHolder(key, fingerprint(held.token()), held.timeToExpiry(), held.fencingToken(), heldHere);
	}

	static String fingerprint(String token) {
		return HashedKeys.sha256(token).substring(0, FINGERPRINT_LENGTH);
	}

	/**
	 * The holders a {@link LockHolders#find} found.
	 *
	 * @param holders the holders, in key order
	 * @param truncated whether the listing stopped at its limit, so that more holders may
	 * exist
	 */
	public record Listing(List<LockHolder> holders, boolean truncated) {

	}

	/** A lease of this template, by its store key and owner token. */
	private record HeldHere(String storeKey, String token) {

	}

	/**
	 * A lock held now, as {@link LockHolders} lists it.
	 *
	 * @param key the key, without the template's prefix
	 * @param owner a fingerprint of the holder's owner token: the same for the same
	 * acquisition, never the token
	 * @param timeToExpiry the time left before the lock expires unless renewed, as the
	 * store tells it: for a store whose locks a contender expires, the time-to-live the
	 * holder last wrote
	 * @param fencingToken the lock's fencing token, or
	 * {@link dev.lockstarter.store.AcquireReply#NO_FENCING_TOKEN} if the store issues
	 * none or has not drawn it
	 * @param heldHere whether this instance holds the lock, through this template
	 */
	public record LockHolder(String key, String owner, Duration timeToExpiry, long fencingToken, boolean heldHere) {

	}

}
