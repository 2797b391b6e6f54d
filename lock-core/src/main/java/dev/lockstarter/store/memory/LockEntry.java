package dev.lockstarter.store.memory;

/**
 * A lock held in an {@link InMemoryLockStore}: its owner token, its expiry and its
 * fencing token. A single-key acquisition sets the fencing token just after it puts the
 * entry in the map (see {@link InMemoryLockStore#tryAcquire}), before it returns; only
 * the owner reads it afterwards (an extension copies it), so the owner's own ordering
 * makes the write visible. Entries compare by identity.
 */
final class LockEntry {

	final String token;

	final long expiresAt;

	long fencingToken;

	LockEntry(String token, long expiresAt) {
		this.token = token;
		this.expiresAt = expiresAt;
	}

	LockEntry(String token, long expiresAt, long fencingToken) {
		this(token, expiresAt);
		this.fencingToken = fencingToken;
	}

	boolean isExpired(long now) {
		return now - this.expiresAt >= 0;
	}

}
