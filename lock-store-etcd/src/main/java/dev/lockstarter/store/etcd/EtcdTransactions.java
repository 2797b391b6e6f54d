package dev.lockstarter.store.etcd;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongFunction;

import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Txn;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.options.PutOption;
import org.jspecify.annotations.Nullable;

import dev.lockstarter.store.LockStoreException;

/**
 * The etcd store's transactions: each built on the {@link KV} client, with a lease from
 * {@link EtcdLeases} for the keys it writes, and committed within the deadline of its
 * call ({@link EtcdCalls}).
 */
final class EtcdTransactions {

	private final KV kv;

	private final EtcdCalls calls;

	private final EtcdLeases leases;

	EtcdTransactions(KV kv, EtcdCalls calls, EtcdLeases leases) {
		this.kv = kv;
		this.calls = calls;
		this.leases = leases;
	}

	/**
	 * Return the deadline of a call that starts now.
	 * @return the deadline, from {@link EtcdCalls#deadline()}
	 */
	long deadline() {
		return this.calls.deadline();
	}

	Txn txn() {
		return this.kv.txn();
	}

	/**
	 * Commit the transaction that {@code transaction} builds with a lease that lives
	 * {@code lifetime} (none if {@code null}), within the deadline. A transaction
	 * rejected because etcd no longer knows the lease (revoked by someone else, or ended
	 * sooner than this JVM reckoned) is tried once more with a new one.
	 */
	TxnResponse commit(long deadline, String operation, String key, LongFunction<Txn> transaction,
			@Nullable Duration lifetime) {
		long lease = (lifetime != null) ? this.leases.leaseFor(lifetime, deadline, key) : 0;
		CompletableFuture<TxnResponse> request = transaction.apply(lease).commit();
		try {
			return this.calls.await(request, deadline, operation, key);
		}
		catch (LockStoreException ex) {
			if (lifetime == null || !isLeaseNotFound(ex)) {
				throw ex;
			}
			this.leases.forget(lease);
			long renewed = this.leases.leaseFor(lifetime, deadline, key);
			return this.calls.await(transaction.apply(renewed).commit(), deadline, operation, key);
		}
	}

	static @Nullable KeyValue first(GetResponse response) {
		return response.getKvs().isEmpty() ? null : response.getKvs().get(0);
	}

	static PutOption withLease(long lease) {
		return PutOption.builder().withLeaseId(lease).build();
	}

	private static boolean isLeaseNotFound(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			String message = cause.getMessage();
			if (message != null && message.contains("requested lease not found")) {
				return true;
			}
		}
		return false;
	}

}
