package dev.lockstarter.core;

import java.util.function.Consumer;

/**
 * A {@link Lease} that tells when it stops guarding its work before it is released: a
 * renewal found its lock expired or held by another owner, the store could not be reached
 * until the lock's time-to-live passed, or the lease reached its maximum hold time and is
 * no longer renewed (the lock then expires within its time-to-live). The leases of
 * {@link LockTemplate} and {@link ReactiveLockTemplate} are such leases.
 *
 * @since 0.1.0
 */
public interface LossNotifyingLease extends Lease {

	/**
	 * Run an action once when this lease is found lost, or at once, on the calling
	 * thread, if it already was; never for a lease that was released first. The action
	 * runs on the thread that found the loss, usually the renewal thread shared by every
	 * lease: keep it short and do not block in it.
	 * @param action told the reason of the loss
	 */
	void whenLost(Consumer<String> action);

}
