package dev.lockstarter.store.etcd;

import java.time.Duration;

import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.LockStoreException;

import static org.awaitility.Awaitility.await;

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
		return await("'" + key + "' acquired").atMost(within)
			.pollInSameThread()
			.pollDelay(Duration.ZERO)
			.pollInterval(Duration.ofMillis(20))
			.ignoreException(LockStoreException.class)
			.until(() -> store.tryAcquire(key, token, ttl), AcquireReply::isAcquired);
	}

}
