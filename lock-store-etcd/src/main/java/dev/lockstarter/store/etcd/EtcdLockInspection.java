package dev.lockstarter.store.etcd;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.OptionsUtil;
import org.jspecify.annotations.Nullable;

import dev.lockstarter.store.HashedKeys;
import dev.lockstarter.store.InspectableLockStore;
import dev.lockstarter.store.ObservedExpiry;
import dev.lockstarter.store.StoredLock;
import org.springframework.util.Assert;
import org.springframework.util.StringUtils;

/**
 * The operator's view of the locks of an {@link EtcdLockStore}
 * ({@link InspectableLockStore}): a listing by range reads of the lock prefix, and a
 * force-release by a transaction that deletes a lock key.
 * <p>
 * Only lock keys live under the store's lock prefix (results have a prefix of their own,
 * never nested with it), so a range of that prefix holds locks only. A lock is listed
 * under its store key, the lock prefix removed. A key kept as its {@linkplain HashedKeys
 * hash} cannot be read back, and is neither listed nor counted: the hashed names are one
 * contiguous range (they all start with {@link HashedKeys#MARKER}), which the listing
 * steps over. Each lock is listed with its value's owner token and time-to-live (the one
 * its holder last wrote, an upper bound of what is left) and its key's
 * {@code mod_revision} (the acquisition's fencing token until the holder renews it, the
 * revision of its last renewal after that).
 */
final class EtcdLockInspection {

	/** The most keys read by one request of a listing. */
	static final int MAX_PAGE = 1000;

	private static final ByteSequence NUL = ByteSequence.from(new byte[] { 0 });

	private final KV kv;

	private final ByteSequence prefix;

	private final EtcdCalls calls;

	private final ObservedExpiry observed;

	EtcdLockInspection(KV kv, ByteSequence prefix, EtcdCalls calls, ObservedExpiry observed) {
		this.kv = kv;
		this.prefix = prefix;
		this.calls = calls;
		this.observed = observed;
	}

	/**
	 * List the locks whose store key starts with {@code keyPrefix}, in ascending order of
	 * their keys' bytes, by pages of at most {@value #MAX_PAGE} keys, all within one
	 * timeout.
	 */
	List<StoredLock> holders(String keyPrefix, int limit) {
		Assert.notNull(keyPrefix, "'keyPrefix' must not be null");
		Assert.isTrue(limit > 0, "'limit' must be positive");
		List<StoredLock> holders = new ArrayList<>();
		if (keyPrefix.startsWith(HashedKeys.MARKER)) {
			// Only hashed names start with the marker: no key can be read back
			return holders;
		}
		long deadline = this.calls.deadline();
		ByteSequence from = this.prefix.concat(utf8(keyPrefix));
		ByteSequence end = OptionsUtil.prefixEndOf(from);
		ByteSequence afterHashed = OptionsUtil.prefixEndOf(this.prefix.concat(utf8(HashedKeys.MARKER)));
		boolean more = true;
		while (more && holders.size() < limit) {
			GetOption page = GetOption.builder()
				.withRange(end)
				.withLimit(Math.min(limit - holders.size(), MAX_PAGE))
				.withSortField(GetOption.SortTarget.KEY)
				.withSortOrder(GetOption.SortOrder.ASCEND)
				.build();
			GetResponse response = this.calls.await(this.kv.get(from, page), deadline, "list the locks", keyPrefix);
			more = response.isMore();
			for (KeyValue record : response.getKvs()) {
				String key = storeKey(record.getKey());
				if (key.startsWith(HashedKeys.MARKER)) {
					// The hashed names: step over all of them
					from = afterHashed;
					more = true;
					break;
				}
				from = record.getKey().concat(NUL);
				StoredLock lock = lock(key, record);
				if (lock != null) {
					holders.add(lock);
				}
			}
		}
		return holders;
	}

	/**
	 * Delete the lock key of {@code key} if it exists, whoever holds it: one transaction
	 * that deletes nothing if the key is missing, so that the answer says whether this
	 * call deleted a lock. The store's watch announces the delete to the key's waiters,
	 * as it announces a release.
	 */
	boolean forceRelease(String key) {
		String stored = EtcdLockStore.storedKey(key);
		ByteSequence lockKey = this.prefix.concat(utf8(stored));
		Cmp exists = new Cmp(lockKey, Cmp.Op.GREATER, CmpTarget.version(0));
		TxnResponse response = this.calls.await(
				this.kv.txn().If(exists).Then(Op.delete(lockKey, DeleteOption.DEFAULT)).commit(), this.calls.deadline(),
				"force-release", key);
		if (response.isSucceeded()) {
			this.observed.forget(stored);
		}
		return response.isSucceeded();
	}

	private String storeKey(ByteSequence lockKey) {
		byte[] bytes = lockKey.getBytes();
		int start = this.prefix.size();
		return new String(bytes, start, bytes.length - start, StandardCharsets.UTF_8);
	}

	/**
	 * Return the lock a record holds, or {@code null} if its value is not a lock's.
	 */
	private static @Nullable StoredLock lock(String key, KeyValue record) {
		ByteSequence value = record.getValue();
		String token = EtcdValues.owner(value);
		Duration ttl = EtcdValues.ttl(value);
		if (!StringUtils.hasText(token) || ttl.isZero()) {
			return null;
		}
		return new StoredLock(key, token, ttl, record.getModRevision());
	}

	private static ByteSequence utf8(String text) {
		return ByteSequence.from(text, StandardCharsets.UTF_8);
	}

}
