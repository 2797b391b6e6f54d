package dev.lockstarter.core;

import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.LogSafe;
import org.springframework.util.backoff.BackOff;
import org.springframework.util.backoff.BackOffExecution;
import org.springframework.util.backoff.ExponentialBackOff;

/**
 * Releases, by owner token, the locks of acquisitions whose outcome is unknown: the store
 * call failed (a timeout, a connection lost after the request was sent), so the store may
 * have granted the lock although the caller was told it failed. Without cleanup such an
 * orphan would block its key until its time-to-live passes.
 * <p>
 * The release runs on one daemon thread ({@code lock-cleanup}), started on first use, so
 * the caller is never held up. A release that fails is retried with backoff (from 100 ms
 * up to 2 s) until the orphan's time-to-live has passed, counted from when the
 * acquisition was sent; by then the store has dropped it anyway. At most
 * {@value #MAX_PENDING} orphans are tracked; beyond that, an orphan is left to expire and
 * a WARN says so.
 */
final class OrphanCleaner {

	private static final Log logger = LogFactory.getLog(OrphanCleaner.class);

	static final int MAX_PENDING = 10_000;

	private static final BackOff RETRIES = retries();

	private final AtomicInteger pending = new AtomicInteger();

	private final ReentrantLock executorLock = new ReentrantLock();

	private @Nullable ScheduledThreadPoolExecutor executor;

	private boolean shutdown;

	OrphanCleaner() {
	}

	/**
	 * Release the lock {@code token} may hold on {@code storeKey}, in the background.
	 * @param store the store that releases it: the mutex store, or its shared view
	 * @param key the key, for logs
	 * @param storeKey the store key
	 * @param token the owner token of the failed acquisition
	 * @param sentAt when the acquisition was sent, from {@link System#nanoTime()}
	 * @param ttl the time-to-live it asked for
	 */
	void cleanUp(LockStore store, String key, String storeKey, String token, long sentAt, Duration ttl) {
		if (this.pending.incrementAndGet() > MAX_PENDING) {
			this.pending.decrementAndGet();
			logger.warn("Too many acquisitions with an unknown outcome are being cleaned up; lock '" + LogSafe.key(key)
					+ "', if it was granted, stays until its time-to-live passes");
			return;
		}
		Orphan orphan = new Orphan(store, key, storeKey, token, sentAt + ttl.toNanos());
		if (!schedule(orphan, 0)) {
			this.pending.decrementAndGet();
		}
	}

	/** Return the number of orphans still being cleaned up. */
	int pending() {
		return this.pending.get();
	}

	/**
	 * Stop cleaning up; orphans left expire at the end of their time-to-live.
	 */
	void shutdown() {
		this.executorLock.lock();
		try {
			this.shutdown = true;
			if (this.executor != null) {
				this.executor.shutdownNow();
				this.executor = null;
			}
		}
		finally {
			this.executorLock.unlock();
		}
	}

	private boolean schedule(Orphan orphan, long delayNanos) {
		this.executorLock.lock();
		try {
			if (this.shutdown) {
				return false;
			}
			if (this.executor == null) {
				ScheduledThreadPoolExecutor created = new ScheduledThreadPoolExecutor(1, (task) -> {
					Thread thread = new Thread(task, "lock-cleanup");
					thread.setDaemon(true);
					return thread;
				});
				created.setRemoveOnCancelPolicy(true);
				this.executor = created;
			}
			this.executor.schedule(() -> attempt(orphan), delayNanos, TimeUnit.NANOSECONDS);
			return true;
		}
		catch (RejectedExecutionException ex) {
			return false;
		}
		finally {
			this.executorLock.unlock();
		}
	}

	private void attempt(Orphan orphan) {
		if (System.nanoTime() - orphan.expiresAt >= 0) {
			done();
			return;
		}
		try {
			if (orphan.store.release(orphan.storeKey, orphan.token)) {
				logger.info("Released lock '" + LogSafe.key(orphan.key)
						+ "', which the store had granted to an acquisition reported as failed");
			}
			done();
		}
		catch (RuntimeException ex) {
			long remaining = orphan.expiresAt - System.nanoTime();
			if (remaining <= 0) {
				done();
				return;
			}
			long retryMillis = orphan.retries.nextBackOff();
			if (logger.isDebugEnabled()) {
				logger.debug("Could not release lock '" + LogSafe.key(orphan.key)
						+ "' after an acquisition with an unknown " + "outcome; retrying in " + retryMillis + " ms",
						ex);
			}
			if (!schedule(orphan, Math.min(TimeUnit.MILLISECONDS.toNanos(retryMillis), remaining))) {
				done();
			}
		}
	}

	private static BackOff retries() {
		ExponentialBackOff retries = new ExponentialBackOff(100, 2);
		retries.setMaxInterval(2000);
		return retries;
	}

	private void done() {
		this.pending.decrementAndGet();
	}

	private static final class Orphan {

		final LockStore store;

		final String key;

		final String storeKey;

		final String token;

		final long expiresAt;

		final BackOffExecution retries = RETRIES.start();

		Orphan(LockStore store, String key, String storeKey, String token, long expiresAt) {
			this.store = store;
			this.key = key;
			this.storeKey = storeKey;
			this.token = token;
			this.expiresAt = expiresAt;
		}

	}

}
