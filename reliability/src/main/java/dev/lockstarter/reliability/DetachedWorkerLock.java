package dev.lockstarter.reliability;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import dev.lockstarter.core.DetachedLease;
import dev.lockstarter.core.LockAttempt;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.core.LockTemplate;

/**
 * This starter's lock as the lock server uses it, on two instances of one store: a worker
 * opens the backend's store twice (two clients, two records of what each has seen, as two
 * lock-server instances), acquires a detached lease on the first
 * ({@link LockTemplate#tryAcquireDetached}), renews it every third of its time-to-live on
 * the second ({@link LockTemplate#extendDetached}), and releases it on the first
 * ({@link LockTemplate#releaseDetached}), the instance that never saw the renewals. Every
 * thread of the worker acquires on the first instance, so a first instance that counted a
 * lock from its own write, ignoring the renewals made on the second, would let a second
 * owner in during a long section.
 * <p>
 * The acquisition is tried again every fiftieth of the time-to-live (at least 5 ms), as a
 * lock-server client polls, for at most twice the time-to-live. The promise is the one a
 * lock-server client gets: held until the time-to-live, less the loss margin (a tenth),
 * after the acquisition or renewal last confirmed was sent; a renewal refused, or
 * confirmed after that deadline, loses it, and a renewal that fails is tried again at the
 * next period, the deadline deciding. A renewal refused before the deadline is told as a
 * loss within the promise ({@link WorkerLock.PromiseReporting}): the store took the lock
 * from a holder that renewed in time, which is what a first instance counting the lock
 * from its own write would do.
 */
final class DetachedWorkerLock {

	/** The share of a time-to-live left out of the promise, as the template's margin. */
	private static final double LOSS_MARGIN = 0.1;

	/** The shortest sleep between two attempts to acquire, in milliseconds. */
	private static final long MIN_POLL_MILLIS = 5;

	private DetachedWorkerLock() {
	}

	static WorkerLock open(Backend backend, String address, String keyPrefix, Duration ttl) {
		WorkerStores.Opened first = WorkerStores.open(backend, address);
		WorkerStores.Opened second = WorkerStores.open(backend, address);
		LockTemplate acquiring = new LockTemplate(first.store(), keyPrefix);
		LockTemplate renewing = new LockTemplate(second.store(), keyPrefix);
		ScheduledExecutorService renewals = Executors.newScheduledThreadPool(2, (task) -> {
			Thread thread = new Thread(task, "detached-renewals");
			thread.setDaemon(true);
			return thread;
		});
		LockOptions options = LockOptions.ttl(ttl);
		Duration every = Duration.ofMillis(Math.max(MIN_POLL_MILLIS, ttl.toMillis() / 50));
		return WorkerLock.acquiring((key) -> WorkerLock.poll(ttl.multipliedBy(2), every, () -> {
			long sentAt = System.nanoTime();
			LockAttempt attempt = acquiring.tryAcquireDetached(key, options);
			return attempt.isAcquired() ? new Held(acquiring, renewing, renewals, key, attempt, sentAt, ttl) : null;
		}), () -> {
			renewals.shutdownNow();
			acquiring.destroy();
			renewing.destroy();
			first.resources().close();
			second.resources().close();
		});
	}

	private static long deadline(long sentAt, Duration ttl) {
		return sentAt + ttl.toNanos() - (long) (ttl.toNanos() * LOSS_MARGIN);
	}

	/**
	 * A detached lease held by a section, renewed on the second instance.
	 */
	private static final class Held implements WorkerLock.Held, WorkerLock.LossReporting, WorkerLock.PromiseReporting {

		private final LockTemplate acquiring;

		private final LockTemplate renewing;

		private final String key;

		private final String token;

		private final long fencingToken;

		private final Duration ttl;

		private final ScheduledFuture<?> renewal;

		private final List<Runnable> lossActions = new ArrayList<>();

		/** The local deadline, on {@link System#nanoTime()}. */
		private volatile long lossAt;

		/** Set once, when a renewal finds the lock lost; guarded by this. */
		private boolean lost;

		/** Set at the release, after which no loss is told; guarded by this. */
		private boolean released;

		Held(LockTemplate acquiring, LockTemplate renewing, ScheduledExecutorService renewals, String key,
				LockAttempt attempt, long sentAt, Duration ttl) {
			this.acquiring = acquiring;
			this.renewing = renewing;
			this.key = key;
			this.token = ((DetachedLease) attempt.lease()).ownerToken();
			this.fencingToken = attempt.lease().fencingToken();
			this.ttl = ttl;
			// Counted from before the acquisition was sent, no later than the store
			this.lossAt = deadline(sentAt, ttl);
			long period = Math.max(1, ttl.toMillis() / 3);
			this.renewal = renewals.scheduleAtFixedRate(this::renew, period, period, TimeUnit.MILLISECONDS);
		}

		private void renew() {
			long sentAt = System.nanoTime();
			if (sentAt - this.lossAt >= 0) {
				lose();
				return;
			}
			boolean renewed;
			try {
				renewed = this.renewing.extendDetached(this.key, this.token, this.ttl);
			}
			catch (RuntimeException ex) {
				// Tried again at the next period; the deadline decides
				return;
			}
			if (!renewed || System.nanoTime() - this.lossAt >= 0) {
				lose();
				return;
			}
			this.lossAt = deadline(sentAt, this.ttl);
		}

		private void lose() {
			List<Runnable> actions;
			synchronized (this) {
				if (this.lost || this.released) {
					return;
				}
				this.lost = true;
				actions = new ArrayList<>(this.lossActions);
			}
			this.renewal.cancel(false);
			actions.forEach(Runnable::run);
		}

		@Override
		public long fencingToken() {
			return this.fencingToken;
		}

		@Override
		public boolean isHeld() {
			synchronized (this) {
				if (this.lost) {
					return false;
				}
			}
			return isWithinPromise();
		}

		@Override
		public boolean isWithinPromise() {
			return System.nanoTime() - this.lossAt < 0;
		}

		@Override
		public void whenLost(Runnable action) {
			synchronized (this) {
				if (!this.lost) {
					this.lossActions.add(action);
					return;
				}
			}
			action.run();
		}

		@Override
		public void release() {
			synchronized (this) {
				this.released = true;
			}
			this.renewal.cancel(false);
			try {
				this.acquiring.releaseDetached(this.key, this.token);
			}
			catch (RuntimeException ex) {
				// Not released: it expires with its time-to-live
			}
		}

		@Override
		public String toString() {
			return "DetachedWorkerLock.Held[" + this.key + "]";
		}

	}

}
