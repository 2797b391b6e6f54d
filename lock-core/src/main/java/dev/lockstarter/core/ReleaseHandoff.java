package dev.lockstarter.core;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicReference;

import org.jspecify.annotations.Nullable;

import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.LockStoreException;
import dev.lockstarter.store.ReleaseHandoffLockStore;

/**
 * The release listener of one waiter on one key, for a store that can
 * {@linkplain ReleaseHandoffLockStore#tryAcquireOnRelease acquire from a listener}: when
 * a release is announced, the store thread that announced it sends the waiter's
 * acquisition at once, and the waiter is woken with the answer. The blocking and the
 * reactive waiter take the answer alike. Without it, the waiter is woken first and then
 * sends the acquisition itself, a thread wake-up more between the release and the new
 * owner.
 * <p>
 * The waiter and the listener never try at the same time, since both use the waiter's
 * owner token and a try could not tell the other's grant from another owner's. A listener
 * that finds the waiter trying only wakes it, and the waiter tries again itself, as
 * without a handoff; one that finds an attempt of its own under way, or a grant not yet
 * taken, only adds a wake. After a grant, or a failure that may have been one, nothing is
 * sent until the waiter takes the answer. A grant that comes after the waiter stopped
 * waiting is released by token through the {@code orphans} callback.
 */
final class ReleaseHandoff implements Runnable {

	private enum State {

		/** The waiter sleeps and nothing is sent. */
		IDLE,

		/** The waiter is trying itself. */
		WAITER_TRYING,

		/** The listener sent an acquisition whose answer has not come. */
		LISTENER_TRYING,

		/**
		 * The listener's attempt was granted, or failed so that it may have been: no one
		 * tries again before the waiter takes the answer.
		 */
		SETTLED,

		/** The waiter has stopped waiting. */
		CLOSED

	}

	private final AtomicReference<State> state = new AtomicReference<>(State.IDLE);

	/** The answer of the listener's attempt, until the waiter takes it. */
	private final AtomicReference<@Nullable Answer> answer = new AtomicReference<>();

	private final ReleaseHandoffLockStore store;

	private final String storeKey;

	private final String token;

	private final Duration ttl;

	private final Runnable wake;

	private final Orphans orphans;

	/**
	 * Create the listener of one waiter.
	 * @param store the store
	 * @param storeKey the key waited for
	 * @param token the waiter's owner token
	 * @param ttl the time-to-live the waiter asks for
	 * @param wake wakes the waiter, without blocking: a semaphore's release for a
	 * blocking waiter, a signal for a reactive one
	 * @param orphans releases by token a lock that the listener's attempt may hold when
	 * the waiter no longer waits for it
	 */
	ReleaseHandoff(ReleaseHandoffLockStore store, String storeKey, String token, Duration ttl, Runnable wake,
			Orphans orphans) {
		this.store = store;
		this.storeKey = storeKey;
		this.token = token;
		this.ttl = ttl;
		this.wake = wake;
		this.orphans = orphans;
	}

	/** A release was announced: try for the waiter, or wake it to try. */
	@Override
	public void run() {
		if (!this.state.compareAndSet(State.IDLE, State.LISTENER_TRYING)) {
			this.wake.run();
			return;
		}
		long sentAt = System.nanoTime();
		CompletableFuture<AcquireReply> attempt;
		try {
			attempt = this.store.tryAcquireOnRelease(this.storeKey, this.token, this.ttl).orElse(null);
		}
		catch (RuntimeException ex) {
			// Not sent: the waiter's own try reports what is wrong with the store
			attempt = null;
		}
		if (attempt == null) {
			this.state.compareAndSet(State.LISTENER_TRYING, State.IDLE);
			this.wake.run();
			return;
		}
		attempt.whenComplete((result, failure) -> answered(new Answer(result, failure, sentAt)));
	}

	private void answered(Answer answer) {
		this.answer.set(answer);
		State next = answer.mayHold() ? State.SETTLED : State.IDLE;
		if (this.state.compareAndSet(State.LISTENER_TRYING, next)) {
			this.wake.run();
			return;
		}
		// The waiter left meanwhile; if it did not take the answer, no one will
		Answer left = this.answer.getAndSet(null);
		if (left != null) {
			left.orphan(this.orphans);
		}
	}

	/**
	 * Before the waiter tries itself: whether it may, which it may not while the
	 * listener's attempt runs or before the waiter has taken a grant (the answer wakes
	 * it).
	 */
	boolean startWaiterTry() {
		return this.state.compareAndSet(State.IDLE, State.WAITER_TRYING);
	}

	/**
	 * After the waiter's own try found the lock held; after a try that acquired, the
	 * waiter closes instead, so that no listener tries with its token again.
	 */
	void endWaiterTry() {
		this.state.compareAndSet(State.WAITER_TRYING, State.IDLE);
	}

	/**
	 * Take the answer of the listener's last attempt, if it came and was not taken.
	 * @return the answer, or {@code null}
	 */
	@Nullable Answer take() {
		return this.answer.getAndSet(null);
	}

	/**
	 * The waiter stopped waiting, with or without the lock: an answer it did not take,
	 * now or later, is released if it is a grant.
	 */
	void close() {
		this.state.set(State.CLOSED);
		Answer left = take();
		if (left != null) {
			left.orphan(this.orphans);
		}
	}

	/**
	 * The answer of an attempt made by the listener.
	 *
	 * @param result the result, or {@code null} if the attempt failed
	 * @param failure why it failed, or {@code null}
	 * @param sentAt when it was sent, from {@link System#nanoTime()}
	 */
	record Answer(@Nullable AcquireReply result, @Nullable Throwable failure, long sentAt) {

		/**
		 * The store failure of a failed attempt, as a blocking call would have thrown it.
		 */
		LockStoreException storeFailure(String key) {
			Throwable cause = (this.failure instanceof CompletionException completion && completion.getCause() != null)
					? completion.getCause() : this.failure;
			return (cause instanceof LockStoreException storeFailure) ? storeFailure
					: new LockStoreException(key, "Lock store failed to acquire lock '" + key + "'", cause);
		}

		/** Whether the attempt may hold the lock: granted, or failed (unknown). */
		private boolean mayHold() {
			return this.result == null || this.result.isAcquired();
		}

		private void orphan(Orphans orphans) {
			if (mayHold()) {
				orphans.release(this.sentAt);
			}
		}

	}

	/** Releases by token a lock that the waiter did not take. */
	@FunctionalInterface
	interface Orphans {

		/**
		 * Release in the background, without blocking.
		 * @param sentAt when the acquisition was sent, from {@link System#nanoTime()}
		 */
		void release(long sentAt);

	}

}
