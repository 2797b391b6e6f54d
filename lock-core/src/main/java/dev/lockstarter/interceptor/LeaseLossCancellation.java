package dev.lockstarter.interceptor;

import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;

import dev.lockstarter.core.Lease;
import dev.lockstarter.core.LeaseLostException;
import dev.lockstarter.core.LockCapabilities;
import dev.lockstarter.core.LossNotifyingLease;

/**
 * Stops one invocation whose lease is found lost while it runs, for
 * {@link dev.lockstarter.annotation.OnLeaseLost#CANCEL}. A watch is opened on the lease
 * when the invocation starts and finished when it ends; a loss told in between runs the
 * watch's cancellation once, under the watch's monitor, and the finish then answers the
 * {@link LeaseLostException} that the caller gets instead of the method's outcome. A loss
 * told after the finish does nothing, so the cancellation never reaches work that has
 * ended.
 * <p>
 * The blocking path cancels by interrupting the invoking thread
 * ({@link #run(Work, Lease, String)}), and clears that interrupt before the thread leaves
 * the invocation; the reactive path cancels the subscription to the method's publisher
 * with an error signal ({@link ReactiveLockingHandler}).
 */
final class LeaseLossCancellation {

	private final Lease lease;

	private final String name;

	private final Consumer<LeaseLostException> cancellation;

	/** Why the lease was lost while watched; guarded by this watch. */
	private @Nullable String reason;

	/** Whether the invocation ended; guarded by this watch. */
	private boolean finished;

	private LeaseLossCancellation(Lease lease, String name, Consumer<LeaseLostException> cancellation) {
		this.lease = lease;
		this.name = name;
		this.cancellation = cancellation;
	}

	/**
	 * Open a watch on a lease. A lease that does not tell its loss (not a
	 * {@link LossNotifyingLease}) is never cancelled.
	 * @param lease the invocation's lease
	 * @param name the lock's name
	 * @param cancellation run at most once, before {@link #finish()}, with the exception
	 * that the caller gets
	 * @return the open watch
	 */
	static LeaseLossCancellation watch(Lease lease, String name, Consumer<LeaseLostException> cancellation) {
		LeaseLossCancellation watch = new LeaseLossCancellation(lease, name, cancellation);
		LockCapabilities.lossNotifying(lease).ifPresent((notifying) -> notifying.whenLost(watch::lost));
		return watch;
	}

	private synchronized void lost(String reason) {
		if (!this.finished && this.reason == null) {
			this.reason = reason;
			this.cancellation.accept(failure(reason));
		}
	}

	/**
	 * End the watch: no cancellation runs after it.
	 * @return the exception for the caller if the lease was lost while watched, else
	 * {@code null}
	 */
	synchronized @Nullable LeaseLostException finish() {
		this.finished = true;
		return (this.reason != null) ? failure(this.reason) : null;
	}

	private LeaseLostException failure(String reason) {
		return new LeaseLostException(this.name, this.lease.key(), reason);
	}

	/**
	 * Run a method on the calling thread, interrupting it if the lease is found lost
	 * before the method ends; the method's outcome is then replaced by a
	 * {@link LeaseLostException} (the method's failure, if any, added as suppressed), and
	 * the interrupt, which was this watch's, is cleared.
	 * @param method the method's run, within its lease
	 * @param lease the lease to watch
	 * @param name the lock's name
	 */
	static @Nullable Object run(Work method, Lease lease, String name) throws Throwable {
		Thread thread = Thread.currentThread();
		boolean interruptedBefore = thread.isInterrupted();
		LeaseLossCancellation watch = watch(lease, name, (ex) -> thread.interrupt());
		Object result;
		try {
			result = method.run();
		}
		catch (Throwable ex) {
			LeaseLostException lost = watch.finish();
			if (lost != null) {
				clearInterrupt(interruptedBefore);
				lost.addSuppressed(ex);
				throw lost;
			}
			throw ex;
		}
		LeaseLostException lost = watch.finish();
		if (lost != null) {
			clearInterrupt(interruptedBefore);
			throw lost;
		}
		return result;
	}

	/**
	 * A method's run, which throws whatever the method throws.
	 */
	@FunctionalInterface
	interface Work {

		@Nullable Object run() throws Throwable;

	}

	/**
	 * Clear the interrupt that the watch delivered (it was delivered under the watch's
	 * monitor, before {@link #finish()} returned), keeping one that was there before.
	 */
	private static void clearInterrupt(boolean interruptedBefore) {
		Thread.interrupted();
		if (interruptedBefore) {
			Thread.currentThread().interrupt();
		}
	}

}
