package dev.lockstarter.core;

import java.util.Locale;
import java.util.function.Predicate;

import org.jspecify.annotations.Nullable;

import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.FencingOnDemandLockStore;

/**
 * The fencing token of a lease whose acquisition drew none, drawn from a
 * {@link FencingOnDemandLockStore} on its first read; the lease draws under its guard, so
 * that it draws one token.
 */
final class OnDemandFencing {

	private OnDemandFencing() {
	}

	/**
	 * Draw the fencing token of a lease.
	 * @param store the store that draws it
	 * @param key the lease's key
	 * @param storeKey the lease's store key
	 * @param token the lease's owner token
	 * @param notHeld the lease's state when it is no longer held, {@code null} if held
	 * @param lose loses the lease, told why
	 * @return the token
	 * @throws LockNotHeldException if the lease is no longer held, or the store found its
	 * lock expired or held by another owner
	 */
	static long draw(FencingOnDemandLockStore store, String key, String storeKey, String token,
			@Nullable String notHeld, Predicate<String> lose) {
		if (notHeld != null) {
			throw new LockNotHeldException(key, "Lock '" + key + "' is no longer held ("
					+ notHeld.toLowerCase(Locale.ROOT) + "): its fencing token cannot be drawn");
		}
		long drawn = store.fencingToken(storeKey, token);
		if (drawn == AcquireReply.NO_FENCING_TOKEN) {
			lose.test("drawing its fencing token found the lock expired or held by another owner");
			throw new LockNotHeldException(key,
					"Lock '" + key + "' had expired or was taken over before its fencing token was drawn");
		}
		return drawn;
	}

}
