package dev.lockstarter.store.etcd;

import java.time.Duration;

import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.LockStoreException;

/**
 * Polling with a deadline, for tests that wait for a lock to expire or a cluster to
 * answer again.
 */
final class EtcdAwait {

	private EtcdAwait() {
	}

	/**
	 * Try to acquire until acquired, the store failing or the lock being held meanwhile,
	 * and fail when the deadline passes.
	 */
	static AcquireReply acquired(LockStore store, String key, String token, Duration ttl, Duration within) {
		long deadline = System.nanoTime() + within.toNanos();
		RuntimeException last = null;
		while (System.nanoTime() - deadline < 0) {
			try {
				AcquireReply reply = store.tryAcquire(key, token, ttl);
				if (reply.isAcquired()) {
					return reply;
				}
			}
			catch (LockStoreException ex) {
				last = ex;
			}
			pause();
		}
		throw new AssertionError("'" + key + "' not acquired within " + within.toMillis() + " ms", last);
	}

	private static void pause() {
		try {
			Thread.sleep(20);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new AssertionError("Interrupted", ex);
		}
	}

}
