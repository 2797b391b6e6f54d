package dev.lockstarter.store.etcd;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;

import dev.lockstarter.store.MultiKeyAcquireReply;
import dev.lockstarter.store.ObservedExpiry;

/**
 * One acquisition of several keys on the etcd store: a transaction that compares every
 * key and writes all of them or none, so no other client ever sees part of the set held.
 * The first transaction expects every key absent and reads them all otherwise. Each key
 * found is judged as a single key is, by the observed-silence rule
 * ({@link dev.lockstarter.store.ObservedExpiry}): if every one was seen unchanged for its
 * holder's whole time-to-live, a second transaction expects each key absent or unchanged
 * since it was read ({@code mod_revision}), as a single key's takeover does. A key whose
 * holder may not be taken over yet ends the attempt with its remaining time.
 */
final class EtcdMultiKeyAcquisition {

	private static final int ATTEMPTS = 3;

	private final EtcdLockStore store;

	private final List<ByteSequence> lockKeys;

	private final List<String> keys;

	private final String token;

	private final Duration ttl;

	EtcdMultiKeyAcquisition(EtcdLockStore store, List<ByteSequence> lockKeys, List<String> keys, String token,
			Duration ttl) {
		this.store = store;
		this.lockKeys = lockKeys;
		this.keys = keys;
		this.token = token;
		this.ttl = ttl;
	}

	MultiKeyAcquireReply acquire() {
		ObservedExpiry observed = this.store.observed();
		ByteSequence value = EtcdValues.lockValue(this.token, EtcdLockStore.millis(this.ttl));
		int size = this.lockKeys.size();
		String[] stored = new String[size];
		Cmp[] conditions = new Cmp[size];
		Op[] reads = new Op[size];
		for (int i = 0; i < size; i++) {
			conditions[i] = new Cmp(this.lockKeys.get(i), Cmp.Op.EQUAL, CmpTarget.version(0));
			reads[i] = Op.get(this.lockKeys.get(i), GetOption.DEFAULT);
			stored[i] = EtcdLockStore.storedKey(this.keys.get(i));
		}
		long deadline = this.store.transactions().deadline();
		for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
			Cmp[] expected = conditions.clone();
			long sentAt = observed.now();
			TxnResponse response = this.store.transactions()
				.commit(deadline, "acquire", this.keys.get(0),
						(lease) -> this.store.transactions().txn().If(expected).Then(puts(value, lease)).Else(reads),
						this.ttl);
			if (response.isSucceeded()) {
				long revision = response.getHeader().getRevision();
				long[] fencingTokens = new long[size];
				Arrays.fill(fencingTokens, revision);
				for (String key : stored) {
					observed.wrote(key, this.token, revision, sentAt, this.ttl);
				}
				return MultiKeyAcquireReply.acquired(fencingTokens);
			}
			for (int i = 0; i < size; i++) {
				KeyValue holder = EtcdTransactions.first(response.getGetResponses().get(i));
				if (holder == null) {
					conditions[i] = new Cmp(this.lockKeys.get(i), Cmp.Op.EQUAL, CmpTarget.version(0));
					continue;
				}
				long remaining = this.store.remaining(stored[i], holder);
				if (remaining > 0) {
					return MultiKeyAcquireReply.held(i, Duration.ofNanos(remaining));
				}
				conditions[i] = new Cmp(this.lockKeys.get(i), Cmp.Op.EQUAL,
						CmpTarget.modRevision(holder.getModRevision()));
			}
		}
		// Lost every race for keys that kept changing hands: held, for an unknown time
		return MultiKeyAcquireReply.held(0, Duration.ofMillis(-1));
	}

	private Op[] puts(ByteSequence value, long lease) {
		Op[] puts = new Op[this.lockKeys.size()];
		for (int i = 0; i < puts.length; i++) {
			puts[i] = Op.put(this.lockKeys.get(i), value, EtcdTransactions.withLease(lease));
		}
		return puts;
	}

}
