package dev.lockstarter.core;

import java.util.Optional;

import org.jspecify.annotations.Nullable;

/**
 * What a {@link LockOperations} and the leases it hands out can do beyond their
 * interfaces: the one place, with {@link StoreCapabilities} for stores, that asks an
 * object which type it is. The interceptor resolves an operations object once, when it
 * first needs it; a lease is asked when its watch or its release begins.
 */
@Internal
public final class LockCapabilities {

	private LockCapabilities() {
	}

	/**
	 * Return the kind of store behind an operations object, as meters and observations
	 * report it.
	 * @param locks the operations
	 * @return the kind, such as {@code redis}, or {@code unknown} when the operations are
	 * not a {@link LockTemplate}
	 */
	public static String storeName(LockOperations locks) {
		return (locks instanceof LockTemplate template) ? template.getStoreName() : "unknown";
	}

	/**
	 * Return an operations object as one that is reactive too, if it is.
	 * @param locks the operations
	 * @return the reactive operations, or empty
	 */
	public static Optional<ReactiveLockOperations> reactive(LockOperations locks) {
		return (locks instanceof ReactiveLockOperations reactive) ? Optional.of(reactive) : Optional.empty();
	}

	/**
	 * Return an operations object as a {@link LockTemplate}, if it is one.
	 * @param locks the operations
	 * @return the template, or empty
	 */
	public static Optional<LockTemplate> template(LockOperations locks) {
		return (locks instanceof LockTemplate template) ? Optional.of(template) : Optional.empty();
	}

	/**
	 * Return a lease as one that tells its loss, if it does.
	 * @param lease the lease
	 * @return the lease, or empty if it does not tell its loss
	 */
	public static Optional<LossNotifyingLease> lossNotifying(Lease lease) {
		return (lease instanceof LossNotifyingLease notifying) ? Optional.of(notifying) : Optional.empty();
	}

	/**
	 * Return a lease as an engine's lease on one key, if it is one.
	 * @param lease the lease
	 * @return the lease, or {@code null}
	 */
	static @Nullable StoreLease singleKey(Lease lease) {
		return (lease instanceof StoreLease single) ? single : null;
	}

}
