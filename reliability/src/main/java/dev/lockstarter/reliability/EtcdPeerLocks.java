package dev.lockstarter.reliability;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.Lease;
import io.etcd.jetcd.Lock;
import io.etcd.jetcd.lease.LeaseKeepAliveResponse;
import io.etcd.jetcd.lock.LockResponse;
import io.etcd.jetcd.options.LeaseOption;
import io.etcd.jetcd.support.CloseableClient;
import io.grpc.stub.StreamObserver;
import org.jspecify.annotations.Nullable;

import dev.lockstarter.store.etcd.EtcdClients;

/**
 * The peer lock on etcd: etcd's lock service through jetcd
 * ({@code client.getLockClient().lock(name, leaseId)}), on a client built as the workers'
 * etcd store's is ({@link EtcdClients}, every wait bounded by
 * {@link StoreUnderTest#STORE_TIMEOUT}).
 * <p>
 * As etcd's lock API describes it, a lock is owned through a lease: the lock service
 * keeps a key of the caller's, attached to the lease, for as long as the caller holds the
 * lock, and the lock ends when the key is unlocked or when the lease expires or is
 * revoked. Each acquisition therefore grants a lease of the time-to-live (whole seconds,
 * rounded up, at least one) and keeps it alive with jetcd's
 * {@code keepAlive(leaseId, observer)} while the lock is wanted or held, then asks for
 * the lock named {@code lock:<key>}, waiting at most twice the time-to-live. A wait that
 * times out or fails revokes the lease, so that a lock granted after the caller gave up
 * dies with it. The release unlocks the key, stops the keep-alive and revokes the lease.
 * <p>
 * {@link WorkerLock.Holding#isHeld()} asks the store whether the lease is still there
 * ({@code timeToLive(leaseId)}): etcd answers a time-to-live of {@code -1} for a lease
 * that expired or was revoked, and a lease never comes back, so a lease still there after
 * the section means that the lock's key, attached to it, was there all along. The answer
 * counts in whole seconds rounded down (the lease expires in less than one second more
 * than it says), so a live lease of one second kept alive reads {@code 0} throughout: a
 * time-to-live of zero or more is a live lease.
 * <p>
 * The lock issues no fencing token ({@code 0}). etcd's documentation regards its
 * revisions as fencing tokens, and the lock's key has a creation revision that grows from
 * one holder to the next, but the lock service's answer carries only the key and the
 * store's revision at the time of the answer: reading the key's revision takes another
 * call, and the lock API promises neither number as a token.
 */
final class EtcdPeerLocks {

	/** The prefix of a lock's name before the workload's key. */
	static final String NAME_PREFIX = "lock:";

	private static final StreamObserver<LeaseKeepAliveResponse> IGNORED = new StreamObserver<>() {

		@Override
		public void onNext(LeaseKeepAliveResponse response) {
		}

		@Override
		public void onError(Throwable error) {
		}

		@Override
		public void onCompleted() {
		}

	};

	private EtcdPeerLocks() {
	}

	/**
	 * etcd's lock service through jetcd, judged by its lease.
	 * @param endpoints the members' client URLs, such as {@code http://127.0.0.1:2379},
	 * separated by commas
	 * @param ttl the time-to-live of each acquisition's lease
	 * @return the lock
	 */
	static WorkerLock jetcd(String endpoints, Duration ttl) {
		Duration timeout = StoreUnderTest.STORE_TIMEOUT;
		Client client = EtcdClients.client(timeout, endpoints.split(","));
		Lease leases = client.getLeaseClient();
		Lock locks = client.getLockClient();
		long leaseSeconds = Math.max(1, (ttl.toMillis() + 999) / 1000);
		Duration wait = ttl.multipliedBy(2);
		return WorkerLock.acquiring((key) -> {
			long leaseId;
			try {
				leaseId = get(leases.grant(leaseSeconds), timeout).getID();
			}
			catch (ExecutionException | TimeoutException | RuntimeException ex) {
				// Not granted in time: a lease granted anyway expires, not kept alive
				return null;
			}
			CloseableClient keepAlive = leases.keepAlive(leaseId, IGNORED);
			Held held = new Held(leases, locks, leaseId, keepAlive, timeout);
			CompletableFuture<LockResponse> locked = locks.lock(lockName(key), leaseId);
			try {
				held.lockKey = get(locked, wait).getKey();
				return held;
			}
			catch (ExecutionException | TimeoutException | RuntimeException ex) {
				locked.cancel(true);
				held.release();
				return null;
			}
			catch (InterruptedException ex) {
				locked.cancel(true);
				held.release();
				throw ex;
			}
		}, client::close);
	}

	/**
	 * The name of the lock on a key of the workload.
	 * @param key the key, such as {@code k0}
	 * @return the lock's name, such as {@code lock:k0}
	 */
	static ByteSequence lockName(String key) {
		return ByteSequence.from(NAME_PREFIX + key, StandardCharsets.UTF_8);
	}

	private static <T> T get(CompletableFuture<T> future, Duration timeout)
			throws InterruptedException, ExecutionException, TimeoutException {
		return future.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
	}

	/**
	 * A lease kept alive and, once the lock service answered, the lock's key.
	 */
	private static final class Held implements WorkerLock.Held {

		private final Lease leases;

		private final Lock locks;

		private final long leaseId;

		private final CloseableClient keepAlive;

		private final Duration timeout;

		private volatile @Nullable ByteSequence lockKey;

		Held(Lease leases, Lock locks, long leaseId, CloseableClient keepAlive, Duration timeout) {
			this.leases = leases;
			this.locks = locks;
			this.leaseId = leaseId;
			this.keepAlive = keepAlive;
			this.timeout = timeout;
		}

		@Override
		public long fencingToken() {
			return 0;
		}

		@Override
		public boolean isHeld() {
			try {
				return get(this.leases.timeToLive(this.leaseId, LeaseOption.DEFAULT), this.timeout).getTTL() >= 0;
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return false;
			}
			catch (ExecutionException | TimeoutException | RuntimeException ex) {
				return false;
			}
		}

		@Override
		public void release() {
			ByteSequence key = this.lockKey;
			if (key != null) {
				quietly(this.locks.unlock(key));
			}
			this.keepAlive.close();
			quietly(this.leases.revoke(this.leaseId));
		}

		private void quietly(CompletableFuture<?> call) {
			try {
				get(call, this.timeout);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			catch (ExecutionException | TimeoutException | RuntimeException ex) {
				// The lease ends by itself once no longer kept alive
			}
		}

	}

}
