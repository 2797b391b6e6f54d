package dev.lockstarter.store.etcd;

import java.time.Clock;
import java.time.Duration;
import java.util.List;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import org.jspecify.annotations.Nullable;

import dev.lockstarter.store.ObservedExpiry;
import org.springframework.util.Assert;

import static dev.lockstarter.store.etcd.EtcdTransactions.first;
import static dev.lockstarter.store.etcd.EtcdTransactions.withLease;

/**
 * The results kept next to the etcd store's locks: each under its own key, with an expiry
 * time on the store's wall clock ({@link EtcdValues#resultValue}), written in a
 * transaction that holds only while the lock is held by its owner.
 */
final class EtcdResults {

	private final EtcdLockStore store;

	private final EtcdTransactions transactions;

	private final ObservedExpiry observed;

	private final Clock clock;

	EtcdResults(EtcdLockStore store, EtcdTransactions transactions, ObservedExpiry observed, Clock clock) {
		this.store = store;
		this.transactions = transactions;
		this.observed = observed;
		this.clock = clock;
	}

	/**
	 * Keep a result beside the lock, in one transaction that holds only while the lock is
	 * held by {@code token}, and, if {@code release}, release the lock in it too.
	 */
	boolean keep(String key, String token, byte[] result, Duration ttl, boolean release) {
		Assert.notNull(result, "'result' must not be null");
		String stored = EtcdLockStore.storedKey(key);
		ByteSequence lockKey = this.store.lockKey(key);
		ByteSequence resultKey = this.store.resultKey(key);
		long millis = EtcdLockStore.millis(ttl);
		long deadline = this.transactions.deadline();
		// A result expires on the wall clock: it is not mutual exclusion
		ByteSequence value = EtcdValues.resultValue(result, this.clock.millis() + millis);
		Long outlived = this.observed.outlivedVersion(stored, token);
		Cmp[] held = EtcdValues.heldBy(lockKey, token, outlived);
		boolean kept = this.transactions
			.commit(deadline, release ? "store the result and release" : "store the result of", key, (lease) -> {
				Op put = Op.put(resultKey, value, withLease(lease));
				return this.transactions.txn()
					.If(held)
					.Then(release ? new Op[] { put, Op.delete(lockKey, DeleteOption.DEFAULT) } : new Op[] { put });
			}, ttl)
			.isSucceeded();
		if (kept && release) {
			this.observed.forget(stored);
		}
		else if (!kept && outlived == null) {
			this.observed.forget(stored, token);
		}
		return kept;
	}

	/**
	 * Return the unexpired result that the last read of a transaction found.
	 * @param response the transaction's response, whose last read is of the result key
	 * @return the result, or {@code null}
	 */
	byte @Nullable [] read(TxnResponse response) {
		List<GetResponse> gets = response.getGetResponses();
		KeyValue result = first(gets.get(gets.size() - 1));
		return (result != null) ? EtcdValues.result(result.getValue(), this.clock.millis()) : null;
	}

	byte @Nullable [] read(GetResponse response) {
		return response.getKvs().isEmpty() ? null
				: EtcdValues.result(response.getKvs().get(0).getValue(), this.clock.millis());
	}

}
